/* SPDX-License-Identifier: MIT */
/*
 * gnio/pipeline.h - the one bring-up path: from a config struct to started
 * queues, GPU handles, pools and a runner per queue, torn down through the
 * five-step rollback (gnio/rollback.h). The CLI verbs, the tests, the
 * benchmarks and the samples all use it, so there is one set of defaults.
 *
 * What gnio_pipeline_create builds, in this order (each step is reported):
 *   wire (gnio_dev_open) -> steering rules (gnio_flow, when asked) ->
 *   device context (gnio_gpu_create) -> per queue:
 *   RX pool (memory, buffer array, start) -> RX queue (create, setters, pool,
 *   datapath on the device, start, GPU handle) -> TX pool and TX queue when
 *   asked (the RX pool registered for in-place sends) -> the app's memory ->
 *   a runner. Everything is registered with a gnio_rollback in creation order.
 *
 * Teardown: gnio_pipeline_quiesce (optional: let the kernels drain what the
 * wire delivered), gnio_pipeline_rollback (the five steps; TIME_OUT means a
 * kernel is hung and nothing was freed: call it again later), then
 * gnio_pipeline_destroy (queues, wire and device context).
 */
#ifndef GNIO_PIPELINE_H
#define GNIO_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "gpu.h"
#include "rollback.h"
#include "runner.h"
#include "eth_txq.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_dev;
struct gnio_pe;
struct gnio_buf_arr;
struct gnio_eth_rxq;
struct gnio_eth_txq;
struct gnio_gpu_eth_rxq;
struct gnio_gpu_eth_txq;
struct gnio_pipeline;
struct gnio_flow;

#define GNIO_PIPELINE_MAX_QUEUES 64
#define GNIO_PIPELINE_MAX_GPUS 16

/* One bring-up step, as it ends: its name, the result, whether a failure is
 * the environment's (wire, device, privilege: `layer` "environment") or the
 * program's ("program"), and the library's reason ("" on success). */
typedef void (*gnio_pipeline_step_fn)(void *user, const char *step, gnio_error_t err, const char *layer,
				      const char *detail);

struct gnio_pipeline_cfg {
	uint32_t struct_size;           /* sizeof(struct gnio_pipeline_cfg) */
	const char *wire;               /* wire spec (NULL: "sw:gnio"), when dev is NULL */
	struct gnio_dev *dev;           /* an open wire to use instead; the pipeline leaves it open */
	const char *gpu;                /* PCIe bus id or "cpu" (NULL: the best device present);
					 * "A,B,...": several GPUs, queue i on the (i % n)-th */
	struct gnio_gpu *gpu_ctx;       /* an existing device context to use instead; left alone */
	uint32_t queues;                /* RX queues, ids 0..queues-1 (0: 1) */
	uint32_t ring;                  /* RX ring entries (0: 4096) */
	uint32_t burst;                 /* proxy burst (0: 256) */
	uint32_t slot;                  /* pool element bytes (0: 2048, or the frame size rounded up) */
	uint32_t max_packet;            /* largest frame (0: the slot, capped at the wire's maximum) */
	enum gnio_gpu_mem_type rx_mem;  /* where RX payloads land (default CPU_GPU) */
	int flow_control;               /* hold frames on the wire while the ring is full */
	int no_rx_pool;                 /* start RX queues without a pool (to show BAD_STATE) */
	int tx;                         /* a TX queue per RX queue, same id */
	int tx_only;                    /* TX queues only (no RX queue, no RX pool) */
	int tx_in_place;                /* register each RX pool with its TX queue */
	uint32_t tx_ring;               /* TX ring entries (0: 1024) */
	int tx_pool;                    /* the TX queue gets its own pool (one slot per entry) */
	size_t user_mem;                /* bytes of CPU_GPU memory per queue for the kernel (0: none) */
	struct gnio_pe *pe;             /* connect every queue to it (NULL: none) */
	/* Completion events of NOTIFY sends and send errors, registered on
	 * every TX queue before it starts (need pe). */
	gnio_eth_txq_gpu_event_notify_send_packet_cb_t tx_notify_cb;
	gnio_eth_txq_gpu_event_error_send_packet_cb_t tx_error_cb;
	void *tx_event_user;
	int proxy_cpu;                  /* pin queue i's proxies to CPU proxy_cpu + i (-1: no pinning) */
	gnio_pipeline_step_fn step_cb;  /* reports each step (NULL: none) */
	void *step_user;
	/* enum gnio_poll_mode (gnio/dev.h) of the proxies: GNIO_POLL_ADAPTIVE
	 * (0, the default) or GNIO_POLL_BUSY; set on a dev the pipeline opens,
	 * and on a given dev only when not the default. */
	int poll_mode;
	/* Steering (gnio/flow.h, docs/flow.md): a gnio_flow on the wire, made
	 * before the queues start, from a rules file and then rules text (one
	 * rule per line); rss: its default action spreads frames over every RX
	 * queue by the hash of their addresses and ports (a rules file that sets
	 * a default of its own is refused). All NULL/0: no flow. Not with a
	 * given dev that already has a flow. */
	const char *flow_file;
	const char *flow_rules;
	int rss;
	/* Pin queue i's RX and TX proxies to proxy_cpus[i % num_proxy_cpus]
	 * (instead of proxy_cpu + i); NULL/0: proxy_cpu decides. */
	const int *proxy_cpus;
	uint32_t num_proxy_cpus;
	/* Each RX queue's completions carry the frame's first 42 bytes
	 * (gnio_eth_rxq_set_inline_header): for latency. */
	int inline_header;
};

