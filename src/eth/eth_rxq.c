/* SPDX-License-Identifier: MIT */
/* src/eth/eth_rxq.c - receive queue lifecycle: configure, start (wire queue,
 * GPU-visible ring, proxy), stop, counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "eth/eth_rxq_priv.h"
#include "gpu/buf_arr_priv.h"
#include "gpu/gpu_priv.h"
#include "eth/eth_queue.h"
#include "gnio/flow.h"


static gnio_error_t rxq_start(struct gnio_ctx *ctx);
static gnio_error_t rxq_stop(struct gnio_ctx *ctx);
static const struct gnio_ctx_ops rxq_ctx_ops = {.kind = "eth_rxq", .start = rxq_start, .stop = rxq_stop};

const char *gnio_drop_reason_name(enum gnio_drop_reason r)
{
	switch (r) {
	case GNIO_DROP_RING_FULL: return "ring_full";
	case GNIO_DROP_TOO_BIG: return "too_big";
	case GNIO_DROP_RUNT: return "runt";
	case GNIO_DROP_WIRE_OVERFLOW: return "wire_overflow";
	case GNIO_DROP_STOPPED: return "stopped";
	case GNIO_DROP_DEVICE_ERROR: return "device_error";
	case GNIO_DROP_NO_BUFFER: return "no_buffer";
	case GNIO_DROP_FLOW_DROP: return "flow_drop";
	case GNIO_DROP_FLOW_KERNEL: return "flow_kernel";
	case GNIO_DROP_NO_QUEUE: return "no_queue";
	case GNIO_DROP_REASON_COUNT: break;
	}
	return "unknown";
}

static uint32_t wire_max_frame(struct gnio_dev *dev)
{
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	if (gnio_devinfo_get_caps(gnio_dev_as_devinfo(dev), &caps) != GNIO_SUCCESS)
		return 0;
	return caps.max_frame_size;
}

gnio_error_t gnio_eth_rxq_create(struct gnio_dev *dev, uint32_t max_burst_size, uint32_t max_packet_size,
				 struct gnio_eth_rxq **rxq)
{
	gnio_api_enter();
	if (!dev || !rxq)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "create: NULL argument");
	GNIO_CHECK(gnio_eth_queue_check_burst(max_burst_size, "eth_rxq"));
	uint32_t wmax = wire_max_frame(dev);
	if (max_packet_size < 14 || (wmax && max_packet_size > wmax))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq",
				 "max packet size %u is outside 14..%u (the wire %s's largest frame)", max_packet_size,
				 wmax, dev->spec);
	struct gnio_eth_rxq *q = calloc(1, sizeof(*q));
	if (!q)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "eth_rxq", "out of memory");
	gnio_ctx_init(&q->ctx, &rxq_ctx_ops);
	q->dev = dev;
	q->max_burst = max_burst_size;
	q->max_packet = max_packet_size;
	q->num_packets = GNIO_ETH_QUEUE_DEFAULT_PACKETS;
	q->proxy_cpu = -1;
	gnio_eth_queue_count(dev, 1);
	*rxq = q;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_destroy(struct gnio_eth_rxq *q)
{
	gnio_api_enter();
	if (!q)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "destroy: NULL");
	if (q->ctx.state == GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_rxq", "stop the queue before destroying it");
	gnio_eth_queue_forget_pool(&q->pool);
	gnio_ctx_fini(&q->ctx);
	gnio_eth_queue_count(q->dev, -1);
	free(q);
	return GNIO_SUCCESS;
}

struct gnio_ctx *gnio_eth_rxq_as_ctx(struct gnio_eth_rxq *q) { return q ? &q->ctx : NULL; }


gnio_error_t gnio_eth_rxq_set_type(struct gnio_eth_rxq *q, enum gnio_eth_rxq_type type)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_rxq", "the queue type");
	if (type != GNIO_ETH_RXQ_TYPE_CYCLIC)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "unknown RX queue type %d", (int)type);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_set_num_packets(struct gnio_eth_rxq *q, uint32_t num)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_rxq", "the number of packets");
	GNIO_CHECK(gnio_eth_queue_check_ring(num, "eth_rxq"));
	q->num_packets = num;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_set_queue_id(struct gnio_eth_rxq *q, uint16_t id)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_rxq", "the queue id");
	q->queue_id = id;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_set_pkt_buf(struct gnio_eth_rxq *q, struct gnio_buf_arr *pool)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_rxq", "the packet buffer");
	return gnio_eth_queue_set_pool(&q->pool, pool, 1, "eth_rxq");
}

gnio_error_t gnio_eth_rxq_set_flow_control(struct gnio_eth_rxq *q, int on)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_rxq", "flow control");
	q->flow_control = !!on;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_set_inline_header(struct gnio_eth_rxq *q, int on)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_rxq", "the inline header");
	q->inline_header = !!on;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_set_proxy_cpu(struct gnio_eth_rxq *q, int cpu)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_rxq", "the proxy CPU");
	q->proxy_cpu = cpu;
	return GNIO_SUCCESS;
}

/* GNIO_STAGE_COPY=slots: a GPU-memory pool's batches are copied as whole
 * slots; rows (the default) or anything else: each frame's bytes (gnio(1)). */
