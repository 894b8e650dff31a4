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
 *     scope), then the hold mark, the descriptor and its released tag,
 *     which a host thread acting as the TX proxy waits for.
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

#include "gnio/impl/ring.h"

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
enum { S_EXCLUSIVE, S_CTA, S_DEVICE, S_COUNT };
static const char *const send_names[S_COUNT] = {
	"exclusive: plain read and write of the ticket",
	"CTA: block-scope CAS on the ticket",
	"GPU: device-scope CAS on the ticket",
};
#define SEND_RING 1024u

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
		if (mode == S_EXCLUSIVE)
			e = gnio_tx_ring_reserve_exclusive(&q, 1, &t);
		else
			e = gnio_tx_ring_reserve_shared(&q, 1, &t, mode == S_CTA);
		if (e != GNIO_SUCCESS) {
			legs[(seq - 1) * 2] = -1; /* the host reports it */
			return;
		}
		const long long t1 = clock64();
		const uint32_t h0 = (uint32_t)seq;
		w[0] = h0;
		w[1] = h0 >> 16;
		w[2] = h0 << 16;
		gnio_tx_ring_hold(&q, 0, 0);
		gnio_tx_ring_commit(&q, t, 0, 0, 64, 0, 0);
		const long long t2 = clock64();
		legs[(seq - 1) * 2 + 0] = t1 - t0;
		legs[(seq - 1) * 2 + 1] = t2 - t1;
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
	printf("  %-*s p50 %.2f us  p90 %.2f  p99 %.2f  min %.2f | GPU", width, name, rtt[warm + m / 2] / 1e3,
	       rtt[warm + m * 9 / 10] / 1e3, rtt[warm + m * 99 / 100] / 1e3, rtt[warm] / 1e3);
	for (int l = 0; l < nlegs; l++) {
		for (uint64_t r = warm; r < rounds; r++)
			scratch[r - warm] = legs[r * nlegs + l];
		qsort(scratch, m, sizeof(long long), cmp_ll);
		printf("%s %.0f", l ? " /" : "", (double)scratch[m / 2] * 1e6 / khz);
	}
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
		memset(hold, 0, sizeof(*hold) * 64);
		CK(cudaMemset(lc_dev, 0, sizeof(*lc_dev)));
		q.sh = sh_dev;
		q.lc = lc_dev;
		q.desc = desc_dev;
		q.size = SEND_RING;
		q.mask = SEND_RING - 1;
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
			while (gnio_tx_ring_ready(desc, SEND_RING - 1, seq - 1) == NULL)
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
	cudaFreeHost(hold);
	cudaFree(lc_dev);

	cudaFreeHost(fc);
	cudaFree(legs_dev);
	free(rtt);
	free(legs);
	free(one);
	return 0;
}
