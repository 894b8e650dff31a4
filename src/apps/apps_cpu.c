/* SPDX-License-Identifier: MIT */
/* src/apps/apps_cpu.c - CPU-device bodies of the built-in apps. They are the
 * same loop a CUDA block runs, with one thread: recv a batch, run the shared
 * per-packet function on each frame, publish running totals. */
#include <sched.h>
#include <string.h>
#include "apps/apps.h"

/* Store running totals; the kernel is the only writer of its stats block. */
static void publish(struct gnio_app_stats *st, const struct gnio_app_stats *local)
{
	gnio_store_relaxed_u64(&st->bytes, local->bytes);
	gnio_store_relaxed_u64(&st->batches, local->batches);
	gnio_store_relaxed_u64(&st->tx_packets, local->tx_packets);
	gnio_store_relaxed_u64(&st->tx_again, local->tx_again);
	gnio_store_relaxed_u64(&st->errors, local->errors);
	gnio_store_relaxed_u64(&st->last_error, local->last_error);
	gnio_store_relaxed_u64(&st->digest, local->digest);
	for (int i = 0; i < GNIO_PROTO_COUNT; i++)
		gnio_store_relaxed_u64(&st->proto[i], local->proto[i]);
	/* RELEASE(stats.packets) last: a reader that sees the packet count sees
	 * the totals that go with it. */
	gnio_store_release_u64(&st->packets, local->packets);
}

enum { APP_COUNT, APP_CLASSIFY, APP_ECHO, APP_TOUCH };

/* XOR of the frame's 32-bit words (tail bytes zero-extended). */
static uint32_t frame_digest(const uint8_t *p, uint32_t len)
{
	uint32_t x = 0, w;
	uint32_t i = 0;
	for (; i + 4 <= len; i += 4) {
		memcpy(&w, p + i, 4);
		x ^= w;
	}
	for (uint32_t k = 0; i < len; i++, k++)
		x ^= (uint32_t)p[i] << (8 * k);
	return x;
}

static gnio_error_t run_loop(const struct gnio_runner_launch *l, int kind)
{
	const struct gnio_app_args *a = l->user;
	const struct gnio_gpu_eth_rxq *rxq = a->rxq;
	const struct gnio_gpu_eth_txq *txq = a->txq;
	struct gnio_app_stats local;
	memset(&local, 0, sizeof(local));
	uint64_t beat = 0;
	gnio_error_t result = GNIO_SUCCESS;

	while (!gnio_dev_kernel_should_stop(l->ctl)) {
		gnio_dev_kernel_heartbeat(l->ctl, ++beat);
		uint64_t first;
		uint32_t n;
		gnio_error_t err = gnio_dev_eth_rxq_recv_block(rxq, a->max_batch, a->timeout_ns, &first, &n);
		if (err != GNIO_SUCCESS) {
			local.errors++;
			local.last_error = err;
			publish(a->stats, &local);
			result = err;
			break; /* BAD_STATE (no pool) will not fix itself */
		}
		if (!n)
			continue;
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *pkt;
			uint32_t len;
			gnio_dev_eth_rxq_get_pkt(rxq, first + i, &pkt, &len, NULL);
			local.bytes += len;
			if (kind == APP_CLASSIFY)
				local.proto[gnio_classify(pkt, len)]++;
			if (kind == APP_TOUCH)
				local.digest ^= frame_digest(pkt, len);
			if (kind == APP_ECHO && txq) {
				uint64_t t;
				err = gnio_dev_eth_txq_reserve(txq, 1, &t);
				for (unsigned spins = 0; err == GNIO_ERROR_AGAIN && !gnio_dev_kernel_should_stop(l->ctl);
				     spins++) {
					/* Ring full: the proxy drains it. Wait, do not drop;
					 * give the proxy the core if it shares ours. */
					local.tx_again++;
					if (spins < 64)
						gnio_cpu_relax();
					else
						sched_yield();
					err = gnio_dev_eth_txq_reserve(txq, 1, &t);
				}
				if (err != GNIO_SUCCESS) {
					local.errors++;
					local.last_error = err;
					continue;
				}
				uint8_t *out = gnio_dev_eth_txq_slot_addr(txq, t);
				uint32_t cl = len <= txq->slot_size ? len : txq->slot_size;
				memcpy(out, pkt + 6, 6); /* swap MACs: dst <- src */
				memcpy(out + 6, pkt, 6);
				memcpy(out + 12, pkt + 12, cl - 12);
				gnio_dev_eth_txq_commit(txq, t, cl, 0);
				local.tx_packets++;
			}
		}
		local.packets += n;
		local.batches++;
		publish(a->stats, &local);
	}
	/* Release the last batch so the proxy sees everything consumed. */
	gnio_rx_ring_release(rxq);
	publish(a->stats, &local);
	gnio_dev_kernel_set_exit_code(l->ctl, (uint32_t)result);
	return result;
}

gnio_error_t gnio_app_count_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_COUNT); }
gnio_error_t gnio_app_classify_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_CLASSIFY); }
gnio_error_t gnio_app_echo_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_ECHO); }
gnio_error_t gnio_app_touch_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_TOUCH); }
