/* SPDX-License-Identifier: MIT */
/*
 * gnio/eth_txq.h - host Ethernet send queue (DOCA: doca_eth_txq).
 * Same order of use as gnio/eth_rxq.h.
 *
 * A kernel sends frames that live in the buffer arrays registered with the
 * queue before start: its own TX pool (set_pkt_buf, which also backs the
 * slot-style device calls) and any other array (add_buf_arr), the RX pool of
 * an RX queue included. A frame sent from an RX pool leaves in place: no copy
 * by gnio, and the RX queue does not refill that buffer until the send has
 * completed.
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
struct gnio_eth_pkt;     /* gnio/eth_rxq.h */
struct gnio_gpu_eth_txq; /* GPU handle, gnio/impl/ring.h */

enum gnio_eth_txq_type {
	GNIO_ETH_TXQ_TYPE_REGULAR = 0,
};

enum gnio_eth_txq_data_path_type {
	GNIO_ETH_TXQ_DATA_PATH_TYPE_CPU = 0,
	GNIO_ETH_TXQ_DATA_PATH_TYPE_GPU = 1,
};

/* How a queue honours a send time (DOCA: doca_eth_wait_on_time_type). In gnio
 * the TX proxy holds a timed frame until its time, for every wire that sends:
 * NATIVE, to the proxy's clock resolution. */
enum gnio_eth_wait_on_time_type {
	GNIO_ETH_WAIT_ON_TIME_TYPE_NONE = 0,
	GNIO_ETH_WAIT_ON_TIME_TYPE_NATIVE = 1,
	GNIO_ETH_WAIT_ON_TIME_TYPE_DPDK = 2,
};

struct gnio_eth_txq_stats {
	uint64_t tx_packets;   /* handed to the wire */
	uint64_t tx_bytes;
	uint64_t tx_errors;    /* descriptors that could not be sent (see gnio_pe) */
	uint64_t timed_sends;  /* descriptors held until their send time */
	uint64_t tx_in_place;  /* of tx_packets, sent from an RX buffer (no gnio copy) */
	uint64_t tx_copies;    /* of tx_packets, copied by gnio into another buffer first
				* (device memory staged to the host, or a wire's own TX buffer) */
	uint64_t tx_notified;  /* completions reported for GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY */
	/* Timed sends handed to the wire more than GNIO_TX_LATE_NS after their
	 * time. unseen: of those, the ones the proxy had not found in the ring
	 * before their time (committed late, or queued behind a late frame);
	 * the rest were there in time and the proxy did not look until later
	 * (its thread was not running, or a nap ended late). */
	uint64_t timed_late;
	uint64_t timed_late_unseen;
	uint64_t timed_late_max_ns; /* the latest handover, ns after its time */
	/* Diagnostics (gnio): with GNIO_PROXY_STAMPS=1 in the environment when
	 * the queue starts, the host clock (CLOCK_REALTIME ns) at which the
	 * proxy last found a descriptor at the head of the ring; else 0. */
	uint64_t last_pickup_ns;
};
#define GNIO_TX_LATE_NS 2000u

/* max_burst_size: frames the proxy moves per wire call, at most the largest
 * ring. Errors: INVALID_VALUE, NO_MEMORY. */
/* @since 0.1 eth_txq: Host Ethernet TX queue */
gnio_error_t gnio_eth_txq_create(struct gnio_dev *dev, uint32_t max_burst_size,
				 struct gnio_eth_txq **txq);
/* Errors: INVALID_VALUE, BAD_STATE (started). */
gnio_error_t gnio_eth_txq_destroy(struct gnio_eth_txq *txq);
struct gnio_ctx *gnio_eth_txq_as_ctx(struct gnio_eth_txq *txq);

/* Setters: INVALID_VALUE or BAD_STATE (started). */
gnio_error_t gnio_eth_txq_set_type(struct gnio_eth_txq *txq, enum gnio_eth_txq_type type);
/* Ring entries; power of two from 8 to 1<<20. Default 4096. */
gnio_error_t gnio_eth_txq_set_num_packets(struct gnio_eth_txq *txq, uint32_t num);
gnio_error_t gnio_eth_txq_set_queue_id(struct gnio_eth_txq *txq, uint16_t queue_id);
/* The queue's TX pool: one element per ring entry, for the slot-style device
 * calls; also registered for sending (as add_buf_arr). */
gnio_error_t gnio_eth_txq_set_pkt_buf(struct gnio_eth_txq *txq, struct gnio_buf_arr *pool);
/* Register a started buffer array the kernel may send from (DOCA: adding the
 * mmap to the device). Register an RX queue's pool to send received frames
 * in place; do it after the RX queue's set_pkt_buf. At most
 * GNIO_TXQ_MAX_BUFS (16) arrays per queue. A queue started with none hands
 * the kernel GNIO_ERROR_BAD_STATE on its first send. Errors also: FULL,
 * ALREADY_EXIST (registered twice). */
