/* SPDX-License-Identifier: MIT */
/*
 * src/eth/wire/sw.c - the in-process software wire `sw:NAME[,depth=N][,queues=N]`.
 *
 * Each queue has two bounded single-producer/single-consumer FIFOs:
 *   rx: peer (gnio_sw_peer_send) -> gnio (rx_burst on the queue's proxy thread)
 *   tx: gnio (tx_burst on the queue's proxy thread) -> peer (gnio_sw_peer_recv)
 * A FIFO is a descriptor ring (`depth` entries) plus a byte ring that holds the
 * frames back to back, 64-byte aligned; a frame that would straddle the end of
 * the byte ring starts again at its beginning. The byte ring is sized at
 * 2 KiB per descriptor (and at least 256 KiB so that a 65535-byte frame always
 * fits), so frames up to 2 KiB fill it by count; larger frames may fill it by
 * bytes first. Either way a push that finds no room fails and is counted.
 * The consumer polls the next descriptor's seq, stored after the frame's
 * bytes and its other fields, so taking a frame moves two cache lines from
 * the producer's core (descriptor, frame) and not a third for an index.
 *
 * A generator attached to a queue does not use the FIFO: rx_burst builds its
 * frames straight into the proxy's buffers, after any FIFO frames.
 *
 * Wires are found by name through a mutex-protected registry. The shared state
 * is reference counted (the wire and each peer hold one), so a peer outliving
 * its wire only sees GNIO_ERROR_NOT_CONNECTED.
 *
 * Counters each have one writer (peer sender, peer receiver, RX proxy or TX
 * proxy) and are written with relaxed atomic stores, read anywhere.
 * One thread at a time may send on a queue, and one may receive on it.
 */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/errmsg.h"
#include "eth/gen_priv.h"
#include "eth/wire.h"
#include "gnio/impl/atomics.h"
#include "gnio/sw.h"

#define SW_COMP "sw"
#define SW_MAX_FRAME 65535u
#define SW_DEFAULT_DEPTH 4096u
#define SW_MAX_DEPTH 65536u
#define SW_DEFAULT_QUEUES 8u
#define SW_MAX_QUEUES 64u
#define SW_BYTES_PER_DESC 2048u
#define SW_MIN_DATA (256u << 10)
#define SW_ALIGN 64u
#define SW_NAME_MAX 64

struct sw_desc {
	uint64_t end;   /* free-running byte-ring position after this frame */
	uint32_t off;   /* offset of the frame in the byte ring */
	uint32_t len;
	uint64_t ts_ns; /* CLOCK_REALTIME when it was pushed */
	/* Its FIFO index + 1 once published (release, after every other
	 * field and the frame's bytes): the consumer polls this word, not
	 * prod, so a hand-off moves two lines (descriptor, frame) instead of
	 * three (docs/PERFORMANCE.md, "Host hand-offs"). */
	uint64_t seq;
};

struct sw_fifo {
	/* Producer's line. prod is the published descriptor count, for
	 * fifo_count and a sleeping consumer (the consumer itself polls the
	 * descriptors' seq); the rest is private to the producer: the next
	 * slot and cached copies of the consumer's indexes, refreshed only
	 * when they say the FIFO is full. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t prod;
	uint64_t head;
	uint64_t head_bytes;
	uint64_t cons_seen;
	uint64_t cons_bytes_seen;
	/* Consumer's line. cons/cons_bytes are released after the frames were
	 * copied out; the producer acquires them before reusing the space. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t cons;
	uint64_t cons_bytes;
	uint64_t prod_seen;
	/* Adaptive polling: consumers asleep on this FIFO and the word they
	 * sleep on, bumped by a publish that finds a sleeper (sw_rx_wait). */
	GNIO_ALIGNED(GNIO_LINE) uint32_t waiters;
	uint32_t wake;
	/* Read-only after open. */
	GNIO_ALIGNED(GNIO_LINE) struct sw_desc *desc;
	uint8_t *data;
	uint64_t data_size; /* power of two */
	uint32_t desc_mask;
	uint32_t depth;
};

/* A generator attached to one queue. Everything below `gen` is owned by the
 * queue's RX proxy thread except `offered`, which gen_done reads. */
