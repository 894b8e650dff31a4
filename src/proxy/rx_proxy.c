/* SPDX-License-Identifier: MIT */
/*
 * src/proxy/rx_proxy.c - wire -> GPU-visible RX ring.
 *
 * Copy wires: ring entry k owns pool slot k & mask. Each burst asks the wire to
 * write frames straight into the slots of the next free entries; frames that
 * find no entry go to a scratch area and are dropped as ring_full (or, with
 * flow control, are never asked for). A frame that is dropped for another
 * reason leaves a hole, and later frames of the same burst move down to keep
 * entries and slots paired.
 * Zero-copy wires: frames are already in the pool; entries carry their offset
 * and buffers go back to the wire when the consumer releases them.
 * GPU-memory pools: frames land in a host mirror and are copied to the device
 * pool asynchronously; the entries are published once the copy has landed.
 *
 * In-place holds: while a TX queue may send from this pool in place, a
 * released entry's buffer is refilled (copy wires) or handed back to the wire
 * (zero-copy wires) only once its hold says the send is done. A copy wire
 * stops filling at the first held slot and counts the frames it then cannot
 * place as no_buffer; a zero-copy wire keeps the held buffers aside.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/ctx_priv.h"
#include "core/errmsg.h"
#include "gpu/gpu_priv.h"
#include "gnio/device/time.h"
#include "gnio/flow.h"
#include "proxy/proxy.h"

#define ETH_HDR_LEN 14u


static unsigned stage_reap(struct gnio_rx_proxy *p, int wait);

/* Zero-copy: how many buffers may wait aside for their in-place sends. Ring
 * entries keep cycling behind a slow send, so that is every buffer of the
 * pool (the wire owns more than the ring has entries), not a ring's worth. */
static uint32_t zc_held_cap(const struct gnio_rx_proxy *p)
{
	uint64_t bufs = p->slot_size ? p->pool_size / p->slot_size : 0;
	return bufs > p->size ? (uint32_t)bufs : p->size;
}

gnio_error_t gnio_rx_proxy_init(struct gnio_rx_proxy *p)
{
	p->frames = calloc(p->burst, sizeof(*p->frames));
	if (!p->frames)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "proxy", "out of memory");
	if (p->zero_copy) {
		p->zc_off = calloc(p->size, sizeof(*p->zc_off));
		p->zc_held = calloc(zc_held_cap(p), sizeof(*p->zc_held));
		if (!p->zc_off || !p->zc_held)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, "proxy", "out of memory");
	} else {
		p->scratch = malloc((size_t)p->burst * p->cap);
		if (!p->scratch)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, "proxy", "out of memory");
	}
	if (p->flow_rd) {
		p->ff = calloc(p->burst, sizeof(*p->ff));
		p->fres = calloc(p->burst, sizeof(*p->fres));
		p->fidx = calloc(p->burst, sizeof(*p->fidx));
		p->fkeep = calloc(p->burst, sizeof(*p->fkeep));
		p->fout = calloc(p->burst, sizeof(*p->fout));
		if (!p->ff || !p->fres || !p->fidx || !p->fkeep || !p->fout)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, "proxy", "out of memory");
	}
	if (p->pool_dev) {
		p->meta_pending = calloc(p->size, sizeof(*p->meta_pending));
		if (!p->meta_pending)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, "proxy", "out of memory");
		GNIO_CHECK(p->gpu->ops->stream_create(p->gpu, &p->stage_stream));
		const struct gnio_gpu_ops *ops = p->gpu->ops;
		if (p->stage_word && ops->stream_write_u64 && ops->stream_done) {
			*p->stage_word = 0;
			p->stage_by_word =
				ops->stream_write_u64(p->gpu, p->stage_stream, p->stage_word_dev, 0) == GNIO_SUCCESS;
			if (!p->stage_check_ns)
				p->stage_check_ns = 1000000u;
		}
	}
	while ((1u << p->size_log2) < p->size)
		p->size_log2++;
	return GNIO_SUCCESS;
}

