/* SPDX-License-Identifier: MIT */
/*
 * samples/packet_processing/packet_processing.h - what the host program and
 * the two kernel bodies (CUDA: packet_processing_kernel.cu, CPU device:
 * packet_processing_cpu.c) share: the arguments, the counters, the records
 * that travel through the semaphores, and the per-protocol handlers, written
 * once (they call the device API, so they compile as CUDA and as C).
 *
 * The handlers are the sample's per-protocol "kernels":
 *   pp_udp_handle   counts DNS and other UDP;
 *   pp_tcp_handle   counts SYN, FIN, HTTP GET/POST/HEAD; with --http answers
 *                   a GET on a flow the host's TCP path opened, and hands
 *                   SYN, FIN and RST segments to that path;
 *   pp_icmp_handle  answers ICMP echo requests and ARP requests for --ip, in
 *                   place (the RX buffer becomes the reply and is sent as is).
 * Today one receive loop (role PP_ROLE_ALL) classifies each frame and calls
 * the handler of its protocol. With per-queue steering (flow rules sending
 * UDP, TCP and ICMP/ARP to their own queues) the same loop runs once per
 * queue with role PP_ROLE_UDP, PP_ROLE_TCP or PP_ROLE_ICMP: see README.md.
 */
#ifndef GNIO_SAMPLE_PACKET_PROCESSING_H
#define GNIO_SAMPLE_PACKET_PROCESSING_H

#include <gnio/runner.h>
#include "pp_frame.h"
#include "sample_dev.h"

#define PP_BATCH 256u
#define PP_TIMEOUT_NS 50000ull       /* an idle receive returns after 50 us: ping latency */
#define PP_THREADS 256u
#define PP_STATS_EVERY_NS 100000000ull /* a counter snapshot every 100 ms */
#define PP_STATS_ITEMS 16u
#define PP_TCP_ITEMS 256u             /* TCP control segments on their way to the host */
#define PP_TX_ITEMS 256u              /* frames the host built, on their way out */
#define PP_REC_BYTES 224u             /* a frame in a semaphore record (headers of a segment) */
#define PP_TX_PER_PASS 16u            /* host-built frames the kernel sends per loop */
#define PP_HTTP_PORT 80u
#define PP_PAGE_MAX 1024u

enum pp_role { PP_ROLE_ALL = 0, PP_ROLE_UDP, PP_ROLE_TCP, PP_ROLE_ICMP };

/* What the kernel counts: one counter per --json key and what it did. */
struct pp_counters {
	uint64_t kind[PP_KINDS];
	uint64_t icmp_replies;
	uint64_t arp_replies;
	uint64_t http_replies;
	uint64_t http_no_flow;   /* GETs to our HTTP port on no open flow: not answered */
	uint64_t tcp_to_cpu;     /* TCP control segments handed to the host */
	uint64_t tcp_to_cpu_full;/* ... dropped: every record was still in use */
	uint64_t cpu_tx;         /* frames the host built that the kernel sent */
	uint64_t tx_again;
	uint64_t errors;
	uint64_t last_error;
	uint64_t packets;
	uint64_t bytes;
};

/* A frame in a semaphore record. */
struct pp_frame_rec {
	uint32_t len;
	uint32_t rsvd;
	uint8_t frame[PP_REC_BYTES];
};

/* Host memory both sides see (CPU_GPU), written by the host only. */
struct pp_shared {
	uint64_t flows[PP_FLOWS];         /* pp_flow_* in pp_frame.h */
	uint32_t page_len[2];             /* 0: the index page, 1: not found */
	uint8_t page[2][PP_PAGE_MAX];     /* whole HTTP responses: headers and body */
};

struct pp_args {
	struct gnio_gpu_eth_rxq *rxq;            /* device views */
	struct gnio_gpu_eth_txq *txq;
	const struct pp_shared *shared;
	struct gnio_gpu_semaphore_gpu *stats_sem; /* kernel -> host: counter snapshots (READY), the last one EXIT */
	struct gnio_gpu_semaphore_gpu *tcp_sem;   /* kernel -> host: TCP control segments */
	struct gnio_gpu_semaphore_gpu *tx_sem;    /* host -> kernel: frames to send */
	uint32_t ip;                              /* --ip, as stored in memory (inet_pton) */
	uint8_t mac[6];                           /* our MAC: ARP replies */
	int http;                                 /* --http */
	int role;                                 /* enum pp_role */
	int scope;                                /* who receives: SAMPLE_SCOPE_* */
};

