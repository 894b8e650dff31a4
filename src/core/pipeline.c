/* SPDX-License-Identifier: MIT */
/* src/core/pipeline.c - the one bring-up path (gnio/pipeline.h). Every step
 * is a public call, so the library's own rules still hold underneath, and
 * every object goes into a gnio_rollback in creation order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/errmsg.h"
#include "eth/dev_priv.h"
#include "gnio/gnio.h"
#include "gnio/impl/hd.h"

#define DEF_WIRE "sw:gnio"
#define DEF_RING 4096u
#define DEF_BURST 256u
#define DEF_SLOT 2048u
#define DEF_TX_RING 1024u
/* An AF_XDP socket whose UMEM is the pool keeps some chunks in its fill ring
 * and lends some to TX: give the pool that much beyond the ring
 * (docs/wires.md, "Sizing the pool"). */
#define AFXDP_POOL_EXTRA 1024u

struct gnio_pipeline {
	struct gnio_pipeline_cfg cfg;
	char wire[512];
	char why[256];
	/* One device context and one rollback per GPU; queue i runs on
	 * g[i % ngpu]. g[0] is the device of the single-GPU accessors. */
	struct pl_gpu {
		char bus[64];
		struct gnio_gpu *gpu;
		struct gnio_rollback *rb;
	} g[GNIO_PIPELINE_MAX_GPUS];
	uint32_t ngpu;
	int own_gpu; /* created here: destroyed by destroy */
	struct gnio_dev *dev;
	int own_dev; /* opened here: closed by destroy */
	struct gnio_flow *flow; /* made here from flow_file/flow_rules/rss: destroyed by destroy */
	uint32_t nq;
	struct gnio_pipeline_queue q[GNIO_PIPELINE_MAX_QUEUES];
};

void gnio_pipeline_cfg_init(struct gnio_pipeline_cfg *cfg, const char *wire, const char *gpu)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->struct_size = sizeof(*cfg);
	cfg->wire = wire;
	cfg->gpu = gpu;
	cfg->queues = 1;
	cfg->ring = DEF_RING;
	cfg->burst = DEF_BURST;
	cfg->rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU;
	cfg->tx_ring = DEF_TX_RING;
	cfg->proxy_cpu = -1;
}

/* Report a step; on failure make the reason name the step. */
static gnio_error_t step(struct gnio_pipeline *pl, const char *name, const char *layer, gnio_error_t err)
{
	char reason[256];
	snprintf(reason, sizeof(reason), "%s", err ? (*gnio_last_error_msg() ? gnio_last_error_msg()
									   : gnio_error_get_descr(err))
						   : "");
	if (pl->cfg.step_cb)
		pl->cfg.step_cb(pl->cfg.step_user, name, err, layer, reason);
	if (err)
		gnio_set_error_msg("%s: %s", name, reason);
	return err;
}

#define STEP(name, layer, expr)                                                                                \
	do {                                                                                                   \
		gnio_error_t step_err_ = step(pl, name, layer, (expr));                                        \
		if (step_err_)                                                                                 \
			return step_err_;                                                                      \
	} while (0)

/* The CPU queue i's proxies are pinned to, or -1. */
static int proxy_cpu_of(const struct gnio_pipeline_cfg *c, uint32_t i)
{
	if (c->proxy_cpus && c->num_proxy_cpus)
		return c->proxy_cpus[i % c->num_proxy_cpus];
	return c->proxy_cpu >= 0 ? c->proxy_cpu + (int)i : -1;
}

/* The GPU (device context and rollback) queue i runs on. */
static struct pl_gpu *gpu_of(struct gnio_pipeline *pl, uint32_t i)
{
	return &pl->g[pl->ngpu > 1 ? i % pl->ngpu : 0];
}

/* An object the rollback did not take (its registration failed, e.g. out of
 * memory) would never be released: release it here, the one given, and keep
 * the registration's reason for the caller. */
