/* SPDX-License-Identifier: MIT */
/*
 * tests/util/seen.h - a CPU-device kernel that records every frame its RX
 * queue delivers (the generator's flow, read from the UDP/TCP source port,
 * its stamp and the queue), shared by several queues' kernels, and the check
 * that RSS kept each flow in one queue and in order. Used by the steering
 * unit test (sw wire) and the veth RSS check (afxdp, afpacket).
 */
#ifndef GNIO_TESTS_SEEN_H
#define GNIO_TESTS_SEEN_H

#include <stdint.h>
#include "gnio/gnio.h"

#define SEEN_MAX_QUEUES 16u

struct seen_frame {
	uint16_t sport;
	uint64_t seq;
	uint8_t queue;
};

/* What the kernels saw. n, per_queue and bad are updated atomically. */
struct seen {
	struct seen_frame *f;
	uint64_t cap;
	uint64_t n;                  /* entries reserved; past cap counts as bad */
	uint64_t per_queue[SEEN_MAX_QUEUES]; /* entries written, by queue */
	uint64_t bad;                /* frames without a readable stamp, or past cap */
};

/* One kernel's argument: its queue's GPU handle (CPU device) and id. */
struct seen_kernel_arg {
	const struct gnio_gpu_eth_rxq *rxq;
	struct seen *seen;
	uint8_t queue;
};

struct seen *seen_create(uint64_t cap);
void seen_destroy(struct seen *s);
/* Entries written so far. Once it equals the frames the queues delivered,
 * entries [0, seen_count) are all written. */
uint64_t seen_count(const struct seen *s);
/* gnio_runner_launch_fn: record until told to stop. */
gnio_error_t seen_kernel(const struct gnio_runner_launch *l);
/* The source port of a generated Ethernet/IPv4 UDP or TCP frame (0: none). */
uint16_t seen_frame_sport(const uint8_t *f, uint32_t len);

/* Flows are told apart by source port. A flow is split when its frames
 * reached more than one queue, reordered when a frame's stamp was not above
 * the one before it in the same flow, in the order the flow's queue
 * delivered them. */
struct seen_flow_report {
	uint64_t flows;
	uint64_t split;
	uint64_t reordered;
	uint64_t frames;
};
/* Call once seen_count covers every delivered frame. Not reentrant. */
void seen_check_flows(const struct seen *s, struct seen_flow_report *r);

#endif /* GNIO_TESTS_SEEN_H */
