/* SPDX-License-Identifier: MIT */
/* src/apps/apps_cpu.c - CPU-device bodies of the built-in apps. They are the
 * same loop a CUDA block runs, with one thread: receive a batch through the
 * device API, run the shared per-packet function on each frame, send where the
 * app sends, publish running totals. */
#include <sched.h>
#include <string.h>
#include "apps/apps_priv.h"
#include "apps/batch_tuner.h"
#include "gnio/apps/frame.h"
#include "gnio/apps/verify.h"
#include "gnio/device/gnio_dev.h"

enum { APP_COUNT, APP_CLASSIFY, APP_TOUCH, APP_ECHO, APP_ECHO_COPY, APP_FWD, APP_VERIFY };

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
	gnio_store_relaxed_u64(&st->verify_fail, local->verify_fail);
	gnio_store_relaxed_u64(&st->seq_first, local->seq_first);
	gnio_store_relaxed_u64(&st->seq_last, local->seq_last);
	gnio_store_relaxed_u64(&st->seq_gap, local->seq_gap);
	gnio_store_relaxed_u64(&st->seq_reorder, local->seq_reorder);
	gnio_store_relaxed_u64(&st->changed_in_hold, local->changed_in_hold);
	gnio_store_relaxed_u64(&st->batch_now, local->batch_now);
	gnio_store_relaxed_u64(&st->batch_peak, local->batch_peak);
	/* RELEASE(stats.packets) last: a reader that sees the packet count sees
	 * the totals that go with it. */
	gnio_store_release_u64(&st->packets, local->packets);
}

/* The ring is full: the proxy drains it. Wait, do not drop; give the proxy
 * the core when it shares ours. Returns 0 when told to stop meanwhile. */
static int tx_wait(const struct gnio_runner_launch *l, unsigned *spins)
{
	if (gnio_gpu_dev_kernel_should_stop(l->ctl))
		return 0;
	if (++*spins < 64)
		gnio_cpu_relax();
	else
		sched_yield();
	return 1;
}

static void count_error(struct gnio_app_stats *s, gnio_error_t err)
{
	s->errors++;
	s->last_error = err;
}

/* Send frame idx of the batch back where it lies: swap MACs, then send it in
 * place (the RX pool is registered with the TX queue). */
static void send_in_place(const struct gnio_runner_launch *l, const struct gnio_app_args *a, uint64_t idx,
			  uint8_t *pkt, uint32_t len, struct gnio_app_stats *s)
{
	/* the addresses come from the inline header when the queue has one */
	gnio_frame_swap_macs_from(pkt, gnio_gpu_dev_eth_rxq_get_pkt_hdr(a->rxq, idx, NULL), len);
	uint32_t mkey = gnio_gpu_dev_eth_rxq_get_pkt_mkey(a->rxq);
	unsigned spins = 0;
	gnio_error_t err;
	while ((err = gnio_gpu_dev_eth_txq_send_thread(a->txq, (uint64_t)(uintptr_t)pkt, mkey, len,
						       GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, NULL)) == GNIO_ERROR_AGAIN) {
		s->tx_again++;
		if (!tx_wait(l, &spins))
			return;
	}
	if (err != GNIO_SUCCESS)
		count_error(s, err);
	else
		s->tx_packets++;
}

/* Copy the frame with MACs swapped into the TX pool's next slot, then send it. */
static void send_copy(const struct gnio_runner_launch *l, const struct gnio_app_args *a, const uint8_t *pkt,
		      uint32_t len, struct gnio_app_stats *s)
{
	uint64_t t;
	unsigned spins = 0;
	gnio_error_t err;
	while ((err = gnio_gpu_dev_eth_txq_reserve(a->txq, 1, &t)) == GNIO_ERROR_AGAIN) {
		s->tx_again++;
		if (!tx_wait(l, &spins))
			return;
	}
	if (err != GNIO_SUCCESS) {
		count_error(s, err);
		return;
	}
	uint8_t *out = gnio_gpu_dev_eth_txq_slot_addr(a->txq, t);
	uint32_t room = gnio_gpu_dev_eth_txq_slot_size(a->txq);
	uint32_t cl = len <= room ? len : room;
	memcpy(out, pkt, cl);
	gnio_frame_swap_macs(out, cl);
	gnio_gpu_dev_eth_txq_commit(a->txq, t, cl, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
	s->tx_packets++;
}

/* verify: check one frame and chain its stamp to the previous frame's
 * (*prev: -1 when that one had none, or there was none). Returns the frame's
 * sequence number, -1 when it is not intact. */
static int64_t verify_one(const uint8_t *pkt, uint32_t len, int64_t *prev, struct gnio_app_stats *s)
{
	const int64_t seq = gnio_verify_frame(pkt, len), stamp = gnio_verify_stamp(pkt, len);
	if (seq < 0)
		s->verify_fail++;
	else
		s->seq_last = (uint64_t)seq;
	if (stamp >= 0 && *prev >= 0 && stamp > *prev + 1)
		s->seq_gap += (uint64_t)(stamp - *prev - 1);
	else if (stamp >= 0 && *prev >= 0 && stamp <= *prev)
		s->seq_reorder++;
	*prev = stamp;
	return seq;
}

/* verify with a hold: keep the batch as long as a slow consumer would, then
 * read every frame again. The proxy must not have refilled any slot of a
 * batch not yet released: each frame must still be intact and carry the
 * stamp it had. */
static void verify_hold(const struct gnio_app_args *a, uint64_t first, uint32_t n, uint64_t stamp_sum,
			struct gnio_app_stats *s)
{
	const uint64_t until = gnio_gpu_dev_time_ns() + a->hold_ns;
	while (gnio_gpu_dev_time_ns() < until)
		sched_yield();
	uint64_t again = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *pkt;
		uint32_t len;
		gnio_gpu_dev_eth_rxq_get_pkt(a->rxq, first + i, &pkt, &len, NULL);
		const int64_t seq = gnio_verify_frame(pkt, len);
		if (seq < 0)
			s->verify_fail++;
		again += (uint64_t)(seq + 1) * (i + 1);
	}
	if (again != stamp_sum)
		s->changed_in_hold++;
}

