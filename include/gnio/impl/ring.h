/* SPDX-License-Identifier: MIT */
/*
 * gnio/impl/ring.h - the GPU-visible RX and TX rings: the whole hot-path
 * protocol between the host proxy and the consumer (CUDA kernel or CPU device).
 *
 * Layout rules
 *  - Indexes are free-running uint64_t, masked on access; size is a power of two.
 *  - Each word has exactly one writer and sits on its own 128-byte line.
 *  - "shared" parts live in pinned host memory mapped into the GPU (CPU_GPU);
 *    "local" parts are private to the GPU side and live in device memory, so the
 *    kernel never pays a PCIe round trip for its own bookkeeping.
 *  - Payload pool: a registered gnio_buf_arr. A descriptor names a frame by its
 *    byte offset in the pool, so a wire may place frames anywhere in it (AF_XDP
 *    UMEM) or cyclically (one slot per ring entry: sw, afpacket, pcap).
 *  - A TX descriptor names its frame by (buffer index, offset): the TX queue
 *    keeps a table of the buffer arrays registered with it, the RX pool
 *    included, so a kernel sends a received frame in place (no copy).
 *  - In-place holds: an RX slot that was sent is marked in its pool's hold
 *    array and is not refilled until the TX side marks it done (see
 *    GNIO_HOLD_* below for the three writers and their order).
 *
 * Hot-path structs are exposed so that the inline functions can be compiled into
 * kernels; applications use the functions in gnio/device/, not the fields.
 */
#ifndef GNIO_IMPL_RING_H
#define GNIO_IMPL_RING_H

#include <string.h>
#include "atomics.h"
#include "../error.h"

/* ---------------------------------------------------------------- RX ---- */

/* RX completion flags */
#define GNIO_RX_F_TRUNCATED 0x1u /* never set today: oversize frames are dropped */
#define GNIO_RX_F_TS_HW     0x2u /* timestamp came from the wire, not the proxy */

/*
 * An RX completion. Everything the consumer needs to find the frame is in one
 * 64-bit word, `meta`, read in a single access (single-copy atomic on both
 * sides), so polling the completion itself is the handshake: no separate
 * index read before it, one PCIe round trip per poll instead of two.
 *
 *   meta bit 63      phase: 1 on the ring's even laps, 0 on odd ones. A
 *                    completion is ready when its phase is the one of its
 *                    index's lap; the entry left from the lap before has the
 *                    other phase, and zeroed memory is "not ready" on lap 0.
 *   meta bits 60-62  GNIO_RX_F_*
 *   meta bits 40-59  frame length (< 1 MiB)
 *   meta bits 0-39   frame start, bytes from the pool base (< 1 TiB)
 */
struct gnio_rx_cqe {
	uint64_t meta;
	uint64_t ts_ns; /* arrival time, CLOCK_REALTIME nanoseconds */
};

#define GNIO_RX_META_PHASE      (1ull << 63)
#define GNIO_RX_META_FLAG_SHIFT 60
#define GNIO_RX_META_LEN_SHIFT  40
#define GNIO_RX_META_LEN_MAX    ((1u << 20) - 1u)
#define GNIO_RX_META_OFF_MASK   ((1ull << 40) - 1ull)

GNIO_HD uint64_t gnio_rx_meta_phase(uint64_t idx, uint32_t size_log2)
{
	return ((idx >> size_log2) & 1u) ? 0 : GNIO_RX_META_PHASE;
}
/* The ready completion word of entry idx. */
GNIO_HD uint64_t gnio_rx_meta_make(uint64_t idx, uint32_t size_log2, uint64_t buf_off, uint32_t len, uint32_t flags)
{
	return gnio_rx_meta_phase(idx, size_log2) | ((uint64_t)(flags & 7u) << GNIO_RX_META_FLAG_SHIFT) |
	       ((uint64_t)(len & GNIO_RX_META_LEN_MAX) << GNIO_RX_META_LEN_SHIFT) | (buf_off & GNIO_RX_META_OFF_MASK);
}
GNIO_HD int gnio_rx_meta_ready(uint64_t meta, uint64_t idx, uint32_t size_log2)
{
	return (meta & GNIO_RX_META_PHASE) == gnio_rx_meta_phase(idx, size_log2);
}
GNIO_HD uint64_t gnio_rx_meta_off(uint64_t meta) { return meta & GNIO_RX_META_OFF_MASK; }
GNIO_HD uint32_t gnio_rx_meta_len(uint64_t meta) { return (uint32_t)(meta >> GNIO_RX_META_LEN_SHIFT) & GNIO_RX_META_LEN_MAX; }
GNIO_HD uint32_t gnio_rx_meta_flags(uint64_t meta) { return (uint32_t)(meta >> GNIO_RX_META_FLAG_SHIFT) & 7u; }

/*
 * The inline header (a queue option, gnio_eth_rxq_set_inline_header): each
 * completion grows from two words to one 64-byte line, and carries the
 * frame's first GNIO_RX_HDR_BYTES bytes after meta and ts_ns, so a consumer
 * that polls the completion gets them in the same PCIe round trip instead of
 * reading the payload after it (one more round trip, about 1.3 us on the
 * H200: docs/PERFORMANCE.md).
 *
 *   word 0 meta, word 1 ts_ns, words 2..7 the header: header word k carries
 *   bytes 7k..7k+6 (byte 7k + i in bits 8i..8i+7) and, in bit 63, the phase
 *   of its entry's lap, as meta does. Bytes past the frame's end are zero.
 *
 * The producer writes the header words, then meta, into one line. Every word
 * is a single-copy-atomic access with its own phase, so a consumer that
 * loads the line in pieces, in any order, knows the entry is ready when meta
 * and all six header words show this lap (a waiting group's poll,
 * eth_rxq.h). A consumer that found meta ready first (acquire, or relaxed
 * and a fence) may load them after it without looking at their phase: the
 * release of meta ordered them.
 */
