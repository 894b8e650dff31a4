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
 *
 * Hot-path structs are exposed so that the inline functions can be compiled into
 * kernels; applications use the functions in gnio/device/, not the fields.
 */
#ifndef GNIO_IMPL_RING_H
#define GNIO_IMPL_RING_H

#include "atomics.h"
#include "../error.h"

/* ---------------------------------------------------------------- RX ---- */

/* RX completion flags */
#define GNIO_RX_F_TRUNCATED 0x1u /* never set today: oversize frames are dropped */
#define GNIO_RX_F_TS_HW     0x2u /* timestamp came from the wire, not the proxy */

struct gnio_rx_cqe {
	uint64_t buf_off; /* frame start, bytes from the pool base */
	uint32_t len;     /* frame length, no FCS */
	uint32_t flags;   /* GNIO_RX_F_* */
	uint64_t ts_ns;   /* arrival time, CLOCK_REALTIME nanoseconds */
	uint64_t rsvd;
};

struct gnio_rx_ring_shared {
	/* Written by the proxy only: count of completions published. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t prod;
	/* Written by the consumer only: completions below this index are released,
	 * their slots and pool bytes may be reused by the proxy. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t cons;
};

struct gnio_rx_ring_local {
	/* Consumer-private: next completion to hand out. [cons, head) is the batch
	 * the consumer is working on. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t head;
	uint64_t cached_prod; /* last prod seen; saves a PCIe read per recv */
};

/* The GPU handle of an RX queue (DOCA: doca_gpu_eth_rxq). Immutable once the
 * queue is started; every pointer is as the consumer sees it. */
struct gnio_gpu_eth_rxq {
	struct gnio_rx_ring_shared *sh;
	struct gnio_rx_ring_local *lc;
	struct gnio_rx_cqe *cqe;
	uint8_t *pool;      /* NULL when no pool was registered: recv says BAD_STATE */
	uint64_t pool_size;
	uint32_t size;      /* entries, power of two */
	uint32_t mask;
	uint32_t slot_size; /* bytes per pool slot (cyclic wires) */
	uint32_t queue_id;
};

/* Consumer: release the batch handed out last time, so the proxy may reuse its
 * entries and pool bytes. */
GNIO_HD void gnio_rx_ring_release(const struct gnio_gpu_eth_rxq *q)
{
	/* RELEASE(rx.cons) pairs with the proxy's ACQUIRE(rx.cons) in
	 * gnio_rx_ring_free_slots(): every read of the batch [cons, head) by the
	 * consumer happens before the proxy may overwrite those slots. */
	gnio_store_release_u64(&q->sh->cons, q->lc->head);
}

/* Consumer: take up to max new entries. Returns how many, starting at *first;
 * 0 if none. Reads the proxy's index only when the cached copy is used up. */
GNIO_HD uint32_t gnio_rx_ring_take(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t *first)
{
	struct gnio_rx_ring_local *lc = q->lc;
	uint64_t head = lc->head;
	uint64_t prod = lc->cached_prod;
	if (prod == head) {
		/* ACQUIRE(rx.prod) pairs with the proxy's RELEASE(rx.prod) in
		 * gnio_rx_ring_publish(): completions and payload bytes written
		 * before the publish are visible to the reads that follow. */
		prod = gnio_load_acquire_u64(&q->sh->prod);
		lc->cached_prod = prod;
	}
	uint64_t avail = prod - head;
	uint32_t n = avail < (uint64_t)max ? (uint32_t)avail : max;
	*first = head;
	lc->head = head + n;
	return n;
}

GNIO_HD const struct gnio_rx_cqe *gnio_rx_ring_cqe(const struct gnio_gpu_eth_rxq *q, uint64_t idx)
{
	return &q->cqe[idx & q->mask];
}

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

GNIO_HD void gnio_rx_ring_publish(struct gnio_rx_ring_shared *sh, uint64_t new_prod)
{
	/* RELEASE(rx.prod): completions [old prod, new_prod) and their payload
	 * were written before this store; pairs with ACQUIRE(rx.prod) above. */
	gnio_store_release_u64(&sh->prod, new_prod);
}

/* ---------------------------------------------------------------- TX ---- */

#define GNIO_TX_F_TIMED 0x1u /* hold until send_at_ns (CLOCK_REALTIME) */

struct gnio_tx_desc {
	uint64_t buf_off;    /* frame start, bytes from the pool base */
	uint32_t len;
	uint32_t flags;      /* GNIO_TX_F_* */
	uint64_t send_at_ns; /* with GNIO_TX_F_TIMED */
	uint64_t tag;        /* ticket + 1 once the descriptor is complete */
};

