/* SPDX-License-Identifier: MIT */
/*
 * tests/util/doca_style.h - the host half of the DOCA-style ICMP echo test,
 * shared by its CUDA kernel (tests/gpu/test_gpu_doca_style.cu) and its
 * CPU-device body (tests/unit/test_doca_style.c).
 *
 * The kernel is written as a DOCA GPUNetIO 3.x sample writes one and ported
 * by the renames docs/doca-mapping.md lists: a block-scope receive into
 * __shared__ outputs, per-thread packet addresses, echo replies built in the
 * RX buffer and sent from there, per-batch stats handed to the host through
 * a semaphore's custom info, and an exit flag in GPU_CPU memory.
 *
 * The host half brings the queues up with the explicit calls a DOCA sample
 * makes (no pipeline helper), feeds ICMP echo requests and other frames
 * through the sw wire, checks every reply on the far side with its own
 * checksum code, drains the semaphore and the progress engine, and after the
 * kernel has gone checks that every count agrees exactly: the wire's, the
 * queues', the kernel's (through the semaphore) and the notifications'.
 *
 * Every function returns 0 on success; otherwise 1 with the reason in
 * env->why, so each test reports it its own way.
 */
#ifndef GNIO_TESTS_DOCA_STYLE_H
#define GNIO_TESTS_DOCA_STYLE_H

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gnio/gnio.h"
#include "gnio/device/gnio_dev.h"
#include "gnio/apps/icmp.h"

/* As the DOCA samples define them. */
#define DS_RX_RING 1024u      /* RX packet slots */
#define DS_PKT_SIZE 2048u     /* bytes per slot */
#define DS_MAX_PKT 1536u      /* largest frame */
#define DS_TX_RING 256u       /* TX descriptors: small enough that sends meet AGAIN */
#define DS_BURST 64u          /* proxy burst */
#define DS_MAX_RX 128u        /* frames per receive */
#define DS_TIMEOUT_NS 50000u  /* receive timeout: 50 us, as DOCA's ICMP kernel */
#define DS_SEM_ITEMS 64u      /* semaphore items */
#define DS_THREADS 128u       /* CUDA block */
#define DS_WINDOW 256u        /* frames the host lets the kernel owe it */

/* Exit flag values: the host writes STOP, a kernel that gives up writes
 * ERROR (and stops). */
#define DS_EXIT_RUN 0u
#define DS_EXIT_STOP 1u
#define DS_EXIT_ERROR 2u

/* Per-batch stats, the custom info of one semaphore item. */
struct ds_info {
	uint64_t batch;         /* the kernel's batch number, from 0 */
	uint64_t pkts;          /* frames received */
	uint64_t bytes;         /* their bytes (from the per-packet attributes) */
	uint64_t replies;       /* echo replies sent in place */
	uint64_t reply_bytes;
	uint64_t ignored;       /* frames that were not echo requests (left alone) */
	uint64_t send_errors;   /* sends that failed other than with AGAIN */
	uint64_t again;         /* sends that found the TX ring full and were retried */
	uint64_t attr_mismatch; /* attribute bytes that differ from get_pkt_bytes */
};

/* What the kernel is given. */
struct ds_kargs {
	uint32_t *exit_cond;                /* GPU_CPU memory, device view */
	struct gnio_gpu_eth_rxq *rxq;
	struct gnio_gpu_eth_txq *txq;
	struct gnio_gpu_semaphore_gpu *sem;
};

struct ds_env {
	/* objects, made by ds_up */
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	struct gnio_pe *pe;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	void *rx_mem, *rx_mem_cpu;
	struct gnio_buf_arr *rx_arr;
	struct gnio_gpu_eth_rxq *rxh;
	struct gnio_gpu_eth_txq *txh;
	struct gnio_gpu_semaphore *sem;
	struct gnio_gpu_semaphore_gpu *semh;
	uint32_t *exit_gpu, *exit_cpu;
	struct ds_kargs kargs;
	char wire[40];

