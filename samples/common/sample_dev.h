/* SPDX-License-Identifier: MIT */
/*
 * samples/common/sample_dev.h - kernel-side helpers the samples share. It
 * compiles as CUDA (the kernels) and as C11 (the CPU-device bodies), like
 * gnio's device API itself.
 *
 *   sample_dev_tx_wait   the TX ring is full: wait for the proxy to complete
 *                        sends (or the stop flag), never spin on the send;
 *   SAMPLE_SCOPE_*       the -e values (DOCA's exec scopes);
 *   (CUDA only) sample_block_recv / sample_block_release: receive at a scope
 *                        from a block whose every thread calls, and
 *                        sample_block_should_stop: thread 0 reads the stop
 *                        flag and beats the heartbeat for the block.
 */
#ifndef GNIO_SAMPLE_DEV_H
#define GNIO_SAMPLE_DEV_H

#include <gnio/device/gnio_dev.h>
#if !GNIO_ON_GPU
#include <sched.h>
#endif

#define SAMPLE_SCOPE_THREAD GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD
#define SAMPLE_SCOPE_WARP GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP
#define SAMPLE_SCOPE_BLOCK GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK

/* After a send or reserve returned AGAIN: wait until the proxy has completed
 * more sends than that reservation saw (gnio_gpu_dev_eth_txq_completed_seen,
 * in device memory), so the kernel crosses PCIe for the completion index only
 * while it waits, never before each send. Returns 0 when the kernel was told
 * to stop meanwhile. */
GNIO_DEV int sample_dev_tx_wait(const struct gnio_gpu_eth_txq *txq, const struct gnio_kernel_ctl *ctl)
{
	const uint64_t seen = gnio_gpu_dev_eth_txq_completed_seen(txq);
	unsigned naps = 0;
	while (gnio_gpu_dev_eth_txq_completed(txq) == seen) {
		if (gnio_gpu_dev_kernel_should_stop(ctl))
			return 0;
#if GNIO_ON_GPU
		__nanosleep(naps < 8 ? 256u << naps : 65536u);
#else
		/* The proxy may share this core: let it run. */
		if (naps < 64)
			gnio_cpu_relax();
		else
			sched_yield();
#endif
		naps++;
	}
	return 1;
}

#if defined(__CUDACC__)
/* Receive at SCOPE for a block: every thread of the block calls; the batch
 * lands in the block's shared first/num/err (read them after a
 * __syncthreads). THREAD: thread 0 receives; WARP: warp 0 does; BLOCK: the
 * whole block. */
template <int SCOPE>
__device__ __forceinline__ void sample_block_recv(const struct gnio_gpu_eth_rxq *rxq, uint32_t max, uint64_t timeout_ns,
						  uint64_t *s_first, uint32_t *s_num, uint32_t *s_err)
{
	const uint32_t tid = threadIdx.x;
	if (SCOPE == SAMPLE_SCOPE_BLOCK) {
		gnio_error_t e = gnio_gpu_dev_eth_rxq_recv_block(rxq, max, timeout_ns, s_first, s_num, nullptr);
		if (tid == 0)
			*s_err = (uint32_t)e;
	} else if (SCOPE == SAMPLE_SCOPE_WARP) {
		if (tid < 32) {
			uint64_t f;
			uint32_t n;
			gnio_error_t e = gnio_gpu_dev_eth_rxq_recv_warp(rxq, max, timeout_ns, &f, &n, nullptr);
			if (tid == 0) {
				*s_first = f;
				*s_num = n;
				*s_err = (uint32_t)e;
			}
		}
	} else if (tid == 0) {
		uint64_t f;
		uint32_t n;
		gnio_error_t e = gnio_gpu_dev_eth_rxq_recv_thread(rxq, max, timeout_ns, &f, &n, nullptr);
		*s_first = f;
		*s_num = n;
		*s_err = (uint32_t)e;
	}
}

/* Hand back the last batch, by the same group that received it. */
template <int SCOPE> __device__ __forceinline__ void sample_block_release(const struct gnio_gpu_eth_rxq *rxq)
{
	if (SCOPE == SAMPLE_SCOPE_BLOCK)
		gnio_gpu_dev_eth_rxq_release_block(rxq);
	else if (SCOPE == SAMPLE_SCOPE_WARP) {
		if (threadIdx.x < 32)
			gnio_gpu_dev_eth_rxq_release_warp(rxq);
	} else if (threadIdx.x == 0)
		gnio_gpu_dev_eth_rxq_release_thread(rxq);
}

/* Thread 0 reads the host's stop flag and beats the heartbeat; the block
 * learns the answer. A barrier: every thread calls. */
__device__ __forceinline__ int sample_block_should_stop(struct gnio_kernel_ctl *ctl, uint64_t beat, int *s_flag)
{
	if (threadIdx.x == 0) {
		*s_flag = gnio_gpu_dev_kernel_should_stop(ctl);
		gnio_gpu_dev_kernel_heartbeat(ctl, beat);
	}
	__syncthreads();
	const int stop = *s_flag;
	__syncthreads(); /* everyone has read it before thread 0 writes it again */
	return stop;
}
#endif /* __CUDACC__ */

#endif /* GNIO_SAMPLE_DEV_H */
