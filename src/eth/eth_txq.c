/* SPDX-License-Identifier: MIT */
/* src/eth/eth_txq.c - send queue lifecycle: configure, the buffer table a
 * kernel sends from, start (wire queue, GPU-visible ring, proxy), stop,
 * counters, completion events, and the CPU datapath. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "eth/eth_queue.h"
#include "eth/eth_rxq_priv.h"
#include "eth/eth_txq_priv.h"
#include "gnio/device/time.h"
#include "gpu/buf_arr_priv.h"
#include "gpu/gpu_priv.h"

static gnio_error_t txq_start(struct gnio_ctx *ctx);
static gnio_error_t txq_stop(struct gnio_ctx *ctx);
static const struct gnio_ctx_ops txq_ctx_ops = {.kind = "eth_txq", .start = txq_start, .stop = txq_stop};

/* The progress-engine events of a queue, as DOCA's event objects. */
struct gnio_eth_txq_gpu_event_notify_send_packet {
	struct gnio_pe_event ev;
};
struct gnio_eth_txq_gpu_event_error_send_packet {
	struct gnio_pe_event ev;
};

gnio_error_t gnio_eth_txq_create(struct gnio_dev *dev, uint32_t max_burst_size, struct gnio_eth_txq **txq)
{
	gnio_api_enter();
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
	gnio_api_enter();
	if (!q)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "destroy: NULL");
	if (q->ctx.state == GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_txq", "stop the queue before destroying it");
	gnio_eth_queue_forget_pool(&q->pool);
	for (unsigned i = 0; i < GNIO_TXQ_MAX_BUFS; i++)
		gnio_eth_queue_forget_pool(&q->bufs[i]);
	gnio_ctx_fini(&q->ctx);
	gnio_eth_queue_count(q->dev, -1);
	free(q);
	return GNIO_SUCCESS;
}

struct gnio_ctx *gnio_eth_txq_as_ctx(struct gnio_eth_txq *q) { return q ? &q->ctx : NULL; }

gnio_error_t gnio_eth_txq_set_type(struct gnio_eth_txq *q, enum gnio_eth_txq_type type)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the queue type");
	if (type != GNIO_ETH_TXQ_TYPE_REGULAR)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "unknown TX queue type %d", (int)type);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_set_num_packets(struct gnio_eth_txq *q, uint32_t num)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the number of packets");
	GNIO_CHECK(gnio_eth_queue_check_ring(num, "eth_txq"));
	q->num_packets = num;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_set_queue_id(struct gnio_eth_txq *q, uint16_t id)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the queue id");
	q->queue_id = id;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_set_pkt_buf(struct gnio_eth_txq *q, struct gnio_buf_arr *pool)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the packet buffer");
	return gnio_eth_queue_set_pool(&q->pool, pool, 0, "eth_txq");
}

gnio_error_t gnio_eth_txq_add_buf_arr(struct gnio_eth_txq *q, struct gnio_buf_arr *arr)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the registered buffers");
	if (!arr)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "add_buf_arr: NULL buffer array");
	int free_slot = -1, used = q->pool != NULL;
	for (int i = 0; i < GNIO_TXQ_MAX_BUFS; i++) {
		if (q->bufs[i] == arr || q->pool == arr)
			return gnio_fail(GNIO_ERROR_ALREADY_EXIST, "eth_txq",
					 "add_buf_arr: this buffer array is already registered with the queue");
		if (q->bufs[i])
			used++;
		else if (free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0 || used >= GNIO_TXQ_MAX_BUFS)
		return gnio_fail(GNIO_ERROR_FULL, "eth_txq", "add_buf_arr: a queue sends from at most %d buffer arrays",
				 GNIO_TXQ_MAX_BUFS);
	return gnio_eth_queue_set_pool(&q->bufs[free_slot], arr, 0, "eth_txq");
}

