/* SPDX-License-Identifier: MIT */
/* samples/common/sample_run.c - a sample's life on the host: bring-up
 * through gnio_pipeline, launch, wait, drain, stop, books, rollback. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sample.h"

#define STOP_DEADLINE_MS 5000u
#define DRAIN_TIMEOUT_S 5.0

volatile sig_atomic_t sample_stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	sample_stop_requested = 1;
}

void sample_on_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

double sample_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sample_sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The exit code for a library error, as the gnio CLI maps them. */
static int exit_for(gnio_error_t err)
{
	switch (err) {
	case GNIO_SUCCESS: return SAMPLE_EXIT_OK;
	case GNIO_ERROR_INVALID_VALUE: return SAMPLE_EXIT_USAGE;
	case GNIO_ERROR_NOT_FOUND:
	case GNIO_ERROR_NOT_PERMITTED:
	case GNIO_ERROR_NOT_SUPPORTED:
	case GNIO_ERROR_NO_MEMORY:
	case GNIO_ERROR_IN_USE:
	case GNIO_ERROR_DRIVER:
	case GNIO_ERROR_BAD_STATE: return SAMPLE_EXIT_ENV;
	default: return SAMPLE_EXIT_FAIL;
	}
}

void sample_note_device(struct sample *s)
{
	snprintf(s->dev_id, sizeof(s->dev_id), "%s", gnio_gpu_get_bus_id(s->gpu));
	snprintf(s->dev_name, sizeof(s->dev_name), "%s", gnio_gpu_get_name(s->gpu));
}

int sample_up(struct sample *s, struct gnio_pipeline_cfg *pc)
{
	pc->wire = s->o.nic;
	pc->gpu = s->o.gpu;
	gnio_error_t err = gnio_pipeline_create(pc, &s->pl);
	if (err) {
		/* The message names the failing step and the reason. */
		fprintf(stderr, "gnio_%s: %s (%s)\n", s->name, gnio_last_error_msg(), gnio_error_get_name(err));
		return exit_for(err);
	}
	s->gpu = gnio_pipeline_get_gpu(s->pl);
	s->dev = gnio_pipeline_get_dev(s->pl);
	s->on_cpu = gnio_gpu_is_cpu(s->gpu);
	sample_note_device(s);
	gnio_pipeline_get_queue(s->pl, 0, &s->q);
	if (s->o.is_sw && (err = sample_peer_open(&s->peer, s->dev)) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio_%s: sw peer: %s (%s)\n", s->name, gnio_last_error_msg(), gnio_error_get_name(err));
		return exit_for(err);
	}
	const char *why = gnio_pipeline_get_device_reason(s->pl);
	fprintf(stderr, "gnio_%s: device %s (%s)%s%s\n", s->name, s->dev_id, s->dev_name, why[0] ? ": " : "", why);
	return SAMPLE_EXIT_OK;
}

int sample_launch(struct sample *s, gnio_runner_launch_fn cpu_fn, gnio_runner_launch_fn cuda_fn, void *args)
{
	gnio_runner_launch_fn fn = s->on_cpu ? cpu_fn : cuda_fn;
	if (!fn) {
		fprintf(stderr, "gnio_%s: this build has no CUDA kernel (built without CUDA): run it with -g cpu\n",
			s->name);
		return SAMPLE_EXIT_ENV;
	}
	gnio_error_t err = s->pl ? gnio_pipeline_launch(s->pl, 0, fn, args) : gnio_runner_start(s->q.runner, fn, args);
	if (err) {
		fprintf(stderr, "gnio_%s: kernel launch: %s (%s)\n", s->name, gnio_last_error_msg(),
			gnio_error_get_name(err));
		return exit_for(err);
	}
	s->t0 = sample_now();
	/* Tests and scripts wait for this line before they send. */
	fprintf(stderr, "gnio_%s: ready: %s kernel on %s%s\n", s->name, s->on_cpu ? "CPU-device" : "CUDA", s->o.nic,
		s->o.duration > 0 ? "" : " (until Ctrl-C)");
	return SAMPLE_EXIT_OK;
}

int sample_gen_start(struct sample *s, const struct gnio_gen_cfg *cfg)
{
	char why[160];
	if (gnio_gen_cfg_check(cfg, why, sizeof(why)) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio_%s: generator: %s\n", s->name, why);
		return SAMPLE_EXIT_USAGE;
	}
	gnio_error_t err = sample_peer_gen_start(&s->peer, cfg);
	if (err) {
		fprintf(stderr, "gnio_%s: generator: %s (%s)\n", s->name, gnio_last_error_msg(), gnio_error_get_name(err));
		return exit_for(err);
	}
	return SAMPLE_EXIT_OK;
}

