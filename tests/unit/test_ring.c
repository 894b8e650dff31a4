/* SPDX-License-Identifier: MIT */
/* tests/unit/test_ring.c - the GPU-visible RX and TX ring protocol
 * (include/gnio/impl/ring.h), driven directly: the test plays both the proxy
 * and the consumer over hand-built handles in malloc'd memory, the same
 * CPU-side compile of the header the CPU device runs. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* ------------------------------------------------------------ helpers -- */

struct rx_fix {
	struct gnio_gpu_eth_rxq q;
	uint64_t prod;        /* proxy-private */
	uint64_t cached_cons; /* proxy-private */
	uint8_t *pool;
};

static void rx_fix_init(struct rx_fix *f, uint32_t size, int with_pool)
{
	memset(f, 0, sizeof(*f));
	f->q.sh = test_zalloc_line(sizeof(*f->q.sh));
	f->q.lc = test_zalloc_line(sizeof(*f->q.lc));
	f->q.cqe = test_zalloc_line((size_t)size * sizeof(*f->q.cqe));
	f->q.cqe_shift = GNIO_RX_CQE_SHIFT;
	f->q.meta = test_zalloc_line((size_t)size * sizeof(*f->q.meta));
	f->q.size = size;
	f->q.mask = size - 1;
	f->q.size_log2 = (uint32_t)__builtin_ctz(size);
	f->q.slot_size = 64;
	if (with_pool) {
		f->pool = test_zalloc_line((size_t)size * 64);
		f->q.pool = f->pool;
		f->q.pool_size = (uint64_t)size * 64;
	}
}

/* The queue's completions carry an inline header (ring.h). */
static void rx_fix_add_hdr(struct rx_fix *f)
{
	free(f->q.cqe);
	f->q.cqe_shift = GNIO_RX_CQE_INLINE_SHIFT;
	f->q.cqe = test_zalloc_line(((size_t)f->q.size << f->q.cqe_shift) * sizeof(uint64_t));
	f->q.hdr_local = test_zalloc_line((size_t)f->q.size * GNIO_RX_HDR_LOCAL_WORDS * sizeof(uint64_t));
}

static void rx_fix_fini(struct rx_fix *f)
{
	free(f->q.hdr_local);
	free(f->q.sh);
	free(f->q.lc);
	free(f->q.cqe);
	free(f->q.meta);
	free(f->pool);
}

/* Byte b of entry idx's frame. */
static uint8_t rx_frame_byte(uint64_t idx, uint32_t b) { return (uint8_t)(idx * 7u + b * 13u + 1u); }
static uint32_t rx_frame_len(uint64_t idx) { return (uint32_t)(idx % 1500) + 14; }

/* Proxy side: entry idx's header words, from its frame's bytes. */
static void rx_put_hdr(struct rx_fix *f, uint64_t idx)
{
	uint8_t frame[GNIO_RX_HDR_BYTES];
	for (uint32_t b = 0; b < GNIO_RX_HDR_BYTES; b++)
		frame[b] = rx_frame_byte(idx, b);
	gnio_rx_ring_put_hdr(gnio_rx_ring_cqe(&f->q, idx), idx, f->q.size_log2, frame, rx_frame_len(idx));
}

/* Consumer side: the header a receive handed out is the frame's first
 * bytes, zero past its end. Returns the number of wrong bytes. */
static uint32_t rx_hdr_errors(const struct gnio_gpu_eth_rxq *q, uint64_t idx)
{
	uint32_t n = 0, bad = 0;
	const uint8_t *h = gnio_gpu_dev_eth_rxq_get_pkt_hdr(q, idx, &n);
	const uint32_t len = rx_frame_len(idx), want = len < GNIO_RX_HDR_BYTES ? len : GNIO_RX_HDR_BYTES;
	if (n != want)
		bad++;
	for (uint32_t b = 0; b < GNIO_RX_HDR_BYTES; b++)
		bad += h[b] != (b < len ? rx_frame_byte(idx, b) : 0);
	return bad;
}

/* Proxy side: publish up to n entries whose content derives from their index.
 * Returns how many fitted. */
static uint32_t rx_produce(struct rx_fix *f, uint32_t n)
{
	uint32_t free_n = gnio_rx_ring_free_slots(f->q.sh, f->prod, &f->cached_cons, f->q.size);
	if (n > free_n)
		n = free_n;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t idx = f->prod + i;
		struct gnio_rx_cqe *c = gnio_rx_ring_cqe(&f->q, idx);
		c->ts_ns = idx ^ 0x5a5a5a5aull;
		if (f->q.hdr_local)
			rx_put_hdr(f, idx);
		gnio_rx_ring_post(c, gnio_rx_meta_make(idx, f->q.size_log2, idx * 3 + 1, rx_frame_len(idx),
						      (uint32_t)(idx & 1)));
	}
	if (n) {
		f->prod += n;
		gnio_rx_ring_publish(f->q.sh, f->prod);
	}
	return n;
}

static void rx_check_entry(const struct gnio_gpu_eth_rxq *q, uint64_t idx)
{
	/* what the receive handed out: its local copy of the completion word */
	const uint64_t m = gnio_rx_ring_meta(q, idx);
	if (gnio_rx_meta_off(m) != idx * 3 + 1 || gnio_rx_meta_len(m) != (uint32_t)(idx % 1500) + 14 ||
	    gnio_rx_meta_flags(m) != (uint32_t)(idx & 1) || gnio_rx_ring_cqe(q, idx)->ts_ns != (idx ^ 0x5a5a5a5aull))
		fail_msg("RX entry %llu has wrong content (buf_off %llu len %u)", (unsigned long long)idx,
			 (unsigned long long)gnio_rx_meta_off(m), gnio_rx_meta_len(m));
}

#define TX_KEY 0x6e000042u

struct tx_fix;
static gnio_error_t send_at(struct tx_fix *f, uint8_t *p, uint32_t len, uint64_t at, uint64_t *ticket);

struct tx_fix {
	struct gnio_gpu_eth_txq q;
	uint8_t *pool;
	uint64_t next; /* proxy-private: next descriptor to consume */
};

/* Thread-scope send of the bytes at p, found by address (key 0). */
static gnio_error_t send_at(struct tx_fix *f, uint8_t *p, uint32_t len, uint64_t at, uint64_t *ticket)
{
	return gnio_gpu_dev_eth_txq_wait_send_thread(&f->q, at, (uint64_t)(uintptr_t)p, 0, len,
						     GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, ticket);
}