gnio_error_t gnio_eth_txq_set_proxy_cpu(struct gnio_eth_txq *q, int cpu)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the proxy CPU");
	q->proxy_cpu = cpu;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_set_wait_on_time_offload(struct gnio_eth_txq *q)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "wait on time");
	return GNIO_SUCCESS; /* the proxy holds timed frames on every wire */
}

gnio_error_t gnio_eth_txq_calculate_timestamp(struct gnio_eth_txq *q, uint64_t timestamp_ns, uint64_t *value)
{
	gnio_api_enter();
	if (!q || !value)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "calculate_timestamp: NULL argument");
	*value = timestamp_ns;
	return GNIO_SUCCESS;
}

/* ---------------------------------------------------- completion events -- */

static int txq_on_event(struct gnio_ctx *ctx, const struct gnio_pe_event *ev)
{
	struct gnio_eth_txq *q = (struct gnio_eth_txq *)ctx;
	if (ev->type == GNIO_PE_EVENT_TX_NOTIFY && q->notify_cb) {
		q->notify_cb((struct gnio_eth_txq_gpu_event_notify_send_packet *)ev, q->notify_user);
		return 1;
	}
	if (ev->type == GNIO_PE_EVENT_TX_ERROR && q->error_cb) {
		q->error_cb((struct gnio_eth_txq_gpu_event_error_send_packet *)ev, q->error_user);
		return 1;
	}
	return 0;
}

gnio_error_t gnio_eth_txq_gpu_event_notify_send_packet_register(struct gnio_eth_txq *q,
								gnio_eth_txq_gpu_event_notify_send_packet_cb_t cb,
								void *user_data)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the notify callback");
	if (!cb)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "notify callback: NULL");
	q->notify_cb = cb;
	q->notify_user = user_data;
	q->ctx.on_event = txq_on_event;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_gpu_event_error_send_packet_register(struct gnio_eth_txq *q,
							       gnio_eth_txq_gpu_event_error_send_packet_cb_t cb,
							       void *user_data)
{
	gnio_api_enter();
	GNIO_ETH_SETTER_PROLOGUE(q, "eth_txq", "the error callback");
	if (!cb)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "error callback: NULL");
	q->error_cb = cb;
	q->error_user = user_data;
	q->ctx.on_event = txq_on_event;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_gpu_event_notify_send_packet_get_position(
	const struct gnio_eth_txq_gpu_event_notify_send_packet *event, uint16_t *position)
{
	gnio_api_enter();
	if (!event || !position)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "get_position: NULL argument");
	*position = (uint16_t)event->ev.index;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_gpu_event_notify_send_packet_get_ticket(
	const struct gnio_eth_txq_gpu_event_notify_send_packet *event, uint64_t *ticket)
{
	gnio_api_enter();
	if (!event || !ticket)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "get_ticket: NULL argument");
	*ticket = event->ev.index;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_gpu_event_notify_send_packet_get_timestamp(
	const struct gnio_eth_txq_gpu_event_notify_send_packet *event, uint64_t *timestamp_ns)
{
	gnio_api_enter();
	if (!event || !timestamp_ns)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "get_timestamp: NULL argument");
	*timestamp_ns = event->ev.timestamp_ns;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_gpu_event_error_send_packet_get_position(
	const struct gnio_eth_txq_gpu_event_error_send_packet *event, uint16_t *position)
{
	gnio_api_enter();
	if (!event || !position)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "get_position: NULL argument");
	*position = (uint16_t)event->ev.index;
	return GNIO_SUCCESS;
}

/* ----------------------------------------------------------- lifecycle -- */

static void free_ring(struct gnio_eth_txq *q, struct gnio_gpu *gpu)
{
	gnio_gpu_free_internal(gpu, q->handle);
	gnio_gpu_free_internal(gpu, q->lc_gpu);
	gnio_gpu_free_internal(gpu, q->desc_gpu);
	gnio_gpu_free_internal(gpu, q->desc_hdr_gpu);
	gnio_gpu_free_internal(gpu, q->sh_gpu);
	q->handle = NULL;
	q->lc_gpu = q->desc_gpu = q->desc_hdr_gpu = q->sh_gpu = NULL;
}

