/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/run.h - `gnio run`, in parts:
 *   run_opts.c    the options and their checks (flags and config file keys)
 *   config.c      the YAML config file (--config, --check-config, configure --save)
 *   cmd_run.c     bring-up (gnio_pipeline_create), launch, stop, teardown
 *   run_metrics.c the Prometheus endpoint (--metrics)
 *   run_live.c    the live loop: one line a second, early ends, the sw peer's
 *                 receiving end for sending apps
 *   run_report.c  the summary and the JSON object
 */
#ifndef GNIO_TOOLS_RUN_H
#define GNIO_TOOLS_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include "gnio/apps/apps.h"
#include "gnio/gnio.h"
#include "gnio/impl/atomics.h"
#include "metrics.h"
#include "flowreport.h"
#include "privdrop.h"

#define RUN_MAX_QUEUES 16
#define RUN_MAX_FLOW_RULES 256
#define RUN_MAX_CPUS 256

/* Every single-valued option of a run: a flag, a config file key, or both.
 * run_opt_set() is the one place their values are checked. */
enum run_opt {
	RUN_OPT_DURATION, RUN_OPT_WIRE, RUN_OPT_GPU, RUN_OPT_APP, RUN_OPT_SIZE, RUN_OPT_PROTO,
	RUN_OPT_RATE, RUN_OPT_COUNT, RUN_OPT_QUEUES, RUN_OPT_RING, RUN_OPT_BURST, RUN_OPT_BATCH,
	RUN_OPT_FLOW_CONTROL, RUN_OPT_MEM, RUN_OPT_RECV_SCOPE, RUN_OPT_SEND_SCOPE, RUN_OPT_THREADS,
	RUN_OPT_POLL, RUN_OPT_FLOW, RUN_OPT_FLOW_FILE, RUN_OPT_RSS, RUN_OPT_CPUS, RUN_OPT_METRICS, RUN_OPT_METRICS_HOLD,
	RUN_OPT_HOLD_US, RUN_OPT_USER, RUN_OPT_INLINE_HEADER, RUN_OPT_WATCHERS, RUN_OPT_JSON, RUN_OPT_QUIET, RUN_OPT_COUNT_
};

/* Where an option's value came from, so that an error names it: the flag
 * (file NULL), or the config file's line and key. */
struct run_origin {
	const char *file;
	unsigned line;
	const char *key; /* e.g. "queues.ring" */
};

/* Polling modes of the proxies (gnio_dev_set_poll_mode): the values of enum
 * gnio_poll_mode. */
enum run_poll { RUN_POLL_ADAPTIVE = GNIO_POLL_ADAPTIVE, RUN_POLL_BUSY = GNIO_POLL_BUSY };

struct run_opts {
	double duration;
	const char *wire;
	const char *gpu;
	const char *app_name;
	uint32_t size;
	int size_given;
	const char *proto;
	uint64_t rate;
	uint64_t count;
	uint32_t ring;
	uint32_t burst;
	uint32_t batch;
	int flow_control; /* -1 auto */
	int json;
	int quiet;
	enum gnio_gpu_mem_type rx_mem;
	const char *mem_name;
	int recv_scope;   /* GNIO_APP_SCOPE_* */
	int send_scope;   /* GNIO_APP_SCOPE_*, -1: the app's default */
	uint32_t threads;
	uint32_t watchers;       /* --watchers N: warps that poll for a thread or warp receive */
	uint64_t hold_us;        /* --hold-us: the verify app holds each batch that long */
	const char *user;        /* --user NAME: become NAME once set up (privdrop.c) */
	struct privdrop user_id; /* ... looked up by run_opts_check */
	uint32_t queues;
	int poll;                /* enum run_poll */
	const char *metrics;     /* --metrics ADDR:PORT; NULL: no endpoint */
	double metrics_hold;     /* seconds to keep serving the final counters */
	const char *flow[RUN_MAX_FLOW_RULES]; /* the config's flow rules, as text */
	unsigned nflow;
	const char *flow_file;   /* --flow FILE: a rules file (docs/flow.md) */
	int rss;                 /* --rss: the default action spreads over the queues */
	int inline_header;       /* --inline-header: completions carry the first 42 bytes */
	const char *cpus;        /* --cpus LIST as given */
	int cpu_list[RUN_MAX_CPUS]; /* ... parsed: queue i's proxies on cpu_list[i % ncpus] */
	unsigned ncpus;
	char *flow_text;         /* the config's rules joined by newlines (run_opts_free) */
	const char *config;      /* --config FILE */
	int check_config;        /* --check-config: print the effective config, run nothing */
	struct run_origin origin[RUN_OPT_COUNT_];
	char **owned;            /* strings the config file gave (run_opts_free) */
	size_t nowned;
	/* derived */
	const struct gnio_app *app;
	struct gnio_gen_cfg gen;
	int is_sw;
	char wire_spec[512];
};