static gnio_error_t run_loop(const struct gnio_runner_launch *l, int kind)
{
	const struct gnio_app_args *a = l->user;
	const struct gnio_gpu_eth_rxq *rxq = a->rxq;
	struct gnio_app_stats local;
	memset(&local, 0, sizeof(local));
	uint64_t beat = 0;
	gnio_error_t result = GNIO_SUCCESS;
	struct gnio_batch_tuner tuner;
	gnio_batch_tuner_init(&tuner, a->max_batch, gnio_gpu_dev_eth_rxq_get_num_packets(rxq));
	local.batch_now = local.batch_peak = tuner.batch;
	/* The echoes answer each frame at once: look once per receive. The
	 * others wait up to the timeout for a full batch. */
	const int latency = kind == APP_ECHO || kind == APP_ECHO_COPY;
	const uint64_t timeout = latency ? 1 : (a->timeout_ns ? a->timeout_ns : GNIO_APP_DEF_TIMEOUT_NS);
	unsigned idle = 0;
	int64_t prev_seq = -1; /* verify: the last frame's stamp */

	if ((kind == APP_ECHO || kind == APP_ECHO_COPY || kind == APP_FWD) && !a->txq)
		return GNIO_ERROR_INVALID_VALUE;
	while (!gnio_gpu_dev_kernel_should_stop(l->ctl)) {
		gnio_gpu_dev_kernel_heartbeat(l->ctl, ++beat);
		uint64_t first;
		uint32_t n;
		gnio_error_t err = gnio_gpu_dev_eth_rxq_recv_thread(rxq, tuner.batch, timeout, &first, &n, NULL);
		if (err != GNIO_SUCCESS) {
			count_error(&local, err);
			publish(a->stats, &local);
			result = err;
			break; /* BAD_STATE (no pool) will not fix itself */
		}
		local.batch_now = gnio_batch_tuner_next(&tuner, n, gnio_gpu_dev_eth_rxq_last_recv_full_at_once(rxq));
		local.batch_peak = tuner.peak;
		if (!n) {
			/* A CPU-device kernel shares cores with the proxies. */
			if (latency && ++idle > 64)
				sched_yield();
			continue;
		}
		idle = 0;
		if (a->trace)
			gnio_store_relaxed_u64(&a->trace[GNIO_APP_TRACE_RECV], first + n);
		uint64_t stamp_sum = 0; /* verify: what the hold compares */
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *pkt;
			uint32_t len;
			gnio_gpu_dev_eth_rxq_get_pkt(rxq, first + i, &pkt, &len, NULL);
			local.bytes += len;
			switch (kind) {
			case APP_CLASSIFY: local.proto[gnio_classify(pkt, len)]++; break;
			case APP_TOUCH: local.digest ^= gnio_frame_digest(pkt, len); break;
			case APP_ECHO:
			case APP_FWD: send_in_place(l, a, first + i, pkt, len, &local); break;
			case APP_ECHO_COPY: send_copy(l, a, pkt, len, &local); break;
			case APP_VERIFY: {
				const int64_t seq = verify_one(pkt, len, &prev_seq, &local);
				if (!local.packets && i == 0 && seq >= 0)
					local.seq_first = (uint64_t)seq;
				stamp_sum += (uint64_t)(seq + 1) * (i + 1);
				break;
			}
			default: break;
			}
		}
		if (a->trace)
			gnio_store_relaxed_u64(&a->trace[GNIO_APP_TRACE_SENT], first + n);
		if (kind == APP_VERIFY && a->hold_ns)
			verify_hold(a, first, n, stamp_sum, &local);
		local.packets += n;
		local.batches++;
		publish(a->stats, &local);
	}
	/* Release the last batch so the proxy sees everything consumed. */
	gnio_gpu_dev_eth_rxq_release_thread(rxq);
	publish(a->stats, &local);
	gnio_gpu_dev_kernel_set_exit_code(l->ctl, (uint32_t)result);
	return result;
}

gnio_error_t gnio_app_count_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_COUNT); }
gnio_error_t gnio_app_classify_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_CLASSIFY); }
gnio_error_t gnio_app_touch_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_TOUCH); }
gnio_error_t gnio_app_echo_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_ECHO); }
gnio_error_t gnio_app_echo_copy_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_ECHO_COPY); }
gnio_error_t gnio_app_fwd_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_FWD); }
gnio_error_t gnio_app_verify_cpu(const struct gnio_runner_launch *l) { return run_loop(l, APP_VERIFY); }
