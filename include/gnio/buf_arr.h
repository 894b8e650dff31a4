/* SPDX-License-Identifier: MIT */
/*
 * gnio/buf_arr.h - a payload pool registered for the queues (DOCA: doca_buf_arr).
 *
 * A pool is an array of equal elements carved from one gnio_gpu_mem_alloc
 * allocation. It is created, started, then registered with queues before they
 * start. Arrays are destroyed in reverse creation order, and the memory under
 * an array cannot be freed while the array exists.
 */
#ifndef GNIO_BUF_ARR_H
#define GNIO_BUF_ARR_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_gpu;
struct gnio_buf_arr;
struct gnio_gpu_buf_arr; /* GPU handle, gnio/device/buf_arr.h */

/* memptr_gpu must be the start of (or inside) an allocation of this context
 * with num_elem * elem_size bytes after it. Errors: INVALID_VALUE, NO_MEMORY. */
/* @since 0.1 buf_arr: Payload pool registered with queues */
gnio_error_t gnio_buf_arr_create(struct gnio_gpu *gpu, void *memptr_gpu, uint32_t elem_size,
				 uint32_t num_elem, struct gnio_buf_arr **arr);
/* Errors: INVALID_VALUE, BAD_STATE (already started). */
gnio_error_t gnio_buf_arr_start(struct gnio_buf_arr *arr);
/* Errors: INVALID_VALUE, BAD_STATE (a kernel is running on this device, or a
 * later-created array still exists). A started queue that uses the array
 * keeps what its proxy needs until it stops (the rollback destroys arrays
 * before it stops queues, as DOCA's teardown does); the queue's pool
 * registration is cleared, so it does not start again with it. */
gnio_error_t gnio_buf_arr_destroy(struct gnio_buf_arr *arr);
/* Errors: INVALID_VALUE, BAD_STATE (not started). */
gnio_error_t gnio_buf_arr_get_gpu_handle(struct gnio_buf_arr *arr, struct gnio_gpu_buf_arr **handle);

uint32_t gnio_buf_arr_get_elem_size(const struct gnio_buf_arr *arr);
uint32_t gnio_buf_arr_get_num_elem(const struct gnio_buf_arr *arr);
/* Host view of the pool base, NULL for memory the CPU cannot see. */
void *gnio_buf_arr_get_cpu_base(const struct gnio_buf_arr *arr);
/* The array's key: what a send names it by, with the frame's address (DOCA:
 * the mkey of the mmap). Errors: INVALID_VALUE. */
/* @since 0.2 buf_arr_mkey: Buffer array key for sends */
gnio_error_t gnio_buf_arr_get_mkey(const struct gnio_buf_arr *arr, uint32_t *mkey);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_BUF_ARR_H */
