/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_proxy_tx.c - the TX proxy (src/proxy/tx_proxy.c) stepped by
 * hand over a scripted wire (tests/util/fake_wire.h); the test plays the
 * sender with the ring helpers of gnio/impl/ring.h. Every case checks exact
 * counts and order:
 * - invalid descriptors are errors, completed in ticket order with the rest;
 * - a wire that takes fewer than offered gets the rest on the next step;
 * - with an asynchronous wire, done (and in-place holds, notifications)
 *   move only as the wire reports completions;
 * - a timed descriptor holds the queue until its time;
 * - drain releases the holds of frames that will never be sent;
 * - a header carried in the descriptor replaces the frame's first bytes,
 *   and the proxy waits for an in-place hold mark its descriptor overtook.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "testutil.h"
#include "fake_wire.h"
#include "core/ctx_priv.h"
#include "gnio/device/time.h"
#include "proxy/proxy.h"

/* ------------------------------------------------------------ fixture -- */

#define MAX_EVENTS 32u
#define RING 16u
#define MAX_FRAME 256u
#define HOST_SIZE 4096u   /* buffer 0: host memory */
#define POOL_ELEM 256u    /* buffer 1: an RX pool with hold words */
#define POOL_ELEMS 8u
#define DEV_SIZE 1024u    /* buffer 2: "device memory", copied out */
#define BUF_HOST 0u
#define BUF_POOL 1u
#define BUF_DEV 2u

struct tx_fix {
	struct fake_wire *w;
	struct gnio_wire_ops ops;
	struct fake_gpu *g; /* its CPU copy_from_dev serves buffer 2 */
	struct gnio_ctx ctx;
	struct gnio_pe *pe;
	struct gnio_pe_event ev[MAX_EVENTS];
	unsigned nev;
	struct gnio_tx_proxy p;
	struct gnio_gpu_eth_txq q; /* the sender's view (host pointers) */
	uint8_t *mem[3];
	uint32_t *hold;
};

static const uint64_t buf_size[3] = {HOST_SIZE, (uint64_t)POOL_ELEM * POOL_ELEMS, DEV_SIZE};

static void on_event(void *user, const struct gnio_pe_event *ev)
{
	struct tx_fix *f = user;
	if (f->nev < MAX_EVENTS)
		f->ev[f->nev] = *ev;
	f->nev++;
}

/* Each buffer's bytes depend on the buffer and the offset, so a frame taken
 * from the wrong place never compares equal. */
static uint8_t content(uint32_t buf, uint64_t off)
{
	return (uint8_t)((uint64_t)buf * 91u + off * 13u + (off >> 8));
}

static struct tx_fix *tx_fix_new(unsigned wire_features)
{
	struct tx_fix *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->w = fake_wire_new();
	assert_non_null(f->w);
	fake_wire_ops(&f->ops, wire_features);
	f->g = fake_gpu_new();
	assert_non_null(f->g);
	assert_ok(gnio_pe_create(&f->pe));
	assert_ok(gnio_pe_set_event_cb(f->pe, on_event, f));
	assert_ok(gnio_pe_connect_ctx(f->pe, &f->ctx));
	for (uint32_t b = 0; b < 3; b++) {
		f->mem[b] = test_zalloc_line(buf_size[b]);
		for (uint64_t o = 0; o < buf_size[b]; o++)
			f->mem[b][o] = content(b, o);
	}
	f->hold = test_zalloc_line(POOL_ELEMS * sizeof(*f->hold));

