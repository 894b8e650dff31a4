/* SPDX-License-Identifier: MIT */
/* src/gpu/gpu_priv.h - the gnio_gpu context and its bookkeeping (private). */
#ifndef GNIO_SRC_GPU_GPU_PRIV_H
#define GNIO_SRC_GPU_GPU_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include "gnio/gpu.h"
#include "backend.h"

struct gnio_buf_arr;

struct gnio_gpu_alloc {
	struct gnio_gpu_alloc *next;
	enum gnio_gpu_mem_type type;
	void *gpu_ptr;
	void *cpu_ptr;  /* NULL for GPU memory */
	size_t size;
	unsigned arr_refs; /* buffer arrays carved from it */
	int internal;      /* made by the library for rings and handles */
	int external;      /* the application's memory (gnio_gpu_mem_register) */
	void *user_addr;   /* external: the address the application gave */
	int token;         /* external: the backend's note for unregister */
};

struct gnio_gpu {
	const struct gnio_gpu_ops *ops;
	void *priv;
	char bus_id[32];
	char name[128];
	int cuda_ordinal; /* -1 on the CPU device */

	pthread_mutex_t lock; /* control path only */
	struct gnio_gpu_alloc *allocs;
	unsigned num_user_allocs;
	unsigned num_ctx;      /* queues bound with set_datapath_on_gpu */
	unsigned num_runners;  /* runners created and not destroyed */
	unsigned num_running;  /* kernels running, exited-unreaped or hung */
	unsigned num_hung;     /* kernels that missed a stop deadline */
	unsigned num_sems;
	struct gnio_buf_arr *arr_top; /* most recently created array */
};

/* Library-internal allocation (rings, handles); tracked but not counted as
 * user memory. Same errors as gnio_gpu_mem_alloc. */
gnio_error_t gnio_gpu_alloc_internal(struct gnio_gpu *gpu, size_t size, enum gnio_gpu_mem_type type,
				     void **gpu_ptr, void **cpu_ptr);
gnio_error_t gnio_gpu_free_internal(struct gnio_gpu *gpu, void *gpu_ptr);
/* Find the allocation holding [gpu_ptr, gpu_ptr+len). Caller holds gpu->lock. */
struct gnio_gpu_alloc *gnio_gpu_find_alloc(struct gnio_gpu *gpu, const void *gpu_ptr, size_t len);
/* Free (gnio_gpu_mem_alloc) or unregister (gnio_gpu_mem_register) the
 * application's memory at gpu_ptr, whichever it is: the rollback's step 4. */
gnio_error_t gnio_gpu_release_user_mem(struct gnio_gpu *gpu, void *gpu_ptr);
/* Copy a host struct into a device-resident handle (control path). */
gnio_error_t gnio_gpu_put_handle(struct gnio_gpu *gpu, const void *src, size_t size, void **dev_handle);

#endif
