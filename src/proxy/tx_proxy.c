/* SPDX-License-Identifier: MIT */
/*
 * src/proxy/tx_proxy.c - GPU-visible TX ring -> wire.
 *
 * Descriptors are consumed strictly in ticket order (a sender that reserved a
 * ticket but has not committed holds the queue, by design). A timed
 * descriptor holds the queue until its time. A bad descriptor (zero length,
 * too long, outside the pool) is completed as an error once everything before
 * it has completed, and reported through the progress engine.
 */
#include <stdlib.h>
#include <string.h>
#include "core/ctx_priv.h"
#include "core/errmsg.h"
#include "gpu/gpu_priv.h"
#include "gnio/device/time.h"
#include "proxy/proxy.h"



gnio_error_t gnio_tx_proxy_init(struct gnio_tx_proxy *p)
{
	p->frames = calloc(p->burst, sizeof(*p->frames));
	if (!p->frames)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "proxy", "out of memory");
	if (!p->pool_cpu && p->pool_dev) {
		p->stage = malloc((size_t)p->burst * p->max_frame);
		if (!p->stage)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, "proxy", "out of memory");
	}
	return GNIO_SUCCESS;
}

void gnio_tx_proxy_fini(struct gnio_tx_proxy *p)
{
	free(p->frames);
	free(p->stage);
	p->frames = NULL;
	p->stage = NULL;
}

static int desc_valid(const struct gnio_tx_proxy *p, const struct gnio_tx_desc *d)
{
	return d->len && d->len <= p->max_frame && d->buf_off < p->pool_size && d->len <= p->pool_size - d->buf_off;
}

unsigned gnio_tx_proxy_step(void *arg)
{
	struct gnio_tx_proxy *p = arg;
	unsigned work = 0;

	if (p->ops->tx_reap && p->done != p->next) {
		unsigned c = p->ops->tx_reap(p->wq);
		if (c) {
			p->done += c;
			gnio_tx_ring_complete(p->sh, p->done);
			work += c;
		}
	}

	unsigned n = 0;
	uint64_t idx = p->next, now = 0;
	while (n < p->burst) {
		const struct gnio_tx_desc *d = gnio_tx_ring_ready(p->desc, p->mask, idx);
		if (!d)
			break;
		if (d->flags & GNIO_TX_F_TIMED) {
			if (!now)
				now = gnio_dev_time_ns();
			if (d->send_at_ns > now)
				break; /* in order: later frames wait behind it */
		}
		if (!desc_valid(p, d)) {
			if (n || p->done != p->next)
				break; /* complete what precedes it first */
			STAT_ADD(p->tx_errors, 1);
			gnio_ctx_post_event(p->ctx, GNIO_PE_EVENT_TX_ERROR, GNIO_ERROR_INVALID_VALUE, idx,
					    "TX descriptor %llu: length %u at offset %llu does not fit the pool (%llu bytes, max frame %u)",
					    (unsigned long long)idx, d->len, (unsigned long long)d->buf_off,
					    (unsigned long long)p->pool_size, p->max_frame);
			p->next = p->done = ++idx;
			__atomic_store_n(&p->sh->errors, p->tx_errors, __ATOMIC_RELEASE);
			gnio_tx_ring_complete(p->sh, p->done);
			work++;
			continue;
		}
		struct gnio_wire_frame *f = &p->frames[n];
		if (p->pool_cpu) {
			f->data = p->pool_cpu + d->buf_off;
		} else {
			f->data = p->stage + (size_t)n * p->max_frame;
			p->gpu->ops->copy_from_dev(p->gpu, f->data, p->pool_dev + d->buf_off, d->len);
		}
		f->len = d->len;
		f->buf_off = d->buf_off;
		f->send_at_ns = (d->flags & GNIO_TX_F_TIMED) ? d->send_at_ns : 0;
		if (f->send_at_ns)
			STAT_ADD(p->timed, 1);
		n++;
		idx++;
	}
	if (!n)
		return work;
	unsigned acc = p->ops->tx_burst(p->wq, p->frames, n);
	if (acc) {
		uint64_t bytes = 0;
		for (unsigned i = 0; i < acc; i++)
			bytes += p->frames[i].len;
		p->next += acc;
		STAT_ADD(p->tx_packets, acc);
		STAT_ADD(p->tx_bytes, bytes);
		if (!p->ops->tx_reap) {
			p->done = p->next;
			gnio_tx_ring_complete(p->sh, p->done);
		}
	}
	/* Timed frames not taken yet are counted again next time; undo. */
	for (unsigned i = acc; i < n; i++)
		if (p->frames[i].send_at_ns)
			STAT_ADD(p->timed, (uint64_t)-1);
	return work + acc;
}