	f->q.sh = test_zalloc_line(sizeof(*f->q.sh));
	f->q.lc = test_zalloc_line(sizeof(*f->q.lc));
	f->q.desc = test_zalloc_line(RING * sizeof(*f->q.desc));
	f->q.desc_hdr = test_zalloc_line(RING * GNIO_TX_HDR_LINE_WORDS * sizeof(uint64_t));
	f->q.size = RING;
	f->q.mask = RING - 1;
	f->q.size_log2 = (uint32_t)__builtin_ctz(RING);
	f->q.nbufs = 3;
	f->q.slot_buf = -1;
	for (uint32_t b = 0; b < 3; b++)
		f->q.bufs[b] = (struct gnio_tx_buf){.base = f->mem[b], .size = buf_size[b]};
	f->q.bufs[BUF_POOL].hold = f->hold;
	f->q.bufs[BUF_POOL].elem_size = POOL_ELEM;

	/* As eth_txq.c fills it at start. */
	struct gnio_tx_proxy *p = &f->p;
	p->ops = &f->ops;
	p->wq = f->w;
	p->gpu = &f->g->gpu;
	p->ctx = &f->ctx;
	p->sh = f->q.sh;
	p->desc = f->q.desc;
	p->desc_hdr = f->q.desc_hdr;
	p->size = RING;
	p->mask = RING - 1;
	p->size_log2 = (uint32_t)__builtin_ctz(RING);
	p->burst = 8;
	p->max_frame = MAX_FRAME;
	p->bufs[BUF_HOST] = (struct gnio_tx_proxy_buf){.cpu = f->mem[0], .dev = f->mem[0], .size = HOST_SIZE};
	p->bufs[BUF_POOL] = (struct gnio_tx_proxy_buf){.cpu = f->mem[1], .dev = f->mem[1], .size = buf_size[1],
						      .hold = f->hold, .elem_size = POOL_ELEM};
	p->bufs[BUF_DEV] = (struct gnio_tx_proxy_buf){.cpu = NULL, .dev = f->mem[2], .size = DEV_SIZE};
	p->nbufs = 3;
	/* A stale entry past the table (as after a smaller restart) must not
	 * make index 3 usable. */
	p->bufs[3] = p->bufs[BUF_HOST];
	assert_ok(gnio_tx_proxy_init(p));
	assert_non_null(p->stage); /* buffer 2 is device memory */
	return f;
}

static void tx_fix_free(struct tx_fix *f)
{
	gnio_tx_proxy_fini(&f->p);
	assert_ok(gnio_pe_disconnect_ctx(f->pe, &f->ctx));
	assert_ok(gnio_pe_destroy(f->pe));
	fake_gpu_free(f->g);
	fake_wire_free(f->w);
	for (uint32_t b = 0; b < 3; b++)
		free(f->mem[b]);
	free(f->hold);
	free(f->q.sh);
	free(f->q.lc);
	free(f->q.desc);
	free(f->q.desc_hdr);
	free(f);
}

/* ------------------------------------------------------------ helpers -- */

/* Sender: reserve a ticket and commit one descriptor as given (valid or not). */
static uint64_t commit(struct tx_fix *f, uint32_t buf, uint64_t off, uint32_t len, uint32_t flags, uint64_t at)
{
	uint64_t t = 0;
	assert_ok(gnio_tx_ring_reserve_exclusive(&f->q, 1, &t));
	gnio_tx_ring_commit(&f->q, t, buf, off, len, flags, at);
	return t;
}

/* Sender: forward a slot of the RX pool in place (its hold says SENT). */
static uint64_t commit_in_place(struct tx_fix *f, uint32_t elem, uint32_t len, uint32_t flags)
{
	gnio_tx_ring_hold(&f->q, BUF_POOL, (uint64_t)elem * POOL_ELEM);
	return commit(f, BUF_POOL, (uint64_t)elem * POOL_ELEM, len, flags, 0);
}

static uint64_t done(const struct tx_fix *f)
{
	return gnio_tx_ring_done(&f->q);
}