void sample_wait(struct sample *s, int (*done)(void *user), void (*tick)(void *user, double t), void *user)
{
	double last_tick = s->t0;
	while (!sample_stop_requested) {
		sample_sleep_ms(10);
		if (s->pe)
			gnio_pe_progress(s->pe);
		double t = sample_now();
		if (s->o.duration > 0 && t - s->t0 >= s->o.duration)
			break;
		enum gnio_runner_state st = gnio_runner_get_state(s->q.runner);
		if (st != GNIO_RUNNER_RUNNING) {
			s->kernel_exited = 1;
			break;
		}
		if (done && done(user))
			break;
		if (tick && t - last_tick >= 1.0) {
			tick(user, t - s->t0);
			last_tick = t;
		}
	}
	if (s->pe)
		gnio_pe_progress(s->pe);
}

static void rx_stats(struct sample *s, struct gnio_eth_rxq_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (s->q.rxq)
		gnio_eth_rxq_get_stats(s->q.rxq, st);
}

void sample_quiesce(struct sample *s, uint64_t (*kernel_packets)(void *user), void *user)
{
	struct gnio_eth_rxq_stats st;
	double end;

	if (s->o.is_sw && s->peer.peer) {
		sample_peer_gen_stop(&s->peer);
		/* The wire hands the proxy what it holds. A burst the generator
		 * was building as it was detached still counts: read the
		 * offered total again each time. */
		for (end = sample_now() + 1.0; sample_now() < end; sample_sleep_ms(2)) {
			rx_stats(s, &st);
			if (!s->q.rxq || st.rx_packets + st.dropped_total >= sample_peer_offered(&s->peer))
				break;
		}
	}
	if (!s->q.rxq)
		return;
	if (s->pl) {
		gnio_pipeline_quiesce(s->pl, s->kernel_exited ? 0 : 5000);
	} else if (gnio_eth_rxq_quiesce(s->q.rxq) == GNIO_SUCCESS) {
		for (end = sample_now() + DRAIN_TIMEOUT_S; !s->kernel_exited && sample_now() < end; sample_sleep_ms(1)) {
			rx_stats(s, &st);
			if (st.released == st.rx_packets)
				break;
		}
	}
	if (s->o.is_sw && s->peer.peer) {
		/* The queue takes nothing more from the wire: what the peer
		 * offered is final. */
		s->offered_at_stop = sample_peer_offered(&s->peer);
		s->offered_known = 1;
	}
	if (!kernel_packets)
		return;
	/* The kernel's own count catches up with what it released. */
	for (end = sample_now() + DRAIN_TIMEOUT_S; !s->kernel_exited && sample_now() < end; sample_sleep_ms(1)) {
		rx_stats(s, &st);
		if (kernel_packets(user) >= st.rx_packets)
			break;
	}
}

int sample_stop_kernel(struct sample *s)
{
	gnio_error_t err = gnio_runner_stop(s->q.runner, STOP_DEADLINE_MS);
	enum gnio_runner_state st = gnio_runner_get_state(s->q.runner);
	if (st == GNIO_RUNNER_HUNG) {
		fprintf(stderr, "gnio_%s: the kernel did not stop within %u ms: failing closed, its memory stays "
			"allocated (%s)\n", s->name, STOP_DEADLINE_MS, gnio_last_error_msg());
		return SAMPLE_EXIT_FAIL;
	}
	if (err != GNIO_SUCCESS && err != GNIO_ERROR_BAD_STATE) {
		fprintf(stderr, "gnio_%s: the kernel ended with %s: %s\n", s->name, gnio_error_get_name(err),
			gnio_last_error_msg());
		s->kernel_failed = 1;
	}
	return SAMPLE_EXIT_OK;
}

void sample_tx_drain(struct sample *s, uint64_t sent)
{
	struct gnio_eth_txq_stats tx;
	double end;

	memset(&tx, 0, sizeof(tx));
	if (s->q.txq) {
		for (end = sample_now() + DRAIN_TIMEOUT_S; sample_now() < end; sample_sleep_ms(1)) {
			if (s->pe)
				gnio_pe_progress(s->pe);
			gnio_eth_txq_get_stats(s->q.txq, &tx);
			if (tx.tx_packets + tx.tx_errors >= sent)
				break;
		}
		if (s->pe)
			gnio_pe_progress(s->pe);
	}
	if (s->o.is_sw && s->peer.running) {
		for (end = sample_now() + DRAIN_TIMEOUT_S; sample_now() < end; sample_sleep_ms(1))
			if (sample_peer_received(&s->peer) >= tx.tx_packets)
				break;
		sample_peer_rx_stop(&s->peer);
	}
}

