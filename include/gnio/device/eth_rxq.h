/* SPDX-License-Identifier: MIT */
/*
 * gnio/device/eth_rxq.h - receive inside a persistent kernel (DOCA:
 * doca_gpunetio_dev_eth_rxq.cuh). One consumer per queue: a thread, a warp
 * or a block owns it.
 *
 * A receive returns (first index, count) of consecutive new frames. It ends
 * when it has max_rx_pkts frames or when timeout_ns has passed since it began:
 *   max_rx_pkts == 0  no count limit (at most the ring's size in one call);
 *   timeout_ns == 0   no time limit: wait for max_rx_pkts frames;
 *   both 0            INVALID_VALUE (DOCA would never return);
 *   timeout_ns == 1   look once: take what is there, up to max_rx_pkts.
 * It never returns early on a short queue except at the deadline. Frames of a
 * batch stay valid until the consumer releases them: explicitly with
 * gnio_gpu_dev_eth_rxq_release_*, or implicitly by the next receive.
 *
 * In C++ (CUDA) each call is a template whose parameters mirror DOCA's and
 * default to the same values; in C (the CPU device) they are plain functions
 * with the same arguments, where a non-NULL out_attr asks for attributes.
 * On the CPU device the warp and block forms are the thread form.
 */
#ifndef GNIO_DEVICE_ETH_RXQ_H
#define GNIO_DEVICE_ETH_RXQ_H

#include "../impl/ring.h"
#include "eth_def.h"
#include "time.h"
#if !GNIO_ON_GPU
#include <sched.h>
#endif

/* ------------------------------------------------------- implementation -- */

/* Checks and the clamp every receive applies. */
GNIO_DEV gnio_error_t gnio_rxq_recv_check(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					  uint32_t *want)
{
	if (GNIO_UNLIKELY(q->pool == NULL))
		return GNIO_ERROR_BAD_STATE; /* no payload pool was registered */
	if (GNIO_UNLIKELY(max == 0 && timeout_ns == 0))
		return GNIO_ERROR_INVALID_VALUE;
	*want = (max == 0 || max > q->size) ? q->size : max;
	return GNIO_SUCCESS;
}

/* Whether a receive that has n of want goes on polling: not when full, not
 * for a look-once (timeout 1), not past the timeout. *start is set on the
 * first call that has to wait. */
GNIO_DEV int gnio_rxq_keep_polling(uint32_t n, uint32_t want, uint64_t timeout_ns, uint64_t *start)
{
	if (n >= want || timeout_ns == 1)
		return 0;
	uint64_t now = gnio_gpu_dev_time_ns();
	if (!*start)
		*start = now;
	else if (timeout_ns && now - *start >= timeout_ns)
		return 0;
	return 1;
}

/* The thread form (and every form on the CPU device): this thread polls the
 * completions, GNIO_RX_SCAN_MAX at a time. */
GNIO_DEV gnio_error_t gnio_rxq_recv_one(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					uint64_t *first, uint32_t *count)
{
	uint32_t want, n = 0;
	*count = 0;
	*first = GNIO_GPUNETIO_ETH_RX_NO_PKT;
	gnio_error_t err = gnio_rxq_recv_check(q, max, timeout_ns, &want);
	if (err != GNIO_SUCCESS)
		return err;
	/* The previous batch goes back first: whatever the consumer still had. */
	gnio_rx_ring_release(q);
	struct gnio_rx_ring_local *lc = q->lc;
	const uint64_t head = lc->head;
	uint64_t start = 0;
#if !GNIO_ON_GPU
	unsigned spins = 0;
#endif
	for (;;) {
		while (n < want) {
			uint32_t w = want - n < GNIO_RX_SCAN_MAX ? want - n : GNIO_RX_SCAN_MAX;
			uint32_t got = gnio_rx_ring_scan(q, head + n, w, 1);
			n += got;
			if (got < w)
				break;
		}
		if (!gnio_rxq_keep_polling(n, want, timeout_ns, &start))
			break;
		gnio_cpu_relax();
#if !GNIO_ON_GPU
		/* A CPU-device kernel shares cores with the proxies that feed
		 * it: after a short spin, let them run. */
		if (++spins > 64)
			sched_yield();
#endif
	}
	/* Completes the acquire of every completion scanned: their payload
	 * bytes are visible to what follows. Nothing found, nothing to order. */
	if (n)
		gnio_fence_acquire_sys();
	if (q->hdr_local)
		gnio_rx_ring_fill_hdr(q, head, n, 0, 1, 0);
	lc->head = head + n;
	lc->full_at_once = n == want && !start;
	if (n)
		*first = head;
	*count = n;
	return GNIO_SUCCESS;
}

/* Attributes of frames [first, first + n), this thread's share. */
GNIO_DEV void gnio_rxq_fill_attr(const struct gnio_gpu_eth_rxq *q, uint64_t first, uint32_t n,
				 struct gnio_gpu_dev_eth_rxq_attr *attr, uint32_t start, uint32_t step)
{
	for (uint32_t i = start; i < n; i += step) {
		attr[i].timestamp_ns = gnio_rx_ring_cqe(q, first + i)->ts_ns;
		attr[i].bytes = gnio_rx_meta_len(gnio_rx_ring_meta(q, first + i));
		attr[i].padding = 0;
	}
}

#if GNIO_ON_GPU
GNIO_DEV gnio_error_t gnio_rxq_recv_watched(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					    uint64_t *first, uint32_t *count, struct gnio_gpu_dev_eth_rxq_attr *attr,
					    uint32_t rank, uint32_t width);
#endif

