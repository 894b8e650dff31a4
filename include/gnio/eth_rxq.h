/* SPDX-License-Identifier: MIT */
/*
 * gnio/eth_rxq.h - host Ethernet receive queue (DOCA: doca_eth_rxq).
 *
 * GPU datapath: create on an open dev -> setters -> gnio_ctx_set_datapath_on_gpu
 * -> gnio_ctx_start -> gnio_eth_rxq_get_gpu_handle -> kernel -> stop -> destroy.
 * CPU datapath (DOCA's CPU data path): start without a device and receive on
 * the host with gnio_eth_rxq_recv_burst.
 */
#ifndef GNIO_ETH_RXQ_H
#define GNIO_ETH_RXQ_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_dev;
struct gnio_devinfo;
struct gnio_ctx;
struct gnio_buf_arr;
struct gnio_eth_rxq;
struct gnio_gpu_eth_rxq; /* GPU handle, gnio/impl/ring.h */

enum gnio_eth_rxq_type {
	/* Completions in a cyclic ring, frames in a registered pool (DOCA CYCLIC). */
	GNIO_ETH_RXQ_TYPE_CYCLIC = 0,
	GNIO_ETH_RXQ_TYPE_MANAGED_MEMPOOL = 1, /* DOCA's CPU-only types: NOT_SUPPORTED */
	GNIO_ETH_RXQ_TYPE_REGULAR = 2,
};

/* Who consumes the queue: a host thread or a device (kernel). */
enum gnio_eth_rxq_data_path_type {
	GNIO_ETH_RXQ_DATA_PATH_TYPE_CPU = 0,
	GNIO_ETH_RXQ_DATA_PATH_TYPE_GPU = 1,
};

/* Why a frame the wire delivered did not reach the kernel. */
enum gnio_drop_reason {
	GNIO_DROP_RING_FULL = 0,  /* no free RX ring entry: the kernel is behind */
	GNIO_DROP_TOO_BIG,        /* frame longer than the pool slot / max packet size */
	GNIO_DROP_RUNT,           /* shorter than an Ethernet header (14 bytes) */
	GNIO_DROP_WIRE_OVERFLOW,  /* the wire's own buffer overflowed before the proxy read it */
	GNIO_DROP_STOPPED,        /* arrived while the queue was stopping */
	GNIO_DROP_DEVICE_ERROR,   /* could not be placed in device memory (copy failed) */
	GNIO_DROP_NO_BUFFER,      /* the ring had room but the entry's buffer is still being
				   * sent in place (held until its TX completion) */
	/* Steering verdicts of a gnio_flow on the wire (gnio/flow.h): */
	GNIO_DROP_FLOW_DROP,      /* a rule (or the default) said drop */
	GNIO_DROP_FLOW_KERNEL,    /* a rule said kernel: left to the host stack (afpacket:
				   * the host already has its copy) */
	GNIO_DROP_NO_QUEUE,       /* a rule named a queue that never started on this wire,
				   * or one past GNIO_STEER_MAX_QUEUES (64) */
	GNIO_DROP_REASON_COUNT
};
/* "ring_full", "too_big", "runt", "wire_overflow", "stopped", "device_error",
 * "no_buffer", "flow_drop", "flow_kernel", "no_queue". */
const char *gnio_drop_reason_name(enum gnio_drop_reason reason);

struct gnio_eth_rxq_stats {
	uint64_t rx_packets;   /* handed to the kernel (published to the ring) */
	uint64_t rx_bytes;
	uint64_t released;     /* released by the kernel (consumer index) */
	uint64_t dropped[GNIO_DROP_REASON_COUNT];
	uint64_t dropped_total;
	/* Steering: frames this queue's proxy pushed to other queues, and
	 * frames it took from other queues (counted in rx_packets or dropped
	 * here). Per queue: what the wire queue delivered = rx_packets +
	 * dropped_total + steered_out - steered_in; summed over the queues of
	 * a wire the steered terms cancel once the queues have stopped. */
	uint64_t steered_out;
	uint64_t steered_in;
	/* Diagnostics (gnio): with GNIO_PROXY_STAMPS=1 in the environment when
	 * the queue starts, the host clock (CLOCK_REALTIME ns) of the proxy's
	 * latest publish of frames to the ring; else 0. With one frame in
	 * flight it splits a round trip at the proxy (gnio_latency_bench
	 * --timeline). */
	uint64_t last_publish_ns;
};

/* max_burst_size: frames the proxy moves per wire call, at most the largest
 * ring (gnio_eth_rxq_cap_get_max_burst_size); a burst above the queue's ring
 * size is served ring-sized. Errors: INVALID_VALUE (NULL, zero or too large
 * burst, packet size beyond the wire max), NO_MEMORY. */
/* @since 0.1 eth_rxq: Host Ethernet RX queue */
gnio_error_t gnio_eth_rxq_create(struct gnio_dev *dev, uint32_t max_burst_size,
				 uint32_t max_packet_size, struct gnio_eth_rxq **rxq);
/* Errors: INVALID_VALUE, BAD_STATE (started). */
gnio_error_t gnio_eth_rxq_destroy(struct gnio_eth_rxq *rxq);
struct gnio_ctx *gnio_eth_rxq_as_ctx(struct gnio_eth_rxq *rxq);

