/* SPDX-License-Identifier: MIT */
/* src/eth/eth_rxq_priv.h - receive queue (private). */
#ifndef GNIO_SRC_ETH_ETH_RXQ_PRIV_H
#define GNIO_SRC_ETH_ETH_RXQ_PRIV_H

#include "core/ctx_priv.h"
#include "eth/dev_priv.h"
#include "gnio/eth_rxq.h"
#include "proxy/proxy.h"

struct gnio_eth_rxq {
	struct gnio_ctx ctx; /* first: gnio_eth_rxq_as_ctx is a cast */
	struct gnio_dev *dev;
	uint32_t max_burst;
	uint32_t max_packet;
	uint32_t num_packets;
	uint16_t queue_id;
	int flow_control;
	int inline_header;
	int proxy_cpu;
	struct gnio_buf_arr *pool; /* cleared if the array is destroyed */
	struct gnio_buf_arr *pool_ref; /* pinned while started */

	/* while started */
	void *wq;
	void *sh_gpu, *cqe_gpu, *lc_gpu; /* ring memory, device view */
	void *meta_gpu;                   /* the consumer's local copy of completion words */
	void *hdr_local_gpu;              /* the receive's copy of the inline headers */
	struct gnio_gpu_eth_rxq *handle;  /* device copy of the GPU handle */
	void *stage_mirror;               /* host mirror for GPU-memory pools */
	void *stage_word;                 /* ... and the word their copies' stream stores (device view) */
	struct gnio_rx_proxy proxy;
	struct gnio_proxy_thread thread;
	int quiesced; /* proxy stopped and wire drained; ring kept */
	uint64_t wire_overflow_base; /* the wire's overflow count when this run began */
	/* counters of earlier runs (stats survive a stop/start) */
	struct gnio_eth_rxq_stats past;
};

#endif
