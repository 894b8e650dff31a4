/* SPDX-License-Identifier: MIT */
/* src/gpu/buf_arr_priv.h - a registered payload pool (private). */
#ifndef GNIO_SRC_GPU_BUF_ARR_PRIV_H
#define GNIO_SRC_GPU_BUF_ARR_PRIV_H

#include "gnio/buf_arr.h"
#include "gnio/device/buf_arr.h"
#include "gpu/gpu_priv.h"

#define GNIO_BUF_ARR_MAX_USERS 16

/* Keys look like 0x6e00NNNN: no key is another's byte swap, so a send may
 * take either byte order, and 0 stays free for "find it by address". */
#define GNIO_BUF_ARR_KEY_BASE 0x6e000000u

struct gnio_buf_arr {
	struct gnio_gpu *gpu;
	struct gnio_gpu_alloc *alloc; /* allocation it was carved from */
	struct gnio_buf_arr *below;   /* the array created before it */
	uint8_t *base_gpu;
	uint8_t *base_cpu;            /* NULL when the CPU cannot see the memory */
	enum gnio_gpu_mem_type type;
	uint32_t elem_size;
	uint32_t num_elem;
	uint32_t mkey;
	int started;
	struct gnio_gpu_buf_arr *handle; /* device copy, once started */
	struct gnio_gpu_buf *bufs_gpu;   /* element descriptors, once started */
	/* In-place hold words, one per element (ring.h GNIO_HOLD_*), pinned host
	 * memory, once started. */
	uint32_t *hold_cpu, *hold_gpu;
	unsigned started_users;    /* started queues using it (under gpu->lock) */
	int destroyed;             /* destroyed while queues used it: the last one frees it */
	unsigned inplace_tx_users; /* started TX queues sending from it in place */
	/* The started RX queue that fills it (gnio_buf_arr_claim_rx): its claim
	 * slot, cleared if the array is destroyed first. Under gpu->lock. */
	struct gnio_buf_arr **rx_owner;
	/* Queues that registered it; cleared when the array goes away. */
	struct gnio_buf_arr **users[GNIO_BUF_ARR_MAX_USERS];
	uint8_t user_is_rx[GNIO_BUF_ARR_MAX_USERS];
};

/* One started RX queue at most fills a pool: a second one's proxy would write
 * the same slots under the first one's frames. An RX queue claims its pool
 * when it starts (before its wire queue opens) and releases it when it stops
 * and on start's failure paths; *slot is the queue's claim (NULL when none).
 * TX queues take no claim: they may share a pool with anything, so a TX queue
 * can send in place from the RX queue's pool. Destroying the array (rollback
 * step 2 does it while queues are still started) ends the claim and clears
 * *slot. kind names the caller in the error. Errors: IN_USE. */
gnio_error_t gnio_buf_arr_claim_rx(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot, const char *kind);
void gnio_buf_arr_unclaim_rx(struct gnio_gpu *gpu, struct gnio_buf_arr **slot);

/* Register/unregister a queue's pool pointer (so destroy can clear it). */
gnio_error_t gnio_buf_arr_add_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot, int is_rx);
void gnio_buf_arr_del_user(struct gnio_buf_arr *arr, struct gnio_buf_arr **slot);
/* 1 when an RX queue has it as its packet buffer: frames sent from it are
 * sent in place and held. */
int gnio_buf_arr_is_rx_pool(const struct gnio_buf_arr *arr);
/* Free a destroyed array once no started queue uses it. */
void gnio_buf_arr_free(struct gnio_buf_arr *arr);

#endif
