/* SPDX-License-Identifier: MIT */
/* tools/gnio/run_live.c - `gnio run` while it runs: a live line every second,
 * the reasons to end early, and the sw peer's receiving end. */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "probe.h"
#include "run.h"

volatile sig_atomic_t run_stop_requested;
volatile sig_atomic_t run_reload_requested;

/* SIGHUP: the rules file again, in place of the rules in force, in one step
 * (gnio_flow_replace_file); a file that does not parse changes nothing. */
static void reload_rules(struct run_state *s, struct run_live *lv)
{
	struct gnio_flow *flow = gnio_pipeline_get_flow(s->pl);
	const char *path = s->o->flow_file;
	uint32_t n = 0;

	if (!flow || !path)
		return;
	if (gnio_flow_replace_file(flow, path) != GNIO_SUCCESS) {
		lv->reloads_refused++;
		fprintf(stderr, "gnio run: reload of %s refused, the rules in force stay: %s\n", path,
			gnio_last_error_msg());
		return;
	}
	gnio_flow_get_rule_count(flow, &n);
	fprintf(stderr, "gnio run: rules reloaded from %s: %u rule(s)\n", path, n);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static uint64_t ld(const uint64_t *p) { return gnio_load_acquire_u64(p); }

static void *drain_main(void *arg)
{
	struct run_drain *d = arg;
	uint8_t buf[16384];
	for (;;) {
		/* ACQUIRE(drain.stop): pairs with the RELEASE in run_drain_stop,
		 * which comes after the rollback stopped every TX proxy: the pass
		 * after it sees the stop empties the FIFOs of the last frames. */
		const int last = __atomic_load_n(&d->stop, __ATOMIC_ACQUIRE);
		unsigned got = 0;
		for (unsigned q = 0; q < d->nq; q++) {
			uint32_t len;
			while (gnio_sw_peer_recv(d->peer, (uint16_t)q, buf, sizeof(buf), &len, NULL) == GNIO_SUCCESS) {
				got++;
				__atomic_store_n(&d->received, d->received + 1, __ATOMIC_RELAXED);
			}
		}
		if (last)
			break;
		if (!got)
			sched_yield();
	}
	return NULL;
}

void run_drain_start(struct run_drain *d, struct gnio_sw_peer *peer, unsigned nq)
{
	d->peer = peer;
	d->nq = nq;
	d->stop = 0;
	d->running = pthread_create(&d->thread, NULL, drain_main, d) == 0;
}

void run_drain_stop(struct run_drain *d)
{
	if (!d->running)
		return;
	__atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
	pthread_join(d->thread, NULL);
	d->running = 0;
}

void run_sum_kernel(const struct run_state *s, uint64_t *pk, uint64_t *by)
{
	*pk = *by = 0;
	for (unsigned i = 0; i < s->nq; i++) {
		/* packets is stored last with release: read it first. */
		*pk += ld(&s->stats[i]->packets);
		*by += ld(&s->stats[i]->bytes);
	}
}

static uint64_t sum_heartbeat(const struct run_state *s)
{
	uint64_t hb = 0;
	for (unsigned i = 0; i < s->nq; i++)
		hb += gnio_runner_get_heartbeat(s->q[i].runner);
	return hb;
}

void run_sum_rx_stats(const struct run_state *s, struct gnio_eth_rxq_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned i = 0; i < s->nq; i++) {
		struct gnio_eth_rxq_stats one;
		if (gnio_eth_rxq_get_stats(s->q[i].rxq, &one) != GNIO_SUCCESS)
			continue;
		sum->rx_packets += one.rx_packets;
		sum->rx_bytes += one.rx_bytes;
		sum->released += one.released;
		for (int k = 0; k < GNIO_DROP_REASON_COUNT; k++)
			sum->dropped[k] += one.dropped[k];
		sum->dropped_total += one.dropped_total;
	}
}

uint64_t run_sum_offered(const struct run_state *s)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < s->nq; i++) {
		struct gnio_sw_peer_stats ps;
		if (gnio_sw_peer_get_stats(s->peer, (uint16_t)i, &ps) == GNIO_SUCCESS)
			n += ps.offered;
	}
	return n;
}

static int gen_all_done(const struct run_state *s)
{
	for (unsigned i = 0; i < s->nq; i++)
		if (!gnio_sw_peer_gen_done(s->peer, (uint16_t)i))
			return 0;
	return 1;
}

