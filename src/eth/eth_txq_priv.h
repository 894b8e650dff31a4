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
	struct gnio_buf_arr *pool;
	struct gnio_gpu_alloc *pool_alloc_ref;

	void *wq;
	void *sh_gpu, *desc_gpu, *lc_gpu;
	struct gnio_gpu_eth_txq *handle;
	struct gnio_tx_proxy proxy;
	struct gnio_proxy_thread thread;
	struct gnio_eth_txq_stats past;
};

#endif
