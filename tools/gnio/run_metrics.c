/* SPDX-License-Identifier: MIT */
/* tools/gnio/run_metrics.c - `gnio run --metrics`: the pipeline's counters
 * as Prometheus metrics (docs/metrics.md lists them). Each scrape runs
 * collect() once on the endpoint's thread; it reads counters the library
 * keeps anyway (gnio_eth_rxq_get_stats, gnio_eth_txq_get_stats,
 * gnio_runner_get_heartbeat), so nothing on the packet path knows about it. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "probe.h"
#include "run.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void run_read_counters(const struct run_state *s, struct run_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->nq = s->nq;
	for (unsigned i = 0; i < s->nq; i++) {
		gnio_eth_rxq_get_stats(s->q[i].rxq, &c->rx[i]);
		c->has_tx[i] = s->q[i].txq && gnio_eth_txq_get_stats(s->q[i].txq, &c->tx[i]) == GNIO_SUCCESS;
	}
}

static const char *wire_kinds(void)
{
	return "sw,null"
#ifdef GNIO_HAVE_AFXDP
	       ",afxdp"
#endif
#ifdef GNIO_HAVE_AFPACKET
	       ",afpacket"
#endif
#ifdef GNIO_HAVE_PCAP
	       ",pcap"
#endif
		;
}

static void write_build_info(struct metrics_writer *w)
{
	metrics_family(w, "gnio_build_info", METRICS_GAUGE,
		       "Always 1: the gnio version, whether the CUDA backend is built in, the wire kinds built in.");
	metrics_u64(w, 1, METRICS_LABELS({"version", gnio_version()}, {"cuda", gnio_built_with_cuda() ? "yes" : "no"},
					 {"wires", wire_kinds()}));
}

/* One counter per queue; value picks it out of the queue's counters. */
typedef uint64_t (*rx_field_fn)(const struct gnio_eth_rxq_stats *st);
typedef uint64_t (*tx_field_fn)(const struct gnio_eth_txq_stats *st);
static uint64_t rx_packets(const struct gnio_eth_rxq_stats *st) { return st->rx_packets; }
static uint64_t rx_bytes(const struct gnio_eth_rxq_stats *st) { return st->rx_bytes; }
static uint64_t tx_packets(const struct gnio_eth_txq_stats *st) { return st->tx_packets; }
static uint64_t tx_errors(const struct gnio_eth_txq_stats *st) { return st->tx_errors; }
static uint64_t tx_in_place(const struct gnio_eth_txq_stats *st) { return st->tx_in_place; }
static uint64_t tx_copies(const struct gnio_eth_txq_stats *st) { return st->tx_copies; }

static void write_counters(struct metrics_writer *w, const struct run_state *s, const struct run_counters *c)
{
	static const struct {
		const char *name, *help;
		rx_field_fn rx;
		tx_field_fn tx;
	} per_queue[] = {
		{"gnio_rx_packets_total", "Frames handed to the kernel.", rx_packets, NULL},
		{"gnio_rx_bytes_total", "Bytes of the frames handed to the kernel.", rx_bytes, NULL},
		{"gnio_tx_packets_total", "Frames the kernel sent that the wire took (TX completions).", NULL,
		 tx_packets},
		{"gnio_tx_errors_total", "Send descriptors that could not be sent.", NULL, tx_errors},
		{"gnio_tx_in_place_total", "Frames sent from their RX buffer, without a copy.", NULL, tx_in_place},
		{"gnio_tx_copies_total", "Frames gnio copied before the wire took them.", NULL, tx_copies},
	};
	const char *wire = s->o->wire;
	char qs[RUN_MAX_QUEUES][12];
	int any_tx = 0;
	for (unsigned q = 0; q < c->nq; q++) {
		snprintf(qs[q], sizeof(qs[q]), "%u", q);
		any_tx |= c->has_tx[q];
	}
	for (size_t f = 0; f < sizeof(per_queue) / sizeof(per_queue[0]); f++) {
		if (per_queue[f].tx && !any_tx)
			continue; /* no TX queue in this run: no TX series */
		metrics_family(w, per_queue[f].name, METRICS_COUNTER, per_queue[f].help);
		for (unsigned q = 0; q < c->nq; q++) {
			if (per_queue[f].tx && !c->has_tx[q])
				continue;
			uint64_t v = per_queue[f].rx ? per_queue[f].rx(&c->rx[q]) : per_queue[f].tx(&c->tx[q]);
			metrics_u64(w, v, METRICS_LABELS({"queue", qs[q]}, {"wire", wire}));
		}
	}
	metrics_family(w, "gnio_rx_dropped_total", METRICS_COUNTER,
		       "Frames the wire delivered that were dropped, by reason (every reason, zeros included).");
	for (unsigned q = 0; q < c->nq; q++)
		for (int k = 0; k < GNIO_DROP_REASON_COUNT; k++)
			metrics_u64(w, c->rx[q].dropped[k],
				    METRICS_LABELS({"queue", qs[q]}, {"wire", wire}, {"reason", gnio_drop_reason_name(k)}));
}

/* Seconds since the live loop last saw each kernel's heartbeat move; 0 when
 * it moved since that look. */