static void tx_fix_init(struct tx_fix *f, uint32_t size, int with_pool)
{
	memset(f, 0, sizeof(*f));
	f->q.sh = test_zalloc_line(sizeof(*f->q.sh));
	f->q.lc = test_zalloc_line(sizeof(*f->q.lc));
	f->q.desc = test_zalloc_line((size_t)size * sizeof(*f->q.desc));
	f->q.desc_hdr = test_zalloc_line((size_t)size * GNIO_TX_HDR_LINE_WORDS * sizeof(uint64_t));
	f->q.size = size;
	f->q.mask = size - 1;
	f->q.size_log2 = (uint32_t)__builtin_ctz(size);
	f->q.slot_buf = -1;
	if (with_pool) {
		f->pool = test_zalloc_line((size_t)size * 64);
		f->q.nbufs = 1;
		f->q.slot_buf = 0;
		f->q.bufs[0].base = f->pool;
		f->q.bufs[0].size = (uint64_t)size * 64;
		f->q.bufs[0].elem_size = 64;
		f->q.bufs[0].mkey = TX_KEY;
	}
}

static void tx_fix_fini(struct tx_fix *f)
{
	free(f->q.sh);
	free(f->q.lc);
	free(f->q.desc);
	free(f->q.desc_hdr);
	free(f->pool);
}

/* Proxy side: is descriptor idx complete? */
static int tx_ready(const struct tx_fix *f, uint64_t idx, struct gnio_tx_desc_view *v)
{
	return gnio_tx_ring_read(f->q.desc, f->q.desc_hdr, f->q.mask, f->q.size_log2, idx, v);
}

/* Proxy side: consume ready descriptors in order; returns how many. */
static uint32_t tx_consume(struct tx_fix *f, uint64_t *seen, uint32_t max)
{
	uint32_t n = 0;
	while (n < max) {
		struct gnio_tx_desc_view d;
		if (!tx_ready(f, f->next, &d))
			break;
		if (seen)
			seen[n] = d.buf_off;
		f->next++;
		n++;
	}
	return n;
}

/* ------------------------------------------------------------- RX ------ */

static void test_rx_empty(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 16, 1);
	uint64_t first = 99;
	assert_int_equal(gnio_rx_ring_take(&f.q, 8, &first), 0);
	assert_int_equal(first, 0);
	/* Device API on an empty ring, looking once: count 0, no first index. */
	uint32_t n = 99;
	assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 8, 1, &first, &n, NULL));
	assert_int_equal(n, 0);
	assert_true(first == GNIO_GPUNETIO_ETH_RX_NO_PKT);
	/* With a timeout it waits that long and still returns 0. */
	uint64_t t0 = gnio_gpu_dev_time_ns();
	assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 8, 1000000, &first, &n, NULL));
	assert_int_equal(n, 0);
	assert_true(gnio_gpu_dev_time_ns() - t0 >= 1000000);
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 0);
	/* No count limit and no time limit would never return: refused. */
	assert_gnio(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 0, 0, &first, &n, NULL), GNIO_ERROR_INVALID_VALUE);
	rx_fix_fini(&f);
}

static void test_rx_publish_take(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 16, 1);
	assert_int_equal(rx_produce(&f, 5), 5);
	uint64_t first = 99;
	assert_int_equal(gnio_rx_ring_take(&f.q, 64, &first), 5);
	assert_int_equal(first, 0);
	for (uint64_t i = 0; i < 5; i++)
		rx_check_entry(&f.q, i);
	assert_int_equal(gnio_rx_ring_take(&f.q, 64, &first), 0);
	assert_int_equal(first, 5);
	/* max limits the batch; first advances batch by batch. */
	assert_int_equal(rx_produce(&f, 10), 10);
	assert_int_equal(gnio_rx_ring_take(&f.q, 4, &first), 4);
	assert_int_equal(first, 5);
	assert_int_equal(gnio_rx_ring_take(&f.q, 4, &first), 4);
	assert_int_equal(first, 9);
	assert_int_equal(gnio_rx_ring_take(&f.q, 4, &first), 2);
	assert_int_equal(first, 13);
	assert_int_equal(gnio_rx_ring_take(&f.q, 4, &first), 0);
	/* Accessors read the completion entry. */
	assert_int_equal(gnio_gpu_dev_eth_rxq_get_pkt_bytes(&f.q, 7), 7 + 14);
	assert_true(gnio_gpu_dev_eth_rxq_get_pkt_addr(&f.q, 7) == (uint64_t)(uintptr_t)(f.pool + 7 * 3 + 1));
	assert_int_equal(gnio_gpu_dev_eth_rxq_get_pkt_ts(&f.q, 7), 7 ^ 0x5a5a5a5aull);
	rx_fix_fini(&f);
}

static void test_rx_wraparound(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 8, 1);
	uint64_t expect = 0;
	unsigned rnd = 12345;
	/* Many laps with uneven batch sizes on both sides. */
	while (expect < 8 * 5000) {
		rnd = rnd * 1103515245u + 12345u;
		rx_produce(&f, 1 + (rnd >> 16) % 8);
		uint64_t first;
		uint32_t n;
		rnd = rnd * 1103515245u + 12345u;
		assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 1 + (rnd >> 16) % 8, 1, &first, &n, NULL));
		assert_int_equal(first, expect);
		for (uint32_t i = 0; i < n; i++)
			rx_check_entry(&f.q, first + i);
		expect += n;
		/* Never more in flight than the ring holds. */
		assert_true(f.prod - gnio_load_acquire_u64(&f.q.sh->cons) <= 8);
	}
	assert_true(f.prod >= expect);
	rx_fix_fini(&f);
}

/* A completion is ready only with the phase of its own lap: the entry left
 * from the lap before, zeroed memory, and a later entry posted ahead of an
 * earlier one never make the consumer take too much. */
