/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_run.c - `gnio run`: the main job. Opens a wire (default: the
 * software wire with its built-in generator) and the best device present
 * through the library's one bring-up path (gnio_pipeline_create), launches a
 * built-in app as a persistent kernel per queue, runs the live loop
 * (run_live.c), then quiesces, walks the rollback step by step and reports
 * (run_report.c). Options: run_opts.c and the config file (config.c);
 * the Prometheus endpoint: run_metrics.c.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "run.h"

static void on_signal(int sig)
{
	(void)sig;
	run_stop_requested = 1;
}

static void on_hup(int sig)
{
	(void)sig;
	run_reload_requested = 1;
}

static void step_log(int quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step_log(int quiet, const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gnio: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void nap_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The bring-up step that failed, for the one line a failure prints. */
struct up_rec {
	char step[96];
	const char *layer;
};

static void up_step(void *user, const char *step, gnio_error_t err, const char *layer, const char *detail)
{
	(void)detail;
	struct up_rec *r = user;
	if (err && !r->step[0]) {
		snprintf(r->step, sizeof(r->step), "%s", step);
		r->layer = layer;
	}
}

static int bring_up(struct run_state *s, const struct run_opts *o)
{
	struct gnio_pipeline_cfg pc;
	struct up_rec rec = {{0}, NULL};
	gnio_pipeline_cfg_init(&pc, o->wire_spec, o->gpu);
	pc.queues = o->queues;
	pc.ring = run_opts_ring(o);
	pc.burst = run_opts_burst(o);
	pc.slot = o->size > 2048 ? (o->size + 63) / 64 * 64 : 2048;
	pc.rx_mem = o->rx_mem;
	pc.flow_control = o->flow_control;
	pc.inline_header = o->inline_header;
	pc.poll_mode = o->poll;
	pc.tx = o->app->needs_tx;
	pc.tx_in_place = o->app->tx_in_place;
	pc.tx_pool = o->app->needs_tx_pool;
	pc.user_mem = sizeof(struct gnio_app_stats);
	pc.flow_file = o->flow_file;
	pc.flow_rules = o->flow_text;
	pc.rss = o->rss;
	pc.proxy_cpus = o->ncpus ? o->cpu_list : NULL;
	pc.num_proxy_cpus = o->ncpus;
	pc.step_cb = up_step;
	pc.step_user = &rec;
	gnio_error_t err = gnio_pipeline_create(&pc, &s->pl);
	if (err) {
		int wire = !strcmp(rec.step, "open the wire");
		int gpu = !strncmp(rec.step, "create the device", 17) || !strncmp(rec.step, "pick the", 8);
		char where[320];
		if (wire || gpu)
			fprintf(stderr, "gnio run: %s %s: %s (%s)\n",
				run_opt_where(o, wire ? RUN_OPT_WIRE : RUN_OPT_GPU, where, sizeof(where)),
				wire ? o->wire : (o->gpu ? o->gpu : "best"), gnio_last_error_msg(), gnio_error_get_name(err));
		else
			fprintf(stderr, "gnio run: %s (%s)\n", gnio_last_error_msg(), gnio_error_get_name(err));
		return gnio_cli_exit(err);
	}
	struct gnio_gpu *gpu = gnio_pipeline_get_gpu(s->pl);
	s->nq = gnio_pipeline_get_num_queues(s->pl);
	s->on_cpu = gnio_gpu_is_cpu(gpu);
	s->ngpu = gnio_pipeline_get_num_gpus(s->pl);
	for (unsigned i = 0; i < s->nq; i++)
		snprintf(s->qdev[i], sizeof(s->qdev[i]), "%s", gnio_gpu_get_bus_id(gnio_pipeline_get_queue_gpu(s->pl, i)));
	snprintf(s->dev_id, sizeof(s->dev_id), "%s", gnio_gpu_get_bus_id(gpu));
	snprintf(s->dev_name, sizeof(s->dev_name), "%s", gnio_gpu_get_name(gpu));
	s->kernel = gnio_app_launcher(o->app, s->on_cpu);
	if (!s->kernel) {
		fprintf(stderr, "gnio run: app %s has no %s kernel in this build\n", o->app->name,
			s->on_cpu ? "CPU" : "CUDA");
		return GNIO_EXIT_ENV;
	}
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	gnio_devinfo_get_caps(gnio_dev_as_devinfo(gnio_pipeline_get_dev(s->pl)), &caps);
	snprintf(s->tx_path, sizeof(s->tx_path), "%s", caps.tx_path);
	if (o->is_sw && caps.max_frame_size && o->size > caps.max_frame_size) {
		char where[320];
		fprintf(stderr, "gnio run: %s %u exceeds the wire's maximum frame of %u bytes\n",
			run_opt_where(o, RUN_OPT_SIZE, where, sizeof(where)), o->size, caps.max_frame_size);
		return GNIO_EXIT_USAGE;
	}
	for (unsigned i = 0; i < s->nq; i++) {
		gnio_pipeline_get_queue(s->pl, i, &s->q[i]);
		s->stats[i] = s->q[i].user_mem_cpu;
		s->args[i] = (struct gnio_app_args){
			.rxq = s->q[i].rxh, .txq = s->q[i].txh, .stats = s->q[i].user_mem_gpu,
			.max_batch = o->batch, .timeout_ns = 200000, .blocks = 1, .threads = o->threads,
			.recv_scope = o->recv_scope, .send_scope = o->send_scope, .hold_ns = o->hold_us * 1000,
			.watchers = o->watchers,
		};
	}
	/* Say which device and why only once the wire is known good, so that a
	 * bad --wire fails with exactly one line on stderr. */
	if (!o->quiet) {
		const char *why = gnio_pipeline_get_device_reason(s->pl);
		if (s->ngpu > 1) {
			fprintf(stderr, "gnio: %u devices, queue i on the (i %% %u)-th:", s->ngpu, s->ngpu);
			for (unsigned k = 0; k < s->ngpu; k++)
				fprintf(stderr, " %s", s->qdev[k]);
			fprintf(stderr, " (%s)\n", s->dev_name);
		} else {
			fprintf(stderr, "gnio: device %s (%s)%s%s\n", s->dev_id, s->dev_name, why[0] ? ": " : "", why);
		}
	}
	return GNIO_EXIT_OK;
}

static int launch(struct run_state *s, const struct run_opts *o)
{
	for (unsigned i = 0; i < s->nq; i++) {
		gnio_error_t err = gnio_pipeline_launch(s->pl, i, s->kernel, &s->args[i]);
		if (err) {
			fprintf(stderr, "gnio run: kernel launch: %s (%s)\n", gnio_last_error_msg(), gnio_error_get_name(err));
			return gnio_cli_exit(err);
		}
	}
	if (o->is_sw) {
		char name[192];
		const char *spec = gnio_devinfo_get_name(gnio_dev_as_devinfo(gnio_pipeline_get_dev(s->pl)));
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(spec, ","), spec);
		gnio_error_t err = gnio_sw_peer_open(name, &s->peer);
		for (unsigned i = 0; !err && i < s->nq; i++)
			err = gnio_sw_peer_gen_attach(s->peer, (uint16_t)i, &o->gen);
		if (err) {
			fprintf(stderr, "gnio run: sw generator: %s (%s)\n", gnio_last_error_msg(), gnio_error_get_name(err));
			return gnio_cli_exit(err);
		}
		if (o->app->needs_tx)
			run_drain_start(&s->drain, s->peer, s->nq);
	}
	if (!o->quiet)
		fprintf(stderr, "gnio: %s%s on %s, app %s, %u-byte %s frames%s, %u queue%s, %s\n",
			s->on_cpu ? "CPU kernel" : "CUDA kernel", s->nq > 1 ? "s" : "", o->wire, o->app->name, o->size,
			gnio_gen_proto_name(o->gen.proto), o->is_sw ? "" : " (from the wire)", s->nq,
			s->nq > 1 ? "s" : "", o->duration > 0 ? "running" : "running until Ctrl-C");
	return GNIO_EXIT_OK;
}

/* Stop offering, let the wire hand over what it holds and the kernels
 * consume everything in the rings, so the books close exactly. */
static void quiesce(struct run_state *s, const struct run_live *lv)
{
	struct gnio_eth_rxq_stats rst;
	if (s->peer) {
		for (unsigned i = 0; i < s->nq; i++)
			gnio_sw_peer_gen_detach(s->peer, (uint16_t)i);
		for (int i = 0; i < 200; i++) {
			run_sum_rx_stats(s, &rst);
			if (rst.rx_packets + rst.dropped_total >= run_sum_offered(s))
				break;
			nap_ms(5);
		}
	}
	gnio_pipeline_quiesce(s->pl, lv->kernel_failed ? 0 : 5000);
	for (int i = 0; i < 500 && !lv->kernel_failed; i++) {
		uint64_t pk, by;
		run_sum_rx_stats(s, &rst);
		run_sum_kernel(s, &pk, &by);
		if (pk == rst.rx_packets)
			break;
		nap_ms(10);
	}
}

/* The rollback reports each step here. At step 1 the kernels are done and
 * their memory still allocated: copy the final counters out. */
struct run_rb {
	struct run_state *s;
	int quiet;
	struct run_result *r;
	int copied; /* the kernels' counters are out */
};

static void run_rb_step(void *user, unsigned step, gnio_error_t err, const char *text)
{
	struct run_rb *rb = user;
	/* Several GPUs: every kernel has stopped before the first GPU's step
	 * 1, and each GPU's step 4 frees its queues' counters, so copy them
	 * all then, once; a later GPU's step 1 would read freed memory. */
	if (step == 1 && err != GNIO_ERROR_TIME_OUT && !rb->copied) {
		for (unsigned i = 0; i < rb->s->nq; i++)
			rb->r->qks[i] = *rb->s->stats[i];
		rb->copied = 1;
	}
	if (err && err != GNIO_ERROR_SKIPPED)
		step_log(0, "rollback %u/5: %s: %s", step, gnio_error_get_name(err), text);
	else
		step_log(rb->quiet, "rollback %u/5: %s", step, text);
}

static void collect(struct run_state *s, struct run_result *r)
{
	memset(&r->ks, 0, sizeof(r->ks));
	for (unsigned i = 0; i < s->nq; i++) {
		const struct gnio_app_stats *k = &r->qks[i];
		r->ks.packets += k->packets;
		r->ks.bytes += k->bytes;
		r->ks.errors += k->errors;
		r->ks.tx_packets += k->tx_packets;
		r->ks.tx_again += k->tx_again;
		r->ks.digest ^= k->digest;
		r->ks.verify_fail += k->verify_fail;
		r->ks.seq_gap += k->seq_gap;
		r->ks.seq_reorder += k->seq_reorder;
		r->ks.changed_in_hold += k->changed_in_hold;
		for (int p = 0; p < GNIO_PROTO_COUNT; p++)
			r->ks.proto[p] += k->proto[p];
	}
	memset(&r->rx, 0, sizeof(r->rx));
	memset(&r->tx, 0, sizeof(r->tx));
	run_read_counters(s, &r->fin);
	struct gnio_flow *flow = gnio_pipeline_get_flow(s->pl);
	r->has_flow = flow != NULL;
	if (flow)
		flowreport_take(&r->flow, flow);
	for (unsigned i = 0; i < s->nq; i++) {
		const struct gnio_eth_rxq_stats *q = &r->fin.rx[i];
		r->rx.rx_packets += q->rx_packets;
		r->rx.rx_bytes += q->rx_bytes;
		r->rx.released += q->released;
		for (int k = 0; k < GNIO_DROP_REASON_COUNT; k++)
			r->rx.dropped[k] += q->dropped[k];
		r->rx.dropped_total += q->dropped_total;
		r->rx.steered_out += q->steered_out;
		r->rx.steered_in += q->steered_in;
		if (r->fin.has_tx[i]) {
			r->tx.tx_packets += r->fin.tx[i].tx_packets;
			r->tx.tx_errors += r->fin.tx[i].tx_errors;
			r->tx.tx_in_place += r->fin.tx[i].tx_in_place;
			r->tx.tx_copies += r->fin.tx[i].tx_copies;
		}
	}
}

/* verify: reconcile each queue's drops with the gaps in what it saw. */
static void verify_books(const struct run_state *s, struct run_result *r)
{
	r->verify_reconciled = s->peer && !r->has_flow;
	for (unsigned i = 0; r->verify_reconciled && i < s->nq; i++) {
		struct gnio_sw_peer_stats ps;
		if (gnio_sw_peer_get_stats(s->peer, (uint16_t)i, &ps) != GNIO_SUCCESS) {
			r->verify_reconciled = 0;
			break;
		}
		const struct gnio_app_stats *k = &r->qks[i];
		const uint64_t first = s->o->gen.first_seq & ((1ull << 48) - 1);
		uint64_t missing = ps.offered; /* nothing delivered: all of them */
		if (k->packets)
			missing = k->seq_gap + (k->seq_first - first) + (first + ps.offered - 1 - k->seq_last);
		const uint64_t dropped = r->fin.rx[i].dropped_total;
		r->verify_unaccounted += dropped > missing ? dropped - missing : missing - dropped;
	}
	r->verify_ok = !r->ks.verify_fail && !r->ks.seq_reorder && !r->ks.changed_in_hold && !r->verify_unaccounted;
}

static void teardown(struct run_state *s)
{
	run_drain_stop(&s->drain);
	if (s->peer)
		gnio_sw_peer_close(s->peer);
	s->peer = NULL;
	if (s->pl && gnio_pipeline_destroy(s->pl) == GNIO_SUCCESS)
		s->pl = NULL;
}

static const char *teardown_caps(const struct run_opts *o)
{
	char kind[16];
	snprintf(kind, sizeof(kind), "%.*s", (int)strcspn(o->wire, ":"), o->wire);
	return privdrop_teardown_caps(kind);
}

/* --user: everything that needs privileges is open; give them up but for
 * what the wire's teardown needs. Returns 1 when that failed. */
static int drop_privileges(const struct run_opts *o)
{
	char why[256];
	const char *keep = teardown_caps(o);
	if (privdrop_apply(&o->user_id, keep, why, sizeof(why))) {
		fprintf(stderr, "gnio run: --user %s: %s; stopping\n", o->user, why);
		return 1;
	}
	step_log(o->quiet, "running as %s (uid %u), capabilities kept: %s", o->user_id.name, (unsigned)o->user_id.uid,
		 *keep ? keep : "none");
	return 0;
}

static int run(const struct run_opts *opts)
{
	const struct run_opts o = *opts;
	if (o.user) {
		char why[256];
		if (privdrop_prepare(teardown_caps(&o), why, sizeof(why))) {
			fprintf(stderr, "gnio run: --user %s: %s\n", o.user, why);
			return GNIO_EXIT_ENV;
		}
	}
	static struct run_state s; /* large; one run per process */
	memset(&s, 0, sizeof(s));
	s.o = &o;
	int rc = run_metrics_start(&s);
	if (rc != GNIO_EXIT_OK)
		return rc;
	rc = bring_up(&s, &o);
	if (rc == GNIO_EXIT_OK) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		/* with a rules file, SIGHUP reloads it (a supervisor's reload);
		 * without one it stops the run, as a hangup does */
		signal(SIGHUP, o.flow_file ? on_hup : on_signal);
		rc = launch(&s, &o);
	}
	if (rc != GNIO_EXIT_OK) {
		run_metrics_stop(&s, 0);
		teardown(&s);
		return rc;
	}
	/* Without its privileges a real wire cannot start again: the
	 * rollback's step 5 then only checks that the queues stopped. */
	if (o.user && (!strncmp(o.wire, "afxdp:", 6) || !strncmp(o.wire, "afpacket:", 9)))
		gnio_pipeline_set_trial_start(s.pl, 0);
	int priv_failed = o.user && drop_privileges(&o);
	if (priv_failed)
		run_stop_requested = 1; /* fail closed: stop at once, still roll back */
	run_metrics_live(&s);

	struct run_live lv;
	memset(&lv, 0, sizeof(lv));
	run_live_loop(&s, &lv);
	if (lv.stop_requested && !o.quiet)
		fprintf(stderr, "gnio: stop requested, rolling back\n");
	quiesce(&s, &lv);
	/* The rollback takes the kernels and queues away: from here a scrape
	 * serves a copy. */
	run_metrics_freeze(&s, NULL);

	static struct run_result r;
	memset(&r, 0, sizeof(r));
	r.offered_from_generator = s.peer != NULL;
	/* Offered counts stop moving once the generators are detached. */
	uint64_t offered_gen = s.peer ? run_sum_offered(&s) : 0;
	int quiet_steps = o.quiet || o.json;
	struct run_rb rb = {&s, quiet_steps, &r, 0};
	gnio_error_t rerr = gnio_pipeline_rollback(s.pl, 5000, run_rb_step, &rb);
	unsigned next_step = 0;
	gnio_rollback_get_next_step(gnio_pipeline_get_rollback(s.pl), &next_step);
	if (rerr == GNIO_ERROR_TIME_OUT || next_step < GNIO_ROLLBACK_DONE) {
		/* Failed closed: what the kernels may still touch stays allocated
		 * (before step 5; step 5 only re-verifies what is already freed). */
		if (next_step == 5)
			fprintf(stderr, "gnio run: rollback stopped at step 5, the re-verify (%s): everything is freed, "
				"the queues were not shown restartable (see docs/rollback.md)\n", gnio_error_get_name(rerr));
		else
			fprintf(stderr, "gnio run: rollback stopped at step %u (%s); memory left allocated on purpose "
				"(see docs/rollback.md)\n", next_step, gnio_error_get_name(rerr));
		run_metrics_stop(&s, 0);
		return GNIO_EXIT_FAIL;
	}
	run_drain_stop(&s.drain);
	r.peer_received = s.drain.received;
	collect(&s, &r);
	const int verify = !strcmp(o.app->name, "verify");
	if (verify)
		verify_books(&s, &r); /* needs the sw peer's counts: before the teardown */
	run_metrics_freeze(&s, &r.fin); /* the last scrape agrees with the summary */
	teardown(&s);
	step_log(quiet_steps, "wire and device closed");

	/* offered: what the peer put on the wire when we can see it (sw), else
	 * everything the wire delivered. */
	r.offered = r.offered_from_generator ? offered_gen : r.rx.rx_packets + r.rx.dropped_total;
	r.balanced = r.offered == r.rx.rx_packets + r.rx.dropped_total;
	r.consumed = r.ks.packets == r.rx.rx_packets;
	if (o.json)
		run_report_json(&s, &lv, &r);
	else
		run_report_text(&s, &lv, &r);
	if (!r.balanced)
		fprintf(stderr, "gnio run: accounting mismatch: offered %llu != rx %llu + dropped %llu\n",
			(unsigned long long)r.offered, (unsigned long long)r.rx.rx_packets,
			(unsigned long long)r.rx.dropped_total);
	if (!r.consumed)
		fprintf(stderr, "gnio run: kernel processed %llu of %llu delivered frames\n",
			(unsigned long long)r.ks.packets, (unsigned long long)r.rx.rx_packets);
	fflush(stdout); /* the summary is out before the hold */
	run_metrics_stop(&s, 1);
	if (lv.wire_failed)
		return GNIO_EXIT_ENV;
	if (verify && !r.verify_ok)
		fprintf(stderr, "gnio run: verify: %llu frames not intact, %llu out of order, %llu groups changed while "
			"held, %llu drops not seen as gaps\n", (unsigned long long)r.ks.verify_fail,
			(unsigned long long)r.ks.seq_reorder, (unsigned long long)r.ks.changed_in_hold,
			(unsigned long long)r.verify_unaccounted);
	return priv_failed || lv.kernel_failed || !r.balanced || !r.consumed || (verify && !r.verify_ok)
		       ? GNIO_EXIT_FAIL : GNIO_EXIT_OK;
}

int gnio_cmd_run(int argc, char **argv)
{
	struct run_opts o;
	int rc = run_parse_opts(argc, argv, &o);
	if (rc < 0)
		rc = run(&o);
	run_opts_free(&o);
	return rc;
}
