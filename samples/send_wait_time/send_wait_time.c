/* SPDX-License-Identifier: MIT */
/*
 * samples/send_wait_time/send_wait_time.c - gnio_send_wait_time: bursts of
 * frames sent at a fixed interval with timed sends (DOCA: wait on time).
 *
 * The kernel (send_wait_time_kernel.cu, or send_wait_time_cpu.c on the CPU
 * device) picks t0 when it starts and queues burst k for t0 + k * interval;
 * each frame carries its burst, its place in the burst and its requested
 * time. The first frame of every burst asks for a completion event
 * (NOTIFY): the progress engine reports when the wire took it, and this
 * program reports that time against the requested one, and the spacing
 * between bursts. On sw:NAME the sample is also the receiving peer and
 * measures the spacing where the frames arrive; on a real interface a
 * capture on the other end (or the raw-socket peer of the integration
 * test) does.
 *
 * A timed frame never leaves before its time: a frame seen earlier is
 * counted as "early" and fails the run. How late frames are is measured
 * and reported, not judged.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "send_wait_time.h"

#ifdef GNIO_SAMPLE_HAVE_CUDA
#define SWT_CUDA send_wait_time_cuda
#else
#define SWT_CUDA NULL
#endif

#define MAX_SAMPLES (1u << 20)

/* One side's timing: when each burst's first frame was seen. */
struct timing {
	uint64_t *seen_ns;  /* per burst, 0 = not seen */
	uint64_t early;     /* frames seen before their requested time */
	uint64_t n;         /* bursts with a time */
};

struct swt {
	struct sample s;
	struct swt_args args;
	struct swt_stats *stats; /* host view */
	struct swt_stats fin;
	uint64_t bursts, burst, interval_us, size, lead_ms;
	uint8_t dst_mac[6];
	uint32_t src_ip, dst_ip;
	uint64_t start_ns;       /* the kernel's t0, once known */
	uint64_t events;         /* completion events so far: event i is burst i */
	struct timing wire;      /* from the completion events (hand-off to the wire) */
	struct timing peer;      /* from the sw peer's receive times */
	uint64_t peer_frames, peer_bad;
	uint64_t last_bursts;
};

static void record(struct timing *t, uint64_t k, uint64_t seen_ns, uint64_t requested_ns)
{
	if ((int64_t)(seen_ns - requested_ns) < 0)
		t->early++;
	if (k < MAX_SAMPLES && !t->seen_ns[k]) {
		t->seen_ns[k] = seen_ns;
		t->n++;
	}
}

static uint64_t requested(struct swt *x, uint64_t k)
{
	/* ACQUIRE(start_ns) pairs with the kernel's RELEASE before its first
	 * send: an event or frame of that send comes after it. Kept, since the
	 * kernel's memory goes with the rollback. */
	if (!x->start_ns)
		x->start_ns = gnio_load_acquire_u64(&x->stats->start_ns);
	return x->start_ns + k * x->args.interval_ns;
}

static void on_notify(struct gnio_eth_txq_gpu_event_notify_send_packet *ev, void *user)
{
	struct swt *x = user;
	uint64_t ts = 0;
	gnio_eth_txq_gpu_event_notify_send_packet_get_timestamp(ev, &ts);
	uint64_t k = x->events++;
	record(&x->wire, k, ts, requested(x, k));
}

static void on_send_error(struct gnio_eth_txq_gpu_event_error_send_packet *ev, void *user)
{
	uint16_t pos = 0;
	(void)user;
	gnio_eth_txq_gpu_event_error_send_packet_get_position(ev, &pos);
	fprintf(stderr, "gnio_send_wait_time: a send failed (position %u)\n", pos);
}

/* The sw peer: each frame must be exactly what its burst, index and
 * requested time say, and must not arrive before that time. */
static void peer_rx(void *user, const uint8_t *f, uint32_t len, uint64_t ts_ns)
{
	struct swt *x = user;
	uint8_t want[2048];
	x->peer_frames++;
	if (len != x->args.frame.size || len > sizeof(want)) {
		x->peer_bad++;
		return;
	}
	const uint8_t *pl = f + SWT_PAYLOAD_OFF;
	uint64_t k = swt_get(pl, 8), req = swt_get(pl + 12, 8);
	uint32_t j = (uint32_t)swt_get(pl + 8, 4);
	swt_build_frame(want, &x->args.frame, k, j, req);
	if (j >= x->args.burst || memcmp(want, f, len)) {
		x->peer_bad++;
		return;
	}
	if (j == 0)
		record(&x->peer, k, ts_ns, req);
	else if ((int64_t)(ts_ns - req) < 0)
		x->peer.early++;
}

