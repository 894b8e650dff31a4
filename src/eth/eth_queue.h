/* SPDX-License-Identifier: MIT */
/* src/eth/eth_queue.h - what receive and send queues share: pool
 * registration and pinning, ring-size and handle rules, the dev's queue
 * count. eth_rxq.c and eth_txq.c keep only what differs. */
#ifndef GNIO_SRC_ETH_ETH_QUEUE_H
#define GNIO_SRC_ETH_ETH_QUEUE_H

#include <stdint.h>
#include "core/ctx_priv.h"
#include "gnio/buf_arr.h"
#include "gnio/dev.h"

struct gnio_dev;
struct gnio_gpu;
struct gnio_gpu_alloc;

#define GNIO_ETH_QUEUE_DEFAULT_PACKETS 4096u
#define GNIO_ETH_QUEUE_MAX_PACKETS (1u << 20)
/* What a proxy moves per wire call; a larger queue burst is served in
 * several calls. */
#define GNIO_PROXY_MAX_BURST 4096u

/* A setter's guard: the queue exists and is not started. */
#define GNIO_ETH_SETTER_PROLOGUE(q, kind, what)                                                            \
	if (!(q))                                                                                          \
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, kind, "%s: NULL queue", what);                  \
	GNIO_CHECK(gnio_ctx_check_configurable(&(q)->ctx, what))

/* A queue was created on / removed from dev. */
void gnio_eth_queue_count(struct gnio_dev *dev, int delta);
gnio_error_t gnio_eth_queue_check_burst(uint32_t burst, const char *kind);
gnio_error_t gnio_eth_queue_check_ring(uint32_t num, const char *kind);
/* Register pool in *slot (replacing an earlier one); slot is cleared if the
 * array is destroyed first. Errors: INVALID_VALUE, BAD_STATE (not started). */
gnio_error_t gnio_eth_queue_set_pool(struct gnio_buf_arr **slot, struct gnio_buf_arr *pool, int is_rx,
				     const char *kind);
void gnio_eth_queue_forget_pool(struct gnio_buf_arr **slot);
/* At start: the pool belongs to the datapath device and has an element per
 * ring entry. */
gnio_error_t gnio_eth_queue_check_pool(const struct gnio_buf_arr *pool, const struct gnio_gpu *gpu, uint32_t ring,
				       const char *kind);
/* While a queue is started the pool and its memory may not go away: the proxy
 * uses them. inplace_tx: a TX queue that sends from an RX pool in place, so
 * the RX proxy must honour holds. */
void gnio_eth_queue_pin_pool(struct gnio_gpu *gpu, struct gnio_buf_arr *pool, int inplace_tx,
			     struct gnio_buf_arr **ref);
void gnio_eth_queue_unpin_pool(struct gnio_gpu *gpu, struct gnio_buf_arr **ref, int inplace_tx);
/* get_gpu_handle's rule: started, with a GPU datapath bound before start. */
gnio_error_t gnio_eth_queue_check_handle(const struct gnio_ctx *ctx, const char *kind);
/* cap_is_type_supported's rule: the type is the one kind knows and the wire
 * has the direction (GNIO_WIRE_CAP_RX/TX). */
gnio_error_t gnio_eth_queue_check_type(const struct gnio_devinfo *info, int type, int known_type, uint32_t cap,
				       const char *kind);

#endif