/* Parse argv into o: the defaults, then the --config file, then the flags in
 * the order given (a later one wins). Returns -1 to go on, else the exit
 * code (after --help, --check-config, or an error printed as one line on
 * stderr). Call run_opts_free(o) in either case. */
int run_parse_opts(int argc, char **argv, struct run_opts *o);
void run_opts_defaults(struct run_opts *o);
/* The RX ring entries the run uses: --ring, or by the queue count when auto. */
uint32_t run_opts_ring(const struct run_opts *o);
uint32_t run_opts_burst(const struct run_opts *o);
void run_opts_free(struct run_opts *o);
/* Set one option from text (NULL: a flag without a value, e.g. --json),
 * with every check the flag has. Returns 0, or GNIO_EXIT_USAGE after
 * printing one line that names from (flag, or file, line and key), what was
 * expected and what was given. */
int run_opt_set(struct run_opts *o, enum run_opt id, const char *val, const struct run_origin *from);
/* Add a flow rule (config file "flow:" list). Same return as run_opt_set. */
int run_opt_add_flow(struct run_opts *o, const char *rule, const struct run_origin *from);
/* An option's value as text a config file takes back; NULL when it is unset
 * (the default applies: e.g. size with a protocol that picks its own). buf
 * holds numbers. */
const char *run_opt_text(const struct run_opts *o, enum run_opt id, char *buf, size_t len);
/* How an error names the option: "--ring" or "job.yaml:7: queues.ring". */
const char *run_opt_where(const struct run_opts *o, enum run_opt id, char *buf, size_t len);
/* A copy of s owned by o (freed by run_opts_free); NULL when out of memory. */
const char *run_opts_keep(struct run_opts *o, const char *s);
/* What is derived from the options, checked together (app, generator,
 * queues, wire spec, flow rules). -1 to go on, else the exit code. */
int run_opts_check(struct run_opts *o);

/* With a sending app on the sw wire, gnio run plays the peer's receiving
 * end too, so frames the kernel sends do not back up (and stall it). */
struct run_drain {
	struct gnio_sw_peer *peer;
	unsigned nq;
	int stop;
	int running;
	uint64_t received;
	pthread_t thread;
};
void run_drain_start(struct run_drain *d, struct gnio_sw_peer *peer, unsigned nq);
void run_drain_stop(struct run_drain *d);

/* The pipeline's counters at one moment, per queue. */
struct run_counters {
	unsigned nq;
	struct gnio_eth_rxq_stats rx[RUN_MAX_QUEUES];
	struct gnio_eth_txq_stats tx[RUN_MAX_QUEUES];
	int has_tx[RUN_MAX_QUEUES];
};

/* The --metrics endpoint (run_metrics.c). A scrape reads the live counters
 * while the kernels run; from the rollback on, the pipeline's objects go
 * away, so it serves a copy the main thread froze (at the end, the very
 * counters the summary reports). lock orders a scrape against a change of
 * phase. */
enum run_metrics_phase {
	RUN_METRICS_STARTING, /* nothing built yet: build info only */
	RUN_METRICS_LIVE,     /* kernels running: live counters, heartbeats */
	RUN_METRICS_FROZEN,   /* stopping or stopped: the frozen copy */
};
struct run_metrics {
	struct metrics_server *srv;
	pthread_mutex_t lock;
	enum run_metrics_phase phase;
	struct run_counters frozen;
	/* The live loop's last look at each kernel's heartbeat and when it
	 * last saw it move (CLOCK_MONOTONIC ns); read by the scrape thread. */
	uint64_t hb[RUN_MAX_QUEUES];
	uint64_t hb_moved_ns[RUN_MAX_QUEUES];
};