	/* traffic */
	struct gnio_gen_cfg icmp[3], udp;
	uint64_t n;            /* frames to feed */
	uint8_t *kind;         /* per seq: DS_KIND_* */
	uint8_t *replied;      /* per seq: its reply was seen */
	uint8_t *ticket_seen;  /* per ticket: its notification was seen */
	uint64_t offered, offered_bytes, requests, request_bytes, others;

	/* seen by the host */
	uint64_t replies, reply_bytes;
	uint64_t notified, notify_errors, tx_error_events;
	struct ds_info sum;    /* sum of the semaphore items */
	uint64_t sem_batches;
	uint32_t sem_idx;

	/* the kernel, for the waits: is it still running? */
	int (*alive)(void *user);
	void *alive_user;
	unsigned patience; /* multiplies the no-progress deadlines (0: 1), e.g. under a sanitizer */

	int bad;
	char why[320];
};

enum { DS_KIND_REQUEST = 0, DS_KIND_VLAN_REQUEST, DS_KIND_UDP, DS_KIND_ECHO_REPLY };

static inline int ds_fail(struct ds_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ds_fail(struct ds_env *e, const char *fmt, ...)
{
	if (!e->bad) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->why, sizeof(e->why), fmt, ap);
		va_end(ap);
	}
	e->bad = 1;
	return 1;
}

/* A gnio call that must succeed. */
#define DS_TRY(e, expr)                                                                                         \
	do {                                                                                                    \
		gnio_error_t ds_e_ = (expr);                                                                    \
		if (ds_e_ != GNIO_SUCCESS)                                                                      \
			return ds_fail((e), "%s:%d: %s returned %s (%s)", __FILE__, __LINE__, #expr,            \
				       gnio_error_get_name(ds_e_), gnio_last_error_msg());                      \
	} while (0)

static inline uint64_t ds_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void ds_nap(void)
{
	struct timespec ts = {0, 20000};
	nanosleep(&ts, NULL);
}

/* RFC 1071 by the book, independent of gnio's helpers: the ones'-complement
 * sum of the 16-bit big-endian words (an odd last byte padded with zero),
 * carries folded back. A region that holds its own checksum sums to 0xffff. */
