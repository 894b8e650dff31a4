/* SPDX-License-Identifier: MIT */
/* src/gpu/buf_arr_priv.h - a registered payload pool (private). */
#ifndef GNIO_SRC_GPU_BUF_ARR_PRIV_H
#define GNIO_SRC_GPU_BUF_ARR_PRIV_H

#include "gnio/buf_arr.h"
#include "gnio/device/buf_arr.h"
#include "gpu/gpu_priv.h"

#define GNIO_BUF_ARR_MAX_USERS 16

struct gnio_buf_arr {
	struct gnio_gpu *gpu;
	struct gnio_gpu_alloc *alloc; /* allocation it was carved from */
	struct gnio_buf_arr *below;   /* the array created before it */
	uint8_t *base_gpu;
	uint8_t *base_cpu;            /* NULL when the CPU cannot see the memory */
	enum gnio_gpu_mem_type type;
	uint32_t elem_size;
	uint32_t num_elem;
	int started;
	struct gnio_gpu_buf_arr *handle; /* device copy, once started */
	/* Queues that registered it; cleared when the array goes away. */
	struct gnio_buf_arr **users[GNIO_BUF_ARR_MAX_USERS];
};

/* Register/unregister a queue's pool pointer (so destroy can clear it). */
gnio_error_t gnio_buf_arr_add_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot);
void gnio_buf_arr_del_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot);

#endif