static void release_unregistered(struct pl_gpu *g, void **mem, struct gnio_buf_arr **arr, struct gnio_runner **runner)
{
	char reason[256];
	snprintf(reason, sizeof(reason), "%s", gnio_last_error_msg());
	if (arr) {
		gnio_buf_arr_destroy(*arr);
		*arr = NULL;
	}
	if (mem) {
		gnio_gpu_mem_free(g->gpu, *mem);
		*mem = NULL;
	}
	if (runner) {
		gnio_runner_destroy(*runner);
		*runner = NULL;
	}
	gnio_set_error_msg("%s", reason);
}

static gnio_error_t alloc_pool(struct pl_gpu *g, uint32_t elems, uint32_t slot, enum gnio_gpu_mem_type t,
			       void **mem, struct gnio_buf_arr **arr)
{
	void *cpu;
	gnio_error_t err;
	GNIO_CHECK(gnio_gpu_mem_alloc(g->gpu, (size_t)elems * slot, 4096, t, mem, &cpu));
	if ((err = gnio_rollback_add_mem(g->rb, *mem))) {
		release_unregistered(g, mem, NULL, NULL);
		return err;
	}
	GNIO_CHECK(gnio_buf_arr_create(g->gpu, *mem, slot, elems, arr));
	if ((err = gnio_rollback_add_buf_arr(g->rb, *arr))) {
		release_unregistered(g, NULL, arr, NULL);
		return err;
	}
	return gnio_buf_arr_start(*arr);
}

static gnio_error_t bind_and_start(struct gnio_pipeline *pl, struct pl_gpu *g, struct gnio_ctx *ctx)
{
	if (pl->cfg.pe)
		GNIO_CHECK(gnio_pe_connect_ctx(pl->cfg.pe, ctx));
	GNIO_CHECK(gnio_ctx_set_datapath_on_gpu(ctx, g->gpu));
	return gnio_ctx_start(ctx);
}

static gnio_error_t rx_queue_up(struct gnio_pipeline *pl, uint32_t i, uint32_t slot, uint32_t max_packet,
				uint32_t pool_elems)
{
	const struct gnio_pipeline_cfg *c = &pl->cfg;
	struct gnio_pipeline_queue *q = &pl->q[i];
	struct pl_gpu *g = gpu_of(pl, i);
	STEP("allocate and start the RX pool", "environment",
	     alloc_pool(g, pool_elems, slot, c->rx_mem, &q->rx_mem, &q->rx_pool));
	STEP("create the RX queue", "program", gnio_eth_rxq_create(pl->dev, c->burst, max_packet, &q->rxq));
	STEP("register the RX queue for rollback", "program", gnio_rollback_add_rxq(g->rb, q->rxq));
	STEP("set the RX queue id", "program", gnio_eth_rxq_set_queue_id(q->rxq, (uint16_t)i));
	STEP("set the RX ring size", "program", gnio_eth_rxq_set_num_packets(q->rxq, c->ring));
	STEP("set RX flow control", "program", gnio_eth_rxq_set_flow_control(q->rxq, c->flow_control));
	if (c->inline_header)
		STEP("set the RX inline header", "program", gnio_eth_rxq_set_inline_header(q->rxq, 1));
	if (proxy_cpu_of(c, i) >= 0)
		STEP("pin the RX proxy", "program", gnio_eth_rxq_set_proxy_cpu(q->rxq, proxy_cpu_of(c, i)));
	if (!c->no_rx_pool)
		STEP("register the RX pool with the queue", "program", gnio_eth_rxq_set_pkt_buf(q->rxq, q->rx_pool));
	STEP("start the RX queue on the device (proxy and GPU-visible ring)", "environment",
	     bind_and_start(pl, g, gnio_eth_rxq_as_ctx(q->rxq)));
	STEP("take the RX queue's GPU handle", "program", gnio_eth_rxq_get_gpu_handle(q->rxq, &q->rxh));
	return GNIO_SUCCESS;
}