GNIO_DEV gnio_error_t gnio_rxq_recv_thread_impl(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
						uint64_t *first, uint32_t *count,
						struct gnio_gpu_dev_eth_rxq_attr *attr)
{
#if GNIO_ON_GPU
	if (q->watch)
		return gnio_rxq_recv_watched(q, max, timeout_ns, first, count, attr, 0, 1);
#endif
	gnio_error_t err = gnio_rxq_recv_one(q, max, timeout_ns, first, count);
	if (attr && *count)
		gnio_rxq_fill_attr(q, *first, *count, attr, 0, 1);
	return err;
}

#if GNIO_ON_GPU
/* Completions each member of a group scans per poll once frames flow: a
 * warp looks at 128, a block of 256 threads at 1024, in one PCIe round trip
 * (a thread keeps about four loads in flight). */
#define GNIO_RX_GROUP_SCAN 4u
/* The first poll of a receive on a queue with an inline header spends
 * seven more members on the first entry's line (gnio_rxq_scan_member). */
#define GNIO_RX_HDR_POLL_EXTRA 7u

/* This member's part of one poll of the group: entries [base, base + range)
 * with stride `width`. Returns the first entry it found not ready (relative
 * to base), or range when all its entries were ready. A member with one
 * entry (range <= width: the group is waiting) loads it with acquire, so a
 * receive made of such polls needs no fence; several entries are loaded
 * relaxed, all in flight at once, and the receive fences after them.
 * first: the receive has found nothing yet. watcher: a watcher warp polls
 * (first set): it keeps the header itself, from the words this returns in
 * *word (gnio_rxq_watch_keep_hdr), and its meta copies are
 * gnio_store_copy_u64 stores; NULL for the consumer's own polls. */
GNIO_DEV uint32_t gnio_rxq_scan_member(const struct gnio_gpu_eth_rxq *q, uint64_t base, uint32_t range,
				       uint32_t rank, uint32_t width, int first, uint64_t *watcher)
{
	/* A poll of a receive that has nothing yet, on a queue with an
	 * inline header (a group of a warp or more; the caller keeps range
	 * <= width - GNIO_RX_HDR_POLL_EXTRA): members 0-7 load the eight words
	 * of the first entry's line, member r >= 8 the meta of entry r - 7,
	 * every one with acquire and, in the first warp, in one instruction,
	 * so the poll stays one round trip and still looks at `range` entries
	 * (bench/pcie_probe: lanes loading a piece each in one instruction
	 * make one request, while a thread's second load of a line waits for
	 * its first). Every header word carries its lap's phase, so a word not
	 * yet this lap's makes the first entry not ready; each meta's acquire
	 * orders its payload as before (docs/PERFORMANCE.md, "Inline
	 * header"). */
	if (first && q->hdr_local && width >= 32u) {
		const uint32_t entry = rank < 8u ? 0u : rank - (8u - 1u);
		if (rank == 1u || entry >= range)
			return range; /* the timestamp word, or past the range */
		const uint64_t idx = base + entry;
		const uint64_t *line = (const uint64_t *)gnio_rx_ring_cqe(q, idx);
		/* ACQUIRE(rx.meta), and the header words: each pairs with the
		 * producer's stores in gnio_rx_ring_post() / _put_hdr(). */
		const uint64_t w = gnio_load_acquire_u64(line + (rank < 8u ? rank : 0u));
		if (watcher)
			*watcher = w;
		if (rank >= 2u && rank < 8u) {
			if (!gnio_rx_hdr_word_ready(w, idx, q->size_log2))
				return 0;
			if (!watcher)
				gnio_rx_hdr_keep_word(q, idx, rank - 2u, w);
			return range;
		}
		if (!gnio_rx_meta_ready(w, idx, q->size_log2))
			return entry;
		if (watcher)
			gnio_store_copy_u64(&q->meta[idx & q->mask], w);
		else
			q->meta[idx & q->mask] = w;
		return range;
	}
	uint32_t r = range;
	if (rank < range) {
		if (range <= width && watcher) {
			uint64_t m;
			const int ready = gnio_rx_ring_look_one(q, base + rank, &m);
			if (ready)
				gnio_store_copy_u64(&q->meta[(base + rank) & q->mask], m);
			r = ready ? range : rank;
		} else if (range <= width) {
			r = gnio_rx_ring_poll_one(q, base + rank) ? range : rank;
		} else {
			uint32_t mine = (range - rank + width - 1u) / width; /* entries of this member */
			uint32_t ready = gnio_rx_ring_scan(q, base + rank, mine, width);
			r = ready == mine ? range : rank + ready * width;
		}
	}
	return r;
}

GNIO_DEV uint32_t gnio_warp_min_u32(uint32_t v)
{
	for (uint32_t o = 16; o; o >>= 1) {
		uint32_t w = __shfl_xor_sync(0xffffffffu, v, o);
		v = w < v ? w : v;
	}
	return v;
}

/* ------------------------------------------------------------ watchers -- */

/* How long watcher 0 lets a release wait for more before it stores it
 * (SM cycles, about 25 us): slots come back that soon at a trickle. */
#define GNIO_RX_WATCH_RELEASE_CYCLES 50000ll

/* A watcher warp keeps the header of entry idx, whose six words lanes 2-7
 * hold in w: lanes 0-5 each build one word of the local copy from the two
 * header words it straddles and store it whole, so no two lanes write one
 * word (in shared memory each store is an atomic, and atomics on one word
 * would run one after another). Every lane calls. */
GNIO_DEV void gnio_rxq_watch_keep_hdr(const struct gnio_gpu_eth_rxq *q, uint64_t idx, uint32_t lane, uint64_t w)
{
	const uint32_t j = lane < GNIO_RX_HDR_WORDS ? lane : 0u;
	const uint64_t cur = __shfl_sync(0xffffffffu, w, 2u + j);
	const uint64_t next = __shfl_sync(0xffffffffu, w, 3u + j);
	if (lane < GNIO_RX_HDR_WORDS)
		gnio_store_copy_u64(&q->hdr_local[(idx & q->mask) * GNIO_RX_HDR_LOCAL_WORDS + j],
				    gnio_rx_hdr_local_word(j, cur, j + 1u < GNIO_RX_HDR_WORDS ? next : 0));
}

