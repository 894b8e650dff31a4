/* SPDX-License-Identifier: MIT */
/*
 * bench/send_cost.cu - what one send costs a lone warp on the GPU, with no
 * proxy and no PCIe hand-off in the timing: the echo's send leg
 * (`gnio_latency_bench --timeline`, k_send) taken apart.
 *
 * One warp, the TX handle and its state in shared memory as the built-in
 * apps keep them. Each repetition first makes an acquire load of host
 * memory (as a receive ends), then lane 0's clock64 times one variant:
 *
 *   the library's send_hdr at WARP scope on an EXCLUSIVE queue (lane 0 has
 *   the frame, as in a one-frame echo) and at THREAD scope from lane 0;
 *   ring.h's calls with the buffer known (reserve, hold, write); the buffer
 *   lookup alone; six dependent shared-memory loads, as ld.shared and as
 *   generic loads; one and four relaxed stores to host memory.
 *
 * The ring is never drained: its completion index is set far ahead, so every
 * reservation fits and the descriptors are overwritten lap after lap.
 * Prints the p10 / p50 / p90 of each variant in SM cycles and the p50 in ns.
 * Exit 77 without a usable GPU.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnio/device/gnio_dev.h"

#define RING 4096u
#define RING_LOG2 12u
#define SLOT 64u
#define KEY 7u
#define REPS 20000
#define WARMUP 1000

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "send_cost: %s: %s\n", #x, cudaGetErrorString(e_));        \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

enum { V_EMPTY, V_SEND_WARP, V_SEND_THREAD, V_RING_CALLS, V_FIND_BUF, V_LDS6, V_LDGEN6, V_ST1, V_ST4, V_COUNT };
static const char *const variant_names[V_COUNT] = {
	"nothing (the clock reads)",        "send_hdr<WARP>, exclusive",       "send_hdr<THREAD> from lane 0",
	"ring.h: reserve, hold, write",     "gnio_tx_ring_find_buf",           "6 dependent ld.shared",
	"6 dependent generic loads (shared)", "1 relaxed store to host memory", "4 relaxed stores to host memory"};

static __device__ __forceinline__ uint64_t load_generic(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}
static __device__ __forceinline__ uint64_t load_shared(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"((uint32_t)__cvta_generic_to_shared(p)) : "memory");
	return v;
}

__global__ void send_cost_kernel(struct gnio_gpu_eth_txq txq, const uint64_t *host_word, uint64_t pool, int variant,
				 long long *cycles, uint64_t *sink)
{
	__shared__ struct gnio_gpu_eth_txq q;
	__shared__ gnio_gpu_dev_eth_txq_state state;
	__shared__ uint64_t chain[8];
	const uint32_t lane = threadIdx.x & 31u;
	if (lane == 0) {
		q = txq;
		gnio_gpu_dev_eth_txq_state_to_shared(&q, &state);
		for (int i = 0; i < 8; i++)
			chain[i] = (uint64_t)(uintptr_t)&chain[(i + 1) & 7];
	}
	__syncwarp();
	uint64_t keep = 0;
	for (int r = 0; r < REPS; r++) {
		/* The frame's address depends on the load, so nothing of the
		 * variant is computed before the first clock read. */
		const uint64_t v = gnio_load_acquire_u64(host_word);
		const uint64_t addr = pool + ((uint64_t)r + v) % RING * SLOT;
		const uint32_t len = lane == 0 ? 64u : 0u;
		const uint32_t hdr[3] = {(uint32_t)v ^ lane, 0x01020304u, (uint32_t)r};
		__syncwarp();
		const long long t0 = clock64();
		switch (variant) {
		case V_SEND_WARP:
			gnio_gpu_dev_eth_txq_send_hdr<GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
						      GNIO_GPUNETIO_ETH_SYNC_SCOPE_SYS, GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
						      GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP>(
				&q, addr, KEY, len, (const uint8_t *)hdr, len ? 12u : 0u, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE,
				nullptr);
			break;
		case V_SEND_THREAD:
			if (lane == 0)
				gnio_gpu_dev_eth_txq_send_hdr<GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
							      GNIO_GPUNETIO_ETH_SYNC_SCOPE_SYS,
							      GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
							      GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD>(
					&q, addr, KEY, len, (const uint8_t *)hdr, 12u, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE,
					nullptr);
			break;
		case V_RING_CALLS:
			if (lane == 0) {
				uint64_t t;
				if (gnio_tx_ring_reserve_exclusive(&q, 1, &t) == GNIO_SUCCESS) {
					gnio_tx_ring_hold(&q, 0, addr - pool);
					gnio_tx_ring_write(&q, t, 0, addr - pool, len, 0, 0, (const uint8_t *)hdr, 12, 0);
				}
			}
			break;
		case V_FIND_BUF:
			if (lane == 0) {
				uint64_t off = 0;
				keep += (uint64_t)gnio_tx_ring_find_buf(&q, addr, KEY, len, &off) + off;
			}
			break;
		case V_LDS6:
		case V_LDGEN6: {
			const uint64_t *p = &chain[v & 1u];
			for (int i = 0; i < 6; i++)
				p = (const uint64_t *)(uintptr_t)(variant == V_LDS6 ? load_shared(p) : load_generic(p));
			keep += (uint64_t)(uintptr_t)p;
			break;
		}
		case V_ST1:
		case V_ST4:
			if (lane == 0)
				for (int i = 0; i < (variant == V_ST1 ? 1 : 4); i++)
					gnio_store_relaxed_u64(&sink[(r & 63) * 16 + i], v);
			break;
		default:
			break;
		}
		__syncwarp();
		const long long t1 = clock64();
		if (lane == 0)
			cycles[r] = t1 - t0;
	}
	if (lane == 0) {
		sink[64 * 16] = keep;
		gnio_gpu_dev_eth_txq_state_back(&txq, &q);
	}
}