static gnio_error_t tx_queue_up(struct gnio_pipeline *pl, uint32_t i, uint32_t slot)
{
	const struct gnio_pipeline_cfg *c = &pl->cfg;
	struct gnio_pipeline_queue *q = &pl->q[i];
	struct pl_gpu *g = gpu_of(pl, i);
	if (c->tx_pool)
		STEP("allocate and start the TX pool", "environment",
		     alloc_pool(g, c->tx_ring, slot, GNIO_GPU_MEM_TYPE_CPU_GPU, &q->tx_mem, &q->tx_pool));
	STEP("create the TX queue", "program", gnio_eth_txq_create(pl->dev, c->burst, &q->txq));
	STEP("register the TX queue for rollback", "program", gnio_rollback_add_txq(g->rb, q->txq));
	STEP("set the TX queue id", "program", gnio_eth_txq_set_queue_id(q->txq, (uint16_t)i));
	STEP("set the TX ring size", "program", gnio_eth_txq_set_num_packets(q->txq, c->tx_ring));
	if (proxy_cpu_of(c, i) >= 0)
		STEP("pin the TX proxy", "program", gnio_eth_txq_set_proxy_cpu(q->txq, proxy_cpu_of(c, i)));
	if (q->tx_pool)
		STEP("register the TX pool with the queue", "program", gnio_eth_txq_set_pkt_buf(q->txq, q->tx_pool));
	if (c->tx_notify_cb)
		STEP("register the send notification callback", "program",
		     gnio_eth_txq_gpu_event_notify_send_packet_register(q->txq, c->tx_notify_cb, c->tx_event_user));
	if (c->tx_error_cb)
		STEP("register the send error callback", "program",
		     gnio_eth_txq_gpu_event_error_send_packet_register(q->txq, c->tx_error_cb, c->tx_event_user));
	if (c->tx_in_place && !c->no_rx_pool && q->rx_pool)
		STEP("register the RX pool with the TX queue (in-place send)", "program",
		     gnio_eth_txq_add_buf_arr(q->txq, q->rx_pool));
	STEP("start the TX queue on the device", "environment", bind_and_start(pl, g, gnio_eth_txq_as_ctx(q->txq)));
	STEP("take the TX queue's GPU handle", "program", gnio_eth_txq_get_gpu_handle(q->txq, &q->txh));
	return GNIO_SUCCESS;
}

static gnio_error_t queue_up(struct gnio_pipeline *pl, uint32_t i, uint32_t slot, uint32_t max_packet,
			     uint32_t pool_elems)
{
	const struct gnio_pipeline_cfg *c = &pl->cfg;
	struct gnio_pipeline_queue *q = &pl->q[i];
	struct pl_gpu *g = gpu_of(pl, i);
	gnio_error_t err;
	if (!c->tx_only)
		GNIO_CHECK(rx_queue_up(pl, i, slot, max_packet, pool_elems));
	if (c->tx)
		GNIO_CHECK(tx_queue_up(pl, i, slot));
	if (c->user_mem) {
		STEP("allocate the kernel's memory", "environment",
		     gnio_gpu_mem_alloc(g->gpu, c->user_mem, GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU, &q->user_mem_gpu,
					&q->user_mem_cpu));
		err = gnio_rollback_add_mem(g->rb, q->user_mem_gpu);
		if (err) {
			release_unregistered(g, &q->user_mem_gpu, NULL, NULL);
			q->user_mem_cpu = NULL;
		}
		STEP("register the kernel's memory for rollback", "program", err);
	}
	STEP("create the kernel runner (stop flag)", "program", gnio_runner_create(g->gpu, &q->runner));
	err = gnio_rollback_add_runner(g->rb, q->runner);
	if (err)
		release_unregistered(g, NULL, NULL, &q->runner);
	STEP("register the runner for rollback", "program", err);
	return GNIO_SUCCESS;
}

