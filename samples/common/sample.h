/* SPDX-License-Identifier: MIT */
/*
 * samples/common/sample.h - what every gnio sample's host program shares.
 *
 *   flags    -g/--gpu BUSID|cpu, -n/--nic WIRESPEC, -e/--exec-scope
 *            thread|warp|block, -d/--duration S, --json, -h/--help (named as
 *            DOCA's samples name them), plus each sample's own
 *            (sample_opts.c);
 *   bring-up gnio_pipeline_create from a config the sample fills, the
 *            kernel launch, and teardown through the pipeline's rollback
 *            (sample_run.c);
 *   sw peer  on an sw:NAME wire the sample plays the peer too: the built-in
 *            generator feeds it and a thread takes what the kernel sends
 *            (sample_peer.c), so it shows traffic with no peer at all;
 *   JSON     one object on the last line of stdout with the books:
 *            offered, rx_packets, dropped_total (sample_json.c).
 *
 * Host code only (C11). Kernels never include this file.
 */
#ifndef GNIO_SAMPLE_H
#define GNIO_SAMPLE_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <gnio/gnio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes, as the gnio CLI's: 0 ok, 1 failed (books, kernel), 2 usage,
 * 3 environment (wire, device, privilege). */
#define SAMPLE_EXIT_OK 0
#define SAMPLE_EXIT_FAIL 1
#define SAMPLE_EXIT_USAGE 2
#define SAMPLE_EXIT_ENV 3

/* ------------------------------------------------------------- flags -- */

enum sample_flag_type {
	SAMPLE_FLAG_BOOL,  /* int *: set to 1 */
	SAMPLE_FLAG_U64,   /* uint64_t *, within [min, max] */
	SAMPLE_FLAG_STR,   /* const char ** */
	SAMPLE_FLAG_IPV4,  /* uint32_t *, network byte order */
	SAMPLE_FLAG_MAC,   /* uint8_t[6] */
	SAMPLE_FLAG_SCOPE, /* int *: thread|warp|block or 0|1|2 */
};

/* One flag of a sample. */
struct sample_flag {
	const char *name;     /* long name, without "--" */
	char short_name;      /* 0: none */
	enum sample_flag_type type;
	void *dst;
	uint64_t min, max;    /* SAMPLE_FLAG_U64 */
	const char *arg;      /* what the value is, for --help ("N", "ADDR") */
	const char *help;
};

struct sample_opts {
	const char *gpu;   /* -g: NULL = the best device present */
	const char *nic;   /* -n: wire spec; default "sw:<sample name>" */
	int scope;         /* -e: GNIO_GPUNETIO_ETH_EXEC_SCOPE_* */
	double duration;   /* -d: seconds, 0 = until Ctrl-C */
	int json;          /* --json */
	int is_sw;         /* derived: the wire is sw: */
};

/* Parse argv: the common flags, then extra[0..nextra). about is the
 * sample's one-paragraph description for --help; scope_matters says
 * whether -e is offered. Returns -1 to go on, else the exit code (after
 * --help or a usage error, which prints one line on stderr). */
int sample_parse(int argc, char **argv, const char *name, const char *about, int scope_matters,
		 const struct sample_flag *extra, unsigned nextra, struct sample_opts *o);
const char *sample_scope_name(int scope);

/* ----------------------------------------------------------- sw peer -- */

/* Called by the peer thread for every frame the kernel sent on the sw wire,
 * with the time the wire took it (CLOCK_REALTIME ns). */
typedef void (*sample_peer_rx_fn)(void *user, const uint8_t *frame, uint32_t len, uint64_t ts_ns);

struct sample_peer {
	struct gnio_sw_peer *peer;
	int gen_attached;
	pthread_t thread;
	int running;
	int stop;
	uint64_t received; /* frames the kernel sent that the peer took */
	sample_peer_rx_fn rx_fn;
	void *rx_user;
};

/* Open the peer end of an sw wire (dev must be an sw wire). */
gnio_error_t sample_peer_open(struct sample_peer *p, struct gnio_dev *dev);
/* Feed queue 0 from the built-in generator. */
gnio_error_t sample_peer_gen_start(struct sample_peer *p, const struct gnio_gen_cfg *cfg);
/* Stop offering frames; returns what the peer has offered so far. */
uint64_t sample_peer_gen_stop(struct sample_peer *p);
int sample_peer_gen_done(struct sample_peer *p);
uint64_t sample_peer_offered(struct sample_peer *p);
/* Take what the kernel sends, on a thread (fn may be NULL: count only). */
void sample_peer_rx_start(struct sample_peer *p, sample_peer_rx_fn fn, void *user);
/* Stop the receiving thread after it has taken what is waiting. */
void sample_peer_rx_stop(struct sample_peer *p);
uint64_t sample_peer_received(const struct sample_peer *p);
void sample_peer_close(struct sample_peer *p);

/* ----------------------------------------------------- run and books -- */

struct sample_books {
	int has_rx;             /* the sample has an RX queue (the fields below mean something) */
	uint64_t offered;       /* what the peer offered (sw), else what the wire delivered */
	uint64_t rx_packets;    /* handed to the kernel */
	uint64_t dropped_total;
	uint64_t dropped[GNIO_DROP_REASON_COUNT];
	uint64_t released;      /* released by the kernel */
	int has_tx;
	struct gnio_eth_txq_stats tx;
	int balanced;           /* offered == rx_packets + dropped_total */
};