void gnio_rx_proxy_fini(struct gnio_rx_proxy *p)
{
	if (p->pool_dev && p->stage_count)
		stage_reap(p, 1);
	if (p->stage_stream)
		p->gpu->ops->stream_destroy(p->gpu, p->stage_stream);
	free(p->frames);
	free(p->zc_off);
	free(p->meta_pending);
	free(p->zc_held);
	free(p->scratch);
	free(p->ff);
	free(p->fres);
	free(p->fidx);
	free(p->fkeep);
	free(p->fout);
	p->ff = NULL;
	p->fres = NULL;
	p->fidx = NULL;
	p->fkeep = NULL;
	p->fout = NULL;
	p->frames = NULL;
	p->zc_off = NULL;
	p->zc_held = NULL;
	p->scratch = NULL;
	p->stage_stream = NULL;
}

/* Make entries up to p->prod visible to the consumer. With
 * GNIO_PROXY_STAMPS, also note when (relaxed: a reader takes it as a
 * sample, after the frame it stamps came back). */
static inline void rx_publish(struct gnio_rx_proxy *p)
{
	gnio_rx_ring_publish(p->sh, p->prod);
	if (GNIO_UNLIKELY(p->stamp))
		gnio_store_relaxed_u64(&p->last_publish_ns, gnio_gpu_dev_time_ns());
}

/* Completion of entry idx (host view). */
static inline struct gnio_rx_cqe *rx_cqe(const struct gnio_rx_proxy *p, uint64_t idx)
{
	return gnio_rx_cqe_at(p->cqe, idx, p->mask, p->cqe_shift);
}

static inline uint8_t *slot(struct gnio_rx_proxy *p, uint64_t idx)
{
	return p->pool_cpu + (uint64_t)(idx & p->mask) * p->slot_size;
}

/* Start copying the frames of entries [first, first+n) from the host mirror
 * to the device pool (only `width` bytes of each slot: the longest frame of
 * the batch) and record a fence behind them. */
static gnio_error_t stage_issue(struct gnio_rx_proxy *p, uint64_t first, uint32_t n, uint32_t width,
			       struct gnio_rx_stage *st)
{
	const struct gnio_gpu_ops *ops = p->gpu->ops;
	gnio_error_t err = GNIO_SUCCESS;
	width = (width + 15) & ~15u; /* whole 16-byte words copy faster */
	if (width > p->slot_size)
		width = p->slot_size;
	while (n && err == GNIO_SUCCESS) {
		uint32_t at = (uint32_t)(first & p->mask);
		uint32_t run = p->size - at < n ? p->size - at : n;
		size_t off = (size_t)at * p->slot_size;
		if (ops->copy2d_async && width < p->slot_size && !p->stage_slots)
			err = ops->copy2d_async(p->gpu, p->stage_stream, p->pool_dev + off, p->pool_cpu + off,
						p->slot_size, width, run);
		else
			err = ops->copy_async(p->gpu, p->stage_stream, p->pool_dev + off, p->pool_cpu + off,
					      (size_t)run * p->slot_size);
		first += run;
		n -= run;
	}
	if (err != GNIO_SUCCESS)
		return err;
	st->fence = NULL;
	if (p->stage_by_word) {
		/* Batch numbers only grow, also past a failed copy: a number
		 * stored by a batch that was dropped never stands for a later one. */
		st->seq = ++p->stage_seq;
		return ops->stream_write_u64(p->gpu, p->stage_stream, p->stage_word_dev, st->seq);
	}
	return ops->fence_record(p->gpu, p->stage_stream, &st->fence);
}

/* 1 when the oldest staged batch has landed, 0 while not, -1 when its copy
 * failed. By word: the stream stored each batch's number behind its
 * copies, in order; a word that stays still while batches wait is checked
 * against the stream now and then (a failed copy never stores). */