static void unpin_bufs(struct gnio_eth_txq *q, struct gnio_gpu *gpu)
{
	for (unsigned i = 0; i < GNIO_TXQ_MAX_BUFS; i++)
		gnio_eth_queue_unpin_pool(gpu, &q->buf_refs[i], q->buf_inplace[i]);
}

/* The buffer table, in the kernel's and the proxy's views: the slot pool
 * first, then the added arrays. A table entry of an RX queue's pool carries
 * its hold words (frames sent from it are sent in place). */
static gnio_error_t build_buf_table(struct gnio_eth_txq *q, struct gnio_gpu *gpu, struct gnio_gpu_eth_txq *h,
				    struct gnio_tx_proxy *p)
{
	struct gnio_buf_arr *list[GNIO_TXQ_MAX_BUFS + 1];
	unsigned n = 0;
	h->slot_buf = -1;
	if (q->pool) {
		h->slot_buf = 0;
		list[n++] = q->pool;
	}
	for (unsigned i = 0; i < GNIO_TXQ_MAX_BUFS; i++)
		if (q->bufs[i] && q->bufs[i] != q->pool)
			list[n++] = q->bufs[i];
	if (n > GNIO_TXQ_MAX_BUFS)
		return gnio_fail(GNIO_ERROR_FULL, "eth_txq", "a queue sends from at most %d buffer arrays",
				 GNIO_TXQ_MAX_BUFS);
	for (unsigned i = 0; i < n; i++) {
		struct gnio_buf_arr *a = list[i];
		if (a->gpu != gpu)
			return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_txq",
					 "a registered buffer array belongs to %s but the queue's datapath is on %s",
					 a->gpu->bus_id, gpu->bus_id);
		int rx = gnio_buf_arr_is_rx_pool(a);
		q->buf_inplace[i] = (uint8_t)rx;
		uint64_t size = (uint64_t)a->elem_size * a->num_elem;
		h->bufs[i] = (struct gnio_tx_buf){.base = a->base_gpu, .size = size, .hold = rx ? a->hold_gpu : NULL,
						  .elem_size = a->elem_size, .mkey = a->mkey};
		p->bufs[i] = (struct gnio_tx_proxy_buf){.cpu = a->base_cpu, .dev = a->base_gpu, .size = size,
							.hold = rx ? a->hold_cpu : NULL, .elem_size = a->elem_size};
	}
	h->nbufs = n;
	p->nbufs = n;
	for (unsigned i = 0; i < n; i++)
		gnio_eth_queue_pin_pool(gpu, list[i], q->buf_inplace[i], &q->buf_refs[i]);
	return GNIO_SUCCESS;
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
		.burst = q->max_burst < GNIO_PROXY_MAX_BURST ? q->max_burst : GNIO_PROXY_MAX_BURST,
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
	q->host_tx_packets = q->host_tx_bytes = q->host_tx_reported = 0;
	if (!gpu)
		return GNIO_SUCCESS; /* CPU datapath: gnio_eth_txq_send_burst */

	struct gnio_tx_ring_shared *sh_cpu;
	struct gnio_tx_desc *desc_cpu;
	uint32_t size = q->num_packets;
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, sizeof(*sh_cpu), GNIO_GPU_MEM_TYPE_CPU_GPU, &q->sh_gpu,
						(void **)&sh_cpu), err, fail);
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, (size_t)size * sizeof(*desc_cpu), GNIO_GPU_MEM_TYPE_CPU_GPU,
						&q->desc_gpu, (void **)&desc_cpu), err, fail);
	uint64_t *desc_hdr_cpu;
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, (size_t)size * GNIO_TX_HDR_LINE_WORDS * sizeof(uint64_t),
						GNIO_GPU_MEM_TYPE_CPU_GPU, &q->desc_hdr_gpu, (void **)&desc_hdr_cpu),
			err, fail);
	GNIO_CHECK_GOTO(gnio_gpu_alloc_internal(gpu, sizeof(struct gnio_tx_ring_local), GNIO_GPU_MEM_TYPE_GPU,
						&q->lc_gpu, NULL), err, fail);
	GNIO_CHECK_GOTO(gpu->ops->memset_dev(gpu, q->lc_gpu, 0, sizeof(struct gnio_tx_ring_local)), err, fail);
	/* Zero words show no lap's phase a fresh ticket counter expects
	 * (ring.h): nothing from an earlier start can look ready. */
	memset(desc_cpu, 0, (size_t)size * sizeof(*desc_cpu));
	memset(desc_hdr_cpu, 0, (size_t)size * GNIO_TX_HDR_LINE_WORDS * sizeof(uint64_t));

	memset(&q->proxy, 0, sizeof(q->proxy));
	struct gnio_tx_proxy *p = &q->proxy;
	struct gnio_gpu_eth_txq h = {
		.sh = q->sh_gpu,
		.lc = q->lc_gpu,
		.desc = q->desc_gpu,
		.desc_hdr = q->desc_hdr_gpu,
		.size = size,
		.mask = size - 1,
		.queue_id = q->queue_id,
		.size_log2 = (uint32_t)__builtin_ctz(size),
	};
	GNIO_CHECK_GOTO(build_buf_table(q, gpu, &h, p), err, fail_ref);
	GNIO_CHECK_GOTO(gnio_gpu_put_handle(gpu, &h, sizeof(h), (void **)&q->handle), err, fail_ref);

	p->ops = q->dev->ops;
	p->wq = q->wq;
	p->stamp = gnio_proxy_stamps_wanted();
	p->last_pickup_ns = 0;
	p->gpu = gpu;
	p->ctx = ctx;
	p->sh = sh_cpu;
	p->desc = desc_cpu;
	p->desc_hdr = desc_hdr_cpu;
	p->size = size;
	p->mask = size - 1;
	p->size_log2 = (uint32_t)__builtin_ctz(size);
	p->burst = cfg.burst < size ? cfg.burst : size;
	p->max_frame = caps.max_frame_size;
	if (p->nbufs) {
		GNIO_CHECK_GOTO(gnio_tx_proxy_init(p), err, fail_proxy);
		memset(&q->thread, 0, sizeof(q->thread));
		q->thread.step = gnio_tx_proxy_step;
		q->thread.arg = p;
		q->thread.cpu = q->proxy_cpu;
		q->thread.poll_mode = __atomic_load_n(&q->dev->poll_mode, __ATOMIC_RELAXED);
		q->thread.kick = &q->dev->tx_kick;
		q->thread.due_ns = gnio_tx_proxy_due;
		q->thread.sleepers = &q->dev->tx_sleepers;
		snprintf(q->thread.name, sizeof(q->thread.name), "gnio-tx%u", q->queue_id);
		GNIO_CHECK_GOTO(gnio_proxy_thread_start(&q->thread), err, fail_proxy);
	} else {
		GNIO_LOG_WARN("eth_txq", "queue %u on %s started without a buffer array to send from: the kernel's first "
			      "send returns BAD_STATE", q->queue_id, q->dev->spec);
	}
	return GNIO_SUCCESS;