/* @since 0.2 txq_add_buf_arr: Send from any registered buffer array, the RX pool included (in place) */
gnio_error_t gnio_eth_txq_add_buf_arr(struct gnio_eth_txq *txq, struct gnio_buf_arr *arr);
gnio_error_t gnio_eth_txq_set_proxy_cpu(struct gnio_eth_txq *txq, int cpu);
/* Honour send times (gnio does on every wire; kept for DOCA code). */
gnio_error_t gnio_eth_txq_set_wait_on_time_offload(struct gnio_eth_txq *txq);

/* Errors: INVALID_VALUE, BAD_STATE (not started or not on a GPU datapath). */
/* @since 0.1 gpu_visible_tx: GPU-visible TX queue handle */
gnio_error_t gnio_eth_txq_get_gpu_handle(struct gnio_eth_txq *txq, struct gnio_gpu_eth_txq **handle);
gnio_error_t gnio_eth_txq_get_stats(struct gnio_eth_txq *txq, struct gnio_eth_txq_stats *stats);

/* The value a timed send takes for a CLOCK_REALTIME time in ns (gnio: the
 * time itself). Errors: INVALID_VALUE. */
gnio_error_t gnio_eth_txq_calculate_timestamp(struct gnio_eth_txq *txq, uint64_t timestamp_ns, uint64_t *value);

/* CPU datapath: hand up to n frames to the wire; *nb_sent says how many it
 * took (the rest: offer them again). A frame's bytes must stay untouched
 * until gnio_eth_txq_poll_completions has counted it. Errors: INVALID_VALUE,
 * BAD_STATE (not started, or started with a GPU datapath). */
gnio_error_t gnio_eth_txq_send_burst(struct gnio_eth_txq *txq, const struct gnio_eth_pkt *pkts, uint32_t n,
				     uint32_t *nb_sent);
/* CPU datapath: frames of earlier send_bursts completed since the last call,
 * in order. Errors: INVALID_VALUE, BAD_STATE. */
gnio_error_t gnio_eth_txq_poll_completions(struct gnio_eth_txq *txq, uint32_t *nb_done);

/* Completion events of sends made with GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY, and
 * send errors, delivered by gnio_pe_progress() of the progress engine the
 * queue's context is connected to (DOCA: doca_eth_txq_gpu_event_*). Register
 * before start. */
struct gnio_eth_txq_gpu_event_notify_send_packet;
struct gnio_eth_txq_gpu_event_error_send_packet;
typedef void (*gnio_eth_txq_gpu_event_notify_send_packet_cb_t)(
	struct gnio_eth_txq_gpu_event_notify_send_packet *event, void *user_data);
typedef void (*gnio_eth_txq_gpu_event_error_send_packet_cb_t)(
	struct gnio_eth_txq_gpu_event_error_send_packet *event, void *user_data);
/* Errors: INVALID_VALUE, BAD_STATE (started). */
/* @since 0.2 txq_notify_event: Completion notification of flagged sends through the progress engine */
gnio_error_t gnio_eth_txq_gpu_event_notify_send_packet_register(
	struct gnio_eth_txq *txq, gnio_eth_txq_gpu_event_notify_send_packet_cb_t cb, void *user_data);
gnio_error_t gnio_eth_txq_gpu_event_error_send_packet_register(
	struct gnio_eth_txq *txq, gnio_eth_txq_gpu_event_error_send_packet_cb_t cb, void *user_data);
/* The send's descriptor index (its ticket) modulo 65536, as DOCA's 16-bit
 * position; gnio also gives the whole ticket. */
gnio_error_t gnio_eth_txq_gpu_event_notify_send_packet_get_position(
	const struct gnio_eth_txq_gpu_event_notify_send_packet *event, uint16_t *position);
gnio_error_t gnio_eth_txq_gpu_event_notify_send_packet_get_ticket(
	const struct gnio_eth_txq_gpu_event_notify_send_packet *event, uint64_t *ticket);
/* When the wire took the frame, CLOCK_REALTIME ns. */
gnio_error_t gnio_eth_txq_gpu_event_notify_send_packet_get_timestamp(
	const struct gnio_eth_txq_gpu_event_notify_send_packet *event, uint64_t *timestamp_ns);
gnio_error_t gnio_eth_txq_gpu_event_error_send_packet_get_position(
	const struct gnio_eth_txq_gpu_event_error_send_packet *event, uint16_t *position);

/* Capability queries (NIC axis), with DOCA's arguments. Errors: INVALID_VALUE. */
gnio_error_t gnio_eth_txq_cap_get_max_burst_size(const struct gnio_devinfo *devinfo, uint32_t max_send_buf_list_len,
						 uint16_t max_lso_header_size, uint32_t *max_burst_size);
/* @since 0.2 txq_cap_type: TX queue type and datapath capability query */
gnio_error_t gnio_eth_txq_cap_is_type_supported(const struct gnio_devinfo *devinfo, enum gnio_eth_txq_type type,
						enum gnio_eth_txq_data_path_type data_path_type);
/* @since 0.2 timed_send: Timed send (wait on time), honoured by the proxy on every wire that sends */
gnio_error_t gnio_eth_txq_cap_get_wait_on_time_offload_supported(const struct gnio_devinfo *devinfo,
								 enum gnio_eth_wait_on_time_type *type);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_ETH_TXQ_H */
