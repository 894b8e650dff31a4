/* SPDX-License-Identifier: MIT */
/*
 * gnio/semaphore.h - GPU to CPU hand-off items (DOCA: doca_gpu_semaphore).
 * Each item has a status and a fixed-size custom-info area. The kernel fills
 * the info, then sets READY; a CPU thread reads it and sets DONE or FREE.
 *
 * Order of use, as DOCA: create -> set_memory_type, set_items_num,
 * set_custom_info -> start -> get_gpu_handle (pass it to the kernel) ...
 * stop -> destroy. Items and info live in pinned host memory mapped into the
 * device, so both sides read them without copies.
 */
#ifndef GNIO_SEMAPHORE_H
#define GNIO_SEMAPHORE_H

#include <stdint.h>
#include "error.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_gpu_semaphore;
struct gnio_gpu_semaphore_gpu; /* GPU handle, gnio/device/semaphore.h */

enum gnio_gpu_semaphore_status {
	GNIO_GPU_SEMAPHORE_STATUS_FREE = 0,
	GNIO_GPU_SEMAPHORE_STATUS_READY = 1,
	GNIO_GPU_SEMAPHORE_STATUS_DONE = 2,
	GNIO_GPU_SEMAPHORE_STATUS_HOLD = 3,
	GNIO_GPU_SEMAPHORE_STATUS_ERROR = 4,
	GNIO_GPU_SEMAPHORE_STATUS_EXIT = 5,
};

/* Errors: INVALID_VALUE, NO_MEMORY. */
/* @since 0.2 gpu_semaphore: GPU-to-CPU hand-off semaphore (create, configure, start) */
gnio_error_t gnio_gpu_semaphore_create(struct gnio_gpu *gpu, struct gnio_gpu_semaphore **sem);
/* Where the items live: CPU_GPU (default), or GPU_CPU (which, as in DOCA
 * without GDRCopy, is served from CPU_GPU memory). GPU: NOT_SUPPORTED, the
 * CPU could not read the items. Errors also: INVALID_VALUE, BAD_STATE
 * (started). */
gnio_error_t gnio_gpu_semaphore_set_memory_type(struct gnio_gpu_semaphore *sem, enum gnio_gpu_mem_type type);
/* Number of items, 1..1M. Errors: INVALID_VALUE, BAD_STATE (started). */
gnio_error_t gnio_gpu_semaphore_set_items_num(struct gnio_gpu_semaphore *sem, uint32_t num_items);
/* Bytes of custom info per item (0..64 KiB) and where it lives (as
 * set_memory_type). Errors: INVALID_VALUE, NOT_SUPPORTED, BAD_STATE. */
gnio_error_t gnio_gpu_semaphore_set_custom_info(struct gnio_gpu_semaphore *sem, uint32_t nbytes,
						enum gnio_gpu_mem_type type);
/* Allocate and clear the items (all FREE). Errors: INVALID_VALUE, BAD_STATE
 * (started, or no items set), NO_MEMORY, DRIVER. */
gnio_error_t gnio_gpu_semaphore_start(struct gnio_gpu_semaphore *sem);
/* Free the items. Errors: INVALID_VALUE, BAD_STATE (not started, or a kernel
 * is running on this device and may still write them). */
gnio_error_t gnio_gpu_semaphore_stop(struct gnio_gpu_semaphore *sem);
/* Errors: INVALID_VALUE, BAD_STATE (a kernel is running on this device).
 * Stops a started semaphore first. */
gnio_error_t gnio_gpu_semaphore_destroy(struct gnio_gpu_semaphore *sem);
/* Errors: INVALID_VALUE, BAD_STATE (not started). */
gnio_error_t gnio_gpu_semaphore_get_gpu_handle(struct gnio_gpu_semaphore *sem,
					       struct gnio_gpu_semaphore_gpu **handle);
/* Errors: INVALID_VALUE (index out of range), BAD_STATE (not started). */
gnio_error_t gnio_gpu_semaphore_get_status(struct gnio_gpu_semaphore *sem, uint32_t idx,
					   enum gnio_gpu_semaphore_status *status);
gnio_error_t gnio_gpu_semaphore_set_status(struct gnio_gpu_semaphore *sem, uint32_t idx,
					   enum gnio_gpu_semaphore_status status);
gnio_error_t gnio_gpu_semaphore_get_custom_info_addr(struct gnio_gpu_semaphore *sem, uint32_t idx,
						     void **addr);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_SEMAPHORE_H */