/* The kernel of a queue that is no longer running, or -1. */
static int failed_kernel(const struct run_state *s)
{
	for (unsigned i = 0; i < s->nq; i++)
		if (gnio_runner_get_state(s->q[i].runner) != GNIO_RUNNER_RUNNING)
			return (int)i;
	return -1;
}

/* One live line: rate since the last, kernel total, drops, heartbeat, and
 * the GPU's utilization from NVML (a persistent kernel keeps it high even
 * when idle, so the heartbeat is what tells alive from hung). */
static void live_line(const struct run_state *s, double since, double dt, uint64_t pk, uint64_t dpk,
		      uint64_t dby, int alive, int *nvml_ok)
{
	struct gnio_eth_rxq_stats rst;
	run_sum_rx_stats(s, &rst);
	char util[32] = "";
	unsigned pct;
	char nvwhy[PROBE_REASON];
	if (!s->on_cpu && *nvml_ok && probe_nvml_utilization(s->dev_id, &pct, nvwhy, sizeof(nvwhy)) == 0)
		snprintf(util, sizeof(util), " | GPU %u%%", pct);
	else
		*nvml_ok = 0;
	fprintf(stderr, "[%5.1fs] %9.3f Mpps %8.3f Gbit/s | kernel %llu pkts | dropped %llu | heartbeat %s%s\n", since,
		(double)dpk / dt / 1e6, (double)dby * 8 / dt / 1e9, (unsigned long long)pk,
		(unsigned long long)rst.dropped_total, alive ? "alive" : "STALLED", util);
}

void run_live_loop(struct run_state *s, struct run_live *lv)
{
	const struct run_opts *o = s->o;
	int nvml_ok = 1, warned_idle = 0;
	double last_t, idle_since;
	uint64_t last_pk = 0, last_by = 0, last_hb = sum_heartbeat(s);

	lv->t0 = last_t = idle_since = now_s();
	while (!run_stop_requested) {
		nap_ms(100);
		if (run_reload_requested) {
			run_reload_requested = 0;
			reload_rules(s, lv);
		}
		double t = now_s();
		if (o->duration > 0 && t - lv->t0 >= o->duration)
			break;
		run_metrics_observe(s);
		uint64_t pk, by;
		run_sum_kernel(s, &pk, &by);
		if (s->peer && o->count && gen_all_done(s) && pk >= o->count * s->nq)
			break;
		int bad = failed_kernel(s);
		if (bad >= 0) {
			fprintf(stderr, "gnio run: kernel of queue %d %s early (last error %s)\n", bad,
				gnio_runner_state_name(gnio_runner_get_state(s->q[bad].runner)),
				gnio_error_get_name((gnio_error_t)ld(&s->stats[bad]->last_error)));
			lv->kernel_failed = 1;
			break;
		}
		if (t - last_t < 1.0)
			continue;
		/* Once a second: a deleted or downed interface, a broken capture. */
		gnio_error_t werr = GNIO_SUCCESS;
		char wmsg[256] = "";
		if (gnio_dev_get_wire_error(gnio_pipeline_get_dev(s->pl), &werr, wmsg, sizeof(wmsg)) == GNIO_SUCCESS &&
		    werr != GNIO_SUCCESS) {
			fprintf(stderr, "gnio run: the wire failed: %s (%s); stopping\n", wmsg, gnio_error_get_name(werr));
			lv->wire_failed = 1;
			snprintf(lv->wire_error, sizeof(lv->wire_error), "%s", wmsg);
			break;
		}
		if (lv->t_warm == 0) {
			lv->t_warm = t;
			lv->pk_warm = pk;
			lv->by_warm = by;
		}
		uint64_t hb = sum_heartbeat(s);
		if (pk != last_pk)
			idle_since = t;
		if (!o->quiet)
			live_line(s, t - lv->t0, t - last_t, pk, pk - last_pk, by - last_by, hb != last_hb, &nvml_ok);
		if (!warned_idle && t - idle_since >= 3.0 && hb != last_hb) {
			fprintf(stderr, "gnio: kernel alive and polling, no packets for %.0f s: is the peer sending?\n",
				t - idle_since);
			warned_idle = 1;
		}
		last_t = t;
		last_pk = pk;
		last_by = by;
		last_hb = hb;
	}
	lv->t_end = now_s();
	lv->stop_requested = run_stop_requested;
	run_sum_kernel(s, &lv->measured, &lv->measured_bytes);
}
