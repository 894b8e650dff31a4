/* SPDX-License-Identifier: MIT */
/*
 * tests/util/fake_wire.h - test doubles for driving the proxies by hand
 * (tests/unit/test_proxy_*.c):
 *  - a fake wire (struct gnio_wire_ops) whose RX queue is a script of frames
 *    the test pushed, whose zero-copy releases and TX sends are recorded, and
 *    whose TX side takes at most tx_accept_max frames per call and, when
 *    asynchronous, completes only what the test lets it;
 *  - a fake device (struct gnio_gpu_ops): the CPU backend, except that the
 *    asynchronous copies land only when the test completes their fence, a
 *    fence may be made to fail, and copies may fail on command.
 * Everything is single-threaded: the test calls the proxy's step itself.
 */
#ifndef GNIO_TESTS_FAKE_WIRE_H
#define GNIO_TESTS_FAKE_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "eth/wire.h"
#include "gpu/gpu_priv.h"

/* ------------------------------------------------------------ wire -- */

#define FAKE_WIRE_MAX_FRAMES 1024u
#define FAKE_WIRE_TX_KEEP 64u /* leading bytes of each sent frame kept for checks */

/* Features of the ops table fake_wire_ops() fills. */
#define FAKE_WIRE_ZERO_COPY 0x1u /* rx_burst_zc / rx_release_zc instead of rx_burst */
#define FAKE_WIRE_ASYNC_TX  0x2u /* tx_reap: sends complete when the test says */

struct fake_rx_frame {
	uint32_t id;      /* payload pattern (fake_frame_fill) */
	uint32_t len;     /* true length: may be a runt or longer than any cap */
	uint64_t ts_ns;   /* 0: the wire knows no arrival time */
	uint64_t buf_off; /* zero-copy: where the frame lies in the bound pool */
};

struct fake_tx_sent {
	const uint8_t *data; /* as handed over (host view) */
	uint32_t len;
	uint64_t buf_off;
	uint64_t send_at_ns;
	uint8_t head[FAKE_WIRE_TX_KEEP]; /* copy of the first bytes, taken at send */
};

struct fake_wire {
	/* RX script: frames [rx_next, rx_count) are still on the wire. */
	struct fake_rx_frame rx[FAKE_WIRE_MAX_FRAMES];
	unsigned rx_count, rx_next;
	unsigned rx_burst_max;  /* test knob: most frames per burst call, 0 = no limit */
	unsigned rx_calls;      /* burst calls, including those that found nothing */
	unsigned rx_last_asked; /* n of the last burst call */
	uint64_t overflow;      /* what rxq_stats reports */
	int quiesced;           /* rx_quiesce was called */

	/* Zero-copy: the pool frames are placed in, and the buffers handed back. */
	uint8_t *pool;
	uint64_t pool_size;
	uint64_t released[FAKE_WIRE_MAX_FRAMES];
	unsigned released_count;
	unsigned release_calls;

	/* TX */
	unsigned tx_accept_max;    /* test knob: most frames taken per call (UINT32_MAX: all) */
	struct fake_tx_sent tx[FAKE_WIRE_MAX_FRAMES];
	unsigned tx_count;         /* frames taken, in order */
	unsigned tx_calls;
	unsigned tx_last_offered;
	unsigned tx_completable;   /* async: sends the test let complete so far */
	unsigned tx_reaped;        /* async: completions reported by tx_reap */
	unsigned tx_reap_calls;
};

/* A fresh wire with an empty script, taking every TX frame offered. */
struct fake_wire *fake_wire_new(void);
void fake_wire_free(struct fake_wire *w);
/* The ops table of a fake wire with the FAKE_WIRE_* features asked for. */
void fake_wire_ops(struct gnio_wire_ops *ops, unsigned features);

/* Script a frame (copy wires); returns its id, which is also its payload pattern. */
uint32_t fake_wire_push(struct fake_wire *w, uint32_t len, uint64_t ts_ns);
/* Script a frame a zero-copy wire delivers at buf_off of the bound pool. */
uint32_t fake_wire_push_zc(struct fake_wire *w, uint32_t len, uint64_t ts_ns, uint64_t buf_off);
unsigned fake_wire_rx_left(const struct fake_wire *w);
/* Async TX: let n more of the accepted sends complete (reported by tx_reap). */
void fake_wire_tx_complete(struct fake_wire *w, unsigned n);

/* Payload of frame id: byte k is a function of (id, k), so a frame's bytes
 * found in the wrong slot, shifted or cut short never pass the check. */
void fake_frame_fill(uint8_t *dst, uint32_t len, uint32_t id);
int fake_frame_matches(const uint8_t *data, uint32_t len, uint32_t id);

/* ---------------------------------------------------------- device -- */

#define FAKE_GPU_MAX_FENCES 256u
#define FAKE_GPU_MAX_COPIES 1024u

enum fake_fence_state {
	FAKE_FENCE_PENDING = 0,
	FAKE_FENCE_DONE = 1,
	FAKE_FENCE_FAILED = -1,
};

/* An asynchronous copy issued and not yet landed. */
struct fake_copy {
	uint8_t *dst;
	const uint8_t *src;
	size_t pitch, width, rows;
};

struct fake_fence {
	int state;            /* enum fake_fence_state: what fence_done reports */
	unsigned done_after;  /* > 0: becomes DONE after that many more polls */
	unsigned first_copy;  /* the copies it stands for: issued since the fence before */
	unsigned ncopies;
	unsigned polls;
	int destroyed;
	/* a word fence (stream_write_u64): stores value into *word when it
	 * lands, in order behind every earlier fence */
	int is_word;
	uint64_t *word;
	uint64_t value;
};

struct fake_gpu {
	struct gnio_gpu gpu; /* gpu.ops points at ops, gpu.priv at this */
	struct gnio_gpu_ops ops;

	unsigned fail_copies;     /* test knob: the next N copy calls fail */
	unsigned fail_dev_reads;  /* test knob: the next N copy_from_dev calls fail */
	unsigned copy_calls, copy2d_calls, copy_failures;
	uint64_t copy_bytes;      /* bytes asked to move, over both kinds */
	struct fake_copy copy[FAKE_GPU_MAX_COPIES];
	unsigned ncopies, copies_fenced;

	struct fake_fence fence[FAKE_GPU_MAX_FENCES];
	unsigned nfences;          /* recorded so far; fence i is the i-th recorded */
	unsigned fences_destroyed;
	unsigned misuse;           /* polls or destroys of a destroyed fence, or too many */
	unsigned streams_created, streams_destroyed;
	/* word fences (fake_gpu_use_word): the stream completes in order, so
	 * fence word_next is the next to store; a failed one breaks the stream
	 * (no later store) until stream_done has reported it once */
	unsigned word_fences, word_next;
	int stream_broken;
};

struct fake_gpu *fake_gpu_new(void);
void fake_gpu_free(struct fake_gpu *g);
/* Finish fence i: DONE lands its copies first; FAILED lands none. */
void fake_gpu_fence_set(struct fake_gpu *g, unsigned i, enum fake_fence_state state);
/* Fence i turns DONE by itself after `polls` more fence_done calls. */
void fake_gpu_fence_done_after(struct fake_gpu *g, unsigned i, unsigned polls);
/* Fence with a word the stream stores (stream_write_u64, stream_done), as
 * the CUDA backend offers, instead of fence objects. */
void fake_gpu_use_word(struct fake_gpu *g);
/* Fence objects recorded and not destroyed (word fences are not objects). */
unsigned fake_gpu_fences_live(const struct fake_gpu *g);

#endif