static int stage_landed(struct gnio_rx_proxy *p, const struct gnio_rx_stage *st, int wait)
{
	const struct gnio_gpu_ops *ops = p->gpu->ops;
	if (!p->stage_by_word)
		return ops->fence_done(p->gpu, st->fence);
	/* ACQUIRE(stage.word): pairs with the stream's store behind the
	 * batch's copies (its barrier puts their writes first). */
	if (gnio_load_acquire_u64(p->stage_word) >= st->seq) {
		p->stage_still_since = 0;
		return 1;
	}
	const uint64_t now = gnio_gpu_dev_time_ns();
	if (!p->stage_still_since)
		p->stage_still_since = now;
	if (!wait && now - p->stage_still_since < p->stage_check_ns)
		return 0;
	p->stage_still_since = now;
	int done = ops->stream_done(p->gpu, p->stage_stream);
	if (done < 0)
		return -1;
	/* The stream may have finished between the two looks. */
	return gnio_load_acquire_u64(p->stage_word) >= st->seq ? 1 : 0;
}

/* Publish staged batches whose copies have landed, oldest first. With wait,
 * block until all have. A failed copy drops every staged batch (they cannot
 * be published out of order) and counts them as device_error. */
static unsigned stage_reap(struct gnio_rx_proxy *p, int wait)
{
	const struct gnio_gpu_ops *ops = p->gpu->ops;
	unsigned published = 0;
	while (p->stage_count) {
		struct gnio_rx_stage *st = &p->stage[p->stage_head];
		int done = stage_landed(p, st, wait);
		if (done == 0 && wait) {
			gnio_cpu_relax();
			continue;
		}
		if (done == 0)
			break;
		if (done < 0) {
			uint64_t lost = p->staged - p->prod;
			STAT_ADD(p->dropped[GNIO_DROP_DEVICE_ERROR], lost);
			gnio_ctx_post_event(p->ctx, GNIO_PE_EVENT_WIRE_ERROR, GNIO_ERROR_DRIVER, p->prod,
					    "copy of %llu RX frames into device memory failed: %s",
					    (unsigned long long)lost, gnio_last_error_msg());
			while (p->stage_count) {
				if (p->stage[p->stage_head].fence)
					ops->fence_destroy(p->gpu, p->stage[p->stage_head].fence);
				p->stage_head = (p->stage_head + 1) % GNIO_RX_STAGE_DEPTH;
				p->stage_count--;
			}
			p->staged = p->prod; /* refill those entries later */
			break;
		}
		if (st->fence)
			ops->fence_destroy(p->gpu, st->fence);
		/* the bytes are in device memory: now the completions may show */
		for (uint64_t i = p->prod; i < st->end; i++)
			gnio_rx_ring_post(rx_cqe(p, i), p->meta_pending[i & p->mask]);
		published += (unsigned)(st->end - p->prod);
		STAT_ADD(p->rx_packets, st->end - p->prod);
		STAT_ADD(p->rx_bytes, st->bytes);
		p->prod = st->end;
		rx_publish(p);
		p->stage_head = (p->stage_head + 1) % GNIO_RX_STAGE_DEPTH;
		p->stage_count--;
	}
	if (published)
		gnio_proxy_kick(p->kick, p->sleepers);
	return published;
}

/* Does a TX queue send from this pool in place right now? */
static inline int holds_active(const struct gnio_rx_proxy *p)
{
	/* ACQUIRE: pairs with the RELEASE in gnio_eth_queue_pin_pool(). */
	return p->hold && __atomic_load_n(p->hold_users, __ATOMIC_ACQUIRE) != 0;
}

/* Copy wires: of entries [from, from + n), how many in a row (from the
 * first) have a slot that may be refilled. Callers ask for no more than one
 * burst, and slots found refillable by an earlier step are not read again:
 * a scan of every free slot on every poll cost an idle proxy microseconds
 * per step, which the echo round trip paid. */
static uint32_t slots_refillable(struct gnio_rx_proxy *p, uint64_t from, uint32_t n)
{
	uint64_t known = p->refill_ok > from ? p->refill_ok - from : 0;
	uint32_t i = known < n ? (uint32_t)known : n;
	while (i < n && gnio_hold_check(&p->hold[(from + i) & p->mask]))
		i++;
	if (from + i > p->refill_ok)
		p->refill_ok = from + i;
	return i;
}

static unsigned drop_reason(const struct gnio_rx_proxy *p, uint32_t len)
{
	if (len > p->cap)
		return GNIO_DROP_TOO_BIG;
	if (len < ETH_HDR_LEN)
		return GNIO_DROP_RUNT;
	return GNIO_DROP_REASON_COUNT; /* keep */
}

