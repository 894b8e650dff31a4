/* SPDX-License-Identifier: MIT */
/*
 * bench/pcie_probe.cu - what a GPU thread pays to reach pinned host memory,
 * the costs the ring protocol is built from (docs/PERFORMANCE.md):
 *
 *   - one load, acquire or relaxed, at system scope (a PCIe round trip);
 *   - N relaxed loads of different lines issued back to back by one thread:
 *     do they overlap (one round trip) or follow one another (N)?
 *   - the same with 16-byte vector loads, and with N threads of a warp
 *     loading one line each;
 *   - a release store, and a system-scope fence after plain stores;
 *   - the echo floor: a host thread posts a 64-byte frame and a completion
 *     word in pinned memory, one GPU thread polls the word, swaps the frame's
 *     MACs in place and releases a tag, the host thread spins on the tag.
 *     The ring protocol's own round trip, without proxies or wires; then the
 *     same with one step left out at a time (the acquire fence, the header
 *     read, the frame), with the GPU's own clock after each step;
 *   - the send's steps on a real TX ring (ring.h): after an acquire poll,
 *     the reservation as each sharing mode makes it (a plain read and write
 *     of the ticket counter in device memory, or a CAS at block or device
 *     scope), then the hold mark and the descriptor, released, which a
 *     host thread acting as the TX proxy waits for; and the descriptor
 *     carrying the frame's new first bytes, with no fence;
 *   - poll shapes: how soon a block sees a word the host posts and answers,
 *     with one acquire poll at a time (the receive's waiting shape), with
 *     several relaxed polls in flight from one thread (same line, or one
 *     line each), and with several warps polling staggered and handing the
 *     word on through shared memory.
 *
 * One thread (or one warp) times R repetitions of each pattern with clock64
 * and prints the median in nanoseconds. Exit 77 without a usable GPU.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnio/device/gnio_dev.h"

#define REPS 301
#define LINE_WORDS 16 /* 128-byte lines of uint64_t */

