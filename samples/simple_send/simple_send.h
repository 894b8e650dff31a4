/* SPDX-License-Identifier: MIT */
/*
 * samples/simple_send/simple_send.h - what the host program and the two
 * kernel bodies (CUDA: simple_send_kernel.cu, CPU device: simple_send_cpu.c)
 * share: arguments, counters, and the per-frame work (ss_build_frame), also
 * used by the host to check what arrived.
 */
#ifndef GNIO_SAMPLE_SIMPLE_SEND_H
#define GNIO_SAMPLE_SIMPLE_SEND_H

#include <gnio/apps/icmp.h>
#include <gnio/runner.h>
#include "sample_dev.h"

#define SS_BLOCKS 2u        /* CUDA blocks (default) */
#define SS_THREADS 256u     /* CUDA threads per block (default) */
#define SS_MAX_BLOCKS 64u
#define SS_PUBLISH_EVERY 64u /* rounds between stores of a group's counters */
#define SS_STAMP 8u          /* the sequence number at the start of the UDP payload */

/* Who sends: the frame's addresses and size. */
struct ss_frame_cfg {
	uint8_t dst_mac[6], src_mac[6];
	uint32_t src_ip, dst_ip;     /* network byte order */
	uint16_t src_port, dst_port; /* host byte order */
	uint32_t size;               /* frame bytes without FCS */
};

/* Each sending group's counters, stored by its leader (one writer each);
 * the host sums them. */
struct ss_group_stats {
	uint64_t sent;       /* frames committed */
	uint64_t again;      /* reservations that found the TX ring full and waited */
	uint64_t errors;     /* other failures */
	uint64_t last_error;
};

struct ss_args {
	struct gnio_gpu_eth_txq *txq;   /* device view */
	struct ss_group_stats *stats;   /* one per group, device view */
	struct ss_frame_cfg frame;
	uint64_t count;                 /* frames to send in all; 0 = until stopped */
	int scope;                      /* who reserves: a thread, a warp or a block (SAMPLE_SCOPE_*) */
	uint32_t blocks, threads;       /* CUDA launch shape */
};

/* Sending groups and their size for a scope and launch shape (the CPU
 * device runs one group of the same size). */
GNIO_HD uint32_t ss_group_size(int scope, uint32_t threads)
{
	return scope == SAMPLE_SCOPE_BLOCK ? threads : scope == SAMPLE_SCOPE_WARP ? 32u : 1u;
}

/* How many of count frames group g of n sends. */
GNIO_HD uint64_t ss_quota(uint64_t count, uint64_t g, uint64_t n)
{
	return count / n + (g < count % n ? 1 : 0);
}

GNIO_HD void ss_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The per-frame work: build frame seq into f (c->size bytes): Ethernet,
 * IPv4 (checksum), UDP (no checksum), payload = seq (8 bytes, big endian)
 * then bytes (seq + i) & 0xff. Returns its length. */
GNIO_HD uint32_t ss_build_frame(uint8_t *f, const struct ss_frame_cfg *c, uint64_t seq)
{
	const uint32_t ip_len = c->size - 14, udp_len = ip_len - 20;
	uint8_t *ip = f + 14, *udp = ip + 20, *pl = udp + 8;
	for (int i = 0; i < 6; i++) {
		f[i] = c->dst_mac[i];
		f[6 + i] = c->src_mac[i];
	}
	ss_put16(f + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = 0;
	ss_put16(ip + 2, ip_len);
	ss_put16(ip + 4, (uint32_t)(seq & 0xffff));
	ss_put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 17;
	ss_put16(ip + 10, 0);
	for (int i = 0; i < 4; i++) {
		ip[12 + i] = (uint8_t)(c->src_ip >> (8 * i)); /* network order as stored */
		ip[16 + i] = (uint8_t)(c->dst_ip >> (8 * i));
	}
	ss_put16(ip + 10, gnio_csum_fold(gnio_csum_add(0, ip, 20)));
	ss_put16(udp, c->src_port);
	ss_put16(udp + 2, c->dst_port);
	ss_put16(udp + 4, udp_len);
	ss_put16(udp + 6, 0);
	for (uint32_t i = 0; i < SS_STAMP; i++)
		pl[i] = (uint8_t)(seq >> (56 - 8 * i));
	for (uint32_t i = SS_STAMP; i < udp_len - 8; i++)
		pl[i] = (uint8_t)(seq + i);
	return c->size;
}

/* The sequence number a frame built by ss_build_frame carries. */
GNIO_HD uint64_t ss_frame_seq(const uint8_t *f)
{
	uint64_t seq = 0;
	for (uint32_t i = 0; i < SS_STAMP; i++)
		seq = seq << 8 | f[42 + i];
	return seq;
}

/* A leader's counters into the group's slot (relaxed: the host sums them as
 * samples while the kernel runs, and exactly once it has finished). */
GNIO_HD void ss_publish(struct ss_group_stats *st, const struct ss_group_stats *t)
{
	gnio_store_relaxed_u64(&st->sent, t->sent);
	gnio_store_relaxed_u64(&st->again, t->again);
	gnio_store_relaxed_u64(&st->errors, t->errors);
	gnio_store_relaxed_u64(&st->last_error, t->last_error);
}

/* Reserve n consecutive TX slots, waiting out a full ring. Returns 1 with
 * *ticket, 0 when told to stop meanwhile, -1 on an error (counted). */
GNIO_DEV int ss_reserve(const struct ss_args *a, const struct gnio_kernel_ctl *ctl, uint32_t n, uint64_t *ticket,
			struct ss_group_stats *t)
{
	for (;;) {
		gnio_error_t err = gnio_gpu_dev_eth_txq_reserve(a->txq, n, ticket);
		if (err == GNIO_SUCCESS)
			return 1;
		if (err != GNIO_ERROR_AGAIN) {
			t->errors++;
			t->last_error = (uint64_t)err;
			return -1;
		}
		t->again++;
		if (!sample_dev_tx_wait(a->txq, ctl))
			return 0;
	}
}

#ifdef __cplusplus
extern "C" {
#endif
/* The kernel bodies: l->user is a struct ss_args * (device views). */
gnio_error_t simple_send_cpu(const struct gnio_runner_launch *l);
gnio_error_t simple_send_cuda(const struct gnio_runner_launch *l);
#ifdef __cplusplus
}
#endif

#endif /* GNIO_SAMPLE_SIMPLE_SEND_H */