static inline uint16_t ds_sum16(const uint8_t *p, uint32_t len)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < len; i++)
		s += (i & 1) ? p[i] : (uint64_t)p[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* ------------------------------------------------------ progress events -- */

static void ds_on_notify(struct gnio_eth_txq_gpu_event_notify_send_packet *ev, void *user)
{
	struct ds_env *e = (struct ds_env *)user;
	uint16_t pos = 0;
	uint64_t ticket = 0, ts = 0;
	if (gnio_eth_txq_gpu_event_notify_send_packet_get_position(ev, &pos) != GNIO_SUCCESS ||
	    gnio_eth_txq_gpu_event_notify_send_packet_get_ticket(ev, &ticket) != GNIO_SUCCESS ||
	    gnio_eth_txq_gpu_event_notify_send_packet_get_timestamp(ev, &ts) != GNIO_SUCCESS) {
		e->notify_errors++;
		return;
	}
	/* Only replies go out on this queue, each with NOTIFY: tickets are
	 * 0 .. requests-1, each notified once, the position its low 16 bits. */
	if (pos != (uint16_t)(ticket & 0xffffu) || ticket >= e->n || e->ticket_seen[ticket] || ts == 0)
		e->notify_errors++;
	else
		e->ticket_seen[ticket] = 1;
	e->notified++;
}

static void ds_on_tx_error(struct gnio_eth_txq_gpu_event_error_send_packet *ev, void *user)
{
	(void)ev;
	((struct ds_env *)user)->tx_error_events++;
}

/* --------------------------------------------------------------- bring-up -- */

/* The explicit bring-up of a DOCA sample, each call renamed: capabilities,
 * RX queue and its packet buffer, TX queue sending from that buffer with
 * notifications through a progress engine, a semaphore, an exit flag. The
 * device context is the caller's (the GPU test's or "cpu"). */
static inline int ds_up(struct ds_env *e, struct gnio_gpu *gpu, const char *name, uint64_t n)
{
	char spec[64];
	struct gnio_devinfo *info;
	uint32_t max_pkt = 0, burst = 0;

	memset(e, 0, sizeof(*e));
	e->gpu = gpu;
	e->n = n;
	snprintf(e->wire, sizeof(e->wire), "%s", name);
	snprintf(spec, sizeof(spec), "sw:%s", name);

	DS_TRY(e, gnio_dev_open(spec, &e->dev));
	info = gnio_dev_as_devinfo(e->dev);
	DS_TRY(e, gnio_eth_rxq_cap_is_type_supported(info, GNIO_ETH_RXQ_TYPE_CYCLIC, GNIO_ETH_RXQ_DATA_PATH_TYPE_GPU));
	DS_TRY(e, gnio_eth_txq_cap_is_type_supported(info, GNIO_ETH_TXQ_TYPE_REGULAR, GNIO_ETH_TXQ_DATA_PATH_TYPE_GPU));
	DS_TRY(e, gnio_eth_rxq_cap_get_max_packet_size(info, &max_pkt));
	if (max_pkt < DS_MAX_PKT)
		return ds_fail(e, "the wire carries at most %u bytes", max_pkt);
	DS_TRY(e, gnio_eth_rxq_cap_get_max_burst_size(info, &burst));
	if (burst < DS_RX_RING)
		return ds_fail(e, "the wire's largest ring is %u entries", burst);

	/* RX queue: cyclic, its packets in a buffer the TX queue may send from.
	 * Pinned host memory, so a reply leaves without a copy on sw. */
	DS_TRY(e, gnio_eth_rxq_create(e->dev, DS_BURST, DS_MAX_PKT, &e->rxq));
	DS_TRY(e, gnio_eth_rxq_set_type(e->rxq, GNIO_ETH_RXQ_TYPE_CYCLIC));
	DS_TRY(e, gnio_eth_rxq_set_num_packets(e->rxq, DS_RX_RING));
	/* A test counts every frame: hold frames on the wire while the ring is
	 * full instead of dropping them as a NIC would. */
	DS_TRY(e, gnio_eth_rxq_set_flow_control(e->rxq, 1));
	DS_TRY(e, gnio_gpu_mem_alloc(gpu, (size_t)DS_RX_RING * DS_PKT_SIZE, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU,
				     &e->rx_mem, &e->rx_mem_cpu));
	DS_TRY(e, gnio_buf_arr_create(gpu, e->rx_mem, DS_PKT_SIZE, DS_RX_RING, &e->rx_arr));
	DS_TRY(e, gnio_buf_arr_start(e->rx_arr));
	DS_TRY(e, gnio_eth_rxq_set_pkt_buf(e->rxq, e->rx_arr));
	DS_TRY(e, gnio_ctx_set_datapath_on_gpu(gnio_eth_rxq_as_ctx(e->rxq), gpu));
	DS_TRY(e, gnio_ctx_start(gnio_eth_rxq_as_ctx(e->rxq)));
	DS_TRY(e, gnio_eth_rxq_get_gpu_handle(e->rxq, &e->rxh));

	/* TX queue: sends from the RX buffer, completions of NOTIFY sends to
	 * the progress engine. */
	DS_TRY(e, gnio_pe_create(&e->pe));
	DS_TRY(e, gnio_eth_txq_create(e->dev, DS_BURST, &e->txq));
	DS_TRY(e, gnio_eth_txq_set_num_packets(e->txq, DS_TX_RING));
	DS_TRY(e, gnio_eth_txq_add_buf_arr(e->txq, e->rx_arr));
	DS_TRY(e, gnio_eth_txq_gpu_event_notify_send_packet_register(e->txq, ds_on_notify, e));
	DS_TRY(e, gnio_eth_txq_gpu_event_error_send_packet_register(e->txq, ds_on_tx_error, e));
	DS_TRY(e, gnio_pe_connect_ctx(e->pe, gnio_eth_txq_as_ctx(e->txq)));
	DS_TRY(e, gnio_ctx_set_datapath_on_gpu(gnio_eth_txq_as_ctx(e->txq), gpu));
	DS_TRY(e, gnio_ctx_start(gnio_eth_txq_as_ctx(e->txq)));
	DS_TRY(e, gnio_eth_txq_get_gpu_handle(e->txq, &e->txh));

	/* Per-batch stats: a ring of semaphore items with custom info. */
	DS_TRY(e, gnio_gpu_semaphore_create(gpu, &e->sem));
	DS_TRY(e, gnio_gpu_semaphore_set_memory_type(e->sem, GNIO_GPU_MEM_TYPE_CPU_GPU));
	DS_TRY(e, gnio_gpu_semaphore_set_items_num(e->sem, DS_SEM_ITEMS));
	DS_TRY(e, gnio_gpu_semaphore_set_custom_info(e->sem, sizeof(struct ds_info), GNIO_GPU_MEM_TYPE_CPU_GPU));
	DS_TRY(e, gnio_gpu_semaphore_start(e->sem));
	DS_TRY(e, gnio_gpu_semaphore_get_gpu_handle(e->sem, &e->semh));

	/* The exit flag, as the samples allocate it. */
	void *xg = NULL, *xc = NULL;
	DS_TRY(e, gnio_gpu_mem_alloc(gpu, sizeof(uint32_t), 4096, GNIO_GPU_MEM_TYPE_GPU_CPU, &xg, &xc));
	if (!xg || !xc)
		return ds_fail(e, "GPU_CPU memory without a %s view", xg ? "CPU" : "device");
	e->exit_gpu = (uint32_t *)xg;
	e->exit_cpu = (uint32_t *)xc;
	/* A sequentially consistent store: on x86 it also drains a
	 * write-combining mapping (and ThreadSanitizer can follow it, where it
	 * cannot follow a fence). */
	__atomic_store_n(e->exit_cpu, DS_EXIT_RUN, __ATOMIC_SEQ_CST);

	DS_TRY(e, gnio_sw_peer_open(name, &e->peer));

	e->kargs.exit_cond = e->exit_gpu;
	e->kargs.rxq = e->rxh;
	e->kargs.txq = e->txh;
	e->kargs.sem = e->semh;

	/* The traffic: echo requests of three sizes (one odd) and four
	 * identifiers, some VLAN-tagged; UDP frames and echo replies, which
	 * the kernel must leave alone. */
	static const uint32_t sizes[3] = {64, 99, 1000};
	for (int i = 0; i < 3; i++) {
		gnio_gen_cfg_init(&e->icmp[i]);
		e->icmp[i].proto = GNIO_GEN_ICMP_ECHO;
		e->icmp[i].frame_size = sizes[i];
		e->icmp[i].flows = 4;
		e->icmp[i].src_port = (uint16_t)(0x4000 + 0x100 * i);
	}
	gnio_gen_cfg_init(&e->udp);
	e->udp.frame_size = 128;
	e->kind = (uint8_t *)calloc(n, 1);
	e->replied = (uint8_t *)calloc(n, 1);
	e->ticket_seen = (uint8_t *)calloc(n, 1);
	if (!e->kind || !e->replied || !e->ticket_seen)
		return ds_fail(e, "out of memory");
	return 0;
}

/* The sample's teardown: queues stopped and destroyed, the buffer, the
 * semaphore, the exit flag, the engine and the wire. The kernel must have
 * finished. The device context stays the caller's. */
static inline int ds_down(struct ds_env *e)
{
	if (e->peer)
		DS_TRY(e, gnio_sw_peer_close(e->peer));
	DS_TRY(e, gnio_ctx_stop(gnio_eth_txq_as_ctx(e->txq)));
	DS_TRY(e, gnio_ctx_stop(gnio_eth_rxq_as_ctx(e->rxq)));
	DS_TRY(e, gnio_pe_disconnect_ctx(e->pe, gnio_eth_txq_as_ctx(e->txq)));
	DS_TRY(e, gnio_eth_txq_destroy(e->txq));
	DS_TRY(e, gnio_eth_rxq_destroy(e->rxq));
	DS_TRY(e, gnio_buf_arr_destroy(e->rx_arr));
	DS_TRY(e, gnio_gpu_mem_free(e->gpu, e->rx_mem));
	DS_TRY(e, gnio_gpu_semaphore_destroy(e->sem));
	DS_TRY(e, gnio_gpu_mem_free(e->gpu, e->exit_gpu));
	DS_TRY(e, gnio_pe_destroy(e->pe));
	DS_TRY(e, gnio_dev_close(e->dev));
	free(e->kind);
	free(e->replied);
	free(e->ticket_seen);
	e->kind = e->replied = e->ticket_seen = NULL;
	return 0;
}

/* ----------------------------------------------------------- the frames -- */

/* The frame of seq (what kind it is: seq's place in a cycle of 8). */
static inline uint32_t ds_build(struct ds_env *e, uint64_t seq, uint8_t *f, uint32_t cap)
{
	const struct gnio_gen_cfg *ic = &e->icmp[seq % 3];
	uint32_t len;
	switch (seq % 8) {
	case 3:
		e->kind[seq] = DS_KIND_UDP;
		return gnio_gen_build(&e->udp, seq, f, cap);
	case 6: /* an echo reply: type 0, checksum recomputed */
		e->kind[seq] = DS_KIND_ECHO_REPLY;
		len = gnio_gen_build(ic, seq, f, cap);
		f[34] = 0;
		f[36] = f[37] = 0;
		{
			uint16_t c = (uint16_t)~ds_sum16(f + 34, len - 34);
			f[36] = (uint8_t)(c >> 8);
			f[37] = (uint8_t)c;
		}
		return len;
	case 7: /* a request with an 802.1Q tag (VLAN 100) */
		e->kind[seq] = DS_KIND_VLAN_REQUEST;
		len = gnio_gen_build(ic, seq, f + 4, cap - 4);
		memmove(f, f + 4, 12);
		f[12] = 0x81;
		f[13] = 0x00;
		f[14] = 0x00;
		f[15] = 100;
		return len + 4;
	default:
		e->kind[seq] = DS_KIND_REQUEST;
		return gnio_gen_build(ic, seq, f, cap);
	}
}

/* A reply the peer took: the request it answers, rebuilt, with MACs and
 * IPv4 addresses swapped, type 0, the rest unchanged; both checksums
 * verify. */
static inline int ds_check_reply(struct ds_env *e, const uint8_t *r, uint32_t len)
{
	uint8_t q[GNIO_GEN_MAX_FRAME + 4];
	uint64_t seq;
	if (gnio_gen_stamp_read(r, len, &seq) != GNIO_SUCCESS)
		return ds_fail(e, "a frame of %u bytes came back without a stamp", len);
	if (seq >= e->offered)
		return ds_fail(e, "a reply to frame %llu, which was never sent", (unsigned long long)seq);
	if (e->kind[seq] != DS_KIND_REQUEST && e->kind[seq] != DS_KIND_VLAN_REQUEST)
		return ds_fail(e, "frame %llu (kind %u) was answered; it is no echo request", (unsigned long long)seq,
			       e->kind[seq]);
	if (e->replied[seq])
		return ds_fail(e, "frame %llu answered twice", (unsigned long long)seq);
	e->replied[seq] = 1;
	uint32_t qlen = ds_build(e, seq, q, sizeof(q));
	if (len != qlen)
		return ds_fail(e, "reply to %llu: %u bytes, the request had %u", (unsigned long long)seq, len, qlen);
	const uint32_t l3 = e->kind[seq] == DS_KIND_VLAN_REQUEST ? 18u : 14u;
	const uint8_t *ip = r + l3, *qip = q + l3;
	const uint32_t ihl = (ip[0] & 0x0fu) * 4u;
	const uint32_t tot = (uint32_t)ip[2] << 8 | ip[3];
	if (memcmp(r, q + 6, 6) || memcmp(r + 6, q, 6))
		return ds_fail(e, "reply to %llu: MACs not swapped", (unsigned long long)seq);
	if (memcmp(r + 12, q + 12, l3 - 12))
		return ds_fail(e, "reply to %llu: ethertype or VLAN tag changed", (unsigned long long)seq);
	if (ihl != 20 || l3 + tot != len)
		return ds_fail(e, "reply to %llu: IPv4 header %u bytes, total length %u", (unsigned long long)seq, ihl,
			       tot);
	if (memcmp(ip, qip, 12) || memcmp(ip + 12, qip + 16, 4) || memcmp(ip + 16, qip + 12, 4))
		return ds_fail(e, "reply to %llu: IPv4 header not the request's with the addresses swapped",
			       (unsigned long long)seq);
	if (ds_sum16(ip, ihl) != 0xffff)
		return ds_fail(e, "reply to %llu: IPv4 header checksum does not verify", (unsigned long long)seq);
	const uint8_t *ic = ip + ihl, *qic = qip + ihl;
	if (ic[0] != 0 || ic[1] != 0)
		return ds_fail(e, "reply to %llu: ICMP type %u code %u", (unsigned long long)seq, ic[0], ic[1]);
	if (memcmp(ic + 4, qic + 4, tot - ihl - 4))
		return ds_fail(e, "reply to %llu: identifier, sequence or data changed", (unsigned long long)seq);
	if (ds_sum16(ic, tot - ihl) != 0xffff)
		return ds_fail(e, "reply to %llu: ICMP checksum does not verify (%u bytes)", (unsigned long long)seq,
			       tot - ihl);
	e->replies++;
	e->reply_bytes += len;
	return 0;
}

/* ----------------------------------------------------------------- poll -- */

/* Everything the host drains, without waiting: replies from the peer, the
 * progress engine, ready semaphore items (handed back FREE). */
static inline int ds_poll(struct ds_env *e)
{
	static uint8_t buf[GNIO_GEN_MAX_FRAME + 64];
	for (;;) {
		uint32_t len = 0;
		gnio_error_t err = gnio_sw_peer_recv(e->peer, 0, buf, sizeof(buf), &len, NULL);
		if (err == GNIO_ERROR_EMPTY)
			break;
		if (err != GNIO_SUCCESS)
			return ds_fail(e, "peer recv: %s", gnio_error_get_name(err));
		if (ds_check_reply(e, buf, len))
			return 1;
	}
	gnio_pe_progress(e->pe);
	for (;;) {
		enum gnio_gpu_semaphore_status st;
		DS_TRY(e, gnio_gpu_semaphore_get_status(e->sem, e->sem_idx, &st));
		if (st == GNIO_GPU_SEMAPHORE_STATUS_FREE)
			break;
		if (st != GNIO_GPU_SEMAPHORE_STATUS_READY)
			return ds_fail(e, "semaphore item %u has status %d", e->sem_idx, (int)st);
		void *p = NULL;
		DS_TRY(e, gnio_gpu_semaphore_get_custom_info_addr(e->sem, e->sem_idx, &p));
		const struct ds_info *in = (const struct ds_info *)p;
		if (in->batch != e->sem_batches)
			return ds_fail(e, "semaphore item %u carries batch %llu, %llu expected", e->sem_idx,
				       (unsigned long long)in->batch, (unsigned long long)e->sem_batches);
		if (in->pkts == 0)
			return ds_fail(e, "batch %llu reports no frames", (unsigned long long)in->batch);
		e->sum.pkts += in->pkts;
		e->sum.bytes += in->bytes;
		e->sum.replies += in->replies;
		e->sum.reply_bytes += in->reply_bytes;
		e->sum.ignored += in->ignored;
		e->sum.send_errors += in->send_errors;
		e->sum.again += in->again;
		e->sum.attr_mismatch += in->attr_mismatch;
		e->sem_batches++;
		DS_TRY(e, gnio_gpu_semaphore_set_status(e->sem, e->sem_idx, GNIO_GPU_SEMAPHORE_STATUS_FREE));
		e->sem_idx = (e->sem_idx + 1) % DS_SEM_ITEMS;
	}
	return 0;
}

static inline int ds_kernel_ok(struct ds_env *e)
{
	if (GNIO_GPUNETIO_VOLATILE(*e->exit_cpu) == DS_EXIT_ERROR)
		return ds_fail(e, "the kernel stopped on an error (a receive failed or a semaphore item stayed busy)");
	if (!e->alive(e->alive_user))
		return ds_fail(e, "the kernel is no longer running");
	return 0;
}

/* ------------------------------------------------------------------ run -- */

/* Feed e->n frames while draining; wait until every reply, notification
 * and semaphore item is in. The kernel keeps running. */
static inline int ds_run(struct ds_env *e)
{
	static uint8_t f[GNIO_GEN_MAX_FRAME + 4];
	const uint64_t slow = e->patience ? e->patience : 1;
	for (uint64_t seq = 0; seq < e->n; seq++) {
		const uint32_t len = ds_build(e, seq, f, sizeof(f));
		if (len == 0)
			return ds_fail(e, "cannot build frame %llu", (unsigned long long)seq);
		const uint64_t end = ds_mono_ns() + slow * 10000000000ull;
		/* At most DS_WINDOW frames not yet reported by the kernel, and as
		 * many notifications pending: the wire FIFO, the RX ring and the
		 * progress engine's queue (1024) never fill. */
		while (e->offered - e->sum.pkts >= DS_WINDOW || e->requests - e->notified >= DS_WINDOW) {
			if (ds_poll(e) || ds_kernel_ok(e))
				return 1;
			if (ds_mono_ns() > end)
				return ds_fail(e, "no progress for %llu s at frame %llu: kernel reported %llu frames, "
					       "%llu notifications", (unsigned long long)(10 * slow), (unsigned long long)seq,
					       (unsigned long long)e->sum.pkts, (unsigned long long)e->notified);
			ds_nap();
		}
		gnio_error_t err = gnio_sw_peer_send(e->peer, 0, f, len);
		if (err != GNIO_SUCCESS)
			return ds_fail(e, "peer send of frame %llu: %s", (unsigned long long)seq,
				       gnio_error_get_name(err));
		e->offered++;
		e->offered_bytes += len;
		if (e->kind[seq] == DS_KIND_REQUEST || e->kind[seq] == DS_KIND_VLAN_REQUEST) {
			e->requests++;
			e->request_bytes += len;
		} else {
			e->others++;
		}
		if (ds_poll(e))
			return 1;
	}
	const uint64_t end = ds_mono_ns() + slow * 30000000000ull;
	while (e->replies < e->requests || e->notified < e->requests || e->sum.pkts < e->offered) {
		if (ds_poll(e) || ds_kernel_ok(e))
			return 1;
		if (ds_mono_ns() > end)
			return ds_fail(e, "after %llu s: %llu of %llu replies, %llu notifications, kernel reported %llu "
				       "of %llu frames", (unsigned long long)(30 * slow), (unsigned long long)e->replies,
				       (unsigned long long)e->requests, (unsigned long long)e->notified,
				       (unsigned long long)e->sum.pkts, (unsigned long long)e->offered);
		ds_nap();
	}
	return ds_poll(e);
}

/* Ask the kernel to leave (the sample's exit flag). */
static inline void ds_stop(struct ds_env *e)
{
	__atomic_store_n(e->exit_cpu, DS_EXIT_STOP, __ATOMIC_SEQ_CST);
}

#define DS_EQ(e, a, b, what)                                                                                    \
	do {                                                                                                    \
		if ((uint64_t)(a) != (uint64_t)(b))                                                             \
			return ds_fail((e), "%s: %llu, expected %llu", (what), (unsigned long long)(a),         \
				       (unsigned long long)(b));                                                \
	} while (0)

/* After the kernel has gone: nothing more arrives, and every count agrees. */
static inline int ds_check_books(struct ds_env *e)
{
	struct gnio_eth_rxq_stats rs;
	struct gnio_eth_txq_stats ts;
	struct gnio_sw_peer_stats ps;

	/* The last sends' completions may still be on their way to the engine. */
	for (uint64_t end = ds_mono_ns() + 2000000000ull; ds_mono_ns() < end;) {
		if (ds_poll(e))
			return 1;
		DS_TRY(e, gnio_eth_txq_get_stats(e->txq, &ts));
		if (ts.tx_notified >= e->requests && e->notified >= e->requests)
			break;
		ds_nap();
	}
	if (ds_poll(e))
		return 1;
	DS_TRY(e, gnio_eth_rxq_get_stats(e->rxq, &rs));
	DS_TRY(e, gnio_eth_txq_get_stats(e->txq, &ts));
	DS_TRY(e, gnio_sw_peer_get_stats(e->peer, 0, &ps));

	/* the wire */
	DS_EQ(e, ps.offered, e->offered, "frames the peer offered");
	DS_EQ(e, ps.overflow, 0, "wire overflows");
	DS_EQ(e, ps.received, e->requests, "frames the peer took");
	/* every request answered once, with a valid reply */
	DS_EQ(e, e->replies, e->requests, "valid replies");
	DS_EQ(e, e->reply_bytes, e->request_bytes, "reply bytes");
	/* the RX queue: everything delivered, nothing dropped, all released */
	DS_EQ(e, rs.rx_packets, e->offered, "rx_packets");
	DS_EQ(e, rs.rx_bytes, e->offered_bytes, "rx_bytes");
	DS_EQ(e, rs.dropped_total, 0, "RX drops");
	DS_EQ(e, rs.released, rs.rx_packets, "RX entries released");
	/* the TX queue: every reply sent from its RX buffer, none copied */
	DS_EQ(e, ts.tx_packets, e->requests, "tx_packets");
	DS_EQ(e, ts.tx_bytes, e->request_bytes, "tx_bytes");
	DS_EQ(e, ts.tx_in_place, e->requests, "tx_in_place");
	DS_EQ(e, ts.tx_copies, 0, "tx_copies");
	DS_EQ(e, ts.tx_errors, 0, "tx_errors");
	DS_EQ(e, ts.tx_notified, e->requests, "tx_notified");
	/* the progress engine: one notification per reply */
	DS_EQ(e, e->notified, e->requests, "notifications");
	DS_EQ(e, e->notify_errors, 0, "notifications with a wrong position, ticket or time");
	DS_EQ(e, e->tx_error_events, 0, "send error events");
	DS_EQ(e, gnio_pe_get_lost_events(e->pe), 0, "lost progress events");
	/* the kernel's own books, through the semaphore */
	DS_EQ(e, e->sum.pkts, e->offered, "semaphore: frames");
	DS_EQ(e, e->sum.bytes, e->offered_bytes, "semaphore: bytes");
	DS_EQ(e, e->sum.replies, e->requests, "semaphore: replies");
	DS_EQ(e, e->sum.reply_bytes, e->request_bytes, "semaphore: reply bytes");
	DS_EQ(e, e->sum.ignored, e->others, "semaphore: frames left alone");
	DS_EQ(e, e->sum.send_errors, 0, "semaphore: send errors");
	DS_EQ(e, e->sum.attr_mismatch, 0, "semaphore: attribute mismatches");
	/* and no frame came back that was not answered already */
	uint32_t len;
	static uint8_t buf[GNIO_GEN_MAX_FRAME + 64];
	gnio_error_t err = gnio_sw_peer_recv(e->peer, 0, buf, sizeof(buf), &len, NULL);
	if (err != GNIO_ERROR_EMPTY)
		return ds_fail(e, "an extra frame came back (%s)", gnio_error_get_name(err));
	return 0;
}

/* One line for the log. */
static inline void ds_report(const struct ds_env *e, const char *what)
{
	printf("%s: %llu frames (%llu echo requests, %llu left alone): %llu valid replies in place, %llu "
	       "notifications, %llu semaphore batches, %llu AGAIN retries\n",
	       what, (unsigned long long)e->offered, (unsigned long long)e->requests, (unsigned long long)e->others,
	       (unsigned long long)e->replies, (unsigned long long)e->notified, (unsigned long long)e->sem_batches,
	       (unsigned long long)e->sum.again);
}

#endif /* GNIO_TESTS_DOCA_STYLE_H */