struct sample {
	const char *name;
	struct sample_opts o;
	struct gnio_pipeline *pl;
	struct gnio_pipeline_queue q; /* queue 0 */
	struct gnio_gpu *gpu;         /* NULL once destroyed */
	struct gnio_dev *dev;
	int on_cpu;
	char dev_id[64];              /* the device's bus id and name, kept for the summary */
	char dev_name[128];
	struct sample_peer peer;      /* used when o.is_sw */
	struct gnio_pe *pe;           /* progressed by sample_wait when set */
	double t0;                    /* CLOCK_MONOTONIC seconds at launch */
	uint64_t offered_at_stop;     /* what the peer offered, once the generator is detached */
	int offered_known;            /* offered_at_stop is set */
	int kernel_exited;            /* the kernel returned on its own */
	int kernel_failed;            /* ... with an error */
};

/* Monotonic seconds. */
double sample_now(void);
void sample_sleep_ms(unsigned ms);

/* Set by SIGINT/SIGTERM; sample_wait returns when it is. */
extern volatile sig_atomic_t sample_stop_requested;
void sample_on_signals(void);

/* Keep the device's bus id and name (for the summary, after teardown). */
void sample_note_device(struct sample *s);

/* Bring up the pipeline from pc (pc->wire and pc->gpu are set from the
 * flags here), record queue 0, open the sw peer when the wire is sw, and say
 * which device on stderr. Returns the exit code (SAMPLE_EXIT_OK on success;
 * the failing step is printed as one line). */
int sample_up(struct sample *s, struct gnio_pipeline_cfg *pc);

/* The kernel body for this device: cpu_fn on the CPU device, cuda_fn on a
 * GPU (NULL when built without CUDA: says so). Launches it on queue 0 and
 * prints "ready" on stderr. Returns the exit code. */
int sample_launch(struct sample *s, gnio_runner_launch_fn cpu_fn, gnio_runner_launch_fn cuda_fn, void *args);

/* On sw: start the built-in generator on queue 0 with cfg. Returns the
 * exit code (a bad generator config is a usage error, printed). */
int sample_gen_start(struct sample *s, const struct gnio_gen_cfg *cfg);

/* Wait until Ctrl-C, the duration, the kernel ending on its own, or done()
 * returning nonzero; call tick() once a second (both may be NULL). The
 * progress engine, when set, is driven from here. */
void sample_wait(struct sample *s, int (*done)(void *user), void (*tick)(void *user, double t), void *user);

/* Stop offering (sw), let the wire hand over what it holds and the kernel
 * consume everything delivered, so the books close exactly. kernel_packets
 * reads the kernel's own count of frames received (NULL: do not wait for
 * it). Without a pipeline (a sample that brings its queue up by hand) the
 * RX queue in s->q is quiesced. */
void sample_quiesce(struct sample *s, uint64_t (*kernel_packets)(void *user), void *user);

/* Stop the kernel: the runner's stop flag, then up to 5 s for it to finish.
 * Returns SAMPLE_EXIT_OK, or SAMPLE_EXIT_FAIL when it did not stop (the
 * runner failed closed: nothing it could touch may be freed, so the sample
 * must exit without sample_down). A kernel that ended with an error sets
 * s->kernel_failed. */
int sample_stop_kernel(struct sample *s);

/* After the kernel stopped: wait until the TX proxy has handed the wire
 * every frame the kernel queued (sent: the kernel's own count; frames still
 * queued when the TX queue stops are not sent), and on sw until the peer
 * has taken them all; then stop the peer's receiving thread. */
void sample_tx_drain(struct sample *s, uint64_t sent);

/* The books now (queues may be stopped: their counters stay). */
void sample_read_books(struct sample *s, struct sample_books *b);

/* Roll back the pipeline (the five steps, printed on stderr), read the
 * books, close the peer, destroy the pipeline and the progress engine.
 * Returns the exit code. */
int sample_down(struct sample *s, struct sample_books *b);

/* A start that failed half-way: stop the kernel if one runs, tear down
 * what was built, and return rc. */
int sample_abort(struct sample *s, int rc);

/* Print the common part of a summary (the wire, device and books) on
 * stderr. */
void sample_print_books(const struct sample *s, const struct sample_books *b);

/* --------------------------------------------------------------- JSON -- */

/* One JSON object on one line of stdout: begin (sample, wire, device and the
 * books), the sample's keys, end. Keys are plain words; strings are escaped. */
void sample_json_begin(const struct sample *s, const struct sample_books *b);
void sample_json_u64(const char *key, uint64_t v);
void sample_json_f64(const char *key, double v);
void sample_json_str(const char *key, const char *v);
void sample_json_bool(const char *key, int v);
void sample_json_end(void);

/* ---------------------------------------------------------- helpers -- */

/* The MAC address of a Linux interface (afxdp/afpacket wires), or a fixed
 * locally administered one for other wires. */
void sample_wire_mac(struct gnio_dev *dev, uint8_t mac[6]);
/* Percentile p (0..100) of n sorted values. */
double sample_percentile(const double *sorted, unsigned n, double p);
void sample_sort(double *v, unsigned n);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_SAMPLE_H */