static void write_heartbeats(struct metrics_writer *w, struct run_state *s)
{
	uint64_t now = mono_ns();
	metrics_family(w, "gnio_kernel_heartbeat_age_seconds", METRICS_GAUGE,
		       "Seconds since the kernel's heartbeat was last seen to move (a stalled kernel grows it).");
	for (unsigned q = 0; q < s->nq; q++) {
		char qs[12];
		snprintf(qs, sizeof(qs), "%u", q);
		uint64_t seen = __atomic_load_n(&s->met.hb[q], __ATOMIC_ACQUIRE); /* pairs with observe()'s release */
		uint64_t moved = __atomic_load_n(&s->met.hb_moved_ns[q], __ATOMIC_RELAXED);
		double age = gnio_runner_get_heartbeat(s->q[q].runner) != seen || now < moved ? 0
											      : (double)(now - moved) / 1e9;
		metrics_dbl(w, age, METRICS_LABELS({"queue", qs}, {"gpu", s->dev_id}));
	}
}

static void collect(struct metrics_writer *w, void *user)
{
	struct run_state *s = user;
	pthread_mutex_lock(&s->met.lock);
	write_build_info(w);
	if (s->met.phase == RUN_METRICS_LIVE) {
		struct run_counters live;
		run_read_counters(s, &live);
		write_counters(w, s, &live);
		write_heartbeats(w, s);
	} else if (s->met.phase == RUN_METRICS_FROZEN) {
		write_counters(w, s, &s->met.frozen); /* the kernels are gone: no heartbeat */
	}
	unsigned pct;
	char why[PROBE_REASON];
	/* NVML's utilization; on the CPU device, or without NVML, no series
	 * rather than a made-up number. */
	if (s->met.phase != RUN_METRICS_STARTING && !s->on_cpu &&
	    probe_nvml_utilization(s->dev_id, &pct, why, sizeof(why)) == 0) {
		metrics_family(w, "gnio_gpu_utilization_ratio", METRICS_GAUGE,
			       "Fraction of the last sample period the GPU was busy (NVML).");
		metrics_dbl(w, pct / 100.0, METRICS_LABELS({"gpu", s->dev_id}));
	}
	pthread_mutex_unlock(&s->met.lock);
}

int run_metrics_start(struct run_state *s)
{
	const struct run_opts *o = s->o;
	if (!o->metrics)
		return GNIO_EXIT_OK;
	pthread_mutex_init(&s->met.lock, NULL);
	s->met.phase = RUN_METRICS_STARTING;
	gnio_error_t err = metrics_server_start(o->metrics, collect, s, &s->met.srv);
	if (err) {
		char where[320];
		fprintf(stderr, "gnio run: %s: %s\n", run_opt_where(o, RUN_OPT_METRICS, where, sizeof(where)),
			metrics_last_error());
		pthread_mutex_destroy(&s->met.lock);
		s->met.srv = NULL;
		return err == GNIO_ERROR_INVALID_VALUE ? GNIO_EXIT_USAGE : gnio_cli_exit(err);
	}
	if (!o->quiet)
		fprintf(stderr, "gnio: metrics at http://%s/metrics\n", metrics_server_address(s->met.srv));
	return GNIO_EXIT_OK;
}

void run_metrics_live(struct run_state *s)
{
	if (!s->met.srv)
		return;
	uint64_t now = mono_ns();
	pthread_mutex_lock(&s->met.lock);
	for (unsigned q = 0; q < s->nq; q++) {
		s->met.hb[q] = gnio_runner_get_heartbeat(s->q[q].runner);
		s->met.hb_moved_ns[q] = now;
	}
	s->met.phase = RUN_METRICS_LIVE;
	pthread_mutex_unlock(&s->met.lock);
}

void run_metrics_observe(struct run_state *s)
{
	if (!s->met.srv)
		return;
	uint64_t now = mono_ns();
	for (unsigned q = 0; q < s->nq; q++) {
		uint64_t hb = gnio_runner_get_heartbeat(s->q[q].runner);
		if (hb != __atomic_load_n(&s->met.hb[q], __ATOMIC_RELAXED)) {
			/* moved_ns first: a scrape that sees the new count also
			 * sees a time no older than this look. */
			__atomic_store_n(&s->met.hb_moved_ns[q], now, __ATOMIC_RELAXED);
			__atomic_store_n(&s->met.hb[q], hb, __ATOMIC_RELEASE);
		}
	}
}

void run_metrics_freeze(struct run_state *s, const struct run_counters *c)
{
	if (!s->met.srv)
		return;
	struct run_counters now;
	if (!c) {
		run_read_counters(s, &now);
		c = &now;
	}
	pthread_mutex_lock(&s->met.lock);
	s->met.frozen = *c;
	s->met.phase = RUN_METRICS_FROZEN;
	pthread_mutex_unlock(&s->met.lock);
}

void run_metrics_stop(struct run_state *s, int hold)
{
	if (!s->met.srv)
		return;
	const struct run_opts *o = s->o;
	if (hold && o->metrics_hold > 0) {
		if (!o->quiet)
			fprintf(stderr, "gnio: serving the final counters at http://%s/metrics for %g s\n",
				metrics_server_address(s->met.srv), o->metrics_hold);
		run_stop_requested = 0; /* from here a signal ends the hold */
		uint64_t end = mono_ns() + (uint64_t)(o->metrics_hold * 1e9);
		while (!run_stop_requested && mono_ns() < end) {
			struct timespec ts = {0, 50 * 1000000L};
			nanosleep(&ts, NULL);
		}
	}
	metrics_server_stop(s->met.srv);
	s->met.srv = NULL;
	pthread_mutex_destroy(&s->met.lock);
}
