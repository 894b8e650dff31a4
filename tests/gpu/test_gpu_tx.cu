/* SPDX-License-Identifier: MIT */
/*
 * TX from a CUDA kernel over the sw wire:
 *  A. one frame reaches the peer byte for byte;
 *  B. with every ring entry reserved and none committed, reserve says AGAIN;
 *     after committing and draining completions, sending works again;
 *  C. 128 threads send into the one queue at once (more than the ring holds),
 *     each waiting for completions on AGAIN; every frame arrives exactly once.
 */
#include "gpu_test.h"

#define RING 64u
#define NTHREADS 128u
#define NFRAMES (1u + RING + 1u + NTHREADS)
#define SLOT 2048u

struct txres {
	uint32_t a_ok, b_reserve_all, b_again, b_drained, b_recovered, c_sent;
	uint32_t c_again, c_errors;
	uint32_t done;
};

__device__ static void put_frame(const struct gnio_gpu_eth_txq *q, uint64_t t, const uint8_t *src, uint32_t len)
{
	uint8_t *dst = gnio_gpu_dev_eth_txq_slot_addr(q, t);
	for (uint32_t i = 0; i < len; i++)
		dst[i] = src[i];
	gnio_gpu_dev_eth_txq_commit(q, t, len, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
}

__global__ void tx_kernel(struct gnio_gpu_eth_txq *q, const uint8_t *frames, const uint32_t *lens, struct txres *res)
{
	__shared__ unsigned s_again, s_sent, s_err;
	const uint32_t tid = threadIdx.x;

	if (tid == 0) {
		uint64_t t;
		s_again = s_sent = s_err = 0;
		/* A: one frame. */
		if (gnio_gpu_dev_eth_txq_reserve(q, 1, &t) == GNIO_SUCCESS) {
			put_frame(q, t, frames, lens[0]);
			res->a_ok = gt_wait_completed(q, t + 1);
		}
		/* B: fill the ring with reservations, then one more. */
		uint64_t t0;
		if (gnio_gpu_dev_eth_txq_reserve(q, RING, &t0) == GNIO_SUCCESS) {
			res->b_reserve_all = 1;
			res->b_again = gnio_gpu_dev_eth_txq_reserve(q, 1, &t) == GNIO_ERROR_AGAIN;
			for (uint32_t i = 0; i < RING; i++)
				put_frame(q, t0 + i, frames + (1 + i) * SLOT, lens[1 + i]);
			res->b_drained = gt_wait_completed(q, t0 + RING);
			if (gnio_gpu_dev_eth_txq_reserve(q, 1, &t) == GNIO_SUCCESS) {
				put_frame(q, t, frames + (1 + RING) * SLOT, lens[1 + RING]);
				res->b_recovered = gt_wait_completed(q, t + 1);
			}
		}
	}
	__syncthreads();

	/* C: every thread sends one frame; on AGAIN, wait for completions to
	 * move (with a sleep) rather than hammering the ticket counter. */
	uint32_t k = 2 + RING + tid;
	uint64_t t;
	gnio_error_t err;
	uint64_t start = gnio_gpu_dev_time_ns();
	while ((err = gnio_gpu_dev_eth_txq_reserve(q, 1, &t)) == GNIO_ERROR_AGAIN) {
		atomicAdd(&s_again, 1u);
		uint64_t seen = gnio_gpu_dev_eth_txq_completed(q);
		while (gnio_gpu_dev_eth_txq_completed(q) == seen && gnio_gpu_dev_time_ns() - start < 2000000000ull)
			__nanosleep(2000);
		if (gnio_gpu_dev_time_ns() - start >= 2000000000ull)
			break;
	}
	if (err == GNIO_SUCCESS) {
		put_frame(q, t, frames + k * SLOT, lens[k]);
		atomicAdd(&s_sent, 1u);
	} else {
		atomicAdd(&s_err, 1u);
	}
	__syncthreads();
	if (tid == 0) {
		res->c_sent = s_sent;
		res->c_again = s_again;
		res->c_errors = s_err;
		gnio_store_release_u32(&res->done, 1);
	}
}

struct tx_args {
	struct gnio_gpu_eth_txq *txq;
	uint8_t *frames;
	uint32_t *lens;
	struct txres *res;
};

static gnio_error_t tx_launch(const struct gnio_runner_launch *l)
{
	const struct tx_args *a = (const struct tx_args *)l->user;
	tx_kernel<<<1, NTHREADS, 0, (cudaStream_t)l->stream>>>(a->txq, a->frames, a->lens, a->res);
	GT_LAUNCH_CHECK();
	return GNIO_SUCCESS;
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	struct gt_rig rig;
	struct gt_rig_cfg rc;

	gt_rig_cfg_init_tx(&rc, "gt_tx", RING);
	rc.slot = SLOT;
	GT_OK(gt_rig_open(&rig, g, &rc));
	enum gnio_eth_wait_on_time_type wt = GNIO_ETH_WAIT_ON_TIME_TYPE_NONE;
	GT_OK(gnio_eth_txq_cap_get_wait_on_time_offload_supported(gnio_dev_as_devinfo(rig.dev), &wt));
	GT_CHECK(wt == GNIO_ETH_WAIT_ON_TIME_TYPE_NATIVE, "wait on time type %d", (int)wt);

	/* Source frames (generator, varied sizes) in pinned mapped memory. */
	void *fg, *fc, *lg, *lc, *rg, *rcp;
	GT_OK(gnio_gpu_mem_alloc(g, (size_t)NFRAMES * SLOT, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &fg, &fc));
	GT_OK(gnio_gpu_mem_alloc(g, NFRAMES * sizeof(uint32_t), 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &lg, &lc));
	GT_OK(gnio_gpu_mem_alloc(g, sizeof(struct txres), 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &rg, &rcp));
	struct gnio_gen_cfg cfgs[3];
	for (int i = 0; i < 3; i++) {
		gnio_gen_cfg_init(&cfgs[i]);
		cfgs[i].frame_size = i == 0 ? 60 : i == 1 ? 333 : 1514;
	}
	uint8_t *frames = (uint8_t *)fc;
	uint32_t *lens = (uint32_t *)lc;
	for (uint32_t k = 0; k < NFRAMES; k++) {
		lens[k] = gnio_gen_build(&cfgs[k % 3], k, frames + (size_t)k * SLOT, SLOT);
		GT_CHECK(lens[k] > 0, "build");
	}
	struct txres *res = (struct txres *)rcp;
	memset(res, 0, sizeof(*res));

	struct gnio_runner *r;
	struct tx_args args = {rig.txh, (uint8_t *)fg, (uint32_t *)lg, (struct txres *)rg};
	GT_OK(gnio_runner_create(g, &r));
	GT_OK(gnio_runner_start(r, tx_launch, &args));

	/* Receive while the kernel runs: A and B in order, C in any order. */
	static uint8_t buf[9216];
	uint8_t seen[NFRAMES] = {0};
	for (uint32_t n = 0; n < NFRAMES; n++) {
		uint32_t len = 0;
		uint64_t ts = 0;
		gnio_error_t e = gt_peer_recv(rig.peer, buf, sizeof(buf), &len, &ts, 5000);
		GT_CHECK(e == GNIO_SUCCESS, "frame %u of %u: %s (kernel: a %u b %u/%u/%u/%u c %u again %u err %u)", n,
			 NFRAMES, gnio_error_get_name(e), res->a_ok, res->b_reserve_all, res->b_again,
			 res->b_drained, res->b_recovered, res->c_sent, res->c_again, res->c_errors);
		uint64_t seq = ~0ull;
		GT_OK(gnio_gen_stamp_read(buf, len, &seq));
		GT_CHECK(seq < NFRAMES, "seq %llu", (unsigned long long)seq);
		if (n < 2 + RING)
			GT_CHECK(seq == n, "frame %u carries seq %llu (order)", n, (unsigned long long)seq);
		GT_CHECK(!seen[seq], "seq %llu twice", (unsigned long long)seq);
		seen[seq] = 1;
		GT_CHECK(len == lens[seq] && !memcmp(buf, frames + seq * SLOT, len),
			 "frame seq %llu differs from what the kernel sent (len %u vs %u)", (unsigned long long)seq,
			 len, lens[seq]);
		if (n == 0)
			printf("A: one frame of %u bytes arrived byte for byte\n", len);
	}
	uint32_t len;
	GT_EXPECT(gt_peer_recv(rig.peer, buf, sizeof(buf), &len, NULL, 100), GNIO_ERROR_EMPTY);

	/* The kernel ends on its own: EXITED, then stop reaps it. */
	uint64_t end = gt_deadline_ms(5000);
	while (gnio_runner_get_state(r) == GNIO_RUNNER_RUNNING && gt_mono_ns() < end)
		gt_sleep_us(1000);
	GT_CHECK(gnio_runner_get_state(r) == GNIO_RUNNER_EXITED, "state %s",
		 gnio_runner_state_name(gnio_runner_get_state(r)));
	GT_OK(gnio_runner_stop(r, 1000));
	GT_CHECK(res->done, "kernel did not finish");
	GT_CHECK(res->a_ok, "A: completion not seen");
	GT_CHECK(res->b_reserve_all && res->b_again, "B: AGAIN not returned on a full ring");
	GT_CHECK(res->b_drained && res->b_recovered, "B: no recovery after draining");
	GT_CHECK(res->c_sent == NTHREADS && res->c_errors == 0, "C: sent %u errors %u", res->c_sent, res->c_errors);
	printf("B: AGAIN on a full ring of %u, recovered after drain\n", RING);
	printf("C: %u threads sent into one queue, %u AGAINs waited out\n", NTHREADS, res->c_again);

	struct gnio_eth_txq_stats ts;
	GT_OK(gnio_eth_txq_get_stats(rig.txq, &ts));
	GT_CHECK(ts.tx_packets == NFRAMES && ts.tx_errors == 0, "txq stats: %llu sent %llu errors",
		 (unsigned long long)ts.tx_packets, (unsigned long long)ts.tx_errors);

	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_gpu_mem_free(g, fg));
	GT_OK(gnio_gpu_mem_free(g, lg));
	GT_OK(gnio_gpu_mem_free(g, rg));
	return gt_rig_pass(&rig);
}
