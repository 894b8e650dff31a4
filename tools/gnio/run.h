/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/run.h - `gnio run`, in parts:
 *   run_opts.c    the options and their checks
 *   cmd_run.c     bring-up (gnio_pipeline_create), launch, stop, teardown
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

#define RUN_MAX_QUEUES 16

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
	uint32_t queues;
	/* derived */
	const struct gnio_app *app;
	struct gnio_gen_cfg gen;
	int is_sw;
	char wire_spec[512];
};

/* Parse argv into o. Returns -1 to go on, else the exit code (after --help
 * or a usage error, printed as one line on stderr). */
int run_parse_opts(int argc, char **argv, struct run_opts *o);

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
	char dev_id[64], dev_name[128];
};

/* What the live loop measured. */
struct run_live {
	double t0, t_end;
	double t_warm;          /* first live tick: start-up excluded */
	uint64_t pk_warm, by_warm;
	uint64_t measured, measured_bytes;
	int kernel_failed;
	int stop_requested;
};

/* What the run ends with, for the report. */
struct run_result {
	struct gnio_app_stats ks;                     /* kernels, summed */
	struct gnio_app_stats qks[RUN_MAX_QUEUES];    /* each kernel */
	struct gnio_eth_rxq_stats rx, qrx[RUN_MAX_QUEUES];
	struct gnio_eth_txq_stats tx;
	uint64_t offered;
	int offered_from_generator;
	uint64_t peer_received;
	int balanced, consumed;
};

extern volatile sig_atomic_t run_stop_requested;

void run_live_loop(struct run_state *s, struct run_live *lv);
void run_sum_kernel(const struct run_state *s, uint64_t *pk, uint64_t *by);
void run_sum_rx_stats(const struct run_state *s, struct gnio_eth_rxq_stats *sum);
uint64_t run_sum_offered(const struct run_state *s);

void run_report_text(const struct run_state *s, const struct run_live *lv, const struct run_result *r);
void run_report_json(const struct run_state *s, const struct run_live *lv, const struct run_result *r);

#endif