struct sw_gen {
	struct sw_gen *retired_next;
	struct gnio_gen *gen;
	uint32_t size;
	uint64_t count;
	uint64_t rate;
	uint64_t first_seq;
	uint64_t offered;  /* taken + overflowed, i.e. the next seq offset */
	uint64_t start_ns; /* CLOCK_MONOTONIC of the first rx_burst, for pacing */
	int started;
};

struct sw_wire;

struct sw_queue {
	struct sw_fifo rx; /* peer -> gnio */
	struct sw_fifo tx; /* gnio -> peer */
	/* Written by the peer's sending thread. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t peer_offered;
	uint64_t peer_overflow;
	/* Written by the peer's receiving thread. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t received;
	/* Written by the RX proxy thread. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t gen_sent;
	uint64_t gen_overflow;
	/* Written by the TX proxy thread. */
	GNIO_ALIGNED(GNIO_LINE) uint64_t tx_overflow;
	uint64_t tx_oversize;
	/* Control: gen is published by attach (release), read by rx_burst
	 * (acquire); the rest changes only under the wire's ctl_lock. */
	GNIO_ALIGNED(GNIO_LINE) struct sw_gen *gen;
	struct sw_wire *wire;
	uint16_t id;
	uint8_t rx_open;
	uint8_t tx_open;
};

struct sw_wire {
	struct sw_wire *next; /* registry */
	char name[SW_NAME_MAX];
	uint32_t refs;        /* the wire itself + each peer */
	int closed;
	uint32_t depth;
	uint16_t nq;
	pthread_mutex_t ctl_lock; /* queue open/close, generator attach/detach */
	struct sw_gen *retired;   /* detached generators: the proxy may still hold one */
	struct sw_queue *q;
};

