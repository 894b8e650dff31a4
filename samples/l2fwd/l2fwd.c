/* SPDX-License-Identifier: MIT */
/*
 * samples/l2fwd/l2fwd.c - gnio_l2fwd: receive every frame, swap its MAC
 * addresses and send it back out in place, with every frame accounted for.
 *
 * Host side: bring up one RX queue and one TX queue with the RX pool
 * registered for sending (gnio_pipeline: tx, tx_in_place), launch the kernel
 * (l2fwd_kernel.cu on a GPU, l2fwd_cpu.c on the CPU device), print a line a
 * second, then drain, stop and reconcile:
 *   received by the kernel = forwarded + unsent + errors,
 *   forwarded              = sent by the wire + TX errors,
 *   on sw: every frame the peer got back is a generated frame with its MAC
 *   addresses swapped, byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "l2fwd.h"
#include "sample.h"

#ifdef GNIO_SAMPLE_HAVE_CUDA
#define L2FWD_CUDA l2fwd_cuda
#else
#define L2FWD_CUDA NULL
#endif

struct l2fwd {
	struct sample s;
	struct l2fwd_stats *stats; /* host view of the kernel's totals */
	struct l2fwd_stats fin;    /* the totals once the kernel stopped */
	struct gnio_gen_cfg gen;
	uint64_t count, size, rate;
	uint64_t peer_bad;         /* frames back at the sw peer that are not what was sent */
	uint64_t last_rx;
};

static void read_stats(const struct l2fwd_stats *st, struct l2fwd_stats *out)
{
	/* ACQUIRE(rx_packets) pairs with the RELEASE in l2fwd_publish(). */
	out->rx_packets = gnio_load_acquire_u64(&st->rx_packets);
	out->rx_bytes = gnio_load_relaxed_u64(&st->rx_bytes);
	out->forwarded = gnio_load_relaxed_u64(&st->forwarded);
	out->tx_again = gnio_load_relaxed_u64(&st->tx_again);
	out->unsent = gnio_load_relaxed_u64(&st->unsent);
	out->errors = gnio_load_relaxed_u64(&st->errors);
	out->last_error = gnio_load_relaxed_u64(&st->last_error);
	out->batches = gnio_load_relaxed_u64(&st->batches);
}

static uint64_t kernel_rx(void *user)
{
	struct l2fwd *f = user;
	return gnio_load_acquire_u64(&f->stats->rx_packets);
}

static int done(void *user)
{
	struct l2fwd *f = user;
	/* With a frame count on sw: stop once the generator is done and the
	 * kernel has seen every frame it offered. */
	return f->s.o.is_sw && f->count && sample_peer_gen_done(&f->s.peer) && kernel_rx(f) >= f->count;
}

static void tick(void *user, double t)
{
	struct l2fwd *f = user;
	struct l2fwd_stats now;
	read_stats(f->stats, &now);
	fprintf(stderr, "[%5.1fs] %8.3f Mpps | received %llu forwarded %llu | ring full %llu | errors %llu\n", t,
		(double)(now.rx_packets - f->last_rx) / 1e6, (unsigned long long)now.rx_packets,
		(unsigned long long)now.forwarded, (unsigned long long)now.tx_again, (unsigned long long)now.errors);
	f->last_rx = now.rx_packets;
}

/* The sw peer's receiving end: each frame must be a generated frame with
 * its addresses swapped. Swap them back and check every byte. */
static void peer_rx(void *user, const uint8_t *frame, uint32_t len, uint64_t ts_ns)
{
	struct l2fwd *f = user;
	uint8_t copy[GNIO_GEN_MAX_FRAME];
	(void)ts_ns;
	if (len > sizeof(copy)) {
		f->peer_bad++;
		return;
	}
	memcpy(copy, frame, len);
	gnio_frame_swap_macs(copy, len);
	if (gnio_gen_verify(&f->gen, copy, len, NULL) != GNIO_SUCCESS)
		f->peer_bad++;
}

