/* SPDX-License-Identifier: MIT */
/*
 * gnio/impl/hd.h - qualifiers that let one function body compile as CUDA
 * device code, CUDA host code and plain C11 (the CPU device).
 *
 * GNIO_HD     : callable from host and device, always inlined.
 * GNIO_DEV    : device-side API; on the CPU device it is ordinary host C.
 * GNIO_ON_GPU : 1 while nvcc compiles device code, else 0.
 */
#ifndef GNIO_IMPL_HD_H
#define GNIO_IMPL_HD_H

#include <stdint.h>
#include <stddef.h>

#if defined(__CUDACC__)
#define GNIO_HD __host__ __device__ __forceinline__
#define GNIO_DEV __device__ __forceinline__
#else
#define GNIO_HD static inline __attribute__((always_inline))
#define GNIO_DEV static inline __attribute__((always_inline))
#endif

#if defined(__CUDA_ARCH__)
#define GNIO_ON_GPU 1
#else
#define GNIO_ON_GPU 0
#endif

/* The GPU moves memory in 128-byte lines; words written by different agents
 * (proxy, kernel) sit on separate lines so they never share one. */
#define GNIO_LINE 128

#if defined(__cplusplus)
#define GNIO_ALIGNED(n) alignas(n)
#else
#define GNIO_ALIGNED(n) _Alignas(n)
#endif

/* Fully unroll the next loop (constant trip count) where the compiler
 * supports it: on the GPU it keeps per-iteration values in registers, so
 * independent loads are all in flight at once. */
#if defined(__CUDA_ARCH__)
#define GNIO_UNROLL _Pragma("unroll")
#else
#define GNIO_UNROLL
#endif

#define GNIO_LIKELY(x) __builtin_expect(!!(x), 1)
#define GNIO_UNLIKELY(x) __builtin_expect(!!(x), 0)

#endif /* GNIO_IMPL_HD_H */
