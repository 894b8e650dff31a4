/* SPDX-License-Identifier: MIT */
/*
 * gnio/impl/atomics.h - every memory-ordering primitive gnio uses, in one place.
 *
 * The rings are shared between a host proxy thread and a consumer that is either
 * a CUDA kernel (over PCIe, through pinned host memory mapped into the GPU) or a
 * host thread (the CPU device). All cross-agent publication therefore uses
 * system-scope acquire/release:
 *
 *   host : __atomic builtins (x86-64 TSO makes these plain movs plus a compiler
 *          barrier; on weaker CPUs they emit the needed fences).
 *   GPU  : ld.acquire.sys / st.release.sys / ld.relaxed.sys PTX. No volatile plus
 *          __threadfence_system: acquire/release states the edge on the access
 *          itself and is what the PTX memory model defines.
 *
 * Rule of use: a writer fills payload and descriptors with ordinary stores and
 * then publishes an index or tag with gnio_store_release_*; a reader observes it
 * with gnio_load_acquire_* and only then touches the payload. Each call site
 * in ring.h names the store and the load that pair.
 */
#ifndef GNIO_IMPL_ATOMICS_H
#define GNIO_IMPL_ATOMICS_H

#include "hd.h"

#if GNIO_ON_GPU

GNIO_HD uint64_t gnio_load_acquire_u64(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}
GNIO_HD uint32_t gnio_load_acquire_u32(const uint32_t *p)
{
	uint32_t v;
	asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}
GNIO_HD uint64_t gnio_load_relaxed_u64(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}
GNIO_HD uint32_t gnio_load_relaxed_u32(const uint32_t *p)
{
	uint32_t v;
	asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}
/* Two adjacent words in one instruction (16-byte aligned). PTX makes each
 * element its own single-copy-atomic access, in no given order: a reader
 * that needs them together must check each one (ring.h's header words carry
 * their own phase for this). */
