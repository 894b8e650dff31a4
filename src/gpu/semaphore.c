/* SPDX-License-Identifier: MIT */
/* src/gpu/semaphore.c - GPU-to-CPU hand-off items in pinned, mapped memory. */
#include <stdlib.h>
#include "core/errmsg.h"
#include "gnio/semaphore.h"
#include "gnio/device/semaphore.h"
#include "gpu/gpu_priv.h"

#define SEM_MAX_ITEMS (1u << 20)
#define SEM_MAX_INFO 65536u

struct gnio_gpu_semaphore {
	struct gnio_gpu *gpu;
	uint32_t num_items;
	uint32_t info_size;
	int started;
	void *mem_gpu;
	uint32_t *status_cpu;
	uint8_t *info_cpu;
	struct gnio_gpu_semaphore_gpu *handle;
};

gnio_error_t gnio_gpu_semaphore_create(struct gnio_gpu *gpu, struct gnio_gpu_semaphore **sem)
{
	gnio_api_enter();
	if (!gpu || !sem)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "create: NULL argument");
	struct gnio_gpu_semaphore *s = calloc(1, sizeof(*s));
	if (!s)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "semaphore", "out of memory");
	s->gpu = gpu;
	pthread_mutex_lock(&gpu->lock);
	gpu->num_sems++;
	pthread_mutex_unlock(&gpu->lock);
	*sem = s;
	return GNIO_SUCCESS;
}

static gnio_error_t check_setter(struct gnio_gpu_semaphore *sem, const char *what)
{
	if (!sem)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "%s: NULL semaphore", what);
	if (sem->started)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "semaphore", "%s: the semaphore is started; stop it first", what);
	return GNIO_SUCCESS;
}

static gnio_error_t check_mem_type(enum gnio_gpu_mem_type type, const char *what)
{
	if (type == GNIO_GPU_MEM_TYPE_CPU_GPU || type == GNIO_GPU_MEM_TYPE_GPU_CPU)
		return GNIO_SUCCESS;
	if (type == GNIO_GPU_MEM_TYPE_GPU)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "semaphore",
				 "%s: GPU memory would hide the items from the CPU; use CPU_GPU", what);
	return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "%s: unknown memory type %d", what, (int)type);
}

gnio_error_t gnio_gpu_semaphore_set_memory_type(struct gnio_gpu_semaphore *sem, enum gnio_gpu_mem_type type)
{
	gnio_api_enter();
	GNIO_CHECK(check_setter(sem, "set_memory_type"));
	return check_mem_type(type, "set_memory_type");
}

gnio_error_t gnio_gpu_semaphore_set_items_num(struct gnio_gpu_semaphore *sem, uint32_t num_items)
{
	gnio_api_enter();
	GNIO_CHECK(check_setter(sem, "set_items_num"));
	if (!num_items || num_items > SEM_MAX_ITEMS)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "items must be 1..%u, not %u", SEM_MAX_ITEMS,
				 num_items);
	sem->num_items = num_items;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_set_custom_info(struct gnio_gpu_semaphore *sem, uint32_t nbytes,
						enum gnio_gpu_mem_type type)
{
	gnio_api_enter();
	GNIO_CHECK(check_setter(sem, "set_custom_info"));
	if (nbytes > SEM_MAX_INFO)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore",
				 "custom info of %u bytes: the limit is %u per item", nbytes, SEM_MAX_INFO);
	GNIO_CHECK(check_mem_type(type, "set_custom_info"));
	sem->info_size = nbytes;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_start(struct gnio_gpu_semaphore *sem)
{
	gnio_api_enter();
	GNIO_CHECK(check_setter(sem, "start"));
	if (!sem->num_items)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "semaphore", "start: set the number of items first");
	struct gnio_gpu *gpu = sem->gpu;
	size_t status_bytes = ((size_t)sem->num_items * 4 + GNIO_LINE - 1) / GNIO_LINE * GNIO_LINE;
	size_t bytes = status_bytes + (size_t)sem->num_items * sem->info_size;
	void *cpu;
	GNIO_CHECK(gnio_gpu_alloc_internal(gpu, bytes, GNIO_GPU_MEM_TYPE_CPU_GPU, &sem->mem_gpu, &cpu));
	struct gnio_gpu_semaphore_gpu h = {
		.status = sem->mem_gpu,
		.info = (uint8_t *)sem->mem_gpu + status_bytes,
		.num_items = sem->num_items,
		.info_size = sem->info_size,
	};
	gnio_error_t err = gnio_gpu_put_handle(gpu, &h, sizeof(h), (void **)&sem->handle);
	if (err != GNIO_SUCCESS) {
		gnio_gpu_free_internal(gpu, sem->mem_gpu);
		sem->mem_gpu = NULL;
		return err;
	}
	sem->status_cpu = cpu;
	sem->info_cpu = (uint8_t *)cpu + status_bytes;
	sem->started = 1;
	return GNIO_SUCCESS;
}

