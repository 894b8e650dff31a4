/* SPDX-License-Identifier: MIT */
/* samples/packet_processing/packet_processing_cpu.c - the CPU-device body:
 * the loop a CUDA block runs (packet_processing_kernel.cu) with one host
 * thread, calling the same handlers (packet_processing.h): receive a batch,
 * run each frame through pp_handle, hand TCP control segments to the host,
 * send the frames the host built, post a counter snapshot every 100 ms. */
#include "packet_processing.h"

gnio_error_t packet_processing_cpu(const struct gnio_runner_launch *l)
{
	const struct pp_args *a = l->user;
	struct pp_counters tot = {0};
	uint32_t stats_idx = 0, tcp_idx = 0, tx_idx = 0;
	uint64_t beat = 0, last_post = gnio_gpu_dev_time_ns();
	gnio_error_t result = GNIO_SUCCESS;

	while (!gnio_gpu_dev_kernel_should_stop(l->ctl)) {
		gnio_gpu_dev_kernel_heartbeat(l->ctl, ++beat);
		uint64_t first;
		uint32_t n;
		gnio_error_t err = gnio_gpu_dev_eth_rxq_recv_thread(a->rxq, PP_BATCH, PP_TIMEOUT_NS, &first, &n, NULL);
		if (err != GNIO_SUCCESS) {
			tot.errors++;
			tot.last_error = (uint64_t)err;
			result = err;
			break;
		}
		struct pp_counters c = {0};
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *pkt;
			uint32_t len;
			gnio_gpu_dev_eth_rxq_get_pkt(a->rxq, first + i, &pkt, &len, NULL);
			if (pp_handle(a, l->ctl, pkt, len, &c))
				pp_to_host(a, pkt, len, &tcp_idx, &c);
		}
		pp_counters_add(&tot, &c);
		pp_send_from_host(a, l->ctl, &tx_idx, &tot);
		const uint64_t now = gnio_gpu_dev_time_ns();
		if (now - last_post >= PP_STATS_EVERY_NS && pp_post_stats(a, &tot, &stats_idx, 0))
			last_post = now;
	}
	gnio_gpu_dev_eth_rxq_release_thread(a->rxq);
	/* The last snapshot, marked EXIT: the host's books come from it. */
	if (!pp_post_stats(a, &tot, &stats_idx, 1) && result == GNIO_SUCCESS)
		result = GNIO_ERROR_TIME_OUT;
	gnio_gpu_dev_kernel_set_exit_code(l->ctl, (uint32_t)result);
	return result;
}