int main(int argc, char **argv)
{
	static struct l2fwd f;
	struct sample *s = &f.s;
	f.size = 64;
	const struct sample_flag extra[] = {
		{"count", 'c', SAMPLE_FLAG_U64, &f.count, 0, UINT64_MAX, "N",
		 "sw: frames the generator offers, then stop (default 0: endless)"},
		{"size", 's', SAMPLE_FLAG_U64, &f.size, GNIO_GEN_MIN_FRAME, 1500, "BYTES",
		 "sw: frame size without FCS (default 64)"},
		{"rate", 'r', SAMPLE_FLAG_U64, &f.rate, 0, UINT64_MAX, "PPS", "sw: offered frames per second (default 0: as fast as taken)"},
	};
	s->name = "l2fwd";
	int rc = sample_parse(argc, argv, s->name,
			      "Receive every frame, swap its Ethernet addresses and send it back out from its\n"
			      "RX buffer (in place). On sw:NAME the built-in generator is the peer; on a real\n"
			      "interface, whatever sends to it gets its frames back.",
			      1, extra, sizeof(extra) / sizeof(extra[0]), &s->o);
	if (rc >= 0)
		return rc;

	struct gnio_pipeline_cfg pc;
	gnio_pipeline_cfg_init(&pc, NULL, NULL);
	pc.tx = 1;
	pc.tx_in_place = 1;
	pc.user_mem = sizeof(struct l2fwd_stats);
	/* On sw the generator waits for room instead of overrunning the ring,
	 * so a count-limited run forwards every frame. */
	pc.flow_control = s->o.is_sw;
	rc = sample_up(s, &pc);
	if (rc != SAMPLE_EXIT_OK)
		goto out;
	f.stats = s->q.user_mem_cpu;
	struct l2fwd_args args = {
		.rxq = s->q.rxh, .txq = s->q.txh, .stats = s->q.user_mem_gpu, .scope = s->o.scope,
	};
	if (s->o.is_sw) {
		gnio_gen_cfg_init(&f.gen);
		f.gen.frame_size = (uint32_t)f.size;
		f.gen.count = f.count;
		f.gen.rate_pps = f.rate;
		sample_peer_rx_start(&s->peer, peer_rx, &f);
	}
	sample_on_signals();
	rc = sample_launch(s, l2fwd_cpu, L2FWD_CUDA, &args);
	if (rc != SAMPLE_EXIT_OK)
		goto out;
	if (s->o.is_sw && (rc = sample_gen_start(s, &f.gen)) != SAMPLE_EXIT_OK)
		goto out;
	sample_wait(s, done, tick, &f);

	sample_quiesce(s, kernel_rx, &f);
	rc = sample_stop_kernel(s);
	if (rc != SAMPLE_EXIT_OK)
		return rc; /* failed closed: leave everything as it is */
	read_stats(f.stats, &f.fin);
	double secs = sample_now() - s->t0;
	sample_tx_drain(s, f.fin.forwarded);
	struct sample_books b;
	rc = sample_down(s, &b);

	const struct l2fwd_stats *k = &f.fin;
	int consumed = k->rx_packets == b.rx_packets;
	int accounted = k->forwarded + k->unsent + k->errors == k->rx_packets;
	int sent = b.tx.tx_packets + b.tx.tx_errors == k->forwarded;
	uint64_t peer_got = sample_peer_received(&s->peer);
	int peer_ok = !s->o.is_sw || (peer_got == b.tx.tx_packets && f.peer_bad == 0);
	if (rc == SAMPLE_EXIT_OK && !(consumed && accounted && sent && peer_ok))
		rc = SAMPLE_EXIT_FAIL;

	if (s->o.json) {
		sample_json_begin(s, &b);
		sample_json_u64("kernel_rx_packets", k->rx_packets);
		sample_json_u64("rx_bytes", k->rx_bytes);
		sample_json_u64("forwarded", k->forwarded);
		sample_json_u64("unsent", k->unsent);
		sample_json_u64("tx_again", k->tx_again);
		sample_json_u64("errors", k->errors);
		sample_json_str("last_error", gnio_error_get_name((gnio_error_t)k->last_error));
		if (s->o.is_sw) {
			sample_json_u64("peer_received", peer_got);
			sample_json_u64("peer_bad", f.peer_bad);
		}
		sample_json_f64("seconds", secs);
		sample_json_f64("mpps", secs > 0 ? (double)k->rx_packets / secs / 1e6 : 0);
		sample_json_bool("ok", rc == SAMPLE_EXIT_OK);
		sample_json_end();
	} else {
		fprintf(stderr, "gnio_l2fwd summary\n");
		sample_print_books(s, &b);
		fprintf(stderr, "  %-16s %llu received, %llu forwarded, %llu unsent at stop, %llu errors%s%s\n", "kernel",
			(unsigned long long)k->rx_packets, (unsigned long long)k->forwarded,
			(unsigned long long)k->unsent, (unsigned long long)k->errors, k->errors ? ", last " : "",
			k->errors ? gnio_error_get_name((gnio_error_t)k->last_error) : "");
		fprintf(stderr, "  %-16s %llu sent (%llu in place), %llu errors; ring full %llu times\n", "tx",
			(unsigned long long)b.tx.tx_packets, (unsigned long long)b.tx.tx_in_place,
			(unsigned long long)b.tx.tx_errors, (unsigned long long)k->tx_again);
		if (s->o.is_sw)
			fprintf(stderr, "  %-16s %llu frames back, %llu not as sent\n", "sw peer",
				(unsigned long long)peer_got, (unsigned long long)f.peer_bad);
		fprintf(stderr, "  %-16s %.3f Mpps over %.1f s\n", "rate", secs > 0 ? (double)k->rx_packets / secs / 1e6 : 0,
			secs);
		fprintf(stderr, "  %-16s %s\n", "result", rc == SAMPLE_EXIT_OK ? "every frame accounted for" : "FAILED");
	}
	return rc;
out:
	return sample_abort(s, rc);
}
