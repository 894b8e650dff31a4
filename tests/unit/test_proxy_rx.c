/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_proxy_rx.c - the RX proxy (src/proxy/rx_proxy.c) stepped by
 * hand, single-threaded, over a scripted wire and a fake device
 * (tests/util/fake_wire.h); the test plays the consumer with the ring helpers
 * of gnio/impl/ring.h. Every case checks exact counts and order:
 * - drops in the middle of a burst close their holes, frames keep their slots;
 * - a full ring drops (ring_full) or, with flow control, leaves frames on the wire;
 * - zero-copy buffers go back in arrival order once released, held ones wait;
 * - staged copies publish in batch order, only after their fence, and a failed
 *   fence or copy loses exactly its frames (device_error);
 * - drain counts what is left on the wire as stopped.
 */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "fake_wire.h"
#include "core/ctx_priv.h"
#include "proxy/proxy.h"

/* ------------------------------------------------------------ fixture -- */

#define MAX_EVENTS 32u

struct rx_cfg {
	uint32_t size, burst, slot, cap;
	uint32_t pool_slots; /* zero-copy: chunks in the pool (else one per entry) */
	int flow_control;
	int zero_copy;
	int staged;          /* pool in "device memory": copies through fake fences */
	int stage_word;      /* ... fenced by a word the stream stores, not fence objects */
	int holds;           /* hold words active (a TX queue sends in place) */
};

struct rx_fix {
	struct rx_cfg cfg;
	struct fake_wire *w;
	struct gnio_wire_ops ops;
	struct fake_gpu *g;
	struct gnio_ctx ctx;
	struct gnio_pe *pe;
	struct gnio_pe_event ev[MAX_EVENTS];
	unsigned nev;
	struct gnio_rx_proxy p;
	struct gnio_gpu_eth_rxq q; /* the consumer's view (host pointers) */
	uint8_t *pool;             /* where the consumer reads payloads */
	uint8_t *mirror;           /* staged: where the wire writes them */
	uint32_t *hold;
	unsigned hold_users;
	uint64_t stage_word;       /* the word the fake stream stores */
};

static void on_event(void *user, const struct gnio_pe_event *ev)
{
	struct rx_fix *f = user;
	if (f->nev < MAX_EVENTS)
		f->ev[f->nev] = *ev;
	f->nev++;
}

/* TEST_RX_INLINE_HEADER=1 (the second CTest entry): every case again with
 * completions that carry an inline header, checked on every entry. */
static int inline_hdr(void)
{
	const char *v = getenv("TEST_RX_INLINE_HEADER");
	return v && *v == '1';
}

static struct rx_fix *rx_fix_new(const struct rx_cfg *cfg)
{
	struct rx_fix *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->cfg = *cfg;
	f->w = fake_wire_new();
	assert_non_null(f->w);
	fake_wire_ops(&f->ops, cfg->zero_copy ? FAKE_WIRE_ZERO_COPY : 0);
	assert_ok(gnio_pe_create(&f->pe));
	assert_ok(gnio_pe_set_event_cb(f->pe, on_event, f));
	assert_ok(gnio_pe_connect_ctx(f->pe, &f->ctx));

	uint32_t slots = cfg->zero_copy ? cfg->pool_slots : cfg->size;
	size_t pool_size = (size_t)slots * cfg->slot;
	f->pool = test_zalloc_line(pool_size);
	f->hold = test_zalloc_line((size_t)slots * sizeof(*f->hold));
	f->hold_users = cfg->holds ? 1 : 0;

	f->q.sh = test_zalloc_line(sizeof(*f->q.sh));
	f->q.lc = test_zalloc_line(sizeof(*f->q.lc));
	f->q.cqe_shift = inline_hdr() ? GNIO_RX_CQE_INLINE_SHIFT : GNIO_RX_CQE_SHIFT;
	f->q.cqe = test_zalloc_line(((size_t)cfg->size << f->q.cqe_shift) * sizeof(uint64_t));
	f->q.meta = test_zalloc_line((size_t)cfg->size * sizeof(*f->q.meta));
	if (inline_hdr())
		f->q.hdr_local = test_zalloc_line((size_t)cfg->size * GNIO_RX_HDR_LOCAL_WORDS * sizeof(uint64_t));
	f->q.pool = f->pool;
	f->q.pool_size = pool_size;
	f->q.size = cfg->size;
	f->q.mask = cfg->size - 1;
	f->q.size_log2 = (uint32_t)__builtin_ctz(cfg->size);
	f->q.slot_size = cfg->slot;