static void test_rx_phase(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 8, 1);
	uint64_t first;
	/* lap 0 ready means phase 1; zeroed memory is not ready */
	assert_false(gnio_rx_meta_ready(0, 0, 3));
	assert_true(gnio_rx_meta_ready(gnio_rx_meta_make(5, 3, 0, 60, 0), 5, 3));
	/* the same slot one lap later: the old word is stale */
	assert_false(gnio_rx_meta_ready(gnio_rx_meta_make(5, 3, 0, 60, 0), 13, 3));
	assert_true(gnio_rx_meta_ready(gnio_rx_meta_make(13, 3, 0, 60, 0), 13, 3));
	/* fields round-trip at their widths */
	uint64_t m = gnio_rx_meta_make(21, 3, GNIO_RX_META_OFF_MASK, GNIO_RX_META_LEN_MAX, 7);
	assert_true(gnio_rx_meta_off(m) == GNIO_RX_META_OFF_MASK);
	assert_int_equal(gnio_rx_meta_len(m), GNIO_RX_META_LEN_MAX);
	assert_int_equal(gnio_rx_meta_flags(m), 7);

	/* entry 1 posted before entry 0: nothing to take yet */
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, 1), gnio_rx_meta_make(1, 3, 64, 60, 0));
	assert_int_equal(gnio_rx_ring_take(&f.q, 8, &first), 0);
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, 0), gnio_rx_meta_make(0, 3, 0, 61, 0));
	assert_int_equal(gnio_rx_ring_take(&f.q, 8, &first), 2);
	assert_int_equal(first, 0);
	assert_int_equal(gnio_gpu_dev_eth_rxq_get_pkt_bytes(&f.q, 0), 61);
	assert_int_equal(gnio_gpu_dev_eth_rxq_get_pkt_bytes(&f.q, 1), 60);
	gnio_rx_ring_release(&f.q);
	/* lap 1 of slots 0 and 1 still hold lap-0 words: not taken again */
	f.prod = 2;
	f.cached_cons = 2;
	assert_int_equal(rx_produce(&f, 6), 6); /* entries 2..7 */
	assert_int_equal(gnio_rx_ring_take(&f.q, 8, &first), 6);
	assert_int_equal(first, 2);
	gnio_rx_ring_release(&f.q);
	assert_int_equal(gnio_rx_ring_take(&f.q, 8, &first), 0); /* 8 and 9: slots 0, 1 stale */
	assert_int_equal(rx_produce(&f, 1), 1);                  /* entry 8 */
	assert_int_equal(gnio_rx_ring_take(&f.q, 8, &first), 1);
	assert_int_equal(first, 8);
	rx_check_entry(&f.q, 8);
	rx_fix_fini(&f);
}

/* A waiting member's single acquire look: ready only with its own lap's
 * phase, and then its meta is in the local copy for the frame accessors. */
static void test_rx_poll_one(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 8, 1);
	assert_int_equal(gnio_rx_ring_poll_one(&f.q, 0), 0); /* zeroed: not ready */
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, 1), gnio_rx_meta_make(1, 3, 64, 60, 0));
	assert_int_equal(gnio_rx_ring_poll_one(&f.q, 0), 0); /* a later entry does not count */
	assert_int_equal(gnio_rx_ring_poll_one(&f.q, 1), 1);
	assert_int_equal(gnio_gpu_dev_eth_rxq_get_pkt_bytes(&f.q, 1), 60);
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, 0), gnio_rx_meta_make(0, 3, 0, 61, 0));
	assert_int_equal(gnio_rx_ring_poll_one(&f.q, 0), 1);
	assert_int_equal(gnio_gpu_dev_eth_rxq_get_pkt_bytes(&f.q, 0), 61);
	/* entry 8 shares slot 0, which still holds lap 0's word */
	assert_int_equal(gnio_rx_ring_poll_one(&f.q, 8), 0);
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, 0), gnio_rx_meta_make(8, 3, 0, 62, 0));
	assert_int_equal(gnio_rx_ring_poll_one(&f.q, 8), 1);
	assert_int_equal(gnio_gpu_dev_eth_rxq_get_pkt_bytes(&f.q, 8), 62);
	rx_fix_fini(&f);
}

/* A waiting group's look at entry idx as eth_rxq.h makes it on the GPU:
 * eight members load one word of the entry's line each (the completion
 * word, the timestamp, the six header words); ready only when the
 * completion word and every header word show the entry's lap. */
static int rx_poll_hdr(struct rx_fix *f, uint64_t idx)
{
	uint64_t w[GNIO_RX_HDR_WORDS];
	int ok = 1;
	for (uint32_t k = 0; k < GNIO_RX_HDR_WORDS; k++) {
		w[k] = gnio_load_acquire_u64((const uint64_t *)gnio_rx_ring_cqe(&f->q, idx) + 2u + k);
		ok &= gnio_rx_hdr_word_ready(w[k], idx, f->q.size_log2);
	}
	if (!gnio_rx_ring_poll_one(&f->q, idx) || !ok)
		return 0;
	for (uint32_t k = 0; k < GNIO_RX_HDR_WORDS; k++)
		gnio_rx_hdr_keep_word(&f->q, idx, k, w[k]);
	return 1;
}

/* The inline header: a waiting look that brings it is ready only when meta
 * and every header word show its lap (one stale word, as a GPU's unordered
 * loads may see, holds it back), and then the receive's copy is the frame's
 * first bytes; a scan brings meta alone and the fill after it copies the
 * header once. */