/* A watcher warp keeps the headers of entries [first, first + n), handed
 * out and acquired already: lanes 0-29 are ten entries' three pairs each
 * (lane 3e + p loads words 2p and 2p + 1 of entry e), four rounds of that
 * in flight at once; a lane stores the copy's words 2p and 2p + 1, the
 * second with the first word of the next lane's pair. Every lane calls. */
GNIO_DEV void gnio_rxq_watch_fill_hdr(const struct gnio_gpu_eth_rxq *q, uint64_t first, uint32_t n, uint32_t lane)
{
	const uint32_t entry = lane / GNIO_RX_HDR_PAIRS, pair = lane % GNIO_RX_HDR_PAIRS;
	const uint32_t per_round = 32u / GNIO_RX_HDR_PAIRS; /* 10 entries */
	for (uint32_t e0 = 0; e0 < n; e0 += 4u * per_round) {
		uint64_t a[4], b[4];
		GNIO_UNROLL
		for (uint32_t u = 0; u < 4u; u++) {
			const uint32_t e = e0 + u * per_round + entry;
			a[u] = b[u] = 0;
			if (entry < per_round && e < n)
				gnio_rx_hdr_load_pair(q, first + e, pair, &a[u], &b[u]);
		}
		GNIO_UNROLL
		for (uint32_t u = 0; u < 4u; u++) {
			const uint32_t e = e0 + u * per_round + entry;
			const uint64_t after = __shfl_down_sync(0xffffffffu, a[u], 1);
			if (entry < per_round && e < n) {
				uint64_t *copy = &q->hdr_local[((first + e) & q->mask) * GNIO_RX_HDR_LOCAL_WORDS];
				gnio_store_copy_u64(&copy[2u * pair], gnio_rx_hdr_local_word(2u * pair, a[u], b[u]));
				gnio_store_copy_u64(&copy[2u * pair + 1u],
						    gnio_rx_hdr_local_word(2u * pair + 1u, b[u],
									   pair + 1u < GNIO_RX_HDR_PAIRS ? after : 0));
			}
		}
	}
}

/* One poll of a watcher warp from entry base: with an inline header, lanes
 * 0-7 load the first entry's line and lanes 8-31 the metas of the next 24,
 * else every lane one entry's meta; all with acquire, in one instruction
 * (one round trip). Ready entries' metas (and the first one's header) go to
 * the local copies. Returns how many entries from base are ready, the same
 * in every lane. range stays within the ring's size: a longer look could
 * take an entry of two laps ago for this lap's (same phase). */
GNIO_DEV uint32_t gnio_rxq_watch_poll(const struct gnio_gpu_eth_rxq *q, uint64_t base, uint32_t lane)
{
	const uint32_t span = q->hdr_local ? 32u - GNIO_RX_HDR_POLL_EXTRA : 32u;
	const uint32_t range = span < q->size ? span : q->size;
	uint64_t w = 0;
	const uint32_t r = gnio_warp_min_u32(gnio_rxq_scan_member(q, base, range, lane, 32u, 1, &w));
	if (r && q->hdr_local)
		gnio_rxq_watch_keep_hdr(q, base, lane, w);
	return r;
}

/* Attach watchers to the kernel's shared copy of an RX handle whose state
 * is already in shared memory (gnio_gpu_dev_eth_rxq_state_to_shared); one
 * thread, before a barrier of the whole block. */
GNIO_DEV void gnio_rxq_watch_attach_impl(struct gnio_gpu_eth_rxq *copy, struct gnio_rx_watch *w, uint32_t watchers)
{
	w->ready_end = copy->lc->head;
	w->look_clk = 0;
	w->release_req = copy->lc->released;
	w->stop = 0;
	w->running = watchers;
	w->watchers = watchers;
	copy->watch = w;
}

/* Watcher 0, one lane: store the consumer's release mark to rx.cons when it
 * moved, and `now` says so or it waited long enough: a system fence here
 * holds this watcher for about 4 us while the others poll, so releases go
 * in steps of a quarter ring, or what waited GNIO_RX_WATCH_RELEASE_CYCLES. */
GNIO_DEV void gnio_rxq_watch_publish(const struct gnio_gpu_eth_rxq *q, uint64_t *published, long long *published_clk,
				     int now)
{
	const uint64_t want = gnio_load_acquire_cta_u64(&q->watch->release_req);
	if (want == *published)
		return;
	if (!now && want - *published < (q->size >> 2) && clock64() - *published_clk < GNIO_RX_WATCH_RELEASE_CYCLES)
		return;
	*published = want;
	*published_clk = clock64();
	/* RELEASE(rx.cons), for the consumer: pairs with the proxy's
	 * ACQUIRE(rx.cons). The consumer's RELEASE of release_req, acquired
	 * above, orders its reads of the batch and its hold marks before
	 * this store. */
	gnio_store_release_u64(&q->sh->cons, want);
}

/* A watcher warp's loop (all 32 lanes), until the consumer stops it. Each
 * watcher times its first poll and starts its rounds rank / watchers of a
 * round trip after watcher 0's; as every round is one round trip, they stay
 * spread out. */