static gnio_error_t check_cfg(const struct gnio_pipeline_cfg *c)
{
	if (c->struct_size < sizeof(*c))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline",
				 "config struct_size %u is not sizeof(struct gnio_pipeline_cfg) (%zu): use "
				 "gnio_pipeline_cfg_init", c->struct_size, sizeof(*c));
	if (c->queues < 1 || c->queues > GNIO_PIPELINE_MAX_QUEUES)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "queues %u is outside 1..%d", c->queues,
				 GNIO_PIPELINE_MAX_QUEUES);
	if (c->rx_mem != GNIO_GPU_MEM_TYPE_GPU && c->rx_mem != GNIO_GPU_MEM_TYPE_GPU_CPU &&
	    c->rx_mem != GNIO_GPU_MEM_TYPE_CPU_GPU)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "unknown RX memory type %d", (int)c->rx_mem);
	if (c->tx_pool && !c->tx)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "a TX pool needs tx");
	if (c->tx_in_place && !c->tx)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "in-place sending needs tx");
	if ((c->tx_notify_cb || c->tx_error_cb) && !c->pe)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "send event callbacks need a progress engine (pe)");
	if (c->tx_only && (!c->tx || c->tx_in_place))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "tx_only needs tx and no in-place sending");
	return GNIO_SUCCESS;
}

static int pipeline_has_flow(const struct gnio_pipeline *pl)
{
	if (pl->flow)
		return 1;
	pthread_mutex_lock(&pl->dev->lock);
	int has = pl->dev->flow != NULL;
	pthread_mutex_unlock(&pl->dev->lock);
	return has;
}

/* The pipeline's gnio_flow: the rules file, then the rules text, then with
 * rss the default action spreading over every queue. */
static gnio_error_t flow_up(struct gnio_pipeline *pl)
{
	const struct gnio_pipeline_cfg *c = &pl->cfg;
	GNIO_CHECK(gnio_flow_create(pl->dev, &pl->flow));
	if (c->flow_file)
		GNIO_CHECK(gnio_flow_load_file(pl->flow, c->flow_file));
	if (c->flow_rules)
		GNIO_CHECK(gnio_flow_load_string(pl->flow, c->flow_rules, "flow rules"));
	if (!c->rss)
		return GNIO_SUCCESS;
	struct gnio_flow_action a = {.type = GNIO_FLOW_ACTION_GNIO};
	GNIO_CHECK(gnio_flow_get_default(pl->flow, &a));
	if (a.type != GNIO_FLOW_ACTION_GNIO)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline",
				 "rss sets the default action, and the rules already set one (a `default ->` line)");
	if (c->queues > GNIO_FLOW_MAX_RSS_QUEUES)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "rss spreads over at most %d queues, %u asked",
				 GNIO_FLOW_MAX_RSS_QUEUES, c->queues);
	a = (struct gnio_flow_action){.type = GNIO_FLOW_ACTION_RSS, .num_queues = (uint16_t)c->queues};
	for (uint32_t i = 0; i < c->queues; i++)
		a.queues[i] = (uint16_t)i;
	return gnio_flow_set_default(pl->flow, &a);
}

/* cfg.gpu "A,B,...": one device per entry, each listed once. */
static gnio_error_t split_gpus(struct gnio_pipeline *pl, const char *list)
{
	const char *p = list;
	pl->ngpu = 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		if (pl->ngpu == GNIO_PIPELINE_MAX_GPUS)
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "more than %d devices in '%s'",
					 GNIO_PIPELINE_MAX_GPUS, list);
		if (!n || n >= sizeof(pl->g[0].bus))
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "'%s': %s device in the list", list,
					 n ? "a too long" : "an empty");
		memcpy(pl->g[pl->ngpu].bus, p, n);
		pl->g[pl->ngpu].bus[n] = 0;
		for (uint32_t k = 0; k < pl->ngpu; k++)
			if (!strcmp(pl->g[k].bus, pl->g[pl->ngpu].bus))
				return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "'%s': device %s is listed twice",
						 list, pl->g[k].bus);
		pl->ngpu++;
		if (!p[n])
			break;
		p += n + 1;
	}
	if (pl->ngpu > 1)
		for (uint32_t k = 0; k < pl->ngpu; k++)
			if (!strcmp(pl->g[k].bus, "cpu"))
				return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline",
						 "'%s': the CPU device runs alone, not in a list of GPUs", list);
	return GNIO_SUCCESS;
}

