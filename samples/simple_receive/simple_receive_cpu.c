/* SPDX-License-Identifier: MIT */
/* samples/simple_receive/simple_receive_cpu.c - the CPU-device body: the
 * loop the CUDA block runs (simple_receive_kernel.cu) with one host thread,
 * and the same per-packet function, sr_size_class(). On the CPU device
 * every scope is the thread scope. */
#include "simple_receive.h"

gnio_error_t simple_receive_cpu(const struct gnio_runner_launch *l)
{
	const struct sr_args *a = l->user;
	struct sr_stats tot = {0};
	gnio_error_t result = GNIO_SUCCESS;
	uint64_t beat = 0;

	while (!gnio_gpu_dev_kernel_should_stop(l->ctl)) {
		gnio_gpu_dev_kernel_heartbeat(l->ctl, ++beat);
		uint64_t first;
		uint32_t n;
		gnio_error_t err = gnio_gpu_dev_eth_rxq_recv_thread(a->rxq, SR_BATCH, SR_TIMEOUT_NS, &first, &n, NULL);
		if (err != GNIO_SUCCESS) {
			tot.errors++;
			tot.last_error = (uint64_t)err;
			result = err;
			break;
		}
		if (!n)
			continue;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t len = gnio_gpu_dev_eth_rxq_get_pkt_bytes(a->rxq, first + i);
			tot.bytes += len;
			tot.size_class[sr_size_class(len)]++;
		}
		tot.packets += n;
		tot.batches++;
		sr_publish(a->stats, &tot);
	}
	gnio_gpu_dev_eth_rxq_release_thread(a->rxq);
	sr_publish(a->stats, &tot);
	gnio_gpu_dev_kernel_set_exit_code(l->ctl, (uint32_t)result);
	return result;
}