GNIO_HD void gnio_load_relaxed_v2_u64(const uint64_t *p, uint64_t *a, uint64_t *b)
{
	asm volatile("ld.relaxed.sys.v2.u64 {%0, %1}, [%2];" : "=l"(*a), "=l"(*b) : "l"(p) : "memory");
}
GNIO_HD void gnio_store_release_u64(uint64_t *p, uint64_t v)
{
	asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
GNIO_HD void gnio_store_release_u32(uint32_t *p, uint32_t v)
{
	asm volatile("st.release.sys.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
GNIO_HD void gnio_store_relaxed_u64(uint64_t *p, uint64_t v)
{
	asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
GNIO_HD void gnio_store_relaxed_u32(uint32_t *p, uint32_t v)
{
	asm volatile("st.relaxed.sys.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
/* Words in device memory that only threads of one GPU share (ticket counter,
 * cached copies of host indexes): GPU scope is enough, and stays in L2. */
GNIO_HD uint64_t gnio_load_acquire_dev_u64(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}
GNIO_HD void gnio_store_release_dev_u64(uint64_t *p, uint64_t v)
{
	asm volatile("st.release.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
GNIO_HD uint64_t gnio_fetch_add_dev_u64(uint64_t *p, uint64_t v)
{
	return (uint64_t)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
/* Words the warps of one block share in shared memory (an RX queue's
 * watchers and its consumer): block scope, no fence beyond the SM. Atomic
 * operations with block fences rather than acquire loads and release
 * stores: compute-sanitizer's racecheck follows atomics, and reports the
 * others as races. */
GNIO_HD uint64_t gnio_load_acquire_cta_u64(uint64_t *p)
{
	const uint64_t v = atomicAdd_block((unsigned long long *)p, 0ull);
	__threadfence_block(); /* the acquire half */
	return v;
}
GNIO_HD void gnio_store_release_cta_u64(uint64_t *p, uint64_t v)
{
	__threadfence_block(); /* the release half */
	atomicExch_block((unsigned long long *)p, (unsigned long long)v);
}
GNIO_HD void gnio_max_release_cta_u64(uint64_t *p, uint64_t v)
{
	__threadfence_block();
	atomicMax_block((unsigned long long *)p, (unsigned long long)v);
}
/* A receive's copy of a completion word that a watcher warp writes and the
 * consumer's warp reads once ready_end says so (struct gnio_rx_watch). In
 * shared memory it is one block-scope atomic, so racecheck sees the pair;
 * in device memory a plain store (racecheck checks shared memory only). */
GNIO_HD void gnio_store_copy_u64(uint64_t *p, uint64_t v)
{
	if (__isShared(p))
		atomicExch_block((unsigned long long *)p, (unsigned long long)v);
	else
		*p = v;
}
GNIO_HD uint32_t gnio_load_cta_u32(uint32_t *p) { return atomicAdd_block(p, 0u); }
GNIO_HD void gnio_store_cta_u32(uint32_t *p, uint32_t v) { atomicExch_block(p, v); }
GNIO_HD int gnio_cas_dev_u64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	unsigned long long old = atomicCAS((unsigned long long *)p,
					   (unsigned long long)*expected,
					   (unsigned long long)desired);
	if (old == *expected)
		return 1;
	*expected = old;
	return 0;
}
/* Words only the threads of one block share (a CTA-shared TX queue). */
GNIO_HD int gnio_cas_cta_u64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	unsigned long long old = atomicCAS_block((unsigned long long *)p, (unsigned long long)*expected,
						 (unsigned long long)desired);
	if (old == *expected)
		return 1;
	*expected = old;
	return 0;
}
GNIO_HD void gnio_fetch_max_dev_u64(uint64_t *p, uint64_t v)
{
	atomicMax((unsigned long long *)p, (unsigned long long)v);
}
GNIO_HD void gnio_cpu_relax(void) { __nanosleep(32); }
/* After relaxed loads that observed a release store: the acquire half of
 * the pair, once for a whole batch of loads (PTX's fence-based acquire). */
GNIO_HD void gnio_fence_acquire_sys(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
/* A load of a completion word in a scan: relaxed; gnio_fence_acquire_sys()
 * after the scan makes the batch an acquire. */
GNIO_HD uint64_t gnio_load_scan_u64(const uint64_t *p) { return gnio_load_relaxed_u64(p); }

#else /* host C, CPU device */

GNIO_HD uint64_t gnio_load_acquire_u64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
GNIO_HD uint32_t gnio_load_acquire_u32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
GNIO_HD uint64_t gnio_load_relaxed_u64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
GNIO_HD uint32_t gnio_load_relaxed_u32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
GNIO_HD void gnio_load_relaxed_v2_u64(const uint64_t *p, uint64_t *a, uint64_t *b)
{
	*a = __atomic_load_n(p, __ATOMIC_RELAXED);
	*b = __atomic_load_n(p + 1, __ATOMIC_RELAXED);
}
GNIO_HD void gnio_store_release_u64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
GNIO_HD void gnio_store_release_u32(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
GNIO_HD void gnio_store_relaxed_u64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
GNIO_HD void gnio_store_relaxed_u32(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
GNIO_HD uint64_t gnio_load_acquire_dev_u64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
/* On the host each scanned load is an acquire itself (a plain load on x86
 * and what ThreadSanitizer can follow: it models no fences, and GCC refuses
 * atomic_thread_fence under -fsanitize=thread), so the fence after a scan
 * only has to keep the compiler from moving later loads above it. */
GNIO_HD uint64_t gnio_load_scan_u64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
GNIO_HD void gnio_fence_acquire_sys(void) { __asm__ volatile("" ::: "memory"); }
GNIO_HD void gnio_store_release_dev_u64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
GNIO_HD void gnio_store_copy_u64(uint64_t *p, uint64_t v) { *p = v; }
GNIO_HD uint64_t gnio_fetch_add_dev_u64(uint64_t *p, uint64_t v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
GNIO_HD int gnio_cas_dev_u64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return __atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
}
GNIO_HD int gnio_cas_cta_u64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return gnio_cas_dev_u64(p, expected, desired);
}
GNIO_HD void gnio_fetch_max_dev_u64(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}
#if defined(__x86_64__) || defined(__i386__)
GNIO_HD void gnio_cpu_relax(void) { __builtin_ia32_pause(); }
#elif defined(__aarch64__)
GNIO_HD void gnio_cpu_relax(void) { __asm__ volatile("yield" ::: "memory"); }
#else
GNIO_HD void gnio_cpu_relax(void) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
#endif

#endif /* GNIO_ON_GPU */

#endif /* GNIO_IMPL_ATOMICS_H */
