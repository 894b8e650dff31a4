/* SPDX-License-Identifier: MIT */
/*
 * gnio/buf_arr.h - a payload pool registered for the queues (DOCA: doca_buf_arr).
 *
 * A pool is an array of equal elements carved from one gnio_gpu_mem_alloc
 * allocation. It is created, started, then registered with queues before they
 * start. One started RX queue at most fills a pool (a second one's start is
 * refused with IN_USE: its proxy would write the same slots); TX queues may
 * share a pool, also the RX queue's (in-place send). Arrays are destroyed in
 * reverse creation order, and the memory under an array cannot be freed while
 * the array exists.
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
/* Errors: INVALID_VALUE, BAD_STATE (a kernel is running, or hung, on this
 * device; or a later-created array still exists). A started queue that
 * registered the array does not block it: the rollback destroys arrays
 * (step 2) before it stops the queues (step 3), once no kernel can read
 * them. The queue keeps the memory under the array allocated
 * (gnio_gpu_mem_free is refused) until it stops. */
gnio_error_t gnio_buf_arr_destroy(struct gnio_buf_arr *arr);
/* Errors: INVALID_VALUE, BAD_STATE (not started). */
gnio_error_t gnio_buf_arr_get_gpu_handle(struct gnio_buf_arr *arr, struct gnio_gpu_buf_arr **handle);

uint32_t gnio_buf_arr_get_elem_size(const struct gnio_buf_arr *arr);
uint32_t gnio_buf_arr_get_num_elem(const struct gnio_buf_arr *arr);
/* Host view of the pool base, NULL for memory the CPU cannot see. */
void *gnio_buf_arr_get_cpu_base(const struct gnio_buf_arr *arr);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_BUF_ARR_H */
