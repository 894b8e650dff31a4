/* SPDX-License-Identifier: MIT */
/*
 * samples/simple_send/simple_send_kernel.cu - the kernel builds frames and
 * sends them from many threads into one shared TX queue.
 *
 * The threads form sending groups by the -e scope: each thread on its own,
 * each warp, or each block. A group's leader reserves as many consecutive TX
 * slots as the group has members (gnio_gpu_dev_eth_txq_reserve, device-scope
 * atomics: every group of the grid shares the queue); each member builds one
 * frame into its slot with ss_build_frame() (simple_send.h, shared with the
 * CPU device) and commits it. A full ring makes the leader wait for the
 * proxy to complete sends (counted as AGAIN), never spin on the reserve.
 * With a frame count each group sends its share and the kernel ends on its
 * own; without one the groups send until the stop flag is set.
 */
#include <cuda_runtime.h>

#include "simple_send.h"

template <int SCOPE> __global__ void simple_send_kernel(struct ss_args a, struct gnio_kernel_ctl *ctl)
{
	__shared__ uint64_t s_base[32];
	__shared__ int s_res[32];
	const uint32_t gsize = ss_group_size(SCOPE, blockDim.x);
	const uint32_t lane = SCOPE == SAMPLE_SCOPE_BLOCK ? threadIdx.x : SCOPE == SAMPLE_SCOPE_WARP ? (threadIdx.x & 31u) : 0u;
	const uint32_t slot = SCOPE == SAMPLE_SCOPE_BLOCK ? 0u : SCOPE == SAMPLE_SCOPE_WARP ? threadIdx.x / 32u : 0u;
	const uint64_t group = SCOPE == SAMPLE_SCOPE_BLOCK ? blockIdx.x
			       : SCOPE == SAMPLE_SCOPE_WARP ? (uint64_t)blockIdx.x * (blockDim.x / 32u) + threadIdx.x / 32u
							    : (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	const uint64_t ngroups = SCOPE == SAMPLE_SCOPE_BLOCK ? gridDim.x
				 : SCOPE == SAMPLE_SCOPE_WARP ? (uint64_t)gridDim.x * (blockDim.x / 32u)
							      : (uint64_t)gridDim.x * blockDim.x;
	uint64_t quota = a.count ? ss_quota(a.count, group, ngroups) : ~0ull;
	struct ss_group_stats t = {};
	uint32_t exit_code = 0;

	for (uint64_t round = 1; quota > 0; round++) {
		const uint32_t n = quota < gsize ? (uint32_t)quota : gsize;
		uint64_t base = 0;
		int res = 0;
		if (lane == 0) {
			gnio_gpu_dev_kernel_heartbeat(ctl, round);
			/* Only between rounds: every reserved slot must be committed. */
			if (!gnio_gpu_dev_kernel_should_stop(ctl))
				res = ss_reserve(&a, ctl, n, &base, &t);
			if (res < 0)
				exit_code = (uint32_t)t.last_error;
		}
		/* The group learns the leader's answer. */
		if (SCOPE == SAMPLE_SCOPE_BLOCK) {
			if (lane == 0) {
				s_base[slot] = base;
				s_res[slot] = res;
			}
			__syncthreads();
			base = s_base[slot];
			res = s_res[slot];
			__syncthreads(); /* all have read before the leader writes again */
		} else if (SCOPE == SAMPLE_SCOPE_WARP) {
			unsigned long long b64 = base;
			base = __shfl_sync(0xffffffffu, b64, 0);
			res = __shfl_sync(0xffffffffu, res, 0);
		}
		if (res != 1)
			break;
		if (lane < n) {
			uint8_t *p = gnio_gpu_dev_eth_txq_slot_addr(a.txq, base + lane);
			uint32_t len = ss_build_frame(p, &a.frame, base + lane);
			/* The commit's RELEASE of the descriptor tag orders this
			 * thread's frame bytes before the proxy reads them. */
			gnio_gpu_dev_eth_txq_commit(a.txq, base + lane, len, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
		}
		if (lane == 0) {
			t.sent += n;
			if (round % SS_PUBLISH_EVERY == 0)
				ss_publish(&a.stats[group], &t);
		}
		if (a.count)
			quota -= n;
	}
	if (lane == 0) {
		ss_publish(&a.stats[group], &t);
		if (exit_code)
			gnio_gpu_dev_kernel_set_exit_code(ctl, exit_code);
	}
}

extern "C" gnio_error_t simple_send_cuda(const struct gnio_runner_launch *l)
{
	const struct ss_args *a = (const struct ss_args *)l->user;
	cudaStream_t stream = (cudaStream_t)l->stream;
	switch (a->scope) {
	case SAMPLE_SCOPE_THREAD:
		simple_send_kernel<SAMPLE_SCOPE_THREAD><<<a->blocks, a->threads, 0, stream>>>(*a, l->ctl);
		break;
	case SAMPLE_SCOPE_WARP:
		simple_send_kernel<SAMPLE_SCOPE_WARP><<<a->blocks, a->threads, 0, stream>>>(*a, l->ctl);
		break;
	default:
		simple_send_kernel<SAMPLE_SCOPE_BLOCK><<<a->blocks, a->threads, 0, stream>>>(*a, l->ctl);
		break;
	}
	return cudaGetLastError() == cudaSuccess ? GNIO_SUCCESS : GNIO_ERROR_DRIVER;
}