/* ------------------------------------------------------------ sending -- */

/* Send a frame where it lies in the RX pool (in place), waiting out a full
 * ring. */
GNIO_DEV void pp_send_in_place(const struct pp_args *a, const struct gnio_kernel_ctl *ctl, uint8_t *f, uint32_t len,
			       uint64_t *replies, struct pp_counters *c)
{
	const uint32_t mkey = gnio_gpu_dev_eth_rxq_get_pkt_mkey(a->rxq);
	for (;;) {
		gnio_error_t err = gnio_gpu_dev_eth_txq_send_thread(a->txq, (uint64_t)(uintptr_t)f, mkey, len,
								     GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, NULL);
		if (err == GNIO_SUCCESS) {
			(*replies)++;
			return;
		}
		if (err != GNIO_ERROR_AGAIN) {
			c->errors++;
			c->last_error = (uint64_t)err;
			return;
		}
		c->tx_again++;
		if (!sample_dev_tx_wait(a->txq, ctl))
			return;
	}
}

/* Reserve one slot of the TX pool (slot-style send), waiting out a full
 * ring. Returns 1 with *ticket, 0 when stopped or on an error (counted). */
GNIO_DEV int pp_reserve(const struct pp_args *a, const struct gnio_kernel_ctl *ctl, uint64_t *ticket,
			struct pp_counters *c)
{
	for (;;) {
		gnio_error_t err = gnio_gpu_dev_eth_txq_reserve(a->txq, 1, ticket);
		if (err == GNIO_SUCCESS)
			return 1;
		if (err != GNIO_ERROR_AGAIN) {
			c->errors++;
			c->last_error = (uint64_t)err;
			return 0;
		}
		c->tx_again++;
		if (!sample_dev_tx_wait(a->txq, ctl))
			return 0;
	}
}

/* ----------------------------------------------------------- handlers -- */

/* UDP: DNS and the rest are counted by kind; nothing to answer. */
GNIO_DEV void pp_udp_handle(const struct pp_args *a, const struct pp_pkt *p, struct pp_counters *c)
{
	(void)a;
	(void)p;
	(void)c;
}

/* ICMP and ARP for our address: the request becomes the reply in place. */
GNIO_DEV void pp_icmp_handle(const struct pp_args *a, const struct gnio_kernel_ctl *ctl, uint8_t *f, uint32_t len,
			     const struct pp_pkt *p, struct pp_counters *c)
{
	uint32_t rlen;
	if (p->kind == PP_ARP) {
		if ((rlen = pp_arp_reply_in_place(f, len, a->ip, a->mac)) != 0)
			pp_send_in_place(a, ctl, f, rlen, &c->arp_replies, c);
	} else if (p->kind == PP_ICMP) {
		if ((rlen = gnio_icmp_echo_reply_in_place(f, len, a->ip)) != 0)
			pp_send_in_place(a, ctl, f, rlen, &c->icmp_replies, c);
	}
}

/* The response to a GET of path: the index page for / and /index.html, else
 * not found. */
GNIO_DEV int pp_http_page(const uint8_t *f, const struct pp_pkt *p)
{
	const uint8_t *path = f + p->payload + 4; /* after "GET " */
	const uint32_t n = p->payload_len - 4;
	const char *index = "/index.html";
	if (n >= 2 && path[0] == '/' && path[1] == ' ')
		return 0;
	uint32_t i = 0;
	for (; index[i]; i++)
		if (i >= n || path[i] != (uint8_t)index[i])
			return 1;
	return i < n && path[i] == ' ' ? 0 : 1;
}