fail_proxy:
	gnio_tx_proxy_fini(&q->proxy);
fail_ref:
	unpin_bufs(q, gpu);
fail:
	free_ring(q, gpu);
	q->dev->ops->txq_close(q->wq);
	q->wq = NULL;
	return err;
}

static void fold_stats(struct gnio_eth_txq *q, struct gnio_eth_txq_stats *st)
{
	struct gnio_tx_proxy *p = &q->proxy;
	/* ACQUIRE(tx_packets, tx_notified): pair with the proxy's RELEASE
	 * counts; the events and completions they count are posted before. */
	st->tx_packets += __atomic_load_n(&p->tx_packets, __ATOMIC_ACQUIRE);
	st->tx_bytes += __atomic_load_n(&p->tx_bytes, __ATOMIC_RELAXED);
	st->tx_errors += __atomic_load_n(&p->tx_errors, __ATOMIC_RELAXED);
	st->timed_sends += __atomic_load_n(&p->timed, __ATOMIC_RELAXED);
	st->timed_late += __atomic_load_n(&p->timed_late, __ATOMIC_RELAXED);
	st->timed_late_unseen += __atomic_load_n(&p->timed_late_unseen, __ATOMIC_RELAXED);
	const uint64_t late_max = __atomic_load_n(&p->timed_late_max_ns, __ATOMIC_RELAXED);
	if (late_max > st->timed_late_max_ns)
		st->timed_late_max_ns = late_max;
	const uint64_t pick = __atomic_load_n(&p->last_pickup_ns, __ATOMIC_RELAXED);
	if (pick > st->last_pickup_ns)
		st->last_pickup_ns = pick;
	st->tx_in_place += __atomic_load_n(&p->tx_in_place, __ATOMIC_RELAXED);
	st->tx_copies += __atomic_load_n(&p->tx_copies, __ATOMIC_RELAXED);
	st->tx_notified += __atomic_load_n(&p->tx_notified, __ATOMIC_ACQUIRE);
	st->tx_packets += __atomic_load_n(&q->host_tx_packets, __ATOMIC_RELAXED);
	st->tx_bytes += __atomic_load_n(&q->host_tx_bytes, __ATOMIC_RELAXED);
}

