/* SPDX-License-Identifier: MIT */
/* gnio/device/semaphore.h - kernel side of gnio/semaphore.h (DOCA:
 * doca_gpunetio_dev_sem.cuh). The kernel writes an item's custom info, then
 * sets its status with release; the CPU reads the status with acquire, then
 * the info. */
#ifndef GNIO_DEVICE_SEMAPHORE_H
#define GNIO_DEVICE_SEMAPHORE_H

#include "../impl/atomics.h"
#include "../error.h"
#include "../semaphore.h"

struct gnio_gpu_semaphore_gpu {
	uint32_t *status;   /* num_items words, pinned host memory */
	uint8_t *info;      /* num_items * info_size bytes */
	uint32_t num_items;
	uint32_t info_size;
};

/* @since 0.2 dev_semaphore: Device-side semaphore status and custom info */
GNIO_DEV gnio_error_t gnio_gpu_dev_semaphore_set_status(const struct gnio_gpu_semaphore_gpu *sem, uint32_t idx,
							enum gnio_gpu_semaphore_status status)
{
	if (idx >= sem->num_items)
		return GNIO_ERROR_INVALID_VALUE;
	/* RELEASE(sem.status): custom info written before; pairs with the host's
	 * ACQUIRE(sem.status) in gnio_gpu_semaphore_get_status(). */
	gnio_store_release_u32(&sem->status[idx], (uint32_t)status);
	return GNIO_SUCCESS;
}

GNIO_DEV gnio_error_t gnio_gpu_dev_semaphore_get_status(const struct gnio_gpu_semaphore_gpu *sem, uint32_t idx,
							enum gnio_gpu_semaphore_status *status)
{
	if (idx >= sem->num_items)
		return GNIO_ERROR_INVALID_VALUE;
	/* ACQUIRE(sem.status): pairs with the host's RELEASE in
	 * gnio_gpu_semaphore_set_status(), so a FREE item's info may be rewritten. */
	*status = (enum gnio_gpu_semaphore_status)gnio_load_acquire_u32(&sem->status[idx]);
	return GNIO_SUCCESS;
}

GNIO_DEV gnio_error_t gnio_gpu_dev_semaphore_get_custom_info_addr(const struct gnio_gpu_semaphore_gpu *sem,
								  uint32_t idx, void **custom_info)
{
	if (idx >= sem->num_items)
		return GNIO_ERROR_INVALID_VALUE;
	*custom_info = (void *)(sem->info + (uint64_t)idx * sem->info_size);
	return GNIO_SUCCESS;
}

#endif /* GNIO_DEVICE_SEMAPHORE_H */
