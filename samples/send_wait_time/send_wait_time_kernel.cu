/* SPDX-License-Identifier: MIT */
/*
 * samples/send_wait_time/send_wait_time_kernel.cu - bursts of frames at a
 * fixed interval, each frame a timed send (DOCA: wait on time). One group
 * sends every burst: thread 0 (-e thread, frame by frame), warp 0 (-e warp,
 * one frame per lane, one reservation) or the whole block (-e block). The
 * group queues burst k a little before t0 + k * interval (the proxy holds it
 * until then), builds each frame into the TX pool with swt_build_frame()
 * and sends it with gnio_gpu_dev_eth_txq_wait_send. The frames' pool slots
 * are reused only once the sends that used them have completed.
 */
#include <cuda_runtime.h>

#include "send_wait_time.h"

/* The group's answer from its leader (thread 0): a warp shuffle, or shared
 * memory between two barriers. */
template <int SCOPE> __device__ __forceinline__ int group_bcast(int v, int *s_slot)
{
	if (SCOPE == SAMPLE_SCOPE_WARP)
		return __shfl_sync(0xffffffffu, v, 0);
	if (SCOPE == SAMPLE_SCOPE_BLOCK) {
		if (threadIdx.x == 0)
			*s_slot = v;
		__syncthreads();
		v = *s_slot;
		__syncthreads();
	}
	return v;
}

/* Burst k by the whole group: lane j builds and sends frame j (lanes past
 * the burst join with nothing to send). Lane 0 always has a frame, so its
 * result is the group's. Returns 1, 0 (stopped), -1 (error). */
template <int SCOPE>
__device__ int send_burst_group(const struct swt_args &a, struct gnio_kernel_ctl *ctl, uint64_t k, uint64_t when,
				struct swt_stats *t, uint64_t *last, int *s_slot)
{
	constexpr enum gnio_gpu_dev_eth_exec_scope XS =
		SCOPE == SAMPLE_SCOPE_BLOCK ? GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK : GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP;
	const uint32_t lane = threadIdx.x;
	uint64_t ts;
	uintptr_t addr = 0;
	uint32_t mkey = 0, len = 0;
	gnio_gpu_dev_eth_txq_calculate_timestamp(a.txq, when, &ts);
	if (lane < a.burst) {
		struct gnio_gpu_buf *buf = nullptr;
		gnio_gpu_dev_buf_get_buf(a.frames, (k * a.burst + lane) % a.frames->num_elem, &buf);
		gnio_gpu_dev_buf_get_addr(buf, &addr);
		gnio_gpu_dev_buf_get_mkey(buf, &mkey);
		len = swt_build_frame((uint8_t *)addr, &a.frame, k, lane, when);
	}
	for (;;) {
		gnio_gpu_dev_eth_ticket_t ticket = 0;
		/* One group sends on the queue: exclusive, no atomics. */
		gnio_error_t e = gnio_gpu_dev_eth_txq_wait_send<GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
								GNIO_GPUNETIO_ETH_SYNC_SCOPE_SYS,
								GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO, XS>(
			a.txq, ts, (uint64_t)addr, mkey, len,
			lane == 0 ? GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY : GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, &ticket);
		int res = 0;
		if (lane == 0) {
			if (e == GNIO_SUCCESS) {
				res = 1;
				*last = ticket + a.burst - 1; /* the group's frames take consecutive tickets */
				t->frames += a.burst;
			} else if (e == GNIO_ERROR_AGAIN) {
				t->again++;
				res = sample_dev_tx_wait(a.txq, ctl) ? 2 : 0;
			} else {
				t->errors++;
				t->last_error = (uint64_t)e;
				res = -1;
			}
		}
		res = group_bcast<SCOPE>(res, s_slot);
		if (res != 2)
			return res;
	}
}

template <int SCOPE> __global__ void send_wait_time_kernel(struct swt_args a, struct gnio_kernel_ctl *ctl)
{
	__shared__ int s_slot;
	const uint32_t tid = threadIdx.x;
	if ((SCOPE == SAMPLE_SCOPE_THREAD && tid != 0) || (SCOPE == SAMPLE_SCOPE_WARP && tid >= 32))
		return;
	struct swt_stats t = {};
	uint32_t exit_code = 0;
	uint64_t t0 = 0, last = 0;
	const uint64_t lookahead = swt_lookahead(a.interval_ns);
	int have = 0;

	if (tid == 0) {
		t0 = gnio_gpu_dev_time_ns() + a.lead_ns;
		/* RELEASE(start_ns): the host reads it (ACQUIRE) once it sees a
		 * completion of this kernel's first send. */
		gnio_store_release_u64(&a.stats->start_ns, t0);
	}
	for (uint64_t k = 0; !a.bursts || k < a.bursts; k++) {
		int go = 1;
		if (tid == 0) {
			gnio_gpu_dev_kernel_heartbeat(ctl, k + 1);
			go = swt_pace(ctl, t0 + k * a.interval_ns, lookahead) && swt_wait_slots(&a, ctl, have, last);
		}
		if (!group_bcast<SCOPE>(go, &s_slot))
			break;
		int r;
		if (SCOPE == SAMPLE_SCOPE_THREAD)
			r = swt_send_frames_thread(&a, ctl, k, 0, a.burst, t0 + k * a.interval_ns, &t, &last);
		else
			r = send_burst_group<SCOPE>(a, ctl, k, t0 + k * a.interval_ns, &t, &last, &s_slot);
		if (r <= 0) {
			if (tid == 0) {
				t.unsent++;
				if (r < 0)
					exit_code = (uint32_t)t.last_error;
			}
			break;
		}
		if (tid == 0) {
			have = 1;
			t.bursts++;
			swt_publish(a.stats, &t);
		}
	}
	if (tid == 0) {
		swt_publish(a.stats, &t);
		gnio_gpu_dev_kernel_set_exit_code(ctl, exit_code);
	}
}

extern "C" gnio_error_t send_wait_time_cuda(const struct gnio_runner_launch *l)
{
	const struct swt_args *a = (const struct swt_args *)l->user;
	cudaStream_t stream = (cudaStream_t)l->stream;
	switch (a->scope) {
	case SAMPLE_SCOPE_THREAD:
		send_wait_time_kernel<SAMPLE_SCOPE_THREAD><<<1, 32, 0, stream>>>(*a, l->ctl);
		break;
	case SAMPLE_SCOPE_WARP:
		send_wait_time_kernel<SAMPLE_SCOPE_WARP><<<1, 32, 0, stream>>>(*a, l->ctl);
		break;
	default:
		send_wait_time_kernel<SAMPLE_SCOPE_BLOCK><<<1, (a->burst + 31u) / 32u * 32u, 0, stream>>>(*a, l->ctl);
		break;
	}
	return cudaGetLastError() == cudaSuccess ? GNIO_SUCCESS : GNIO_ERROR_DRIVER;
}