/* Everything the run builds. */
struct run_state {
	const struct run_opts *o;
	struct gnio_pipeline *pl;
	struct gnio_sw_peer *peer;
	unsigned nq;
	int on_cpu;
	gnio_runner_launch_fn kernel;
	struct gnio_pipeline_queue q[RUN_MAX_QUEUES];
	struct gnio_app_args args[RUN_MAX_QUEUES];
	struct gnio_app_stats *stats[RUN_MAX_QUEUES]; /* host views */
	struct run_drain drain;
	struct run_metrics met;
	char dev_id[64], dev_name[128]; /* the first device's */
	unsigned ngpu;                  /* --gpu A,B: queue i runs on qdev[i] */
	char qdev[RUN_MAX_QUEUES][64];
	char tx_path[96]; /* the wire's gnio_wire_caps.tx_path */
};

/* What the live loop measured. */
struct run_live {
	double t0, t_end;
	double t_warm;          /* first live tick: start-up excluded */
	uint64_t pk_warm, by_warm;
	uint64_t measured, measured_bytes;
	int kernel_failed;
	int wire_failed;        /* the wire reported a fault (gnio_dev_get_wire_error) */
	char wire_error[256];   /* its one-line reason */
	int stop_requested;
	uint64_t reloads_refused; /* SIGHUP reloads of the rules file that did not parse */
};

/* What the run ends with, for the report. */
struct run_result {
	/* in the order that leaves no padding (the app stats are cache-line aligned) */
	struct gnio_app_stats ks;                     /* kernels, summed */
	struct gnio_app_stats qks[RUN_MAX_QUEUES];    /* each kernel */
	uint64_t offered;
	uint64_t peer_received;
	struct gnio_eth_txq_stats tx;
	struct gnio_eth_rxq_stats rx;                 /* summed */
	struct run_counters fin;                      /* each queue, final */
	struct flowreport flow;                       /* its rules and hits at the end */
	int offered_from_generator;
	int balanced, consumed;
	int has_flow;                                 /* --flow, config flow: or --rss */
	/* verify app: with the sw generator and no steering each queue sees one
	 * generator's frames in order, so every frame it dropped is a gap
	 * between stamps, before the first or after the last one delivered */
	int verify_reconciled;
	uint64_t verify_unaccounted;                  /* drops not seen as such: 0 */
	int verify_ok;                                /* nothing failed, reordered or unaccounted */
};

extern volatile sig_atomic_t run_stop_requested;
/* SIGHUP with a rules file: put its rules in force again (docs/cli.md) */
extern volatile sig_atomic_t run_reload_requested;

void run_live_loop(struct run_state *s, struct run_live *lv);
void run_sum_kernel(const struct run_state *s, uint64_t *pk, uint64_t *by);
void run_sum_rx_stats(const struct run_state *s, struct gnio_eth_rxq_stats *sum);
uint64_t run_sum_offered(const struct run_state *s);

/* Read every queue's counters (gnio_eth_rxq/txq_get_stats). */
void run_read_counters(const struct run_state *s, struct run_counters *c);

/* --metrics: start the endpoint before bring-up (a bad or taken address
 * fails before anything is built; returns the exit code, GNIO_EXIT_OK with
 * no --metrics); serve live counters once the kernels run; note heartbeats
 * (the live loop, every tick); freeze a copy (c NULL: read it now); stop,
 * after serving the frozen counters for --metrics-hold seconds when hold
 * is set (a signal ends the hold). */
int run_metrics_start(struct run_state *s);
void run_metrics_live(struct run_state *s);
void run_metrics_observe(struct run_state *s);
void run_metrics_freeze(struct run_state *s, const struct run_counters *c);
void run_metrics_stop(struct run_state *s, int hold);

void run_report_text(const struct run_state *s, const struct run_live *lv, const struct run_result *r);
void run_report_json(const struct run_state *s, const struct run_live *lv, const struct run_result *r);

#endif
