/* SPDX-License-Identifier: MIT */
/* samples/simple_send/simple_send_cpu.c - the CPU-device body: one host
 * thread is one sending group of the size the scope gives (a thread: 1 frame
 * per reservation, a warp: 32, a block: the block's threads), running the
 * loop a CUDA group runs (simple_send_kernel.cu) with the same per-frame
 * function, ss_build_frame(). */
#include "simple_send.h"

gnio_error_t simple_send_cpu(const struct gnio_runner_launch *l)
{
	const struct ss_args *a = l->user;
	const uint32_t gsize = ss_group_size(a->scope, a->threads);
	uint64_t quota = a->count ? a->count : UINT64_MAX;
	struct ss_group_stats t = {0};
	gnio_error_t result = GNIO_SUCCESS;
	uint64_t rounds = 0;

	while (quota > 0) {
		gnio_gpu_dev_kernel_heartbeat(l->ctl, ++rounds);
		/* Look at the stop flag only between rounds: every slot a round
		 * reserves must be committed, or the queue stops at it. */
		if (gnio_gpu_dev_kernel_should_stop(l->ctl))
			break;
		const uint32_t n = quota < gsize ? (uint32_t)quota : gsize;
		uint64_t base;
		int res = ss_reserve(a, l->ctl, n, &base, &t);
		if (res < 0)
			result = (gnio_error_t)t.last_error;
		if (res != 1)
			break;
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *slot = gnio_gpu_dev_eth_txq_slot_addr(a->txq, base + i);
			uint32_t len = ss_build_frame(slot, &a->frame, base + i);
			gnio_gpu_dev_eth_txq_commit(a->txq, base + i, len, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
		}
		t.sent += n;
		if (a->count)
			quota -= n;
		ss_publish(&a->stats[0], &t);
	}
	ss_publish(&a->stats[0], &t);
	gnio_gpu_dev_kernel_set_exit_code(l->ctl, (uint32_t)result);
	return result;
}