static void test_rx_inline_header(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 8, 1);
	rx_fix_add_hdr(&f);
	/* entry 0: header written, meta not yet */
	rx_put_hdr(&f, 0);
	assert_int_equal(rx_poll_hdr(&f, 0), 0);
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, 0), gnio_rx_meta_make(0, 3, 0, rx_frame_len(0), 0));
	assert_int_equal(rx_poll_hdr(&f, 0), 1);
	assert_int_equal(rx_hdr_errors(&f.q, 0), 0); /* 14 bytes, then zeros */
	/* each header word in turn left from the lap before: not ready, by
	 * the single look and by the scan */
	for (uint32_t k = 0; k < GNIO_RX_HDR_WORDS; k++) {
		const uint64_t idx = 8 + k; /* lap 1, slot k */
		rx_put_hdr(&f, idx);
		uint64_t *hw = (uint64_t *)gnio_rx_ring_cqe(&f.q, idx) + 2;
		const uint64_t keep = hw[k];
		hw[k] = keep ^ GNIO_RX_META_PHASE;
		gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, k), gnio_rx_meta_make(idx, 3, 0, rx_frame_len(idx), 0));
		assert_int_equal(rx_poll_hdr(&f, idx), 0);
		hw[k] = keep;
		assert_int_equal(rx_poll_hdr(&f, idx), 1);
		assert_int_equal(rx_hdr_errors(&f.q, idx), 0);
	}
	/* a long frame, scanned: the fill copies exactly its first 56 bytes */
	const uint64_t big = 8 * 5 + 50; /* length 104 */
	rx_put_hdr(&f, big);
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, big & 7), gnio_rx_meta_make(big, 3, 0, rx_frame_len(big), 0));
	assert_int_equal(gnio_rx_ring_scan(&f.q, big, 1, 1), 1);
	assert_int_not_equal(rx_hdr_errors(&f.q, big), 0); /* the scan brought meta alone */
	gnio_rx_ring_fill_hdr(&f.q, big, 1, 0, 1, 0);
	assert_int_equal(rx_hdr_errors(&f.q, big), 0);
	/* a copy the waiting look made is not made again */
	const uint64_t again = big + 8;
	rx_put_hdr(&f, again);
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, again & 7), gnio_rx_meta_make(again, 3, 0, rx_frame_len(again), 0));
	assert_int_equal(rx_poll_hdr(&f, again), 1);
	((uint64_t *)gnio_rx_ring_cqe(&f.q, again))[2] ^= 0xff; /* would show if the fill copied it again */
	gnio_rx_ring_fill_hdr(&f.q, again, 1, 0, 1, 1);
	assert_int_equal(rx_hdr_errors(&f.q, again), 0);
	rx_fix_fini(&f);

	/* Without one, the header is the frame itself. */
	rx_fix_init(&f, 8, 1);
	gnio_rx_ring_post(gnio_rx_ring_cqe(&f.q, 0), gnio_rx_meta_make(0, 3, 128, 60, 0));
	assert_int_equal(gnio_rx_ring_poll_one(&f.q, 0), 1);
	uint32_t n = 0;
	assert_ptr_equal(gnio_gpu_dev_eth_rxq_get_pkt_hdr(&f.q, 0, &n), f.pool + 128);
	assert_int_equal(n, 60);
	rx_fix_fini(&f);
}

/* The local header copy a word at a time: words 0..5 built from header
 * words j and j + 1 are the frame's first 48 bytes, zeros past its length
 * and past the 42 a header carries, whatever the phase bit says. */
static void test_rx_hdr_local_words(void **state)
{
	(void)state;
	const uint32_t lens[] = {0, 1, 7, 8, 14, 41, 42, 60, 1500};
	for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
		uint8_t frame[64], want[48] = {0}, got[48];
		for (uint32_t i = 0; i < sizeof(frame); i++)
			frame[i] = (uint8_t)(0xa5u ^ (i * 37u + t));
		const uint32_t len = lens[t] < sizeof(frame) ? lens[t] : (uint32_t)sizeof(frame);
		memcpy(want, frame, len < GNIO_RX_HDR_BYTES ? len : GNIO_RX_HDR_BYTES);
		uint64_t w[GNIO_RX_HDR_WORDS + 1] = {0};
		gnio_hdr_words_put(w, GNIO_RX_HDR_WORDS, frame, len, t & 1 ? GNIO_RX_META_PHASE : 0);
		for (uint32_t j = 0; j < GNIO_RX_HDR_WORDS; j++) {
			const uint64_t v = gnio_rx_hdr_local_word(j, w[j], w[j + 1]);
			memcpy(got + 8u * j, &v, 8);
		}
		assert_memory_equal(got, want, sizeof(want));
	}
}

/* An idle receive loop writes nothing: the release is stored only when
 * there is a new batch to give back. */
static void test_rx_release_only_new(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 8, 1);
	uint64_t first;
	uint32_t n;
	assert_int_equal(rx_produce(&f, 3), 3);
	assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 8, 1, &first, &n, NULL));
	assert_int_equal(n, 3);
	assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 8, 1, &first, &n, NULL));
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 3);
	/* poison the shared word: an idle receive must not rewrite it */
	__atomic_store_n(&f.q.sh->cons, 777, __ATOMIC_RELEASE);
	for (int i = 0; i < 10; i++)
		assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 8, 1, &first, &n, NULL));
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 777);
	rx_fix_fini(&f);
}

static void test_rx_full_until_released(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 8, 1);
	assert_int_equal(gnio_rx_ring_free_slots(f.q.sh, f.prod, &f.cached_cons, 8), 8);
	assert_int_equal(rx_produce(&f, 100), 8); /* only 8 fit */
	assert_int_equal(gnio_rx_ring_free_slots(f.q.sh, f.prod, &f.cached_cons, 8), 0);
	assert_int_equal(rx_produce(&f, 1), 0);

	/* Taking does not free anything: entries stay owned until released. */
	uint64_t first;
	assert_int_equal(gnio_rx_ring_take(&f.q, 8, &first), 8);
	assert_int_equal(gnio_rx_ring_free_slots(f.q.sh, f.prod, &f.cached_cons, 8), 0);
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 0);

	gnio_rx_ring_release(&f.q);
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 8);
	assert_int_equal(gnio_rx_ring_free_slots(f.q.sh, f.prod, &f.cached_cons, 8), 8);
	assert_int_equal(rx_produce(&f, 3), 3);
	assert_int_equal(gnio_rx_ring_take(&f.q, 8, &first), 3);
	assert_int_equal(first, 8);
	for (uint64_t i = 8; i < 11; i++)
		rx_check_entry(&f.q, i);
	rx_fix_fini(&f);
}

/* recv releases the previous batch only on the next recv. */
static void test_rx_release_on_next_recv(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 8, 1);
	uint64_t first;
	uint32_t n;
	assert_int_equal(rx_produce(&f, 8), 8);
	assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 3, 1, &first, &n, NULL));
	assert_int_equal(n, 3);
	assert_int_equal(first, 0);
	/* The batch is in use: the producer still sees a full ring. */
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 0);
	assert_int_equal(gnio_rx_ring_free_slots(f.q.sh, f.prod, &f.cached_cons, 8), 0);

	assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 3, 1, &first, &n, NULL));
	assert_int_equal(n, 3);
	assert_int_equal(first, 3);
	/* The first batch is now released, not the second. */
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 3);
	assert_int_equal(gnio_rx_ring_free_slots(f.q.sh, f.prod, &f.cached_cons, 8), 3);

	/* An empty recv still releases what was handed out before. */
	assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 8, 1, &first, &n, NULL));
	assert_int_equal(n, 2);
	assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 8, 1, &first, &n, NULL));
	assert_int_equal(n, 0);
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 8);
	rx_fix_fini(&f);
}