	struct gnio_rx_proxy *p = &f->p;
	p->ops = &f->ops;
	p->wq = f->w;
	p->ctx = &f->ctx;
	p->sh = f->q.sh;
	p->cqe = f->q.cqe;
	p->cqe_shift = f->q.cqe_shift;
	p->inline_hdr = inline_hdr();
	p->size = cfg->size;
	p->mask = cfg->size - 1;
	p->burst = cfg->burst;
	p->slot_size = cfg->slot;
	p->cap = cfg->cap;
	p->flow_control = cfg->flow_control;
	p->zero_copy = cfg->zero_copy;
	p->pool_size = pool_size;
	p->pool_cpu = f->pool;
	p->hold = f->hold;
	p->hold_users = &f->hold_users;
	if (cfg->zero_copy) {
		f->w->pool = f->pool;
		f->w->pool_size = pool_size;
	}
	if (cfg->staged) {
		/* as eth_rxq.c does for a GPU-memory pool: the wire fills a host
		 * mirror, the consumer reads the device pool */
		f->g = fake_gpu_new();
		assert_non_null(f->g);
		f->mirror = test_zalloc_line(pool_size);
		p->gpu = &f->g->gpu;
		p->pool_cpu = f->mirror;
		p->pool_dev = f->pool;
		if (cfg->stage_word) {
			fake_gpu_use_word(f->g);
			p->stage_word = &f->stage_word;
			p->stage_word_dev = &f->stage_word;
		}
	}
	assert_ok(gnio_rx_proxy_init(p));
	assert_int_equal(p->stage_by_word, cfg->staged && cfg->stage_word);
	if (p->stage_by_word)
		p->stage_check_ns = 0; /* ask the stream at once when the word is still */
	assert_int_equal(p->size_log2, f->q.size_log2);
	if (cfg->staged)
		assert_int_equal(f->g->streams_created, 1);
	return f;
}

static void rx_fix_free(struct rx_fix *f)
{
	gnio_rx_proxy_fini(&f->p);
	if (f->g) {
		assert_int_equal(f->g->streams_destroyed, 1);
		assert_int_equal(fake_gpu_fences_live(f->g), 0);
		assert_int_equal(f->g->misuse, 0);
		fake_gpu_free(f->g);
	}
	assert_ok(gnio_pe_disconnect_ctx(f->pe, &f->ctx));
	assert_ok(gnio_pe_destroy(f->pe));
	fake_wire_free(f->w);
	free(f->q.sh);
	free(f->q.lc);
	free(f->q.cqe);
	free(f->q.hdr_local);
	free(f->q.meta);
	free(f->pool);
	free(f->mirror);
	free(f->hold);
	free(f);
}

/* ------------------------------------------------------------ helpers -- */

static uint32_t push_n(struct rx_fix *f, unsigned n, uint32_t len)
{
	uint32_t first = fake_wire_push(f->w, len, 0);
	for (unsigned i = 1; i < n; i++)
		fake_wire_push(f->w, len, 0);
	return first;
}

/* Zero-copy frames lie 32 bytes into their chunk, as behind XDP headroom. */
static uint64_t chunk_off(const struct rx_fix *f, uint32_t chunk)
{
	return (uint64_t)chunk * f->cfg.slot + 32u;
}

/* Entry idx, handed out by a take, is frame `id`: its length, its place (the
 * entry's own slot on copy wires, where the wire put it on zero-copy ones),
 * its bytes and its timestamp. */
static void expect_entry(struct rx_fix *f, uint64_t idx, uint32_t id)
{
	const struct fake_rx_frame *s = &f->w->rx[id];
	uint64_t m = gnio_rx_ring_meta(&f->q, idx);
	uint64_t off = gnio_rx_meta_off(m);
	uint32_t len = gnio_rx_meta_len(m);
	uint64_t want_off = f->cfg.zero_copy ? s->buf_off : (idx & f->q.mask) * f->cfg.slot;
	if (len != s->len || off != want_off)
		fail_msg("entry %llu: len %u off %llu, expected frame %u: len %u off %llu", (unsigned long long)idx,
			 len, (unsigned long long)off, id, s->len, (unsigned long long)want_off);
	if (!fake_frame_matches(f->pool + off, len, id))
		fail_msg("entry %llu: the bytes at %llu are not frame %u's", (unsigned long long)idx,
			 (unsigned long long)off, id);
	if (f->q.hdr_local) {
		/* the header that came with the completion is the frame's */
		gnio_rx_ring_fill_hdr(&f->q, idx, 1, 0, 1, 0);
		uint32_t hn = 0;
		const uint8_t *h = gnio_gpu_dev_eth_rxq_get_pkt_hdr(&f->q, idx, &hn);
		assert_int_equal(hn, len < GNIO_RX_HDR_BYTES ? len : GNIO_RX_HDR_BYTES);
		if (memcmp(h, f->pool + off, hn))
			fail_msg("entry %llu: its inline header is not frame %u's first bytes", (unsigned long long)idx,
				 id);
	}
	const struct gnio_rx_cqe *c = gnio_rx_ring_cqe(&f->q, idx);
	if (s->ts_ns) {
		assert_int_equal(c->ts_ns, s->ts_ns);
		assert_int_equal(gnio_rx_meta_flags(m), GNIO_RX_F_TS_HW);
	} else {
		assert_int_not_equal(c->ts_ns, 0); /* the proxy's clock */
		assert_int_equal(gnio_rx_meta_flags(m), 0);
	}
}

