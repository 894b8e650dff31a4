/* SPDX-License-Identifier: MIT */
/* src/eth/eth_txq_priv.h - send queue (private). */
#ifndef GNIO_SRC_ETH_ETH_TXQ_PRIV_H
#define GNIO_SRC_ETH_ETH_TXQ_PRIV_H

#include "core/ctx_priv.h"
#include "eth/dev_priv.h"
#include "gnio/eth_txq.h"
#include "proxy/proxy.h"

struct gnio_eth_txq {
	struct gnio_ctx ctx; /* first */
	struct gnio_dev *dev;
	uint32_t max_burst;
	uint32_t num_packets;
	uint16_t queue_id;
	int proxy_cpu;
	struct gnio_buf_arr *pool;                      /* slot-style TX pool, or NULL */
	struct gnio_buf_arr *bufs[GNIO_TXQ_MAX_BUFS];  /* add_buf_arr; cleared if destroyed */
	struct gnio_buf_arr *buf_refs[GNIO_TXQ_MAX_BUFS]; /* the buffer table, pinned while started */
	uint8_t buf_inplace[GNIO_TXQ_MAX_BUFS];            /* ... and whether it is an RX pool */

	gnio_eth_txq_gpu_event_notify_send_packet_cb_t notify_cb;
	void *notify_user;
	gnio_eth_txq_gpu_event_error_send_packet_cb_t error_cb;
	void *error_user;

	void *wq;
	void *sh_gpu, *desc_gpu, *desc_hdr_gpu, *lc_gpu;
	struct gnio_gpu_eth_txq *handle;
	struct gnio_tx_proxy proxy;
	struct gnio_proxy_thread thread;
	/* CPU datapath counters (single writer: the sending thread) */
	uint64_t host_tx_packets, host_tx_bytes;
	uint64_t host_tx_reported; /* completions poll_completions has reported */
	struct gnio_eth_txq_stats past;
};

#endif
