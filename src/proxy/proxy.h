/* SPDX-License-Identifier: MIT */
/*
 * src/proxy/proxy.h - the host threads that move frames between a wire queue
 * and a GPU-visible ring (DOCA's CPU proxy mode). One thread per queue; each
 * owns its ring's producer side (RX) or consumer side (TX) alone, so no locks.
 * Counters have a single writer (the proxy) and are read with relaxed loads.
 */
#ifndef GNIO_SRC_PROXY_PROXY_H
#define GNIO_SRC_PROXY_PROXY_H

#include <pthread.h>
#include "eth/wire.h"
#include "gnio/eth_rxq.h"
#include "gnio/eth_txq.h"
#include "gnio/impl/ring.h"
#include "proxy/steer.h"

struct gnio_gpu;
struct gnio_ctx;
struct gnio_flow_reader;
struct gnio_flow_frame;
struct gnio_flow_result;

/* Bump a counter the proxy thread alone writes; readers load it relaxed. */
#define STAT_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)
/* The same, for a count that announces work done before it (events posted,
 * frames completed): RELEASE, paired with the reader's ACQUIRE. */
#define STAT_ADD_RELEASE(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELEASE)

/* A polling thread: calls step() until stopped, backing off when idle. */
struct gnio_proxy_thread {
	pthread_t thread;
	int running;
	uint32_t stop;
	unsigned (*step)(void *arg); /* returns work done; 0 = idle */
	void *arg;
	int cpu;                     /* -1: no pinning */
	char name[16];
	int poll_mode;               /* enum gnio_poll_mode */
	/* Adaptive mode, when idle: wait(arg, ns) if set (an RX proxy waiting on
	 * its wire), else sleep on *kick (a TX proxy, counted in *sleepers) if
	 * set, else nap. */
	void (*wait)(void *arg, uint64_t timeout_ns);
	/* the time (gnio_gpu_dev_time_ns) work is due though none is ready now,
	 * 0: none; an idle thread never sleeps past it (a TX proxy holding a
	 * timed frame) */
	uint64_t (*due_ns)(void *arg);
	uint32_t *kick;
	uint32_t *sleepers;
};

gnio_error_t gnio_proxy_thread_start(struct gnio_proxy_thread *t);
void gnio_proxy_thread_stop(struct gnio_proxy_thread *t);

/* An RX proxy delivered frames: wake the TX proxies sleeping on *kick (one
 * load when none sleeps, so busy traffic pays no syscall). NULL: no-op. */
void gnio_proxy_kick(uint32_t *kick, uint32_t *sleepers);

#define GNIO_RX_STAGE_DEPTH 8

struct gnio_rx_proxy {
	const struct gnio_wire_ops *ops;
	void *wq;
	struct gnio_gpu *gpu;
	struct gnio_ctx *ctx;          /* for progress-engine events */
	struct gnio_rx_ring_shared *sh; /* host view */
	struct gnio_rx_cqe *cqe;        /* host view */
	uint32_t cqe_shift;             /* log2 of a completion's words (ring.h) */
	int inline_hdr;                 /* completions carry the frame's first bytes */
	uint32_t size, mask, burst;
	uint32_t size_log2;             /* for the completions' phase bit */
	uint32_t slot_size;             /* pool element size */
	uint32_t cap;                   /* largest frame accepted: min(slot, max_packet) */
	int flow_control;
	int zero_copy;                  /* wire places frames in the pool itself */
	uint8_t *pool_cpu;              /* host view of the pool, or the staging mirror */
	uint8_t *pool_dev;              /* device pool when staging, else NULL */
	uint64_t pool_size;
	void *stage_stream;             /* staging copies (GPU-memory pools) */
	/* Staged batches whose copy to the device is in flight, published in
	 * order as their fences complete, so copies overlap the next bursts. */
	struct gnio_rx_stage {
		void *fence;
		uint64_t seq;      /* by word: what the stream stores once it landed */
		uint64_t end;      /* prod after this batch */
		uint64_t bytes;
	} stage[GNIO_RX_STAGE_DEPTH];
	unsigned stage_head, stage_count;
	/* Staging fenced by a word instead (gpu ops stream_write_u64): behind
	 * each batch's copies the stream stores the batch's number (seq) into
	 * *stage_word, pinned host memory the owner provides (device view
	 * stage_word_dev); a look is one load, no driver call. Chosen at init
	 * when the owner gave a word and the driver takes the first store. */
	uint64_t *stage_word;
	void *stage_word_dev;
	int stage_by_word;
	uint64_t stage_seq;             /* by word: the last batch number issued (never reused) */
	/* With batches in flight and the word still: how long before asking
	 * the stream whether a copy failed (a failed copy never stores). */
	uint64_t stage_check_ns;
	uint64_t stage_still_since;     /* when the word last moved, or 0 */
	/* GNIO_STAGE_COPY=slots: copy a batch as whole slots (one flat copy)
	 * instead of each frame's bytes (one 2-D copy, a row per slot). Rows
	 * won every case measured on the H200, 1500-byte frames in 2048-byte
	 * slots included (20-30 % ahead, docs/PERFORMANCE.md), so they are the
	 * default; slots stay for machines whose copy engines say otherwise. */
	int stage_slots;
	uint64_t staged;                /* entries filled (>= prod); == prod unless staging */
	uint64_t prod;
	uint64_t cached_cons;
	uint64_t zc_released;           /* zero-copy: entries handed back to the wire */
	uint64_t *zc_off;               /* zero-copy: pool offset of each ring entry */
	uint64_t *meta_pending;         /* staging: completion words posted once the copy lands */
	/* In-place holds (ring.h GNIO_HOLD_*): the pool's hold words, host view,
	 * checked while *hold_users says a TX queue may send from the pool. */
	uint32_t *hold;
	const unsigned *hold_users;
	/* Copy wires with holds: entries in [staged, refill_ok) have slots
	 * already found refillable. They stay so (the kernel cannot send from a
	 * slot it has released and not yet been given again), so each step
	 * checks only slots it has not checked before. */
	uint64_t refill_ok;
	/* Adaptive polling: TX proxies of the same device to wake on arrivals */
	uint32_t *kick, *sleepers;
	uint64_t *zc_held;              /* zero-copy: released buffers still sent in place */
	uint32_t zc_held_head, zc_held_count;
	uint8_t *scratch;               /* frames that find no ring entry */
	struct gnio_wire_frame *frames;
	/* counters (single writer: the proxy thread) */
	uint64_t rx_packets, rx_bytes;
	uint64_t dropped[GNIO_DROP_REASON_COUNT];
	uint64_t steered_in, steered_out; /* frames taken from the inbox / pushed to other queues */
	/* GNIO_PROXY_STAMPS: host clock (gnio_gpu_dev_time_ns) of the latest
	 * publish to the ring, so a one-frame-in-flight bench can split its
	 * round trip at the proxy. 0 and unread when off. */
	int stamp;
	uint64_t last_publish_ns;
	/* Steering (a gnio_flow on the wire; copy wires only): each burst is
	 * classified; this queue keeps its own frames, drops or leaves to the
	 * kernel what the rules say, and pushes the rest into the inbox of
	 * their queue (steer.h). Its own inbox is pulled on every step. */
	struct gnio_flow_reader *flow_rd;  /* NULL: no steering */
	struct gnio_steer_slot *steer;     /* the dev's slots, by queue id */
	struct gnio_steer_inbox *inbox;    /* this queue's; NULL: none */
	uint16_t queue_id;
	int no_wire;                       /* a ring only steering fills (queue id past the wire's) */
	struct gnio_flow_frame *ff;        /* burst-sized scratch of the classify pass */
	struct gnio_flow_result *fres;
	uint16_t *fidx;                    /* frame index of each classified entry */
	uint8_t *fkeep;                    /* per frame: 1 keep here, 0 counted already */
	struct gnio_steer_frame *fout;
};