/* Take n entries: they must be ready and be the frames ids[0..n), in order. */
static void expect_take(struct rx_fix *f, const uint32_t *ids, uint32_t n)
{
	uint64_t first = 0;
	uint32_t got = gnio_rx_ring_take(&f->q, n, &first);
	assert_int_equal(got, n);
	for (uint32_t i = 0; i < n; i++)
		expect_entry(f, first + i, ids[i]);
}

/* Nothing more is ready for the consumer. */
static void expect_none_ready(const struct rx_fix *f)
{
	uint64_t head = f->q.lc->head;
	uint64_t meta = gnio_load_acquire_u64(&gnio_rx_ring_cqe(&f->q, head)->meta);
	if (gnio_rx_meta_ready(meta, head, f->q.size_log2))
		fail_msg("entry %llu is ready, expected none", (unsigned long long)head);
}

/* The same for the frames first, first+1, ... first+n-1. */
static void expect_take_run(struct rx_fix *f, uint32_t first_id, uint32_t n)
{
	uint32_t ids[64];
	assert_true(n <= 64);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = first_id + i;
	expect_take(f, ids, n);
}

static void release(struct rx_fix *f)
{
	gnio_rx_ring_release(&f->q);
}

/* Every drop reason counted exactly as `want` says (reasons not named: 0). */
static void expect_dropped(const struct rx_fix *f, const uint64_t *want)
{
	for (unsigned r = 0; r < GNIO_DROP_REASON_COUNT; r++)
		if (f->p.dropped[r] != want[r])
			fail_msg("dropped[%u] = %llu, expected %llu", r, (unsigned long long)f->p.dropped[r],
				 (unsigned long long)want[r]);
}

/* Nothing in flight and everything taken: every frame the wire handed over
 * was received (and seen by the consumer) or dropped. */
static void expect_books(const struct rx_fix *f)
{
	uint64_t dropped = 0;
	for (unsigned r = 0; r < GNIO_DROP_REASON_COUNT; r++)
		dropped += f->p.dropped[r];
	if (!f->cfg.zero_copy)
		assert_int_equal(f->p.staged, f->p.prod);
	assert_int_equal(f->p.rx_packets + dropped, f->w->rx_next);
	assert_int_equal(gnio_load_acquire_u64(&f->q.sh->prod), f->p.rx_packets);
	assert_int_equal(f->q.lc->head, f->p.rx_packets);
	expect_none_ready(f);
}

static void expect_released(const struct rx_fix *f, const uint64_t *offs, unsigned n)
{
	assert_int_equal(f->w->released_count, n);
	for (unsigned i = 0; i < n; i++)
		if (f->w->released[i] != offs[i])
			fail_msg("release %u: buffer %llu, expected %llu", i, (unsigned long long)f->w->released[i],
				 (unsigned long long)offs[i]);
}

/* ------------------------------------------------- 1. mid-burst drops -- */

static void test_rx_mid_burst_drops(void **state)
{
	struct rx_cfg cfg = {.size = 16, .burst = 8, .slot = 128, .cap = 128};
	struct rx_fix *f = rx_fix_new(&cfg);

	/* One burst: runts and too-big frames between good ones, at the edges
	 * of the limits (14 bytes kept, 128 = cap kept, 129 dropped). */
	uint32_t a = fake_wire_push(f->w, 60, 1111);
	fake_wire_push(f->w, 10, 0);
	uint32_t b = fake_wire_push(f->w, 64, 0);
	fake_wire_push(f->w, 500, 0);
	uint32_t c = fake_wire_push(f->w, 14, 0);
	uint32_t d = fake_wire_push(f->w, 128, 2222);
	fake_wire_push(f->w, 129, 0);
	fake_wire_push(f->w, 0, 0);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 8);
	uint64_t want[GNIO_DROP_REASON_COUNT] = {[GNIO_DROP_RUNT] = 2, [GNIO_DROP_TOO_BIG] = 2};
	expect_dropped(f, want);
	assert_int_equal(f->p.rx_packets, 4);
	assert_int_equal(f->p.rx_bytes, 60 + 64 + 14 + 128);
	const uint32_t first4[] = {a, b, c, d};
	expect_take(f, first4, 4); /* entries 0-3 in slots 0-3, holes closed */
	expect_none_ready(f);

	/* Eight more fill entries 4-11: four stay free. */
	uint32_t fill = push_n(f, 8, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 8);
	/* A burst larger than the room: frames 4-7 land in scratch. The drops
	 * at 0 and 3 pull frames 1 and 2 down one slot and bring 4 and 5 in
	 * from scratch; 6 and 7 find no entry. */
	fake_wire_push(f->w, 5, 0);
	uint32_t in_slot1 = fake_wire_push(f->w, 70, 0);
	uint32_t in_slot2 = fake_wire_push(f->w, 71, 0);
	fake_wire_push(f->w, 2000, 0);
	uint32_t in_scratch0 = fake_wire_push(f->w, 72, 3333);
	uint32_t in_scratch1 = fake_wire_push(f->w, 73, 0);
	fake_wire_push(f->w, 74, 0);
	fake_wire_push(f->w, 75, 0);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 8);
	want[GNIO_DROP_RUNT] = 3;
	want[GNIO_DROP_TOO_BIG] = 3;
	want[GNIO_DROP_RING_FULL] = 2;
	expect_dropped(f, want);
	const uint32_t next12[] = {fill, fill + 1, fill + 2, fill + 3, fill + 4, fill + 5, fill + 6, fill + 7,
				     in_slot1, in_slot2, in_scratch0, in_scratch1};
	expect_take(f, next12, 12);
	expect_none_ready(f);

	/* Released, the ring wraps: entries 16 and 17 use slots 0 and 1. */
	release(f);
	uint32_t wrapped = push_n(f, 2, 90);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 2);
	expect_take_run(f, wrapped, 2);
	expect_dropped(f, want);
	expect_books(f);
	assert_int_equal(f->p.rx_packets, 18);
	rx_fix_free(f);
}

