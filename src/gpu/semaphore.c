/* SPDX-License-Identifier: MIT */
/* src/gpu/semaphore.c - GPU-to-CPU hand-off items in pinned, mapped memory. */
#include <stdlib.h>
#include "core/errmsg.h"
#include "gnio/semaphore.h"
#include "gnio/device/semaphore.h"
#include "gpu/gpu_priv.h"

struct gnio_gpu_semaphore {
	struct gnio_gpu *gpu;
	void *mem_gpu;
	uint8_t *mem_cpu;
	uint32_t *status_cpu;
	uint8_t *info_cpu;
	uint32_t num_items;
	uint32_t info_size;
	struct gnio_gpu_semaphore_gpu *handle;
};

gnio_error_t gnio_gpu_semaphore_create(struct gnio_gpu *gpu, uint32_t num_items, uint32_t custom_info_size,
				       struct gnio_gpu_semaphore **sem)
{
	if (!gpu || !sem)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "create: NULL argument");
	if (!num_items || num_items > (1u << 20))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "items must be 1..%u", 1u << 20);
	if (custom_info_size > 65536)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "custom info is limited to 64 KiB per item");
	struct gnio_gpu_semaphore *s = calloc(1, sizeof(*s));
	if (!s)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "semaphore", "out of memory");
	size_t status_bytes = ((size_t)num_items * 4 + GNIO_LINE - 1) / GNIO_LINE * GNIO_LINE;
	size_t bytes = status_bytes + (size_t)num_items * custom_info_size;
	void *cpu;
	gnio_error_t err = gnio_gpu_alloc_internal(gpu, bytes, GNIO_GPU_MEM_TYPE_CPU_GPU, &s->mem_gpu, &cpu);
	if (err != GNIO_SUCCESS) {
		free(s);
		return err;
	}
	s->gpu = gpu;
	s->mem_cpu = cpu;
	s->status_cpu = cpu;
	s->info_cpu = (uint8_t *)cpu + status_bytes;
	s->num_items = num_items;
	s->info_size = custom_info_size;
	struct gnio_gpu_semaphore_gpu h = {
		.status = s->mem_gpu,
		.info = (uint8_t *)s->mem_gpu + status_bytes,
		.num_items = num_items,
		.info_size = custom_info_size,
	};
	err = gnio_gpu_put_handle(gpu, &h, sizeof(h), (void **)&s->handle);
	if (err != GNIO_SUCCESS) {
		gnio_gpu_free_internal(gpu, s->mem_gpu);
		free(s);
		return err;
	}
	pthread_mutex_lock(&gpu->lock);
	gpu->num_sems++;
	pthread_mutex_unlock(&gpu->lock);
	*sem = s;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_destroy(struct gnio_gpu_semaphore *sem)
{
	if (!sem)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "destroy: NULL");
	struct gnio_gpu *gpu = sem->gpu;
	pthread_mutex_lock(&gpu->lock);
	unsigned running = gpu->num_running;
	pthread_mutex_unlock(&gpu->lock);
	if (running)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "semaphore",
				 "a kernel is running (or hung) on %s and may write this semaphore", gpu->bus_id);
	gnio_gpu_free_internal(gpu, sem->handle);
	gnio_gpu_free_internal(gpu, sem->mem_gpu);
	pthread_mutex_lock(&gpu->lock);
	gpu->num_sems--;
	pthread_mutex_unlock(&gpu->lock);
	free(sem);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_get_gpu_handle(struct gnio_gpu_semaphore *sem, struct gnio_gpu_semaphore_gpu **handle)
{
	if (!sem || !handle)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "get_gpu_handle: NULL argument");
	*handle = sem->handle;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_get_status(struct gnio_gpu_semaphore *sem, uint32_t idx,
					   enum gnio_gpu_semaphore_status *status)
{
	if (!sem || !status || idx >= sem->num_items)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "get_status: bad argument or index");
	/* ACQUIRE(sem.status): pairs with the kernel's RELEASE in
	 * gnio_dev_semaphore_set_status(); the custom info is read after this. */
	*status = (enum gnio_gpu_semaphore_status)gnio_load_acquire_u32(&sem->status_cpu[idx]);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_set_status(struct gnio_gpu_semaphore *sem, uint32_t idx,
					   enum gnio_gpu_semaphore_status status)
{
	if (!sem || idx >= sem->num_items || (unsigned)status > GNIO_GPU_SEMAPHORE_STATUS_EXIT)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "set_status: bad argument or index");
	/* RELEASE(sem.status): the host finished with the info before the kernel
	 * sees FREE; pairs with ACQUIRE in gnio_dev_semaphore_get_status(). */
	gnio_store_release_u32(&sem->status_cpu[idx], (uint32_t)status);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_get_custom_info_addr(struct gnio_gpu_semaphore *sem, uint32_t idx, void **addr)
{
	if (!sem || !addr || idx >= sem->num_items)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "get_custom_info_addr: bad argument or index");
	*addr = sem->info_cpu + (size_t)idx * sem->info_size;
	return GNIO_SUCCESS;
}