/* Each burst that went out posts one event. A wire that completes frames
 * after taking them (AF_XDP) posts it after the drain saw the frame leave:
 * keep the engine turning until they are in, as long as a drain waits. */
static void wait_events(struct swt *x, uint64_t want)
{
	const double end = sample_now() + 5.0;
	while (x->events + gnio_pe_get_lost_events(x->s.pe) < want && sample_now() < end) {
		gnio_pe_progress(x->s.pe);
		sample_sleep_ms(1);
	}
}

/* Summary of one side: error against the requested times and the spacing
 * of consecutive bursts, in microseconds. */
struct timing_sum {
	uint64_t n;
	double err_min, err_p50, err_p99, err_max;
	double gap_mean, gap_min, gap_max;
};

static void summarize(struct swt *x, const struct timing *t, uint64_t bursts, struct timing_sum *o)
{
	memset(o, 0, sizeof(*o));
	uint64_t lim = bursts < MAX_SAMPLES ? bursts : MAX_SAMPLES;
	double *err = malloc(sizeof(double) * (lim + 1));
	uint64_t n = 0, gaps = 0, prev = 0;
	double gap_sum = 0;
	if (!err)
		return;
	o->gap_min = 1e300;
	for (uint64_t k = 0; k < lim; k++) {
		if (!t->seen_ns[k]) {
			prev = 0;
			continue;
		}
		err[n++] = (double)(int64_t)(t->seen_ns[k] - requested(x, k)) / 1e3;
		if (prev) {
			double g = (double)(int64_t)(t->seen_ns[k] - prev) / 1e3;
			gap_sum += g;
			gaps++;
			o->gap_min = g < o->gap_min ? g : o->gap_min;
			o->gap_max = g > o->gap_max ? g : o->gap_max;
		}
		prev = t->seen_ns[k];
	}
	o->n = n;
	sample_sort(err, (unsigned)n);
	if (n) {
		o->err_min = err[0];
		o->err_p50 = sample_percentile(err, (unsigned)n, 50);
		o->err_p99 = sample_percentile(err, (unsigned)n, 99);
		o->err_max = err[n - 1];
	}
	if (gaps)
		o->gap_mean = gap_sum / (double)gaps;
	else
		o->gap_min = 0;
	free(err);
}

static void tick(void *user, double t)
{
	struct swt *x = user;
	uint64_t b = gnio_load_relaxed_u64(&x->stats->bursts);
	fprintf(stderr, "[%5.1fs] %llu bursts queued (+%llu) | %llu completion events | ring full %llu\n", t,
		(unsigned long long)b, (unsigned long long)(b - x->last_bursts), (unsigned long long)x->events,
		(unsigned long long)gnio_load_relaxed_u64(&x->stats->again));
	x->last_bursts = b;
}

static void json_timing(const char *prefix, const struct timing_sum *t)
{
	char k[64];
#define KEY(name) (snprintf(k, sizeof(k), "%s_%s", prefix, name), k)
	sample_json_u64(KEY("bursts"), t->n);
	sample_json_f64(KEY("error_min_us"), t->err_min);
	sample_json_f64(KEY("error_p50_us"), t->err_p50);
	sample_json_f64(KEY("error_p99_us"), t->err_p99);
	sample_json_f64(KEY("error_max_us"), t->err_max);
	sample_json_f64(KEY("spacing_mean_us"), t->gap_mean);
	sample_json_f64(KEY("spacing_min_us"), t->gap_min);
	sample_json_f64(KEY("spacing_max_us"), t->gap_max);
#undef KEY
}

static void print_timing(const char *what, const struct timing_sum *t, uint64_t interval_us)
{
	fprintf(stderr, "  %-16s %llu bursts: late by %.1f / %.1f / %.1f / %.1f us (min / median / p99 / max)\n", what,
		(unsigned long long)t->n, t->err_min, t->err_p50, t->err_p99, t->err_max);
	fprintf(stderr, "  %-16s spacing %.1f us mean, %.1f .. %.1f us (requested %llu us)\n", "", t->gap_mean, t->gap_min,
		t->gap_max, (unsigned long long)interval_us);
}