static gnio_error_t build(struct gnio_pipeline *pl)
{
	const struct gnio_pipeline_cfg *c = &pl->cfg;
	pl->ngpu = 1;
	if (c->gpu && strchr(c->gpu, ',') && !c->gpu_ctx) {
		STEP("read the device list", "program", split_gpus(pl, c->gpu));
		if (c->queues < pl->ngpu)
			STEP("check the queue count", "program",
			     gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline",
				       "%u devices need at least as many queues (queue i runs on the (i %% %u)-th), %u asked",
				       pl->ngpu, pl->ngpu, c->queues));
	} else if (c->gpu_ctx) {
		snprintf(pl->g[0].bus, sizeof(pl->g[0].bus), "%s", gnio_gpu_get_bus_id(c->gpu_ctx));
	} else if (c->gpu) {
		snprintf(pl->g[0].bus, sizeof(pl->g[0].bus), "%s", c->gpu);
	} else {
		STEP("pick the best device present", "environment",
		     gnio_gpu_pick_best(pl->g[0].bus, sizeof(pl->g[0].bus), pl->why, sizeof(pl->why)));
	}
	if (c->dev) {
		pl->dev = c->dev;
		snprintf(pl->wire, sizeof(pl->wire), "%s", gnio_devinfo_get_spec(gnio_dev_as_devinfo(c->dev)));
	} else {
		STEP("open the wire", "environment", gnio_dev_open(pl->wire, &pl->dev));
		pl->own_dev = 1;
	}
	if (pl->own_dev || c->poll_mode != GNIO_POLL_ADAPTIVE)
		STEP("set the polling mode", "program",
		     gnio_dev_set_poll_mode(pl->dev, (enum gnio_poll_mode)c->poll_mode));
	if (c->flow_file || c->flow_rules || c->rss)
		STEP("load the steering rules", "program", flow_up(pl));
	if (c->gpu_ctx) {
		pl->g[0].gpu = c->gpu_ctx;
	} else {
		pl->own_gpu = 1;
		for (uint32_t k = 0; k < pl->ngpu; k++)
			STEP("create the device context", "environment", gnio_gpu_create(pl->g[k].bus, &pl->g[k].gpu));
	}
	for (uint32_t k = 0; k < pl->ngpu; k++)
		STEP("create the rollback", "program", gnio_rollback_create(pl->g[k].gpu, &pl->g[k].rb));

	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	STEP("read the wire's capabilities", "environment", gnio_devinfo_get_caps(gnio_dev_as_devinfo(pl->dev), &caps));
	/* Steering may fan one wire queue out to more rings than the wire has. */
	if (caps.num_rx_queues && c->queues > caps.num_rx_queues && !pipeline_has_flow(pl))
		STEP("check the queue count", "environment",
		     gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "the wire %s has %u RX queue(s), %u asked",
			       pl->wire, caps.num_rx_queues, c->queues));
	uint32_t slot = c->slot;
	if (!slot)
		slot = c->max_packet > DEF_SLOT ? (c->max_packet + 63u) / 64u * 64u : DEF_SLOT;
	uint32_t max_packet = c->max_packet ? c->max_packet : slot;
	if (caps.max_frame_size && max_packet > caps.max_frame_size)
		max_packet = caps.max_frame_size;
	if (max_packet > slot)
		STEP("check the frame size", "program",
		     gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "frames of %u bytes do not fit slots of %u",
			       max_packet, slot));
	uint32_t pool_elems = c->ring;
	if (!strcmp(gnio_devinfo_get_wire(gnio_dev_as_devinfo(pl->dev)), "afxdp"))
		pool_elems += AFXDP_POOL_EXTRA;
	/* With steering, the last queue starts first: a queue's proxy may
	 * steer frames to any other as soon as it runs (a pcap replays at
	 * once), so the destinations are up before the sources (queue 0, the
	 * one every wire feeds, starts last). */
	const int steered = pipeline_has_flow(pl);
	for (uint32_t n = 0; n < c->queues; n++) {
		uint32_t i = steered ? c->queues - 1 - n : n;
		GNIO_CHECK(queue_up(pl, i, slot, max_packet, pool_elems));
		if (!steered)
			pl->nq = i + 1;
	}
	pl->nq = c->queues;
	return GNIO_SUCCESS;
}