/* What a kernel of queue i needs, and the objects behind it. */
struct gnio_pipeline_queue {
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;       /* NULL without tx */
	struct gnio_gpu_eth_rxq *rxh;   /* GPU handles: pass them to the kernel */
	struct gnio_gpu_eth_txq *txh;
	struct gnio_buf_arr *rx_pool, *tx_pool;
	void *rx_mem;                   /* the RX pool's memory, device view */
	void *tx_mem;                   /* the TX pool's memory (NULL without tx_pool) */
	void *user_mem_gpu;             /* cfg.user_mem bytes, device view (NULL: none) */
	void *user_mem_cpu;             /* ... host view */
	struct gnio_runner *runner;
};

/* Defaults for every field; wire and gpu as given (NULL allowed). */
void gnio_pipeline_cfg_init(struct gnio_pipeline_cfg *cfg, const char *wire, const char *gpu);

/* Bring everything up but the kernels. On failure nothing stays allocated
 * and gnio_last_error_msg() names the step and the reason. Errors:
 * INVALID_VALUE (bad config), and whatever the failing step returned
 * (NOT_FOUND, NOT_PERMITTED, DRIVER, NO_MEMORY, ...). */
/* @since 0.2 pipeline: One public bring-up helper (config to started queues, handles, runners; rollback teardown) */
gnio_error_t gnio_pipeline_create(const struct gnio_pipeline_cfg *cfg, struct gnio_pipeline **pl);
uint32_t gnio_pipeline_get_num_queues(const struct gnio_pipeline *pl);
/* Errors: INVALID_VALUE (NULL, or no such queue). */
gnio_error_t gnio_pipeline_get_queue(const struct gnio_pipeline *pl, uint32_t i, struct gnio_pipeline_queue *q);
struct gnio_gpu *gnio_pipeline_get_gpu(const struct gnio_pipeline *pl);
/* Several GPUs (cfg.gpu "A,B"): how many, and the one queue i runs on
 * (NULL: no such queue). Each GPU has its own device context and rollback;
 * gnio_pipeline_get_gpu and gnio_pipeline_get_rollback give the first's. */
/* @since 0.2 pipeline_multi_gpu: Queues spread over several GPUs in one pipeline */
uint32_t gnio_pipeline_get_num_gpus(const struct gnio_pipeline *pl);
struct gnio_gpu *gnio_pipeline_get_queue_gpu(const struct gnio_pipeline *pl, uint32_t i);
/* The flow the pipeline made from flow_file, flow_rules or rss (NULL: none);
 * read its rules and hits with gnio_flow_get_rule_hits. */
/* @since 0.2 pipeline_flow: Pipeline steering from a rules file, rules text or RSS over the queues */
struct gnio_flow *gnio_pipeline_get_flow(const struct gnio_pipeline *pl);
struct gnio_dev *gnio_pipeline_get_dev(const struct gnio_pipeline *pl);
/* "cpu" when the device is the CPU device, with why the best device was
 * picked when cfg.gpu was NULL ("" otherwise). */
const char *gnio_pipeline_get_device_reason(const struct gnio_pipeline *pl);
/* The rollback that tears it down (for its step callback). */
struct gnio_rollback *gnio_pipeline_get_rollback(const struct gnio_pipeline *pl);

/* Start queue i's kernel: gnio_runner_start on its runner. */
gnio_error_t gnio_pipeline_launch(struct gnio_pipeline *pl, uint32_t i, gnio_runner_launch_fn fn, void *user);

/* Stop taking frames from the wire (what is still there is counted as
 * dropped(stopped)), then wait up to timeout_ms until every kernel has
 * released what its queue delivered. The kernels keep running. Errors:
 * TIME_OUT (a kernel did not consume everything in time: the books still
 * balance, the kernel is behind), BAD_STATE. */
gnio_error_t gnio_pipeline_quiesce(struct gnio_pipeline *pl, uint32_t timeout_ms);

/* The five rollback steps (gnio_rollback_run) with one deadline for the
 * kernels, GPU by GPU. fn (may be NULL) sees each step. TIME_OUT: a kernel is hung;
 * nothing was freed; call again once it has finished. */
gnio_error_t gnio_pipeline_rollback(struct gnio_pipeline *pl, uint32_t deadline_ms, gnio_rollback_step_fn fn,
				    void *user);

/* Destroy the queues, close the wire, destroy the device context, free pl.
 * Runs the rollback first when it has not completed. Errors: BAD_STATE (the
 * rollback stopped: a hung kernel holds the memory; pl stays valid). */
gnio_error_t gnio_pipeline_destroy(struct gnio_pipeline *pl);
/* Every GPU's rollback: step 5's trial restart on or off
 * (gnio_rollback_set_trial_start). Errors: INVALID_VALUE (NULL). */
/* @since 0.2 pipeline_trial_start: Turn off the trial restart of every GPU's rollback */
gnio_error_t gnio_pipeline_set_trial_start(struct gnio_pipeline *pl, int on);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_PIPELINE_H */
