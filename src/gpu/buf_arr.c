/* SPDX-License-Identifier: MIT */
/* src/gpu/buf_arr.c - payload pools carved from device allocations. */
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "gpu/buf_arr_priv.h"

static uint32_t next_key;

gnio_error_t gnio_buf_arr_create(struct gnio_gpu *gpu, void *memptr_gpu, uint32_t elem_size, uint32_t num_elem,
				 struct gnio_buf_arr **arr)
{
	gnio_api_enter();
	if (!gpu || !memptr_gpu || !arr)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "buf_arr", "create: NULL argument");
	if (!elem_size || !num_elem)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "buf_arr", "element size and count must be non-zero");
	size_t bytes = (size_t)elem_size * num_elem;
	pthread_mutex_lock(&gpu->lock);
	struct gnio_gpu_alloc *a = gnio_gpu_find_alloc(gpu, memptr_gpu, bytes);
	if (!a || a->internal) {
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "buf_arr",
				 "%zu bytes at %p are not inside one allocation of device %s", bytes, memptr_gpu,
				 gpu->bus_id);
	}
	struct gnio_buf_arr *b = calloc(1, sizeof(*b));
	if (!b) {
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "buf_arr", "out of memory");
	}
	b->gpu = gpu;
	b->alloc = a;
	b->type = a->type;
	b->base_gpu = memptr_gpu;
	b->base_cpu = a->cpu_ptr ? (uint8_t *)a->cpu_ptr + ((uint8_t *)memptr_gpu - (uint8_t *)a->gpu_ptr) : NULL;
	b->elem_size = elem_size;
	b->num_elem = num_elem;
	b->mkey = GNIO_BUF_ARR_KEY_BASE | (1u + __atomic_fetch_add(&next_key, 1, __ATOMIC_RELAXED) % 0xffffu);
	a->arr_refs++;
	b->below = gpu->arr_top;
	gpu->arr_top = b;
	pthread_mutex_unlock(&gpu->lock);
	*arr = b;
	return GNIO_SUCCESS;
}

static void free_started(struct gnio_buf_arr *arr)
{
	gnio_gpu_free_internal(arr->gpu, arr->handle);
	gnio_gpu_free_internal(arr->gpu, arr->bufs_gpu);
	gnio_gpu_free_internal(arr->gpu, arr->hold_gpu);
	arr->handle = NULL;
	arr->bufs_gpu = NULL;
	arr->hold_gpu = arr->hold_cpu = NULL;
}

gnio_error_t gnio_buf_arr_start(struct gnio_buf_arr *arr)
{
	gnio_api_enter();
	if (!arr)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "buf_arr", "start: NULL");
	if (arr->started)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "buf_arr", "buffer array already started");
	struct gnio_gpu *gpu = arr->gpu;
	gnio_error_t err;
	/* Element descriptors (address + key) for gnio_gpu_dev_buf_get_buf. */
	struct gnio_gpu_buf *d = malloc(sizeof(*d) * arr->num_elem);
	if (!d)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "buf_arr", "out of memory for %u descriptors", arr->num_elem);
	for (uint32_t i = 0; i < arr->num_elem; i++)
		d[i] = (struct gnio_gpu_buf){(uint64_t)(uintptr_t)(arr->base_gpu + (uint64_t)i * arr->elem_size),
					     arr->mkey, arr->elem_size};
	err = gnio_gpu_put_handle(gpu, d, sizeof(*d) * arr->num_elem, (void **)&arr->bufs_gpu);
	free(d);
	if (err != GNIO_SUCCESS)
		goto fail;
	void *hold_cpu;
	err = gnio_gpu_alloc_internal(gpu, sizeof(uint32_t) * arr->num_elem, GNIO_GPU_MEM_TYPE_CPU_GPU,
				      (void **)&arr->hold_gpu, &hold_cpu);
	if (err != GNIO_SUCCESS)
		goto fail;
	arr->hold_cpu = hold_cpu;
	memset(arr->hold_cpu, 0, sizeof(uint32_t) * arr->num_elem);
	struct gnio_gpu_buf_arr h = {.base = arr->base_gpu, .bufs = arr->bufs_gpu, .elem_size = arr->elem_size,
				     .num_elem = arr->num_elem, .mkey = arr->mkey};
	err = gnio_gpu_put_handle(gpu, &h, sizeof(h), (void **)&arr->handle);
	if (err != GNIO_SUCCESS)
		goto fail;
	arr->started = 1;
	return GNIO_SUCCESS;
fail:
	free_started(arr);
	return err;
}

