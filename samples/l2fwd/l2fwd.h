/* SPDX-License-Identifier: MIT */
/*
 * samples/l2fwd/l2fwd.h - what the host program and the two kernel bodies
 * (CUDA: l2fwd_kernel.cu, CPU device: l2fwd_cpu.c) share: the arguments, the
 * counters the kernel publishes, and the per-frame work, written once.
 */
#ifndef GNIO_SAMPLE_L2FWD_H
#define GNIO_SAMPLE_L2FWD_H

#include <gnio/apps/frame.h>
#include <gnio/runner.h>
#include "sample_dev.h"

#define L2FWD_BATCH 256u
#define L2FWD_TIMEOUT_NS 100000ull /* a partial batch waits at most 100 us */
#define L2FWD_THREADS 256u

/* Running totals, in memory the host reads (CPU_GPU). The kernel is the only
 * writer; rx_packets is stored last, with release. */
struct l2fwd_stats {
	GNIO_ALIGNED(GNIO_LINE) uint64_t rx_packets; /* frames received */
	uint64_t rx_bytes;
	uint64_t forwarded;  /* sends that were queued */
	uint64_t tx_again;   /* sends that found the TX ring full and waited */
	uint64_t unsent;     /* frames given up on because the kernel was told to stop */
	uint64_t errors;     /* receive or send errors other than AGAIN */
	uint64_t last_error;
	uint64_t batches;
};

struct l2fwd_args {
	struct gnio_gpu_eth_rxq *rxq; /* device views */
	struct gnio_gpu_eth_txq *txq;
	struct l2fwd_stats *stats;
	int scope;                    /* who receives: SAMPLE_SCOPE_* */
};

/* What one thread counts while it forwards its share of a batch. */
struct l2fwd_counts {
	uint64_t rx_bytes, forwarded, tx_again, unsent, errors, last_error;
};

/* The per-frame work: swap the Ethernet addresses where the frame lies and
 * send it back out from its RX buffer (in place: no copy where the wire
 * allows). A full ring is waited out, never dropped. */
GNIO_DEV void l2fwd_forward(const struct l2fwd_args *a, const struct gnio_kernel_ctl *ctl, uint8_t *pkt, uint32_t len,
			    struct l2fwd_counts *c)
{
	const uint32_t mkey = gnio_gpu_dev_eth_rxq_get_pkt_mkey(a->rxq);
	c->rx_bytes += len;
	gnio_frame_swap_macs(pkt, len);
	for (;;) {
		gnio_error_t err = gnio_gpu_dev_eth_txq_send_thread(a->txq, (uint64_t)(uintptr_t)pkt, mkey, len,
								     GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, NULL);
		if (err == GNIO_SUCCESS) {
			c->forwarded++;
			return;
		}
		if (err != GNIO_ERROR_AGAIN) {
			c->errors++;
			c->last_error = (uint64_t)err;
			return;
		}
		c->tx_again++;
		if (!sample_dev_tx_wait(a->txq, ctl)) {
			c->unsent++;
			return;
		}
	}
}

/* Store running totals; rx_packets last (RELEASE: pairs with the host's
 * ACQUIRE load of it in l2fwd.c, which then reads the rest). */
GNIO_HD void l2fwd_publish(struct l2fwd_stats *st, const struct l2fwd_stats *t)
{
	gnio_store_relaxed_u64(&st->rx_bytes, t->rx_bytes);
	gnio_store_relaxed_u64(&st->forwarded, t->forwarded);
	gnio_store_relaxed_u64(&st->tx_again, t->tx_again);
	gnio_store_relaxed_u64(&st->unsent, t->unsent);
	gnio_store_relaxed_u64(&st->errors, t->errors);
	gnio_store_relaxed_u64(&st->last_error, t->last_error);
	gnio_store_relaxed_u64(&st->batches, t->batches);
	gnio_store_release_u64(&st->rx_packets, t->rx_packets);
}

#ifdef __cplusplus
extern "C" {
#endif
/* The kernel bodies: l->user is a struct l2fwd_args * (device views). */
gnio_error_t l2fwd_cpu(const struct gnio_runner_launch *l);
gnio_error_t l2fwd_cuda(const struct gnio_runner_launch *l);
#ifdef __cplusplus
}
#endif

#endif /* GNIO_SAMPLE_L2FWD_H */