#define GNIO_RX_CQE_SHIFT 1u        /* log2 of a completion's words: meta, ts_ns */
#define GNIO_RX_CQE_INLINE_SHIFT 3u /* ... with an inline header: one 64-byte line */
#define GNIO_RX_HDR_WORDS 6u
#define GNIO_RX_HDR_BYTES 42u
#define GNIO_RX_HDR_DATA_MASK ((1ull << 56) - 1ull)
/* The consumer loads the header as three 16-byte pairs of words. One
 * thread loading several pieces of one line waits for them one after
 * another (four cost 3.3 us on the H200, bench/pcie_probe), while lanes of a
 * warp loading one piece each in the same instruction make one request. */
#define GNIO_RX_HDR_PAIRS 3u
/* Words per entry of the consumer's local copy of the headers. */
#define GNIO_RX_HDR_LOCAL_WORDS 8u

/* Header words, RX or TX: store the first min(len, 7 * nwords) bytes of
 * `bytes` as nwords words of 7 bytes each with `phase` in bit 63 (nwords <=
 * GNIO_RX_HDR_WORDS; bytes past len are zero). Each is one relaxed store. */
GNIO_HD void gnio_hdr_words_put(uint64_t *w, uint32_t nwords, const uint8_t *bytes, uint32_t len, uint64_t phase)
{
	/* Byte by byte at constant offsets, no buffer: on the GPU everything
	 * stays in registers (a local array lives in memory that L1 loses at
	 * every system-scope acquire: 0.9 us of a send, bench/pcie_probe). */
	GNIO_UNROLL
	for (uint32_t k = 0; k < GNIO_RX_HDR_WORDS; k++) {
		if (k >= nwords)
			break;
		uint64_t v = 0;
		GNIO_UNROLL
		for (uint32_t i = 0; i < 7u; i++)
			if (7u * k + i < len)
				v |= (uint64_t)bytes[7u * k + i] << (8u * i);
		gnio_store_relaxed_u64(&w[k], v | phase);
	}
}

/* The 7 bytes header word w carries, into out[0..6]. */
GNIO_HD void gnio_hdr_word_get(uint64_t w, uint8_t *out)
{
	GNIO_UNROLL
	for (uint32_t i = 0; i < 7u; i++)
		out[i] = (uint8_t)(w >> (8u * i));
}

/* Producer: the header words of entry idx (completion c, a line), from its
 * frame, before the entry's meta is posted. */
GNIO_HD void gnio_rx_ring_put_hdr(struct gnio_rx_cqe *c, uint64_t idx, uint32_t size_log2, const uint8_t *frame,
				  uint32_t len)
{
	gnio_hdr_words_put((uint64_t *)c + 2, GNIO_RX_HDR_WORDS, frame, len, gnio_rx_meta_phase(idx, size_log2));
}

/* Does a header word show the phase of entry idx's lap? */
GNIO_HD int gnio_rx_hdr_word_ready(uint64_t w, uint64_t idx, uint32_t size_log2)
{
	return (w & GNIO_RX_META_PHASE) == gnio_rx_meta_phase(idx, size_log2);
}

struct gnio_rx_ring_shared {
	/* Written by the proxy only: count of completions published. The
	 * consumer polls the completions themselves; prod is for the host
	 * (statistics, tests). */
	GNIO_ALIGNED(GNIO_LINE) uint64_t prod;
	/* Written by the consumer only: completions below this index are released,
	 * their slots and pool bytes may be reused by the proxy. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t cons;
};

struct gnio_rx_ring_local {
	/* Consumer-private: next completion to hand out. [cons, head) is the batch
	 * the consumer is working on. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t head;
	uint64_t released; /* last value stored to sh->cons: release only what is new */
	/* 1 when the last receive found every frame it wanted ready at its
	 * first look (it never waited): the producer is ahead of the consumer.
	 * Written with head, by the one thread that writes head. */
	uint32_t full_at_once;
};

/*
 * Watchers (GPU only, gnio_gpu_dev_eth_rxq_watch_*): warps of the consumer's
 * block that poll the ring for it, staggered, so a frame is seen about a
 * poll's round trip divided by the watchers after it lands instead of up to
 * a whole round trip later, and the consumer itself never waits on host
 * memory nor fences at system scope (docs/PERFORMANCE.md, "Echo without
 * fences"). They talk through this struct in shared memory, block scope:
 *
 *   ready_end    watchers raise it (release) once entries below it are
 *                ready and their meta (and inline header) sit in the local
 *                copies; the consumer acquires it.
 *   look_clk     the SM clock at which the latest poll that has answered
 *                was issued (raised after ready_end): a look-once receive
 *                waits for a look issued after it was called.
 *   release_req  the consumer's release mark (entries below are released);
 *                watcher 0 stores it to rx.cons, so the system fence of that
 *                RELEASE(rx.cons) is paid by a watcher, not the consumer.
 *                Causality carries the consumer's earlier stores (hold
 *                marks) along: its release here, the watcher's acquire.
 *   stop         the consumer asks the watchers to leave; running counts
 *                those still there.
 */
struct gnio_rx_watch {
	uint64_t ready_end;
	uint64_t look_clk;
	uint64_t release_req;
	uint32_t stop;
	uint32_t running;
	uint32_t watchers;
};

/* The GPU handle of an RX queue (DOCA: doca_gpu_eth_rxq). Immutable once the
 * queue is started; every pointer is as the consumer sees it. */