struct gnio_tx_ring_shared {
	/* Written by the proxy only: every descriptor below this index has left
	 * (or failed); its ring entry and pool slot are free again. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t done;
	/* Written by the proxy only: descriptors that failed to send (bad length,
	 * out of pool, wire error). Details go to the host progress engine. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t errors;
};

struct gnio_tx_ring_local {
	/* Ticket counter: the next descriptor index to hand to a sender. Only GPU
	 * threads (or CPU-device threads) touch it, with device-scope atomics. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t tail;
	/* Last tx.done some sender read from the host, so the others need not
	 * cross PCIe while the ring has room. Monotonic in practice; a stale
	 * (smaller) value only costs one more read of the real index. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t cached_done;
};

/* The GPU handle of a TX queue (DOCA: doca_gpu_eth_txq). */
struct gnio_gpu_eth_txq {
	struct gnio_tx_ring_shared *sh;
	struct gnio_tx_ring_local *lc;
	struct gnio_tx_desc *desc;
	uint8_t *pool;      /* NULL when no pool was registered: send says BAD_STATE */
	uint64_t pool_size;
	uint32_t size;
	uint32_t mask;
	uint32_t slot_size;
	uint32_t queue_id;
};

/* Sender: reserve n consecutive tickets. AGAIN when fewer than n entries are
 * free; the caller drains completions (or waits for the proxy) and retries. */
GNIO_HD gnio_error_t gnio_tx_ring_reserve(const struct gnio_gpu_eth_txq *q, uint32_t n, uint64_t *ticket)
{
	if (GNIO_UNLIKELY(q->pool == NULL))
		return GNIO_ERROR_BAD_STATE;
	if (GNIO_UNLIKELY(n == 0 || n > q->size))
		return GNIO_ERROR_INVALID_VALUE;
	uint64_t t = gnio_load_relaxed_u64(&q->lc->tail);
	/* ACQUIRE(tx.cached_done) pairs with RELEASE(tx.cached_done) below, which
	 * follows another sender's ACQUIRE(tx.done): the chain carries the
	 * proxy's "done reading these slots" to this sender. */
	uint64_t done = gnio_load_acquire_dev_u64(&q->lc->cached_done);
	int fresh = 0;
	for (;;) {
		/* Signed: a stale t (below done) must reach the CAS, which
		 * refreshes it, instead of looking like a full ring. */
		if ((int64_t)(t + n - done) > (int64_t)q->size) {
			if (fresh)
				return GNIO_ERROR_AGAIN;
			/* ACQUIRE(tx.done) pairs with the proxy's RELEASE(tx.done)
			 * in gnio_tx_ring_complete(): the proxy has finished
			 * reading the entries and pool slots we are about to reuse. */
			done = gnio_load_acquire_u64(&q->sh->done);
			gnio_store_release_dev_u64(&q->lc->cached_done, done);
			fresh = 1;
			continue;
		}
		if (gnio_cas_dev_u64(&q->lc->tail, &t, t + n)) {
			*ticket = t;
			return GNIO_SUCCESS;
		}
		fresh = 0; /* t moved on: the ring may need a newer done */
	}
}

/* Sender: fill descriptor `ticket` and mark it ready. Payload bytes written by
 * this thread before the call are published with it; bytes written by other
 * threads must be ordered before it by the caller (e.g. __syncthreads()). */
GNIO_HD void gnio_tx_ring_commit(const struct gnio_gpu_eth_txq *q, uint64_t ticket, uint64_t buf_off,
				 uint32_t len, uint32_t flags, uint64_t send_at_ns)
{
	struct gnio_tx_desc *d = &q->desc[ticket & q->mask];
	d->buf_off = buf_off;
	d->len = len;
	d->flags = flags;
	d->send_at_ns = send_at_ns;
	/* RELEASE(tx.tag): descriptor fields and payload before the tag; pairs
	 * with ACQUIRE(tx.tag) in gnio_tx_ring_ready(). The tag is ticket+1, so a
	 * stale tag from the previous lap (ticket+1-size) never matches. */
	gnio_store_release_u64(&d->tag, ticket + 1);
}

/* Proxy: is descriptor `idx` complete? */
GNIO_HD const struct gnio_tx_desc *gnio_tx_ring_ready(struct gnio_tx_desc *ring, uint32_t mask, uint64_t idx)
{
	struct gnio_tx_desc *d = &ring[idx & mask];
	/* ACQUIRE(tx.tag): pairs with RELEASE(tx.tag) in gnio_tx_ring_commit(). */
	return gnio_load_acquire_u64(&d->tag) == idx + 1 ? d : NULL;
}

/* Proxy: descriptors below new_done are sent and their slots may be reused. */
GNIO_HD void gnio_tx_ring_complete(struct gnio_tx_ring_shared *sh, uint64_t new_done)
{
	/* RELEASE(tx.done): the proxy's reads of those slots happen before;
	 * pairs with ACQUIRE(tx.done) in gnio_tx_ring_reserve() and completions. */
	gnio_store_release_u64(&sh->done, new_done);
}

GNIO_HD uint64_t gnio_tx_ring_done(const struct gnio_gpu_eth_txq *q)
{
	/* ACQUIRE(tx.done): pairs with RELEASE(tx.done) in gnio_tx_ring_complete(). */
	return gnio_load_acquire_u64(&q->sh->done);
}

#endif /* GNIO_IMPL_RING_H */