/* TCP. Returns 1 when the segment goes to the host's TCP path. */
GNIO_DEV int pp_tcp_handle(const struct pp_args *a, const struct gnio_kernel_ctl *ctl, const uint8_t *f,
			   const struct pp_pkt *p, struct pp_counters *c)
{
	if (!a->http || pp_ip_dst(f, p) != a->ip)
		return 0;
	/* Handshakes and teardowns are the host's; so are resets. */
	if (p->kind == PP_TCP_SYN || p->kind == PP_TCP_FIN || (p->tcp_flags & PP_TCP_RST_FLAG))
		return 1;
	if (p->kind != PP_HTTP_GET || p->dport != PP_HTTP_PORT)
		return 0;
	const uint8_t *src = f + p->l3 + 12;
	const uint32_t client = (uint32_t)src[0] | (uint32_t)src[1] << 8 | (uint32_t)src[2] << 16 | (uint32_t)src[3] << 24;
	if (!pp_flow_open(a->shared->flows, pp_flow_key(client, p->sport))) {
		c->http_no_flow++;
		return 0;
	}
	/* Our next sequence number is what the client acknowledges; we
	 * acknowledge its request. */
	const int page = pp_http_page(f, p);
	uint64_t t;
	if (!pp_reserve(a, ctl, &t, c))
		return 0;
	uint8_t *out = gnio_gpu_dev_eth_txq_slot_addr(a->txq, t);
	uint32_t len = pp_tcp_reply(out, gnio_gpu_dev_eth_txq_slot_size(a->txq), f, p,
				    PP_TCP_PSH_FLAG | PP_TCP_ACK_FLAG, p->ack, p->seq + p->payload_len, 0,
				    a->shared->page[page], a->shared->page_len[page]);
	if (!len) { /* cannot happen with the page limit; the slot still goes out */
		len = 60;
		c->errors++;
		c->last_error = GNIO_ERROR_TOO_BIG;
	} else {
		c->http_replies++;
	}
	/* The commit's RELEASE of the descriptor orders the frame's bytes. */
	gnio_gpu_dev_eth_txq_commit(a->txq, t, len, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
	return 0;
}

/* One frame: classify, count, and run the handler of its protocol (or, for
 * a queue steered to one protocol, that one's). Returns 1 when the frame
 * goes to the host's TCP path. */
GNIO_DEV int pp_handle(const struct pp_args *a, const struct gnio_kernel_ctl *ctl, uint8_t *f, uint32_t len,
		       struct pp_counters *c)
{
	struct pp_pkt p;
	const int kind = pp_parse(f, len, &p);
	c->kind[kind]++;
	c->packets++;
	c->bytes += len;
	switch (kind) {
	case PP_ARP:
	case PP_ICMP:
		if (a->role == PP_ROLE_ALL || a->role == PP_ROLE_ICMP)
			pp_icmp_handle(a, ctl, f, len, &p, c);
		return 0;
	case PP_DNS:
	case PP_UDP_OTHER:
		if (a->role == PP_ROLE_ALL || a->role == PP_ROLE_UDP)
			pp_udp_handle(a, &p, c);
		return 0;
	case PP_OTHER:
		return 0;
	default:
		if (a->role == PP_ROLE_ALL || a->role == PP_ROLE_TCP)
			return pp_tcp_handle(a, ctl, f, &p, c);
		return 0;
	}
}

/* -------------------------------------------------------- semaphores -- */

/* Copy the frame into the next record of the TCP semaphore for the host.
 * *idx is the producer's next record; a record still in use means the host
 * is behind: the segment is dropped and counted (the peer retransmits). */
GNIO_DEV void pp_to_host(const struct pp_args *a, const uint8_t *f, uint32_t len, uint32_t *idx, struct pp_counters *c)
{
	enum gnio_gpu_semaphore_status st = GNIO_GPU_SEMAPHORE_STATUS_ERROR;
	void *info = NULL;
	gnio_gpu_dev_semaphore_get_status(a->tcp_sem, *idx, &st);
	if (st != GNIO_GPU_SEMAPHORE_STATUS_FREE) {
		c->tcp_to_cpu_full++;
		return;
	}
	gnio_gpu_dev_semaphore_get_custom_info_addr(a->tcp_sem, *idx, &info);
	struct pp_frame_rec *r = (struct pp_frame_rec *)info;
	const uint32_t n = len < PP_REC_BYTES ? len : PP_REC_BYTES;
	for (uint32_t i = 0; i < n; i++)
		r->frame[i] = f[i];
	r->len = n;
	/* RELEASE(status): the record's bytes are written before it is READY. */
	gnio_gpu_dev_semaphore_set_status(a->tcp_sem, *idx, GNIO_GPU_SEMAPHORE_STATUS_READY);
	*idx = (*idx + 1) % PP_TCP_ITEMS;
	c->tcp_to_cpu++;
}

/* Send the frames the host put in the TX semaphore (READY), in order, at
 * most PP_TX_PER_PASS per call. *idx is the consumer's next record. */
GNIO_DEV void pp_send_from_host(const struct pp_args *a, const struct gnio_kernel_ctl *ctl, uint32_t *idx,
				struct pp_counters *c)
{
	for (uint32_t n = 0; n < PP_TX_PER_PASS; n++) {
		enum gnio_gpu_semaphore_status st = GNIO_GPU_SEMAPHORE_STATUS_ERROR;
		void *info = NULL;
		/* ACQUIRE(status) pairs with the host's RELEASE: the record is
		 * complete once it reads READY. */
		gnio_gpu_dev_semaphore_get_status(a->tx_sem, *idx, &st);
		if (st != GNIO_GPU_SEMAPHORE_STATUS_READY)
			return;
		gnio_gpu_dev_semaphore_get_custom_info_addr(a->tx_sem, *idx, &info);
		const struct pp_frame_rec *r = (const struct pp_frame_rec *)info;
		uint64_t t;
		if (!pp_reserve(a, ctl, &t, c))
			return;
		uint8_t *out = gnio_gpu_dev_eth_txq_slot_addr(a->txq, t);
		const uint32_t len = r->len;
		for (uint32_t i = 0; i < len; i++)
			out[i] = r->frame[i];
		gnio_gpu_dev_eth_txq_commit(a->txq, t, len, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
		gnio_gpu_dev_semaphore_set_status(a->tx_sem, *idx, GNIO_GPU_SEMAPHORE_STATUS_FREE);
		*idx = (*idx + 1) % PP_TX_ITEMS;
		c->cpu_tx++;
	}
}

/* Post the counters in the next stats record. final: wait for the record
 * (the host frees it) and mark it EXIT; else skip the snapshot when the
 * host is behind. Returns 1 when posted. */
GNIO_DEV int pp_post_stats(const struct pp_args *a, const struct pp_counters *tot, uint32_t *idx, int final)
{
	enum gnio_gpu_semaphore_status st = GNIO_GPU_SEMAPHORE_STATUS_ERROR;
	void *info = NULL;
	const uint64_t give_up = gnio_gpu_dev_time_ns() + 2000000000ull;
	for (;;) {
		gnio_gpu_dev_semaphore_get_status(a->stats_sem, *idx, &st);
		if (st == GNIO_GPU_SEMAPHORE_STATUS_FREE)
			break;
		if (!final || gnio_gpu_dev_time_ns() > give_up)
			return 0;
#if GNIO_ON_GPU
		__nanosleep(10000);
#else
		sched_yield();
#endif
	}
	gnio_gpu_dev_semaphore_get_custom_info_addr(a->stats_sem, *idx, &info);
	*(struct pp_counters *)info = *tot;
	gnio_gpu_dev_semaphore_set_status(a->stats_sem, *idx,
					  final ? GNIO_GPU_SEMAPHORE_STATUS_EXIT : GNIO_GPU_SEMAPHORE_STATUS_READY);
	*idx = (*idx + 1) % PP_STATS_ITEMS;
	return 1;
}

/* Add one thread's counters to the totals. */
GNIO_HD void pp_counters_add(struct pp_counters *t, const struct pp_counters *c)
{
	for (int k = 0; k < PP_KINDS; k++)
		t->kind[k] += c->kind[k];
	t->icmp_replies += c->icmp_replies;
	t->arp_replies += c->arp_replies;
	t->http_replies += c->http_replies;
	t->http_no_flow += c->http_no_flow;
	t->tcp_to_cpu += c->tcp_to_cpu;
	t->tcp_to_cpu_full += c->tcp_to_cpu_full;
	t->cpu_tx += c->cpu_tx;
	t->tx_again += c->tx_again;
	t->errors += c->errors;
	if (c->errors)
		t->last_error = c->last_error;
	t->packets += c->packets;
	t->bytes += c->bytes;
}

#ifdef __cplusplus
extern "C" {
#endif
/* The kernel bodies: l->user is a struct pp_args * (device views). */
gnio_error_t packet_processing_cpu(const struct gnio_runner_launch *l);
gnio_error_t packet_processing_cuda(const struct gnio_runner_launch *l);
#ifdef __cplusplus
}
#endif

#endif /* GNIO_SAMPLE_PACKET_PROCESSING_H */