struct gnio_gpu_eth_rxq {
	struct gnio_rx_ring_shared *sh;
	struct gnio_rx_ring_local *lc;
	struct gnio_rx_cqe *cqe;
	/* Consumer-local copy of the meta words handed out (device memory), so
	 * reading a frame's address and length after a recv costs no PCIe
	 * round trip. Written by the receive, read by the whole group. */
	uint64_t *meta;
	/* Inline header (NULL when the queue has none): the receive's copy of
	 * each entry's header bytes, 8 words per entry (device memory). */
	uint64_t *hdr_local;
	uint8_t *pool;      /* NULL when no pool was registered: recv says BAD_STATE */
	uint64_t pool_size;
	uint32_t size;      /* entries, power of two */
	uint32_t mask;
	uint32_t size_log2;
	uint32_t slot_size; /* bytes per pool slot (cyclic wires) */
	uint32_t queue_id;
	uint32_t pkt_mkey;  /* key of the RX pool, for sending a frame in place */
	uint32_t cqe_shift; /* log2 of a completion's words: GNIO_RX_CQE_SHIFT or _INLINE_SHIFT */
	/* Shared memory of a kernel that attached watchers to its copy of the
	 * handle (gnio_gpu_dev_eth_rxq_watch_attach), else NULL. */
	struct gnio_rx_watch *watch;
};

/* Completion of entry idx in the array at cqe (either side's view): entries
 * are 1 << cqe_shift words apart. */
GNIO_HD struct gnio_rx_cqe *gnio_rx_cqe_at(struct gnio_rx_cqe *cqe, uint64_t idx, uint32_t mask, uint32_t cqe_shift)
{
	return (struct gnio_rx_cqe *)((uint64_t *)cqe + ((idx & mask) << cqe_shift));
}

/* Consumer: completion of entry idx. */
GNIO_HD struct gnio_rx_cqe *gnio_rx_ring_cqe(const struct gnio_gpu_eth_rxq *q, uint64_t idx)
{
	return gnio_rx_cqe_at(q->cqe, idx, q->mask, q->cqe_shift);
}

/* Consumer: release the batch handed out last time, so the proxy may reuse its
 * entries and pool bytes. Stores only when there is something new: an idle
 * poll loop then writes nothing across PCIe. */
GNIO_HD void gnio_rx_ring_release(const struct gnio_gpu_eth_rxq *q)
{
	struct gnio_rx_ring_local *lc = q->lc;
	if (lc->released == lc->head)
		return;
	lc->released = lc->head;
#if GNIO_ON_GPU
	if (q->watch && !gnio_load_cta_u32(&q->watch->stop)) {
		/* A watcher makes the system-scope store: RELEASE at block
		 * scope to it, which it carries on (struct gnio_rx_watch). */
		gnio_store_release_cta_u64(&q->watch->release_req, lc->head);
		return;
	}
#endif
	/* RELEASE(rx.cons) pairs with the proxy's ACQUIRE(rx.cons) in
	 * gnio_rx_ring_free_slots(): every read of the batch [cons, head) by the
	 * consumer happens before the proxy may overwrite those slots. */
	gnio_store_release_u64(&q->sh->cons, lc->head);
}

/* Consumer: look at up to n completions from idx on, issuing every load
 * before using any (one round trip for all of them). Stores the ready prefix
 * into the local copy and returns its length. The caller follows with
 * gnio_fence_acquire_sys() before it reads a payload. Loads: relaxed on the
 * GPU (acquire on the host: atomics.h), paired with RELEASE(rx.meta) in
 * gnio_rx_ring_post(); the fence completes the acquire. */
/* A GPU thread keeps about four loads of host memory in flight at once
 * (bench/pcie_probe: 4 loads cost one round trip, 16 cost three). */
#define GNIO_RX_SCAN_MAX 4u

/* Consumer: load header pair k (header words 2k and 2k + 1) of entry idx. */
GNIO_HD void gnio_rx_hdr_load_pair(const struct gnio_gpu_eth_rxq *q, uint64_t idx, uint32_t k, uint64_t *a,
				   uint64_t *b)
{
	gnio_load_relaxed_v2_u64((const uint64_t *)gnio_rx_ring_cqe(q, idx) + 2u + (size_t)2u * k, a, b);
}

/* Consumer: keep header word k's 7 bytes in the local copy (bytes
 * 7k..7k+6), for gnio_gpu_dev_eth_rxq_get_pkt_hdr(). */
GNIO_HD void gnio_rx_hdr_keep_word(const struct gnio_gpu_eth_rxq *q, uint64_t idx, uint32_t k, uint64_t w)
{
	gnio_hdr_word_get(w, (uint8_t *)&q->hdr_local[(idx & q->mask) * GNIO_RX_HDR_LOCAL_WORDS] + (size_t)7u * k);
}

/* Word j (0..5) of an entry's local header copy, its bytes 8j..8j+7: the
 * last 7 - j bytes of header word j (cur) then the first j + 1 of word
 * j + 1 (next, 0 past the sixth). A writer holding the header words stores
 * the copy a whole word at a time, one writer per word (the watchers,
 * gnio_store_copy_u64), instead of byte by byte. */
GNIO_HD uint64_t gnio_rx_hdr_local_word(uint32_t j, uint64_t cur, uint64_t next)
{
	return ((cur & GNIO_RX_HDR_DATA_MASK) >> (8u * j)) | ((next & GNIO_RX_HDR_DATA_MASK) << (8u * (7u - j)));
}

/* Consumer: keep header pair k (words 2k and 2k + 1) in the local copy. */
GNIO_HD void gnio_rx_hdr_keep_pair(const struct gnio_gpu_eth_rxq *q, uint64_t idx, uint32_t k, uint64_t a, uint64_t b)
{
	gnio_rx_hdr_keep_word(q, idx, 2u * k, a);
	gnio_rx_hdr_keep_word(q, idx, 2u * k + 1u, b);
}

/* Consumer, after the acquire that handed out entries [first, first + n):
 * copy their headers into the local copy, this member's share of the 3n
 * pairs (consecutive members take the pairs of one entry: one request per
 * entry), four pairs per round trip. skip_first: the waiting poll that found
 * the first entry brought its header already. The loads need no phase
 * check: the release of each meta ordered its header words before it. */
