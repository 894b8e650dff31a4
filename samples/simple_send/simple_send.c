/* SPDX-License-Identifier: MIT */
/*
 * samples/simple_send/simple_send.c - gnio_simple_send: the kernel builds
 * UDP frames of a given size and sends them from many threads into one
 * shared TX queue, until stopped (or until it has sent --count frames). It
 * reports the rate, the times the ring was full (AGAIN) and the completions.
 *
 * Host side: one TX queue with its own pool, one slot per ring entry
 * (gnio_pipeline: tx, tx_only, tx_pool), the kernel (simple_send_kernel.cu
 * on a GPU, simple_send_cpu.c on the CPU device), a line a second, then:
 *   committed by the kernel = sent by the wire + TX errors;
 *   on sw, the peer got every frame, each exactly as built, each sequence
 *   number once.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "simple_send.h"

#ifdef GNIO_SAMPLE_HAVE_CUDA
#define SS_CUDA simple_send_cuda
#else
#define SS_CUDA NULL
#endif

struct ss {
	struct sample s;
	struct ss_args args;
	struct ss_group_stats *stats; /* host view, ngroups of them */
	uint32_t ngroups;
	uint64_t count, size, blocks, threads;
	uint8_t dst_mac[6];
	uint32_t src_ip, dst_ip;
	uint64_t last_sent;
	struct ss_group_stats fin;
	/* the sw peer's checks */
	uint64_t peer_bad, peer_dup;
	uint8_t *seen; /* one bit per sequence number, with --count */
};

static void sum_stats(const struct ss *x, struct ss_group_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (uint32_t g = 0; g < x->ngroups; g++) {
		const struct ss_group_stats *st = &x->stats[g];
		sum->sent += gnio_load_relaxed_u64(&st->sent);
		sum->again += gnio_load_relaxed_u64(&st->again);
		uint64_t e = gnio_load_relaxed_u64(&st->errors);
		sum->errors += e;
		if (e)
			sum->last_error = gnio_load_relaxed_u64(&st->last_error);
	}
}

static void tick(void *user, double t)
{
	struct ss *x = user;
	struct ss_group_stats now;
	struct gnio_eth_txq_stats tx;
	sum_stats(x, &now);
	gnio_eth_txq_get_stats(x->s.q.txq, &tx);
	fprintf(stderr, "[%5.1fs] %8.3f Mpps | sent %llu | completed %llu | ring full %llu | errors %llu\n", t,
		(double)(now.sent - x->last_sent) / 1e6, (unsigned long long)now.sent,
		(unsigned long long)tx.tx_packets, (unsigned long long)now.again, (unsigned long long)now.errors);
	x->last_sent = now.sent;
}

/* The sw peer: each frame must be exactly the frame its sequence number
 * names, and (with --count) each sequence number must come once. */
static void peer_rx(void *user, const uint8_t *frame, uint32_t len, uint64_t ts_ns)
{
	struct ss *x = user;
	uint8_t want[2048];
	(void)ts_ns;
	if (len != x->args.frame.size || len > sizeof(want)) {
		x->peer_bad++;
		return;
	}
	uint64_t seq = ss_frame_seq(frame);
	ss_build_frame(want, &x->args.frame, seq);
	if (memcmp(want, frame, len)) {
		x->peer_bad++;
		return;
	}
	if (x->seen) {
		if (seq >= x->count) {
			x->peer_bad++;
			return;
		}
		if (x->seen[seq / 8] & (1u << (seq % 8)))
			x->peer_dup++;
		x->seen[seq / 8] |= (uint8_t)(1u << (seq % 8));
	}
}