static gnio_error_t check_no_kernel(struct gnio_gpu_semaphore *sem, const char *what)
{
	struct gnio_gpu *gpu = sem->gpu;
	pthread_mutex_lock(&gpu->lock);
	unsigned running = gpu->num_running;
	pthread_mutex_unlock(&gpu->lock);
	if (running)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "semaphore",
				 "%s: a kernel is running (or hung) on %s and may write this semaphore", what,
				 gpu->bus_id);
	return GNIO_SUCCESS;
}

static gnio_error_t sem_stop(struct gnio_gpu_semaphore *sem)
{
	GNIO_CHECK(check_no_kernel(sem, "stop"));
	gnio_gpu_free_internal(sem->gpu, sem->handle);
	gnio_gpu_free_internal(sem->gpu, sem->mem_gpu);
	sem->handle = NULL;
	sem->mem_gpu = NULL;
	sem->status_cpu = NULL;
	sem->info_cpu = NULL;
	sem->started = 0;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_stop(struct gnio_gpu_semaphore *sem)
{
	gnio_api_enter();
	if (!sem)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "stop: NULL");
	if (!sem->started)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "semaphore", "stop: the semaphore is not started");
	return sem_stop(sem);
}

gnio_error_t gnio_gpu_semaphore_destroy(struct gnio_gpu_semaphore *sem)
{
	gnio_api_enter();
	if (!sem)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "destroy: NULL");
	GNIO_CHECK(check_no_kernel(sem, "destroy"));
	if (sem->started)
		GNIO_CHECK(sem_stop(sem));
	struct gnio_gpu *gpu = sem->gpu;
	pthread_mutex_lock(&gpu->lock);
	gpu->num_sems--;
	pthread_mutex_unlock(&gpu->lock);
	free(sem);
	return GNIO_SUCCESS;
}

static gnio_error_t check_item(struct gnio_gpu_semaphore *sem, uint32_t idx, const void *out, const char *what)
{
	if (!sem || !out)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "%s: NULL argument", what);
	if (!sem->started)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "semaphore", "%s: the semaphore is not started", what);
	if (idx >= sem->num_items)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "%s: item %u is outside 0..%u", what, idx,
				 sem->num_items - 1);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_get_gpu_handle(struct gnio_gpu_semaphore *sem, struct gnio_gpu_semaphore_gpu **handle)
{
	gnio_api_enter();
	if (!sem || !handle)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "get_gpu_handle: NULL argument");
	if (!sem->started)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "semaphore", "get_gpu_handle: start the semaphore first");
	*handle = sem->handle;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_get_status(struct gnio_gpu_semaphore *sem, uint32_t idx,
					   enum gnio_gpu_semaphore_status *status)
{
	gnio_api_enter();
	GNIO_CHECK(check_item(sem, idx, status, "get_status"));
	/* ACQUIRE(sem.status): pairs with the kernel's RELEASE in
	 * gnio_gpu_dev_semaphore_set_status(); the custom info is read after. */
	*status = (enum gnio_gpu_semaphore_status)gnio_load_acquire_u32(&sem->status_cpu[idx]);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_set_status(struct gnio_gpu_semaphore *sem, uint32_t idx,
					   enum gnio_gpu_semaphore_status status)
{
	gnio_api_enter();
	GNIO_CHECK(check_item(sem, idx, sem, "set_status"));
	if ((unsigned)status > GNIO_GPU_SEMAPHORE_STATUS_EXIT)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "semaphore", "set_status: unknown status %u",
				 (unsigned)status);
	/* RELEASE(sem.status): the host finished with the info before the kernel
	 * sees FREE; pairs with ACQUIRE in gnio_gpu_dev_semaphore_get_status(). */
	gnio_store_release_u32(&sem->status_cpu[idx], (uint32_t)status);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_semaphore_get_custom_info_addr(struct gnio_gpu_semaphore *sem, uint32_t idx, void **addr)
{
	gnio_api_enter();
	GNIO_CHECK(check_item(sem, idx, addr, "get_custom_info_addr"));
	if (!sem->info_size)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "semaphore",
				 "get_custom_info_addr: no custom info was set (gnio_gpu_semaphore_set_custom_info)");
	*addr = sem->info_cpu + (size_t)idx * sem->info_size;
	return GNIO_SUCCESS;
}