/* Zero-copy: hand buffers of released entries back to the wire, in order;
 * with holds, a buffer still being sent waits aside until its send is done. */
static void zc_release(struct gnio_rx_proxy *p)
{
	if (!holds_active(p) && !p->zc_held_count) {
		while (p->zc_released != p->cached_cons) {
			uint32_t at = (uint32_t)(p->zc_released & p->mask);
			uint64_t n = p->cached_cons - p->zc_released;
			uint32_t run = (uint64_t)(p->size - at) < n ? p->size - at : (uint32_t)n;
			p->ops->rx_release_zc(p->wq, &p->zc_off[at], run);
			p->zc_released += run;
		}
		return;
	}
	uint64_t batch[64];
	unsigned nb = 0;
	const uint32_t cap = zc_held_cap(p);
	/* Held ones first: they were released earlier. */
	while (p->zc_held_count) {
		uint64_t off = p->zc_held[p->zc_held_head];
		if (!gnio_hold_check(&p->hold[gnio_slot_of(off, p->slot_size)]))
			break;
		batch[nb++] = off;
		p->zc_held_head = (p->zc_held_head + 1) % cap;
		p->zc_held_count--;
		if (nb == 64) {
			p->ops->rx_release_zc(p->wq, batch, nb);
			nb = 0;
		}
	}
	for (; p->zc_released != p->cached_cons; p->zc_released++) {
		uint64_t off = p->zc_off[p->zc_released & p->mask];
		if (p->zc_held_count || !gnio_hold_check(&p->hold[gnio_slot_of(off, p->slot_size)])) {
			/* Keep arrival order among the held. */
			p->zc_held[(p->zc_held_head + p->zc_held_count) % cap] = off;
			p->zc_held_count++;
			continue;
		}
		batch[nb++] = off;
		if (nb == 64) {
			p->ops->rx_release_zc(p->wq, batch, nb);
			nb = 0;
		}
	}
	if (nb)
		p->ops->rx_release_zc(p->wq, batch, nb);
}

static unsigned rx_step_zc(struct gnio_rx_proxy *p)
{
	/* ACQUIRE(rx.cons) every step: buffers must go back to the wire promptly
	 * or the wire's fill ring runs dry. Pairs with gnio_rx_ring_release(). */
	p->cached_cons = gnio_load_acquire_u64(&p->sh->cons);
	zc_release(p);
	uint32_t free_entries = p->size - (uint32_t)(p->prod - p->cached_cons);
	unsigned want = p->burst;
	if (p->flow_control && free_entries < want)
		want = free_entries;
	if (!want)
		return 0;
	unsigned got = p->ops->rx_burst_zc(p->wq, p->frames, want);
	if (!got)
		return 0;
	uint64_t ts = 0, bytes = 0;
	uint32_t kept = 0;
	for (unsigned i = 0; i < got; i++) {
		struct gnio_wire_frame *f = &p->frames[i];
		unsigned why = drop_reason(p, f->len);
		if (why == GNIO_DROP_REASON_COUNT && kept >= free_entries)
			why = GNIO_DROP_RING_FULL;
		if (why != GNIO_DROP_REASON_COUNT) {
			p->ops->rx_release_zc(p->wq, &f->buf_off, 1);
			STAT_ADD(p->dropped[why], 1);
			continue;
		}
		uint64_t idx = p->prod + kept;
		struct gnio_rx_cqe *c = rx_cqe(p, idx);
		if (!f->ts_ns && !ts)
			ts = gnio_gpu_dev_time_ns();
		c->ts_ns = f->ts_ns ? f->ts_ns : ts;
		if (p->inline_hdr)
			gnio_rx_ring_put_hdr(c, idx, p->size_log2, p->pool_cpu + f->buf_off, f->len);
		gnio_rx_ring_post(c, gnio_rx_meta_make(idx, p->size_log2, f->buf_off, f->len,
						       f->ts_ns ? GNIO_RX_F_TS_HW : 0));
		p->zc_off[idx & p->mask] = f->buf_off;
		bytes += f->len;
		kept++;
	}
	if (kept) {
		p->prod += kept;
		rx_publish(p);
		STAT_ADD(p->rx_packets, kept);
		STAT_ADD(p->rx_bytes, bytes);
		gnio_proxy_kick(p->kick, p->sleepers);
	}
	return got;
}