struct gnio_sw_peer {
	struct sw_wire *wire;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sw_wire *registry;

/* ------------------------------------------------------------ helpers -- */

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Single-writer counter: a plain add, published so other threads can read. */
static inline void counter_add(uint64_t *c, uint64_t v)
{
	gnio_store_relaxed_u64(c, gnio_load_relaxed_u64(c) + v);
}

static inline uint64_t counter_get(const uint64_t *c)
{
	return gnio_load_relaxed_u64(c);
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* --------------------------------------------------------------- FIFO -- */

static int fifo_init(struct sw_fifo *f, uint32_t depth)
{
	uint64_t bytes = (uint64_t)depth * SW_BYTES_PER_DESC;

	memset(f, 0, sizeof(*f));
	f->depth = depth;
	f->desc_mask = (uint32_t)pow2_at_least(depth) - 1;
	f->data_size = pow2_at_least(bytes < SW_MIN_DATA ? SW_MIN_DATA : bytes);
	f->desc = calloc((size_t)f->desc_mask + 1, sizeof(*f->desc));
	/* Not zeroed: pages are touched only as frames pass through. */
	f->data = aligned_alloc(SW_ALIGN, f->data_size);
	if (!f->desc || !f->data) {
		free(f->desc);
		free(f->data);
		f->desc = NULL;
		f->data = NULL;
		return -1;
	}
	return 0;
}

static void fifo_fini(struct sw_fifo *f)
{
	free(f->desc);
	free(f->data);
}

/* Producer: copy one frame in without publishing it. 0 when full. */
static inline int fifo_push(struct sw_fifo *f, const void *frame, uint32_t len, uint64_t ts_ns)
{
	uint64_t pos = f->head_bytes;
	uint64_t off = pos & (f->data_size - 1);
	uint64_t alen = ((uint64_t)len + SW_ALIGN - 1) & ~(uint64_t)(SW_ALIGN - 1);
	uint64_t end;
	struct sw_desc *d;

	if (f->head - f->cons_seen >= f->depth) {
		f->cons_seen = gnio_load_acquire_u64(&f->cons);
		if (f->head - f->cons_seen >= f->depth)
			return 0;
	}
	if (off + alen > f->data_size) { /* would straddle the end: wrap */
		pos += f->data_size - off;
		off = 0;
	}
	end = pos + alen;
	if (end - f->cons_bytes_seen > f->data_size) {
		f->cons_bytes_seen = gnio_load_acquire_u64(&f->cons_bytes);
		if (end - f->cons_bytes_seen > f->data_size)
			return 0;
	}
	memcpy(f->data + off, frame, len);
	d = &f->desc[f->head & f->desc_mask];
	d->end = end;
	d->off = (uint32_t)off;
	d->len = len;
	d->ts_ns = ts_ns;
	f->head++;
	f->head_bytes = end;
	return 1;
}

/* Producer: make the pushed frames visible: prod first, so a consumer
 * never runs ahead of it (fifo_count), then each descriptor's seq.
 * RELEASE(sw.seq) pairs with the consumer's acquire in fifo_peek. */
static inline void fifo_publish(struct sw_fifo *f)
{
	const uint64_t from = gnio_load_relaxed_u64(&f->prod);
	gnio_store_release_u64(&f->prod, f->head);
	for (uint64_t i = from; i < f->head; i++)
		gnio_store_release_u64(&f->desc[i & f->desc_mask].seq, i + 1);
	/* SEQ_CST: pairs with the sleeper's increment of waiters before it
	 * looks at prod (sw_rx_wait): either it sees these frames, or this load
	 * sees it and wakes it. One load per burst when nobody sleeps. */
	if (__atomic_load_n(&f->waiters, __ATOMIC_SEQ_CST)) {
		__atomic_add_fetch(&f->wake, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &f->wake, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
}

/* Consumer: how many frames can be taken (up to want). prod_seen counts
 * the descriptors already seen published; the rest are looked at one by
 * one. ACQUIRE(sw.seq): pairs with fifo_publish. */
static inline uint64_t fifo_peek(struct sw_fifo *f, uint64_t want)
{
	uint64_t tail = gnio_load_relaxed_u64(&f->cons);
	uint64_t avail = f->prod_seen - tail;

	/* Nothing pending: the next frame's bytes will start where the last
	 * one's ended (unless the producer wraps). Asking for that line now,
	 * beside the descriptor's poll, overlaps the two misses of a hand-off
	 * instead of taking them one after the other (the copy below needs the
	 * descriptor's offset first). A hint: it reads nothing. */
	if (!avail)
		__builtin_prefetch(f->data + (gnio_load_relaxed_u64(&f->cons_bytes) & (f->data_size - 1)));
	while (avail < want &&
	       gnio_load_acquire_u64(&f->desc[f->prod_seen & f->desc_mask].seq) == f->prod_seen + 1) {
		f->prod_seen++;
		avail++;
	}
	return avail < want ? avail : want;
}

/* Consumer: give back n frames' space after copying them out. The releases
 * pair with the producer's acquires in fifo_push. */
static inline void fifo_release(struct sw_fifo *f, uint64_t n)
{
	uint64_t tail = gnio_load_relaxed_u64(&f->cons);

	gnio_store_release_u64(&f->cons_bytes, f->desc[(tail + n - 1) & f->desc_mask].end);
	gnio_store_release_u64(&f->cons, tail + n);
}

static inline uint64_t fifo_count(struct sw_fifo *f)
{
	return gnio_load_acquire_u64(&f->prod) - gnio_load_acquire_u64(&f->cons);
}

/* --------------------------------------------------------- generator -- */

__extension__ typedef unsigned __int128 sw_u128;

/* Frames due after dt ns at rate pps; 128-bit so hours at 100 Mpps fit. */
static inline uint64_t frames_due(uint64_t dt_ns, uint64_t rate)
{
	return (uint64_t)((sw_u128)dt_ns * rate / 1000000000u);
}

static unsigned gen_burst(struct sw_queue *q, struct sw_gen *g, struct gnio_wire_frame *frames,
			  unsigned n)
{
	uint64_t done = g->offered;
	uint64_t want = n, dropped = 0, ts_ns, i;

	if (g->count && done >= g->count)
		return 0;
	if (g->rate) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC), due, backlog;

		/* The clock starts when gnio first polls, so set-up time is not
		 * charged as overflow. */
		if (!g->started) {
			g->start_ns = now;
			g->started = 1;
		}
		due = frames_due(now - g->start_ns, g->rate);
		if (g->count && due > g->count)
			due = g->count;
		if (due <= done)
			return 0;
		backlog = due - done;
		/* A real FIFO holds `depth` frames; the rest of the backlog was
		 * lost. The oldest go, so the receiver sees a gap in seq. */
		if (backlog > q->rx.depth) {
			dropped = backlog - q->rx.depth;
			done += dropped;
			backlog = q->rx.depth;
		}
		if (want > backlog)
			want = backlog;
	}
	if (g->count && want > g->count - done)
		want = g->count - done;

	ts_ns = clock_ns(CLOCK_REALTIME);
	for (i = 0; i < want; i++) {
		struct gnio_wire_frame *fr = &frames[i];

		/* Too small a buffer: report the length, copy nothing. */
		if (fr->cap >= g->size)
			gnio_gen_fill(g->gen, g->first_seq + done + i, fr->data, fr->cap);
		fr->len = g->size;
		fr->ts_ns = ts_ns;
		fr->buf_off = 0;
	}
	done += want;
	if (dropped)
		counter_add(&q->gen_overflow, dropped);
	counter_add(&q->gen_sent, want);
	gnio_store_relaxed_u64(&g->offered, done);
	return (unsigned)want;
}

/* ------------------------------------------------------------- wires -- */

static void wire_free(struct sw_wire *w)
{
	struct sw_gen *g, *next;
	unsigned i;

	if (w->q) {
		for (i = 0; i < w->nq; i++) {
			fifo_fini(&w->q[i].rx);
			fifo_fini(&w->q[i].tx);
			if (w->q[i].gen) {
				gnio_gen_free(w->q[i].gen->gen);
				free(w->q[i].gen);
			}
		}
		free(w->q);
	}
	for (g = w->retired; g; g = next) {
		next = g->retired_next;
		gnio_gen_free(g->gen);
		free(g);
	}
	pthread_mutex_destroy(&w->ctl_lock);
	free(w);
}

static void wire_unref(struct sw_wire *w)
{
	if (__atomic_sub_fetch(&w->refs, 1, __ATOMIC_ACQ_REL) == 0)
		wire_free(w);
}

static int wire_closed(struct sw_wire *w)
{
	return __atomic_load_n(&w->closed, __ATOMIC_ACQUIRE);
}

static struct sw_wire *registry_find(const char *name)
{
	struct sw_wire *w;

	for (w = registry; w; w = w->next)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

/* Parse an unsigned option value in [lo, hi]. */
static int parse_uint(const char *text, unsigned long lo, unsigned long hi, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!text[0] || text[0] == '-')
		return -1;
	v = strtoul(text, &end, 0);
	if (*end || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* The options sw_open parses (gnio_dev_open refuses any other). */
const char gnio_wire_sw_options[] = "depth,queues";

/* Every option must have a value (the names were checked by gnio_dev_open). */
static gnio_error_t check_opt_keys(const char *opts)
{
	const char *p = opts;

	while (*p) {
		size_t tok = strcspn(p, ",");
		size_t key = strcspn(p, "=,");

		if (tok == 0) {
			p++;
			continue;
		}
		if (key == tok)
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP,
					 "sw: option '%.*s' needs a value (key=value)", (int)tok, p);
		p += tok;
	}
	return GNIO_SUCCESS;
}

static gnio_error_t sw_open(struct gnio_dev *dev, const char *args, void **out)
{
	char name[SW_NAME_MAX], val[32];
	uint32_t depth = SW_DEFAULT_DEPTH, queues = SW_DEFAULT_QUEUES;
	const char *opts;
	struct sw_wire *w;
	size_t name_len;
	gnio_error_t err;
	unsigned i;

	(void)dev; /* the sw wire needs nothing from the device object */
	if (!args || !out)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "sw: no wire name given");
	name_len = strcspn(args, ",");
	if (name_len == 0)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "sw: empty wire name (use sw:NAME)");
	if (name_len >= SW_NAME_MAX)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP,
				 "sw: wire name is %zu characters long; the limit is %d", name_len,
				 SW_NAME_MAX - 1);
	opts = gnio_wire_split_args(args, name, sizeof(name));
	if (!opts)
		opts = "";
	err = check_opt_keys(opts);
	if (err)
		return err;
	if (gnio_wire_opt(opts, "depth", val, sizeof(val)) &&
	    parse_uint(val, 1, SW_MAX_DEPTH, &depth))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP,
				 "sw: depth '%s' is not a number from 1 to %u", val, SW_MAX_DEPTH);
	if (gnio_wire_opt(opts, "queues", val, sizeof(val)) &&
	    parse_uint(val, 1, SW_MAX_QUEUES, &queues))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP,
				 "sw: queues '%s' is not a number from 1 to %u", val, SW_MAX_QUEUES);

	w = calloc(1, sizeof(*w));
	if (!w)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, SW_COMP, "sw: out of memory");
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->refs = 1;
	w->depth = depth;
	w->nq = (uint16_t)queues;
	pthread_mutex_init(&w->ctl_lock, NULL);
	w->q = aligned_alloc(GNIO_LINE, sizeof(*w->q) * queues);
	if (!w->q)
		goto nomem;
	memset(w->q, 0, sizeof(*w->q) * queues);
	for (i = 0; i < queues; i++) {
		w->q[i].wire = w;
		w->q[i].id = (uint16_t)i;
		if (fifo_init(&w->q[i].rx, depth) || fifo_init(&w->q[i].tx, depth))
			goto nomem;
	}

	pthread_mutex_lock(&registry_lock);
	if (registry_find(w->name)) {
		pthread_mutex_unlock(&registry_lock);
		wire_free(w);
		return gnio_fail(GNIO_ERROR_IN_USE, SW_COMP, "sw: a wire named '%s' is already open",
				 name);
	}
	w->next = registry;
	registry = w;
	pthread_mutex_unlock(&registry_lock);
	*out = w;
	return GNIO_SUCCESS;