GNIO_DEV void gnio_rxq_watch_run_impl(const struct gnio_gpu_eth_rxq *q, uint32_t rank)
{
	struct gnio_rx_watch *w = q->watch;
	const uint32_t lane = threadIdx.x & 31u;
	uint64_t published = gnio_load_acquire_cta_u64(&w->release_req); /* watcher 0's: what rx.cons holds */
	long long published_clk = clock64();
	for (int first = 1;; first = 0) {
		if (gnio_load_cta_u32(&w->stop))
			break;
		if (rank == 0 && lane == 0)
			gnio_rxq_watch_publish(q, &published, &published_clk, 0);
		uint64_t base = 0;
		if (lane == 0)
			base = gnio_load_acquire_cta_u64(&w->ready_end);
		base = __shfl_sync(0xffffffffu, base, 0);
		const long long issued = clock64();
		const uint32_t r = gnio_rxq_watch_poll(q, base, lane);
		if (r) {
			/* The first entry's header came with the poll: publish it
			 * at once (a ping-pong has one frame). The others' headers
			 * are loaded first, one more round trip, by this warp. */
			__syncwarp(); /* every lane's copies written */
			if (lane == 0)
				gnio_max_release_cta_u64(&w->ready_end, base + 1);
			if (r > 1) {
				if (q->hdr_local)
					gnio_rxq_watch_fill_hdr(q, base + 1, r - 1, lane);
				__syncwarp();
				if (lane == 0)
					gnio_max_release_cta_u64(&w->ready_end, base + r);
			}
		}
		if (lane == 0)
			gnio_max_release_cta_u64(&w->look_clk, (uint64_t)issued);
		if (first && rank) {
			/* stagger: rank / watchers of this poll's round trip later */
			const long long rtt = clock64() - issued;
			const long long until = clock64() + rtt * (long long)rank / (long long)w->watchers;
			while (clock64() < until)
				;
		}
	}
	if (rank == 0 && lane == 0)
		gnio_rxq_watch_publish(q, &published, &published_clk, 1); /* the last one asked for */
	__syncwarp();
	if (lane == 0)
		atomicSub_block(&w->running, 1u);
}

/* The consumer, one thread: stop the watchers and wait until they have left
 * (the last release they were asked for is stored). Receives and releases
 * after it poll and store themselves. */
GNIO_DEV void gnio_rxq_watch_stop_impl(const struct gnio_gpu_eth_rxq *q)
{
	struct gnio_rx_watch *w = q->watch;
	gnio_store_cta_u32(&w->stop, 1u);
	while (gnio_load_cta_u32(&w->running))
		__nanosleep(100);
	__threadfence_block();
}

/* A receive on a watched queue: the watchers poll, this group (a thread,
 * or a warp whose lanes all call) waits on shared memory. Same results as
 * the receive that polls itself; a look-once receive (timeout 1) takes what
 * a look issued after the call found. */
GNIO_DEV gnio_error_t gnio_rxq_recv_watched(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					    uint64_t *first, uint32_t *count, struct gnio_gpu_dev_eth_rxq_attr *attr,
					    uint32_t rank, uint32_t width)
{
	struct gnio_rx_watch *w = q->watch;
	const unsigned all = 0xffffffffu;
	uint32_t want, n = 0;
	*first = GNIO_GPUNETIO_ETH_RX_NO_PKT;
	*count = 0;
	gnio_error_t err = gnio_rxq_recv_check(q, max, timeout_ns, &want);
	if (err != GNIO_SUCCESS)
		return err;
	if (width > 1)
		__syncwarp();
	if (rank == 0)
		gnio_rx_ring_release(q); /* through the watchers */
	const uint64_t head = q->lc->head; /* read by every lane before lane 0 moves it */
	long long call = clock64();
	uint64_t start = 0;
	for (;;) {
		uint64_t look = 0, end = 0;
		int more = 0;
		if (rank == 0) {
			/* look_clk before ready_end: a look at or after the call
			 * has its findings in ready_end already */
			look = gnio_load_acquire_cta_u64(&w->look_clk);
			end = gnio_load_acquire_cta_u64(&w->ready_end);
			n = end - head >= want ? want : (uint32_t)(end - head);
			if (n < want)
				more = timeout_ns == 1 ? (long long)look < call
						       : gnio_rxq_keep_polling(n, want, timeout_ns, &start);
		}
		if (width > 1) {
			more = __shfl_sync(all, more, 0);
			n = __shfl_sync(all, n, 0);
		}
		if (!more)
			break;
	}
	if (width > 1)
		__syncwarp();
	if (rank == 0) {
		q->lc->head = head + n;
		q->lc->full_at_once = n == want && !start;
	}
	if (attr && n)
		gnio_rxq_fill_attr(q, head, n, attr, rank, width);
	*first = n ? head : GNIO_GPUNETIO_ETH_RX_NO_PKT;
	*count = n;
	if (width > 1)
		__syncwarp();
	return GNIO_SUCCESS;
}

/* All 32 lanes call and poll together; every lane gets the same result and
 * fills its share of the attributes. The previous batch is released only
 * once every lane is here. */