gnio_error_t gnio_buf_arr_destroy(struct gnio_buf_arr *arr)
{
	gnio_api_enter();
	if (!arr)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "buf_arr", "destroy: NULL");
	struct gnio_gpu *gpu = arr->gpu;
	pthread_mutex_lock(&gpu->lock);
	if (gpu->num_running) {
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_BAD_STATE, "buf_arr",
				 "a kernel is running (or hung) on %s and may read this pool; stop it first", gpu->bus_id);
	}
	if (gpu->arr_top != arr) {
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_BAD_STATE, "buf_arr",
				 "buffer arrays are destroyed in reverse creation order; destroy the newer ones first");
	}
	gpu->arr_top = arr->below;
	arr->alloc->arr_refs--;
	/* Its RX claim ends here too (the queue's release then finds none). */
	if (arr->rx_owner)
		*arr->rx_owner = NULL;
	/* The rollback destroys arrays (step 2) before it stops the queues
	 * (step 3), as DOCA's teardown does: a started queue's proxy may still
	 * use the array's hold words, so the last queue to stop frees it. */
	int deferred = arr->started_users != 0;
	arr->destroyed = 1;
	pthread_mutex_unlock(&gpu->lock);
	for (unsigned i = 0; i < GNIO_BUF_ARR_MAX_USERS; i++)
		if (arr->users[i])
			*arr->users[i] = NULL;
	if (!deferred)
		gnio_buf_arr_free(arr);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_buf_arr_get_gpu_handle(struct gnio_buf_arr *arr, struct gnio_gpu_buf_arr **handle)
{
	gnio_api_enter();
	if (!arr || !handle)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "buf_arr", "get_gpu_handle: NULL argument");
	if (!arr->started)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "buf_arr", "start the buffer array before taking its handle");
	*handle = arr->handle;
	return GNIO_SUCCESS;
}

uint32_t gnio_buf_arr_get_elem_size(const struct gnio_buf_arr *arr) { return arr ? arr->elem_size : 0; }
uint32_t gnio_buf_arr_get_num_elem(const struct gnio_buf_arr *arr) { return arr ? arr->num_elem : 0; }
void *gnio_buf_arr_get_cpu_base(const struct gnio_buf_arr *arr) { return arr ? arr->base_cpu : NULL; }

gnio_error_t gnio_buf_arr_claim_rx(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot, const char *kind)
{
	pthread_mutex_lock(&arr->gpu->lock);
	if (arr->rx_owner && arr->rx_owner != slot) {
		pthread_mutex_unlock(&arr->gpu->lock);
		return gnio_fail(GNIO_ERROR_IN_USE, kind,
				 "the pool is already filled by another started RX queue; give each RX queue its own "
				 "buffer array");
	}
	arr->rx_owner = slot;
	*slot = arr;
	pthread_mutex_unlock(&arr->gpu->lock);
	return GNIO_SUCCESS;
}

void gnio_buf_arr_unclaim_rx(struct gnio_gpu *gpu, struct gnio_buf_arr **slot)
{
	/* The gpu's lock, not the array's pointer: the array may be destroyed
	 * (clearing *slot under this lock) by another thread meanwhile. */
	pthread_mutex_lock(&gpu->lock);
	if (*slot && (*slot)->rx_owner == slot)
		(*slot)->rx_owner = NULL;
	*slot = NULL;
	pthread_mutex_unlock(&gpu->lock);
}

gnio_error_t gnio_buf_arr_get_mkey(const struct gnio_buf_arr *arr, uint32_t *mkey)
{
	gnio_api_enter();
	if (!arr || !mkey)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "buf_arr", "get_mkey: NULL argument");
	*mkey = arr->mkey;
	return GNIO_SUCCESS;
}

void gnio_buf_arr_free(struct gnio_buf_arr *arr)
{
	free_started(arr);
	free(arr);
}

int gnio_buf_arr_is_rx_pool(const struct gnio_buf_arr *arr)
{
	for (unsigned i = 0; i < GNIO_BUF_ARR_MAX_USERS; i++)
		if (arr->users[i] && arr->user_is_rx[i])
			return 1;
	return 0;
}

gnio_error_t gnio_buf_arr_add_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot, int is_rx)
{
	for (unsigned i = 0; i < GNIO_BUF_ARR_MAX_USERS; i++) {
		if (!arr->users[i]) {
			arr->users[i] = slot;
			arr->user_is_rx[i] = (uint8_t)!!is_rx;
			return GNIO_SUCCESS;
		}
	}
	return gnio_fail(GNIO_ERROR_FULL, "buf_arr", "a pool serves at most %d queues", GNIO_BUF_ARR_MAX_USERS);
}

void gnio_buf_arr_del_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot)
{
	for (unsigned i = 0; i < GNIO_BUF_ARR_MAX_USERS; i++)
		if (arr->users[i] == slot)
			arr->users[i] = NULL;
}