nomem:
	wire_free(w);
	return gnio_fail(GNIO_ERROR_NO_MEMORY, SW_COMP,
			 "sw: out of memory for %u queues of depth %u", queues, depth);
}

static void sw_close(void *wire)
{
	struct sw_wire *w = wire, **pp;

	if (!w)
		return;
	pthread_mutex_lock(&registry_lock);
	for (pp = &registry; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	__atomic_store_n(&w->closed, 1, __ATOMIC_RELEASE);
	wire_unref(w);
}

static gnio_error_t sw_caps(void *wire, struct gnio_wire_caps *caps)
{
	struct sw_wire *w = wire;

	if (!w || !caps)
		return GNIO_ERROR_INVALID_VALUE;
	memset(caps, 0, sizeof(*caps));
	caps->struct_size = sizeof(*caps);
	caps->flags = GNIO_WIRE_CAP_RX | GNIO_WIRE_CAP_TX | GNIO_WIRE_CAP_MULTI_QUEUE |
		      GNIO_WIRE_CAP_SW_TIMESTAMP;
	caps->max_frame_size = SW_MAX_FRAME;
	caps->num_rx_queues = w->nq;
	caps->num_tx_queues = w->nq;
	snprintf(caps->mode, sizeof(caps->mode), "inproc");
	snprintf(caps->tx_path, sizeof(caps->tx_path), "from the buffer into the peer's FIFO (the software wire's transfer)");
	return GNIO_SUCCESS;
}

static gnio_error_t queue_open(struct sw_wire *w, const struct gnio_wire_queue_cfg *cfg, int tx,
			       void **out)
{
	struct sw_queue *q;
	uint8_t *open_flag;

	if (!w || !cfg || !out)
		return GNIO_ERROR_INVALID_VALUE;
	if (cfg->queue_id >= w->nq)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP,
				 "sw: wire '%s' has %u queues; queue %u does not exist", w->name,
				 w->nq, cfg->queue_id);
	q = &w->q[cfg->queue_id];
	open_flag = tx ? &q->tx_open : &q->rx_open;
	pthread_mutex_lock(&w->ctl_lock);
	if (*open_flag) {
		pthread_mutex_unlock(&w->ctl_lock);
		return gnio_fail(GNIO_ERROR_IN_USE, SW_COMP, "sw: %s queue %u of '%s' is already open",
				 tx ? "TX" : "RX", cfg->queue_id, w->name);
	}
	*open_flag = 1;
	pthread_mutex_unlock(&w->ctl_lock);
	*out = q;
	return GNIO_SUCCESS;
}