/* Undo a partial bring-up; keeps the caller's error message. */
static gnio_error_t stop_all_kernels(struct gnio_pipeline *pl, uint32_t deadline_ms);

static void teardown(struct gnio_pipeline *pl)
{
	if (pl->ngpu > 1)
		stop_all_kernels(pl, 5000); /* see gnio_pipeline_rollback */
	for (uint32_t k = 0; k < GNIO_PIPELINE_MAX_GPUS; k++)
		if (pl->g[k].rb) {
			gnio_rollback_run(pl->g[k].rb, 5000);
			gnio_rollback_destroy(pl->g[k].rb);
			pl->g[k].rb = NULL;
		}
	for (uint32_t i = 0; i < GNIO_PIPELINE_MAX_QUEUES; i++) {
		struct gnio_pipeline_queue *q = &pl->q[i];
		if (q->txq) {
			enum gnio_ctx_state s;
			if (gnio_ctx_get_state(gnio_eth_txq_as_ctx(q->txq), &s) == GNIO_SUCCESS &&
			    s == GNIO_CTX_STATE_STARTED)
				gnio_ctx_stop(gnio_eth_txq_as_ctx(q->txq));
			if (pl->cfg.pe)
				gnio_pe_disconnect_ctx(pl->cfg.pe, gnio_eth_txq_as_ctx(q->txq));
			gnio_eth_txq_destroy(q->txq);
		}
		if (q->rxq) {
			enum gnio_ctx_state s;
			if (gnio_ctx_get_state(gnio_eth_rxq_as_ctx(q->rxq), &s) == GNIO_SUCCESS &&
			    s == GNIO_CTX_STATE_STARTED)
				gnio_ctx_stop(gnio_eth_rxq_as_ctx(q->rxq));
			if (pl->cfg.pe)
				gnio_pe_disconnect_ctx(pl->cfg.pe, gnio_eth_rxq_as_ctx(q->rxq));
			gnio_eth_rxq_destroy(q->rxq);
		}
		memset(q, 0, sizeof(*q));
	}
	if (pl->flow)
		gnio_flow_destroy(pl->flow);
	pl->flow = NULL;
	if (pl->dev && pl->own_dev)
		gnio_dev_close(pl->dev);
	for (uint32_t k = 0; k < GNIO_PIPELINE_MAX_GPUS; k++) {
		if (pl->g[k].gpu && pl->own_gpu)
			gnio_gpu_destroy(pl->g[k].gpu);
		pl->g[k].gpu = NULL;
	}
	pl->dev = NULL;
}