/* Setters: INVALID_VALUE or BAD_STATE (started). */
gnio_error_t gnio_eth_rxq_set_type(struct gnio_eth_rxq *rxq, enum gnio_eth_rxq_type type);
/* Ring entries; a power of two from 8 to 1<<20. Default 4096. */
gnio_error_t gnio_eth_rxq_set_num_packets(struct gnio_eth_rxq *rxq, uint32_t num);
/* Wire queue to bind (RSS queue index). Default 0. */
gnio_error_t gnio_eth_rxq_set_queue_id(struct gnio_eth_rxq *rxq, uint16_t queue_id);
/* Payload pool. Its element size must hold max_packet_size and it must have at
 * least num_packets elements. A queue started without one hands the kernel
 * GNIO_ERROR_BAD_STATE on its first recv. */
gnio_error_t gnio_eth_rxq_set_pkt_buf(struct gnio_eth_rxq *rxq, struct gnio_buf_arr *pool);
/* Flow control: when on, the proxy leaves frames on the wire while the ring is
 * full instead of dropping them as ring_full (the wire then overflows on its
 * own and counts it). Default off: a NIC drops when it has no descriptors. */
/* @since 0.1 rxq_flow_control: RX flow control instead of ring_full drops */
gnio_error_t gnio_eth_rxq_set_flow_control(struct gnio_eth_rxq *rxq, int on);
/* Inline header (gnio): each completion becomes one 64-byte line that also
 * carries the frame's first 42 bytes, and the kernel's receive copies them
 * into device memory; the kernel reads them with
 * gnio_gpu_dev_eth_rxq_get_pkt_hdr without a PCIe round trip. Measured on
 * the H200 (docs/PERFORMANCE.md, "Inline header"): the header read in the
 * echo fell from 1.35 to 0.37 us, but at block scope the waiting poll grew
 * by about as much and more, so the echo is slower there (p50 11.0 against
 * 8.7 us); at thread scope it was faster (7.5 against 11.7 us). 64 bytes
 * per completion cross PCIe instead of 16, and the null wire's rate fell
 * from 85-135 to 20-30 Mpps. Default off. */
/* @since 0.2 rxq_inline_header: RX completions that carry the frame's first 42 bytes */
gnio_error_t gnio_eth_rxq_set_inline_header(struct gnio_eth_rxq *rxq, int on);
/* Pin the proxy thread to a CPU (-1: no pinning, the default). */
gnio_error_t gnio_eth_rxq_set_proxy_cpu(struct gnio_eth_rxq *rxq, int cpu);

/* GPU handle for a started queue with a GPU datapath. Errors: INVALID_VALUE,
 * BAD_STATE (not started, or not bound with gnio_ctx_set_datapath_on_gpu). */
/* @since 0.1 gpu_visible_rx: GPU-visible RX queue handle */
gnio_error_t gnio_eth_rxq_get_gpu_handle(struct gnio_eth_rxq *rxq, struct gnio_gpu_eth_rxq **handle);

/* Graceful drain: stop taking frames from the wire while the kernel keeps
 * running. Frames still on the wire are taken and counted as dropped
 * (stopped); frames already in the ring stay there for the kernel. Then wait
 * until stats.released == stats.rx_packets, stop the kernel, stop the queue.
 * Errors: INVALID_VALUE, BAD_STATE (not started with a GPU datapath). */
gnio_error_t gnio_eth_rxq_quiesce(struct gnio_eth_rxq *rxq);

/* Counters; may be read while running. Errors: INVALID_VALUE. */
/* @since 0.1 rxq_drop_accounting: RX counters with named drop reasons */
gnio_error_t gnio_eth_rxq_get_stats(struct gnio_eth_rxq *rxq, struct gnio_eth_rxq_stats *stats);

/* A frame on the host datapath. */
struct gnio_eth_pkt {
	uint8_t *data;  /* RX: where the frame is written (cap bytes); TX: the frame */
	uint32_t len;   /* RX: the frame's length; TX: bytes to send */
	uint32_t cap;   /* RX: room at data */
	uint64_t ts_ns; /* RX: arrival (CLOCK_REALTIME ns) when the wire knows it, else 0 */
};

/* CPU datapath: receive up to max_pkts frames into pkts[i].data (pkts[i].cap
 * bytes each), without waiting; *nb_pkts says how many. A frame longer than
 * its pkt's cap, or shorter than an Ethernet header, is not returned and is
 * counted as dropped (too_big, runt) in the queue's stats. One thread per
 * queue. Errors: INVALID_VALUE, BAD_STATE (not started, or started with a
 * GPU datapath: its frames go to the kernel). */
/* @since 0.2 host_datapath: Host (CPU) datapath burst receive and send on eth queues */
gnio_error_t gnio_eth_rxq_recv_burst(struct gnio_eth_rxq *rxq, struct gnio_eth_pkt *pkts, uint32_t max_pkts,
				     uint32_t *nb_pkts);

/* Capability queries (NIC axis), with DOCA's arguments. Errors: INVALID_VALUE. */
gnio_error_t gnio_eth_rxq_cap_get_max_burst_size(const struct gnio_devinfo *devinfo, uint32_t *max_burst_size);
gnio_error_t gnio_eth_rxq_cap_get_max_packet_size(const struct gnio_devinfo *devinfo, uint32_t *max_packet_size);
/* SUCCESS when the wire supports the type on that datapath, NOT_SUPPORTED
 * otherwise (gnio: CYCLIC on either datapath, when the wire receives). */
/* @since 0.2 rxq_cap_type: RX queue type and datapath capability query */
gnio_error_t gnio_eth_rxq_cap_is_type_supported(const struct gnio_devinfo *devinfo, enum gnio_eth_rxq_type type,
						enum gnio_eth_rxq_data_path_type data_path_type);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_ETH_RXQ_H */