/* Steering, first pass over a burst: classify the frames that passed the
 * size checks, count drop/kernel verdicts, and push the frames of other
 * queues into their inboxes, one push per destination. Marks in fkeep the
 * frames this queue keeps; the placement loop skips the others. */
static void steer_burst(struct gnio_rx_proxy *p, unsigned got)
{
	unsigned nc = 0;
	for (unsigned i = 0; i < got; i++) {
		struct gnio_wire_frame *f = &p->frames[i];
		p->fkeep[i] = 1;
		if (drop_reason(p, f->len) != GNIO_DROP_REASON_COUNT)
			continue; /* counted by the placement loop */
		p->ff[nc].data = f->data;
		p->ff[nc].len = f->len;
		p->fidx[nc++] = (uint16_t)i;
	}
	if (!nc)
		return;
	gnio_flow_classify(p->flow_rd, p->ff, nc, p->fres);
	uint64_t out = 0, ts = 0;
	for (unsigned j = 0; j < nc; j++) {
		struct gnio_flow_result *r = &p->fres[j];
		unsigned i = p->fidx[j];
		if (r->action == GNIO_FLOW_ACTION_DROP || r->action == GNIO_FLOW_ACTION_KERNEL) {
			STAT_ADD(p->dropped[r->action == GNIO_FLOW_ACTION_DROP ? GNIO_DROP_FLOW_DROP
									: GNIO_DROP_FLOW_KERNEL], 1);
			p->fkeep[i] = 0;
			continue;
		}
		if (r->queue == p->queue_id || r->action == 0xff)
			continue; /* ours (0xff: already pushed below) */
		p->fkeep[i] = 0;
		uint16_t dest = r->queue;
		if (dest >= GNIO_STEER_MAX_QUEUES) {
			STAT_ADD(p->dropped[GNIO_DROP_NO_QUEUE], 1);
			continue;
		}
		/* Gather this destination's frames (in arrival order) for one push. */
		unsigned m = 0;
		for (unsigned j2 = j; j2 < nc; j2++) {
			struct gnio_flow_result *r2 = &p->fres[j2];
			if (r2->action == 0xff || r2->action == GNIO_FLOW_ACTION_DROP ||
			    r2->action == GNIO_FLOW_ACTION_KERNEL || r2->queue != dest)
				continue;
			struct gnio_wire_frame *f = &p->frames[p->fidx[j2]];
			if (!f->ts_ns && !ts)
				ts = gnio_gpu_dev_time_ns();
			p->fout[m].data = f->data;
			p->fout[m].len = f->len;
			p->fout[m].ts_ns = f->ts_ns ? f->ts_ns : ts;
			m++;
			p->fkeep[p->fidx[j2]] = 0;
			if (j2 != j)
				r2->action = 0xff;
		}
		int closed;
		unsigned in = gnio_steer_push(&p->steer[dest], p->fout, m, &closed);
		out += in;
		if (in < m) {
			struct gnio_steer_slot *sl = &p->steer[dest];
			unsigned why = !closed ? GNIO_DROP_RING_FULL
				       : __atomic_load_n(&sl->was_open, __ATOMIC_RELAXED) ? GNIO_DROP_STOPPED
											: GNIO_DROP_NO_QUEUE;
			STAT_ADD(p->dropped[why], m - in);
		}
	}
	if (out)
		STAT_ADD(p->steered_out, out);
}

/* Steering, the receiving side: move up to room published frames of this
 * queue's inbox into the ring entries from idx on (copy wires). Returns the
 * entries filled; adds to *bytes and *longest. */