static int stage_copy_slots(void)
{
	const char *v = getenv("GNIO_STAGE_COPY");
	return v && !strcmp(v, "slots");
}

static void free_ring(struct gnio_eth_rxq *q, struct gnio_gpu *gpu)
{
	gnio_gpu_free_internal(gpu, q->handle);
	gnio_gpu_free_internal(gpu, q->lc_gpu);
	gnio_gpu_free_internal(gpu, q->cqe_gpu);
	gnio_gpu_free_internal(gpu, q->meta_gpu);
	gnio_gpu_free_internal(gpu, q->hdr_local_gpu);
	gnio_gpu_free_internal(gpu, q->sh_gpu);
	gnio_gpu_free_internal(gpu, q->stage_mirror);
	gnio_gpu_free_internal(gpu, q->stage_word);
	q->handle = NULL;
	q->lc_gpu = q->cqe_gpu = q->meta_gpu = q->sh_gpu = q->stage_mirror = q->stage_word = NULL;
	q->hdr_local_gpu = NULL;
}

static gnio_error_t rxq_start(struct gnio_ctx *ctx)
{
	struct gnio_eth_rxq *q = (struct gnio_eth_rxq *)ctx;
	struct gnio_gpu *gpu = ctx->gpu;
	struct gnio_buf_arr *pool = q->pool;
	gnio_error_t err;

	GNIO_CHECK(gnio_eth_queue_check_pool(pool, gpu, q->num_packets, "eth_rxq"));
	/* A completion word carries the frame's offset in 40 bits and its
	 * length in 20 (ring.h). */
	if (pool && (uint64_t)pool->elem_size * pool->num_elem > GNIO_RX_META_OFF_MASK + 1)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "eth_rxq", "a packet buffer of more than 1 TiB cannot be received into");
	if (pool && !pool->base_cpu && !(gpu && gpu->ops->copy_async))
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "eth_rxq",
				 "device %s cannot stage RX payloads into GPU memory; use a CPU_GPU pool",
				 gpu ? gpu->bus_id : "(none)");

	/* A flow on the wire: this queue's proxy classifies every burst and
	 * takes the frames other queues steer to it (proxy/steer.h). */
	pthread_mutex_lock(&q->dev->lock);
	struct gnio_flow *flow = gpu ? q->dev->flow : NULL;
	pthread_mutex_unlock(&q->dev->lock);
	if (flow && q->queue_id >= GNIO_STEER_MAX_QUEUES)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "eth_rxq",
				 "queue %u: with a flow on %s, RX queue ids are 0..%d (the queues rules can reach)",
				 q->queue_id, q->dev->spec, GNIO_STEER_MAX_QUEUES - 1);
	if (flow && __atomic_load_n(&q->dev->steer[q->queue_id].box, __ATOMIC_ACQUIRE))
		return gnio_fail(GNIO_ERROR_IN_USE, "eth_rxq", "queue %u on %s is already started by another RX queue",
				 q->queue_id, q->dev->spec);

	struct gnio_wire_queue_cfg cfg = {
		.queue_id = q->queue_id,
		.max_frame = q->max_packet,
		.ring_size = q->num_packets,
		.burst = q->max_burst < GNIO_PROXY_MAX_BURST ? q->max_burst : GNIO_PROXY_MAX_BURST,
	};
	/* Steering copies frames between rings, so the wire does not place
	 * them in the pool itself (afxdp: an internal UMEM). */
	if (pool && !(flow && q->dev->ops->rx_burst_zc)) {
		cfg.pool_cpu = pool->base_cpu;
		cfg.pool_size = (uint64_t)pool->elem_size * pool->num_elem;
		cfg.slot_size = pool->elem_size;
		cfg.num_slots = pool->num_elem;
	}
	/* With a flow, a queue id past the wire's own queues gets a ring that
	 * only steering fills (one wire queue fanned out to several rings). */
	int ring_only = 0;
	if (flow) {
		struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
		ring_only = gnio_devinfo_get_caps(gnio_dev_as_devinfo(q->dev), &caps) == GNIO_SUCCESS &&
			    caps.num_rx_queues && q->queue_id >= caps.num_rx_queues;
	}
	if (!ring_only) {
		err = q->dev->ops->rxq_open(q->dev->wire, &cfg, &q->wq);
		if (err != GNIO_SUCCESS)
			return err;
	}
	/* Count only what overflows from now on: the wire may keep its queue's
	 * counter across a stop and restart. */
	q->wire_overflow_base = 0;
	if (q->wq && q->dev->ops->rxq_stats) {
		struct gnio_wire_rxq_stats ws = {0};
		q->dev->ops->rxq_stats(q->wq, &ws);
		q->wire_overflow_base = ws.overflow;
	}
	memset(&q->proxy, 0, sizeof(q->proxy));
	if (!gpu) {
		/* CPU datapath: no ring, no thread; gnio_eth_rxq_recv_burst
		 * counts into the proxy's counters. */
		q->proxy.ops = q->dev->ops;
		q->proxy.wq = q->wq;
		q->proxy.cap = q->max_packet;
		return GNIO_SUCCESS;
	}

	struct gnio_rx_ring_shared *sh_cpu;
	struct gnio_rx_cqe *cqe_cpu;
	uint32_t size = q->num_packets;
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, sizeof(*sh_cpu), GNIO_GPU_MEM_TYPE_CPU_GPU, &q->sh_gpu,
						(void **)&sh_cpu), err, fail);
	/* With an inline header a completion is one 64-byte line (ring.h). */
	const uint32_t cqe_shift = q->inline_header ? GNIO_RX_CQE_INLINE_SHIFT : GNIO_RX_CQE_SHIFT;
	const size_t cqe_bytes = ((size_t)size << cqe_shift) * sizeof(uint64_t);
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, cqe_bytes, GNIO_GPU_MEM_TYPE_CPU_GPU, &q->cqe_gpu,
						(void **)&cqe_cpu), err, fail);
	/* Phase 0 everywhere: no completion looks ready before its first post. */
	memset(cqe_cpu, 0, cqe_bytes);
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, (size_t)size * sizeof(uint64_t), GNIO_GPU_MEM_TYPE_GPU,
						&q->meta_gpu, NULL), err, fail);
	if (q->inline_header) /* the receive's copy of the headers: 8 words per entry */
		GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, (size_t)size * GNIO_RX_HDR_LOCAL_WORDS * sizeof(uint64_t), GNIO_GPU_MEM_TYPE_GPU,
							&q->hdr_local_gpu, NULL), err, fail);
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, sizeof(struct gnio_rx_ring_local), GNIO_GPU_MEM_TYPE_GPU,
						&q->lc_gpu, NULL), err, fail);
	GNIO_CHECK_GOTO(gpu->ops->memset_dev(gpu, q->lc_gpu, 0, sizeof(struct gnio_rx_ring_local)), err, fail);

	struct gnio_gpu_eth_rxq h = {
		.sh = q->sh_gpu,
		.lc = q->lc_gpu,
		.cqe = q->cqe_gpu,
		.meta = q->meta_gpu,
		.hdr_local = q->hdr_local_gpu,
		.pool = pool ? pool->base_gpu : NULL,
		.pool_size = pool ? (uint64_t)pool->elem_size * pool->num_elem : 0,
		.size = size,
		.mask = size - 1,
		.size_log2 = (uint32_t)__builtin_ctz(size),
		.slot_size = pool ? pool->elem_size : 0,
		.queue_id = q->queue_id,
		.pkt_mkey = pool ? pool->mkey : 0,
		.cqe_shift = cqe_shift,
	};
	GNIO_CHECK_GOTO(gnio_gpu_put_handle(gpu, &h, sizeof(h), (void **)&q->handle), err, fail);

	struct gnio_rx_proxy *p = &q->proxy;
	p->ops = q->dev->ops;
	p->wq = q->wq;
	p->no_wire = ring_only;
	p->stamp = gnio_proxy_stamps_wanted();
	p->last_publish_ns = 0;
	p->gpu = gpu;
	p->ctx = ctx;
	p->sh = sh_cpu;
	p->cqe = cqe_cpu;
	p->cqe_shift = cqe_shift;
	p->inline_hdr = q->inline_header;
	p->size = size;
	p->mask = size - 1;
	p->burst = cfg.burst < size ? cfg.burst : size;
	p->flow_control = q->flow_control;
	if (pool) {
		p->slot_size = pool->elem_size;
		p->cap = pool->elem_size < q->max_packet ? pool->elem_size : q->max_packet;
		if (p->cap > GNIO_RX_META_LEN_MAX)
			p->cap = GNIO_RX_META_LEN_MAX; /* longer frames are counted as too_big */
		p->pool_size = h.pool_size;
		p->zero_copy = !flow && pool->base_cpu && q->dev->ops->rx_burst_zc && q->dev->ops->rx_release_zc;
		p->hold = pool->hold_cpu;
		p->hold_users = &pool->inplace_tx_users;
		if (pool->base_cpu) {
			p->pool_cpu = pool->base_cpu;
		} else {
			/* GPU-memory pool: frames land in a pinned host mirror first. */
			GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, h.pool_size, GNIO_GPU_MEM_TYPE_CPU_GPU,
								&q->stage_mirror, (void **)&p->pool_cpu), err, fail);
			p->pool_dev = pool->base_gpu;
			/* the copies' landing word, on a line of its own */
			GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU, &q->stage_word,
								(void **)&p->stage_word), err, fail);
			p->stage_word_dev = q->stage_word;
			p->stage_slots = stage_copy_slots();
		}
		if (flow) {
			GNIO_CHECK_GOTO(gnio_flow_reader_create(flow, q->queue_id, &p->flow_rd), err, fail);
			p->steer = q->dev->steer;
			p->queue_id = q->queue_id;
		}
		GNIO_CHECK_GOTO(gnio_rx_proxy_init(p), err, fail_proxy);
		if (flow) {
			GNIO_CHECK_GOTO(gnio_steer_open(&q->dev->steer[q->queue_id], p->cap), err, fail_proxy);
			p->inbox = q->dev->steer[q->queue_id].box;
		}
		gnio_eth_queue_pin_pool(gpu, pool, 0, &q->pool_ref); /* the pool stays while the proxy writes it */
		memset(&q->thread, 0, sizeof(q->thread));
		q->thread.step = gnio_rx_proxy_step;
		q->thread.arg = p;
		q->thread.cpu = q->proxy_cpu;
		q->thread.poll_mode = __atomic_load_n(&q->dev->poll_mode, __ATOMIC_RELAXED);
		q->thread.wait = gnio_rx_proxy_wait;
		p->kick = &q->dev->tx_kick;
		p->sleepers = &q->dev->tx_sleepers;
		snprintf(q->thread.name, sizeof(q->thread.name), "gnio-rx%u", q->queue_id);
		GNIO_CHECK_GOTO(gnio_proxy_thread_start(&q->thread), err, fail_ref);
		pthread_mutex_lock(&q->dev->lock);
		q->dev->rx_started++;
		pthread_mutex_unlock(&q->dev->lock);
		GNIO_LOG_INFO("eth_rxq", "queue %u on %s started: %u entries, %s payloads%s%s%s", q->queue_id,
			      q->dev->spec, size,
			      p->zero_copy ? "zero-copy" : (p->pool_dev ? "staged to GPU memory" : "copied"),
			      q->flow_control ? ", flow control" : "", flow ? ", steered by the wire's flow" : "",
			      q->inline_header ? ", inline header" : "");
	} else {
		GNIO_LOG_WARN("eth_rxq", "queue %u on %s started without a packet buffer: the kernel's first recv "
			      "returns BAD_STATE", q->queue_id, q->dev->spec);
	}
	return GNIO_SUCCESS;