GNIO_DEV gnio_error_t gnio_rxq_recv_warp_impl(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					      uint64_t *first, uint32_t *count,
					      struct gnio_gpu_dev_eth_rxq_attr *attr)
{
	const uint32_t lane = threadIdx.x & 31u;
	if (q->watch)
		return gnio_rxq_recv_watched(q, max, timeout_ns, first, count, attr, lane, 32u);
	uint32_t want, n = 0;
	*first = GNIO_GPUNETIO_ETH_RX_NO_PKT;
	*count = 0;
	gnio_error_t err = gnio_rxq_recv_check(q, max, timeout_ns, &want);
	if (err != GNIO_SUCCESS)
		return err;
	__syncwarp();
	if (lane == 0)
		gnio_rx_ring_release(q);
	const uint64_t head = q->lc->head; /* read by every lane before lane 0 moves it */
	uint64_t start = 0;
	uint32_t per = 1; /* entries per lane and poll: one while waiting, more once frames flow */
	int scanned = 0;  /* a poll loaded several entries per lane, relaxed: fence after */
	int hdr_first = 0; /* the poll that found the first frame brought its header */
	for (;;) {
		while (n < want) {
			const int header_poll = n == 0 && q->hdr_local;
			const uint32_t span = header_poll ? 32u - GNIO_RX_HDR_POLL_EXTRA : 32u * per;
			uint32_t range = want - n < span ? want - n : span;
			scanned |= range > 32u;
			uint32_t got = gnio_warp_min_u32(gnio_rxq_scan_member(q, head + n, range, lane, 32u, n == 0, NULL));
			hdr_first |= header_poll && got;
			n += got;
			if (got < range)
				break;
			per = GNIO_RX_GROUP_SCAN;
		}
		/* lane 0's clock decides, so the warp stays together */
		int more = 0;
		if (lane == 0)
			more = gnio_rxq_keep_polling(n, want, timeout_ns, &start);
		if (!__shfl_sync(0xffffffffu, more, 0))
			break;
		gnio_cpu_relax();
	}
	if (scanned)
		gnio_fence_acquire_sys();
	/* every lane's local meta copies are written; the acquires of one
	 * lane order the frames' bytes for all (the barrier orders memory) */
	__syncwarp();
	if (q->hdr_local)
		gnio_rx_ring_fill_hdr(q, head, n, lane, 32, hdr_first);
	if (lane == 0) {
		q->lc->head = head + n;
		q->lc->full_at_once = n == want && !start; /* lane 0's clock decided */
	}
	if (attr && n)
		gnio_rxq_fill_attr(q, head, n, attr, lane, 32);
	*first = n ? head : GNIO_GPUNETIO_ETH_RX_NO_PKT;
	*count = n;
	__syncwarp(); /* outputs and attributes written before any lane reads them */
	return GNIO_SUCCESS;
}

/* Every thread of the block polls; all threads must call it. The outputs
 * may point to __shared__ variables (as DOCA's block receive needs, written
 * by thread 0 only) or to each thread's own variables; a barrier ends the
 * call. */
GNIO_DEV gnio_error_t gnio_rxq_recv_block_impl(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					       uint64_t *first, uint32_t *count,
					       struct gnio_gpu_dev_eth_rxq_attr *attr)
{
	__shared__ uint32_t s_min, s_more;
	__shared__ uint64_t s_head;
	const uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	const uint32_t nthr = blockDim.x * blockDim.y * blockDim.z;
	uint32_t want, n = 0;
	gnio_error_t err = gnio_rxq_recv_check(q, max, timeout_ns, &want);
	if (err != GNIO_SUCCESS) {
		if (tid == 0 || !__isShared(first))
			*first = GNIO_GPUNETIO_ETH_RX_NO_PKT;
		if (tid == 0 || !__isShared(count))
			*count = 0;
		__syncthreads();
		return err;
	}
	/* Every thread is done with the previous batch before it is released
	 * (and before s_* are rewritten). */
	__syncthreads();
	if (tid == 0)
		s_head = q->lc->head;
	__syncthreads();
	const uint64_t head = s_head;
	/* The release (a system-scope store whose fence waits for this block's
	 * stores to host memory, about 1 us after an echo) is made by the last
	 * thread during the first poll, so the poll's loads are not held behind
	 * it. It follows the barrier above, which orders every thread's reads
	 * of the batch before it. */
	int to_release = tid == nthr - 1u;
	/* One entry per thread and poll while waiting (the poll is a round trip
	 * either way, and looking far ahead only loads the link); up to
	 * GNIO_RX_GROUP_SCAN once a poll found every entry ready. */
	uint32_t per_poll = nthr;
	int scanned = 0; /* a poll loaded several entries per thread, relaxed: fence after */
	int hdr_first = 0; /* the poll that found the first frame brought its header */
	uint64_t start = 0;
	for (;;) {
		while (n < want) {
			const int header_poll = n == 0 && q->hdr_local && nthr >= 32u;
			const uint32_t span = header_poll ? nthr - GNIO_RX_HDR_POLL_EXTRA : per_poll;
			uint32_t range = want - n < span ? want - n : span;
			scanned |= range > nthr;
			if (tid == 0)
				s_min = range;
			__syncthreads();
			uint32_t mine = gnio_rxq_scan_member(q, head + n, range, tid, nthr, n == 0, NULL);
			if (to_release) {
				gnio_rx_ring_release(q);
				to_release = 0;
			}
			if (mine < range)
				atomicMin(&s_min, mine);
			__syncthreads();
			uint32_t got = s_min;
			__syncthreads(); /* s_min read by all before the next poll resets it */
			hdr_first |= header_poll && got;
			n += got;
			if (got < range)
				break;
			per_poll = nthr * GNIO_RX_GROUP_SCAN;
		}
		if (tid == 0)
			s_more = gnio_rxq_keep_polling(n, want, timeout_ns, &start);
		__syncthreads();
		const int more = s_more;
		__syncthreads();
		if (!more)
			break;
		gnio_cpu_relax();
	}
	if (to_release) /* no poll ran (want 0 is refused, so never today) */
		gnio_rx_ring_release(q);
	if (scanned)
		gnio_fence_acquire_sys();
	/* every thread's local meta copies are written; the acquire loads of
	 * single-entry polls order the frames' bytes for the whole block */
	__syncthreads();
	if (q->hdr_local)
		gnio_rx_ring_fill_hdr(q, head, n, tid, nthr, hdr_first);
	if (tid == 0) {
		q->lc->head = head + n;
		q->lc->full_at_once = n == want && !start; /* thread 0's clock decided */
	}
	if (attr && n)
		gnio_rxq_fill_attr(q, head, n, attr, tid, nthr);
	/* Outputs in shared memory are written once, by thread 0; outputs in
	 * each thread's own memory by every thread. */
	if (tid == 0 || !__isShared(first))
		*first = n ? head : GNIO_GPUNETIO_ETH_RX_NO_PKT;
	if (tid == 0 || !__isShared(count))
		*count = n;
	__syncthreads(); /* outputs and attributes hold before anyone reads them */
	return GNIO_SUCCESS;
}