gnio_error_t gnio_pipeline_create(const struct gnio_pipeline_cfg *cfg, struct gnio_pipeline **out)
{
	gnio_api_enter();
	if (!cfg || !out)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "create: NULL argument");
	GNIO_CHECK(check_cfg(cfg));
	struct gnio_pipeline *pl = calloc(1, sizeof(*pl));
	if (!pl)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "pipeline", "out of memory");
	pl->cfg = *cfg;
	snprintf(pl->wire, sizeof(pl->wire), "%s", cfg->wire ? cfg->wire : DEF_WIRE);
	pl->cfg.wire = pl->wire;
	if (!pl->cfg.ring)
		pl->cfg.ring = DEF_RING;
	if (!pl->cfg.burst)
		pl->cfg.burst = DEF_BURST;
	if (!pl->cfg.tx_ring)
		pl->cfg.tx_ring = DEF_TX_RING;
	gnio_error_t err = build(pl);
	if (err) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s", gnio_last_error_msg());
		teardown(pl);
		free(pl);
		gnio_set_error_msg("%s", msg);
		return err;
	}
	*out = pl;
	return GNIO_SUCCESS;
}

uint32_t gnio_pipeline_get_num_queues(const struct gnio_pipeline *pl) { return pl ? pl->nq : 0; }

gnio_error_t gnio_pipeline_get_queue(const struct gnio_pipeline *pl, uint32_t i, struct gnio_pipeline_queue *q)
{
	gnio_api_enter();
	if (!pl || !q)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "get_queue: NULL argument");
	if (i >= pl->nq)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "queue %u: the pipeline has %u", i, pl->nq);
	*q = pl->q[i];
	return GNIO_SUCCESS;
}

struct gnio_gpu *gnio_pipeline_get_gpu(const struct gnio_pipeline *pl) { return pl ? pl->g[0].gpu : NULL; }
uint32_t gnio_pipeline_get_num_gpus(const struct gnio_pipeline *pl) { return pl ? pl->ngpu : 0; }
struct gnio_gpu *gnio_pipeline_get_queue_gpu(const struct gnio_pipeline *pl, uint32_t i)
{
	return pl && i < pl->nq ? pl->g[pl->ngpu > 1 ? i % pl->ngpu : 0].gpu : NULL;
}
struct gnio_dev *gnio_pipeline_get_dev(const struct gnio_pipeline *pl) { return pl ? pl->dev : NULL; }
struct gnio_flow *gnio_pipeline_get_flow(const struct gnio_pipeline *pl) { return pl ? pl->flow : NULL; }
const char *gnio_pipeline_get_device_reason(const struct gnio_pipeline *pl) { return pl ? pl->why : ""; }
struct gnio_rollback *gnio_pipeline_get_rollback(const struct gnio_pipeline *pl) { return pl ? pl->g[0].rb : NULL; }

gnio_error_t gnio_pipeline_launch(struct gnio_pipeline *pl, uint32_t i, gnio_runner_launch_fn fn, void *user)
{
	gnio_api_enter();
	if (!pl || !fn)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "launch: NULL argument");
	if (i >= pl->nq || !pl->q[i].runner)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "launch: no queue %u", i);
	return gnio_runner_start(pl->q[i].runner, fn, user);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

gnio_error_t gnio_pipeline_quiesce(struct gnio_pipeline *pl, uint32_t timeout_ms)
{
	gnio_api_enter();
	if (!pl)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "quiesce: NULL");
	for (uint32_t i = 0; i < pl->nq; i++)
		if (pl->q[i].rxq)
			GNIO_CHECK(gnio_eth_rxq_quiesce(pl->q[i].rxq));
	uint64_t end = mono_ms() + timeout_ms;
	for (;;) {
		uint32_t behind = 0;
		for (uint32_t i = 0; i < pl->nq; i++) {
			struct gnio_eth_rxq_stats st;
			if (!pl->q[i].rxq)
				continue;
			GNIO_CHECK(gnio_eth_rxq_get_stats(pl->q[i].rxq, &st));
			behind += st.released != st.rx_packets;
		}
		if (!behind)
			return GNIO_SUCCESS;
		if (mono_ms() >= end)
			return gnio_fail(GNIO_ERROR_TIME_OUT, "pipeline",
					 "%u queue(s) still hold frames their kernel has not released after %u ms",
					 behind, timeout_ms);
		sleep_ms(1);
	}
}