/* ------------------------------------------------------ 2. ring full -- */

static void test_rx_ring_full_drops(void **state)
{
	struct rx_cfg cfg = {.size = 8, .burst = 8, .slot = 64, .cap = 64};
	struct rx_fix *f = rx_fix_new(&cfg);

	assert_int_equal(push_n(f, 8, 60), 0);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 8);
	/* No entry free: the wire is still read, and all four are ring_full. */
	push_n(f, 4, 60);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	assert_int_equal(f->w->rx_last_asked, 8);
	assert_int_equal(fake_wire_rx_left(f->w), 0);
	uint64_t want[GNIO_DROP_REASON_COUNT] = {[GNIO_DROP_RING_FULL] = 4};
	expect_dropped(f, want);
	assert_int_equal(f->q.sh->prod, 8);

	/* Three released: three of the next five fit, in the freed slots. */
	expect_take_run(f, 0, 3);
	release(f);
	uint32_t next = push_n(f, 5, 61);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 5);
	want[GNIO_DROP_RING_FULL] = 6;
	expect_dropped(f, want);
	const uint32_t rest[] = {3, 4, 5, 6, 7, next, next + 1, next + 2};
	expect_take(f, rest, 8);
	expect_books(f);
	rx_fix_free(f);
}

static void test_rx_ring_full_flow_control(void **state)
{
	struct rx_cfg cfg = {.size = 8, .burst = 8, .slot = 64, .cap = 64, .flow_control = 1};
	struct rx_fix *f = rx_fix_new(&cfg);

	push_n(f, 12, 60);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 8);
	/* Full: the wire is not even asked; the frames stay on it. */
	unsigned calls = f->w->rx_calls;
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	assert_int_equal(f->w->rx_calls, calls);
	assert_int_equal(fake_wire_rx_left(f->w), 4);

	/* Three released: exactly three asked for and taken, in order. */
	expect_take_run(f, 0, 3);
	release(f);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 3);
	assert_int_equal(f->w->rx_last_asked, 3);
	assert_int_equal(fake_wire_rx_left(f->w), 1);
	expect_take_run(f, 3, 8);
	expect_none_ready(f);
	release(f);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 1);
	expect_take_run(f, 11, 1);

	uint64_t none[GNIO_DROP_REASON_COUNT] = {0};
	expect_dropped(f, none);
	assert_int_equal(f->p.rx_packets, 12);
	expect_books(f);
	rx_fix_free(f);
}

/* ------------------------------------------------------ 3. zero-copy -- */

