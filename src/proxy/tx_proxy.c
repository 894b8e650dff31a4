/* SPDX-License-Identifier: MIT */
/*
 * src/proxy/tx_proxy.c - GPU-visible TX ring -> wire.
 *
 * Descriptors are consumed strictly in ticket order (a sender that reserved a
 * ticket but has not committed holds the queue, by design). A timed
 * descriptor holds the queue until its time. A bad descriptor (zero length,
 * too long, outside its buffer) is completed as an error once everything
 * before it has completed, and reported through the progress engine.
 *
 * Each descriptor names one of the queue's registered buffers. A frame in
 * host-visible memory goes to the wire where it lies (for a frame sent from
 * an RX pool: in place); a frame in device memory is copied out first. A
 * descriptor with a header has it written over the frame's first bytes
 * before the frame goes (where it lies, or in the copy). When
 * a descriptor completes, a frame sent in place has its hold released
 * (GNIO_HOLD_DONE) so the RX side may refill that buffer, and a NOTIFY
 * descriptor posts an event.
 */
#include <stdarg.h>
#include <stdio.h>
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
	for (uint32_t i = 0; i < p->nbufs; i++) {
		if (!p->bufs[i].cpu && !p->stage) {
			p->stage = malloc((size_t)p->burst * p->max_frame);
			if (!p->stage)
				return gnio_fail(GNIO_ERROR_NO_MEMORY, "proxy", "out of memory");
		}
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

/* The descriptor's buffer, or NULL when it names none or the frame does not
 * fit in it. */
static const struct gnio_tx_proxy_buf *desc_buf(const struct gnio_tx_proxy *p, const struct gnio_tx_desc_view *d)
{
	if (d->buf >= p->nbufs)
		return NULL;
	const struct gnio_tx_proxy_buf *buf = &p->bufs[d->buf];
	if (d->buf_off >= buf->size)
		return NULL;
	return buf;
}

static int desc_valid(const struct gnio_tx_proxy *p, const struct gnio_tx_desc_view *d)
{
	const struct gnio_tx_proxy_buf *b = desc_buf(p, d);
	return b && d->len && d->len <= p->max_frame && d->len <= b->size - d->buf_off &&
	       d->hdr_len <= GNIO_TX_HDR_BYTES && d->hdr_len <= d->len;
}

/* How long the proxy waits for a sender's hold mark that its unfenced
 * descriptor overtook: it lands within microseconds; only a slot sent twice
 * in one reception, against the rules, never shows it. */
#define HOLD_WAIT_NS 50000000ull

/* The wire is done with a slot sent in place: mark it DONE, once the
 * sender's SENT mark is there. A descriptor written without a fence may be
 * read before the mark the sender stored ahead of it (ring.h); marking DONE
 * first would let the late SENT overwrite it and hold the slot for ever.
 * The slot cannot be FREE for another reason: the RX proxy frees it only
 * after DONE. */
static void hold_done(uint32_t *hold)
{
	uint64_t until = 0;
	for (unsigned spins = 0; gnio_load_acquire_u32(hold) == GNIO_HOLD_FREE; spins++) {
		if ((spins & 255u) == 0) {
			const uint64_t now = gnio_gpu_dev_time_ns();
			if (!until)
				until = now + HOLD_WAIT_NS;
			else if (now >= until)
				break;
		}
		gnio_cpu_relax();
	}
	gnio_hold_done(hold);
}

/* Descriptor d's frame has left (or never will): if it was sent in place,
 * give its RX slot back. Only a descriptor written without a fence can have
 * overtaken its hold mark; after a released one the mark is there. */
static void release_slot(const struct gnio_tx_proxy *p, const struct gnio_tx_desc_view *d)
{
	const struct gnio_tx_proxy_buf *b = desc_buf(p, d);
	if (!b || !b->hold)
		return;
	uint32_t *hold = &b->hold[gnio_slot_of(d->buf_off, b->elem_size)];
	if (d->flags & GNIO_TX_F_UNORDERED)
		hold_done(hold);
	else
		gnio_hold_done(hold);
}

/* Descriptors [p->done, new_done) have left the wire (or failed): release
 * their holds, report notifications, then publish the completion index. */
static void complete(struct gnio_tx_proxy *p, uint64_t new_done)
{
	uint64_t now = 0;
	for (uint64_t i = p->done; i != new_done; i++) {
		struct gnio_tx_desc_view d;
		gnio_tx_ring_peek(p->desc, p->mask, i, &d);
		release_slot(p, &d);
		if (d.flags & GNIO_TX_F_NOTIFY) {
			if (!now)
				now = gnio_gpu_dev_time_ns();
			gnio_ctx_post_notify(p->ctx, i, now);
			/* Counted after the post (the queue's lock publishes it): a
			 * reader of tx_notified finds that many events posted. */
			STAT_ADD_RELEASE(p->tx_notified, 1);
		}
	}
	p->done = new_done;
	gnio_tx_ring_complete(p->sh, p->done);
}

/* The descriptor at p->next (all before it complete) cannot be sent: count
 * it as a TX error, tell the progress engine why, and complete it. */
static void fail_desc(struct gnio_tx_proxy *p, gnio_error_t err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail_desc(struct gnio_tx_proxy *p, gnio_error_t err, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	STAT_ADD(p->tx_errors, 1);
	gnio_ctx_post_event(p->ctx, GNIO_PE_EVENT_TX_ERROR, err, p->next, "%s", why);
	p->next++;
	/* RELEASE(tx.errors): pairs with the kernel's ACQUIRE in
	 * gnio_gpu_dev_eth_txq_errors(). */
	__atomic_store_n(&p->sh->errors, p->tx_errors, __ATOMIC_RELEASE);
	complete(p, p->next);
}

unsigned gnio_tx_proxy_step(void *arg)
{
	struct gnio_tx_proxy *p = arg;
	unsigned work = 0;

	if (p->ops->tx_reap && p->done != p->next) {
		unsigned c = p->ops->tx_reap(p->wq);
		if (c) {
			complete(p, p->done + c);
			work += c;
		}
	}

	unsigned n = 0;
	uint64_t idx = p->next, now = 0;
	/* The frame found not yet due by an earlier step (at most the one at
	 * next): read before this step finds the next one. */
	const uint64_t held = p->held_idx;
	p->due_ns = 0;
	/* The header line of the next descriptor, read only after its words
	 * say it has one: ask for it beside the descriptor's own line, so the
	 * two misses overlap. A hint: it reads nothing. */
	if (p->desc_hdr)
		__builtin_prefetch(p->desc_hdr + (size_t)(idx & p->mask) * GNIO_TX_HDR_LINE_WORDS);
	while (n < p->burst) {
		struct gnio_tx_desc_view dv;
		const struct gnio_tx_desc_view *d = &dv;
		if (!gnio_tx_ring_read(p->desc, p->desc_hdr, p->mask, p->size_log2, idx, &dv))
			break;
		if (GNIO_UNLIKELY(p->stamp) && idx == p->next)
			gnio_store_relaxed_u64(&p->last_pickup_ns, gnio_gpu_dev_time_ns());
		if (d->flags & GNIO_TX_F_TIMED) {
			if (!now)
				now = gnio_gpu_dev_time_ns();
			if (d->send_at_ns > now) {
				p->due_ns = d->send_at_ns;
				p->held_idx = idx + 1; /* seen in time: lateness is the proxy's */
				break; /* in order: later frames wait behind it */
			}
		}
		if (!desc_valid(p, d)) {
			if (n || p->done != p->next)
				break; /* complete what precedes it first */
			fail_desc(p, GNIO_ERROR_INVALID_VALUE,
				  "TX descriptor %llu: length %u (header %u) at offset %llu of buffer %u does not fit "
				  "(%u buffers registered, max frame %u)",
				  (unsigned long long)idx, d->len, d->hdr_len, (unsigned long long)d->buf_off, d->buf,
				  p->nbufs, p->max_frame);
			idx = p->next;
			work++;
			continue;
		}
		const struct gnio_tx_proxy_buf *b = desc_buf(p, d);
		struct gnio_wire_frame *f = &p->frames[n];
		if (b->cpu) {
			f->data = b->cpu + d->buf_off;
		} else {
			f->data = p->stage + (size_t)n * p->max_frame;
			if (p->gpu->ops->copy_from_dev(p->gpu, f->data, b->dev + d->buf_off, d->len) != GNIO_SUCCESS) {
				/* The bytes never reached the host: sending the
				 * stage would put stale bytes on the wire. */
				if (n || p->done != p->next)
					break; /* complete what precedes it first, then read again */
				fail_desc(p, GNIO_ERROR_DRIVER,
					  "TX descriptor %llu: reading %u bytes out of device memory failed: %s",
					  (unsigned long long)idx, d->len, gnio_last_error_msg());
				idx = p->next;
				work++;
				continue;
			}
		}
		/* The sender's header, in place of the frame's first bytes: it
		 * wrote them here instead of into the frame, and so needed no
		 * fence (ring.h). */
		if (d->hdr_len)
			memcpy(f->data, d->hdr, d->hdr_len);
		f->len = d->len;
		f->buf_off = d->buf_off;
		f->send_at_ns = d->send_at_ns;
		f->copied = 0;
		n++;
		idx++;
	}
	if (!n)
		return work;
	unsigned acc = p->ops->tx_burst(p->wq, p->frames, n);
	/* A frame seen in time that the wire did not take yet is still the one
	 * seen in time, whatever this step found behind it. */
	if (held && held - 1 >= p->next + acc)
		p->held_idx = held;
	if (acc) {
		uint64_t bytes = 0, in_place = 0, copies = 0, timed = 0, late = 0, unseen = 0;
		for (unsigned i = 0; i < acc; i++) {
			struct gnio_tx_desc_view d;
			gnio_tx_ring_peek(p->desc, p->mask, p->next + i, &d);
			const struct gnio_tx_proxy_buf *b = desc_buf(p, &d);
			bytes += p->frames[i].len;
			in_place += b->hold != NULL;
			copies += !b->cpu || p->frames[i].copied;
			const uint64_t at = p->frames[i].send_at_ns;
			timed += at != 0;
			/* now was read for the first timed frame of this step */
			if (at && now > at + GNIO_TX_LATE_NS) {
				late++;
				unseen += held != p->next + i + 1;
				if (now - at > p->timed_late_max_ns)
					__atomic_store_n(&p->timed_late_max_ns, now - at, __ATOMIC_RELAXED);
			}
		}
		p->next += acc;
		/* Complete (and post the notify events) before counting: whoever
		 * waits for tx_packets then finds the events of those frames. */
		if (!p->ops->tx_reap)
			complete(p, p->next);
		STAT_ADD(p->tx_bytes, bytes);
		STAT_ADD(p->tx_in_place, in_place);
		STAT_ADD(p->tx_copies, copies);
		STAT_ADD(p->timed, timed);
		STAT_ADD(p->timed_late, late);
		STAT_ADD(p->timed_late_unseen, unseen);
		STAT_ADD_RELEASE(p->tx_packets, acc);
	}
	return work + acc;
}

uint64_t gnio_tx_proxy_due(void *arg)
{
	const struct gnio_tx_proxy *p = arg;
	return p->due_ns;
}

void gnio_tx_proxy_drain(struct gnio_tx_proxy *p)
{
	/* Give an asynchronous wire a moment to finish what it took. */
	for (int i = 0; i < 1000 && p->ops->tx_reap && p->done != p->next; i++)
		gnio_tx_proxy_step(p);
	/* What the wire never finished, and descriptors committed but never
	 * taken, will not be sent: their RX buffers must not stay held. */
	for (uint64_t i = p->done;; i++) {
		struct gnio_tx_desc_view d;
		if (i < p->next)
			gnio_tx_ring_peek(p->desc, p->mask, i, &d);
		else if (!gnio_tx_ring_read(p->desc, p->desc_hdr, p->mask, p->size_log2, i, &d))
			break;
		release_slot(p, &d);
	}
}