GNIO_HD void gnio_rx_ring_fill_hdr(const struct gnio_gpu_eth_rxq *q, uint64_t first, uint32_t n, uint32_t rank,
				   uint32_t width, int skip_first)
{
	const uint32_t pairs = n * GNIO_RX_HDR_PAIRS;
	for (uint32_t j = rank + (skip_first ? GNIO_RX_HDR_PAIRS : 0u); j < pairs; j += 4u * width) {
		uint64_t a[4], b[4];
		GNIO_UNROLL
		for (uint32_t u = 0; u < 4u; u++)
			if (j + u * width < pairs)
				gnio_rx_hdr_load_pair(q, first + (j + u * width) / GNIO_RX_HDR_PAIRS,
						      (j + u * width) % GNIO_RX_HDR_PAIRS, &a[u], &b[u]);
		GNIO_UNROLL
		for (uint32_t u = 0; u < 4u; u++)
			if (j + u * width < pairs)
				gnio_rx_hdr_keep_pair(q, first + (j + u * width) / GNIO_RX_HDR_PAIRS,
						      (j + u * width) % GNIO_RX_HDR_PAIRS, a[u], b[u]);
	}
}

GNIO_HD uint32_t gnio_rx_ring_scan(const struct gnio_gpu_eth_rxq *q, uint64_t idx, uint32_t n, uint32_t stride)
{
	/* Constant trip counts and no early exit: m[] stays in registers and
	 * the loads do not wait for one another. */
	uint64_t m[GNIO_RX_SCAN_MAX];
	uint32_t ready = 0, stopped = 0;
	GNIO_UNROLL
	for (uint32_t k = 0; k < GNIO_RX_SCAN_MAX; k++)
		m[k] = k < n ? gnio_load_scan_u64(&gnio_rx_ring_cqe(q, idx + (uint64_t)k * stride)->meta) : 0;
	GNIO_UNROLL
	for (uint32_t k = 0; k < GNIO_RX_SCAN_MAX; k++) {
		const uint64_t i = idx + (uint64_t)k * stride;
		stopped |= k >= n || !gnio_rx_meta_ready(m[k], i, q->size_log2);
		if (!stopped) {
			q->meta[i & q->mask] = m[k];
			ready++;
		}
	}
	return ready;
}

/* Consumer: look at entry idx alone, with an acquire load (look_one: the
 * meta word in *meta, ready or not): when it is ready
 * its payload is visible with no fence after. A group that polls one entry
 * per member while it waits uses this (all members load in the same round
 * trip, and the acquire costs no more than a relaxed load: bench/pcie_probe);
 * the fence that the scan needs costs about 0.5 us on the H200, which is on
 * the echo path. Stores the meta word into the local copy. */
GNIO_HD int gnio_rx_ring_look_one(const struct gnio_gpu_eth_rxq *q, uint64_t idx, uint64_t *meta)
{
	/* ACQUIRE(rx.meta): pairs with RELEASE(rx.meta) in gnio_rx_ring_post(). */
	*meta = gnio_load_acquire_u64(&gnio_rx_ring_cqe(q, idx)->meta);
	return gnio_rx_meta_ready(*meta, idx, q->size_log2);
}

GNIO_HD int gnio_rx_ring_poll_one(const struct gnio_gpu_eth_rxq *q, uint64_t idx)
{
	uint64_t m;
	if (!gnio_rx_ring_look_one(q, idx, &m))
		return 0;
	q->meta[idx & q->mask] = m;
	return 1;
}

/* Consumer (one thread): take up to max ready entries. Returns how many,
 * starting at *first; 0 if none. */
GNIO_HD uint32_t gnio_rx_ring_take(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t *first)
{
	struct gnio_rx_ring_local *lc = q->lc;
	uint64_t head = lc->head;
	uint32_t n = 0;
	while (n < max) {
		uint32_t want = max - n < GNIO_RX_SCAN_MAX ? max - n : GNIO_RX_SCAN_MAX;
		uint32_t got = gnio_rx_ring_scan(q, head + n, want, 1);
		n += got;
		if (got < want)
			break;
	}
	gnio_fence_acquire_sys();
	*first = head;
	lc->head = head + n;
	return n;
}

/* Consumer: the meta word of an entry handed out by a receive. */
GNIO_HD uint64_t gnio_rx_ring_meta(const struct gnio_gpu_eth_rxq *q, uint64_t idx) { return q->meta[idx & q->mask]; }

/* Producer (proxy, host): free entries, refreshing the cached consumer index
 * only when the cache says the ring is full. */
GNIO_HD uint32_t gnio_rx_ring_free_slots(struct gnio_rx_ring_shared *sh, uint64_t prod,
					 uint64_t *cached_cons, uint32_t size)
{
	uint64_t used = prod - *cached_cons;
	if (used >= size) {
		/* ACQUIRE(rx.cons): pairs with RELEASE(rx.cons) in gnio_rx_ring_release(). */
		*cached_cons = gnio_load_acquire_u64(&sh->cons);
		used = prod - *cached_cons;
	}
	return (uint32_t)(size - used);
}

/* Producer: make completion c ready. Its ts_ns and the frame's payload were
 * written before. */
GNIO_HD void gnio_rx_ring_post(struct gnio_rx_cqe *c, uint64_t meta)
{
	/* RELEASE(rx.meta): payload and ts_ns before the meta word; pairs with
	 * the consumer's relaxed load plus gnio_fence_acquire_sys() in
	 * gnio_rx_ring_scan()'s callers. */
	gnio_store_release_u64(&c->meta, meta);
}

GNIO_HD void gnio_rx_ring_publish(struct gnio_rx_ring_shared *sh, uint64_t new_prod)
{
	/* RELEASE(rx.prod): for host readers of the count; completions were
	 * posted one by one before. */
	gnio_store_release_u64(&sh->prod, new_prod);
}

/* ---------------------------------------------------------------- TX ---- */

