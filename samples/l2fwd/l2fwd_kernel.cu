/* SPDX-License-Identifier: MIT */
/*
 * samples/l2fwd/l2fwd_kernel.cu - the CUDA body of l2fwd: one persistent
 * block owns the RX queue. The group the -e scope names (thread 0, warp 0
 * or the whole block) receives a batch; then every thread of the block
 * forwards its share of the frames with l2fwd_forward() (l2fwd.h, shared with
 * the CPU device): swap the MACs in place and send from the RX buffer, each
 * thread on its own (thread-scope sends into a queue the block shares).
 * Thread 0 keeps the totals and stores them in host memory once per batch.
 */
#include <cuda_runtime.h>

#include "l2fwd.h"

template <int SCOPE> __global__ void l2fwd_kernel(struct l2fwd_args a, struct gnio_kernel_ctl *ctl)
{
	__shared__ uint64_t s_first;
	__shared__ uint32_t s_num, s_err;
	__shared__ int s_stop;
	__shared__ unsigned long long s_bytes, s_fwd, s_again, s_unsent, s_errors, s_last_error;
	const uint32_t tid = threadIdx.x;
	struct l2fwd_stats tot = {};
	uint32_t exit_code = 0;

	if (tid == 0)
		s_bytes = s_fwd = s_again = s_unsent = s_errors = s_last_error = 0;
	__syncthreads();
	for (uint64_t beat = 1;; beat++) {
		if (sample_block_should_stop(ctl, beat, &s_stop))
			break;
		sample_block_recv<SCOPE>(a.rxq, L2FWD_BATCH, L2FWD_TIMEOUT_NS, &s_first, &s_num, &s_err);
		__syncthreads();
		if (s_err != GNIO_SUCCESS) {
			/* BAD_STATE (no pool registered) and the like do not heal */
			if (tid == 0) {
				tot.errors++;
				tot.last_error = s_err;
			}
			exit_code = s_err;
			break;
		}
		const uint32_t n = s_num;
		if (n == 0)
			continue;
		struct l2fwd_counts c = {};
		for (uint32_t i = tid; i < n; i += blockDim.x) {
			uint8_t *pkt;
			uint32_t len;
			gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, s_first + i, &pkt, &len, nullptr);
			l2fwd_forward(&a, ctl, pkt, len, &c);
		}
		if (c.rx_bytes)
			atomicAdd(&s_bytes, (unsigned long long)c.rx_bytes);
		if (c.forwarded)
			atomicAdd(&s_fwd, (unsigned long long)c.forwarded);
		if (c.tx_again)
			atomicAdd(&s_again, (unsigned long long)c.tx_again);
		if (c.unsent)
			atomicAdd(&s_unsent, (unsigned long long)c.unsent);
		if (c.errors) {
			atomicAdd(&s_errors, (unsigned long long)c.errors);
			atomicExch(&s_last_error, (unsigned long long)c.last_error); /* any one of them */
		}
		__syncthreads();
		if (tid == 0) {
			tot.rx_packets += n;
			tot.rx_bytes += s_bytes;
			tot.forwarded += s_fwd;
			tot.tx_again += s_again;
			tot.unsent += s_unsent;
			tot.errors += s_errors;
			if (s_errors)
				tot.last_error = s_last_error;
			tot.batches++;
			s_bytes = s_fwd = s_again = s_unsent = s_errors = 0;
			l2fwd_publish(a.stats, &tot);
		}
		/* The next loop's first barrier orders thread 0's resets before
		 * anyone adds again. */
	}
	sample_block_release<SCOPE>(a.rxq);
	if (tid == 0) {
		l2fwd_publish(a.stats, &tot);
		gnio_gpu_dev_kernel_set_exit_code(ctl, exit_code);
	}
}

extern "C" gnio_error_t l2fwd_cuda(const struct gnio_runner_launch *l)
{
	const struct l2fwd_args *a = (const struct l2fwd_args *)l->user;
	cudaStream_t stream = (cudaStream_t)l->stream;
	switch (a->scope) {
	case SAMPLE_SCOPE_THREAD:
		l2fwd_kernel<SAMPLE_SCOPE_THREAD><<<1, L2FWD_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	case SAMPLE_SCOPE_WARP:
		l2fwd_kernel<SAMPLE_SCOPE_WARP><<<1, L2FWD_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	default:
		l2fwd_kernel<SAMPLE_SCOPE_BLOCK><<<1, L2FWD_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	}
	return cudaGetLastError() == cudaSuccess ? GNIO_SUCCESS : GNIO_ERROR_DRIVER;
}
