/* SPDX-License-Identifier: MIT */
/*
 * samples/simple_receive/simple_receive_kernel.cu - one persistent block on
 * one RX queue. The group the -e scope names (thread 0, warp 0, or the whole
 * block) receives a batch of up to SR_BATCH frames, waiting at most
 * SR_TIMEOUT_NS; then every thread of the block counts its share of the
 * frames (bytes and size class, sr_size_class() from simple_receive.h,
 * shared with the CPU device). Thread 0 keeps the totals and stores them in
 * host memory after each batch.
 */
#include <cuda_runtime.h>

#include "simple_receive.h"

template <int SCOPE> __global__ void simple_receive_kernel(struct sr_args a, struct gnio_kernel_ctl *ctl)
{
	__shared__ uint64_t s_first;
	__shared__ uint32_t s_num, s_err;
	__shared__ int s_stop;
	__shared__ unsigned long long s_bytes;
	__shared__ unsigned int s_class[SR_SIZE_CLASSES];
	const uint32_t tid = threadIdx.x;
	struct sr_stats tot = {};
	uint32_t exit_code = 0;

	if (tid == 0) {
		s_bytes = 0;
		for (int c = 0; c < SR_SIZE_CLASSES; c++)
			s_class[c] = 0;
	}
	__syncthreads();
	for (uint64_t beat = 1;; beat++) {
		if (sample_block_should_stop(ctl, beat, &s_stop))
			break;
		sample_block_recv<SCOPE>(a.rxq, SR_BATCH, SR_TIMEOUT_NS, &s_first, &s_num, &s_err);
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
		if (n == 0)
			continue;
		unsigned long long bytes = 0;
		for (uint32_t i = tid; i < n; i += blockDim.x) {
			uint32_t len = gnio_gpu_dev_eth_rxq_get_pkt_bytes(a.rxq, s_first + i);
			bytes += len;
			atomicAdd(&s_class[sr_size_class(len)], 1u);
		}
		if (bytes)
			atomicAdd(&s_bytes, bytes);
		__syncthreads();
		if (tid == 0) {
			tot.packets += n;
			tot.bytes += s_bytes;
			tot.batches++;
			s_bytes = 0;
			for (int c = 0; c < SR_SIZE_CLASSES; c++) {
				tot.size_class[c] += s_class[c];
				s_class[c] = 0;
			}
			sr_publish(a.stats, &tot);
		}
		/* The next loop's first barrier orders these resets before
		 * anyone counts again. */
	}
	sample_block_release<SCOPE>(a.rxq);
	if (tid == 0) {
		sr_publish(a.stats, &tot);
		gnio_gpu_dev_kernel_set_exit_code(ctl, exit_code);
	}
}

extern "C" gnio_error_t simple_receive_cuda(const struct gnio_runner_launch *l)
{
	const struct sr_args *a = (const struct sr_args *)l->user;
	cudaStream_t stream = (cudaStream_t)l->stream;
	switch (a->scope) {
	case SAMPLE_SCOPE_THREAD:
		simple_receive_kernel<SAMPLE_SCOPE_THREAD><<<1, SR_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	case SAMPLE_SCOPE_WARP:
		simple_receive_kernel<SAMPLE_SCOPE_WARP><<<1, SR_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	default:
		simple_receive_kernel<SAMPLE_SCOPE_BLOCK><<<1, SR_THREADS, 0, stream>>>(*a, l->ctl);
		break;
	}
	return cudaGetLastError() == cudaSuccess ? GNIO_SUCCESS : GNIO_ERROR_DRIVER;
}
