/* SPDX-License-Identifier: MIT */
/*
 * gnio/eth_txq.h - host Ethernet send queue (DOCA: doca_eth_txq).
 * Same order of use as gnio/eth_rxq.h.
 */
#ifndef GNIO_ETH_TXQ_H
#define GNIO_ETH_TXQ_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_dev;
struct gnio_devinfo;
struct gnio_ctx;
struct gnio_buf_arr;
struct gnio_eth_txq;
struct gnio_gpu_eth_txq; /* GPU handle, gnio/impl/ring.h */

enum gnio_eth_txq_type {
	GNIO_ETH_TXQ_TYPE_REGULAR = 0,
};

struct gnio_eth_txq_stats {
	uint64_t tx_packets;   /* handed to the wire */
	uint64_t tx_bytes;
	uint64_t tx_errors;    /* descriptors that could not be sent (see gnio_pe) */
	uint64_t timed_sends;  /* descriptors held until their send time */
};

/* Errors: INVALID_VALUE, NO_MEMORY. */
/* @since 0.1 eth_txq: Host Ethernet TX queue */
gnio_error_t gnio_eth_txq_create(struct gnio_dev *dev, uint32_t max_burst_size,
				 struct gnio_eth_txq **txq);
/* Errors: INVALID_VALUE, BAD_STATE (started). */
gnio_error_t gnio_eth_txq_destroy(struct gnio_eth_txq *txq);
struct gnio_ctx *gnio_eth_txq_as_ctx(struct gnio_eth_txq *txq);

gnio_error_t gnio_eth_txq_set_type(struct gnio_eth_txq *txq, enum gnio_eth_txq_type type);
/* Ring entries; power of two from 8 to 1<<20. Default 4096. */
gnio_error_t gnio_eth_txq_set_num_packets(struct gnio_eth_txq *txq, uint32_t num);
gnio_error_t gnio_eth_txq_set_queue_id(struct gnio_eth_txq *txq, uint16_t queue_id);
/* Pool the kernel writes frames into. A queue started without one hands the
 * kernel GNIO_ERROR_BAD_STATE on its first send. */
gnio_error_t gnio_eth_txq_set_pkt_buf(struct gnio_eth_txq *txq, struct gnio_buf_arr *pool);
gnio_error_t gnio_eth_txq_set_proxy_cpu(struct gnio_eth_txq *txq, int cpu);

/* Errors: INVALID_VALUE, BAD_STATE (not started or not on a GPU datapath). */
/* @since 0.1 gpu_visible_tx: GPU-visible TX queue handle */
gnio_error_t gnio_eth_txq_get_gpu_handle(struct gnio_eth_txq *txq, struct gnio_gpu_eth_txq **handle);
gnio_error_t gnio_eth_txq_get_stats(struct gnio_eth_txq *txq, struct gnio_eth_txq_stats *stats);

gnio_error_t gnio_eth_txq_cap_get_max_burst_size(const struct gnio_devinfo *info, uint32_t *max);
/* @since 0.1 txq_cap_type: TX queue type capability query */
gnio_error_t gnio_eth_txq_cap_is_type_supported(const struct gnio_devinfo *info, enum gnio_eth_txq_type type);
/* SUCCESS when timed send is honoured (by the wire or by the proxy). */
/* @since 0.1 timed_send: Timed send (frame sent at a given time) */
gnio_error_t gnio_eth_txq_cap_is_timed_send_supported(const struct gnio_devinfo *info);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_ETH_TXQ_H */