static int cmp_ll(const void *a, const void *b)
{
	const long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* Pinned host memory, mapped: the host pointer and the device's. */
static void *host_mapped(size_t bytes, void **dev)
{
	void *p;
	CK(cudaHostAlloc(&p, bytes, cudaHostAllocMapped));
	memset(p, 0, bytes);
	CK(cudaHostGetDevicePointer(dev, p, 0));
	return p;
}

int main(void)
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	void *word_d, *pool_d, *desc_d, *hdr_d, *hold_d, *sink_d, *sh_d;
	host_mapped(64, &word_d);
	host_mapped((size_t)RING * SLOT, &pool_d);
	host_mapped(sizeof(struct gnio_tx_desc) * RING, &desc_d);
	host_mapped(sizeof(uint64_t) * GNIO_TX_HDR_LINE_WORDS * RING, &hdr_d);
	host_mapped(sizeof(uint32_t) * RING, &hold_d);
	host_mapped(sizeof(uint64_t) * (64 * 16 + 1), &sink_d);
	struct gnio_tx_ring_shared *sh = (struct gnio_tx_ring_shared *)host_mapped(sizeof(*sh), &sh_d);
	struct gnio_tx_ring_local *lc_d;
	long long *cycles_d, *cycles = (long long *)malloc(sizeof(long long) * REPS);
	CK(cudaMalloc((void **)&lc_d, sizeof(*lc_d)));
	CK(cudaMalloc((void **)&cycles_d, sizeof(long long) * REPS));
	int khz = 0;
	CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
	printf("one send on a lone warp, no proxy (%d repetitions after %d, SM clock %d MHz)\n", REPS - WARMUP, WARMUP,
	       khz / 1000);
	for (int v = 0; v < V_COUNT; v++) {
		/* Completions far ahead: every reservation fits. */
		sh->done = 1ull << 40;
		struct gnio_tx_ring_local lc;
		memset(&lc, 0, sizeof(lc));
		lc.cached_done = 1ull << 40;
		CK(cudaMemcpy(lc_d, &lc, sizeof(lc), cudaMemcpyHostToDevice));
		struct gnio_gpu_eth_txq q;
		memset(&q, 0, sizeof(q));
		q.sh = (struct gnio_tx_ring_shared *)sh_d;
		q.lc = lc_d;
		q.desc = (struct gnio_tx_desc *)desc_d;
		q.desc_hdr = (uint64_t *)hdr_d;
		q.size = RING;
		q.mask = RING - 1;
		q.size_log2 = RING_LOG2;
		q.slot_buf = -1;
		q.nbufs = 1;
		q.bufs[0].base = (uint8_t *)pool_d;
		q.bufs[0].size = (uint64_t)RING * SLOT;
		q.bufs[0].hold = (uint32_t *)hold_d;
		q.bufs[0].elem_size = SLOT;
		q.bufs[0].mkey = KEY;
		send_cost_kernel<<<1, 32>>>(q, (const uint64_t *)word_d, (uint64_t)(uintptr_t)pool_d, v, cycles_d,
					    (uint64_t *)sink_d);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(cycles, cycles_d, sizeof(long long) * REPS, cudaMemcpyDeviceToHost));
		const int m = REPS - WARMUP;
		long long *c = cycles + WARMUP;
		qsort(c, (size_t)m, sizeof(*c), cmp_ll);
		printf("  %-36s p10 %5lld  p50 %5lld  p90 %5lld cycles  (p50 %4.0f ns)\n", variant_names[v], c[m / 10],
		       c[m / 2], c[9 * m / 10], (double)c[m / 2] * 1e6 / khz);
	}
	free(cycles);
	return 0;
}
