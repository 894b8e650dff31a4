/* SPDX-License-Identifier: MIT */
/* samples/l2fwd/l2fwd_cpu.c - the CPU-device body of l2fwd: the loop a CUDA
 * block runs (l2fwd_kernel.cu), with one host thread. The per-frame work is
 * l2fwd_forward() from l2fwd.h, shared with the CUDA kernel. On the CPU
 * device every scope is the thread scope. */
#include "l2fwd.h"

gnio_error_t l2fwd_cpu(const struct gnio_runner_launch *l)
{
	const struct l2fwd_args *a = l->user;
	struct l2fwd_stats tot = {0};
	gnio_error_t result = GNIO_SUCCESS;
	uint64_t beat = 0;

	while (!gnio_gpu_dev_kernel_should_stop(l->ctl)) {
		gnio_gpu_dev_kernel_heartbeat(l->ctl, ++beat);
		uint64_t first;
		uint32_t n;
		gnio_error_t err = gnio_gpu_dev_eth_rxq_recv_thread(a->rxq, L2FWD_BATCH, L2FWD_TIMEOUT_NS, &first, &n, NULL);
		if (err != GNIO_SUCCESS) {
			/* BAD_STATE (no pool registered) and the like do not heal */
			tot.errors++;
			tot.last_error = (uint64_t)err;
			result = err;
			break;
		}
		if (!n)
			continue;
		struct l2fwd_counts c = {0};
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *pkt;
			uint32_t len;
			gnio_gpu_dev_eth_rxq_get_pkt(a->rxq, first + i, &pkt, &len, NULL);
			l2fwd_forward(a, l->ctl, pkt, len, &c);
		}
		tot.rx_packets += n;
		tot.rx_bytes += c.rx_bytes;
		tot.forwarded += c.forwarded;
		tot.tx_again += c.tx_again;
		tot.unsent += c.unsent;
		tot.errors += c.errors;
		if (c.errors)
			tot.last_error = c.last_error;
		tot.batches++;
		l2fwd_publish(a->stats, &tot);
	}
	/* The last batch goes back, so the proxy sees everything consumed. */
	gnio_gpu_dev_eth_rxq_release_thread(a->rxq);
	l2fwd_publish(a->stats, &tot);
	gnio_gpu_dev_kernel_set_exit_code(l->ctl, (uint32_t)result);
	return result;
}