static void test_rx_zero_copy_release_order(void **state)
{
	struct rx_cfg cfg = {.size = 8, .burst = 4, .slot = 256, .cap = 200, .pool_slots = 16, .zero_copy = 1};
	struct rx_fix *f = rx_fix_new(&cfg);

	/* Buffers in no particular pool order, as a fill ring hands them out. */
	uint32_t a = fake_wire_push_zc(f->w, 100, 0, chunk_off(f, 5));
	fake_wire_push_zc(f->w, 8, 0, chunk_off(f, 2));     /* runt */
	uint32_t b = fake_wire_push_zc(f->w, 120, 77, chunk_off(f, 9));
	fake_wire_push_zc(f->w, 201, 0, chunk_off(f, 0));   /* past cap */
	uint32_t c = fake_wire_push_zc(f->w, 60, 0, chunk_off(f, 12));
	uint32_t d = fake_wire_push_zc(f->w, 61, 0, chunk_off(f, 7));
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	/* Dropped buffers go straight back, in arrival order; kept ones stay. */
	const uint64_t dropped_offs[] = {chunk_off(f, 2), chunk_off(f, 0)};
	expect_released(f, dropped_offs, 2);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 2);

	/* Taken but not released: nothing goes back. */
	const uint32_t ab[] = {a, b};
	expect_take(f, ab, 2);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	expect_released(f, dropped_offs, 2);
	release(f);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	const uint64_t after_ab[] = {chunk_off(f, 2), chunk_off(f, 0), chunk_off(f, 5), chunk_off(f, 9)};
	expect_released(f, after_ab, 4);

	const uint32_t cd[] = {c, d};
	expect_take(f, cd, 2);
	expect_none_ready(f);
	release(f);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	const uint64_t after_cd[] = {chunk_off(f, 2), chunk_off(f, 0), chunk_off(f, 5),
				     chunk_off(f, 9), chunk_off(f, 12), chunk_off(f, 7)};
	expect_released(f, after_cd, 6);

	/* Ten more into eight entries: the last two are ring_full and go back
	 * at once; the eight wait for the consumer. */
	uint32_t first = f->w->rx_count;
	for (uint32_t k = 0; k < 10; k++)
		fake_wire_push_zc(f->w, 50 + k, 0, chunk_off(f, k));
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 2);
	uint64_t full_offs[8];
	memcpy(full_offs, after_cd, sizeof(after_cd));
	full_offs[6] = chunk_off(f, 8);
	full_offs[7] = chunk_off(f, 9);
	expect_released(f, full_offs, 8);
	expect_take_run(f, first, 8);
	release(f);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	assert_int_equal(f->w->released_count, 16);
	for (uint32_t k = 0; k < 8; k++)
		assert_int_equal(f->w->released[8 + k], chunk_off(f, k));

	uint64_t want[GNIO_DROP_REASON_COUNT] = {[GNIO_DROP_RUNT] = 1, [GNIO_DROP_TOO_BIG] = 1,
						 [GNIO_DROP_RING_FULL] = 2};
	expect_dropped(f, want);
	expect_books(f);
	rx_fix_free(f);
}

static void test_rx_zero_copy_holds(void **state)
{
	struct rx_cfg cfg = {.size = 8, .burst = 8, .slot = 256, .cap = 256, .pool_slots = 16, .zero_copy = 1,
			     .holds = 1};
	struct rx_fix *f = rx_fix_new(&cfg);

	/* a, b, c, d in chunks 3, 6, 1, 10 */
	uint32_t a = fake_wire_push_zc(f->w, 100, 0, chunk_off(f, 3));
	fake_wire_push_zc(f->w, 101, 0, chunk_off(f, 6));
	fake_wire_push_zc(f->w, 102, 0, chunk_off(f, 1));
	fake_wire_push_zc(f->w, 103, 0, chunk_off(f, 10));
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	expect_take_run(f, a, 4);
	/* The consumer forwards b in place (its hold says SENT), then releases
	 * all four; e (chunk 11) arrives meanwhile. */
	f->hold[6] = GNIO_HOLD_SENT;
	release(f);
	uint32_t e = fake_wire_push_zc(f->w, 104, 0, chunk_off(f, 11));
	assert_int_equal(gnio_rx_proxy_step(&f->p), 1);
	/* a goes back; b waits for its send, c and d wait behind b. */
	const uint64_t only_a[] = {chunk_off(f, 3)};
	expect_released(f, only_a, 1);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	expect_released(f, only_a, 1);
	expect_take_run(f, e, 1); /* arrivals are still published */

	gnio_hold_done(&f->hold[6]);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	const uint64_t abcd[] = {chunk_off(f, 3), chunk_off(f, 6), chunk_off(f, 1), chunk_off(f, 10)};
	expect_released(f, abcd, 4);
	assert_int_equal(f->hold[6], GNIO_HOLD_FREE); /* reset for its next use */

	/* e is sent in place too; the next frame, released after it, waits behind it. */
	f->hold[11] = GNIO_HOLD_SENT;
	release(f);
	uint32_t behind = fake_wire_push_zc(f->w, 105, 0, chunk_off(f, 4));
	assert_int_equal(gnio_rx_proxy_step(&f->p), 1);
	expect_take_run(f, behind, 1);
	release(f);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	expect_released(f, abcd, 4);
	gnio_hold_done(&f->hold[11]);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	const uint64_t all[] = {chunk_off(f, 3), chunk_off(f, 6), chunk_off(f, 1),
				chunk_off(f, 10), chunk_off(f, 11), chunk_off(f, 4)};
	expect_released(f, all, 6);

	uint64_t none[GNIO_DROP_REASON_COUNT] = {0};
	expect_dropped(f, none);
	expect_books(f);
	rx_fix_free(f);
}

/* One slow in-place send while traffic goes on: entries keep cycling, and
 * more buffers wait behind the held one than the ring has entries (the wire
 * owns more buffers than that: an AF_XDP pool is the ring plus a reserve).
 * Each must still go back exactly once, in order. */