static gnio_error_t stop_all_kernels(struct gnio_pipeline *pl, uint32_t deadline_ms)
{
	for (uint32_t i = 0; i < pl->nq; i++) {
		struct gnio_runner *r = pl->q[i].runner;
		if (!r || gnio_runner_get_state(r) != GNIO_RUNNER_RUNNING)
			continue;
		gnio_error_t err = gnio_runner_stop(r, deadline_ms);
		if (err == GNIO_ERROR_TIME_OUT)
			return err;
		/* DRIVER (the kernel faulted): it has ended; the rollback's
		 * step 1 reports it */
	}
	return GNIO_SUCCESS;
}

gnio_error_t gnio_pipeline_rollback(struct gnio_pipeline *pl, uint32_t deadline_ms, gnio_rollback_step_fn fn,
				    void *user)
{
	gnio_api_enter();
	gnio_error_t err;
	if (!pl || !pl->g[0].rb)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "rollback: NULL pipeline");
	/* Several GPUs: every kernel stops before any GPU's rollback frees
	 * anything. A free may wait for every kernel of its device (cudaFree
	 * synchronises it), so freeing while another context's kernel on the
	 * same device still runs would wait for ever. A kernel that misses the
	 * deadline fails the whole rollback closed. */
	if (pl->ngpu > 1 && (err = stop_all_kernels(pl, deadline_ms)))
		return err;
	/* Then each GPU's five steps in turn; the first failure stops (its
	 * rollback keeps its state and the next call resumes there). */
	for (uint32_t k = 0; k < pl->ngpu; k++) {
		gnio_rollback_set_step_cb(pl->g[k].rb, fn, user);
		if ((err = gnio_rollback_run(pl->g[k].rb, deadline_ms)))
			return err;
	}
	return GNIO_SUCCESS;
}

gnio_error_t gnio_pipeline_set_trial_start(struct gnio_pipeline *pl, int on)
{
	gnio_api_enter();
	if (!pl)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "set_trial_start: NULL");
	for (uint32_t k = 0; k < pl->ngpu; k++)
		GNIO_CHECK(gnio_rollback_set_trial_start(pl->g[k].rb, on));
	return GNIO_SUCCESS;
}

gnio_error_t gnio_pipeline_destroy(struct gnio_pipeline *pl)
{
	gnio_api_enter();
	if (!pl)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pipeline", "destroy: NULL");
	if (pl->ngpu > 1 && stop_all_kernels(pl, 5000) == GNIO_ERROR_TIME_OUT)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "pipeline",
				 "a kernel did not stop: memory stays allocated on purpose");
	for (uint32_t k = 0; k < pl->ngpu; k++) {
		unsigned next = 0;
		gnio_rollback_get_next_step(pl->g[k].rb, &next);
		if (next == GNIO_ROLLBACK_DONE)
			continue;
		gnio_rollback_set_step_cb(pl->g[k].rb, NULL, NULL);
		gnio_error_t err = gnio_rollback_run(pl->g[k].rb, 5000);
		gnio_rollback_get_next_step(pl->g[k].rb, &next);
		/* Step 5 only re-verifies: by then everything is freed. */
		if (next == 5)
			return gnio_fail(GNIO_ERROR_BAD_STATE, "pipeline",
					 "the rollback of %s stopped at step 5, the re-verify (%s): everything is freed, "
					 "the queues were not shown restartable; destroy again to finish",
					 pl->g[k].bus, gnio_error_get_name(err));
		if (next != GNIO_ROLLBACK_DONE)
			return gnio_fail(GNIO_ERROR_BAD_STATE, "pipeline",
					 "the rollback of %s stopped at step %u (%s): memory stays allocated on purpose",
					 pl->g[k].bus, next, gnio_error_get_name(err));
	}
	teardown(pl);
	free(pl);
	return GNIO_SUCCESS;
}