static gnio_error_t txq_stop(struct gnio_ctx *ctx)
{
	struct gnio_eth_txq *q = (struct gnio_eth_txq *)ctx;
	struct gnio_gpu *gpu = ctx->gpu;
	if (gpu && q->proxy.frames) {
		gnio_proxy_thread_stop(&q->thread);
		gnio_tx_proxy_drain(&q->proxy);
	}
	/* Keep this run's counters once, before the proxy and ring go away. */
	fold_stats(q, &q->past);
	q->host_tx_packets = q->host_tx_bytes = 0;
	if (gpu) {
		gnio_tx_proxy_fini(&q->proxy);
		unpin_bufs(q, gpu);
		free_ring(q, gpu);
	}
	memset(&q->proxy, 0, sizeof(q->proxy));
	q->dev->ops->txq_close(q->wq);
	q->wq = NULL;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_get_gpu_handle(struct gnio_eth_txq *q, struct gnio_gpu_eth_txq **handle)
{
	gnio_api_enter();
	if (!q || !handle)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "get_gpu_handle: NULL argument");
	GNIO_CHECK(gnio_eth_queue_check_handle(&q->ctx, "eth_txq"));
	*handle = q->handle;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_get_stats(struct gnio_eth_txq *q, struct gnio_eth_txq_stats *st)
{
	gnio_api_enter();
	if (!q || !st)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "get_stats: NULL argument");
	*st = q->past;
	if (q->ctx.state == GNIO_CTX_STATE_STARTED)
		fold_stats(q, st);
	return GNIO_SUCCESS;
}

/* -------------------------------------------------------- CPU datapath -- */