static void test_rx_zero_copy_held_past_ring_size(void **state)
{
	struct rx_cfg cfg = {.size = 8, .burst = 4, .slot = 256, .cap = 256, .pool_slots = 32, .zero_copy = 1,
			     .holds = 1};
	struct rx_fix *f = rx_fix_new(&cfg);
	const uint32_t later = 20;

	uint32_t first = fake_wire_push_zc(f->w, 80, 0, chunk_off(f, 0));
	assert_int_equal(gnio_rx_proxy_step(&f->p), 1);
	expect_take_run(f, first, 1);
	f->hold[0] = GNIO_HOLD_SENT;
	release(f);
	for (uint32_t k = 1; k <= later; k++) {
		fake_wire_push_zc(f->w, 80 + k, 0, chunk_off(f, k));
		assert_int_equal(gnio_rx_proxy_step(&f->p), 1);
		expect_take_run(f, first + k, 1);
		release(f);
	}
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	assert_int_equal(f->w->released_count, 0);

	gnio_hold_done(&f->hold[0]);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	uint64_t want[32];
	for (uint32_t k = 0; k <= later; k++)
		want[k] = chunk_off(f, k);
	expect_released(f, want, later + 1);
	expect_books(f);
	rx_fix_free(f);
}

/* ------------------------------------------------- 4. staged copies -- */

static const struct rx_cfg staged_cfg = {.size = 16, .burst = 4, .slot = 256, .cap = 256, .staged = 1};

/* Each staged test runs twice: fence objects, and the word the stream
 * stores (its prestate says which). Both must behave the same. */
static struct rx_cfg staged_for(void **state)
{
	struct rx_cfg c = staged_cfg;
	c.stage_word = *state != NULL;
	return c;
}

/* Fence objects alive: the word path keeps none. */
static void expect_fences_live(const struct rx_fix *f, unsigned n)
{
	assert_int_equal(fake_gpu_fences_live(f->g), f->cfg.stage_word ? 0 : n);
}