/* The wire's i-th frame is (buf, off, len), its bytes those of that place. */
static void expect_sent(const struct tx_fix *f, unsigned i, uint32_t buf, uint64_t off, uint32_t len)
{
	const struct fake_tx_sent *s = &f->w->tx[i];
	if (s->len != len || s->buf_off != off)
		fail_msg("wire frame %u: len %u off %llu, expected len %u off %llu", i, s->len,
			 (unsigned long long)s->buf_off, len, (unsigned long long)off);
	uint32_t n = len < FAKE_WIRE_TX_KEEP ? len : FAKE_WIRE_TX_KEEP;
	for (uint32_t k = 0; k < n; k++)
		if (s->head[k] != content(buf, off + k))
			fail_msg("wire frame %u: byte %u is not buffer %u's at %llu", i, k, buf,
				 (unsigned long long)(off + k));
	/* Host memory goes out where it lies; device memory through the stage. */
	if (buf == BUF_DEV)
		assert_true(s->data >= f->p.stage && s->data < f->p.stage + (size_t)f->p.burst * MAX_FRAME);
	else
		assert_ptr_equal(s->data, f->mem[buf] + off);
}

/* ------------------------------------------------- 5. TX descriptors -- */

/* Sender: a descriptor whose first hdr_len bytes travel in it (the
 * device API's send_hdr), written without a fence. */
static uint64_t commit_hdr(struct tx_fix *f, uint32_t buf, uint64_t off, uint32_t len, const uint8_t *hdr,
			   uint32_t hdr_len)
{
	uint64_t t = 0;
	assert_ok(gnio_tx_ring_reserve_exclusive(&f->q, 1, &t));
	gnio_tx_ring_write(&f->q, t, buf, off, len, 0, 0, hdr, hdr_len, 0);
	return t;
}

static void test_tx_invalid_descriptors(void **state)
{
	struct tx_fix *f = tx_fix_new(0);

	commit(f, BUF_HOST, 0, 100, 0, 0);                       /* 0 */
	commit(f, 3, 0, 100, 0, 0);                              /* 1: first index past the table */
	commit(f, BUF_HOST, 256, 60, 0, 0);                      /* 2 */
	commit(f, BUF_HOST, HOST_SIZE - 96, 200, 0, 0);          /* 3: runs past the buffer */
	commit(f, BUF_HOST, 512, 0, 0, 0);                       /* 4: empty */
	commit_in_place(f, 2, MAX_FRAME + 1, 0);                 /* 5: longer than max_frame */
	commit(f, BUF_HOST, HOST_SIZE, 10, 0, 0);                /* 6: starts at the end */
	commit(f, BUF_HOST, UINT64_MAX - 50, 100, 0, 0);         /* 7: offset + len wraps */
	commit(f, BUF_DEV, 128, 90, 0, 0);                       /* 8 */
	commit_in_place(f, 3, MAX_FRAME, 0);                     /* 9: exactly max_frame */

	/* Each error waits until what precedes it has completed, so done
	 * advances in ticket order through good and bad alike. */
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	assert_int_equal(done(f), 1);
	assert_int_equal(f->p.tx_errors, 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 2); /* error 1, send 2 */
	assert_int_equal(done(f), 3);
	assert_int_equal(f->p.tx_errors, 1);
	assert_int_equal(f->q.sh->errors, 1);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 7); /* errors 3-7, send 8, 9 */
	assert_int_equal(done(f), 10);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 0);

	assert_int_equal(f->p.tx_errors, 6);
	assert_int_equal(f->q.sh->errors, 6);
	assert_int_equal(f->p.tx_packets, 4);
	assert_int_equal(f->p.tx_bytes, 100 + 60 + 90 + MAX_FRAME);
	assert_int_equal(f->p.tx_copies, 1);
	assert_int_equal(f->p.tx_in_place, 1);
	assert_int_equal(f->w->tx_count, 4);
	expect_sent(f, 0, BUF_HOST, 0, 100);
	expect_sent(f, 1, BUF_HOST, 256, 60);
	expect_sent(f, 2, BUF_DEV, 128, 90);
	expect_sent(f, 3, BUF_POOL, (uint64_t)3 * POOL_ELEM, MAX_FRAME);
	/* The failed in-place frame gives its RX slot back, as a sent one does. */
	assert_int_equal(f->hold[2], GNIO_HOLD_DONE);
	assert_int_equal(f->hold[3], GNIO_HOLD_DONE);
	assert_int_equal(f->hold[4], GNIO_HOLD_FREE); /* never sent from */

	/* One error event per bad descriptor, in ticket order. */
	const uint64_t bad[] = {1, 3, 4, 5, 6, 7};
	assert_int_equal(gnio_pe_progress(f->pe), 6);
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(f->ev[i].type, GNIO_PE_EVENT_TX_ERROR);
		assert_int_equal(f->ev[i].error, GNIO_ERROR_INVALID_VALUE);
		assert_int_equal(f->ev[i].index, bad[i]);
	}
	tx_fix_free(f);
}

