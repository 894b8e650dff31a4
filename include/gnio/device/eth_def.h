/* SPDX-License-Identifier: MIT */
/*
 * gnio/device/eth_def.h - the enums, attribute struct and ticket type of the
 * device-side Ethernet API. Names follow DOCA GPUNetIO 3.x with the prefix
 * changed (doca_ -> gnio_, DOCA_ -> GNIO_), so ported kernels keep their
 * template arguments. docs/doca-mapping.md says which values change nothing
 * in gnio and why.
 */
#ifndef GNIO_DEVICE_ETH_DEF_H
#define GNIO_DEVICE_ETH_DEF_H

#include "../impl/hd.h"

/* Who runs a receive or a send: one thread, a whole warp (all 32 lanes call)
 * or a whole block (every thread calls). */
enum gnio_gpu_dev_eth_exec_scope {
	GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD = 0,
	GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP = 1,
	GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK = 2,
};

/* Memory-consistency step after a receive. gnio needs none: the proxy
 * publishes frames with a release store the receive acquires. Accepted and
 * ignored. */
enum gnio_gpu_dev_eth_mcst_mode {
	GNIO_GPUNETIO_ETH_MCST_DISABLED = 0,
	GNIO_GPUNETIO_ETH_MCST_ENABLED = 1,
	GNIO_GPUNETIO_ETH_MCST_AUTO = 2,
};

/* Who rings the doorbell. In gnio a host proxy thread always does (DOCA's
 * CPU proxy mode); every value means that. */
enum gnio_gpu_dev_eth_nic_handler {
	GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO = 0,
	GNIO_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY = 1,
	GNIO_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB = 2,
};

/* Per-packet attributes a receive writes to out_attr[i]. */
enum gnio_gpu_dev_eth_rxq_attr_type {
	GNIO_GPUNETIO_ETH_RX_ATTR_NONE = 0,
	GNIO_GPUNETIO_ETH_RX_ATTR_TS = 1,  /* timestamp_ns */
	GNIO_GPUNETIO_ETH_RX_ATTR_ALL = 2, /* timestamp_ns and bytes */
};

struct gnio_gpu_dev_eth_rxq_attr {
	uint64_t timestamp_ns; /* arrival, CLOCK_REALTIME ns (the wire's or the proxy's) */
	uint32_t bytes;        /* frame length */
	uint32_t padding;
};

/* *out_first_pkt_idx when a receive found nothing. */
#define GNIO_GPUNETIO_ETH_RX_NO_PKT (~(uint64_t)0)

/* Who may send on a queue at once: one agent (a thread, a warp or a block
 * that always sends from the same thread), the threads of one block, or any
 * thread of the GPU. Exclusive queues reserve without atomics. */
enum gnio_gpu_dev_eth_resource_sharing_mode {
	GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE = 0,
	GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_CTA = 1,
	GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU = 2,
};

/* Fence scope before publishing. gnio's consumer is a host thread, so a send
 * always publishes at system scope; accepted and ignored. */
enum gnio_gpu_dev_eth_sync_scope {
	GNIO_GPUNETIO_ETH_SYNC_SCOPE_SYS = 0,
	GNIO_GPUNETIO_ETH_SYNC_SCOPE_GPU = 1,
	GNIO_GPUNETIO_ETH_SYNC_SCOPE_CTA = 2,
};

enum gnio_gpu_eth_send_flags {
	GNIO_GPUNETIO_ETH_SEND_FLAG_NONE = 0,
	/* Report this send's completion: a progress-engine event on the host
	 * (gnio_eth_txq_gpu_event_notify_send_packet_register) and what
	 * gnio_gpu_dev_eth_txq_poll_completion waits for on the device. */
	GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY = 1,
};

enum gnio_gpu_dev_eth_wait_flags {
	GNIO_GPUNETIO_ETH_WAIT_FLAG_NB = 0, /* look once */
	GNIO_GPUNETIO_ETH_WAIT_FLAG_B = 1,  /* wait until done */
};

enum gnio_gpu_dev_eth_cq_poll_mode {
	GNIO_GPUNETIO_ETH_CQ_POLL_ALL = 0,
	GNIO_GPUNETIO_ETH_CQ_POLL_LAST = 1,
};

/* gnio: the most header bytes gnio_gpu_dev_eth_txq_send_hdr carries. */
#define GNIO_GPUNETIO_ETH_TX_HDR_MAX 35u

/* The descriptor index of a send. */
typedef uint64_t gnio_gpu_dev_eth_ticket_t;

#endif /* GNIO_DEVICE_ETH_DEF_H */