static gnio_error_t check_cpu_datapath(struct gnio_eth_txq *q, const char *what)
{
	if (q->ctx.state != GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_txq", "%s: the queue is not started", what);
	if (q->ctx.gpu)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "eth_txq",
				 "%s: the queue's datapath is on %s; its kernel sends, not the host", what,
				 q->ctx.gpu->bus_id);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_send_burst(struct gnio_eth_txq *q, const struct gnio_eth_pkt *pkts, uint32_t n,
				     uint32_t *nb_sent)
{
	gnio_api_enter();
	if (!q || (!pkts && n) || !nb_sent)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "send_burst: NULL argument");
	*nb_sent = 0;
	GNIO_CHECK(check_cpu_datapath(q, "send_burst"));
	struct gnio_wire_frame f[64];
	uint32_t sent = 0;
	while (sent < n) {
		unsigned k = n - sent < 64 ? n - sent : 64;
		uint64_t bytes = 0;
		for (unsigned i = 0; i < k; i++) {
			const struct gnio_eth_pkt *pk = &pkts[sent + i];
			if (!pk->data || !pk->len)
				return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq",
						 "send_burst: frame %u has no data or length 0", sent + i);
			f[i] = (struct gnio_wire_frame){.data = pk->data, .len = pk->len};
			bytes += pk->len;
		}
		unsigned took = q->dev->ops->tx_burst(q->wq, f, k);
		for (unsigned i = took; i < k; i++)
			bytes -= f[i].len;
		STAT_ADD(q->host_tx_packets, took);
		STAT_ADD(q->host_tx_bytes, bytes);
		sent += took;
		if (took < k)
			break;
	}
	*nb_sent = sent;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_poll_completions(struct gnio_eth_txq *q, uint32_t *nb_done)
{
	gnio_api_enter();
	if (!q || !nb_done)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "poll_completions: NULL argument");
	*nb_done = 0;
	GNIO_CHECK(check_cpu_datapath(q, "poll_completions"));
	if (q->dev->ops->tx_reap) {
		*nb_done = q->dev->ops->tx_reap(q->wq);
		return GNIO_SUCCESS;
	}
	/* A synchronous wire completes a frame when it takes it. */
	uint64_t sent = q->host_tx_packets;
	*nb_done = (uint32_t)(sent - q->host_tx_reported);
	q->host_tx_reported = sent;
	return GNIO_SUCCESS;
}

/* -------------------------------------------------------- capabilities -- */

gnio_error_t gnio_eth_txq_cap_get_max_burst_size(const struct gnio_devinfo *info, uint32_t max_send_buf_list_len,
						 uint16_t max_lso_header_size, uint32_t *max)
{
	gnio_api_enter();
	if (!info || !max)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "cap query: NULL argument");
	if (max_send_buf_list_len > 1)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "eth_txq",
				 "a frame is one buffer in gnio (send buffer list length %u)", max_send_buf_list_len);
	if (max_lso_header_size)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "eth_txq", "gnio does no LSO (header size %u)",
				 max_lso_header_size);
	*max = GNIO_ETH_QUEUE_MAX_PACKETS;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_txq_cap_is_type_supported(const struct gnio_devinfo *info, enum gnio_eth_txq_type type,
						enum gnio_eth_txq_data_path_type data_path_type)
{
	gnio_api_enter();
	if (data_path_type != GNIO_ETH_TXQ_DATA_PATH_TYPE_CPU && data_path_type != GNIO_ETH_TXQ_DATA_PATH_TYPE_GPU)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "unknown datapath type %d", (int)data_path_type);
	return gnio_eth_queue_check_type(info, (int)type, GNIO_ETH_TXQ_TYPE_REGULAR, GNIO_WIRE_CAP_TX, "eth_txq");
}

gnio_error_t gnio_eth_txq_cap_get_wait_on_time_offload_supported(const struct gnio_devinfo *info,
								 enum gnio_eth_wait_on_time_type *type)
{
	gnio_api_enter();
	if (!info || !type)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "eth_txq", "cap query: NULL argument");
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	GNIO_CHECK(gnio_devinfo_get_caps(info, &caps));
	/* The proxy holds timed descriptors itself, so any wire that sends can
	 * honour a send time (to the proxy's clock resolution). */
	*type = (caps.flags & GNIO_WIRE_CAP_TX) ? GNIO_ETH_WAIT_ON_TIME_TYPE_NATIVE : GNIO_ETH_WAIT_ON_TIME_TYPE_NONE;
	if (*type == GNIO_ETH_WAIT_ON_TIME_TYPE_NONE)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "eth_txq", "wire %s cannot send",
				 gnio_devinfo_get_spec(info));
	return GNIO_SUCCESS;
}