static void test_rx_no_pool_bad_state(void **state)
{
	(void)state;
	struct rx_fix f;
	rx_fix_init(&f, 8, 0);
	rx_produce(&f, 2);
	uint64_t first = 7;
	uint32_t n = 7;
	assert_gnio(gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 8, 1, &first, &n, NULL), GNIO_ERROR_BAD_STATE);
	assert_int_equal(n, 0);
	/* Nothing was taken or released. */
	assert_int_equal(f.q.lc->head, 0);
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), 0);
	rx_fix_fini(&f);
}

/* ------------------------------------------------------------- TX ------ */

static void test_tx_reserve_until_full(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, 8, 1);
	uint64_t t = 0;
	for (uint64_t i = 0; i < 8; i++) {
		assert_ok(gnio_tx_ring_reserve(&f.q, 1, &t));
		assert_int_equal(t, i);
	}
	assert_gnio(gnio_tx_ring_reserve(&f.q, 1, &t), GNIO_ERROR_AGAIN);
	assert_gnio(gnio_gpu_dev_eth_txq_reserve(&f.q, 1, &t), GNIO_ERROR_AGAIN);
	uint64_t ticket;
	assert_gnio(send_at(&f, f.pool, 60, 0, NULL), GNIO_ERROR_AGAIN);
	assert_gnio(send_at(&f, f.pool, 60, 5, &ticket), GNIO_ERROR_AGAIN);

	/* Complete 3: exactly 3 more fit, and a batch of 4 does not. */
	gnio_tx_ring_complete(f.q.sh, 3);
	assert_int_equal(gnio_gpu_dev_eth_txq_completed(&f.q), 3);
	assert_gnio(gnio_tx_ring_reserve(&f.q, 4, &t), GNIO_ERROR_AGAIN);
	assert_ok(gnio_tx_ring_reserve(&f.q, 3, &t));
	assert_int_equal(t, 8);
	assert_gnio(gnio_tx_ring_reserve(&f.q, 1, &t), GNIO_ERROR_AGAIN);
	tx_fix_fini(&f);
}