void sample_read_books(struct sample *s, struct sample_books *b)
{
	struct gnio_eth_rxq_stats st;
	memset(b, 0, sizeof(*b));
	rx_stats(s, &st);
	b->has_rx = s->q.rxq != NULL;
	b->rx_packets = st.rx_packets;
	b->dropped_total = st.dropped_total;
	b->released = st.released;
	memcpy(b->dropped, st.dropped, sizeof(b->dropped));
	if (s->q.txq) {
		b->has_tx = 1;
		gnio_eth_txq_get_stats(s->q.txq, &b->tx);
	}
	/* On sw the peer says what it put on the wire; elsewhere what the wire
	 * delivered is all there is to count. */
	if (s->o.is_sw && b->has_rx)
		b->offered = s->offered_known ? s->offered_at_stop : sample_peer_offered(&s->peer);
	else
		b->offered = b->rx_packets + b->dropped_total;
	b->balanced = b->offered == b->rx_packets + b->dropped_total;
}

struct rb_print {
	const struct sample *s;
};

static void rb_step(void *user, unsigned step, gnio_error_t err, const char *text)
{
	const struct rb_print *p = user;
	if (err && err != GNIO_ERROR_SKIPPED)
		fprintf(stderr, "gnio_%s: rollback %u/5: %s: %s\n", p->s->name, step, gnio_error_get_name(err), text);
	else if (!p->s->o.json)
		fprintf(stderr, "gnio_%s: rollback %u/5: %s\n", p->s->name, step, text);
}

int sample_down(struct sample *s, struct sample_books *b)
{
	struct rb_print p = {s};
	unsigned next = 0;
	memset(b, 0, sizeof(*b));
	if (!s->pl)
		return SAMPLE_EXIT_FAIL;
	gnio_error_t err = gnio_pipeline_rollback(s->pl, STOP_DEADLINE_MS, rb_step, &p);
	gnio_rollback_get_next_step(gnio_pipeline_get_rollback(s->pl), &next);
	if (next != GNIO_ROLLBACK_DONE) {
		fprintf(stderr, "gnio_%s: rollback stopped at step %u (%s); memory left allocated on purpose\n", s->name,
			next, gnio_error_get_name(err));
		return SAMPLE_EXIT_FAIL;
	}
	sample_read_books(s, b);
	sample_peer_close(&s->peer);
	if (gnio_pipeline_destroy(s->pl) == GNIO_SUCCESS) {
		s->pl = NULL;
		s->gpu = NULL; /* destroyed with the pipeline */
		s->dev = NULL;
	}
	if (s->pe && !s->pl) {
		gnio_pe_destroy(s->pe);
		s->pe = NULL;
	}
	return s->kernel_failed || !b->balanced ? SAMPLE_EXIT_FAIL : SAMPLE_EXIT_OK;
}

int sample_abort(struct sample *s, int rc)
{
	struct sample_books b;
	if (s->pl && sample_stop_kernel(s) == SAMPLE_EXIT_OK)
		sample_down(s, &b);
	sample_peer_close(&s->peer);
	return rc;
}

void sample_print_books(const struct sample *s, const struct sample_books *b)
{
	fprintf(stderr, "  %-16s %s\n", "wire", s->o.nic);
	fprintf(stderr, "  %-16s %s (%s)\n", "device", s->dev_id[0] ? s->dev_id : "?", s->dev_name[0] ? s->dev_name : "?");
	if (!b->has_rx)
		return;
	fprintf(stderr, "  %-16s %llu\n", "offered", (unsigned long long)b->offered);
	fprintf(stderr, "  %-16s %llu (handed to the kernel)\n", "rx_packets", (unsigned long long)b->rx_packets);
	fprintf(stderr, "  %-16s %llu", "dropped", (unsigned long long)b->dropped_total);
	for (int r = 0; r < GNIO_DROP_REASON_COUNT; r++)
		if (b->dropped[r])
			fprintf(stderr, " %s=%llu", gnio_drop_reason_name((enum gnio_drop_reason)r),
				(unsigned long long)b->dropped[r]);
	fprintf(stderr, "\n  %-16s %s\n", "books",
		b->balanced ? "offered == rx_packets + dropped" : "NOT balanced: offered != rx_packets + dropped");
}

void sample_wire_mac(struct gnio_dev *dev, uint8_t mac[6])
{
	static const uint8_t fallback[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
	const struct gnio_devinfo *di = gnio_dev_as_devinfo(dev);
	const char *kind = gnio_devinfo_get_wire(di);
	memcpy(mac, fallback, 6);
	if (strcmp(kind, "afxdp") && strcmp(kind, "afpacket"))
		return;
	char ifname[64], path[128];
	const char *name = gnio_devinfo_get_name(di);
	snprintf(ifname, sizeof(ifname), "%.*s", (int)strcspn(name, "@,"), name);
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifname);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	unsigned b[6];
	if (fscanf(f, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) == 6)
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)b[i];
	fclose(f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void sample_sort(double *v, unsigned n) { qsort(v, n, sizeof(*v), cmp_double); }

double sample_percentile(const double *sorted, unsigned n, double p)
{
	if (!n)
		return 0;
	unsigned i = (unsigned)(p / 100.0 * (n - 1) + 0.5);
	return sorted[i < n ? i : n - 1];
}
