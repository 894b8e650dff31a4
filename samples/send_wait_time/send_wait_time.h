/* SPDX-License-Identifier: MIT */
/*
 * samples/send_wait_time/send_wait_time.h - what the host program and the two
 * kernel bodies (CUDA: send_wait_time_kernel.cu, CPU device:
 * send_wait_time_cpu.c) share: arguments, counters, the frame format, and
 * the per-frame work (swt_build_frame), which the host's checks reuse.
 */
#ifndef GNIO_SAMPLE_SEND_WAIT_TIME_H
#define GNIO_SAMPLE_SEND_WAIT_TIME_H

#include <gnio/apps/icmp.h>
#include <gnio/runner.h>
#include "sample_dev.h"

#define SWT_MAX_BURST 256u
#define SWT_DST_PORT 9001u
/* UDP payload: burst number (8 bytes), frame in the burst (4), requested
 * send time in ns, CLOCK_REALTIME (8); all big endian. */
#define SWT_PAYLOAD_OFF 42u
#define SWT_PAYLOAD_MIN 20u

struct swt_frame_cfg {
	uint8_t dst_mac[6], src_mac[6];
	uint32_t src_ip, dst_ip; /* network byte order (as stored in memory) */
	uint32_t size;           /* frame bytes without FCS */
};

/* Written by the kernel only. start_ns is stored once, with release, before
 * the first send; the counters are running totals. */
struct swt_stats {
	GNIO_ALIGNED(GNIO_LINE) uint64_t start_ns; /* requested time of burst 0 */
	uint64_t bursts;     /* bursts queued */
	uint64_t frames;
	uint64_t again;      /* sends that found the TX ring full and waited */
	uint64_t unsent;     /* bursts given up on because the kernel was told to stop */
	uint64_t errors;
	uint64_t last_error;
};

struct swt_args {
	struct gnio_gpu_eth_txq *txq;    /* device views */
	struct gnio_gpu_buf_arr *frames; /* where frames are built: the TX pool */
	struct swt_stats *stats;
	struct swt_frame_cfg frame;
	uint64_t bursts;                 /* 0: until stopped */
	uint32_t burst;                  /* frames per burst */
	uint64_t interval_ns;
	uint64_t lead_ns;                /* burst 0 is this far after the kernel starts */
	int scope;                       /* who sends a burst: SAMPLE_SCOPE_* */
};