/* A header carried in the descriptor goes out in place of the frame's first
 * bytes (host memory where it lies, device memory in the stage), and the
 * buffer keeps it; one longer than a descriptor holds or than its frame is
 * a TX error. */
static void test_tx_header_in_descriptor(void **state)
{
	struct tx_fix *f = tx_fix_new(0);
	uint8_t hdr[GNIO_TX_HDR_BYTES + 1];
	for (uint32_t i = 0; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)(0xc0 ^ i);

	commit_hdr(f, BUF_HOST, 0, 100, hdr, 12);                          /* 0 */
	commit_hdr(f, BUF_DEV, 128, 90, hdr, 20);                          /* 1 */
	gnio_tx_ring_hold(&f->q, BUF_POOL, (uint64_t)2 * POOL_ELEM);
	commit_hdr(f, BUF_POOL, (uint64_t)2 * POOL_ELEM, 80, hdr, GNIO_TX_HDR_BYTES); /* 2: in place */
	commit_hdr(f, BUF_HOST, 256, 60, hdr, GNIO_TX_HDR_BYTES + 1);     /* 3: too long a header */
	commit_hdr(f, BUF_HOST, 512, 8, hdr, 12);                          /* 4: longer than its frame */
	commit_hdr(f, BUF_HOST, 768, 60, hdr, 0);                          /* 5: unchanged */
	assert_int_equal(gnio_tx_proxy_step(&f->p), 3);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 3); /* errors 3 and 4, send 5 */
	assert_int_equal(done(f), 6);
	assert_int_equal(f->p.tx_errors, 2);
	assert_int_equal(f->w->tx_count, 4);

	const uint32_t hl[3] = {12, 20, GNIO_TX_HDR_BYTES};
	const uint32_t bufs[3] = {BUF_HOST, BUF_DEV, BUF_POOL};
	const uint64_t offs[3] = {0, 128, (uint64_t)2 * POOL_ELEM};
	for (unsigned i = 0; i < 3; i++) {
		const struct fake_tx_sent *sent = &f->w->tx[i];
		assert_int_equal(sent->buf_off, offs[i]);
		assert_memory_equal(sent->head, hdr, hl[i]);
		for (uint32_t k = hl[i]; k < FAKE_WIRE_TX_KEEP; k++)
			if (sent->head[k] != content(bufs[i], offs[i] + k))
				fail_msg("frame %u byte %u is not the buffer's", i, k);
	}
	expect_sent(f, 3, BUF_HOST, 768, 60);
	/* Host buffers hold the new bytes; device memory was only copied. */
	assert_memory_equal(f->mem[BUF_HOST], hdr, 12);
	assert_memory_equal(f->mem[BUF_POOL] + 2 * POOL_ELEM, hdr, GNIO_TX_HDR_BYTES);
	assert_int_equal(f->mem[BUF_DEV][128], content(BUF_DEV, 128));
	assert_int_equal(f->hold[2], GNIO_HOLD_DONE);
	assert_int_equal(gnio_pe_progress(f->pe), 2);
	assert_int_equal(f->ev[0].index, 3);
	assert_int_equal(f->ev[1].index, 4);
	tx_fix_free(f);
}

