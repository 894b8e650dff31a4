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
	/* Started queues using it (gnio_buf_arr_claim), under gpu->lock. */
	unsigned rx_queues, tx_queues;
	/* Queues that registered it; cleared when the array goes away. */
	struct gnio_buf_arr **users[GNIO_BUF_ARR_MAX_USERS];
};

/* A queue starts or stops using the pool (call claim at queue start, before
 * the wire queue opens, and unclaim at stop and on start's failure paths).
 * While any started queue holds a claim, gnio_buf_arr_destroy is refused
 * (BAD_STATE). One started RX queue at most fills a pool: a second one would
 * have its proxy write the same slots (IN_USE). TX queues may share a pool
 * with anything, so a TX queue can send in place from the RX queue's pool.
 * kind names the caller in the error ("eth_rxq"). Errors: IN_USE. */
gnio_error_t gnio_buf_arr_claim(struct gnio_buf_arr *arr, int is_rx, const char *kind);
void gnio_buf_arr_unclaim(struct gnio_buf_arr *arr, int is_rx);

/* Register/unregister a queue's pool pointer (so destroy can clear it). */
gnio_error_t gnio_buf_arr_add_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot);
void gnio_buf_arr_del_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot);

#endif