int main(int argc, char **argv)
{
	static struct ss x;
	struct sample *s = &x.s;
	x.size = 64;
	x.blocks = SS_BLOCKS;
	x.threads = SS_THREADS;
	memset(x.dst_mac, 0xff, 6);
	x.src_ip = htonl(0x0a000001);
	x.dst_ip = htonl(0x0a000002);
	const struct sample_flag extra[] = {
		{"count", 'c', SAMPLE_FLAG_U64, &x.count, 0, UINT64_MAX, "N", "frames to send, then stop (default 0: until stopped)"},
		{"size", 's', SAMPLE_FLAG_U64, &x.size, 60, 1514, "BYTES", "frame size without FCS (default 64)"},
		{"blocks", 'b', SAMPLE_FLAG_U64, &x.blocks, 1, SS_MAX_BLOCKS, "N", "CUDA blocks (default 2)"},
		{"threads", 't', SAMPLE_FLAG_U64, &x.threads, 32, 1024, "N",
		 "CUDA threads per block, a multiple of 32; with -e block also the CPU device's group (default 256)"},
		{"dst-mac", 0, SAMPLE_FLAG_MAC, x.dst_mac, 0, 0, "MAC", "destination MAC (default ff:ff:ff:ff:ff:ff)"},
		{"src-ip", 0, SAMPLE_FLAG_IPV4, &x.src_ip, 0, 0, "ADDR", "source IPv4 address (default 10.0.0.1)"},
		{"dst-ip", 0, SAMPLE_FLAG_IPV4, &x.dst_ip, 0, 0, "ADDR", "destination IPv4 address (default 10.0.0.2)"},
	};
	s->name = "simple_send";
	int rc = sample_parse(argc, argv, s->name,
			      "The kernel builds UDP frames (to port 9000, each carrying its sequence number)\n"
			      "and sends them from many threads into one shared TX queue until stopped. -e says\n"
			      "who reserves TX slots: each thread, each warp, or each block. Reports the rate,\n"
			      "the times the ring was full (AGAIN) and the completions.",
			      1, extra, sizeof(extra) / sizeof(extra[0]), &s->o);
	if (rc >= 0)
		return rc;
	if (x.threads % 32) {
		fprintf(stderr, "gnio_simple_send: --threads %llu: expected a multiple of 32\n", (unsigned long long)x.threads);
		return SAMPLE_EXIT_USAGE;
	}

	struct gnio_pipeline_cfg pc;
	gnio_pipeline_cfg_init(&pc, NULL, NULL);
	pc.tx = 1;
	pc.tx_only = 1;
	pc.tx_pool = 1;
	pc.tx_ring = 4096; /* above the largest group (a block of 1024), so a reservation always fits */
	uint32_t gsize = ss_group_size(s->o.scope, (uint32_t)x.threads);
	x.ngroups = (uint32_t)(x.blocks * x.threads / gsize);
	pc.user_mem = (size_t)x.ngroups * sizeof(struct ss_group_stats);
	rc = sample_up(s, &pc);
	if (rc != SAMPLE_EXIT_OK)
		return sample_abort(s, rc);
	x.stats = s->q.user_mem_cpu;
	memset(x.stats, 0, pc.user_mem);
	x.args = (struct ss_args){
		.txq = s->q.txh, .stats = s->q.user_mem_gpu, .count = x.count, .scope = s->o.scope,
		.blocks = (uint32_t)x.blocks, .threads = (uint32_t)x.threads,
	};
	struct ss_frame_cfg *fc = &x.args.frame;
	memcpy(fc->dst_mac, x.dst_mac, 6);
	sample_wire_mac(s->dev, fc->src_mac);
	fc->src_ip = x.src_ip;
	fc->dst_ip = x.dst_ip;
	fc->src_port = 1024;
	fc->dst_port = 9000;
	fc->size = (uint32_t)x.size;
	if (s->o.is_sw) {
		if (x.count && x.count <= (1ull << 32))
			x.seen = calloc(x.count / 8 + 1, 1);
		sample_peer_rx_start(&s->peer, peer_rx, &x);
	}
	sample_on_signals();
	rc = sample_launch(s, simple_send_cpu, SS_CUDA, &x.args);
	if (rc != SAMPLE_EXIT_OK)
		return sample_abort(s, rc);
	sample_wait(s, NULL, tick, &x);

	rc = sample_stop_kernel(s);
	if (rc != SAMPLE_EXIT_OK)
		return rc; /* failed closed */
	double secs = sample_now() - s->t0;
	sum_stats(&x, &x.fin);
	sample_tx_drain(s, x.fin.sent);
	struct sample_books b;
	rc = sample_down(s, &b);

	const struct ss_group_stats *k = &x.fin;
	int sent_ok = b.tx.tx_packets + b.tx.tx_errors == k->sent;
	int count_ok = !x.count || k->sent == x.count || sample_stop_requested || !s->kernel_exited;
	uint64_t peer_got = sample_peer_received(&s->peer);
	int peer_ok = !s->o.is_sw || (peer_got == b.tx.tx_packets && !x.peer_bad && !x.peer_dup);
	if (rc == SAMPLE_EXIT_OK && !(sent_ok && count_ok && peer_ok && !k->errors))
		rc = SAMPLE_EXIT_FAIL;
	double mpps = secs > 0 ? (double)k->sent / secs / 1e6 : 0;

	if (s->o.json) {
		sample_json_begin(s, &b);
		sample_json_u64("sent", k->sent);
		sample_json_u64("completed", b.tx.tx_packets);
		sample_json_u64("again", k->again);
		sample_json_u64("errors", k->errors);
		sample_json_str("last_error", gnio_error_get_name((gnio_error_t)k->last_error));
		sample_json_u64("size", x.size);
		sample_json_u64("groups", s->on_cpu ? 1 : x.ngroups);
		sample_json_u64("group_size", gsize);
		if (s->o.is_sw) {
			sample_json_u64("peer_received", peer_got);
			sample_json_u64("peer_bad", x.peer_bad);
			sample_json_u64("peer_duplicates", x.peer_dup);
		}
		sample_json_f64("seconds", secs);
		sample_json_f64("mpps", mpps);
		sample_json_bool("ok", rc == SAMPLE_EXIT_OK);
		sample_json_end();
	} else {
		fprintf(stderr, "gnio_simple_send summary\n");
		sample_print_books(s, &b);
		fprintf(stderr, "  %-16s %llu frames of %llu bytes from %u group(s) of %u (%s scope)\n", "kernel",
			(unsigned long long)k->sent, (unsigned long long)x.size, s->on_cpu ? 1 : x.ngroups, gsize,
			sample_scope_name(s->o.scope));
		fprintf(stderr, "  %-16s %llu completed by the wire, %llu TX errors; ring full (AGAIN) %llu times\n",
			"completions", (unsigned long long)b.tx.tx_packets, (unsigned long long)b.tx.tx_errors,
			(unsigned long long)k->again);
		if (s->o.is_sw)
			fprintf(stderr, "  %-16s %llu frames, %llu not as built, %llu duplicates\n", "sw peer",
				(unsigned long long)peer_got, (unsigned long long)x.peer_bad,
				(unsigned long long)x.peer_dup);
		fprintf(stderr, "  %-16s %.3f Mpps (%.3f Gbit/s) over %.1f s\n", "rate", mpps, mpps * 8.0 * (double)x.size / 1e3,
			secs);
		fprintf(stderr, "  %-16s %s\n", "result", rc == SAMPLE_EXIT_OK ? "every frame sent and completed" : "FAILED");
	}
	free(x.seen);
	return rc;
}