struct late_mark {
	uint32_t *hold;
	uint64_t delay_ns;
};

static void *store_sent_late(void *arg)
{
	struct late_mark *m = arg;
	const uint64_t until = test_now_ns() + m->delay_ns;
	while (test_now_ns() < until)
		;
	__atomic_store_n(m->hold, GNIO_HOLD_SENT, __ATOMIC_RELEASE);
	return NULL;
}

/* An unfenced in-place descriptor may reach the proxy before the sender's
 * SENT mark: the proxy waits for the mark before it says DONE, so the late
 * mark cannot overwrite DONE and hold the slot for ever. A mark that never
 * comes (a slot sent twice, against the rules) costs a bounded wait. */
static void test_tx_hold_mark_after_descriptor(void **state)
{
	struct tx_fix *f = tx_fix_new(0);
	struct late_mark m = {&f->hold[5], 2000000}; /* 2 ms: well inside the proxy's 50 ms wait */
	pthread_t th;
	commit_hdr(f, BUF_POOL, (uint64_t)5 * POOL_ELEM, 64, NULL, 0); /* the mark is not there yet */
	assert_int_equal(pthread_create(&th, NULL, store_sent_late, &m), 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(f->hold[5], GNIO_HOLD_DONE);
	assert_int_equal(done(f), 1);

	const uint64_t t0 = test_now_ns();
	commit_hdr(f, BUF_POOL, (uint64_t)6 * POOL_ELEM, 64, NULL, 0); /* no mark ever */
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	assert_int_equal(f->hold[6], GNIO_HOLD_DONE);
	assert_true(test_now_ns() - t0 < 1000000000ull);
	tx_fix_free(f);
}

/* A device-memory frame whose read into the stage fails is not sent with
 * stale bytes: it waits until what precedes it completed, is read again,
 * and when that fails too it becomes a TX error (DRIVER) in ticket order. */
static void test_tx_device_read_fails(void **state)
{
	struct tx_fix *f = tx_fix_new(0);

	commit(f, BUF_HOST, 0, 100, 0, 0); /* 0 */
	commit(f, BUF_DEV, 128, 90, 0, 0);  /* 1: its reads fail twice */
	commit(f, BUF_HOST, 256, 60, 0, 0); /* 2 */
	f->g->fail_dev_reads = 2;
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1); /* 0 sent; 1 waits behind it */
	assert_int_equal(done(f), 1);
	assert_int_equal(f->p.tx_errors, 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 2); /* 1 fails again: error; 2 sent */
	assert_int_equal(done(f), 3);
	assert_int_equal(f->p.tx_errors, 1);
	assert_int_equal(f->q.sh->errors, 1);
	assert_int_equal(f->p.tx_packets, 2);
	assert_int_equal(f->w->tx_count, 2);
	expect_sent(f, 0, BUF_HOST, 0, 100);
	expect_sent(f, 1, BUF_HOST, 256, 60);
	assert_int_equal(gnio_pe_progress(f->pe), 1);
	assert_int_equal(f->ev[0].type, GNIO_PE_EVENT_TX_ERROR);
	assert_int_equal(f->ev[0].error, GNIO_ERROR_DRIVER);
	assert_int_equal(f->ev[0].index, 1);
	/* A read that works again: the next device frame goes out. */
	commit(f, BUF_DEV, 512, 80, 0, 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	expect_sent(f, 2, BUF_DEV, 512, 80);
	assert_int_equal(done(f), 4);
	tx_fix_free(f);
}

static void test_tx_partial_accept(void **state)
{
	struct tx_fix *f = tx_fix_new(0);

	f->w->tx_accept_max = 3;
	for (uint32_t i = 0; i < 8; i++)
		commit(f, BUF_HOST, (uint64_t)i * 256, 64 + i, 0, 0);
	/* Three per call; the rest are offered again, first to last. */
	assert_int_equal(gnio_tx_proxy_step(&f->p), 3);
	assert_int_equal(f->w->tx_last_offered, 8);
	assert_int_equal(done(f), 3);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 3);
	assert_int_equal(f->w->tx_last_offered, 5);
	assert_int_equal(done(f), 6);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 2);
	assert_int_equal(f->w->tx_last_offered, 2);
	assert_int_equal(done(f), 8);
	for (uint32_t i = 0; i < 8; i++)
		expect_sent(f, i, BUF_HOST, (uint64_t)i * 256, 64 + i);

	/* A busy wire takes nothing: nothing completes, nothing is lost. */
	f->w->tx_accept_max = 0;
	commit(f, BUF_HOST, 3000, 70, 0, 0);
	commit(f, BUF_DEV, 512, 80, 0, 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 0);
	assert_int_equal(f->w->tx_last_offered, 2);
	assert_int_equal(done(f), 8);
	assert_int_equal(f->w->tx_count, 8);
	/* One at a time: the device frame, first staged second, is staged
	 * again at the front and still carries its own bytes. */
	f->w->tx_accept_max = 1;
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	assert_int_equal(done(f), 9);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	assert_int_equal(done(f), 10);
	expect_sent(f, 8, BUF_HOST, 3000, 70);
	expect_sent(f, 9, BUF_DEV, 512, 80);
	assert_ptr_equal(f->w->tx[9].data, f->p.stage);
	assert_int_equal(f->p.tx_packets, 10);
	assert_int_equal(f->p.tx_errors, 0);
	assert_int_equal(f->p.tx_copies, 1);
	tx_fix_free(f);
}