static void test_rx_staged_publish_in_order(void **state)
{
	const struct rx_cfg cfg = staged_for(state);
	struct rx_fix *f = rx_fix_new(&cfg);
	struct fake_gpu *g = f->g;

	uint32_t b0 = push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	/* A longer frame widens its batch's copy to cover it. */
	uint32_t b1 = fake_wire_push(f->w, 60, 0);
	fake_wire_push(f->w, 200, 0);
	fake_wire_push(f->w, 14, 0);
	fake_wire_push(f->w, 100, 0);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	uint32_t b2 = push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	assert_int_equal(g->nfences, 3);
	/* Nothing shows before its copy landed. */
	expect_none_ready(f);
	assert_int_equal(f->p.rx_packets, 0);
	assert_int_equal(f->q.sh->prod, 0);

	/* The second batch lands first: still nothing, the first holds it. */
	fake_gpu_fence_set(g, 1, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	expect_none_ready(f);
	expect_fences_live(f, 3);

	fake_gpu_fence_set(g, 0, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 8);
	expect_take_run(f, b0, 4);
	expect_take_run(f, b1, 4);
	expect_none_ready(f); /* the third batch is still in flight */
	assert_int_equal(f->p.rx_packets, 8);
	assert_int_equal(f->p.rx_bytes, 400 + 60 + 200 + 14 + 100);
	expect_fences_live(f, 1);

	fake_gpu_fence_set(g, 2, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	expect_take_run(f, b2, 4);
	/* Only frame bytes crossed, rounded to 16: 112 per slot, 208 for the
	 * batch with the 200-byte frame. */
	assert_int_equal(g->copy2d_calls, 3);
	assert_int_equal(g->copy_calls, 0);
	assert_int_equal(g->copy_bytes, 4 * 112 + 4 * 208 + 4 * 112);

	/* A batch across the end of the ring: two copies behind one fence. */
	release(f);
	uint32_t b3 = push_n(f, 2, 90);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 2);
	uint32_t b4 = push_n(f, 4, 91);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	assert_int_equal(g->nfences, 5);
	assert_int_equal(g->fence[4].ncopies, 2);
	fake_gpu_fence_set(g, 4, FAKE_FENCE_DONE);
	fake_gpu_fence_set(g, 3, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 6);
	expect_take_run(f, b3, 2);
	expect_take_run(f, b4, 4); /* entries 14-17: slots 14, 15, 0, 1 */

	uint64_t none[GNIO_DROP_REASON_COUNT] = {0};
	expect_dropped(f, none);
	expect_books(f);
	rx_fix_free(f);
}

/* GNIO_STAGE_COPY picks the copy's form: rows (2-D, each frame's bytes, as
 * auto does) or whole slots, whatever the frames' length. */
static void test_rx_staged_copy_modes(void **state)
{
	const struct rx_cfg cfg = staged_for(state);
	const int slots[] = {0, 1}; /* GNIO_STAGE_COPY=rows (the default), =slots */
	for (unsigned m = 0; m < 2; m++) {
		struct rx_fix *f = rx_fix_new(&cfg);
		struct fake_gpu *g = f->g;
		f->p.stage_slots = slots[m];
		uint32_t a = push_n(f, 4, 100); /* 112 of 256 bytes per slot */
		assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
		uint32_t b = push_n(f, 4, 240); /* 240 of 256 */
		assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
		fake_gpu_fence_set(g, 0, FAKE_FENCE_DONE);
		fake_gpu_fence_set(g, 1, FAKE_FENCE_DONE);
		assert_int_equal(gnio_rx_proxy_step(&f->p), 8);
		expect_take_run(f, a, 4);
		expect_take_run(f, b, 4);
		if (!slots[m]) {
			assert_int_equal(g->copy2d_calls, 2);
			assert_int_equal(g->copy_calls, 0);
			assert_int_equal(g->copy_bytes, 4 * 112 + 4 * 240);
		} else {
			assert_int_equal(g->copy2d_calls, 0);
			assert_int_equal(g->copy_calls, 2);
			assert_int_equal(g->copy_bytes, 8 * 256);
		}
		expect_books(f);
		rx_fix_free(f);
	}
}

static void test_rx_staged_failed_fence(void **state)
{
	const struct rx_cfg cfg = staged_for(state);
	struct rx_fix *f = rx_fix_new(&cfg);
	struct fake_gpu *g = f->g;

	uint32_t a = push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	/* The second copy fails: the third, though it landed, cannot be
	 * published ahead of it, so both are lost; the first shows. */
	fake_gpu_fence_set(g, 0, FAKE_FENCE_DONE);
	fake_gpu_fence_set(g, 1, FAKE_FENCE_FAILED);
	fake_gpu_fence_set(g, 2, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	expect_take_run(f, a, 4);
	expect_none_ready(f);
	uint64_t want[GNIO_DROP_REASON_COUNT] = {[GNIO_DROP_DEVICE_ERROR] = 8};
	expect_dropped(f, want);
	expect_fences_live(f, 0);
	assert_int_equal(gnio_pe_progress(f->pe), 1);
	assert_int_equal(f->ev[0].type, GNIO_PE_EVENT_WIRE_ERROR);
	assert_int_equal(f->ev[0].error, GNIO_ERROR_DRIVER);
	assert_int_equal(f->ev[0].index, 4);

	/* The lost entries are filled again by the next frames. */
	uint32_t d = push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	fake_gpu_fence_set(g, 3, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	expect_take_run(f, d, 4);

	/* A failed head loses the pending batch behind it too. */
	push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	fake_gpu_fence_set(g, 4, FAKE_FENCE_FAILED);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	want[GNIO_DROP_DEVICE_ERROR] = 16;
	expect_dropped(f, want);
	expect_fences_live(f, 0);
	uint32_t h = push_n(f, 3, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 3);
	fake_gpu_fence_set(g, 6, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 3);
	expect_take_run(f, h, 3);
	assert_int_equal(f->p.rx_packets, 11);
	expect_books(f);
	rx_fix_free(f);
}

static void test_rx_staged_copy_fails(void **state)
{
	const struct rx_cfg cfg = staged_for(state);
	struct rx_fix *f = rx_fix_new(&cfg);
	struct fake_gpu *g = f->g;

	uint32_t a = push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	/* The next batch's copy cannot be issued: its frames are lost at once
	 * and no fence stands for them; the batch in flight is untouched. */
	g->fail_copies = 1;
	push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	assert_int_equal(g->copy_failures, 1);
	assert_int_equal(g->nfences, 1);
	uint64_t want[GNIO_DROP_REASON_COUNT] = {[GNIO_DROP_DEVICE_ERROR] = 4};
	expect_dropped(f, want);
	assert_int_equal(gnio_pe_progress(f->pe), 1);
	assert_int_equal(f->ev[0].type, GNIO_PE_EVENT_WIRE_ERROR);
	assert_int_equal(f->ev[0].index, 4);

	uint32_t c = push_n(f, 4, 100);
	fake_gpu_fence_set(g, 0, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	expect_take_run(f, a, 4);
	expect_none_ready(f);
	assert_int_equal(f->p.staged, 8);
	fake_gpu_fence_set(g, 1, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	expect_take_run(f, c, 4); /* entries 4-7: right behind the first batch */
	expect_dropped(f, want);
	expect_books(f);
	rx_fix_free(f);
}

static void test_rx_staged_depth_full(void **state)
{
	struct rx_cfg cfg = staged_for(state);
	cfg.size = 64;
	struct rx_fix *f = rx_fix_new(&cfg);
	struct fake_gpu *g = f->g;

	for (unsigned i = 0; i < GNIO_RX_STAGE_DEPTH; i++) {
		push_n(f, 4, 80);
		assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	}
	/* Every copy slot busy: the wire waits, though the ring has room. */
	push_n(f, 4, 80);
	unsigned calls = f->w->rx_calls;
	assert_int_equal(gnio_rx_proxy_step(&f->p), 0);
	assert_int_equal(f->w->rx_calls, calls);
	assert_int_equal(fake_wire_rx_left(f->w), 4);

	fake_gpu_fence_set(g, 0, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	assert_int_equal(f->q.sh->prod, 4);
	assert_int_equal(fake_wire_rx_left(f->w), 0);
	assert_int_equal(g->nfences, GNIO_RX_STAGE_DEPTH + 1);
	for (unsigned i = 1; i <= GNIO_RX_STAGE_DEPTH; i++)
		fake_gpu_fence_set(g, i, FAKE_FENCE_DONE);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 32);
	expect_take_run(f, 0, 36);
	expect_books(f);
	rx_fix_free(f);
}

/* ---------------------------------------------------------- 6. drain -- */

static void test_rx_drain_counts_stopped(void **state)
{
	struct rx_cfg cfg = {.size = 8, .burst = 4, .slot = 64, .cap = 64};
	struct rx_fix *f = rx_fix_new(&cfg);

	push_n(f, 7, 50);
	fake_wire_push(f->w, 3, 0); /* a runt left on the wire counts as stopped too */
	push_n(f, 2, 50);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	gnio_rx_proxy_drain(&f->p);
	assert_true(f->w->quiesced);
	assert_int_equal(fake_wire_rx_left(f->w), 0);
	uint64_t want[GNIO_DROP_REASON_COUNT] = {[GNIO_DROP_STOPPED] = 6};
	expect_dropped(f, want);
	/* What was published stays as it was. */
	expect_take_run(f, 0, 4);
	expect_books(f);
	rx_fix_free(f);
}

static void test_rx_drain_zero_copy(void **state)
{
	struct rx_cfg cfg = {.size = 8, .burst = 4, .slot = 256, .cap = 256, .pool_slots = 16, .zero_copy = 1};
	struct rx_fix *f = rx_fix_new(&cfg);

	for (uint32_t k = 0; k < 6; k++)
		fake_wire_push_zc(f->w, 64, 0, chunk_off(f, 15 - k));
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	gnio_rx_proxy_drain(&f->p);
	uint64_t want[GNIO_DROP_REASON_COUNT] = {[GNIO_DROP_STOPPED] = 2};
	expect_dropped(f, want);
	/* The buffers of the stopped frames go back to the wire. */
	const uint64_t offs[] = {chunk_off(f, 11), chunk_off(f, 10)};
	expect_released(f, offs, 2);
	expect_take_run(f, 0, 4);
	expect_books(f);
	rx_fix_free(f);
}

static void test_rx_drain_staged(void **state)
{
	const struct rx_cfg cfg = staged_for(state);
	struct rx_fix *f = rx_fix_new(&cfg);

	push_n(f, 4, 100);
	assert_int_equal(gnio_rx_proxy_step(&f->p), 4);
	push_n(f, 3, 100);
	/* The copy in flight lands while drain waits: it is published, the
	 * frames still on the wire are stopped. */
	fake_gpu_fence_done_after(f->g, 0, 3);
	unsigned polls = f->g->fence[0].polls;
	gnio_rx_proxy_drain(&f->p);
	assert_int_equal(f->g->fence[0].polls - polls, 3);
	assert_int_equal(f->q.sh->prod, 4);
	uint64_t want[GNIO_DROP_REASON_COUNT] = {[GNIO_DROP_STOPPED] = 3};
	expect_dropped(f, want);
	expect_take_run(f, 0, 4);
	expect_books(f);
	rx_fix_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_mid_burst_drops),
		cmocka_unit_test(test_rx_ring_full_drops),
		cmocka_unit_test(test_rx_ring_full_flow_control),
		cmocka_unit_test(test_rx_zero_copy_release_order),
		cmocka_unit_test(test_rx_zero_copy_holds),
		cmocka_unit_test(test_rx_zero_copy_held_past_ring_size),
		cmocka_unit_test_prestate(test_rx_staged_publish_in_order, NULL),
		cmocka_unit_test_prestate(test_rx_staged_publish_in_order, (void *)1),
		cmocka_unit_test_prestate(test_rx_staged_copy_modes, NULL),
		cmocka_unit_test_prestate(test_rx_staged_copy_modes, (void *)1),
		cmocka_unit_test_prestate(test_rx_staged_failed_fence, NULL),
		cmocka_unit_test_prestate(test_rx_staged_failed_fence, (void *)1),
		cmocka_unit_test_prestate(test_rx_staged_copy_fails, NULL),
		cmocka_unit_test_prestate(test_rx_staged_copy_fails, (void *)1),
		cmocka_unit_test_prestate(test_rx_staged_depth_full, NULL),
		cmocka_unit_test_prestate(test_rx_staged_depth_full, (void *)1),
		cmocka_unit_test(test_rx_drain_counts_stopped),
		cmocka_unit_test(test_rx_drain_zero_copy),
		cmocka_unit_test_prestate(test_rx_drain_staged, NULL),
		cmocka_unit_test_prestate(test_rx_drain_staged, (void *)1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
