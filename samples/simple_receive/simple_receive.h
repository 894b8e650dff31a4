/* SPDX-License-Identifier: MIT */
/*
 * samples/simple_receive/simple_receive.h - what the host program and the two
 * kernel bodies (CUDA: simple_receive_kernel.cu, CPU device:
 * simple_receive_cpu.c) share: arguments, counters, and the per-packet work.
 */
#ifndef GNIO_SAMPLE_SIMPLE_RECEIVE_H
#define GNIO_SAMPLE_SIMPLE_RECEIVE_H

#include <gnio/runner.h>
#include "sample_dev.h"

#define SR_RING 4096u              /* RX ring entries */
#define SR_SLOT 2048u              /* payload pool element */
#define SR_BURST 256u              /* frames the proxy moves per wire call */
#define SR_BATCH 256u              /* frames per receive */
#define SR_TIMEOUT_NS 500000ull    /* a receive returns a partial batch after 500 us */
#define SR_THREADS 128u            /* CUDA threads per block */
#define SR_SIZE_CLASSES 6

/* Running totals in host-visible memory; the kernel is the only writer and
 * stores packets last, with release. */
struct sr_stats {
	GNIO_ALIGNED(GNIO_LINE) uint64_t packets;
	uint64_t bytes;
	uint64_t batches;
	uint64_t size_class[SR_SIZE_CLASSES];
	uint64_t errors;
	uint64_t last_error;
};

struct sr_args {
	struct gnio_gpu_eth_rxq *rxq; /* device views */
	struct sr_stats *stats;
	int scope;                    /* who receives: SAMPLE_SCOPE_* */
};

/* The per-packet work: which size class a frame of len bytes falls in
 * (up to 64, 128, 256, 512, 1024 bytes, longer). */
GNIO_HD uint32_t sr_size_class(uint32_t len)
{
	uint32_t c = 0;
	for (uint32_t limit = 64; c < SR_SIZE_CLASSES - 1 && len > limit; limit <<= 1)
		c++;
	return c;
}

/* Store the totals; packets last. RELEASE(packets) pairs with the host's
 * ACQUIRE load of it (simple_receive.c), which then reads the rest. */
GNIO_HD void sr_publish(struct sr_stats *st, const struct sr_stats *t)
{
	gnio_store_relaxed_u64(&st->bytes, t->bytes);
	gnio_store_relaxed_u64(&st->batches, t->batches);
	for (int i = 0; i < SR_SIZE_CLASSES; i++)
		gnio_store_relaxed_u64(&st->size_class[i], t->size_class[i]);
	gnio_store_relaxed_u64(&st->errors, t->errors);
	gnio_store_relaxed_u64(&st->last_error, t->last_error);
	gnio_store_release_u64(&st->packets, t->packets);
}

#ifdef __cplusplus
extern "C" {
#endif
/* The kernel bodies: l->user is a struct sr_args * (device views). */
gnio_error_t simple_receive_cpu(const struct gnio_runner_launch *l);
gnio_error_t simple_receive_cuda(const struct gnio_runner_launch *l);
#ifdef __cplusplus
}
#endif

#endif /* GNIO_SAMPLE_SIMPLE_RECEIVE_H */