static gnio_error_t sw_rxq_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **q)
{
	return queue_open(wire, cfg, 0, q);
}

static gnio_error_t sw_txq_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **q)
{
	return queue_open(wire, cfg, 1, q);
}

static void queue_close(struct sw_queue *q, int tx)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->wire->ctl_lock);
	if (tx)
		q->tx_open = 0;
	else
		q->rx_open = 0;
	pthread_mutex_unlock(&q->wire->ctl_lock);
}

static void sw_rxq_close(void *q)
{
	queue_close(q, 0);
}

static void sw_txq_close(void *q)
{
	queue_close(q, 1);
}

/* Proxy thread of the queue: FIFO frames first, then the generator. */
static unsigned sw_rx_burst(void *qh, struct gnio_wire_frame *frames, unsigned n)
{
	struct sw_queue *q = qh;
	struct sw_fifo *f = &q->rx;
	uint64_t k = fifo_peek(f, n), tail, i;
	struct sw_gen *g;

	if (k) {
		tail = gnio_load_relaxed_u64(&f->cons);
		for (i = 0; i < k; i++) {
			const struct sw_desc *d = &f->desc[(tail + i) & f->desc_mask];
			struct gnio_wire_frame *fr = &frames[i];

			if (d->len <= fr->cap)
				memcpy(fr->data, f->data + d->off, d->len);
			fr->len = d->len;
			fr->ts_ns = d->ts_ns;
			fr->buf_off = 0;
		}
		fifo_release(f, k);
	}
	if (k < n) {
		g = __atomic_load_n(&q->gen, __ATOMIC_ACQUIRE); /* pairs with attach */
		if (g)
			k += gen_burst(q, g, frames + k, n - (unsigned)k);
	}
	return (unsigned)k;
}

