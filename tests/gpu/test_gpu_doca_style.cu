/* SPDX-License-Identifier: MIT */
/*
 * tests/gpu/test_gpu_doca_style.cu - a kernel written the way DOCA GPUNetIO
 * 3.x samples write theirs, ported with the renames of docs/doca-mapping.md:
 *
 *   - block-scope receive into __shared__ out_first_pkt_idx / out_pkt_num,
 *     with per-packet attributes;
 *   - per-thread packet address and bytes;
 *   - ICMP echo replies built in place in the RX buffer and sent from there
 *     with the RX buffer's key, NOTIFY on each, on a queue the block shares
 *     (CTA sharing mode); sent at THREAD scope (as DOCA's ICMP kernel, where
 *     only some threads have a reply) and at BLOCK scope (one reservation for
 *     the block; gnio lets a thread with no reply pass size 0);
 *   - per-batch stats in the custom info of a ring of semaphore items;
 *   - an exit flag in GPU_CPU memory, launched and stopped as a sample does
 *     (its own stream, the flag, then wait for the stream).
 *
 * What gnio needs beyond the renames is marked "gnio:": a send returns an
 * error, so a full TX ring (AGAIN) is retried; the last batch is released
 * explicitly at exit, so the books close.
 *
 * The host half (explicit bring-up, traffic, checks) is tests/util/
 * doca_style.h, shared with the CPU-device run in tests/unit/test_doca_style.c.
 */
#include "gpu_test.h"
#include "doca_style.h"

template <enum gnio_gpu_dev_eth_exec_scope SEND_SCOPE>
__global__ void icmp_echo_kernel(uint32_t *exit_cond, struct gnio_gpu_eth_rxq *rxq, struct gnio_gpu_eth_txq *txq,
				 struct gnio_gpu_semaphore_gpu *sem)
{
	__shared__ uint64_t out_first_pkt_idx;
	__shared__ uint32_t out_pkt_num;
	__shared__ struct gnio_gpu_dev_eth_rxq_attr out_attr[DS_MAX_RX];
	__shared__ unsigned long long stats[8]; /* bytes, replies, reply_bytes, ignored, send_err, again, attr */
	__shared__ uint32_t exit_now;
	const uint32_t rx_mkey = gnio_gpu_dev_eth_rxq_get_pkt_mkey(rxq);
	uint32_t sem_idx = 0;
	uint64_t batch = 0;
	gnio_error_t ret;

	for (;;) {
		/* One thread reads the flag for the block, so all threads leave
		 * the loop together (a block receive needs every thread). */
		if (threadIdx.x == 0) {
			exit_now = GNIO_GPUNETIO_VOLATILE(*exit_cond);
			for (int k = 0; k < 8; k++)
				stats[k] = 0;
		}
		__syncthreads();
		if (exit_now)
			break;

		ret = gnio_gpu_dev_eth_rxq_recv<GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK, GNIO_GPUNETIO_ETH_MCST_AUTO,
						GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO, GNIO_GPUNETIO_ETH_RX_ATTR_ALL>(
			rxq, DS_MAX_RX, DS_TIMEOUT_NS, &out_first_pkt_idx, &out_pkt_num, out_attr);
		if (ret != GNIO_SUCCESS) {
			if (threadIdx.x == 0) {
				printf("icmp_echo_kernel: receive failed with error %d\n", (int)ret);
				GNIO_GPUNETIO_VOLATILE(*exit_cond) = DS_EXIT_ERROR;
			}
			break;
		}
		if (out_pkt_num == 0)
			continue;

		/* Whole rounds of blockDim.x, so a block-scope send sees every
		 * thread in each round. */
		for (uint32_t base = 0; base < out_pkt_num; base += blockDim.x) {
			const uint32_t i = base + threadIdx.x;
			uint64_t addr = 0;
			uint32_t nbytes = 0;
			if (i < out_pkt_num) {
				addr = gnio_gpu_dev_eth_rxq_get_pkt_addr(rxq, out_first_pkt_idx + i);
				const uint32_t bytes = out_attr[i].bytes;
				if (bytes != gnio_gpu_dev_eth_rxq_get_pkt_bytes(rxq, out_first_pkt_idx + i))
					atomicAdd_block(&stats[6], 1ull);
				atomicAdd_block(&stats[0], (unsigned long long)bytes);
				/* The request becomes its reply where it lies. */
				nbytes = gnio_icmp_echo_reply_in_place((uint8_t *)addr, bytes, 0);
				if (nbytes == 0)
					atomicAdd_block(&stats[3], 1ull);
			}
			gnio_gpu_dev_eth_ticket_t ticket;
			ret = GNIO_SUCCESS;
			if (SEND_SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK) {
				/* Every thread calls; a thread without a reply passes 0
				 * bytes and sits the send out. */
				for (;;) {
					ret = gnio_gpu_dev_eth_txq_send<GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_CTA,
									GNIO_GPUNETIO_ETH_SYNC_SCOPE_CTA,
									GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
									GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK>(
						txq, addr, rx_mkey, nbytes, GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY, &ticket);
					/* gnio: AGAIN (ring full, nothing queued) reaches every
					 * thread of the block alike: wait and send again. */
					if (ret != GNIO_ERROR_AGAIN)
						break;
					if (threadIdx.x == 0)
						atomicAdd_block(&stats[5], 1ull);
					if (__syncthreads_or(GNIO_GPUNETIO_VOLATILE(*exit_cond) != 0))
						break;
					__nanosleep(1000);
				}
			} else if (nbytes) {
				for (;;) {
					ret = gnio_gpu_dev_eth_txq_send<GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_CTA,
									GNIO_GPUNETIO_ETH_SYNC_SCOPE_CTA,
									GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
									GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD>(
						txq, addr, rx_mkey, nbytes, GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY, &ticket);
					/* gnio: retry a full ring. */
					if (ret != GNIO_ERROR_AGAIN || GNIO_GPUNETIO_VOLATILE(*exit_cond) != 0)
						break;
					atomicAdd_block(&stats[5], 1ull);
					__nanosleep(1000);
				}
			}
			if (nbytes) {
				if (ret == GNIO_SUCCESS) {
					atomicAdd_block(&stats[1], 1ull);
					atomicAdd_block(&stats[2], (unsigned long long)nbytes);
				} else {
					atomicAdd_block(&stats[4], 1ull);
				}
			}
		}
		__syncthreads();

		/* Per-batch stats to the host: wait for the item to be free, fill
		 * its custom info, mark it ready. */
		if (threadIdx.x == 0) {
			enum gnio_gpu_semaphore_status status = GNIO_GPU_SEMAPHORE_STATUS_READY;
			while (gnio_gpu_dev_semaphore_get_status(sem, sem_idx, &status) == GNIO_SUCCESS &&
			       status != GNIO_GPU_SEMAPHORE_STATUS_FREE &&
			       GNIO_GPUNETIO_VOLATILE(*exit_cond) == DS_EXIT_RUN)
				__nanosleep(1000);
			if (status == GNIO_GPU_SEMAPHORE_STATUS_FREE) {
				struct ds_info *info = nullptr;
				gnio_gpu_dev_semaphore_get_custom_info_addr(sem, sem_idx, (void **)&info);
				info->batch = batch;
				info->pkts = out_pkt_num;
				info->bytes = stats[0];
				info->replies = stats[1];
				info->reply_bytes = stats[2];
				info->ignored = stats[3];
				info->send_errors = stats[4];
				info->again = stats[5];
				info->attr_mismatch = stats[6];
				gnio_gpu_dev_semaphore_set_status(sem, sem_idx, GNIO_GPU_SEMAPHORE_STATUS_READY);
				sem_idx = (sem_idx + 1) % DS_SEM_ITEMS;
				batch++;
			}
		}
		__syncthreads();
	}
	/* gnio: hand the last batch back (the next receive would have). */
	gnio_gpu_dev_eth_rxq_release<GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK>(rxq);
}