static void test_tx_invalid(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, 8, 1);
	uint64_t t = 77;
	assert_gnio(gnio_tx_ring_reserve(&f.q, 9, &t), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_tx_ring_reserve(&f.q, 0, &t), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(t, 77);
	assert_int_equal(f.q.lc->tail, 0);
	/* Exactly the ring size is fine on an empty ring. */
	assert_ok(gnio_tx_ring_reserve(&f.q, 8, &t));
	assert_int_equal(t, 0);
	gnio_tx_ring_complete(f.q.sh, 8);
	/* Buffer-style send outside the pool or of zero length. */
	const uint64_t size = f.q.bufs[0].size;
	assert_gnio(send_at(&f, f.pool, 0, 0, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(send_at(&f, f.pool + size - 10, 11, 0, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(send_at(&f, f.pool - 1, 10, 0, NULL), GNIO_ERROR_INVALID_VALUE);
	/* A key that names no registered array, in either byte order. */
	assert_gnio(gnio_gpu_dev_eth_txq_send_thread(&f.q, (uint64_t)(uintptr_t)f.pool, 0x6e000099u, 60,
						     GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, NULL),
		    GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(f.q.lc->tail, 8); /* nothing reserved by the failures */
	assert_ok(send_at(&f, f.pool + size - 10, 10, 0, NULL));
	assert_int_equal(f.q.lc->tail, 9);
	/* The array's key in host and in network byte order both name it. */
	assert_ok(gnio_gpu_dev_eth_txq_send_thread(&f.q, (uint64_t)(uintptr_t)f.pool, TX_KEY, 60,
						   GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, NULL));
	assert_ok(gnio_gpu_dev_eth_txq_send_thread(&f.q, (uint64_t)(uintptr_t)f.pool, __builtin_bswap32(TX_KEY), 60,
						   GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, NULL));
	assert_int_equal(f.q.lc->tail, 11);
	tx_fix_fini(&f);
}

static void test_tx_no_pool_bad_state(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, 8, 0);
	uint64_t t = 0;
	uint8_t buf[64];
	assert_gnio(gnio_tx_ring_reserve(&f.q, 1, &t), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_gpu_dev_eth_txq_reserve(&f.q, 1, &t), GNIO_ERROR_BAD_STATE);
	assert_gnio(send_at(&f, buf, 60, 0, NULL), GNIO_ERROR_BAD_STATE);
	assert_int_equal(f.q.lc->tail, 0);
	tx_fix_fini(&f);
}

static void test_tx_commit_out_of_order(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, 8, 1);
	uint64_t t0 = 0, t1 = 0, t2 = 0, seen[8];
	assert_ok(gnio_tx_ring_reserve(&f.q, 1, &t0));
	assert_ok(gnio_tx_ring_reserve(&f.q, 1, &t1));
	assert_ok(gnio_tx_ring_reserve(&f.q, 1, &t2));
	/* Nothing committed: nothing ready. */
	assert_int_equal(tx_consume(&f, seen, 8), 0);
	gnio_tx_ring_commit(&f.q, t2, 0, 200, 60, 0, 0);
	gnio_tx_ring_commit(&f.q, t0, 0, 0, 60, 0, 0);
	/* 0 is ready, 1 is the gap, 2 waits behind it. */
	assert_int_equal(tx_consume(&f, seen, 8), 1);
	assert_int_equal(seen[0], 0);
	struct gnio_tx_desc_view d;
	assert_false(tx_ready(&f, 1, &d));
	assert_int_equal(tx_consume(&f, seen, 8), 0);
	gnio_tx_ring_commit(&f.q, t1, 0, 100, 61, GNIO_TX_F_TIMED, 12345);
	assert_true(tx_ready(&f, 1, &d));
	assert_int_equal(tx_consume(&f, seen, 8), 2);
	assert_int_equal(seen[0], 100);
	assert_int_equal(seen[1], 200);
	assert_int_equal(d.len, 61);
	assert_int_equal(d.flags, GNIO_TX_F_TIMED);
	assert_int_equal(d.send_at_ns, 12345);
	assert_int_equal(d.hdr_len, 0);
	tx_fix_fini(&f);
}

static void test_tx_stale_lap_and_recover(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, 8, 1);
	uint64_t t = 0;
	/* Lap 0: fill, commit, consume, complete. */
	for (int i = 0; i < 8; i++) {
		assert_ok(gnio_gpu_dev_eth_txq_reserve(&f.q, 1, &t));
		uint8_t *slot = gnio_gpu_dev_eth_txq_slot_addr(&f.q, t);
		assert_ptr_equal(slot, f.pool + (t & 7) * 64);
		memset(slot, (int)t, 60);
		gnio_gpu_dev_eth_txq_commit(&f.q, t, 60, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
	}
	assert_gnio(gnio_gpu_dev_eth_txq_reserve(&f.q, 1, &t), GNIO_ERROR_AGAIN);
	assert_int_equal(tx_consume(&f, NULL, 64), 8);
	/* Not completed yet: still full. */
	assert_gnio(gnio_gpu_dev_eth_txq_reserve(&f.q, 1, &t), GNIO_ERROR_AGAIN);
	gnio_tx_ring_complete(f.q.sh, f.next);
	/* Lap 1: every slot carries words of lap 0, whose phase must not match. */
	for (uint64_t i = 8; i < 16; i++) {
		assert_ok(gnio_gpu_dev_eth_txq_reserve(&f.q, 1, &t));
		assert_int_equal(t, i);
		struct gnio_tx_desc_view d;
		assert_false(tx_ready(&f, i, &d));
	}
	assert_int_equal(tx_consume(&f, NULL, 64), 0);
	/* Many laps later, words of the lap before do not match either. */
	for (uint64_t i = 8; i < 16; i++)
		gnio_gpu_dev_eth_txq_commit(&f.q, i, 60, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
	assert_int_equal(tx_consume(&f, NULL, 64), 8);
	gnio_tx_ring_complete(f.q.sh, f.next);
	for (int lap = 2; lap < 50; lap++) {
		for (int i = 0; i < 8; i++) {
			assert_ok(gnio_gpu_dev_eth_txq_reserve(&f.q, 1, &t));
			struct gnio_tx_desc_view d;
			assert_false(tx_ready(&f, t, &d));
			gnio_gpu_dev_eth_txq_commit(&f.q, t, 60, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
			assert_true(tx_ready(&f, t, &d));
			assert_int_equal(d.buf_off, (t & 7) * 64);
		}
		assert_gnio(gnio_gpu_dev_eth_txq_reserve(&f.q, 1, &t), GNIO_ERROR_AGAIN);
		assert_int_equal(tx_consume(&f, NULL, 64), 8);
		gnio_tx_ring_complete(f.q.sh, f.next);
	}
	assert_int_equal(gnio_gpu_dev_eth_txq_completed(&f.q), 50 * 8);
	tx_fix_fini(&f);
}

/* The descriptor is complete only when every word it needs shows this
 * lap, whatever order the words landed in: w0 and w1 always, w2 for a
 * timed send, and the header words its length needs. */
static void test_tx_words_each_checked(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, 8, 1);
	struct gnio_tx_desc_view d;
	uint64_t *w = f.q.desc[3].w, *h = f.q.desc_hdr + 3 * GNIO_TX_HDR_LINE_WORDS;
	const uint64_t lap1 = 0, lap0 = GNIO_TX_PHASE; /* entry 11 is on lap 1 of 8 entries */
	/* Lap 0 left entry 3 complete; lap 1's w0 lands first. */
	gnio_tx_ring_write(&f.q, 3, 0, 64, 60, 0, 0, NULL, 0, 1);
	assert_true(tx_ready(&f, 3, &d));
	w[0] = lap1 | (64u * 3u);
	assert_false(tx_ready(&f, 11, &d)); /* w1 still lap 0's */
	w[1] = lap1 | 60u;
	assert_true(tx_ready(&f, 11, &d));
	assert_int_equal(d.buf_off, 192);
	assert_int_equal(d.len, 60);
	/* Timed: w2 is read, and must be this lap's too. */
	w[0] = lap1 | ((uint64_t)GNIO_TX_F_TIMED << GNIO_TX_W0_FLAG_SHIFT) | 192u;
	w[2] = lap0 | 777u;
	assert_false(tx_ready(&f, 11, &d));
	w[2] = lap1 | 777u;
	assert_true(tx_ready(&f, 11, &d));
	assert_int_equal(d.send_at_ns, 777);
	/* A 20-byte header needs three header words; a stale third one holds it. */
	w[0] = lap1 | 192u;
	w[1] = lap1 | (20ull << GNIO_TX_W1_HDR_SHIFT) | 60u;
	h[0] = lap1;
	h[1] = lap1;
	h[2] = lap0;
	assert_false(tx_ready(&f, 11, &d));
	h[2] = lap1;
	assert_true(tx_ready(&f, 11, &d));
	assert_int_equal(d.hdr_len, 20);
	tx_fix_fini(&f);
}

/* A header of every length up to the most a descriptor holds comes back
 * byte for byte; the frame's other fields are untouched by it. */
static void test_tx_header_roundtrip(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, 8, 1);
	uint8_t hdr[GNIO_TX_HDR_BYTES];
	for (uint32_t i = 0; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)(0xa0 + i);
	for (uint32_t len = 0; len <= GNIO_TX_HDR_BYTES; len++) {
		struct gnio_tx_desc_view d;
		uint64_t t = 0;
		memset(&d, 0, sizeof(d));
		assert_ok(gnio_tx_ring_reserve_exclusive(&f.q, 1, &t));
		assert_int_equal(t, len);
		gnio_tx_ring_write(&f.q, t, 0, (t & 7) * 64, 60, GNIO_TX_F_NOTIFY, 0, hdr, len, 0);
		assert_true(tx_ready(&f, t, &d));
		assert_int_equal(d.hdr_len, len);
		assert_memory_equal(d.hdr, hdr, len);
		assert_int_equal(d.len, 60);
		assert_int_equal(d.buf_off, (t & 7) * 64);
		assert_int_equal(d.flags, GNIO_TX_F_NOTIFY | GNIO_TX_F_UNORDERED);
		gnio_tx_ring_complete(f.q.sh, t + 1);
	}
	/* Through the device API: too long a header, or none given, is refused
	 * and queues nothing. */
	uint64_t ticket = 0;
	uint8_t *frame = f.pool + 64;
	assert_gnio(gnio_gpu_dev_eth_txq_send_hdr_thread(&f.q, (uint64_t)(uintptr_t)frame, TX_KEY, 60, hdr,
							   GNIO_TX_HDR_BYTES + 1, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE,
							   &ticket),
		    GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_dev_eth_txq_send_hdr_thread(&f.q, (uint64_t)(uintptr_t)frame, TX_KEY, 10, hdr, 12,
							   GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, &ticket),
		    GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_dev_eth_txq_send_hdr_thread(&f.q, (uint64_t)(uintptr_t)frame, TX_KEY, 60, NULL, 12,
							   GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, &ticket),
		    GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(f.q.lc->tail, GNIO_TX_HDR_BYTES + 1);
	assert_ok(gnio_gpu_dev_eth_txq_send_hdr_thread(&f.q, (uint64_t)(uintptr_t)frame, TX_KEY, 60, hdr, 12,
						       GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, &ticket));
	struct gnio_tx_desc_view d;
	assert_true(tx_ready(&f, ticket, &d));
	assert_int_equal(d.hdr_len, 12);
	assert_memory_equal(d.hdr, hdr, 12);
	assert_int_equal(d.buf_off, 64);
	tx_fix_fini(&f);
}

/* ------------------------------------------------------------ stress --- */

#define STRESS_N 1000000ull
#define STRESS_RING 64u

static void idle(void) { sched_yield(); }

static void *rx_producer(void *arg)
{
	struct rx_fix *f = arg;
	while (f->prod < STRESS_N) {
		uint64_t left = STRESS_N - f->prod;
		if (!rx_produce(f, left < 16 ? (uint32_t)left : 16))
			idle();
	}
	return NULL;
}

static void rx_stress(int inline_header)
{
	struct rx_fix f;
	rx_fix_init(&f, STRESS_RING, 1);
	if (inline_header)
		rx_fix_add_hdr(&f);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, rx_producer, &f), 0);
	uint64_t expect = 0, deadline = test_now_ns() + 60ull * 1000000000ull;
	uint64_t bad = 0;
	while (expect < STRESS_N) {
		uint64_t first;
		uint32_t n;
		gnio_error_t e = gnio_gpu_dev_eth_rxq_recv_thread(&f.q, 32, 1, &first, &n, NULL);
		if (e != GNIO_SUCCESS || (n && first != expect)) {
			bad++;
			break;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint64_t idx = first + i;
			const uint64_t m = gnio_rx_ring_meta(&f.q, idx);
			if (gnio_rx_meta_off(m) != idx * 3 + 1 || gnio_rx_meta_len(m) != (uint32_t)(idx % 1500) + 14 ||
			    gnio_rx_ring_cqe(&f.q, idx)->ts_ns != (idx ^ 0x5a5a5a5aull))
				bad++;
			if (inline_header && rx_hdr_errors(&f.q, idx))
				bad++;
		}
		expect += n;
		if (!n) {
			if (test_now_ns() > deadline)
				break;
			idle();
		}
	}
	gnio_rx_ring_release(&f.q);
	if (expect < STRESS_N) {
		/* Let the producer finish so the join cannot hang. */
		__atomic_store_n(&f.q.sh->cons, STRESS_N, __ATOMIC_RELEASE);
	}
	pthread_join(th, NULL);
	assert_int_equal(bad, 0);
	assert_int_equal(expect, STRESS_N);
	assert_int_equal(gnio_load_acquire_u64(&f.q.sh->cons), STRESS_N);
	rx_fix_fini(&f);
}

/* The send's lookup: the entry it finds is returned whole (the send marks
 * the hold word from that copy), in a table of more than one buffer, by key
 * in either byte order or by address; the hold word is the frame's slot in
 * an RX pool and none in a TX pool; a held write marks it and publishes the
 * descriptor as a plain write does. */
static void test_tx_find_buf_copy_and_hold(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, 8, 1);
	uint8_t *rx = test_zalloc_line(16 * 128);
	uint32_t *hold = test_zalloc_line(16 * sizeof(uint32_t));
	f.q.nbufs = 2;
	f.q.bufs[1].base = rx;
	f.q.bufs[1].size = 16 * 128;
	f.q.bufs[1].elem_size = 128;
	f.q.bufs[1].hold = hold;
	f.q.bufs[1].mkey = 0x11223344u;

	struct gnio_tx_buf b = {0};
	uint64_t off = 0;
	assert_int_equal(gnio_tx_ring_find_buf_copy(&f.q, (uint64_t)(uintptr_t)(rx + 5 * 128), 0x11223344u, 60, &off, &b), 1);
	assert_int_equal(off, 5 * 128);
	assert_ptr_equal(b.base, rx);
	assert_ptr_equal(b.hold, hold);
	assert_int_equal(b.elem_size, 128);
	assert_ptr_equal(gnio_tx_buf_hold_word(&b, off), &hold[5]);
	assert_int_equal(gnio_tx_ring_find_buf_copy(&f.q, (uint64_t)(uintptr_t)(rx + 7 * 128 + 4), 0x44332211u, 60, &off,
						    &b),
			 1);
	assert_ptr_equal(gnio_tx_buf_hold_word(&b, off), &hold[7]);
	/* by address, the TX pool: no hold word */
	assert_int_equal(gnio_tx_ring_find_buf_copy(&f.q, (uint64_t)(uintptr_t)(f.pool + 64), 0, 60, &off, &b), 0);
	assert_ptr_equal(b.base, f.pool);
	assert_null(gnio_tx_buf_hold_word(&b, off));
	/* the RX pool's key on a TX pool address, and a frame past its buffer */
	assert_int_equal(gnio_tx_ring_find_buf_copy(&f.q, (uint64_t)(uintptr_t)f.pool, 0x11223344u, 60, &off, &b), -1);
	assert_int_equal(gnio_tx_ring_find_buf(&f.q, (uint64_t)(uintptr_t)(rx + 15 * 128 + 100), 0, 60, &off), -1);

	/* a held write: the mark, then the descriptor as a plain write makes it */
	assert_int_equal(gnio_tx_ring_find_buf_copy(&f.q, (uint64_t)(uintptr_t)(rx + 3 * 128), 0, 60, &off, &b), 1);
	uint64_t t = 0;
	assert_ok(gnio_tx_ring_reserve(&f.q, 1, &t));
	const uint8_t hdr[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	gnio_tx_ring_write_held(&f.q, t, gnio_tx_buf_hold_word(&b, off), 1, off, 60, 0, 0, hdr, 12, 0);
	assert_int_equal(hold[3], GNIO_HOLD_SENT);
	assert_int_equal(hold[2] | hold[4], GNIO_HOLD_FREE);
	struct gnio_tx_desc_view v;
	assert_true(tx_ready(&f, t, &v));
	assert_int_equal(v.buf, 1);
	assert_int_equal(v.buf_off, 3 * 128);
	assert_int_equal(v.len, 60);
	assert_int_equal(v.hdr_len, 12);
	assert_memory_equal(v.hdr, hdr, 12);
	assert_true(v.flags & GNIO_TX_F_UNORDERED);
	free(rx);
	free(hold);
	tx_fix_fini(&f);
}

/* The hold slot of an offset: a shift for power-of-two elements, a division
 * otherwise, both past 4 GiB. */
static void test_slot_of(void **state)
{
	(void)state;
	static const uint32_t sizes[] = {1, 64, 2048, 4096, 65536, 3, 1500, 2112, 9000};
	static const uint64_t offs[] = {0, 1, 63, 2047, 2048, 123457, (1ull << 32) - 1, 1ull << 32,
					(5ull << 32) + 777};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < sizeof(offs) / sizeof(offs[0]); j++)
			assert_int_equal(gnio_slot_of(offs[j], sizes[i]), offs[j] / sizes[i]);
	assert_int_equal(gnio_slot_of(2048u * 7u + 5u, 2048u), 7u);
	assert_int_equal(gnio_slot_of(1500u * 9u - 1u, 1500u), 8u);
}

static void test_rx_stress_two_threads(void **state)
{
	(void)state;
	rx_stress(0);
}

/* The same with an inline header: every header handed out is its frame's. */
static void test_rx_stress_inline_header(void **state)
{
	(void)state;
	rx_stress(1);
}

struct tx_sender {
	struct tx_fix *f;
	uint32_t id;
	uint64_t count;
	uint64_t again;
};

static void *tx_sender_main(void *arg)
{
	struct tx_sender *s = arg;
	uint64_t seq = 0;
	unsigned rnd = s->id * 7919u + 1;
	while (seq < s->count) {
		rnd = rnd * 1103515245u + 12345u;
		uint32_t n = 1 + (rnd >> 16) % 4;
		if (n > s->count - seq)
			n = (uint32_t)(s->count - seq);
		uint64_t t = 0;
		gnio_error_t e = gnio_tx_ring_reserve(&s->f->q, n, &t);
		if (e == GNIO_ERROR_AGAIN) {
			s->again++;
			idle();
			continue;
		}
		if (e != GNIO_SUCCESS)
			return (void *)1;
		/* Commit in reverse inside the batch: the proxy must still go in
		 * ticket order. buf_off carries (sender, seq). */
		for (uint32_t i = n; i-- > 0;)
			gnio_tx_ring_commit(&s->f->q, t + i, 0, ((uint64_t)s->id << 40) | (seq + i), 60, 0, 0);
		seq += n;
	}
	return NULL;
}

static void test_tx_stress_two_senders(void **state)
{
	(void)state;
	struct tx_fix f;
	tx_fix_init(&f, STRESS_RING, 1);
	struct tx_sender s[2] = {{&f, 1, STRESS_N / 2, 0}, {&f, 2, STRESS_N / 2, 0}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, tx_sender_main, &s[i]), 0);
	uint64_t next_seq[3] = {0, 0, 0}, bad = 0, total = 0;
	uint64_t deadline = test_now_ns() + 60ull * 1000000000ull;
	uint64_t seen[32];
	while (total < STRESS_N) {
		uint32_t n = tx_consume(&f, seen, 32);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t id = (uint32_t)(seen[i] >> 40);
			uint64_t seq = seen[i] & ((1ull << 40) - 1);
			if (id < 1 || id > 2 || seq != next_seq[id])
				bad++;
			else
				next_seq[id]++;
		}
		total += n;
		if (n) {
			gnio_tx_ring_complete(f.q.sh, f.next);
		} else {
			if (test_now_ns() > deadline || bad)
				break;
			idle();
		}
	}
	if (total < STRESS_N) {
		/* Unblock the senders so the joins cannot hang. */
		gnio_tx_ring_complete(f.q.sh, 1ull << 60);
	}
	void *rc[2];
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], &rc[i]);
	assert_null(rc[0]);
	assert_null(rc[1]);
	assert_int_equal(bad, 0);
	assert_int_equal(total, STRESS_N);
	assert_int_equal(next_seq[1], STRESS_N / 2);
	assert_int_equal(next_seq[2], STRESS_N / 2);
	assert_int_equal(f.q.lc->tail, STRESS_N);
	/* Nothing beyond what was sent became ready. */
	struct gnio_tx_desc_view last;
	assert_false(tx_ready(&f, STRESS_N, &last));
	tx_fix_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_empty),
		cmocka_unit_test(test_rx_publish_take),
		cmocka_unit_test(test_rx_wraparound),
		cmocka_unit_test(test_rx_phase),
		cmocka_unit_test(test_rx_poll_one),
		cmocka_unit_test(test_rx_inline_header),
		cmocka_unit_test(test_rx_hdr_local_words),
		cmocka_unit_test(test_rx_release_only_new),
		cmocka_unit_test(test_rx_full_until_released),
		cmocka_unit_test(test_rx_release_on_next_recv),
		cmocka_unit_test(test_rx_no_pool_bad_state),
		cmocka_unit_test(test_tx_reserve_until_full),
		cmocka_unit_test(test_tx_invalid),
		cmocka_unit_test(test_tx_no_pool_bad_state),
		cmocka_unit_test(test_tx_commit_out_of_order),
		cmocka_unit_test(test_tx_stale_lap_and_recover),
		cmocka_unit_test(test_tx_words_each_checked),
		cmocka_unit_test(test_tx_header_roundtrip),
		cmocka_unit_test(test_tx_find_buf_copy_and_hold),
		cmocka_unit_test(test_slot_of),
		cmocka_unit_test(test_rx_stress_two_threads),
		cmocka_unit_test(test_rx_stress_inline_header),
		cmocka_unit_test(test_tx_stress_two_senders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