/* TX descriptor flags */
#define GNIO_TX_F_TIMED  0x1u /* hold until send_at_ns (CLOCK_REALTIME) */
#define GNIO_TX_F_NOTIFY 0x2u /* post a completion event to the progress engine */
/* Written without a fence (gnio_tx_ring_write): a hold mark stored before
 * it may land after it, and the TX proxy waits for the mark (tx_proxy.c).
 * Set by the ring, not by senders. */
#define GNIO_TX_F_UNORDERED 0x80u
#define GNIO_TX_F_MASK   0xffu

/*
 * A TX descriptor: four words, two to a 64-byte line. Like an RX completion
 * with an inline header, every word the proxy reads carries in bit 63 the
 * phase of its entry's lap (1 on even laps, 0 on odd ones) and is one
 * single-copy-atomic store, so the proxy knows the descriptor is complete
 * when every word it needs shows this lap, whatever order they landed in.
 *
 *   w0  phase | buffer index (bits 56-59) | GNIO_TX_F_* (bits 48-55) |
 *       frame start, bytes from its buffer's base (bits 0-47)
 *   w1  phase | header bytes (bits 32-37) | frame length (bits 0-31)
 *   w2  phase | send_at_ns (bits 0-62): with GNIO_TX_F_TIMED only
 *   w3  unused
 *
 * A header of up to GNIO_TX_HDR_BYTES that replaces the frame's first bytes
 * on the way out, when w1 says it has one, sits in the entry's line of a
 * second array (desc_hdr, GNIO_TX_HDR_WORDS of 7 bytes each with the phase,
 * as the RX inline header): a send without one touches only the descriptor,
 * and 64-byte descriptors cost the TX proxy a fifth of its rate (fwd 22.3 /
 * 22.9 against 17.9 / 18.1 Mpps on the H200).
 *
 * A sender that wrote payload bytes (or anything else the proxy must see)
 * stores w0 last, with release: RELEASE(tx.desc). A sender that wrote
 * nothing, its changes travelling in the header, stores every word relaxed
 * and needs no fence at all: on the H200 a system-scope fence costs 0.5 us,
 * and 4 us while other warps poll host memory (docs/PERFORMANCE.md, "Echo
 * without fences").
 */
#define GNIO_TX_DESC_WORDS 4u
#define GNIO_TX_HDR_LINE_WORDS 8u /* desc_hdr words per entry: one line */
#define GNIO_TX_HDR_WORDS 5u
#define GNIO_TX_HDR_BYTES 35u
#define GNIO_TX_PHASE (1ull << 63)
#define GNIO_TX_W0_BUF_SHIFT 56
#define GNIO_TX_W0_FLAG_SHIFT 48
#define GNIO_TX_W0_OFF_MASK ((1ull << 48) - 1ull)
#define GNIO_TX_W1_HDR_SHIFT 32

struct gnio_tx_desc {
	uint64_t w[GNIO_TX_DESC_WORDS];
};

/* A complete descriptor as the proxy reads it. */
struct gnio_tx_desc_view {
	uint64_t buf_off;    /* frame start, bytes from its buffer's base */
	uint64_t send_at_ns; /* with GNIO_TX_F_TIMED, else 0 */
	uint32_t len;
	uint32_t flags;      /* GNIO_TX_F_* */
	uint32_t buf;        /* index in the queue's buffer table */
	uint32_t hdr_len;    /* bytes of hdr that replace the frame's first ones */
	uint8_t hdr[GNIO_TX_HDR_WORDS * 7u];
};

