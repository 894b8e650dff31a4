/* SPDX-License-Identifier: MIT */
/*
 * gnio/gpu.h - per-device context and its memory (DOCA: doca_gpu).
 *
 * A context is created from a PCIe bus id ("0000:17:00.0" or "17:00.0") for a
 * CUDA GPU, or from "cpu" for the CPU device, which runs the same queue code on
 * host threads when there is no GPU.
 */
#ifndef GNIO_GPU_H
#define GNIO_GPU_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_gpu;

enum gnio_gpu_mem_type {
	GNIO_GPU_MEM_TYPE_GPU = 0,     /* device memory; CPU pointer is NULL */
	GNIO_GPU_MEM_TYPE_GPU_CPU = 1, /* device memory the CPU maps (GDRCopy); without GDRCopy,
					* CPU_GPU memory is served instead, with one WARNING */
	GNIO_GPU_MEM_TYPE_CPU_GPU = 2, /* pinned host memory mapped into the device */
};

/* Errors: INVALID_VALUE (NULL or malformed bus id), NOT_FOUND (no such device),
 * DRIVER (driver missing, unusable or older than the runtime), NOT_SUPPORTED
 * (built without CUDA), NO_MEMORY. */
/* @since 0.1 gpu_context: Per-device context from a PCIe bus id or "cpu" */
gnio_error_t gnio_gpu_create(const char *bus_id, struct gnio_gpu **gpu);
/* Errors: INVALID_VALUE, BAD_STATE (queues, memory, arrays or kernels still
 * use it). */
gnio_error_t gnio_gpu_destroy(struct gnio_gpu *gpu);

/* Allocate. align is a power of two (0 means 256). memptr_cpu may be NULL for
 * GPU memory. GPU_CPU uses GDRCopy when its library (libgdrapi.so.2, loaded
 * at run time) and driver are present and GNIO_DISABLE_GDRCOPY is not set;
 * otherwise it is served as CPU_GPU (both pointers valid), as DOCA does.
 * Errors: INVALID_VALUE, NO_MEMORY, DRIVER, BAD_STATE (a hung kernel holds
 * the device). */
/* @since 0.1 gpu_mem_alloc: Device memory types GPU, GPU_CPU, CPU_GPU */
gnio_error_t gnio_gpu_mem_alloc(struct gnio_gpu *gpu, size_t size, size_t align,
				enum gnio_gpu_mem_type type, void **memptr_gpu, void **memptr_cpu);
/* Errors: INVALID_VALUE (not an allocation of this context), BAD_STATE
 * (registered in a buffer array that still exists or a started queue, or a
 * kernel is running or hung on this device: stop kernels first). */
gnio_error_t gnio_gpu_mem_free(struct gnio_gpu *gpu, void *memptr_gpu);

/* Make the application's own memory usable as if gnio_gpu_mem_alloc had
 * given it, so a buffer array can be carved from it (DOCA: doca_mmap with a
 * memory range): device memory of this GPU (its cudaMalloc), or host memory
 * (pinned and mapped already, or plain memory, which is pinned and mapped
 * until unregistered). On the CPU device any host memory. *memptr_gpu is the
 * device view to pass to gnio_buf_arr_create; *memptr_cpu the host view
 * (NULL for device memory). Errors: INVALID_VALUE (NULL, 0 bytes, memory of
 * another device), ALREADY_EXIST (overlaps memory this context knows),
 * NOT_SUPPORTED (managed memory, pinned host memory not mapped into the
 * device), DRIVER, NO_MEMORY. */
/* @since 0.2 gpu_mem_register: Register the application's device or host memory (doca_mmap counterpart) */
gnio_error_t gnio_gpu_mem_register(struct gnio_gpu *gpu, void *addr, size_t size, void **memptr_gpu,
				   void **memptr_cpu);
/* Undo gnio_gpu_mem_register; memptr_gpu as it returned. The memory itself
 * stays the application's. Errors: INVALID_VALUE (not registered memory of
 * this context), BAD_STATE (a buffer array or started queue uses it, or a
 * kernel runs). */
gnio_error_t gnio_gpu_mem_unregister(struct gnio_gpu *gpu, void *memptr_gpu);

/* "cpu" or the canonical bus id "0000:17:00.0". */
const char *gnio_gpu_get_bus_id(const struct gnio_gpu *gpu);
/* Human name, e.g. "NVIDIA H200" or "CPU device (2 threads)". */
const char *gnio_gpu_get_name(const struct gnio_gpu *gpu);
/* "cuda" or "cpu". */
const char *gnio_gpu_get_backend(const struct gnio_gpu *gpu);
int gnio_gpu_is_cpu(const struct gnio_gpu *gpu);

/* Pick the best device present: the first usable CUDA GPU, else "cpu".
 * Writes its bus id (or "cpu") and, in why, one line saying why. */
/* @since 0.1 gpu_pick_best: Pick the best device present */
gnio_error_t gnio_gpu_pick_best(char *bus_id, size_t bus_id_len, char *why, size_t why_len);

/* Parse a bus id into canonical form "DDDD:BB:DD.F" (lower case).
 * Errors: INVALID_VALUE. */
gnio_error_t gnio_gpu_bus_id_canonical(const char *in, char *out, size_t out_len);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_GPU_H */