static uint32_t steer_pull(struct gnio_rx_proxy *p, uint64_t idx, uint32_t room, uint64_t *bytes, uint32_t *longest)
{
	uint64_t first;
	unsigned n = gnio_steer_peek(p->inbox, room, &first);
	uint32_t kept = 0;
	for (unsigned i = 0; i < n; i++) {
		struct gnio_steer_cell *c = gnio_steer_cell_at(p->inbox, first + i);
		if (c->len > p->cap) {
			STAT_ADD(p->dropped[GNIO_DROP_TOO_BIG], 1);
			continue;
		}
		uint64_t at = idx + kept;
		memcpy(slot(p, at), gnio_steer_data_at(p->inbox, first + i), c->len);
		rx_cqe(p, at)->ts_ns = c->ts_ns;
		if (p->inline_hdr)
			gnio_rx_ring_put_hdr(rx_cqe(p, at), at, p->size_log2, slot(p, at), c->len);
		uint64_t meta = gnio_rx_meta_make(at, p->size_log2, (uint64_t)(at & p->mask) * p->slot_size, c->len, 0);
		if (p->pool_dev)
			p->meta_pending[at & p->mask] = meta;
		else
			gnio_rx_ring_post(rx_cqe(p, at), meta);
		*bytes += c->len;
		if (c->len > *longest)
			*longest = c->len;
		kept++;
	}
	if (n) {
		gnio_steer_take(p->inbox, n);
		STAT_ADD(p->steered_in, n);
	}
	return kept;
}

/* An idle proxy with an inbox naps at most this long: frames pushed by other
 * proxies do not wake its wait on the wire. */
#define STEER_MAX_WAIT_NS 1000000u

void gnio_rx_proxy_wait(void *arg, uint64_t timeout_ns)
{
	struct gnio_rx_proxy *p = arg;
	if (p->inbox && timeout_ns > STEER_MAX_WAIT_NS)
		timeout_ns = STEER_MAX_WAIT_NS;
	if (p->ops->rx_wait && !p->stage_count && !p->no_wire) {
		p->ops->rx_wait(p->wq, timeout_ns);
		return;
	}
	/* Staged copies in flight finish by themselves: look again soon. */
	uint64_t ns = p->stage_count && timeout_ns > 20000u ? 20000u : timeout_ns;
	struct timespec ts = gnio_timespec_ns(ns);
	nanosleep(&ts, NULL);
}

/* Copy wires. `steer` is a constant in each caller, so the compiler builds
 * one body without the steering branches (no flow: the path of every frame
 * stays as short as before steering existed) and one with them. */