int main(int argc, char **argv)
{
	static struct swt x;
	struct sample *s = &x.s;
	x.burst = 8;
	x.interval_us = 1000;
	x.size = 64;
	x.lead_ms = 10;
	memset(x.dst_mac, 0xff, 6);
	x.src_ip = htonl(0x0a000001);
	x.dst_ip = htonl(0x0a000002);
	const struct sample_flag extra[] = {
		{"count", 'c', SAMPLE_FLAG_U64, &x.bursts, 0, UINT64_MAX, "N", "bursts to send, then stop (default 0: until stopped)"},
		{"burst", 'b', SAMPLE_FLAG_U64, &x.burst, 1, SWT_MAX_BURST, "N",
		 "frames per burst (default 8; at most 32 with -e thread or warp)"},
		{"interval-us", 'i', SAMPLE_FLAG_U64, &x.interval_us, 10, 10000000, "US",
		 "time between bursts in microseconds (default 1000)"},
		{"size", 's', SAMPLE_FLAG_U64, &x.size, 64, 1514, "BYTES", "frame size without FCS (default 64)"},
		{"lead-ms", 0, SAMPLE_FLAG_U64, &x.lead_ms, 0, 10000, "MS",
		 "burst 0 is this long after the kernel starts (default 10)"},
		{"dst-mac", 0, SAMPLE_FLAG_MAC, x.dst_mac, 0, 0, "MAC", "destination MAC (default ff:ff:ff:ff:ff:ff)"},
		{"src-ip", 0, SAMPLE_FLAG_IPV4, &x.src_ip, 0, 0, "ADDR", "source IPv4 address (default 10.0.0.1)"},
		{"dst-ip", 0, SAMPLE_FLAG_IPV4, &x.dst_ip, 0, 0, "ADDR", "destination IPv4 address (default 10.0.0.2)"},
	};
	s->name = "send_wait_time";
	int rc = sample_parse(argc, argv, s->name,
			      "Bursts of UDP frames (to port 9001) at a fixed interval, each frame a timed send\n"
			      "(gnio_gpu_dev_eth_txq_wait_send). Reports how late each burst left against its\n"
			      "requested time, and the spacing between bursts; on sw also where they arrive.",
			      1, extra, sizeof(extra) / sizeof(extra[0]), &s->o);
	if (rc >= 0)
		return rc;
	if (s->o.scope != SAMPLE_SCOPE_BLOCK && x.burst > 32) {
		fprintf(stderr, "gnio_send_wait_time: --burst %llu: at most 32 with -e %s\n", (unsigned long long)x.burst,
			sample_scope_name(s->o.scope));
		return SAMPLE_EXIT_USAGE;
	}
	x.wire.seen_ns = calloc(MAX_SAMPLES, sizeof(uint64_t));
	x.peer.seen_ns = calloc(MAX_SAMPLES, sizeof(uint64_t));
	if (!x.wire.seen_ns || !x.peer.seen_ns)
		return SAMPLE_EXIT_ENV;

	struct gnio_pipeline_cfg pc;
	gnio_pipeline_cfg_init(&pc, NULL, NULL);
	if (gnio_pe_create(&s->pe) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio_send_wait_time: progress engine: %s\n", gnio_last_error_msg());
		return SAMPLE_EXIT_ENV;
	}
	pc.tx = 1;
	pc.tx_only = 1;
	pc.tx_pool = 1;
	pc.pe = s->pe;
	pc.tx_notify_cb = on_notify;
	pc.tx_error_cb = on_send_error;
	pc.tx_event_user = &x;
	pc.user_mem = sizeof(struct swt_stats);
	rc = sample_up(s, &pc);
	if (rc != SAMPLE_EXIT_OK)
		return sample_abort(s, rc);
	x.stats = s->q.user_mem_cpu;
	memset(x.stats, 0, sizeof(*x.stats));
	struct gnio_gpu_buf_arr *frames = NULL;
	if (gnio_buf_arr_get_gpu_handle(s->q.tx_pool, &frames) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio_send_wait_time: TX pool handle: %s\n", gnio_last_error_msg());
		return sample_abort(s, SAMPLE_EXIT_FAIL);
	}
	x.args = (struct swt_args){
		.txq = s->q.txh, .frames = frames, .stats = s->q.user_mem_gpu, .bursts = x.bursts,
		.burst = (uint32_t)x.burst, .interval_ns = x.interval_us * 1000, .lead_ns = x.lead_ms * 1000000,
		.scope = s->o.scope,
	};
	struct swt_frame_cfg *fc = &x.args.frame;
	memcpy(fc->dst_mac, x.dst_mac, 6);
	sample_wire_mac(s->dev, fc->src_mac);
	fc->src_ip = x.src_ip;
	fc->dst_ip = x.dst_ip;
	fc->size = (uint32_t)x.size;
	if (s->o.is_sw)
		sample_peer_rx_start(&s->peer, peer_rx, &x);
	sample_on_signals();
	rc = sample_launch(s, send_wait_time_cpu, SWT_CUDA, &x.args);
	if (rc != SAMPLE_EXIT_OK)
		return sample_abort(s, rc);
	sample_wait(s, NULL, tick, &x);

	rc = sample_stop_kernel(s);
	if (rc != SAMPLE_EXIT_OK)
		return rc; /* failed closed */
	x.fin = *x.stats;
	x.start_ns = x.fin.start_ns;
	sample_tx_drain(s, x.fin.frames);
	wait_events(&x, x.fin.bursts - x.fin.unsent);
	uint64_t lost = gnio_pe_get_lost_events(s->pe);
	struct sample_books b;
	rc = sample_down(s, &b);

	const struct swt_stats *k = &x.fin;
	struct timing_sum ws, ps;
	summarize(&x, &x.wire, k->bursts, &ws);
	summarize(&x, &x.peer, k->bursts, &ps);
	int sent_ok = b.tx.tx_packets + b.tx.tx_errors == k->frames;
	/* One event per burst whose first frame went out (a burst cut short
	 * by the stop may have sent it). */
	int events_ok = x.events + lost >= k->bursts && x.events + lost <= k->bursts + k->unsent;
	int peer_ok = !s->o.is_sw || (x.peer_frames == b.tx.tx_packets && !x.peer_bad && !x.peer.early);
	/* The first check that failed, said in the summary and the JSON. */
	const char *why = !sent_ok ? "the wire did not take every frame the kernel queued"
			  : !events_ok ? "completion events do not match the bursts sent"
			  : !peer_ok   ? "the sw peer did not get every frame as built and on time"
			  : x.wire.early ? "a frame left before its requested time"
			  : k->errors  ? "the kernel's sends failed"
				       : NULL;
	if (rc == SAMPLE_EXIT_OK && why)
		rc = SAMPLE_EXIT_FAIL;

	if (s->o.json) {
		sample_json_begin(s, &b);
		sample_json_u64("bursts", k->bursts);
		sample_json_u64("burst", x.burst);
		sample_json_u64("interval_us", x.interval_us);
		sample_json_u64("frames", k->frames);
		sample_json_u64("again", k->again);
		sample_json_u64("unsent_bursts", k->unsent);
		sample_json_u64("errors", k->errors);
		sample_json_u64("completion_events", x.events);
		sample_json_u64("lost_events", lost);
		sample_json_u64("early", x.wire.early);
		json_timing("wire", &ws);
		if (s->o.is_sw) {
			sample_json_u64("peer_frames", x.peer_frames);
			sample_json_u64("peer_bad", x.peer_bad);
			sample_json_u64("peer_early", x.peer.early);
			json_timing("peer", &ps);
		}
		if (why) {
			sample_json_str("failed", why);
			fprintf(stderr, "gnio_send_wait_time: FAILED: %s\n", why);
		}
		sample_json_bool("ok", rc == SAMPLE_EXIT_OK);
		sample_json_end();
	} else {
		fprintf(stderr, "gnio_send_wait_time summary\n");
		sample_print_books(s, &b);
		fprintf(stderr, "  %-16s %llu bursts of %llu (%llu frames) every %llu us, %s scope; ring full %llu times\n",
			"kernel", (unsigned long long)k->bursts, (unsigned long long)x.burst,
			(unsigned long long)k->frames, (unsigned long long)x.interval_us, sample_scope_name(s->o.scope),
			(unsigned long long)k->again);
		fprintf(stderr, "  %-16s %llu sent by the wire, %llu errors; %llu completion events (%llu lost)\n", "tx",
			(unsigned long long)b.tx.tx_packets, (unsigned long long)b.tx.tx_errors,
			(unsigned long long)x.events, (unsigned long long)lost);
		print_timing("hand-off", &ws, x.interval_us);
		if (s->o.is_sw) {
			fprintf(stderr, "  %-16s %llu frames, %llu not as built, %llu early\n", "sw peer",
				(unsigned long long)x.peer_frames, (unsigned long long)x.peer_bad,
				(unsigned long long)x.peer.early);
			print_timing("arrival", &ps, x.interval_us);
		}
		fprintf(stderr, "  %-16s %s%s\n", "result",
			rc == SAMPLE_EXIT_OK ? "every frame sent, none before its time" : "FAILED: ", why ? why : "");
	}
	free(x.wire.seen_ns);
	free(x.peer.seen_ns);
	return rc;
}