static void test_tx_async_reap(void **state)
{
	struct tx_fix *f = tx_fix_new(FAKE_WIRE_ASYNC_TX);

	commit_in_place(f, 0, 100, GNIO_TX_F_NOTIFY);
	commit(f, BUF_HOST, 0, 101, 0, 0);
	commit_in_place(f, 1, 102, 0);
	commit(f, BUF_HOST, 512, 103, 0, 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 4);
	/* Taken, not finished: nothing completes, the slots stay held. */
	assert_int_equal(done(f), 0);
	assert_int_equal(f->hold[0], GNIO_HOLD_SENT);
	assert_int_equal(f->hold[1], GNIO_HOLD_SENT);
	assert_int_equal(gnio_pe_progress(f->pe), 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 0);
	assert_int_equal(done(f), 0);

	fake_wire_tx_complete(f->w, 1);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	assert_int_equal(done(f), 1);
	assert_int_equal(f->hold[0], GNIO_HOLD_DONE);
	assert_int_equal(f->hold[1], GNIO_HOLD_SENT);
	assert_int_equal(gnio_pe_progress(f->pe), 1);
	assert_int_equal(f->ev[0].type, GNIO_PE_EVENT_TX_NOTIFY);
	assert_int_equal(f->ev[0].index, 0);
	assert_int_equal(f->p.tx_notified, 1);

	fake_wire_tx_complete(f->w, 2);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 2);
	assert_int_equal(done(f), 3);
	assert_int_equal(f->hold[1], GNIO_HOLD_DONE);

	/* An invalid descriptor behind a send in flight waits for it. */
	commit(f, BUF_HOST, 100, 0, 0, 0); /* 4: empty */
	commit(f, BUF_HOST, 1024, 104, 0, 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 0);
	assert_int_equal(done(f), 3);
	assert_int_equal(f->p.tx_errors, 0);
	fake_wire_tx_complete(f->w, 1);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 3); /* reap 3, error 4, send 5 */
	assert_int_equal(done(f), 5);
	assert_int_equal(f->p.tx_errors, 1);
	fake_wire_tx_complete(f->w, 1);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	assert_int_equal(done(f), 6);

	assert_int_equal(f->w->tx_count, 5);
	expect_sent(f, 0, BUF_POOL, 0, 100);
	expect_sent(f, 1, BUF_HOST, 0, 101);
	expect_sent(f, 2, BUF_POOL, POOL_ELEM, 102);
	expect_sent(f, 3, BUF_HOST, 512, 103);
	expect_sent(f, 4, BUF_HOST, 1024, 104);
	assert_int_equal(f->p.tx_packets, 5);
	assert_int_equal(f->p.tx_in_place, 2);
	tx_fix_free(f);
}