static inline __attribute__((always_inline)) unsigned rx_step_copy(struct gnio_rx_proxy *p, const int steer)
{
	unsigned reaped = 0;
	if (p->pool_dev) {
		reaped = stage_reap(p, 0);
		if (p->stage_count == GNIO_RX_STAGE_DEPTH)
			return reaped; /* every copy slot busy: let them land */
	}
	/* Fill point: entries up to `staged` are taken (published or in copy). */
	uint32_t free_entries = gnio_rx_ring_free_slots(p->sh, p->staged, &p->cached_cons, p->size);
	if (free_entries < p->burst) {
		/* The cached consumer index refreshes only when it says "full";
		 * before dropping frames as ring_full (or holding them back with
		 * flow control) read the real one. ACQUIRE(rx.cons) pairs with
		 * RELEASE(rx.cons) in gnio_rx_ring_release(). */
		p->cached_cons = gnio_load_acquire_u64(&p->sh->cons);
		free_entries = p->size - (uint32_t)(p->staged - p->cached_cons);
	}
	/* Entries with a free ring slot whose buffer is still sent in place
	 * cannot take a frame yet: those frames are no_buffer, not ring_full. */
	const int holds = holds_active(p);
	uint32_t held = 0;
	if (holds) {
		/* Filling is in order, so the first held slot stops it: looking
		 * one burst ahead is enough to place what this step can take. */
		uint32_t look = free_entries < p->burst ? free_entries : p->burst;
		uint32_t ok = slots_refillable(p, p->staged, look);
		held = ok < look ? free_entries - ok : 0;
		free_entries = ok < look ? ok : free_entries;
	}
	unsigned want = p->burst;
	if (p->flow_control) {
		if (free_entries < want)
			want = free_entries;
		if (!want)
			return reaped;
	}
	for (unsigned i = 0; i < want; i++) {
		struct gnio_wire_frame *f = &p->frames[i];
		f->data = i < free_entries ? slot(p, p->staged + i) : p->scratch + (size_t)(i - free_entries) * p->cap;
		f->cap = p->cap;
		f->len = 0;
		f->ts_ns = 0;
	}
	unsigned got = steer && p->no_wire ? 0 : p->ops->rx_burst(p->wq, p->frames, want);
	if (!got && !(steer && p->inbox))
		return reaped;
	if (got > free_entries) {
		/* The consumer may have released entries while the wire filled
		 * the burst: look again before dropping anything as ring_full.
		 * Frames that went to scratch move into their slots below.
		 * ACQUIRE(rx.cons): pairs with RELEASE(rx.cons) in
		 * gnio_rx_ring_release(). */
		p->cached_cons = gnio_load_acquire_u64(&p->sh->cons);
		uint32_t ring_free = p->size - (uint32_t)(p->staged - p->cached_cons);
		if (holds) {
			uint32_t extra = ring_free - free_entries;
			uint32_t look = extra < got - free_entries ? extra : got - free_entries;
			uint32_t ok = slots_refillable(p, p->staged + free_entries, look);
			held = ok < look ? ring_free - (free_entries + ok) : 0;
			free_entries = ok < look ? free_entries + ok : ring_free;
		} else {
			free_entries = ring_free;
		}
	}

	const uint8_t *keep = NULL;
	if (steer && p->flow_rd && got) {
		steer_burst(p, got);
		keep = p->fkeep;
	}
	uint64_t ts = 0, bytes = 0;
	uint32_t kept = 0, longest = 0;
	for (unsigned i = 0; i < got; i++) {
		struct gnio_wire_frame *f = &p->frames[i];
		if (steer && keep && !keep[i])
			continue; /* steered elsewhere, or counted by steer_burst */
		unsigned why = drop_reason(p, f->len);
		if (why == GNIO_DROP_REASON_COUNT && kept >= free_entries)
			why = kept < free_entries + held ? GNIO_DROP_NO_BUFFER : GNIO_DROP_RING_FULL;
		if (why != GNIO_DROP_REASON_COUNT) {
			STAT_ADD(p->dropped[why], 1);
			continue;
		}
		if (f->len > longest)
			longest = f->len;
		uint64_t idx = p->staged + kept;
		uint8_t *dst = slot(p, idx);
		if (f->data != dst)
			memmove(dst, f->data, f->len); /* close a hole left by a drop */
		struct gnio_rx_cqe *c = rx_cqe(p, idx);
		if (!f->ts_ns && !ts)
			ts = gnio_gpu_dev_time_ns();
		c->ts_ns = f->ts_ns ? f->ts_ns : ts;
		if (p->inline_hdr)
			gnio_rx_ring_put_hdr(c, idx, p->size_log2, dst, f->len);
		uint64_t meta = gnio_rx_meta_make(idx, p->size_log2, (uint64_t)(idx & p->mask) * p->slot_size, f->len,
						  f->ts_ns ? GNIO_RX_F_TS_HW : 0);
		if (p->pool_dev)
			p->meta_pending[idx & p->mask] = meta; /* posted when the copy lands */
		else
			gnio_rx_ring_post(c, meta);
		bytes += f->len;
		kept++;
	}
	uint32_t pulled = 0;
	if (steer && p->inbox && kept < free_entries) {
		pulled = steer_pull(p, p->staged + kept, free_entries - kept, &bytes, &longest);
		kept += pulled;
	}
	if (kept && p->pool_dev) {
		struct gnio_rx_stage *st = &p->stage[(p->stage_head + p->stage_count) % GNIO_RX_STAGE_DEPTH];
		if (stage_issue(p, p->staged, kept, longest, st) != GNIO_SUCCESS) {
			/* The bytes will not reach the device: never publish them. */
			STAT_ADD(p->dropped[GNIO_DROP_DEVICE_ERROR], kept);
			gnio_ctx_post_event(p->ctx, GNIO_PE_EVENT_WIRE_ERROR, GNIO_ERROR_DRIVER, p->staged,
					    "copy of %u RX frames into device memory failed: %s", kept,
					    gnio_last_error_msg());
			return got;
		}
		p->staged += kept;
		st->end = p->staged;
		st->bytes = bytes;
		p->stage_count++;
		stage_reap(p, 0);
		return got + pulled;
	}
	if (kept) {
		p->prod += kept;
		p->staged = p->prod;
		rx_publish(p);
		STAT_ADD(p->rx_packets, kept);
		STAT_ADD(p->rx_bytes, bytes);
		gnio_proxy_kick(p->kick, p->sleepers);
	}
	return got + pulled;
}