GNIO_DEV void gnio_rxq_release_warp_impl(const struct gnio_gpu_eth_rxq *q)
{
	__syncwarp();
	if ((threadIdx.x & 31u) == 0)
		gnio_rx_ring_release(q);
	__syncwarp();
}

GNIO_DEV void gnio_rxq_release_block_impl(const struct gnio_gpu_eth_rxq *q)
{
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
		gnio_rx_ring_release(q);
	__syncthreads();
}
#else
#define gnio_rxq_recv_warp_impl gnio_rxq_recv_thread_impl
#define gnio_rxq_recv_block_impl gnio_rxq_recv_thread_impl
#define gnio_rxq_release_warp_impl gnio_rx_ring_release
#define gnio_rxq_release_block_impl gnio_rx_ring_release
#endif

/* ------------------------------------------------------------- receive -- */

#if defined(__cplusplus)
/* @since 0.2 dev_rxq_recv: Device-side receive filling to max or timeout, at thread, warp or block scope */
template <enum gnio_gpu_dev_eth_mcst_mode MCST = GNIO_GPUNETIO_ETH_MCST_DISABLED,
	  enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
	  enum gnio_gpu_dev_eth_rxq_attr_type ATTR = GNIO_GPUNETIO_ETH_RX_ATTR_NONE>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv_thread(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						       uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
						       uint32_t *out_pkt_num,
						       struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	return gnio_rxq_recv_thread_impl(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num,
					 ATTR != GNIO_GPUNETIO_ETH_RX_ATTR_NONE ? out_attr : nullptr);
}

template <enum gnio_gpu_dev_eth_mcst_mode MCST = GNIO_GPUNETIO_ETH_MCST_DISABLED,
	  enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
	  enum gnio_gpu_dev_eth_rxq_attr_type ATTR = GNIO_GPUNETIO_ETH_RX_ATTR_NONE>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv_warp(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						     uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
						     uint32_t *out_pkt_num, struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	return gnio_rxq_recv_warp_impl(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num,
				       ATTR != GNIO_GPUNETIO_ETH_RX_ATTR_NONE ? out_attr : nullptr);
}

template <enum gnio_gpu_dev_eth_mcst_mode MCST = GNIO_GPUNETIO_ETH_MCST_DISABLED,
	  enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
	  enum gnio_gpu_dev_eth_rxq_attr_type ATTR = GNIO_GPUNETIO_ETH_RX_ATTR_NONE>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv_block(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						      uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
						      uint32_t *out_pkt_num, struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	return gnio_rxq_recv_block_impl(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num,
					ATTR != GNIO_GPUNETIO_ETH_RX_ATTR_NONE ? out_attr : nullptr);
}

/* The scope as a template parameter, as DOCA's generic receive. */
template <enum gnio_gpu_dev_eth_exec_scope SCOPE = GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD,
	  enum gnio_gpu_dev_eth_mcst_mode MCST = GNIO_GPUNETIO_ETH_MCST_DISABLED,
	  enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
	  enum gnio_gpu_dev_eth_rxq_attr_type ATTR = GNIO_GPUNETIO_ETH_RX_ATTR_NONE>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						uint64_t timeout_ns, uint64_t *out_first_pkt_idx, uint32_t *out_pkt_num,
						struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	if (SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
		return gnio_gpu_dev_eth_rxq_recv_block<MCST, NIC, ATTR>(rxq, max_rx_pkts, timeout_ns,
									out_first_pkt_idx, out_pkt_num, out_attr);
	if (SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP)
		return gnio_gpu_dev_eth_rxq_recv_warp<MCST, NIC, ATTR>(rxq, max_rx_pkts, timeout_ns,
								       out_first_pkt_idx, out_pkt_num, out_attr);
	return gnio_gpu_dev_eth_rxq_recv_thread<MCST, NIC, ATTR>(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx,
								 out_pkt_num, out_attr);
}