fail_ref:
	gnio_eth_queue_unpin_pool(gpu, &q->pool_ref, 0);
fail_proxy:
	if (q->proxy.inbox)
		gnio_steer_close(&q->dev->steer[q->queue_id]);
	gnio_rx_proxy_fini(&q->proxy);
fail:
	if (q->proxy.flow_rd)
		gnio_flow_reader_destroy(q->proxy.flow_rd);
	q->proxy.flow_rd = NULL;
	free_ring(q, gpu);
	if (q->wq)
		q->dev->ops->rxq_close(q->wq);
	q->wq = NULL;
	return err;
}

/* Close the queue's inbox once its proxy has stopped: frames other queues
 * steered to it and it never took are counted as stopped here; later ones
 * are counted stopped by their senders. */
static void steer_close(struct gnio_eth_rxq *q)
{
	if (!q->proxy.inbox)
		return;
	uint64_t left = gnio_steer_close(&q->dev->steer[q->queue_id]);
	q->proxy.inbox = NULL;
	STAT_ADD(q->proxy.steered_in, left);
	STAT_ADD(q->proxy.dropped[GNIO_DROP_STOPPED], left);
}

static void fold_stats(struct gnio_eth_rxq *q, struct gnio_eth_rxq_stats *st)
{
	struct gnio_rx_proxy *p = &q->proxy;
	st->rx_packets += __atomic_load_n(&p->rx_packets, __ATOMIC_RELAXED);
	st->rx_bytes += __atomic_load_n(&p->rx_bytes, __ATOMIC_RELAXED);
	st->steered_out += __atomic_load_n(&p->steered_out, __ATOMIC_RELAXED);
	st->steered_in += __atomic_load_n(&p->steered_in, __ATOMIC_RELAXED);
	const uint64_t pub = __atomic_load_n(&p->last_publish_ns, __ATOMIC_RELAXED);
	if (pub > st->last_publish_ns)
		st->last_publish_ns = pub;
	if (p->sh)
		st->released += gnio_load_acquire_u64(&p->sh->cons);
	for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
		st->dropped[i] += __atomic_load_n(&p->dropped[i], __ATOMIC_RELAXED);
	if (q->wq && q->dev->ops->rxq_stats) {
		struct gnio_wire_rxq_stats ws = {0};
		q->dev->ops->rxq_stats(q->wq, &ws);
		st->dropped[GNIO_DROP_WIRE_OVERFLOW] += ws.overflow - q->wire_overflow_base;
	}
}

