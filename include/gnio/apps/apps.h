/* SPDX-License-Identifier: MIT */
/*
 * gnio/apps/apps.h - the built-in apps `gnio run --app NAME` launches, also
 * usable from a program: each app is a persistent kernel with a CPU-device
 * body and a CUDA body, written against the device API only. Their
 * per-packet logic is GNIO_HD code in gnio/apps/ (classify.h, frame.h),
 * shared by both bodies.
 *
 *   count      frames and bytes (reads completions only)
 *   classify   frames per protocol
 *   touch      reads every payload byte (XOR digest)
 *   echo       swaps MACs and sends each frame back in place, as soon as it
 *              arrives (latency); needs a TX queue with the RX pool registered
 *   echo-copy  the same, copying each frame into the TX pool (the slot-style
 *              send), for comparison
 *   fwd        l2fwd: swaps MACs and sends in place, in batches (throughput)
 *   verify     checks every frame is intact generator output (stamp and
 *              checksums, gnio/apps/verify.h) and in sequence; with hold_ns,
 *              holds each batch that long and checks it again before
 *              releasing it (a consumer slower than the wire)
 */
#ifndef GNIO_APPS_APPS_H
#define GNIO_APPS_APPS_H

#include <stdint.h>
#include "../impl/hd.h"
#include "../error.h"
#include "../runner.h"
#include "classify.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_gpu_eth_rxq;
struct gnio_gpu_eth_txq;

/* Counters the kernel keeps, in CPU_GPU memory. Each queue's kernel is the only
 * writer; it stores running totals (never read-modify-write over PCIe). */
struct gnio_app_stats {
	GNIO_ALIGNED(GNIO_LINE) uint64_t packets;
	uint64_t bytes;
	uint64_t batches;
	uint64_t tx_packets;   /* frames the kernel sent (echo, fwd) */
	uint64_t tx_again;     /* sends that found the TX ring full (and were retried) */
	uint64_t errors;       /* recv/send errors other than AGAIN */
	uint64_t last_error;   /* gnio_error_t of the last error */
	uint64_t verify_fail;  /* frames whose content did not check out */
	uint64_t digest;       /* touch app: XOR of every 32-bit payload word read */
	uint64_t proto[GNIO_PROTO_COUNT];
	/* verify app: each frame's stamp is compared with the one delivered
	 * just before it on the queue (both intact). */
	uint64_t seq_first;    /* stamp (48 bits) of the first frame delivered */
	uint64_t seq_last;     /* stamp of the last frame delivered */
	uint64_t seq_gap;      /* frames missing between consecutive stamps */
	uint64_t seq_reorder;  /* frames whose stamp was not above the previous one */
	uint64_t changed_in_hold; /* frame groups whose stamps changed while held: 0 */
	uint64_t batch_now;    /* the batch the app receives with now */
	uint64_t batch_peak;   /* the largest it has received with (adaptive: how far it grew) */
};

/* Execution scopes of the apps' receive and send (the values of
 * enum gnio_gpu_dev_eth_exec_scope). */
#define GNIO_APP_SCOPE_THREAD 0
#define GNIO_APP_SCOPE_WARP 1
#define GNIO_APP_SCOPE_BLOCK 2

struct gnio_app_args {
	struct gnio_gpu_eth_rxq *rxq; /* GPU handle (device view) */
	struct gnio_gpu_eth_txq *txq; /* NULL unless the app sends */
	struct gnio_app_stats *stats; /* device view */
	/* Frames per recv. 0: adaptive, from 1024 (or half the ring, if less)
	 * up to half the ring, doubling while receives find their whole batch
	 * waiting and halving while they wait for it. */
	uint32_t max_batch;
	uint64_t timeout_ns;          /* recv: how long to wait for a full batch (0: default) */
	uint32_t blocks;              /* CUDA: blocks (one queue each; 1 today) */
	uint32_t threads;             /* CUDA: threads per block (0: default) */
	int recv_scope;               /* GNIO_APP_SCOPE_* */
	/* GNIO_APP_SCOPE_*: echo and fwd sends, at most recv_scope (a wider
	 * one is narrowed to it). Sending at recv_scope keeps the frames in
	 * arrival order; THREAD sends from a WARP or BLOCK receive reserve one
	 * descriptor per thread, in whatever order the threads get there. */
	int send_scope;
	/* verify app: hold each batch this long (ns), then check it again,
	 * before the next recv releases it. 0: no hold. */
	uint64_t hold_ns;
	/* Benchmarks (gnio_latency_bench --timeline): NULL, or host-visible
	 * memory of GNIO_APP_TRACE_WORDS words. After a receive that got
	 * frames the kernel stores the batch's end index in
	 * trace[GNIO_APP_TRACE_RECV], after its sends in trace[GNIO_APP_TRACE_SENT]
	 * (relaxed stores: times, not data, are what the reader wants). CUDA
	 * kernels also store SM clock stamps (GNIO_APP_TRACE_CLK_*) before
	 * those two, with the global timer for converting them. */
	uint64_t *trace;
	/* CUDA, THREAD or WARP receive: warps that poll the RX queue for the
	 * consumer (gnio_gpu_dev_eth_rxq_watch_*), 0 none. The block grows by
	 * that many warps. For latency; a busy queue is received faster
	 * without. At most GNIO_APP_MAX_WATCHERS. */
	uint32_t watchers;
};
/* The consumer's warp and its watchers fill at most a 1024-thread block. */
#define GNIO_APP_MAX_WATCHERS 31u
#define GNIO_APP_TRACE_RECV 0
#define GNIO_APP_TRACE_CLK_RECV_CALL 1 /* the receive that got the frames was called */
#define GNIO_APP_TRACE_CLK_RECEIVED 2  /* ... and returned */
#define GNIO_APP_TRACE_CLK_HEADER 3    /* echo: the first frame's header was read */
#define GNIO_APP_TRACE_GLOBAL_NS 4     /* the global timer beside CLK_RECEIVED */
#define GNIO_APP_TRACE_IDLE_RECVS 5    /* receives that found nothing before it */
#define GNIO_APP_TRACE_SENT 16         /* its own 128-byte line */
#define GNIO_APP_TRACE_CLK_SENT 17     /* the sends returned */
#define GNIO_APP_TRACE_WORDS 32

struct gnio_app {
	const char *name;
	const char *summary;
	int needs_tx;      /* sends: needs a TX queue */
	int tx_in_place;   /* sends from the RX pool: register it with the TX queue */
	int needs_tx_pool; /* sends from the TX pool (slot style) */
	/* CPU device: the kernel body; l->user is a struct gnio_app_args *. */
	gnio_error_t (*cpu)(const struct gnio_runner_launch *l);
	/* CUDA: enqueues the kernel on l->stream; NULL if built without CUDA. */
	gnio_error_t (*cuda)(const struct gnio_runner_launch *l);
};

/* NULL when there is no app of that name. */
/* @since 0.2 builtin_apps: Built-in apps (count, classify, touch, echo, echo-copy, fwd, verify) as a library table */
const struct gnio_app *gnio_app_find(const char *name);
/* NULL-terminated list of all apps. */
const struct gnio_app *const *gnio_app_list(void);
/* The launcher for a device: app->cpu or app->cuda by backend; NULL when the
 * app has no body for it in this build. */
gnio_runner_launch_fn gnio_app_launcher(const struct gnio_app *app, int on_cpu);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_APPS_APPS_H */