unsigned gnio_rx_proxy_step(void *arg)
{
	struct gnio_rx_proxy *p = arg;
	if (p->zero_copy)
		return rx_step_zc(p);
	if (p->flow_rd || p->inbox || p->no_wire)
		return rx_step_copy(p, 1);
	return rx_step_copy(p, 0);
}

void gnio_rx_proxy_drain(struct gnio_rx_proxy *p)
{
	if (p->pool_dev)
		stage_reap(p, 1); /* publish what is already in flight */
	if (p->no_wire)
		return;
	if (p->ops->rx_quiesce)
		p->ops->rx_quiesce(p->wq);
	/* Bounded: a live wire may never run dry. */
	for (int round = 0; round < 4096; round++) {
		unsigned got;
		if (p->zero_copy) {
			got = p->ops->rx_burst_zc(p->wq, p->frames, p->burst);
			for (unsigned i = 0; i < got; i++)
				p->ops->rx_release_zc(p->wq, &p->frames[i].buf_off, 1);
		} else {
			for (unsigned i = 0; i < p->burst; i++) {
				p->frames[i].data = p->scratch + (size_t)i * p->cap;
				p->frames[i].cap = p->cap;
			}
			got = p->ops->rx_burst(p->wq, p->frames, p->burst);
		}
		if (!got)
			return;
		STAT_ADD(p->dropped[GNIO_DROP_STOPPED], got);
	}
}

/* CPU datapath: the caller's thread is the proxy. Frames are written straight
 * into the caller's buffers; a dropped frame's buffer moves to the end, so
 * entries [0, *nb) of pkts are the frames returned (in arrival order). */
gnio_error_t gnio_rx_proxy_recv_host(struct gnio_rx_proxy *p, struct gnio_eth_pkt *pkts, uint32_t max,
				     uint32_t *nb)
{
	struct gnio_wire_frame fr[64];
	uint32_t out = 0;
	while (out < max) {
		unsigned want = max - out < 64 ? max - out : 64;
		for (unsigned i = 0; i < want; i++) {
			fr[i] = (struct gnio_wire_frame){.data = pkts[out + i].data, .cap = pkts[out + i].cap};
		}
		unsigned got = p->ops->rx_burst(p->wq, fr, want);
		if (!got)
			break;
		uint32_t kept = 0;
		uint64_t bytes = 0;
		for (unsigned i = 0; i < got; i++) {
			struct gnio_eth_pkt *slot = &pkts[out + i];
			unsigned why = fr[i].len > fr[i].cap ? GNIO_DROP_TOO_BIG
				       : fr[i].len < ETH_HDR_LEN ? GNIO_DROP_RUNT : GNIO_DROP_REASON_COUNT;
			if (why != GNIO_DROP_REASON_COUNT) {
				STAT_ADD(p->dropped[why], 1);
				continue;
			}
			struct gnio_eth_pkt *dst = &pkts[out + kept];
			if (dst != slot) { /* swap buffers: no copy */
				struct gnio_eth_pkt t = *dst;
				*dst = *slot;
				*slot = t;
			}
			dst->len = fr[i].len;
			dst->ts_ns = fr[i].ts_ns;
			bytes += fr[i].len;
			kept++;
		}
		STAT_ADD(p->rx_packets, kept);
		STAT_ADD(p->rx_bytes, bytes);
		out += kept;
		if (got < want)
			break;
	}
	*nb = out;
	return GNIO_SUCCESS;
}