/* A buffer array a TX queue sends from, as the proxy sees it. */
struct gnio_tx_proxy_buf {
	uint8_t *cpu;       /* host view, NULL for device memory */
	uint8_t *dev;       /* device view (copied out for device memory) */
	uint64_t size;
	uint32_t *hold;     /* host view of the hold words of an RX pool, else NULL */
	uint32_t elem_size;
};

struct gnio_tx_proxy {
	const struct gnio_wire_ops *ops;
	void *wq;
	struct gnio_gpu *gpu;
	struct gnio_ctx *ctx;
	struct gnio_tx_ring_shared *sh; /* host view */
	struct gnio_tx_desc *desc;      /* host view */
	uint64_t *desc_hdr;             /* host view: the descriptors' header lines */
	uint32_t size, mask, size_log2, burst;
	uint32_t max_frame;
	struct gnio_tx_proxy_buf bufs[GNIO_TXQ_MAX_BUFS];
	uint32_t nbufs;
	uint8_t *stage;                 /* burst * max_frame bytes, when a buffer is device memory */
	uint64_t next;                  /* next descriptor to hand to the wire */
	uint64_t due_ns;                /* send time of a timed frame waiting at next, 0: none */
	uint64_t held_idx;              /* 1 + index of the timed frame last found not yet due, 0: none */
	uint64_t done;                  /* completions published */
	struct gnio_wire_frame *frames;
	uint64_t tx_packets, tx_bytes, tx_errors, timed;
	uint64_t tx_in_place, tx_copies, tx_notified;
	uint64_t timed_late, timed_late_unseen, timed_late_max_ns;
	/* GNIO_PROXY_STAMPS: host clock of the latest step that found a
	 * descriptor, taken right after the find. 0 and unread when off. */
	int stamp;
	uint64_t last_pickup_ns;
};

/* GNIO_PROXY_STAMPS=1 in the environment at queue start: the proxies stamp
 * their hand-offs (last_publish_ns, last_pickup_ns; a clock read per step
 * that moves frames). */
int gnio_proxy_stamps_wanted(void);

gnio_error_t gnio_rx_proxy_init(struct gnio_rx_proxy *p);
unsigned gnio_rx_proxy_step(void *arg);
/* Adaptive polling: wait on the wire (or nap) for up to timeout_ns. */
void gnio_rx_proxy_wait(void *arg, uint64_t timeout_ns);
/* After the thread stopped: take what is left on the wire, counting it as
 * dropped(stopped), so the books balance. */
void gnio_rx_proxy_drain(struct gnio_rx_proxy *p);
void gnio_rx_proxy_fini(struct gnio_rx_proxy *p);
/* The CPU datapath's receive (gnio_eth_rxq_recv_burst), on the caller's
 * thread: needs only ops, wq and the counters. */
gnio_error_t gnio_rx_proxy_recv_host(struct gnio_rx_proxy *p, struct gnio_eth_pkt *pkts, uint32_t max,
				     uint32_t *nb);

gnio_error_t gnio_tx_proxy_init(struct gnio_tx_proxy *p);
unsigned gnio_tx_proxy_step(void *arg);
/* Adaptive polling: when the next frame is timed, its send time (else 0). */
uint64_t gnio_tx_proxy_due(void *arg);
/* After the thread stopped: let an asynchronous wire finish what it took,
 * then release the holds of frames that will never be sent. */
void gnio_tx_proxy_drain(struct gnio_tx_proxy *p);
void gnio_tx_proxy_fini(struct gnio_tx_proxy *p);

#endif
