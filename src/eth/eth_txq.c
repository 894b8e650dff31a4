/* SPDX-License-Identifier: MIT */
/* src/eth/eth_txq.c - send queue lifecycle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "eth/eth_txq_priv.h"
#include "gpu/buf_arr_priv.h"
#include "gpu/gpu_priv.h"
#include "eth/eth_queue.h"


static gnio_error_t txq_start(struct gnio_ctx *ctx);
static gnio_error_t txq_stop(struct gnio_ctx *ctx);
static const struct gnio_ctx_ops txq_ctx_ops = {.kind = "eth_txq", .start = txq_start, .stop = txq_stop};

gnio_error_t gnio_eth_txq_create(struct gnio_dev *dev, uint32_t max_burst_size, struct gnio_eth_txq **txq)
{
	if (!dev || !txq)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "create: NULL argument");
	GNIO_CHECK(gnio_eth_queue_check_burst(max_burst_size, "eth_txq"));
	struct gnio_eth_txq *q = calloc(1, sizeof(*q));
	if (!q)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "eth_txq", "out of memory");
	gnio_ctx_init(&q->ctx, &txq_ctx_ops);
	q->dev = dev;
	q->max_burst = max_burst_size;
	q->num_packets = GNIO_ETH_QUEUE_DEFAULT_PACKETS;
	q->proxy_cpu = -1;
	gnio_eth_queue_count(dev, 1);
	*txq = q;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_destroy(struct gnio_eth_txq *q)
{
	if (!q)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "destroy: NULL");
	if (q->ctx.state == GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_txq", "stop the queue before destroying it");
	gnio_eth_queue_forget_pool(&q->pool);
	gnio_ctx_fini(&q->ctx);
	gnio_eth_queue_count(q->dev, -1);
	free(q);
	return GNIO_SUCCESS;
}

struct gnio_ctx *gnio_eth_txq_as_ctx(struct gnio_eth_txq *q) { return q ? &q->ctx : NULL; }


gnio_error_t gnio_eth_txq_set_type(struct gnio_eth_txq *q, enum gnio_eth_txq_type type)
{
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the queue type");
	if (type != GNIO_ETH_TXQ_TYPE_REGULAR)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "unknown TX queue type %d", (int)type);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_set_num_packets(struct gnio_eth_txq *q, uint32_t num)
{
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the number of packets");
	GNIO_CHECK(gnio_eth_queue_check_ring(num, "eth_txq"));
	q->num_packets = num;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_set_queue_id(struct gnio_eth_txq *q, uint16_t id)
{
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the queue id");
	q->queue_id = id;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_set_pkt_buf(struct gnio_eth_txq *q, struct gnio_buf_arr *pool)
{
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the packet buffer");
	return gnio_eth_queue_set_pool(&q->pool, pool, "eth_txq");
}

gnio_error_t gnio_eth_txq_set_proxy_cpu(struct gnio_eth_txq *q, int cpu)
{
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the proxy CPU");
	q->proxy_cpu = cpu;
	return GNIO_SUCCESS;
}

static void free_ring(struct gnio_eth_txq *q, struct gnio_gpu *gpu)
{
	gnio_gpu_free_internal(gpu, q->handle);
	gnio_gpu_free_internal(gpu, q->lc_gpu);
	gnio_gpu_free_internal(gpu, q->desc_gpu);
	gnio_gpu_free_internal(gpu, q->sh_gpu);
	q->handle = NULL;
	q->lc_gpu = q->desc_gpu = q->sh_gpu = NULL;
}

static gnio_error_t txq_start(struct gnio_ctx *ctx)
{
	struct gnio_eth_txq *q = (struct gnio_eth_txq *)ctx;
	struct gnio_gpu *gpu = ctx->gpu;
	struct gnio_buf_arr *pool = q->pool;
	gnio_error_t err;
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	GNIO_CHECK(gnio_devinfo_get_caps(gnio_dev_as_devinfo(q->dev), &caps));

	GNIO_CHECK(gnio_eth_queue_check_pool(pool, gpu, q->num_packets, "eth_txq"));

	struct gnio_wire_queue_cfg cfg = {
		.queue_id = q->queue_id,
		.max_frame = caps.max_frame_size,
		.ring_size = q->num_packets,
		.burst = q->max_burst,
	};
	if (pool) {
		cfg.pool_cpu = pool->base_cpu;
		cfg.pool_size = (uint64_t)pool->elem_size * pool->num_elem;
		cfg.slot_size = pool->elem_size;
		cfg.num_slots = pool->num_elem;
	}
	err = q->dev->ops->txq_open(q->dev->wire, &cfg, &q->wq);
	if (err != GNIO_SUCCESS)
		return err;
	if (!gpu)
		return GNIO_SUCCESS;

	struct gnio_tx_ring_shared *sh_cpu;
	struct gnio_tx_desc *desc_cpu;
	uint32_t size = q->num_packets;
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, sizeof(*sh_cpu), GNIO_GPU_MEM_TYPE_CPU_GPU, &q->sh_gpu,
						(void **)&sh_cpu), err, fail);
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, (size_t)size * sizeof(*desc_cpu), GNIO_GPU_MEM_TYPE_CPU_GPU,
						&q->desc_gpu, (void **)&desc_cpu), err, fail);
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, sizeof(struct gnio_tx_ring_local), GNIO_GPU_MEM_TYPE_GPU,
						&q->lc_gpu, NULL), err, fail);
	GNIO_CHECK_GOTO(gpu->ops->memset_dev(gpu, q->lc_gpu, 0, sizeof(struct gnio_tx_ring_local)), err, fail);
	struct gnio_gpu_eth_txq h = {
		.sh = q->sh_gpu,
		.lc = q->lc_gpu,
		.desc = q->desc_gpu,
		.pool = pool ? pool->base_gpu : NULL,
		.pool_size = pool ? (uint64_t)pool->elem_size * pool->num_elem : 0,
		.size = size,
		.mask = size - 1,
		.slot_size = pool ? pool->elem_size : 0,
		.queue_id = q->queue_id,
	};
	GNIO_CHECK_GOTO(gnio_gpu_put_handle(gpu, &h, sizeof(h), (void **)&q->handle), err, fail);

	memset(&q->proxy, 0, sizeof(q->proxy));
	struct gnio_tx_proxy *p = &q->proxy;
	p->ops = q->dev->ops;
	p->wq = q->wq;
	p->gpu = gpu;
	p->ctx = ctx;
	p->sh = sh_cpu;
	p->desc = desc_cpu;
	p->size = size;
	p->mask = size - 1;
	p->burst = q->max_burst;
	p->max_frame = caps.max_frame_size;
	if (pool) {
		p->pool_cpu = pool->base_cpu;
		p->pool_dev = pool->base_cpu ? NULL : pool->base_gpu;
		p->pool_size = h.pool_size;
		GNIO_CHECK_GOTO(gnio_tx_proxy_init(p), err, fail_proxy);
		gnio_eth_queue_pin_pool(gpu, pool, &q->pool_alloc_ref);
		memset(&q->thread, 0, sizeof(q->thread));
		q->thread.step = gnio_tx_proxy_step;
		q->thread.arg = p;
		q->thread.cpu = q->proxy_cpu;
		snprintf(q->thread.name, sizeof(q->thread.name), "gnio-tx%u", q->queue_id);
		GNIO_CHECK_GOTO(gnio_proxy_thread_start(&q->thread), err, fail_ref);
	} else {
		GNIO_LOG_WARN("eth_txq", "queue %u on %s started without a packet buffer: the kernel's first send "
			      "returns BAD_STATE", q->queue_id, q->dev->spec);
	}
	return GNIO_SUCCESS;

fail_ref:
	gnio_eth_queue_unpin_pool(gpu, &q->pool_alloc_ref);
fail_proxy:
	gnio_tx_proxy_fini(&q->proxy);
fail:
	free_ring(q, gpu);
	q->dev->ops->txq_close(q->wq);
	q->wq = NULL;
	return err;
}

static void fold_stats(struct gnio_eth_txq *q, struct gnio_eth_txq_stats *st)
{
	struct gnio_tx_proxy *p = &q->proxy;
	st->tx_packets += __atomic_load_n(&p->tx_packets, __ATOMIC_RELAXED);
	st->tx_bytes += __atomic_load_n(&p->tx_bytes, __ATOMIC_RELAXED);
	st->tx_errors += __atomic_load_n(&p->tx_errors, __ATOMIC_RELAXED);
	st->timed_sends += __atomic_load_n(&p->timed, __ATOMIC_RELAXED);
}

static gnio_error_t txq_stop(struct gnio_ctx *ctx)
{
	struct gnio_eth_txq *q = (struct gnio_eth_txq *)ctx;
	struct gnio_gpu *gpu = ctx->gpu;
	if (gpu && q->proxy.frames) {
		gnio_proxy_thread_stop(&q->thread);
		/* Give asynchronous wires a moment to finish what they took. */
		for (int i = 0; i < 1000 && q->proxy.ops->tx_reap && q->proxy.done != q->proxy.next; i++)
			gnio_tx_proxy_step(&q->proxy);
	}
	fold_stats(q, &q->past);
	if (gpu) {
		gnio_tx_proxy_fini(&q->proxy);
		gnio_eth_queue_unpin_pool(gpu, &q->pool_alloc_ref);
		free_ring(q, gpu);
	}
	memset(&q->proxy, 0, sizeof(q->proxy));
	q->dev->ops->txq_close(q->wq);
	q->wq = NULL;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_get_gpu_handle(struct gnio_eth_txq *q, struct gnio_gpu_eth_txq **handle)
{
	if (!q || !handle)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "get_gpu_handle: NULL argument");
	GNIO_CHECK(gnio_eth_queue_check_handle(&q->ctx, "eth_txq"));
	*handle = q->handle;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_get_stats(struct gnio_eth_txq *q, struct gnio_eth_txq_stats *st)
{
	if (!q || !st)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "get_stats: NULL argument");
	*st = q->past;
	if (q->ctx.state == GNIO_CTX_STATE_STARTED)
		fold_stats(q, st);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_cap_get_max_burst_size(const struct gnio_devinfo *info, uint32_t *max)
{
	if (!info || !max)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "cap query: NULL argument");
	*max = GNIO_ETH_QUEUE_MAX_BURST;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_cap_is_type_supported(const struct gnio_devinfo *info, enum gnio_eth_txq_type type)
{
	return gnio_eth_queue_check_type(info, (int)type, GNIO_ETH_TXQ_TYPE_REGULAR, GNIO_WIRE_CAP_TX, "eth_txq");
}

gnio_error_t gnio_eth_txq_cap_is_timed_send_supported(const struct gnio_devinfo *info)
{
	if (!info)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "cap query: NULL devinfo");
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	GNIO_CHECK(gnio_devinfo_get_caps(info, &caps));
	/* The proxy holds timed descriptors itself, so any wire that sends can
	 * honour a send time (to the proxy's clock resolution). */
	if (!(caps.flags & GNIO_WIRE_CAP_TX))
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "eth_txq", "wire %s cannot send",
				 gnio_devinfo_get_spec(info));
	return GNIO_SUCCESS;
}
