/* SPDX-License-Identifier: MIT */
/* samples/send_wait_time/send_wait_time_cpu.c - the CPU-device body: one
 * host thread queues each burst a little before its time, every frame a
 * timed send (gnio_gpu_dev_eth_txq_wait_send_thread), with the same
 * per-frame function the CUDA kernel uses (send_wait_time.h). */
#include "send_wait_time.h"

gnio_error_t send_wait_time_cpu(const struct gnio_runner_launch *l)
{
	const struct swt_args *a = l->user;
	struct swt_stats t = {0};
	gnio_error_t result = GNIO_SUCCESS;
	const uint64_t t0 = gnio_gpu_dev_time_ns() + a->lead_ns;
	const uint64_t lookahead = swt_lookahead(a->interval_ns);
	uint64_t last = 0;
	int have = 0;

	/* RELEASE(start_ns): the host reads it (ACQUIRE) once it sees a
	 * completion of this kernel's first send. */
	gnio_store_release_u64(&a->stats->start_ns, t0);
	for (uint64_t k = 0; !a->bursts || k < a->bursts; k++) {
		gnio_gpu_dev_kernel_heartbeat(l->ctl, k + 1);
		const uint64_t when = t0 + k * a->interval_ns;
		if (!swt_pace(l->ctl, when, lookahead) || !swt_wait_slots(a, l->ctl, have, last))
			break;
		int r = swt_send_frames_thread(a, l->ctl, k, 0, a->burst, when, &t, &last);
		if (r <= 0) {
			t.unsent++;
			if (r < 0)
				result = (gnio_error_t)t.last_error;
			break;
		}
		have = 1;
		t.bursts++;
		swt_publish(a->stats, &t);
	}
	swt_publish(a->stats, &t);
	gnio_gpu_dev_kernel_set_exit_code(l->ctl, (uint32_t)result);
	return result;
}
