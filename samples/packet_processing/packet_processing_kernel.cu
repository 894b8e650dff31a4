/* SPDX-License-Identifier: MIT */
/*
 * samples/packet_processing/packet_processing_kernel.cu - one persistent
 * block on the RX queue. Per loop: the group the -e scope names receives a
 * batch; every thread runs its share of the frames through pp_handle()
 * (packet_processing.h, shared with the CPU device), which classifies each
 * frame and calls the handler of its protocol: ICMP and ARP requests are
 * answered in place, HTTP GETs on open flows from the TX pool, and TCP
 * control segments are collected for the host. Then thread 0 hands those
 * to the host (TCP semaphore, in arrival order), sends the frames the host
 * built (TX semaphore), and every 100 ms posts the counters (stats
 * semaphore). Sends are thread-scope sends into a queue the block shares.
 */
#include <stddef.h>

#include <cuda_runtime.h>

#include "packet_processing.h"

#define NCOUNTERS (sizeof(struct pp_counters) / sizeof(uint64_t))
#define LAST_ERROR (offsetof(struct pp_counters, last_error) / sizeof(uint64_t))
#define ERRORS (offsetof(struct pp_counters, errors) / sizeof(uint64_t))

template <int SCOPE> __global__ void packet_processing_kernel(struct pp_args a, struct gnio_kernel_ctl *ctl)
{
	__shared__ uint64_t s_first;
	__shared__ uint32_t s_num, s_err, s_ncpu;
	__shared__ int s_stop;
	__shared__ uint16_t s_cpu[PP_BATCH];
	__shared__ unsigned long long s_acc[NCOUNTERS];
	const uint32_t tid = threadIdx.x;
	struct pp_counters tot = {};
	uint32_t stats_idx = 0, tcp_idx = 0, tx_idx = 0, exit_code = 0;
	uint64_t last_post = 0;

	if (tid == 0) {
		s_ncpu = 0;
		for (uint32_t k = 0; k < NCOUNTERS; k++)
			s_acc[k] = 0;
		last_post = gnio_gpu_dev_time_ns();
	}
	__syncthreads();
	for (uint64_t beat = 1;; beat++) {
		if (sample_block_should_stop(ctl, beat, &s_stop))
			break;
		sample_block_recv<SCOPE>(a.rxq, PP_BATCH, PP_TIMEOUT_NS, &s_first, &s_num, &s_err);
		__syncthreads();
		if (s_err != GNIO_SUCCESS) {
			if (tid == 0) {
				tot.errors++;
				tot.last_error = s_err;
			}
			exit_code = s_err;
			break;
		}
		const uint32_t n = s_num;
		struct pp_counters c = {};
		for (uint32_t i = tid; i < n; i += blockDim.x) {
			uint8_t *pkt;
			uint32_t len;
			gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, s_first + i, &pkt, &len, nullptr);
			if (pp_handle(&a, ctl, pkt, len, &c))
				s_cpu[atomicAdd(&s_ncpu, 1u)] = (uint16_t)i;
		}
		const uint64_t *cv = (const uint64_t *)&c;
		for (uint32_t k = 0; k < NCOUNTERS; k++)
			if (k != LAST_ERROR && cv[k])
				atomicAdd(&s_acc[k], (unsigned long long)cv[k]);
		if (c.errors)
			atomicExch(&s_acc[LAST_ERROR], (unsigned long long)c.last_error); /* any one of them */
		__syncthreads();
		if (tid == 0) {
			/* The segments for the host, in the order they arrived. */
			const uint32_t m = s_ncpu;
			for (uint32_t x = 1; x < m; x++)
				for (uint32_t y = x; y > 0 && s_cpu[y - 1] > s_cpu[y]; y--) {
					uint16_t t = s_cpu[y];
					s_cpu[y] = s_cpu[y - 1];
					s_cpu[y - 1] = t;
				}
			for (uint32_t x = 0; x < m; x++) {
				uint8_t *pkt;
				uint32_t len;
				gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, s_first + s_cpu[x], &pkt, &len, nullptr);
				pp_to_host(&a, pkt, len, &tcp_idx, &tot);
			}
			s_ncpu = 0;
			uint64_t *tv = (uint64_t *)&tot;
			for (uint32_t k = 0; k < NCOUNTERS; k++) {
				if (k != LAST_ERROR)
					tv[k] += s_acc[k];
				else if (s_acc[ERRORS])
					tv[k] = s_acc[k];
			}
			for (uint32_t k = 0; k < NCOUNTERS; k++)
				s_acc[k] = 0;
			pp_send_from_host(&a, ctl, &tx_idx, &tot);
			const uint64_t now = gnio_gpu_dev_time_ns();
			if (now - last_post >= PP_STATS_EVERY_NS && pp_post_stats(&a, &tot, &stats_idx, 0))
				last_post = now;
		}
		/* The next loop's first barrier orders thread 0's resets before
		 * anyone counts again. */
	}
	sample_block_release<SCOPE>(a.rxq);
	if (tid == 0) {
		/* The last snapshot, marked EXIT: the host's books come from it. */
		if (!pp_post_stats(&a, &tot, &stats_idx, 1) && !exit_code)
			exit_code = GNIO_ERROR_TIME_OUT;
		gnio_gpu_dev_kernel_set_exit_code(ctl, exit_code);
	}
}

extern "C" gnio_error_t packet_processing_cuda(const struct gnio_runner_launch *l)
{
	const struct pp_args *a = (const struct pp_args *)l->user;
	cudaStream_t stream = (cudaStream_t)l->stream;
	switch (a->scope) {
	case SAMPLE_SCOPE_THREAD:
		packet_processing_kernel<SAMPLE_SCOPE_THREAD><<<1, PP_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	case SAMPLE_SCOPE_WARP:
		packet_processing_kernel<SAMPLE_SCOPE_WARP><<<1, PP_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	default:
		packet_processing_kernel<SAMPLE_SCOPE_BLOCK><<<1, PP_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	}
	return cudaGetLastError() == cudaSuccess ? GNIO_SUCCESS : GNIO_ERROR_DRIVER;
}
