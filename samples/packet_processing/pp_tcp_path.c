/* SPDX-License-Identifier: MIT */
/*
 * samples/packet_processing/pp_tcp_path.c - the CPU path of --http: TCP
 * handshakes and teardowns. The kernel hands it every SYN, FIN and RST to
 * our address through the TCP semaphore; it answers, opens and closes flows
 * in the table the kernel reads, and hands its answers back through the TX
 * semaphore (the kernel owns the TX queue and sends them).
 *
 *   SYN to port 80    open the flow, answer SYN+ACK (our ISN: pp_isn, MSS 1460)
 *   SYN to any other  answer RST+ACK (nothing listens there)
 *   FIN               answer FIN+ACK, close the flow
 *   RST               close the flow
 * The GETs in between are the kernel's (pp_tcp_handle).
 */
#include <string.h>
#include <time.h>

#include "pp_host.h"

#define TX_WAIT_NS 100000000ull /* how long an answer waits for a free TX record */

static void nap_us(unsigned us)
{
	struct timespec ts = {0, (long)us * 1000L};
	nanosleep(&ts, NULL);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int stopping(struct pp_tcp_path *p) { return __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE); }

/* Put a frame in the next TX record for the kernel. */
static void to_kernel(struct pp_tcp_path *p, const uint8_t *frame, uint32_t len)
{
	enum gnio_gpu_semaphore_status st;
	const uint64_t end = mono_ns() + TX_WAIT_NS;
	/* ACQUIRE(status): FREE means the kernel has sent the record's last
	 * frame (it set FREE with release after reading it). */
	while (gnio_gpu_semaphore_get_status(p->tx_sem, p->tx_idx, &st) == GNIO_SUCCESS &&
	       st != GNIO_GPU_SEMAPHORE_STATUS_FREE) {
		if (mono_ns() > end || stopping(p)) {
			p->tx_full++;
			return;
		}
		nap_us(20);
	}
	void *info;
	gnio_gpu_semaphore_get_custom_info_addr(p->tx_sem, p->tx_idx, &info);
	struct pp_frame_rec *r = info;
	memcpy(r->frame, frame, len);
	r->len = len;
	/* RELEASE(status): the record is complete before the kernel sees READY. */
	gnio_gpu_semaphore_set_status(p->tx_sem, p->tx_idx, GNIO_GPU_SEMAPHORE_STATUS_READY);
	p->tx_idx = (p->tx_idx + 1) % PP_TX_ITEMS;
}

static void answer(struct pp_tcp_path *p, const uint8_t *f, const struct pp_pkt *k, uint32_t flags, uint32_t seq,
		   uint32_t ack, uint32_t mss)
{
	uint8_t out[PP_REC_BYTES];
	uint32_t len = pp_tcp_reply(out, sizeof(out), f, k, flags, seq, ack, mss, NULL, 0);
	if (len)
		to_kernel(p, out, len);
}

static void handle(struct pp_tcp_path *p, const uint8_t *f, uint32_t len)
{
	struct pp_pkt k;
	pp_parse(f, len, &k);
	if (k.proto != 6 || !k.l4 || pp_ip_dst(f, &k) != p->ip) {
		p->ignored++;
		return;
	}
	const uint8_t *src = f + k.l3 + 12;
	const uint32_t client = (uint32_t)src[0] | (uint32_t)src[1] << 8 | (uint32_t)src[2] << 16 | (uint32_t)src[3] << 24;
	const uint64_t key = pp_flow_key(client, k.sport);
	const uint32_t fl = k.tcp_flags;

	if (fl & PP_TCP_RST_FLAG) {
		p->resets_seen++;
		p->closed += pp_flow_remove(p->shared->flows, key);
		return;
	}
	if ((fl & PP_TCP_SYN_FLAG) && !(fl & PP_TCP_ACK_FLAG)) {
		if (k.dport == PP_HTTP_PORT && pp_flow_insert(p->shared->flows, key) == 0) {
			/* Open before answering: the client's GET follows our SYN+ACK. */
			p->opened++;
			p->syn_acks++;
			answer(p, f, &k, PP_TCP_SYN_FLAG | PP_TCP_ACK_FLAG, pp_isn(key, p->secret), k.seq + 1, 1460);
		} else {
			p->resets_sent++;
			answer(p, f, &k, PP_TCP_RST_FLAG | PP_TCP_ACK_FLAG, 0, k.seq + 1, 0);
		}
		return;
	}
	if (fl & PP_TCP_FIN_FLAG) {
		p->closed += pp_flow_remove(p->shared->flows, key);
		p->fin_acks++;
		answer(p, f, &k, PP_TCP_FIN_FLAG | PP_TCP_ACK_FLAG, k.ack, k.seq + k.payload_len + 1, 0);
		return;
	}
	p->ignored++;
}

static void *tcp_main(void *arg)
{
	struct pp_tcp_path *p = arg;
	while (!stopping(p)) {
		enum gnio_gpu_semaphore_status st;
		/* ACQUIRE(status) pairs with the kernel's RELEASE in pp_to_host:
		 * a READY record is complete. */
		if (gnio_gpu_semaphore_get_status(p->tcp_sem, p->rx_idx, &st) != GNIO_SUCCESS ||
		    st != GNIO_GPU_SEMAPHORE_STATUS_READY) {
			nap_us(20);
			continue;
		}
		void *info;
		gnio_gpu_semaphore_get_custom_info_addr(p->tcp_sem, p->rx_idx, &info);
		const struct pp_frame_rec *r = info;
		p->segments++;
		handle(p, r->frame, r->len);
		gnio_gpu_semaphore_set_status(p->tcp_sem, p->rx_idx, GNIO_GPU_SEMAPHORE_STATUS_FREE);
		p->rx_idx = (p->rx_idx + 1) % PP_TCP_ITEMS;
	}
	return NULL;
}

int pp_tcp_path_start(struct pp_tcp_path *p)
{
	p->stop = 0;
	p->running = pthread_create(&p->thread, NULL, tcp_main, p) == 0;
	return p->running ? 0 : -1;
}

/* Records of sem in state want (ACQUIRE loads of each status). */
static uint32_t count_status(struct gnio_gpu_semaphore *sem, uint32_t items, enum gnio_gpu_semaphore_status want)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < items; i++) {
		enum gnio_gpu_semaphore_status st;
		n += gnio_gpu_semaphore_get_status(sem, i, &st) == GNIO_SUCCESS && st == want;
	}
	return n;
}

int pp_tcp_path_drain(struct pp_tcp_path *p, uint64_t timeout_ns)
{
	const uint64_t end = mono_ns() + timeout_ns;
	for (;;) {
		if (!count_status(p->tcp_sem, PP_TCP_ITEMS, GNIO_GPU_SEMAPHORE_STATUS_READY) &&
		    !count_status(p->tx_sem, PP_TX_ITEMS, GNIO_GPU_SEMAPHORE_STATUS_READY))
			return 1;
		if (mono_ns() > end)
			return 0;
		nap_us(200);
	}
}

void pp_tcp_path_count_left(struct pp_tcp_path *p)
{
	p->tx_unsent = count_status(p->tx_sem, PP_TX_ITEMS, GNIO_GPU_SEMAPHORE_STATUS_READY);
	p->unhandled = count_status(p->tcp_sem, PP_TCP_ITEMS, GNIO_GPU_SEMAPHORE_STATUS_READY);
}

void pp_tcp_path_stop(struct pp_tcp_path *p)
{
	if (!p->running)
		return;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	pthread_join(p->thread, NULL);
	p->running = 0;
}