static int sent_two(void *arg)
{
	struct tx_fix *f = arg;
	gnio_tx_proxy_step(&f->p);
	return f->w->tx_count >= 2;
}

static void test_tx_timed_holds_queue(void **state)
{
	struct tx_fix *f = tx_fix_new(0);

	uint64_t now = gnio_gpu_dev_time_ns();
	uint64_t soon = now + 200000000ull; /* 200 ms */
	commit(f, BUF_HOST, 0, 90, GNIO_TX_F_TIMED, now - 1000);
	commit(f, BUF_HOST, 256, 91, GNIO_TX_F_TIMED, soon);
	commit(f, BUF_HOST, 512, 92, 0, 0);
	/* The past one goes; the future one holds the untimed one behind it. */
	assert_int_equal(gnio_tx_proxy_step(&f->p), 1);
	assert_int_equal(f->w->tx_count, 1);
	assert_int_equal(f->w->tx[0].send_at_ns, now - 1000);
	assert_int_equal(gnio_tx_proxy_due(&f->p), soon);
	assert_int_equal(done(f), 1);

	assert_true(wait_until(sent_two, f, 5000));
	assert_true(gnio_gpu_dev_time_ns() >= soon);
	/* Its time come, it leaves with the one queued behind it. */
	assert_int_equal(f->w->tx_count, 3);
	expect_sent(f, 1, BUF_HOST, 256, 91);
	expect_sent(f, 2, BUF_HOST, 512, 92);
	assert_int_equal(f->w->tx[1].send_at_ns, soon);
	assert_int_equal(f->w->tx[2].send_at_ns, 0);
	assert_int_equal(gnio_tx_proxy_due(&f->p), 0);
	assert_int_equal(done(f), 3);
	assert_int_equal(f->p.timed, 2);
	tx_fix_free(f);
}

static void test_tx_drain_releases_holds(void **state)
{
	struct tx_fix *f = tx_fix_new(FAKE_WIRE_ASYNC_TX);

	commit_in_place(f, 4, 64, 0);
	commit_in_place(f, 5, 64, 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 2);
	/* One more the wire never takes, and it never finishes the two. */
	f->w->tx_accept_max = 0;
	commit_in_place(f, 6, 64, 0);
	assert_int_equal(gnio_tx_proxy_step(&f->p), 0);
	assert_int_equal(f->hold[6], GNIO_HOLD_SENT);
	gnio_tx_proxy_drain(&f->p);
	assert_int_equal(f->hold[4], GNIO_HOLD_DONE);
	assert_int_equal(f->hold[5], GNIO_HOLD_DONE);
	assert_int_equal(f->hold[6], GNIO_HOLD_DONE);
	assert_int_equal(f->hold[7], GNIO_HOLD_FREE);
	assert_int_equal(done(f), 0); /* not sent: not reported as done */
	assert_int_equal(f->w->tx_count, 2);
	tx_fix_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_invalid_descriptors),
		cmocka_unit_test(test_tx_device_read_fails),
		cmocka_unit_test(test_tx_header_in_descriptor),
		cmocka_unit_test(test_tx_hold_mark_after_descriptor),
		cmocka_unit_test(test_tx_partial_accept),
		cmocka_unit_test(test_tx_async_reap),
		cmocka_unit_test(test_tx_timed_holds_queue),
		cmocka_unit_test(test_tx_drain_releases_holds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
