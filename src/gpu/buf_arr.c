/* SPDX-License-Identifier: MIT */
/* src/gpu/buf_arr.c - payload pools carved from device allocations. */
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "gpu/buf_arr_priv.h"

gnio_error_t gnio_buf_arr_create(struct gnio_gpu *gpu, void *memptr_gpu, uint32_t elem_size, uint32_t num_elem,
				 struct gnio_buf_arr **arr)
{
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
	a->arr_refs++;
	b->below = gpu->arr_top;
	gpu->arr_top = b;
	pthread_mutex_unlock(&gpu->lock);
	*arr = b;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_buf_arr_start(struct gnio_buf_arr *arr)
{
	if (!arr)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "buf_arr", "start: NULL");
	if (arr->started)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "buf_arr", "buffer array already started");
	struct gnio_gpu_buf_arr h = {.base = arr->base_gpu, .elem_size = arr->elem_size, .num_elem = arr->num_elem};
	GNIO_CHECK(gnio_gpu_put_handle(arr->gpu, &h, sizeof(h), (void **)&arr->handle));
	arr->started = 1;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_buf_arr_destroy(struct gnio_buf_arr *arr)
{
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
	/* A started RX queue may still hold it (the rollback destroys arrays
	 * before it stops queues): its claim ends here, and the memory stays
	 * pinned by the queue until it stops. */
	if (arr->rx_owner)
		*arr->rx_owner = NULL;
	pthread_mutex_unlock(&gpu->lock);
	for (unsigned i = 0; i < GNIO_BUF_ARR_MAX_USERS; i++)
		if (arr->users[i])
			*arr->users[i] = NULL;
	if (arr->handle)
		gnio_gpu_free_internal(gpu, arr->handle);
	free(arr);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_buf_arr_get_gpu_handle(struct gnio_buf_arr *arr, struct gnio_gpu_buf_arr **handle)
{
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

gnio_error_t gnio_buf_arr_add_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot)
{
	for (unsigned i = 0; i < GNIO_BUF_ARR_MAX_USERS; i++) {
		if (!arr->users[i]) {
			arr->users[i] = slot;
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