struct ds_cuda {
	cudaStream_t stream;
	struct ds_env *env;
};

/* The kernel still runs, and did not give up. */
static int ds_cuda_alive(void *user)
{
	struct ds_cuda *c = (struct ds_cuda *)user;
	return cudaStreamQuery(c->stream) == cudaErrorNotReady;
}

static void run_one(struct gnio_gpu *g, const char *wire, enum gnio_gpu_dev_eth_exec_scope send_scope, uint64_t n)
{
	static struct ds_env e;
	struct ds_cuda c;
	GT_CHECK(ds_up(&e, g, wire, n) == 0, "bring-up: %s", e.why);

	GT_CUDA(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
	c.env = &e;
	e.alive = ds_cuda_alive;
	e.alive_user = &c;
	e.patience = gt_under_sanitizer() ? 20 : 1;
	if (send_scope == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
		icmp_echo_kernel<GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK><<<1, DS_THREADS, 0, c.stream>>>(
			e.kargs.exit_cond, e.kargs.rxq, e.kargs.txq, e.kargs.sem);
	else
		icmp_echo_kernel<GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD><<<1, DS_THREADS, 0, c.stream>>>(
			e.kargs.exit_cond, e.kargs.rxq, e.kargs.txq, e.kargs.sem);
	GT_CUDA(cudaGetLastError());

	const int bad = ds_run(&e);

	/* As the samples stop: set the flag, wait for the stream (here with a
	 * deadline, so a hung kernel fails the test instead of hanging it). */
	ds_stop(&e);
	const uint64_t end = gt_deadline_ms(10000ull * e.patience);
	cudaError_t q;
	while ((q = cudaStreamQuery(c.stream)) == cudaErrorNotReady) {
		GT_CHECK(gt_mono_ns() < end, "the kernel did not leave within %u s of the exit flag", 10 * e.patience);
		gt_sleep_us(100);
	}
	GT_CHECK(q == cudaSuccess, "kernel: %s", cudaGetErrorString(q));
	GT_CHECK(!bad, "%s send scope: %s", send_scope == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK ? "block" : "thread",
		 e.why);
	GT_CHECK(ds_check_books(&e) == 0, "%s send scope: %s",
		 send_scope == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK ? "block" : "thread", e.why);
	ds_report(&e, send_scope == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK ? "block-scope send" : "thread-scope send");
	GT_CUDA(cudaStreamDestroy(c.stream));
	GT_CHECK(ds_down(&e) == 0, "teardown: %s", e.why);
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	const uint64_t n = gt_under_sanitizer() ? 2000 : 20000;
	run_one(g, "gt_doca_thr", GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD, n);
	run_one(g, "gt_doca_blk", GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK, n);
	return gt_pass(g);
}
