/* SPDX-License-Identifier: MIT */
/*
 * src/eth/wire/null.c - `null:NAME[,size=N]`: a wire with an endless supply of
 * frames whose bytes are never written (like DPDK's net_null), and a sink that
 * takes every frame sent. It measures what gnio itself costs - ring, proxy,
 * kernel - without the cost of building frames. RX frames carry whatever the
 * pool slot held; use sw: when content matters.
 */
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "eth/wire.h"

#define NULL_MAX_FRAME 9216u
#define NULL_QUEUES 64u

struct null_wire {
	uint32_t size;
};

struct null_queue {
	struct null_wire *w;
	uint64_t rx, tx; /* single writer each: the queue's proxy */
	int quiesced;
};

/* The options null_open parses (gnio_dev_open refuses any other). */
const char gnio_wire_null_options[] = "size";

static gnio_error_t null_open(struct gnio_dev *dev, const char *args, void **wire)
{
	char name[64], val[32];
	const char *opts = gnio_wire_split_args(args, name, sizeof(name));
	if (!name[0])
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "null", "null wire needs a name: null:NAME[,size=N]");
	struct null_wire *w = calloc(1, sizeof(*w));
	if (!w)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "null", "out of memory");
	w->size = 64;
	if (gnio_wire_opt(opts, "size", val, sizeof(val))) {
		char *end;
		unsigned long v = strtoul(val, &end, 10);
		if (*end || v < 14 || v > NULL_MAX_FRAME) {
			free(w);
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, "null", "null wire: size=%s is outside 14..%u", val,
					 NULL_MAX_FRAME);
		}
		w->size = (uint32_t)v;
	}
	*wire = w;
	return GNIO_SUCCESS;
}

static void null_close(void *wire) { free(wire); }

static gnio_error_t null_caps(void *wire, struct gnio_wire_caps *caps)
{
	caps->flags = GNIO_WIRE_CAP_RX | GNIO_WIRE_CAP_TX | GNIO_WIRE_CAP_MULTI_QUEUE | GNIO_WIRE_CAP_SW_TIMESTAMP;
	caps->max_frame_size = NULL_MAX_FRAME;
	caps->num_rx_queues = NULL_QUEUES;
	caps->num_tx_queues = NULL_QUEUES;
	strcpy(caps->mode, "null");
	strcpy(caps->tx_path, "discarded on the spot (no copy)");
	return GNIO_SUCCESS;
}

static gnio_error_t null_q_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **q)
{
	if (cfg->queue_id >= NULL_QUEUES)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "null", "queue %u is beyond the null wire's %u queues",
				 cfg->queue_id, NULL_QUEUES);
	struct null_queue *nq = calloc(1, sizeof(*nq));
	if (!nq)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "null", "out of memory");
	nq->w = wire;
	*q = nq;
	return GNIO_SUCCESS;
}

static void null_q_close(void *q) { free(q); }

static unsigned null_rx_burst(void *q, struct gnio_wire_frame *frames, unsigned n)
{
	struct null_queue *nq = q;
	uint32_t size = nq->w->size;
	if (nq->quiesced)
		return 0;
	for (unsigned i = 0; i < n; i++)
		frames[i].len = size;
	__atomic_store_n(&nq->rx, nq->rx + n, __ATOMIC_RELAXED);
	return n;
}

static unsigned null_tx_burst(void *q, struct gnio_wire_frame *frames, unsigned n)
{
	struct null_queue *nq = q;
	__atomic_store_n(&nq->tx, nq->tx + n, __ATOMIC_RELAXED);
	return n;
}

static void null_rx_quiesce(void *q) { ((struct null_queue *)q)->quiesced = 1; }

static void null_rxq_stats(void *q, struct gnio_wire_rxq_stats *st) { st->overflow = 0; }

const struct gnio_wire_ops gnio_wire_null_ops = {
	.kind = "null",
	.open = null_open,
	.close = null_close,
	.caps = null_caps,
	.rxq_open = null_q_open,
	.rxq_close = null_q_close,
	.txq_open = null_q_open,
	.txq_close = null_q_close,
	.rx_burst = null_rx_burst,
	.tx_burst = null_tx_burst,
	.rxq_stats = null_rxq_stats,
	.rx_quiesce = null_rx_quiesce,
};