static gnio_error_t rxq_stop(struct gnio_ctx *ctx)
{
	struct gnio_eth_rxq *q = (struct gnio_eth_rxq *)ctx;
	struct gnio_gpu *gpu = ctx->gpu;
	if (gpu && q->proxy.frames && !q->quiesced) {
		gnio_proxy_thread_stop(&q->thread);
		gnio_rx_proxy_drain(&q->proxy);
	}
	if (gpu && q->proxy.frames) {
		steer_close(q);
		pthread_mutex_lock(&q->dev->lock);
		q->dev->rx_started--;
		pthread_mutex_unlock(&q->dev->lock);
	}
	q->quiesced = 0;
	/* Keep this run's counters before the wire queue and ring go away. */
	struct gnio_eth_rxq_stats run = {0};
	fold_stats(q, &run);
	q->past.rx_packets += run.rx_packets;
	q->past.rx_bytes += run.rx_bytes;
	q->past.steered_out += run.steered_out;
	q->past.steered_in += run.steered_in;
	q->past.released += run.released;
	if (run.last_publish_ns > q->past.last_publish_ns)
		q->past.last_publish_ns = run.last_publish_ns;
	for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
		q->past.dropped[i] += run.dropped[i];
	if (gpu) {
		if (q->proxy.flow_rd)
			gnio_flow_reader_destroy(q->proxy.flow_rd);
		gnio_rx_proxy_fini(&q->proxy);
		gnio_eth_queue_unpin_pool(gpu, &q->pool_ref, 0);
		free_ring(q, gpu);
	}
	memset(&q->proxy, 0, sizeof(q->proxy));
	if (q->wq)
		q->dev->ops->rxq_close(q->wq);
	q->wq = NULL;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_quiesce(struct gnio_eth_rxq *q)
{
	gnio_api_enter();
	if (!q)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "quiesce: NULL queue");
	if (q->ctx.state != GNIO_CTX_STATE_STARTED || !q->ctx.gpu)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_rxq", "quiesce needs a started queue with a GPU datapath");
	if (q->quiesced || !q->proxy.frames)
		return GNIO_SUCCESS;
	gnio_proxy_thread_stop(&q->thread);
	gnio_rx_proxy_drain(&q->proxy);
	steer_close(q);
	q->quiesced = 1;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_get_gpu_handle(struct gnio_eth_rxq *q, struct gnio_gpu_eth_rxq **handle)
{
	gnio_api_enter();
	if (!q || !handle)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "get_gpu_handle: NULL argument");
	GNIO_CHECK(gnio_eth_queue_check_handle(&q->ctx, "eth_rxq"));
	*handle = q->handle;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_get_stats(struct gnio_eth_rxq *q, struct gnio_eth_rxq_stats *st)
{
	gnio_api_enter();
	if (!q || !st)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "get_stats: NULL argument");
	*st = q->past;
	if (q->ctx.state == GNIO_CTX_STATE_STARTED)
		fold_stats(q, st);
	st->dropped_total = 0;
	for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
		st->dropped_total += st->dropped[i];
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_cap_get_max_burst_size(const struct gnio_devinfo *info, uint32_t *max)
{
	gnio_api_enter();
	if (!info || !max)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "cap query: NULL argument");
	*max = GNIO_ETH_QUEUE_MAX_PACKETS;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_cap_get_max_packet_size(const struct gnio_devinfo *info, uint32_t *max)
{
	gnio_api_enter();
	if (!info || !max)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "cap query: NULL argument");
	*max = wire_max_frame((struct gnio_dev *)info);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_rxq_cap_is_type_supported(const struct gnio_devinfo *info, enum gnio_eth_rxq_type type,
						enum gnio_eth_rxq_data_path_type data_path_type)
{
	gnio_api_enter();
	if (data_path_type != GNIO_ETH_RXQ_DATA_PATH_TYPE_CPU && data_path_type != GNIO_ETH_RXQ_DATA_PATH_TYPE_GPU)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "unknown datapath type %d", (int)data_path_type);
	if (type == GNIO_ETH_RXQ_TYPE_MANAGED_MEMPOOL || type == GNIO_ETH_RXQ_TYPE_REGULAR)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "eth_rxq",
				 "RX queue type %s is not supported: gnio queues are CYCLIC on both datapaths",
				 type == GNIO_ETH_RXQ_TYPE_REGULAR ? "REGULAR" : "MANAGED_MEMPOOL");
	return gnio_eth_queue_check_type(info, (int)type, GNIO_ETH_RXQ_TYPE_CYCLIC, GNIO_WIRE_CAP_RX, "eth_rxq");
}

/* -------------------------------------------------------- CPU datapath -- */

gnio_error_t gnio_eth_rxq_recv_burst(struct gnio_eth_rxq *q, struct gnio_eth_pkt *pkts, uint32_t max_pkts,
				     uint32_t *nb_pkts)
{
	gnio_api_enter();
	if (!q || (!pkts && max_pkts) || !nb_pkts)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_rxq", "recv_burst: NULL argument");
	*nb_pkts = 0;
	if (q->ctx.state != GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_rxq", "recv_burst: the queue is not started");
	if (q->ctx.gpu)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_rxq",
				 "recv_burst: the queue's datapath is on %s; its frames go to the kernel",
				 q->ctx.gpu->bus_id);
	return gnio_rx_proxy_recv_host(&q->proxy, pkts, max_pkts, nb_pkts);
}