GNIO_HD void swt_put(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

GNIO_HD uint64_t swt_get(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

/* The per-frame work: frame j of burst k, to leave at requested_ns. Returns
 * its length. */
GNIO_HD uint32_t swt_build_frame(uint8_t *f, const struct swt_frame_cfg *c, uint64_t k, uint32_t j,
				 uint64_t requested_ns)
{
	const uint32_t ip_len = c->size - 14, udp_len = ip_len - 20;
	uint8_t *ip = f + 14, *udp = ip + 20, *pl = f + SWT_PAYLOAD_OFF;
	for (int i = 0; i < 6; i++) {
		f[i] = c->dst_mac[i];
		f[6 + i] = c->src_mac[i];
	}
	swt_put(f + 12, 0x0800, 2);
	ip[0] = 0x45;
	ip[1] = 0;
	swt_put(ip + 2, ip_len, 2);
	swt_put(ip + 4, (k * SWT_MAX_BURST + j) & 0xffff, 2);
	swt_put(ip + 6, 0x4000, 2); /* DF */
	ip[8] = 64;
	ip[9] = 17;
	swt_put(ip + 10, 0, 2);
	for (int i = 0; i < 4; i++) {
		ip[12 + i] = (uint8_t)(c->src_ip >> (8 * i));
		ip[16 + i] = (uint8_t)(c->dst_ip >> (8 * i));
	}
	swt_put(ip + 10, gnio_csum_fold(gnio_csum_add(0, ip, 20)), 2);
	swt_put(udp, 1024, 2);
	swt_put(udp + 2, SWT_DST_PORT, 2);
	swt_put(udp + 4, udp_len, 2);
	swt_put(udp + 6, 0, 2);
	swt_put(pl, k, 8);
	swt_put(pl + 8, j, 4);
	swt_put(pl + 12, requested_ns, 8);
	for (uint32_t i = SWT_PAYLOAD_MIN; i < udp_len - 8; i++)
		pl[i] = 0;
	return c->size;
}

/* Build and send the frames [j0, j1) of burst k from the TX pool, timed for
 * when_ns. Thread scope: the calling thread sends them one by one. Returns
 * 1, 0 when told to stop while the ring was full, -1 on an error; *last is
 * the ticket of the last frame sent. The first frame of a burst asks for a
 * completion event (NOTIFY): the host reads when the wire took it. */
GNIO_DEV int swt_send_frames_thread(const struct swt_args *a, const struct gnio_kernel_ctl *ctl, uint64_t k,
				    uint32_t j0, uint32_t j1, uint64_t when_ns, struct swt_stats *t, uint64_t *last)
{
	const uint32_t nelem = a->frames->num_elem;
	uint64_t ts;
	gnio_gpu_dev_eth_txq_calculate_timestamp(a->txq, when_ns, &ts);
	for (uint32_t j = j0; j < j1; j++) {
		struct gnio_gpu_buf *buf = NULL;
		uintptr_t addr = 0;
		uint32_t mkey = 0;
		gnio_gpu_dev_buf_get_buf(a->frames, (k * a->burst + j) % nelem, &buf);
		gnio_gpu_dev_buf_get_addr(buf, &addr);
		gnio_gpu_dev_buf_get_mkey(buf, &mkey);
		uint32_t len = swt_build_frame((uint8_t *)addr, &a->frame, k, j, when_ns);
		for (;;) {
			gnio_error_t err = gnio_gpu_dev_eth_txq_wait_send_thread(
				a->txq, ts, (uint64_t)addr, mkey, len,
				j == 0 ? GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY : GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, last);
			if (err == GNIO_SUCCESS) {
				t->frames++;
				break;
			}
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
	return 1;
}

/* Before building burst k into its pool slots: the sends that used those
 * slots last have completed. At most nelem - burst sends may be in flight
 * (last: the newest ticket, have: whether there is one). Returns 0 when
 * told to stop meanwhile. */
GNIO_DEV int swt_wait_slots(const struct swt_args *a, const struct gnio_kernel_ctl *ctl, int have, uint64_t last)
{
	const uint64_t room = a->frames->num_elem - a->burst;
	unsigned naps = 0;
	while (have && last + 1 - gnio_gpu_dev_eth_txq_completed(a->txq) > room) {
		if (gnio_gpu_dev_kernel_should_stop(ctl))
			return 0;
#if GNIO_ON_GPU
		__nanosleep(naps < 8 ? 256u << naps : 65536u);
#else
		if (naps > 64)
			sched_yield();
#endif
		naps++;
	}
	return 1;
}

/* Sleep until now_ns >= until_ns - lookahead: a burst is queued a little
 * before its time (the proxy holds it until then), not all at once.
 * Returns 0 when told to stop meanwhile. */
GNIO_DEV int swt_pace(const struct gnio_kernel_ctl *ctl, uint64_t until_ns, uint64_t lookahead_ns)
{
	unsigned naps = 0;
	while (gnio_gpu_dev_time_ns() + lookahead_ns < until_ns) {
		if (gnio_gpu_dev_kernel_should_stop(ctl))
			return 0;
#if GNIO_ON_GPU
		__nanosleep(naps < 8 ? 1024u << naps : 100000u);
#else
		sched_yield();
#endif
		naps++;
	}
	return !gnio_gpu_dev_kernel_should_stop(ctl);
}

GNIO_HD uint64_t swt_lookahead(uint64_t interval_ns)
{
	uint64_t l = 2 * interval_ns;
	return l < 200000 ? 200000 : l > 10000000 ? 10000000 : l;
}

/* Running totals (relaxed: the host reads them as samples while the kernel
 * runs, and exactly once it has finished). */
GNIO_HD void swt_publish(struct swt_stats *st, const struct swt_stats *t)
{
	gnio_store_relaxed_u64(&st->bursts, t->bursts);
	gnio_store_relaxed_u64(&st->frames, t->frames);
	gnio_store_relaxed_u64(&st->again, t->again);
	gnio_store_relaxed_u64(&st->unsent, t->unsent);
	gnio_store_relaxed_u64(&st->errors, t->errors);
	gnio_store_relaxed_u64(&st->last_error, t->last_error);
}

#ifdef __cplusplus
extern "C" {
#endif
/* The kernel bodies: l->user is a struct swt_args * (device views). */
gnio_error_t send_wait_time_cpu(const struct gnio_runner_launch *l);
gnio_error_t send_wait_time_cuda(const struct gnio_runner_launch *l);
#ifdef __cplusplus
}
#endif

#endif /* GNIO_SAMPLE_SEND_WAIT_TIME_H */