/* Adaptive polling, RX proxy idle: sleep until the peer publishes a frame
 * or timeout_ns. A generator makes frames on demand: nap instead. */
static void sw_rx_wait(void *qh, uint64_t timeout_ns)
{
	struct sw_queue *q = qh;
	struct sw_fifo *f = &q->rx;
	struct timespec ts = gnio_timespec_ns(timeout_ns);
	if (__atomic_load_n(&q->gen, __ATOMIC_ACQUIRE)) {
		nanosleep(&ts, NULL);
		return;
	}
	__atomic_add_fetch(&f->waiters, 1, __ATOMIC_SEQ_CST);
	uint32_t seen = __atomic_load_n(&f->wake, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&f->prod, __ATOMIC_SEQ_CST) == gnio_load_relaxed_u64(&f->cons))
		syscall(SYS_futex, &f->wake, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
	__atomic_sub_fetch(&f->waiters, 1, __ATOMIC_SEQ_CST);
}

/* The queue is stopping and its proxy has stopped: retire the generator so
 * the final drain sees only frames that are really on the wire. */
static void sw_rx_quiesce(void *qh)
{
	struct sw_queue *q = qh;
	struct sw_wire *w = q->wire;
	pthread_mutex_lock(&w->ctl_lock);
	struct sw_gen *g = q->gen;
	if (g) {
		__atomic_store_n(&q->gen, NULL, __ATOMIC_RELEASE);
		g->retired_next = w->retired;
		w->retired = g;
	}
	pthread_mutex_unlock(&w->ctl_lock);
}

/* Proxy thread of the queue: take what fits, never drop; one publish. */
static unsigned sw_tx_burst(void *qh, struct gnio_wire_frame *frames, unsigned n)
{
	struct sw_queue *q = qh;
	uint64_t ts_ns = clock_ns(CLOCK_REALTIME);
	unsigned i, pushed = 0;

	for (i = 0; i < n; i++) {
		if (frames[i].len > SW_MAX_FRAME) {
			/* Cannot happen: the proxy bounds frames by caps.max_frame_size.
			 * Taking it keeps the proxy from retrying it forever. */
			counter_add(&q->tx_oversize, 1);
			continue;
		}
		if (!fifo_push(&q->tx, frames[i].data, frames[i].len, ts_ns))
			break;
		pushed++;
	}
	if (pushed)
		fifo_publish(&q->tx);
	if (i < n)
		counter_add(&q->tx_overflow, 1);
	return i;
}

static void sw_rxq_stats(void *qh, struct gnio_wire_rxq_stats *st)
{
	struct sw_queue *q = qh;

	st->overflow = counter_get(&q->peer_overflow) + counter_get(&q->gen_overflow);
}