struct gnio_tx_ring_shared {
	/* Written by the proxy only: every descriptor below this index has left
	 * (or failed); its ring entry and buffer are free again. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t done;
	/* Written by the proxy only: descriptors that failed to send (bad length,
	 * outside its buffer, wire error). Details go to the progress engine. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t errors;
};

struct gnio_tx_ring_local {
	/* Ticket counter: the next descriptor index to hand to a sender. Only GPU
	 * threads (or CPU-device threads) touch it, with device-scope atomics
	 * (shared queues) or plain accesses (an exclusive queue). */
	GNIO_ALIGNED(GNIO_LINE) uint64_t tail;
	/* Last tx.done some sender read from the host, so the others need not
	 * cross PCIe while the ring has room. Monotonic in practice; a stale
	 * (smaller) value only costs one more read of the real index. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t cached_done;
	/* One past the highest ticket sent with GNIO_TX_F_NOTIFY (device-scope
	 * max): what a completion poll waits for. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t notify_end;
};

/* The slot of a pool with elem_size-byte elements that byte offset off lies
 * in. A shift for power-of-two elements (every pool gnio makes): on the GPU
 * even the 32-bit division is a reciprocal sequence of about 20 dependent
 * instructions, all on a lone sender's path. elem_size is never 0
 * (gnio_buf_arr_create refuses it). */
GNIO_HD uint64_t gnio_slot_of(uint64_t off, uint32_t elem_size)
{
	if ((elem_size & (elem_size - 1u)) == 0u) {
#if GNIO_ON_GPU
		return off >> (__ffs((int)elem_size) - 1);
#else
		return off >> __builtin_ctz(elem_size);
#endif
	}
	/* 32-bit division where it fits: the 64-bit one is a long routine on
	 * the GPU */
	return off >> 32 ? off / elem_size : (uint32_t)off / elem_size;
}

/* In-place holds. Each pool has one word per slot, in pinned host memory:
 *   kernel   : FREE -> SENT  when it sends a received frame from the slot
 *   TX proxy : SENT -> DONE  once the wire no longer needs the bytes
 *   RX proxy : DONE -> FREE  just before it refills the slot
 * Only one agent may write a given word at a time, and each hands it on
 * through an edge that already exists (the descriptor, rx.cons, rx.prod),
 * so no read-modify-write ever crosses PCIe; an unfenced descriptor may
 * overtake the SENT mark, and the TX proxy then waits for the mark
 * (tx_proxy.c). A slot may be sent in place once per
 * reception. */
#define GNIO_HOLD_FREE 0u
#define GNIO_HOLD_SENT 1u
#define GNIO_HOLD_DONE 2u

#define GNIO_TXQ_MAX_BUFS 16

/* A buffer array a TX queue may send from, as the kernel sees it. */
struct gnio_tx_buf {
	uint8_t *base;      /* device view */
	uint64_t size;
	uint32_t *hold;     /* device view of the hold words (RX pools), else NULL */
	uint32_t elem_size;
	uint32_t mkey;      /* the array's key (gnio_buf_arr_get_mkey) */
};

/* The GPU handle of a TX queue (DOCA: doca_gpu_eth_txq). */
struct gnio_gpu_eth_txq {
	struct gnio_tx_ring_shared *sh;
	struct gnio_tx_ring_local *lc;
	struct gnio_tx_desc *desc;
	uint64_t *desc_hdr; /* GNIO_TX_HDR_LINE_WORDS per entry */
	uint32_t size;
	uint32_t mask;
	uint32_t queue_id;
	uint32_t nbufs;     /* 0: nothing registered, every send says BAD_STATE */
	int32_t slot_buf;   /* buffer of the slot-style API (set_pkt_buf), -1 none */
	uint32_t size_log2;
	struct gnio_tx_buf bufs[GNIO_TXQ_MAX_BUFS];
};

/* Do n more descriptors after ticket t fit, with every ticket below done
 * completed? Signed: a stale t (below done) must not look like a full ring. */
GNIO_HD int gnio_tx_ring_fits(const struct gnio_gpu_eth_txq *q, uint64_t t, uint32_t n, uint64_t done)
{
	return (int64_t)(t + n - done) <= (int64_t)q->size;
}

/* Is there room for n more descriptors after ticket t? Refreshes the cached
 * completion index once before saying no. */
GNIO_HD int gnio_tx_ring_room(const struct gnio_gpu_eth_txq *q, uint64_t t, uint32_t n, uint64_t *done)
{
	if (gnio_tx_ring_fits(q, t, n, *done))
		return 1;
	/* ACQUIRE(tx.done) pairs with the proxy's RELEASE(tx.done) in
	 * gnio_tx_ring_complete(): the proxy has finished reading the entries
	 * and buffers we are about to reuse. */
	*done = gnio_load_acquire_u64(&q->sh->done);
	/* RELEASE(tx.cached_done): pairs with ACQUIRE(tx.cached_done) in the
	 * reserve functions; the chain carries the proxy's "done reading" on to
	 * the other senders. */
	gnio_store_release_dev_u64(&q->lc->cached_done, *done);
	return gnio_tx_ring_fits(q, t, n, *done);
}

/* Sender, shared queue: reserve n consecutive tickets with a CAS on the
 * ticket counter, at device scope (any thread of the GPU may send) or, with
 * cta, at block scope (only the threads of one block send). AGAIN when fewer
 * than n entries are free; the caller drains completions (or waits for the
 * proxy) and retries. */
GNIO_HD gnio_error_t gnio_tx_ring_reserve_shared(const struct gnio_gpu_eth_txq *q, uint32_t n, uint64_t *ticket,
						 int cta)
{
	if (GNIO_UNLIKELY(q->nbufs == 0))
		return GNIO_ERROR_BAD_STATE;
	if (GNIO_UNLIKELY(n == 0 || n > q->size))
		return GNIO_ERROR_INVALID_VALUE;
	uint64_t t = gnio_load_relaxed_u64(&q->lc->tail);
	/* ACQUIRE(tx.cached_done): pairs with RELEASE(tx.cached_done) in
	 * gnio_tx_ring_room(). */
	uint64_t done = gnio_load_acquire_dev_u64(&q->lc->cached_done);
	int fresh = 0;
	for (;;) {
		if (!gnio_tx_ring_fits(q, t, n, done)) {
			if (fresh || !gnio_tx_ring_room(q, t, n, &done))
				return GNIO_ERROR_AGAIN;
			fresh = 1;
		}
		if (cta ? gnio_cas_cta_u64(&q->lc->tail, &t, t + n) : gnio_cas_dev_u64(&q->lc->tail, &t, t + n)) {
			*ticket = t;
			return GNIO_SUCCESS;
		}
		fresh = 0; /* t moved on: the ring may need a newer done */
	}
}

GNIO_HD gnio_error_t gnio_tx_ring_reserve(const struct gnio_gpu_eth_txq *q, uint32_t n, uint64_t *ticket)
{
	return gnio_tx_ring_reserve_shared(q, n, ticket, 0);
}

/* Sender, exclusive queue: one agent owns the ticket counter, so a plain
 * read and write replace the CAS. */
GNIO_HD gnio_error_t gnio_tx_ring_reserve_exclusive(const struct gnio_gpu_eth_txq *q, uint32_t n, uint64_t *ticket)
{
	if (GNIO_UNLIKELY(q->nbufs == 0))
		return GNIO_ERROR_BAD_STATE;
	if (GNIO_UNLIKELY(n == 0 || n > q->size))
		return GNIO_ERROR_INVALID_VALUE;
	uint64_t t = q->lc->tail;
	uint64_t done = q->lc->cached_done;
	if (!gnio_tx_ring_room(q, t, n, &done))
		return GNIO_ERROR_AGAIN;
	q->lc->tail = t + n;
	*ticket = t;
	return GNIO_SUCCESS;
}

/* Sender: the buffer holding [addr, addr + len). mkey names the array (either
 * byte order, as DOCA code passes it); 0 means "find it by address". Returns
 * the table index, or -1 (INVALID_VALUE for the caller), and the entry
 * itself in *found: each entry is read whole, its loads issued together,
 * and the send takes the hold words from the copy, not from the table
 * again (a lone sender's path is a chain of dependent loads). */
GNIO_HD int gnio_tx_ring_find_buf_copy(const struct gnio_gpu_eth_txq *q, uint64_t addr, uint32_t mkey, uint64_t len,
				       uint64_t *off, struct gnio_tx_buf *found)
{
	const uint32_t swapped = (mkey >> 24) | ((mkey >> 8) & 0xff00u) | ((mkey << 8) & 0xff0000u) | (mkey << 24);
	const uint32_t nbufs = q->nbufs;
	for (uint32_t i = 0; i < nbufs; i++) {
		const struct gnio_tx_buf b = q->bufs[i];
		const uint64_t base = (uint64_t)(uintptr_t)b.base;
		const int key_ok = !mkey || b.mkey == mkey || b.mkey == swapped;
		if (key_ok && addr >= base && addr - base < b.size && len <= b.size - (addr - base)) {
			*off = addr - base;
			*found = b;
			return (int)i;
		}
	}
	return -1;
}

GNIO_HD int gnio_tx_ring_find_buf(const struct gnio_gpu_eth_txq *q, uint64_t addr, uint32_t mkey, uint64_t len,
				  uint64_t *off)
{
	struct gnio_tx_buf b;
	return gnio_tx_ring_find_buf_copy(q, addr, mkey, len, off, &b);
}

/* Sender: the hold word of the RX slot at off in buffer b, or NULL when b is
 * not an RX pool. */
GNIO_HD uint32_t *gnio_tx_buf_hold_word(const struct gnio_tx_buf *b, uint64_t off)
{
	return b->hold ? &b->hold[gnio_slot_of(off, b->elem_size)] : NULL;
}

/* Sender: an RX slot is about to leave in place: mark it, so the RX proxy
 * does not refill it before the TX side is done. Plain store: it is published
 * to the RX proxy by the consumer's later RELEASE(rx.cons). The TX proxy may
 * find the descriptor before the mark when nothing ordered them (a send
 * that wrote no bytes): it waits for the mark before it marks the slot done
 * (tx_proxy.c, hold_done). */
GNIO_HD void gnio_tx_ring_hold(const struct gnio_gpu_eth_txq *q, uint32_t buf, uint64_t off)
{
	uint32_t *hold = gnio_tx_buf_hold_word(&q->bufs[buf], off);
	if (hold)
		gnio_store_relaxed_u32(hold, GNIO_HOLD_SENT);
}

/* Sender: fill descriptor `ticket`. ordered: bytes this thread wrote before
 * (payload, hold mark) reach the proxy first; bytes written by other threads
 * must be ordered before the call by the caller (e.g. __syncthreads()).
 * Unordered: nothing is fenced; for a sender that wrote no payload bytes.
 * hdr_len <= GNIO_TX_HDR_BYTES (the caller checks). hold: the RX slot's hold
 * word to mark first (gnio_tx_buf_hold_word), or NULL. */
GNIO_HD void gnio_tx_ring_write_held(const struct gnio_gpu_eth_txq *q, uint64_t ticket, uint32_t *hold, uint32_t buf,
				     uint64_t buf_off, uint32_t len, uint32_t flags, uint64_t send_at_ns,
				     const uint8_t *hdr, uint32_t hdr_len, int ordered)
{
	/* The handle's fields first, all loads before the first store: each
	 * store's "memory" clobber would make the compiler load them again
	 * after it, one dependent load more on a lone sender's path. */
	const size_t entry = (size_t)(ticket & q->mask);
	uint64_t *const w = q->desc[entry].w;
	uint64_t *const hdr_lines = q->desc_hdr;
	const uint64_t phase = gnio_rx_meta_phase(ticket, q->size_log2);
	if (hold)
		gnio_store_relaxed_u32(hold, GNIO_HOLD_SENT); /* see gnio_tx_ring_hold() */
	flags = (flags & ~GNIO_TX_F_UNORDERED) | (ordered ? 0u : GNIO_TX_F_UNORDERED);
	/* Only the words the length needs: the proxy reads no more
	 * (gnio_tx_ring_read), and each store to host memory is time a send
	 * spends (bench/pcie_probe). */
	if (hdr_len)
		gnio_hdr_words_put(hdr_lines + entry * GNIO_TX_HDR_LINE_WORDS, (hdr_len + 6u) / 7u, hdr, hdr_len, phase);
	if (flags & GNIO_TX_F_TIMED)
		gnio_store_relaxed_u64(&w[2], phase | (send_at_ns & ~GNIO_TX_PHASE));
	gnio_store_relaxed_u64(&w[1], phase | ((uint64_t)hdr_len << GNIO_TX_W1_HDR_SHIFT) | len);
	const uint64_t w0 = phase | ((uint64_t)(buf & 15u) << GNIO_TX_W0_BUF_SHIFT) |
			    ((uint64_t)(flags & GNIO_TX_F_MASK) << GNIO_TX_W0_FLAG_SHIFT) | (buf_off & GNIO_TX_W0_OFF_MASK);
#if GNIO_ON_GPU
	if (!ordered) {
		/* Every word carries its phase: nothing to order. */
		gnio_store_relaxed_u64(&w[0], w0);
		return;
	}
#else
	(void)ordered; /* a release costs nothing on the host, and ThreadSanitizer follows it */
#endif
	/* RELEASE(tx.desc): payload, hold mark and the other words before w0;
	 * pairs with ACQUIRE(tx.desc) in gnio_tx_ring_read(). */
	gnio_store_release_u64(&w[0], w0);
}

GNIO_HD void gnio_tx_ring_write(const struct gnio_gpu_eth_txq *q, uint64_t ticket, uint32_t buf, uint64_t buf_off,
				uint32_t len, uint32_t flags, uint64_t send_at_ns, const uint8_t *hdr,
				uint32_t hdr_len, int ordered)
{
	gnio_tx_ring_write_held(q, ticket, NULL, buf, buf_off, len, flags, send_at_ns, hdr, hdr_len, ordered);
}

/* Sender: the plain form, no header. */
GNIO_HD void gnio_tx_ring_commit(const struct gnio_gpu_eth_txq *q, uint64_t ticket, uint32_t buf, uint64_t buf_off,
				 uint32_t len, uint32_t flags, uint64_t send_at_ns)
{
	gnio_tx_ring_write(q, ticket, buf, buf_off, len, flags, send_at_ns, NULL, 0, 1);
}

GNIO_HD void gnio_tx_desc_decode_w0(uint64_t w0, struct gnio_tx_desc_view *v)
{
	v->buf_off = w0 & GNIO_TX_W0_OFF_MASK;
	v->flags = (uint32_t)(w0 >> GNIO_TX_W0_FLAG_SHIFT) & GNIO_TX_F_MASK;
	v->buf = (uint32_t)(w0 >> GNIO_TX_W0_BUF_SHIFT) & 15u;
}

/* Proxy: descriptor idx, if complete, into *v (1), else 0. hdr_ring: the
 * queue's desc_hdr array. */
GNIO_HD int gnio_tx_ring_read(const struct gnio_tx_desc *ring, const uint64_t *hdr_ring, uint32_t mask,
			      uint32_t size_log2, uint64_t idx, struct gnio_tx_desc_view *v)
{
	const uint64_t *w = ring[idx & mask].w;
	const uint64_t phase = gnio_rx_meta_phase(idx, size_log2);
	/* ACQUIRE(tx.desc): pairs with the store of w0 in gnio_tx_ring_write()
	 * (a release when the sender wrote bytes before it). */
	const uint64_t w0 = gnio_load_acquire_u64(&w[0]);
	if ((w0 & GNIO_TX_PHASE) != phase)
		return 0;
	const uint64_t w1 = gnio_load_acquire_u64(&w[1]);
	if ((w1 & GNIO_TX_PHASE) != phase)
		return 0;
	gnio_tx_desc_decode_w0(w0, v);
	v->len = (uint32_t)w1;
	v->hdr_len = (uint32_t)(w1 >> GNIO_TX_W1_HDR_SHIFT) & 63u;
	v->send_at_ns = 0;
	if (v->flags & GNIO_TX_F_TIMED) {
		const uint64_t w2 = gnio_load_acquire_u64(&w[2]);
		if ((w2 & GNIO_TX_PHASE) != phase)
			return 0;
		v->send_at_ns = w2 & ~GNIO_TX_PHASE;
	}
	/* at most the words a descriptor holds: a longer header is refused later */
	const uint32_t hw = v->hdr_len < GNIO_TX_HDR_BYTES ? (v->hdr_len + 6u) / 7u : GNIO_TX_HDR_WORDS;
	const uint64_t *hw_line = hdr_ring + (size_t)(idx & mask) * GNIO_TX_HDR_LINE_WORDS;
	for (uint32_t k = 0; k < hw; k++) {
		const uint64_t h = gnio_load_acquire_u64(&hw_line[k]);
		if ((h & GNIO_TX_PHASE) != phase)
			return 0;
		gnio_hdr_word_get(h, &v->hdr[(size_t)7u * k]);
	}
	return 1;
}

/* Proxy: where a descriptor already read (and not yet completed) points. */
GNIO_HD void gnio_tx_ring_peek(const struct gnio_tx_desc *ring, uint32_t mask, uint64_t idx,
			       struct gnio_tx_desc_view *v)
{
	gnio_tx_desc_decode_w0(gnio_load_relaxed_u64(&ring[idx & mask].w[0]), v);
}

/* Proxy: descriptors below new_done are sent and their slots may be reused. */
GNIO_HD void gnio_tx_ring_complete(struct gnio_tx_ring_shared *sh, uint64_t new_done)
{
	/* RELEASE(tx.done): the proxy's reads of those slots happen before;
	 * pairs with ACQUIRE(tx.done) in gnio_tx_ring_room() and completions. */
	gnio_store_release_u64(&sh->done, new_done);
}

/* Sender, after AGAIN: the completion count the failed reservation saw (it
 * refreshed the cached copy), to wait for it to move. Device memory: no
 * PCIe read. */
GNIO_HD uint64_t gnio_tx_ring_seen_done(const struct gnio_gpu_eth_txq *q)
{
	return gnio_load_acquire_dev_u64(&q->lc->cached_done);
}

GNIO_HD uint64_t gnio_tx_ring_done(const struct gnio_gpu_eth_txq *q)
{
	/* ACQUIRE(tx.done): pairs with RELEASE(tx.done) in gnio_tx_ring_complete(). */
	return gnio_load_acquire_u64(&q->sh->done);
}

/* TX proxy: the wire is done with a slot sent in place. */
GNIO_HD void gnio_hold_done(uint32_t *hold_word)
{
	/* RELEASE(hold): the proxy's (and wire's) reads of the frame happen
	 * before; pairs with ACQUIRE(hold) in gnio_hold_check(). */
	gnio_store_release_u32(hold_word, GNIO_HOLD_DONE);
}

/* RX proxy, for a released entry's slot: 1 when it may be refilled (never
 * sent, or sent and done: then it is reset to FREE), 0 while in flight. */
GNIO_HD int gnio_hold_check(uint32_t *hold_word)
{
	/* ACQUIRE(hold): pairs with RELEASE(hold) in gnio_hold_done(). The
	 * kernel's SENT store was published by RELEASE(rx.cons), which the RX
	 * proxy acquired before it looked at this released entry. */
	uint32_t h = gnio_load_acquire_u32(hold_word);
	if (h == GNIO_HOLD_FREE)
		return 1;
	if (h != GNIO_HOLD_DONE)
		return 0;
	/* Relaxed: the RX proxy's later RELEASE(rx.prod) publishes it before the
	 * kernel can see (and hold) the slot again. */
	gnio_store_relaxed_u32(hold_word, GNIO_HOLD_FREE);
	return 1;
}

#endif /* GNIO_IMPL_RING_H */