static __device__ __forceinline__ uint64_t ld_relaxed(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}
static __device__ __forceinline__ uint64_t ld_relaxed_nomem(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p));
	return v;
}
static __device__ __forceinline__ uint64_t ld_acquire(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}
static __device__ __forceinline__ void ld_relaxed_v2(const uint64_t *p, uint64_t *a, uint64_t *b)
{
	asm volatile("ld.relaxed.sys.v2.u64 {%0, %1}, [%2];" : "=l"(*a), "=l"(*b) : "l"(p));
}
static __device__ __forceinline__ uint64_t ld_cv(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.global.cv.u64 %0, [%1];" : "=l"(v) : "l"(p));
	return v;
}
static __device__ __forceinline__ void st_release(uint64_t *p, uint64_t v)
{
	asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

enum { P_ACQ1, P_REL1, P_REL4, P_REL16, P_RELNM16, P_V2_8, P_CV16, P_WARP32, P_WARP32_ACQ, P_ST_REL, P_ST4_FENCE,
       P_HDR_V2, P_HDR_SCALAR, P_HDR_WARP_LANE0, P_HDR_WARP_SPREAD, P_ACQ2, P_DEV_LD, P_DEV_ST_LD, P_COUNT };
static const char *const pattern_names[P_COUNT] = {
	"1 acquire load",
	"1 relaxed load",
	"4 relaxed loads, 4 lines (memory clobber)",
	"16 relaxed loads, 16 lines (memory clobber)",
	"16 relaxed loads, 16 lines (no clobber)",
	"8 relaxed v2 loads (16 words), 8 lines",
	"16 ld.cv loads, 16 lines",
	"32 lanes, 1 relaxed load each, 32 lines",
	"32 lanes, 1 acquire load each, 32 lines",
	"1 release store",
	"4 plain stores + fence.sc.sys",
	/* the inline header's poll shapes (ring.h): a 64-byte header line and
	 * the completion word on another line */
	"header: 4 v2 loads of 1 line + 1 acquire",
	"header: 8 relaxed loads of 1 line + 1 acquire",
	"header: lane 0 4 v2 + acquire, 31 lanes 1 acquire",
	"header: lanes 0-3 1 v2 each, 32 lanes 1 acquire",
	/* can one thread keep two acquire polls in flight? */
	"2 acquire loads, 2 lines, issued back to back",
	/* device memory after a system acquire emptied L1: what a consumer
	 * pays to read its own state (ring.h's local words) */
	"acquire, then 1 load of device memory (timed)",
	"acquire, then store + load of 1 device word",
};

__global__ void probe(uint64_t *host, uint64_t *dev, long long *cycles)
{
	const unsigned lane = threadIdx.x;
	uint64_t sink = 0;
	for (int p = 0; p < P_COUNT; p++) {
		for (int r = 0; r < REPS; r++) {
			/* a fresh set of lines each repetition: nothing is cached */
			uint64_t *base = host + (size_t)((r % 64) * 32) * LINE_WORDS;
			__syncwarp();
			if (p == P_DEV_LD || p == P_DEV_ST_LD)
				sink += ld_acquire(base); /* untimed: empties L1 as a poll does */
			long long t0 = clock64();
			if (p == P_WARP32) {
				sink += ld_relaxed(base + lane * LINE_WORDS);
				__syncwarp();
			} else if (p == P_WARP32_ACQ) {
				sink += ld_acquire(base + lane * LINE_WORDS);
				__syncwarp();
			} else if (p == P_HDR_WARP_LANE0 || p == P_HDR_WARP_SPREAD) {
				uint64_t h[8] = {0, 0, 0, 0, 0, 0, 0, 0};
				uint64_t *hdr = base + 32 * LINE_WORDS - LINE_WORDS; /* a line no lane polls */
				if (p == P_HDR_WARP_LANE0 && lane == 0) {
#pragma unroll
					for (int k = 0; k < 4; k++)
						ld_relaxed_v2(hdr + 2 * k, &h[2 * k], &h[2 * k + 1]);
				} else if (p == P_HDR_WARP_SPREAD && lane < 4) {
					ld_relaxed_v2(hdr + 2 * lane, &h[0], &h[1]);
				}
				const uint64_t m = lane < 31 ? ld_acquire(base + lane * LINE_WORDS) : 0;
#pragma unroll
				for (int k = 0; k < 8; k++)
					sink += h[k];
				sink += m;
				__syncwarp();
			} else if (lane == 0) {
				uint64_t v[16];
				switch (p) {
				case P_ACQ1:
					sink += ld_acquire(base);
					break;
				case P_REL1:
					sink += ld_relaxed(base);
					break;
				case P_REL4:
#pragma unroll
					for (int k = 0; k < 4; k++)
						v[k] = ld_relaxed(base + k * LINE_WORDS);
#pragma unroll
					for (int k = 0; k < 4; k++)
						sink += v[k];
					break;
				case P_REL16:
#pragma unroll
					for (int k = 0; k < 16; k++)
						v[k] = ld_relaxed(base + k * LINE_WORDS);
#pragma unroll
					for (int k = 0; k < 16; k++)
						sink += v[k];
					break;
				case P_RELNM16:
#pragma unroll
					for (int k = 0; k < 16; k++)
						v[k] = ld_relaxed_nomem(base + k * LINE_WORDS);
#pragma unroll
					for (int k = 0; k < 16; k++)
						sink += v[k];
					break;
				case P_V2_8:
#pragma unroll
					for (int k = 0; k < 8; k++)
						ld_relaxed_v2(base + k * LINE_WORDS, &v[2 * k], &v[2 * k + 1]);
#pragma unroll
					for (int k = 0; k < 16; k++)
						sink += v[k];
					break;
				case P_CV16:
#pragma unroll
					for (int k = 0; k < 16; k++)
						v[k] = ld_cv(base + k * LINE_WORDS);
#pragma unroll
					for (int k = 0; k < 16; k++)
						sink += v[k];
					break;
				case P_HDR_V2:
#pragma unroll
					for (int k = 0; k < 4; k++)
						ld_relaxed_v2(base + 2 * k, &v[2 * k], &v[2 * k + 1]);
					v[8] = ld_acquire(base + LINE_WORDS);
#pragma unroll
					for (int k = 0; k < 9; k++)
						sink += v[k];
					break;
				case P_HDR_SCALAR:
#pragma unroll
					for (int k = 0; k < 8; k++)
						v[k] = ld_relaxed(base + k);
					v[8] = ld_acquire(base + LINE_WORDS);
#pragma unroll
					for (int k = 0; k < 9; k++)
						sink += v[k];
					break;
				case P_ACQ2:
					v[0] = ld_acquire(base);
					v[1] = ld_acquire(base + LINE_WORDS);
					sink += v[0] + v[1];
					break;
				case P_DEV_LD:
					sink += *(volatile uint64_t *)&dev[r % 32 * LINE_WORDS];
					break;
				case P_DEV_ST_LD:
					dev[r % 32 * LINE_WORDS] = sink + (uint64_t)r;
					sink += dev[r % 32 * LINE_WORDS];
					break;
				case P_ST_REL:
					st_release(base + 8, (uint64_t)r);
					break;
				case P_ST4_FENCE:
					for (int k = 0; k < 4; k++)
						base[k * LINE_WORDS + 8] = (uint64_t)r;
					__threadfence_system();
					break;
				}
			}
			long long t1 = clock64();
			if (lane == 0)
				cycles[p * REPS + r] = t1 - t0;
		}
	}
	if (sink == 0x1234567)
		host[0] = sink; /* keep the loads */
}

/* The echo floor's shared words, each on its own line. */
struct floor_ctl {
	alignas(128) uint64_t meta; /* host -> GPU: sequence number of the frame posted */
	alignas(128) uint64_t tag;  /* GPU -> host: sequence number of the frame sent back */
	alignas(128) uint64_t stop;
	alignas(128) uint8_t frame[128];
};

/* The shapes of the floor: which of the ring's steps a round pays. Each
 * removes one step of the first, so the differences are the steps' costs. */
enum {
	F_RING,      /* relaxed poll + acq_rel fence, header read, swap, release tag (the ring's shape) */
	F_ACQ_POLL,  /* acquire poll (no separate fence), header read, swap, release tag */
	F_NO_HEADER, /* as F_RING without the header read: the bytes arrived with the completion */
	F_NO_FENCE,  /* as F_RING without the acquire fence (unordered: a cost bound, not a protocol) */
	F_PING,      /* poll + fence + release tag: nothing touches the frame */
	F_COUNT
};
static const char *const floor_names[F_COUNT] = {
	"ring: poll, fence, read header, swap, release",
	"acquire poll, read header, swap, release",
	"no header read (header in the completion)",
	"no acquire fence",
	"ping-pong: poll, fence, release",
};
__device__ uint64_t floor_sink;
/* Per round, the GPU's clock64 after each step: seen, fenced, header, released. */
#define FLOOR_LEGS 3

__global__ void floor_kernel(struct floor_ctl *c, uint64_t rounds, int shape, long long *legs)
{
	uint32_t *w = (uint32_t *)c->frame;
	for (uint64_t seq = 1; seq <= rounds; seq++) {
		if (shape == F_ACQ_POLL) {
			while (ld_acquire(&c->meta) != seq)
				if (ld_relaxed(&c->stop))
					return;
		} else {
			while (ld_relaxed(&c->meta) != seq)
				if (ld_relaxed(&c->stop))
					return;
		}
		const long long t0 = clock64();
		if (shape != F_ACQ_POLL && shape != F_NO_FENCE)
			asm volatile("fence.acq_rel.sys;" ::: "memory");
		const long long t1 = clock64();
		uint32_t h0 = (uint32_t)seq, h1 = (uint32_t)seq, h2 = (uint32_t)seq;
		if (shape != F_NO_HEADER && shape != F_PING) {
			h0 = w[0];
			h1 = w[1];
			h2 = w[2];
		}
		/* a branch on the loaded words: the clock below is read after they arrived */
		if ((h0 ^ h1 ^ h2) == 0x5eed5eedu)
			floor_sink = seq;
		const long long t2 = clock64();
		if (shape != F_PING) {
			w[0] = (h1 >> 16) | (h2 << 16);
			w[1] = (h2 >> 16) | (h0 << 16);
			w[2] = (h0 >> 16) | (h1 << 16);
		}
		st_release(&c->tag, seq);
		const long long t3 = clock64();
		legs[(seq - 1) * FLOOR_LEGS + 0] = t1 - t0;
		legs[(seq - 1) * FLOOR_LEGS + 1] = t2 - t1;
		legs[(seq - 1) * FLOOR_LEGS + 2] = t3 - t2;
	}
}

/* The send's steps: the TX ring a kernel sends on, set up by hand (ring.h's
 * layout): descriptors, completion index and hold words in pinned host
 * memory, the ticket counter and cached completion in device memory. */
enum { S_EXCLUSIVE, S_CTA, S_DEVICE, S_HDR, S_COUNT };
static const char *const send_names[S_COUNT] = {
	"exclusive: plain read and write of the ticket",
	"CTA: block-scope CAS on the ticket",
	"GPU: device-scope CAS on the ticket",
	"exclusive, header in the descriptor, no fence",
};
#define SEND_RING 1024u
#define SEND_RING_LOG2 10u

__global__ void send_kernel(struct floor_ctl *c, struct gnio_gpu_eth_txq txq, uint64_t rounds, int mode,
			    long long *legs)
{
	__shared__ struct gnio_gpu_eth_txq q; /* as the built-in apps keep it */
	q = txq;
	uint32_t *w = (uint32_t *)c->frame;
	for (uint64_t seq = 1; seq <= rounds; seq++) {
		while (ld_acquire(&c->meta) != seq)
			if (ld_relaxed(&c->stop))
				return;
		const long long t0 = clock64();
		uint64_t t = 0;
		gnio_error_t e;
		if (mode == S_EXCLUSIVE || mode == S_HDR)
			e = gnio_tx_ring_reserve_exclusive(&q, 1, &t);
		else
			e = gnio_tx_ring_reserve_shared(&q, 1, &t, mode == S_CTA);
		if (e != GNIO_SUCCESS) {
			legs[(seq - 1) * 2] = -1; /* the host reports it */
			return;
		}
		const long long t1 = clock64();
		const uint32_t h0 = (uint32_t)seq;
		if (mode == S_HDR) {
			const uint32_t hdr[3] = {h0, h0 >> 16, h0 << 16};
			gnio_tx_ring_hold(&q, 0, 0);
			gnio_tx_ring_write(&q, t, 0, 0, 64, 0, 0, (const uint8_t *)hdr, 12, 0);
		} else {
			w[0] = h0;
			w[1] = h0 >> 16;
			w[2] = h0 << 16;
			gnio_tx_ring_hold(&q, 0, 0);
			gnio_tx_ring_commit(&q, t, 0, 0, 64, 0, 0);
		}
		const long long t2 = clock64();
		legs[(seq - 1) * 2 + 0] = t1 - t0;
		legs[(seq - 1) * 2 + 1] = t2 - t1;
	}
}

/* Poll shapes: how soon one block sees a word the host posts, and answers.
 * The host posts seq into meta (into each of the four replica lines for
 * the "4 lines" shape) and spins until tag == seq; POLL_STOP ends a kernel.
 * One frame is in flight, so each round trip is post -> seen -> tag. */
struct poll_ctl {
	alignas(128) uint64_t meta[4 * LINE_WORDS]; /* replica r at meta[r * LINE_WORDS] */
	alignas(128) uint64_t tag;
	alignas(128) uint64_t cons; /* PW_THEN_RELEASE's released word */
	alignas(128) uint64_t hold[16];
	alignas(128) uint64_t desc[16];
};
#define POLL_STOP UINT64_MAX
enum { Q_ONE, Q_ONE_TAG_RELAXED, Q_PIPE2, Q_PIPE4, Q_PIPE4_NOFENCE, Q_PIPE4_LINES, Q_PIPE8, Q_WARPS2, Q_WARPS4,
       Q_WARPS4_TAG_RELAXED, Q_WARPS2_TAG_RELAXED, Q_WARPS8_TAG_RELAXED, Q_WARPS4_RELAXED_POLLS,
       Q_WARPS4_PAUSE_RELEASE, Q_WARPS4_TAG_THEN_RELEASE, Q_WARPS4_LINE8, Q_OTHER_SM4, Q_OTHER_SM4_TAG_RELAXED,
       Q_WARPS4_RELEASER, Q_WARPS4_RELEASER_ECHO, Q_COUNT };
static const char *const poll_names[Q_COUNT] = {
	"1 thread, 1 acquire poll at a time, release tag",
	"1 thread, 1 acquire poll at a time, relaxed tag",
	"1 thread, 2 relaxed polls in flight, fence on hit",
	"1 thread, 4 relaxed polls in flight, fence on hit",
	"1 thread, 4 relaxed polls in flight, no fence",
	"1 thread, 4 relaxed polls in flight, 4 lines",
	"1 thread, 8 relaxed polls in flight, fence on hit",
	"2 warps poll (acquire, staggered) via shared",
	"4 warps poll (acquire, staggered) via shared",
	"4 warps poll via shared, relaxed tag",
	"2 warps poll via shared, relaxed tag",
	"8 warps poll via shared, relaxed tag",
	"4 warps, relaxed polls, release tag",
	"4 warps, polls paused for a release tag",
	"4 warps, relaxed tag, then paused + release",
	"4 warps, 8 lanes each load the line, relaxed tag",
	"4 warps of another SM, via device memory",
	"4 warps of another SM, relaxed tag",
	"4 warps, relaxed tag, poller 1 releases after",
	"as above, 8 lanes, worker stores 3 words",
};
/* poll_warps_kernel's options */
#define PW_TAG_RELAXED 1    /* the tag needs no fence (its words validate themselves) */
#define PW_RELAXED_POLLS 2  /* pollers load relaxed, not acquire */
#define PW_PAUSE 4          /* pollers stop issuing loads while the worker releases */
#define PW_THEN_RELEASE 8   /* relaxed tag, then (paused) a released word on another line */
#define PW_LINE8 16         /* lanes 0-7 of a poller each load one word of the line */
#define PW_RELEASER 32      /* relaxed tag; poller 1 then makes the released store */
#define PW_ECHO 64          /* the worker stores a hold word and a descriptor word before the tag */

static __device__ __forceinline__ void st_relaxed(uint64_t *p, uint64_t v)
{
	asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
static __device__ __forceinline__ void put_tag(uint64_t *p, uint64_t v, int relaxed)
{
	if (relaxed)
		st_relaxed(p, v);
	else
		st_release(p, v);
}

/* One thread, one acquire poll at a time (the receive's waiting shape). */
__global__ void poll_one_kernel(struct poll_ctl *c, int tag_relaxed)
{
	for (uint64_t seq = 1;; seq++) {
		uint64_t v;
		while ((v = ld_acquire(&c->meta[0])) < seq)
			;
		if (v == POLL_STOP)
			return;
		put_tag(&c->tag, seq, tag_relaxed);
	}
}

/* One thread keeps K relaxed polls in flight, issued `spacing` cycles apart
 * at first; each is issued again as soon as its answer is used, so they
 * stay staggered. lines: poll k reads replica k % 4 (no two in flight on one
 * line). */
template <int K>
__global__ void poll_pipe_kernel(struct poll_ctl *c, long long spacing, int lines, int fence)
{
	uint64_t v[K];
	long long next = clock64();
#pragma unroll
	for (int k = 0; k < K; k++) {
		v[k] = ld_relaxed(&c->meta[(lines ? k % 4 : 0) * LINE_WORDS]);
		next += spacing;
		while (clock64() < next)
			;
	}
	uint64_t seq = 1;
	for (;;) {
#pragma unroll
		for (int k = 0; k < K; k++) {
			const uint64_t got = v[k]; /* waits for this poll's answer */
			if (got == POLL_STOP)
				return;
			if (got >= seq) {
				if (fence)
					asm volatile("fence.acq_rel.sys;" ::: "memory");
				st_release(&c->tag, seq);
				seq++;
			}
			v[k] = ld_relaxed(&c->meta[(lines ? k % 4 : 0) * LINE_WORDS]);
		}
	}
}

/* Warps 1..W each poll with acquire, started `spacing` cycles apart, and
 * publish what they saw through shared memory (or, with `seen_dev`, device
 * memory: the pollers are another block, on another SM); warp 0 waits for
 * it and answers. */
__global__ void poll_warps_kernel(struct poll_ctl *c, long long spacing, int opt, unsigned long long *seen_dev)
{
	__shared__ unsigned long long seen_sh;
	__shared__ volatile int pause;
	__shared__ unsigned long long rel_req;
	unsigned long long *seen = seen_dev ? seen_dev : &seen_sh;
	const unsigned warp = threadIdx.x / 32u, lane = threadIdx.x % 32u;
	const int poller = seen_dev ? blockIdx.x == 1 : warp > 0;
	if (threadIdx.x == 0) {
		seen_sh = 0;
		pause = 0;
		rel_req = 0;
	}
	__syncthreads();
	if (seen_dev && !poller && warp > 0)
		return;
	if (lane >= ((opt & PW_LINE8) && poller ? 8u : 1u))
		return;
	if (poller) {
		const unsigned rank = seen_dev ? warp : warp - 1u;
		const long long until = clock64() + (long long)rank * spacing;
		while (clock64() < until)
			;
		uint64_t released = 0;
		for (;;) {
			while (pause)
				;
			if ((opt & PW_RELEASER) && rank == 0 && lane == 0) {
				uint64_t want;
				asm volatile("ld.acquire.cta.u64 %0, [%1];" : "=l"(want) : "l"(&rel_req) : "memory");
				if (want != released) {
					released = want;
					st_release(&c->cons, want);
				}
			}
			const unsigned mask = (opt & PW_LINE8) ? 0xffu : 1u;
			uint64_t v = (opt & PW_RELAXED_POLLS) ? ld_relaxed(&c->meta[lane]) : ld_acquire(&c->meta[lane]);
			v = __shfl_sync(mask, v, 0); /* lane 0 has the word; the others' loads rode along */
			if (v == POLL_STOP && lane)
				return;
			if (lane)
				continue;
			/* RELEASE at block (gpu) scope: what the poll's acquire
			 * ordered is ordered for the warp that reads `seen` */
			if (seen_dev)
				asm volatile("red.release.gpu.max.u64 [%0], %1;" ::"l"(seen), "l"(v) : "memory");
			else
				asm volatile("red.release.cta.max.u64 [%0], %1;" ::"l"(seen), "l"(v) : "memory");
			if (v == POLL_STOP)
				return;
		}
	}
	for (uint64_t seq = 1;; seq++) {
		uint64_t v;
		do {
			if (seen_dev)
				asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(v) : "l"(seen) : "memory");
			else
				asm volatile("ld.acquire.cta.u64 %0, [%1];" : "=l"(v) : "l"(seen) : "memory");
		} while (v < seq);
		if (v == POLL_STOP)
			return;
		if (opt & PW_PAUSE)
			pause = 1;
		if (opt & PW_ECHO) {
			st_relaxed(&c->hold[seq & 7], seq);
			st_relaxed(&c->desc[0], seq);
		}
		put_tag(&c->tag, seq, opt & (PW_TAG_RELAXED | PW_THEN_RELEASE | PW_RELEASER));
		if (opt & PW_RELEASER)
			asm volatile("st.release.cta.u64 [%0], %1;" ::"l"(&rel_req), "l"(seq) : "memory");
		if (opt & PW_THEN_RELEASE) {
			pause = 1;
			st_release(&c->cons, seq);
		}
		pause = 0;
	}
}

/* The watched echo with the library's own calls: an RX ring with an inline
 * header and a TX ring set up by hand (ring.h's layout), warp 0 receiving at
 * WARP scope with two watcher warps and sending each frame back with its
 * MACs swapped in the descriptor (send_hdr). The host plays both proxies.
 * GPU legs: the receive's return -> the swapped header in registers -> the
 * send's return. */
#define EK_RING 256u
#define EK_RING_LOG2 8u
#define EK_SLOT 64u
#define EK_LEGS 3
struct ek_args {
	struct gnio_gpu_eth_rxq rxq;
	struct gnio_gpu_eth_txq txq;
	uint64_t rounds;
	long long *legs; /* device memory, EK_LEGS per frame */
	int local_shared; /* the receive's copies in shared memory */
	int watchers;
	int ring_calls; /* lane 0 sends: 1 ring.h's calls, 2 send_hdr<THREAD>, 3 the
			 * send's own steps (locate, reserve, post), 4 ring.h's calls
			 * with the buffer found by address; 0 the warp send */
	int twice; /* the warp send twice per frame, each timed: a cold send
		    * against the same code and lines just used */
};

__global__ void ek_kernel(struct ek_args a)
{
	__shared__ struct gnio_gpu_eth_rxq q;
	__shared__ struct gnio_gpu_eth_txq tq;
	__shared__ gnio_gpu_dev_eth_rxq_state rs;
	__shared__ gnio_gpu_dev_eth_txq_state ts;
	__shared__ gnio_gpu_dev_eth_rxq_watch w;
	__shared__ uint64_t s_meta[EK_RING], s_hdr[EK_RING * GNIO_RX_HDR_LOCAL_WORDS];
	const uint32_t tid = threadIdx.x;
	if (tid == 0) {
		q = a.rxq;
		tq = a.txq;
		gnio_gpu_dev_eth_rxq_state_to_shared(&q, &rs);
		gnio_gpu_dev_eth_txq_state_to_shared(&tq, &ts);
		if (a.local_shared)
			gnio_gpu_dev_eth_rxq_local_to_shared(&q, s_meta, s_hdr, EK_RING);
		if (a.watchers)
			gnio_gpu_dev_eth_rxq_watch_attach(&q, &w, a.watchers);
	}
	__syncthreads();
	if (tid >= 32) {
		gnio_gpu_dev_eth_rxq_watch_run(&q, tid / 32u - 1u);
		return;
	}
	for (uint64_t done = 0; done < a.rounds;) {
		uint64_t first;
		uint32_t n;
		gnio_gpu_dev_eth_rxq_recv<GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP>(&q, 1, 1, &first, &n, nullptr);
		if (!n)
			continue;
		const long long t0 = clock64();
		uint8_t *pkt = nullptr;
		uint32_t len = 0, hl = 0, h[3] = {0, 0, 0};
		if (tid == 0) {
			gnio_gpu_dev_eth_rxq_get_pkt(&q, first, &pkt, &len, nullptr);
			const uint8_t *src = gnio_gpu_dev_eth_rxq_get_pkt_hdr(&q, first, nullptr);
			hl = len >= 12 ? 12u : 0u;
			const uint32_t *r = (const uint32_t *)src;
			const uint32_t h0 = r[0], h1 = r[1], h2 = r[2];
			h[0] = (h1 >> 16) | (h2 << 16);
			h[1] = (h2 >> 16) | (h0 << 16);
			h[2] = (h0 >> 16) | (h1 << 16);
		}
		__syncwarp();
		const long long t1 = clock64();
		long long t_mid = t1; /* twice: between the two sends */
		if (a.ring_calls == 3) {
			if (tid == 0) {
				const struct gnio_txq_extra x = gnio_txq_with_hdr((const uint8_t *)h, hl);
				uint32_t b = 0;
				uint64_t off = 0, t = 0;
				struct gnio_tx_buf tb;
				if (gnio_txq_locate_x(&tq, (uint64_t)(uintptr_t)pkt, q.pkt_mkey, len, x, &b, &off, &tb) ==
					    GNIO_SUCCESS &&
				    gnio_tx_ring_reserve_exclusive(&tq, 1, &t) == GNIO_SUCCESS)
					gnio_txq_post(&tq, t, b, &tb, off, len, 0, 0, x);
			}
		} else if (a.ring_calls == 4) {
			if (tid == 0) {
				uint64_t t = 0, off = 0;
				const int b = gnio_tx_ring_find_buf(&tq, (uint64_t)(uintptr_t)pkt, q.pkt_mkey, len, &off);
				if (b >= 0 && gnio_tx_ring_reserve_exclusive(&tq, 1, &t) == GNIO_SUCCESS) {
					gnio_tx_ring_hold(&tq, (uint32_t)b, off);
					gnio_tx_ring_write(&tq, t, (uint32_t)b, off, len, 0, 0, (const uint8_t *)h, hl, 0);
				}
			}
		} else if (a.ring_calls >= 5) {
			/* the direct calls with one thing changed: 5 all five header
			 * words stored, 6 no hold mark, 7 the buffer found by address
			 * but the hold mark on buffer 0 */
			if (tid == 0) {
				uint64_t t = 0, off = (uint64_t)(pkt - q.pool);
				int b = 0;
				if (a.ring_calls == 7)
					b = gnio_tx_ring_find_buf(&tq, (uint64_t)(uintptr_t)pkt, q.pkt_mkey, len, &off);
				if (b >= 0 && gnio_tx_ring_reserve_exclusive(&tq, 1, &t) == GNIO_SUCCESS) {
					if (a.ring_calls != 6)
						gnio_tx_ring_hold(&tq, 0, off);
					if (a.ring_calls == 5)
						gnio_hdr_words_put(tq.desc_hdr + (size_t)(t & tq.mask) * GNIO_TX_HDR_LINE_WORDS,
								   GNIO_TX_HDR_WORDS, (const uint8_t *)h, hl,
								   gnio_rx_meta_phase(t, tq.size_log2));
					gnio_tx_ring_write(&tq, t, (uint32_t)b, off, len, 0, 0, (const uint8_t *)h, hl, 0);
				}
			}
		} else if (a.ring_calls == 2) {
			if (tid == 0)
				gnio_gpu_dev_eth_txq_send_hdr<GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
							      GNIO_GPUNETIO_ETH_SYNC_SCOPE_SYS,
							      GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
							      GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD>(
					&tq, (uint64_t)(uintptr_t)pkt, q.pkt_mkey, len, (const uint8_t *)h, hl,
					GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, nullptr);
		} else if (a.ring_calls) {
			if (tid == 0) {
				uint64_t t = 0, off = (uint64_t)(pkt - q.pool);
				if (gnio_tx_ring_reserve_exclusive(&tq, 1, &t) == GNIO_SUCCESS) {
					gnio_tx_ring_hold(&tq, 0, off);
					gnio_tx_ring_write(&tq, t, 0, off, len, 0, 0, (const uint8_t *)h, hl, 0);
				}
			}
		} else {
			for (int rep = 0; rep <= a.twice; rep++) {
				if (rep)
					t_mid = clock64();
				gnio_gpu_dev_eth_txq_send_hdr<GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
							      GNIO_GPUNETIO_ETH_SYNC_SCOPE_SYS,
							      GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
							      GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP>(
					&tq, (uint64_t)(uintptr_t)pkt, q.pkt_mkey, len, (const uint8_t *)h, hl,
					GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, nullptr);
			}
		}
		const long long t2 = clock64();
		if (tid == 0) {
			a.legs[done * EK_LEGS + 0] = a.twice ? t_mid - t1 : t1 - t0;
			a.legs[done * EK_LEGS + 1] = a.twice ? t2 - t_mid : t2 - t1;
			a.legs[done * EK_LEGS + 2] = (long long)(h[0] & 1u); /* keeps h live */
		}
		done += n;
	}
	if (tid == 0) {
		if (a.watchers)
			gnio_gpu_dev_eth_rxq_watch_stop(&q);
		gnio_gpu_dev_eth_rxq_release_thread(&q);
		gnio_gpu_dev_eth_rxq_state_back(&a.rxq, &q);
	}
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

/* Sort the round trips after warm and print their p50 / p90 / p99 / min, then
 * the median of each of the nlegs GPU legs (clock64 cycles, legs[r * nlegs +
 * l]) in ns; scratch holds rounds - warm values. No newline: a caller may
 * add to the line. */
static void print_rounds(const char *name, int width, double *rtt, const long long *legs, int nlegs, uint64_t rounds,
			 uint64_t warm, long long *scratch, int khz)
{
	const uint64_t m = rounds - warm;
	qsort(rtt + warm, m, sizeof(double), cmp_d);
	printf("  %-*s p50 %.2f us  p90 %.2f  p99 %.2f  min %.2f", width, name, rtt[warm + m / 2] / 1e3,
	       rtt[warm + m * 9 / 10] / 1e3, rtt[warm + m * 99 / 100] / 1e3, rtt[warm] / 1e3);
	if (nlegs)
		printf(" | GPU");
	for (int l = 0; l < nlegs; l++) {
		for (uint64_t r = warm; r < rounds; r++)
			scratch[r - warm] = legs[r * nlegs + l];
		qsort(scratch, m, sizeof(long long), cmp_ll);
		printf("%s %.0f", l ? " /" : "", (double)scratch[m / 2] * 1e6 / khz);
	}
	if (nlegs)
		printf(" ns");
}

#define CK(x)                                                                                                   \
	do {                                                                                                    \
		cudaError_t e_ = (x);                                                                           \
		if (e_ != cudaSuccess) {                                                                        \
			fprintf(stderr, "pcie_probe: %s: %s\n", #x, cudaGetErrorString(e_));                    \
			return 1;                                                                               \
		}                                                                                               \
	} while (0)

int main(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	int khz = 0;
	CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
	uint64_t *host, *host_dev;
	long long *cyc, *cyc_dev;
	const size_t words = (size_t)64 * 32 * LINE_WORDS + 32 * LINE_WORDS;
	CK(cudaHostAlloc((void **)&host, words * sizeof(uint64_t), cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&host_dev, host, 0));
	CK(cudaMalloc((void **)&cyc_dev, sizeof(long long) * P_COUNT * REPS));
	cyc = (long long *)malloc(sizeof(long long) * P_COUNT * REPS);
	uint64_t *dev_words;
	CK(cudaMalloc((void **)&dev_words, 32 * LINE_WORDS * sizeof(uint64_t)));
	CK(cudaMemset(dev_words, 0, 32 * LINE_WORDS * sizeof(uint64_t)));
	probe<<<1, 32>>>(host_dev, dev_words, cyc_dev); /* warm-up: module load, TLB */
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	probe<<<1, 32>>>(host_dev, dev_words, cyc_dev);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(cyc, cyc_dev, sizeof(long long) * P_COUNT * REPS, cudaMemcpyDeviceToHost));
	printf("GPU-thread costs to pinned host memory, median of %d, SM clock %d MHz (clock64 cycles -> ns)\n", REPS,
	       khz / 1000);
	for (int p = 0; p < P_COUNT; p++) {
		qsort(cyc + p * REPS, REPS, sizeof(long long), cmp_ll);
		double ns = (double)cyc[p * REPS + REPS / 2] * 1e6 / khz;
		printf("  %-46s %8.0f ns\n", pattern_names[p], ns);
	}
	const long long acq1_cycles = cyc[P_ACQ1 * REPS + REPS / 2];
	cudaFreeHost(host);
	cudaFree(dev_words);
	cudaFree(cyc_dev);
	free(cyc);

	/* the echo floor, in each of its shapes, back to back */
	const uint64_t rounds = 20000, warm = 1000;
	struct floor_ctl *fc, *fc_dev;
	long long *legs_dev;
	CK(cudaHostAlloc((void **)&fc, sizeof(*fc), cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&fc_dev, fc, 0));
	CK(cudaMalloc((void **)&legs_dev, sizeof(long long) * rounds * FLOOR_LEGS));
	double *rtt = (double *)malloc(sizeof(double) * rounds);
	long long *legs = (long long *)malloc(sizeof(long long) * rounds * FLOOR_LEGS);
	long long *one = (long long *)malloc(sizeof(long long) * rounds);
	printf("echo floor (host posts, 1 GPU thread polls, swaps in place, releases a tag), %llu round trips each;\n"
	       "GPU legs are medians of clock64 after the poll saw the word: fence / header load / swap + release\n",
	       (unsigned long long)(rounds - warm));
	for (int shape = 0; shape < F_COUNT; shape++) {
		uint64_t stale = 0;
		memset(fc, 0, sizeof(*fc));
		floor_kernel<<<1, 1>>>(fc_dev, rounds, shape, legs_dev);
		CK(cudaGetLastError());
		for (uint64_t seq = 1; seq <= rounds; seq++) {
			for (int i = 0; i < 12; i++)
				fc->frame[i] = (uint8_t)(seq + i);
			double t0 = now_ns();
			__atomic_store_n(&fc->meta, seq, __ATOMIC_RELEASE);
			while (__atomic_load_n(&fc->tag, __ATOMIC_ACQUIRE) != seq)
				;
			rtt[seq - 1] = now_ns() - t0;
			const int reads = shape != F_NO_HEADER && shape != F_PING;
			const int swapped = fc->frame[0] == (uint8_t)(seq + 6) && fc->frame[6] == (uint8_t)seq;
			if (reads && !swapped && shape == F_NO_FENCE) {
				stale++; /* what the fence is for: the header read ran ahead of the poll */
			} else if (reads && !swapped) {
				fprintf(stderr, "pcie_probe: echo floor: frame %llu not swapped\n", (unsigned long long)seq);
				__atomic_store_n(&fc->stop, 1, __ATOMIC_RELEASE);
				cudaDeviceSynchronize();
				return 1;
			}
		}
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(legs, legs_dev, sizeof(long long) * rounds * FLOOR_LEGS, cudaMemcpyDeviceToHost));
		print_rounds(floor_names[shape], 44, rtt, legs, FLOOR_LEGS, rounds, warm, one, khz);
		if (shape == F_NO_FENCE)
			printf(" | %llu of %llu swapped stale bytes", (unsigned long long)stale, (unsigned long long)rounds);
		printf("\n");
	}

	/* the send's steps, each sharing mode back to back */
	struct gnio_tx_ring_shared *sh, *sh_dev;
	struct gnio_tx_desc *desc, *desc_dev;
	uint32_t *hold, *hold_dev;
	struct gnio_tx_ring_local *lc_dev;
	CK(cudaHostAlloc((void **)&sh, sizeof(*sh), cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&sh_dev, sh, 0));
	CK(cudaHostAlloc((void **)&desc, sizeof(*desc) * SEND_RING, cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&desc_dev, desc, 0));
	uint64_t *desc_hdr, *desc_hdr_dev;
	CK(cudaHostAlloc((void **)&desc_hdr, sizeof(uint64_t) * GNIO_TX_HDR_LINE_WORDS * SEND_RING, cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&desc_hdr_dev, desc_hdr, 0));
	CK(cudaHostAlloc((void **)&hold, sizeof(*hold) * 64, cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&hold_dev, hold, 0));
	CK(cudaMalloc((void **)&lc_dev, sizeof(*lc_dev)));
	printf("the send's steps on a TX ring of %u (after an acquire poll of host memory), %llu sends each;\n"
	       "GPU legs are medians of clock64: reserve / hold mark, descriptor and released tag\n",
	       SEND_RING, (unsigned long long)(rounds - warm));
	for (int mode = 0; mode < S_COUNT; mode++) {
		struct gnio_gpu_eth_txq q;
		memset(&q, 0, sizeof(q));
		memset(fc, 0, sizeof(*fc));
		memset(sh, 0, sizeof(*sh));
		memset(desc, 0, sizeof(*desc) * SEND_RING);
		memset(desc_hdr, 0, sizeof(uint64_t) * GNIO_TX_HDR_LINE_WORDS * SEND_RING);
		memset(hold, 0, sizeof(*hold) * 64);
		CK(cudaMemset(lc_dev, 0, sizeof(*lc_dev)));
		q.sh = sh_dev;
		q.lc = lc_dev;
		q.desc = desc_dev;
		q.desc_hdr = desc_hdr_dev;
		q.size = SEND_RING;
		q.mask = SEND_RING - 1;
		q.size_log2 = SEND_RING_LOG2;
		q.nbufs = 1;
		q.slot_buf = -1;
		q.bufs[0].base = (uint8_t *)fc_dev->frame;
		q.bufs[0].size = sizeof(fc->frame);
		q.bufs[0].hold = hold_dev;
		q.bufs[0].elem_size = sizeof(fc->frame);
		q.bufs[0].mkey = 1;
		send_kernel<<<1, 1>>>(fc_dev, q, rounds, mode, legs_dev);
		CK(cudaGetLastError());
		for (uint64_t seq = 1; seq <= rounds; seq++) {
			double t0 = now_ns();
			__atomic_store_n(&fc->meta, seq, __ATOMIC_RELEASE);
			/* the TX proxy's part: wait for the tag, complete the entry */
			struct gnio_tx_desc_view v;
			while (!gnio_tx_ring_read(desc, desc_hdr, SEND_RING - 1, SEND_RING_LOG2, seq - 1, &v))
				if (cudaStreamQuery(0) != cudaErrorNotReady)
					break; /* the kernel left early: reported below */
			rtt[seq - 1] = now_ns() - t0;
			__atomic_store_n(&hold[0], GNIO_HOLD_FREE, __ATOMIC_RELAXED);
			gnio_tx_ring_complete(sh, seq);
		}
		__atomic_store_n(&fc->stop, 1, __ATOMIC_RELEASE);
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(legs, legs_dev, sizeof(long long) * rounds * 2, cudaMemcpyDeviceToHost));
		for (uint64_t r = 0; r < rounds; r++)
			if (legs[r * 2] < 0) {
				fprintf(stderr, "pcie_probe: send steps: reservation %llu failed\n", (unsigned long long)r);
				return 1;
			}
		print_rounds(send_names[mode], 48, rtt, legs, 2, rounds, warm, one, khz);
		printf("\n");
	}
	cudaFreeHost(sh);
	cudaFreeHost(desc);
	cudaFreeHost(desc_hdr);
	cudaFreeHost(hold);
	cudaFree(lc_dev);

	/* the poll shapes, back to back */
	struct poll_ctl *pc, *pc_dev;
	unsigned long long *seen_dev;
	CK(cudaMalloc((void **)&seen_dev, sizeof(*seen_dev)));
	CK(cudaHostAlloc((void **)&pc, sizeof(*pc), cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&pc_dev, pc, 0));
	printf("poll shapes (host posts a word, the GPU answers with a tag), %llu round trips each;\n"
	       "polls in flight are started one acquire load's time (%.0f ns) / K apart\n",
	       (unsigned long long)(rounds - warm), (double)acq1_cycles * 1e6 / khz);
	for (int shape = 0; shape < Q_COUNT; shape++) {
		memset(pc, 0, sizeof(*pc));
		const int reps = shape == Q_PIPE4_LINES ? 4 : 1;
		switch (shape) {
		case Q_ONE:
		case Q_ONE_TAG_RELAXED:
			poll_one_kernel<<<1, 1>>>(pc_dev, shape == Q_ONE_TAG_RELAXED);
			break;
		case Q_PIPE2:
			poll_pipe_kernel<2><<<1, 1>>>(pc_dev, acq1_cycles / 2, 0, 1);
			break;
		case Q_PIPE4:
		case Q_PIPE4_NOFENCE:
		case Q_PIPE4_LINES:
			poll_pipe_kernel<4><<<1, 1>>>(pc_dev, acq1_cycles / 4, shape == Q_PIPE4_LINES,
						       shape != Q_PIPE4_NOFENCE);
			break;
		case Q_PIPE8:
			poll_pipe_kernel<8><<<1, 1>>>(pc_dev, acq1_cycles / 8, 0, 1);
			break;
		case Q_WARPS2:
			poll_warps_kernel<<<1, 3 * 32>>>(pc_dev, acq1_cycles / 2, 0, NULL);
			break;
		case Q_WARPS2_TAG_RELAXED:
			poll_warps_kernel<<<1, 3 * 32>>>(pc_dev, acq1_cycles / 2, PW_TAG_RELAXED, NULL);
			break;
		case Q_WARPS8_TAG_RELAXED:
			poll_warps_kernel<<<1, 9 * 32>>>(pc_dev, acq1_cycles / 8, PW_TAG_RELAXED, NULL);
			break;
		case Q_OTHER_SM4:
		case Q_OTHER_SM4_TAG_RELAXED:
			CK(cudaMemset(seen_dev, 0, sizeof(*seen_dev)));
			poll_warps_kernel<<<2, 4 * 32>>>(pc_dev, acq1_cycles / 4,
							 shape == Q_OTHER_SM4_TAG_RELAXED ? PW_TAG_RELAXED : 0, seen_dev);
			break;
		default: {
			const int opt = shape == Q_WARPS4_TAG_RELAXED	   ? PW_TAG_RELAXED
					: shape == Q_WARPS4_RELAXED_POLLS   ? PW_RELAXED_POLLS
					: shape == Q_WARPS4_PAUSE_RELEASE   ? PW_PAUSE
					: shape == Q_WARPS4_TAG_THEN_RELEASE ? PW_THEN_RELEASE
					: shape == Q_WARPS4_LINE8	   ? PW_TAG_RELAXED | PW_LINE8
					: shape == Q_WARPS4_RELEASER	   ? PW_RELEASER
					: shape == Q_WARPS4_RELEASER_ECHO   ? PW_RELEASER | PW_LINE8 | PW_ECHO
									   : 0;
			poll_warps_kernel<<<1, 5 * 32>>>(pc_dev, acq1_cycles / 4, opt, NULL);
			break;
		}
		}
		CK(cudaGetLastError());
		int dead = 0;
		for (uint64_t seq = 1; seq <= rounds && !dead; seq++) {
			double t0 = now_ns();
			for (int r = 0; r < reps; r++)
				__atomic_store_n(&pc->meta[r * LINE_WORDS], seq, __ATOMIC_RELEASE);
			uint64_t spins = 0;
			while (__atomic_load_n(&pc->tag, __ATOMIC_ACQUIRE) != seq)
				if (++spins % 4096 == 0 && cudaStreamQuery(0) != cudaErrorNotReady) {
					dead = 1; /* the kernel ended early */
					break;
				}
			rtt[seq - 1] = now_ns() - t0;
		}
		for (int r = 0; r < 4; r++)
			__atomic_store_n(&pc->meta[r * LINE_WORDS], POLL_STOP, __ATOMIC_RELEASE);
		CK(cudaDeviceSynchronize());
		if (dead) {
			fprintf(stderr, "pcie_probe: poll shape %d: the kernel ended early\n", shape);
			return 1;
		}
		print_rounds(poll_names[shape], 48, rtt, NULL, 0, rounds, warm, one, khz);
		printf("\n");
	}
	cudaFreeHost(pc);
	cudaFree(seen_dev);

	/* the watched echo with the library's calls */
	{
		const uint64_t ek_rounds = rounds;
		uint64_t *cqe, *cqe_dev, *meta_dev, *hdr_dev, *desc_hdr, *desc_hdr_dev;
		uint8_t *pool, *pool_dev;
		uint32_t *hold, *hold_dev;
		struct gnio_rx_ring_shared *rsh, *rsh_dev;
		struct gnio_rx_ring_local *rlc_dev;
		struct gnio_tx_ring_shared *tsh, *tsh_dev;
		struct gnio_tx_desc *desc, *desc_dev;
		struct gnio_tx_ring_local *tlc_dev;
		long long *ek_legs_dev;
		const size_t cqe_words = (size_t)EK_RING << GNIO_RX_CQE_INLINE_SHIFT;
		CK(cudaHostAlloc((void **)&cqe, cqe_words * 8, cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&cqe_dev, cqe, 0));
		CK(cudaHostAlloc((void **)&pool, (size_t)EK_RING * EK_SLOT, cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&pool_dev, pool, 0));
		CK(cudaHostAlloc((void **)&hold, sizeof(uint32_t) * EK_RING, cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&hold_dev, hold, 0));
		CK(cudaHostAlloc((void **)&rsh, sizeof(*rsh), cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&rsh_dev, rsh, 0));
		CK(cudaHostAlloc((void **)&tsh, sizeof(*tsh), cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&tsh_dev, tsh, 0));
		CK(cudaHostAlloc((void **)&desc, sizeof(*desc) * EK_RING, cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&desc_dev, desc, 0));
		CK(cudaHostAlloc((void **)&desc_hdr, 8 * GNIO_TX_HDR_LINE_WORDS * EK_RING, cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&desc_hdr_dev, desc_hdr, 0));
		CK(cudaMalloc((void **)&meta_dev, 8 * EK_RING));
		CK(cudaMalloc((void **)&hdr_dev, 8 * GNIO_RX_HDR_LOCAL_WORDS * EK_RING));
		CK(cudaMalloc((void **)&rlc_dev, sizeof(*rlc_dev)));
		CK(cudaMalloc((void **)&tlc_dev, sizeof(*tlc_dev)));
		CK(cudaMalloc((void **)&ek_legs_dev, sizeof(long long) * EK_LEGS * ek_rounds));
		long long *ek_legs = (long long *)malloc(sizeof(long long) * EK_LEGS * ek_rounds);
		printf("the watched echo with the library's calls (WARP receive look-once, send_hdr), %llu round trips;\n"
		       "GPU legs are medians of clock64: received -> header swapped / send\n",
		       (unsigned long long)(ek_rounds - warm));
		static const char *const ek_names[14] = {"2 watchers, copies in shared memory",
							"2 watchers, copies in device memory",
							"no watchers, copies in shared memory", "no watchers, device memory",
							"2 watchers, shared, ring.h calls", "no watchers, shared, ring.h calls",
							"2 watchers, shared, lane 0 sends (THREAD)",
							"no watchers, shared, lane 0 sends (THREAD)",
							"2 watchers, shared, lane 0: locate, reserve, post",
							"2 watchers, shared, ring.h calls, buffer found",
							"2 watchers, shared, ring.h calls, +5 hdr words",
							"2 watchers, shared, ring.h calls, no hold",
							"2 watchers, shared, ring.h calls, found, hold 0",
							"send_hdr<WARP> twice: 1st / 2nd send"};
		for (int v = 0; v < 14; v++) {
			memset(cqe, 0, cqe_words * 8);
			memset(pool, 0, (size_t)EK_RING * EK_SLOT);
			memset(hold, 0, sizeof(uint32_t) * EK_RING);
			memset(rsh, 0, sizeof(*rsh));
			memset(tsh, 0, sizeof(*tsh));
			memset(desc, 0, sizeof(*desc) * EK_RING);
			memset(desc_hdr, 0, 8 * GNIO_TX_HDR_LINE_WORDS * EK_RING);
			CK(cudaMemset(rlc_dev, 0, sizeof(*rlc_dev)));
			CK(cudaMemset(tlc_dev, 0, sizeof(*tlc_dev)));
			struct ek_args ea;
			memset(&ea, 0, sizeof(ea));
			ea.rxq.sh = rsh_dev;
			ea.rxq.lc = rlc_dev;
			ea.rxq.cqe = (struct gnio_rx_cqe *)cqe_dev;
			ea.rxq.meta = meta_dev;
			ea.rxq.hdr_local = hdr_dev;
			ea.rxq.pool = pool_dev;
			ea.rxq.pool_size = (uint64_t)EK_RING * EK_SLOT;
			ea.rxq.size = EK_RING;
			ea.rxq.mask = EK_RING - 1;
			ea.rxq.size_log2 = EK_RING_LOG2;
			ea.rxq.slot_size = EK_SLOT;
			ea.rxq.pkt_mkey = 7;
			ea.rxq.cqe_shift = GNIO_RX_CQE_INLINE_SHIFT;
			ea.txq.sh = tsh_dev;
			ea.txq.lc = tlc_dev;
			ea.txq.desc = desc_dev;
			ea.txq.desc_hdr = desc_hdr_dev;
			ea.txq.size = EK_RING;
			ea.txq.mask = EK_RING - 1;
			ea.txq.size_log2 = EK_RING_LOG2;
			ea.txq.nbufs = 1;
			ea.txq.slot_buf = -1;
			ea.txq.bufs[0].base = pool_dev;
			ea.txq.bufs[0].size = (uint64_t)EK_RING * EK_SLOT;
			ea.txq.bufs[0].hold = hold_dev;
			ea.txq.bufs[0].elem_size = EK_SLOT;
			ea.txq.bufs[0].mkey = 7;
			ea.rounds = ek_rounds;
			ea.legs = ek_legs_dev;
			ea.local_shared = v == 0 || v == 2 || v >= 4;
			ea.watchers = v < 2 || v == 4 || v == 6 || v >= 8 ? 2 : 0;
			ea.ring_calls = v == 13 ? 0 : v >= 8 ? v - 5 : v >= 6 ? 2 : v >= 4;
			ea.twice = v == 13;
			const uint64_t per = ea.twice ? 2 : 1; /* descriptors per frame */
			ek_kernel<<<1, 32 * (1 + ea.watchers)>>>(ea);
			CK(cudaGetLastError());
			int dead = 0;
			for (uint64_t seq = 0; seq < ek_rounds && !dead; seq++) {
				const uint32_t slot = (uint32_t)(seq & (EK_RING - 1));
				uint8_t *fr = pool + (size_t)slot * EK_SLOT;
				for (int i = 0; i < 64; i++)
					fr[i] = (uint8_t)(seq * 7 + (uint64_t)i);
				struct gnio_rx_cqe *c = gnio_rx_cqe_at((struct gnio_rx_cqe *)cqe, seq, EK_RING - 1,
								       GNIO_RX_CQE_INLINE_SHIFT);
				/* the RX proxy: slot free again once the TX side is done */
				hold[slot] = GNIO_HOLD_FREE;
				const double t0 = now_ns();
				gnio_rx_ring_put_hdr(c, seq, EK_RING_LOG2, fr, 64);
				gnio_rx_ring_post(c, gnio_rx_meta_make(seq, EK_RING_LOG2, (uint64_t)slot * EK_SLOT, 64, 0));
				struct gnio_tx_desc_view tv;
				uint64_t spins = 0;
				for (uint64_t d = seq * per; d < (seq + 1) * per && !dead; d++)
					while (!gnio_tx_ring_read(desc, desc_hdr, EK_RING - 1, EK_RING_LOG2, d, &tv))
						if (++spins % 4096 == 0 && cudaStreamQuery(0) != cudaErrorNotReady) {
							dead = 1;
							break;
						}
				rtt[seq] = now_ns() - t0;
				if (!dead && (tv.hdr_len != 12 || tv.hdr[0] != fr[6] || tv.hdr[6] != fr[0])) {
					fprintf(stderr, "pcie_probe: watched echo: frame %llu not swapped\n",
						(unsigned long long)seq);
					dead = 1;
				}
				gnio_tx_ring_complete(tsh, (seq + 1) * per); /* the TX proxy */
			}
			CK(cudaDeviceSynchronize());
			if (dead)
				return 1;
			CK(cudaMemcpy(ek_legs, ek_legs_dev, sizeof(long long) * EK_LEGS * ek_rounds,
				      cudaMemcpyDeviceToHost));
			for (uint64_t r = 0; r < ek_rounds; r++) {
				ek_legs[r * 2 + 0] = ek_legs[r * EK_LEGS + 0];
				ek_legs[r * 2 + 1] = ek_legs[r * EK_LEGS + 1];
			}
			print_rounds(ek_names[v], 44, rtt, ek_legs, 2, ek_rounds, warm, one, khz);
			printf("\n");
		}
		cudaFreeHost(cqe);
		cudaFreeHost(pool);
		cudaFreeHost(hold);
		cudaFreeHost(rsh);
		cudaFreeHost(tsh);
		cudaFreeHost(desc);
		cudaFreeHost(desc_hdr);
		cudaFree(meta_dev);
		cudaFree(hdr_dev);
		cudaFree(rlc_dev);
		cudaFree(tlc_dev);
		cudaFree(ek_legs_dev);
		free(ek_legs);
	}

	cudaFreeHost(fc);
	cudaFree(legs_dev);
	free(rtt);
	free(legs);
	free(one);
	return 0;
}