const struct gnio_wire_ops gnio_wire_sw_ops = {
	.kind = "sw",
	.open = sw_open,
	.close = sw_close,
	.caps = sw_caps,
	.rxq_open = sw_rxq_open,
	.rxq_close = sw_rxq_close,
	.txq_open = sw_txq_open,
	.txq_close = sw_txq_close,
	.rx_burst = sw_rx_burst,
	.rx_burst_zc = NULL,
	.rx_release_zc = NULL,
	.tx_burst = sw_tx_burst,
	.rx_wait = sw_rx_wait,
	.tx_reap = NULL,
	.rxq_stats = sw_rxq_stats,
	.rx_quiesce = sw_rx_quiesce,
};

/* -------------------------------------------------------------- peer -- */

gnio_error_t gnio_sw_peer_open(const char *name, struct gnio_sw_peer **peer)
{
	gnio_api_enter();
	struct gnio_sw_peer *p;
	struct sw_wire *w;

	if (!name || !name[0] || !peer)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "sw peer: no wire name given");
	*peer = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, SW_COMP, "sw peer: out of memory");
	pthread_mutex_lock(&registry_lock);
	w = registry_find(name);
	if (w)
		__atomic_add_fetch(&w->refs, 1, __ATOMIC_RELAXED); /* registry lock orders it */
	pthread_mutex_unlock(&registry_lock);
	if (!w) {
		free(p);
		return gnio_fail(GNIO_ERROR_NOT_FOUND, SW_COMP,
				 "sw peer: no open sw wire named '%s' (open sw:%s first)", name, name);
	}
	p->wire = w;
	*peer = p;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_sw_peer_close(struct gnio_sw_peer *peer)
{
	gnio_api_enter();
	if (!peer)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "peer_close: NULL peer");
	wire_unref(peer->wire);
	free(peer);
	return GNIO_SUCCESS;
}

/* Common checks: the queue, or NULL with *err set. */
static struct sw_queue *peer_queue(struct gnio_sw_peer *peer, uint16_t queue, gnio_error_t *err)
{
	if (!peer) {
		*err = gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "peer: NULL peer");
		return NULL;
	}
	if (wire_closed(peer->wire)) {
		*err = gnio_fail(GNIO_ERROR_NOT_CONNECTED, SW_COMP, "peer: the wire '%s' was closed", peer->wire->name);
		return NULL;
	}
	if (queue >= peer->wire->nq) {
		*err = gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "peer: wire '%s' has %u queues, not %u",
				 peer->wire->name, peer->wire->nq, queue + 1u);
		return NULL;
	}
	return &peer->wire->q[queue];
}