/* @since 0.2 dev_rxq_release: Explicit release of a received batch */
template <enum gnio_gpu_dev_eth_exec_scope SCOPE = GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD>
GNIO_DEV void gnio_gpu_dev_eth_rxq_release(const struct gnio_gpu_eth_rxq *rxq)
{
	if (SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
		gnio_rxq_release_block_impl(rxq);
	else if (SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP)
		gnio_rxq_release_warp_impl(rxq);
	else
		gnio_rx_ring_release(rxq);
}
#else
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv_thread(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						       uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
						       uint32_t *out_pkt_num,
						       struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	return gnio_rxq_recv_thread_impl(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num, out_attr);
}
#define gnio_gpu_dev_eth_rxq_recv_warp gnio_gpu_dev_eth_rxq_recv_thread
#define gnio_gpu_dev_eth_rxq_recv_block gnio_gpu_dev_eth_rxq_recv_thread
#endif

/* Release every frame received so far: the proxy may reuse their entries and
 * buffers (a buffer sent in place stays held until its send completes). All
 * threads of the scope must call it. The next receive does this too. */
GNIO_DEV void gnio_gpu_dev_eth_rxq_release_thread(const struct gnio_gpu_eth_rxq *rxq) { gnio_rx_ring_release(rxq); }
GNIO_DEV void gnio_gpu_dev_eth_rxq_release_warp(const struct gnio_gpu_eth_rxq *rxq)
{
	gnio_rxq_release_warp_impl(rxq);
}
GNIO_DEV void gnio_gpu_dev_eth_rxq_release_block(const struct gnio_gpu_eth_rxq *rxq)
{
	gnio_rxq_release_block_impl(rxq);
}

/* gnio: the queue's ring entries (gnio_eth_rxq_set_num_packets). A receive
 * hands out at most this many; a consumer that keeps half of them or fewer
 * in a batch leaves the producer the other half to fill meanwhile. */
GNIO_DEV uint32_t gnio_gpu_dev_eth_rxq_get_num_packets(const struct gnio_gpu_eth_rxq *rxq) { return rxq->size; }

/* gnio: whether this consumer's last receive got all max_rx_pkts frames at
 * its first look, without waiting: the producer is ahead, and a larger
 * batch would spread each receive's cost over more frames. Any thread of
 * the group may ask once the receive has returned (its last barrier makes
 * the answer visible to all). */
/* @since 0.2 dev_rxq_full_at_once: Device-side answer whether the last receive found its whole batch waiting, for adaptive batch sizing */
GNIO_DEV int gnio_gpu_dev_eth_rxq_last_recv_full_at_once(const struct gnio_gpu_eth_rxq *rxq)
{
	return rxq->lc->full_at_once != 0;
}

/* ------------------------------- gnio: the receive's state in shared memory -- */

/* The receive's own state (the next entry, the release mark) lives in device
 * memory, and every receive reads it before it polls: after a system-scope
 * acquire has emptied L1, that read is an L2 round trip, about 0.3 us in
 * front of each poll (bench/pcie_probe). A kernel whose one block is the
 * queue's only consumer may keep the state in shared memory for its run:
 *
 *   __shared__ struct gnio_gpu_eth_rxq q;
 *   __shared__ gnio_gpu_dev_eth_rxq_state st;
 *   if (threadIdx.x == 0) {
 *       q = *rxq;
 *       gnio_gpu_dev_eth_rxq_state_to_shared(&q, &st);
 *   }
 *   __syncthreads();
 *   ... every receive, release and frame accessor on &q ...
 *   (one thread, after the last receive and release)
 *   gnio_gpu_dev_eth_rxq_state_back(rxq, &q);
 *
 * The state must go back before the kernel ends: a later kernel on the queue
 * starts from what device memory holds. */
typedef struct gnio_rx_ring_local gnio_gpu_dev_eth_rxq_state;

/* gnio: a receive keeps a copy of each completion it hands out (and its
 * inline header) for the frame accessors, in device memory: after the
 * system-scope acquires of the polls (the consumer's, or its watchers' on
 * the same SM) emptied L1, each accessor is an L2 round trip, about 0.3 us
 * on the H200. A kernel may keep the copies in shared memory instead: meta
 * holds `entries` words, hdr entries * GNIO_RX_HDR_LOCAL_WORDS (NULL when the
 * queue has no inline header). Returns 1 when they are used, 0 when the ring
 * has more entries than that (the queue's own copies stay). On a watched
 * queue the watchers write them, a whole word per lane, each a block-scope
 * atomic that compute-sanitizer's racecheck follows. Nothing goes
 * back at the end: a kernel starts with no batch handed out. One thread, on
 * the kernel's shared copy of the handle, before a barrier. */
/* @since 0.2 dev_rxq_local_shared: Device-side copies of handed-out completions kept in shared memory */
GNIO_DEV int gnio_gpu_dev_eth_rxq_local_to_shared(struct gnio_gpu_eth_rxq *copy, uint64_t *meta, uint64_t *hdr,
						  uint32_t entries)
{
	if (copy->size > entries || (copy->hdr_local && !hdr))
		return 0;
	copy->meta = meta;
	if (copy->hdr_local)
		copy->hdr_local = hdr;
	return 1;
}

/* @since 0.2 dev_rxq_state_shared: Device-side receive state kept in shared memory for one kernel */
GNIO_DEV void gnio_gpu_dev_eth_rxq_state_to_shared(struct gnio_gpu_eth_rxq *copy, gnio_gpu_dev_eth_rxq_state *shared)
{
	*shared = *copy->lc;
	copy->lc = shared;
}

/* Store the state kept with gnio_gpu_dev_eth_rxq_state_to_shared back where
 * the queue keeps it (rxq: the handle the kernel was given). */
GNIO_DEV void gnio_gpu_dev_eth_rxq_state_back(const struct gnio_gpu_eth_rxq *rxq, const struct gnio_gpu_eth_rxq *copy)
{
	if (copy->lc != rxq->lc)
		*rxq->lc = *copy->lc;
}

/* ------------------------------------ gnio: watchers poll for the consumer -- */

#if defined(__CUDACC__)
/* A consumer that polls host memory itself sees a frame a whole poll late
 * when it lands just after the poll's load went out (a round trip, about
 * 1.3 us on the H200), and each system-scope fence it makes (releasing a
 * batch, or a send that wrote the frame) costs about 4 us while another warp
 * of the GPU has a poll in flight (docs/PERFORMANCE.md, "Echo without
 * fences"). Watchers are warps of the consumer's block that poll for it,
 * started spread over one round trip, and hand what they find over through
 * shared memory; one of them also makes the consumer's releases. The
 * consumer is a thread or a warp (receives at THREAD or WARP scope), and
 * its sends that write no payload (gnio_gpu_dev_eth_txq_send_hdr) need no
 * fence either:
 *
 *   __shared__ struct gnio_gpu_eth_rxq q;
 *   __shared__ gnio_gpu_dev_eth_rxq_state st;
 *   __shared__ gnio_gpu_dev_eth_rxq_watch w;
 *   if (threadIdx.x == 0) {
 *       q = *rxq;
 *       gnio_gpu_dev_eth_rxq_state_to_shared(&q, &st);
 *       gnio_gpu_dev_eth_rxq_watch_attach(&q, &w, WATCHERS);
 *   }
 *   __syncthreads();
 *   if (threadIdx.x >= 32) {                     // warps 1..WATCHERS
 *       gnio_gpu_dev_eth_rxq_watch_run(&q, threadIdx.x / 32 - 1);
 *       return;
 *   }
 *   ... warp 0: receives on &q at WARP scope, as without watchers ...
 *   if (threadIdx.x == 0) {
 *       gnio_gpu_dev_eth_rxq_watch_stop(&q);     // before the kernel ends
 *       gnio_gpu_dev_eth_rxq_release_thread(&q);
 *       gnio_gpu_dev_eth_rxq_state_back(rxq, &q);
 *   }
 *
 * Two watchers see a frame as soon as four do on the H200 (bench/pcie_probe).
 * A watched queue is for latency: a watcher looks at 25 entries a round trip
 * (32 without an inline header), so a busy queue is better received by its
 * consumer polling itself. */
typedef struct gnio_rx_watch gnio_gpu_dev_eth_rxq_watch;

/* @since 0.2 dev_rxq_watch: Device-side watcher warps that poll an RX queue and make its releases for the consumer */
GNIO_DEV void gnio_gpu_dev_eth_rxq_watch_attach(struct gnio_gpu_eth_rxq *copy, gnio_gpu_dev_eth_rxq_watch *w,
						uint32_t watchers)
{
#if GNIO_ON_GPU
	gnio_rxq_watch_attach_impl(copy, w, watchers);
#endif
}

/* A watcher's loop: every lane of a warp calls it, rank 0..watchers-1; it
 * returns when the consumer stops the watchers. */
GNIO_DEV void gnio_gpu_dev_eth_rxq_watch_run(const struct gnio_gpu_eth_rxq *copy, uint32_t rank)
{
#if GNIO_ON_GPU
	gnio_rxq_watch_run_impl(copy, rank);
#endif
}

/* The consumer (one thread) stops the watchers and waits for them to leave;
 * receives and releases after it poll and store on their own. */
GNIO_DEV void gnio_gpu_dev_eth_rxq_watch_stop(const struct gnio_gpu_eth_rxq *copy)
{
#if GNIO_ON_GPU
	gnio_rxq_watch_stop_impl(copy);
#endif
}
#endif

/* ---------------------------------------------------------- the frames -- */

/* Address of frame packet_idx of a batch (DOCA returns it as an integer).
 * The frame accessors read the receive's local copy of the completion: no
 * PCIe round trip. */
GNIO_DEV uint64_t gnio_gpu_dev_eth_rxq_get_pkt_addr(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
	return (uint64_t)(uintptr_t)(rxq->pool + gnio_rx_meta_off(gnio_rx_ring_meta(rxq, packet_idx)));
}
GNIO_DEV uint32_t gnio_gpu_dev_eth_rxq_get_pkt_bytes(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
	return gnio_rx_meta_len(gnio_rx_ring_meta(rxq, packet_idx));
}
/* The arrival time is in the completion itself (host memory): one read. */
GNIO_DEV uint64_t gnio_gpu_dev_eth_rxq_get_pkt_ts(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
	return gnio_rx_ring_cqe(rxq, packet_idx)->ts_ns;
}
/* gnio: the first bytes of frame packet_idx, and in *hdr_bytes how many
 * there are. On a queue with an inline header (gnio_eth_rxq_set_inline_header)
 * they are the receive's device-memory copy of the GNIO_RX_HDR_BYTES (42)
 * bytes that came with the completion, min(42, frame length) of them: reading
 * them crosses no PCIe link. Without one it is the frame itself (the pool
 * address, all its bytes), so code written against it runs on either queue.
 * Read-only: writes go to the frame (gnio_gpu_dev_eth_rxq_get_pkt_addr). */
/* @since 0.2 dev_rxq_pkt_hdr: Device-side inline header of a received frame, read without a PCIe round trip */
GNIO_DEV const uint8_t *gnio_gpu_dev_eth_rxq_get_pkt_hdr(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx,
							 uint32_t *hdr_bytes)
{
	const uint64_t meta = gnio_rx_ring_meta(rxq, packet_idx);
	const uint32_t len = gnio_rx_meta_len(meta);
	if (!rxq->hdr_local) {
		if (hdr_bytes)
			*hdr_bytes = len;
		return rxq->pool + gnio_rx_meta_off(meta);
	}
	if (hdr_bytes)
		*hdr_bytes = len < GNIO_RX_HDR_BYTES ? len : GNIO_RX_HDR_BYTES;
	return (const uint8_t *)&rxq->hdr_local[(packet_idx & rxq->mask) * GNIO_RX_HDR_LOCAL_WORDS];
}

/* The key of the RX pool, to send a received frame in place. */
GNIO_DEV uint32_t gnio_gpu_dev_eth_rxq_get_pkt_mkey(const struct gnio_gpu_eth_rxq *rxq) { return rxq->pkt_mkey; }

/* gnio: address and length (and with ts_ns, the arrival time) at once. */
GNIO_DEV void gnio_gpu_dev_eth_rxq_get_pkt(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx, uint8_t **addr,
					   uint32_t *len, uint64_t *ts_ns)
{
	const uint64_t meta = gnio_rx_ring_meta(rxq, packet_idx);
	if (ts_ns)
		*ts_ns = gnio_rx_ring_cqe(rxq, packet_idx)->ts_ns;
	*addr = rxq->pool + gnio_rx_meta_off(meta);
	*len = gnio_rx_meta_len(meta);
}

#endif /* GNIO_DEVICE_ETH_RXQ_H */
