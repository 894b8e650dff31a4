/* SPDX-License-Identifier: MIT */
/*
 * gnio/semaphore.h - GPU to CPU hand-off items (DOCA: doca_gpu_semaphore).
 * Each item has a status and a fixed-size custom-info area. The kernel fills
 * the info, then sets READY; a CPU thread reads it and sets DONE or FREE.
 */
#ifndef GNIO_SEMAPHORE_H
#define GNIO_SEMAPHORE_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_gpu;
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

/* Errors: INVALID_VALUE (zero items, info larger than 64 KiB), NO_MEMORY. */
/* @since 0.1 gpu_semaphore: GPU-to-CPU hand-off semaphore */
gnio_error_t gnio_gpu_semaphore_create(struct gnio_gpu *gpu, uint32_t num_items,
				       uint32_t custom_info_size, struct gnio_gpu_semaphore **sem);
/* Errors: INVALID_VALUE, BAD_STATE (a kernel is running on this device). */
gnio_error_t gnio_gpu_semaphore_destroy(struct gnio_gpu_semaphore *sem);
gnio_error_t gnio_gpu_semaphore_get_gpu_handle(struct gnio_gpu_semaphore *sem,
					       struct gnio_gpu_semaphore_gpu **handle);
/* Errors: INVALID_VALUE (index out of range). */
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