gnio_error_t gnio_sw_peer_send(struct gnio_sw_peer *peer, uint16_t queue, const void *frame, uint32_t len)
{
	gnio_api_enter();
	gnio_error_t err = GNIO_SUCCESS;
	struct sw_queue *q;

	if (!frame || len == 0 || len > SW_MAX_FRAME)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "peer_send: a frame of %u bytes (1..%u)", len,
				 SW_MAX_FRAME);
	q = peer_queue(peer, queue, &err);
	if (!q)
		return err;
	/* Counted before the publish, so a reader that saw the frame also
	 * sees it offered. */
	counter_add(&q->peer_offered, 1);
	if (!fifo_push(&q->rx, frame, len, clock_ns(CLOCK_REALTIME))) {
		counter_add(&q->peer_overflow, 1);
		return gnio_fail(GNIO_ERROR_FULL, SW_COMP, "peer_send: queue %u's FIFO is full (counted as wire_overflow)",
				 queue);
	}
	fifo_publish(&q->rx);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_sw_peer_recv(struct gnio_sw_peer *peer, uint16_t queue, void *buf, uint32_t cap,
			       uint32_t *len, uint64_t *ts_ns)
{
	gnio_api_enter();
	gnio_error_t err = GNIO_SUCCESS;
	const struct sw_desc *d;
	struct sw_fifo *f;
	struct sw_queue *q;

	if (!len)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "peer_recv: NULL length");
	q = peer_queue(peer, queue, &err);
	if (!q)
		return err;
	f = &q->tx;
	if (!fifo_peek(f, 1))
		return GNIO_ERROR_EMPTY;
	d = &f->desc[gnio_load_relaxed_u64(&f->cons) & f->desc_mask];
	*len = d->len;
	if (d->len > cap || (d->len && !buf))
		return gnio_fail(GNIO_ERROR_TOO_BIG, SW_COMP, "peer_recv: a frame of %u bytes does not fit %u", d->len,
				 cap);
	memcpy(buf, f->data + d->off, d->len);
	if (ts_ns)
		*ts_ns = d->ts_ns;
	fifo_release(f, 1);
	counter_add(&q->received, 1);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_sw_peer_gen_attach(struct gnio_sw_peer *peer, uint16_t queue, const struct gnio_gen_cfg *cfg)
{
	gnio_api_enter();
	gnio_error_t err = GNIO_SUCCESS;
	struct sw_queue *q;
	struct sw_gen *g;

	q = peer_queue(peer, queue, &err);
	if (!q)
		return err;
	if (!cfg)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, SW_COMP, "sw peer: generator config is NULL");
	g = calloc(1, sizeof(*g));
	if (!g)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, SW_COMP, "sw peer: out of memory");
	err = gnio_gen_init(cfg, &g->gen); /* records the reason on failure */
	if (err) {
		free(g);
		return err;
	}
	g->size = cfg->frame_size;
	g->count = cfg->count;
	g->rate = cfg->rate_pps;
	g->first_seq = cfg->first_seq;

	pthread_mutex_lock(&peer->wire->ctl_lock);
	if (q->gen) {
		pthread_mutex_unlock(&peer->wire->ctl_lock);
		gnio_gen_free(g->gen);
		free(g);
		return gnio_fail(GNIO_ERROR_IN_USE, SW_COMP,
				 "sw peer: queue %u already has a generator attached", queue);
	}
	/* Release: rx_burst's acquire sees a fully built generator. */
	__atomic_store_n(&q->gen, g, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&peer->wire->ctl_lock);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_sw_peer_gen_detach(struct gnio_sw_peer *peer, uint16_t queue)
{
	gnio_api_enter();
	gnio_error_t err = GNIO_SUCCESS;
	struct sw_queue *q;
	struct sw_gen *g;

	q = peer_queue(peer, queue, &err);
	if (!q)
		return err;
	pthread_mutex_lock(&peer->wire->ctl_lock);
	g = q->gen;
	if (g) {
		__atomic_store_n(&q->gen, NULL, __ATOMIC_RELEASE);
		/* The proxy may be inside gen_burst with g right now; keep it
		 * until the wire goes away. */
		g->retired_next = peer->wire->retired;
		peer->wire->retired = g;
	}
	pthread_mutex_unlock(&peer->wire->ctl_lock);
	return GNIO_SUCCESS;
}

int gnio_sw_peer_gen_done(struct gnio_sw_peer *peer, uint16_t queue)
{
	gnio_error_t err;
	struct sw_queue *q = peer_queue(peer, queue, &err);
	struct sw_gen *g;

	if (!q)
		return 1;
	g = __atomic_load_n(&q->gen, __ATOMIC_ACQUIRE);
	if (!g)
		return 1;
	return g->count && gnio_load_relaxed_u64(&g->offered) >= g->count;
}

gnio_error_t gnio_sw_peer_get_stats(struct gnio_sw_peer *peer, uint16_t queue, struct gnio_sw_peer_stats *st)
{
	gnio_api_enter();
	struct sw_queue *q;
	uint64_t gen_sent, gen_over;

	/* Counters stay readable after the wire closed: the state is ours too. */
	if (!peer || !st || queue >= peer->wire->nq)
		return GNIO_ERROR_INVALID_VALUE;
	q = &peer->wire->q[queue];
	gen_sent = counter_get(&q->gen_sent);
	gen_over = counter_get(&q->gen_overflow);
	st->offered = counter_get(&q->peer_offered) + gen_sent + gen_over;
	st->overflow = counter_get(&q->peer_overflow) + gen_over;
	st->gen_sent = gen_sent;
	st->received = counter_get(&q->received);
	st->tx_pending = fifo_count(&q->tx);
	st->tx_overflow = counter_get(&q->tx_overflow);
	return GNIO_SUCCESS;
}
