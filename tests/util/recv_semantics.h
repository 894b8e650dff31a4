/* SPDX-License-Identifier: MIT */
/*
 * tests/util/recv_semantics.h - the receive semantics (gnio/device/eth_rxq.h)
 * checked the same way on the CPU device (tests/unit/test_recv_semantics.c)
 * and on a CUDA GPU (tests/gpu/test_gpu_recv_semantics.cu).
 *
 * A kernel runs one receive per request the host writes into a control block
 * in pinned memory (max, timeout, release, attributes) and writes back what
 * it got and how long the call took. The host feeds frames through the sw
 * peer before and during each call and checks:
 *   look once      timeout 1 on an empty ring: nothing, at once; with
 *                  frames there: all of them;
 *   fill to max    timeout 0 (no time limit): waits until max frames came;
 *   fill to timeout  fewer than max: returns what came when the time is up;
 *   max 0          no count limit: everything there, after the timeout;
 *   both 0         INVALID_VALUE (it could never return);
 *   attributes     per-packet bytes and timestamps;
 *   release        an explicit release hands the batch back at once;
 *   header         every frame's gnio_gpu_dev_eth_rxq_get_pkt_hdr bytes are
 *                  its first bytes (42 at most with an inline header, all of
 *                  them without), on every request.
 */
#ifndef GNIO_TESTS_RECV_SEMANTICS_H
#define GNIO_TESTS_RECV_SEMANTICS_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include "gnio/gnio.h"
#include "gnio/device/gnio_dev.h"

#define RS_MAX_ATTR 64

/* Host -> kernel request, kernel -> host result. */
struct rs_ctl {
	GNIO_ALIGNED(GNIO_LINE) uint32_t go;   /* host: request number to run */
	uint32_t max;
	uint64_t timeout_ns;
	uint32_t release;                      /* release the batch right after */
	uint32_t attrs;                        /* ask for per-packet attributes */
	GNIO_ALIGNED(GNIO_LINE) uint32_t done; /* kernel: last request finished */
	uint32_t err;
	uint32_t count;
	uint64_t first;
	uint64_t elapsed_ns;
	uint64_t attr_bytes;   /* sum of attr[i].bytes */
	uint32_t attr_ts_ok;   /* attr[i].timestamp_ns == the completion's, all i */
	uint32_t attr_len_ok;  /* attr[i].bytes == the completion's length, all i */
	uint32_t full_at_once; /* gnio_gpu_dev_eth_rxq_last_recv_full_at_once after it */
	uint32_t hdr_bad;      /* frames whose header bytes or length were wrong */
};

/* One request, by one thread (the scope's leader in a group). The result is
 * published with a release store of done after the fields. */
GNIO_DEV void rs_publish(struct rs_ctl *c, uint32_t req, gnio_error_t err, uint64_t first, uint32_t n,
			uint64_t elapsed, const struct gnio_gpu_eth_rxq *rxq, const struct gnio_gpu_dev_eth_rxq_attr *a)
{
	uint64_t bytes = 0;
	uint32_t ts_ok = 1, len_ok = 1, hdr_bad = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t hn = 0;
		const uint8_t *h = gnio_gpu_dev_eth_rxq_get_pkt_hdr(rxq, first + i, &hn);
		const uint8_t *f = (const uint8_t *)(uintptr_t)gnio_gpu_dev_eth_rxq_get_pkt_addr(rxq, first + i);
		const uint32_t len = gnio_gpu_dev_eth_rxq_get_pkt_bytes(rxq, first + i);
		uint32_t bad = hn != (rxq->hdr_local && len > GNIO_RX_HDR_BYTES ? GNIO_RX_HDR_BYTES : len);
		for (uint32_t k = 0; k < hn && k < len; k++)
			bad |= h[k] != f[k];
		hdr_bad += bad;
	}
	for (uint32_t i = 0; a && i < n && i < RS_MAX_ATTR; i++) {
		bytes += a[i].bytes;
		ts_ok &= a[i].timestamp_ns == gnio_gpu_dev_eth_rxq_get_pkt_ts(rxq, first + i);
		len_ok &= a[i].bytes == gnio_gpu_dev_eth_rxq_get_pkt_bytes(rxq, first + i);
	}
	c->err = (uint32_t)err;
	c->count = n;
	c->first = first;
	c->elapsed_ns = elapsed;
	c->attr_bytes = bytes;
	c->attr_ts_ok = ts_ok;
	c->attr_len_ok = len_ok;
	c->full_at_once = (uint32_t)gnio_gpu_dev_eth_rxq_last_recv_full_at_once(rxq);
	c->hdr_bad = hdr_bad;
	gnio_store_release_u32(&c->done, req);
}

/* ------------------------------------------------------------ the host --- */

struct rs_env {
	struct gnio_sw_peer *peer;
	struct gnio_eth_rxq *rxq;
	struct rs_ctl *ctl;              /* host view */
	int (*alive)(void *user);        /* is the kernel still running? */
	void *user;
	/* Time to leave between frames published and a request that says
	 * they were there before it: watcher warps poll the ring for the
	 * consumer and, slowed by a sanitizer, may be tens of us behind. */
	unsigned settle_ms;
	uint32_t req;
	char why[256];
};

static inline uint64_t rs_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void rs_sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static inline int rs_fail(struct rs_env *e, const char *what)
{
	snprintf(e->why, sizeof(e->why), "%s", what);
	return 1;
}

/* Send n generated frames of size bytes; wait until the proxy took them. */
static inline int rs_send(struct rs_env *e, uint64_t seq, uint32_t n, uint32_t size)
{
	struct gnio_gen_cfg g;
	uint8_t buf[2048];
	struct gnio_eth_rxq_stats st;
	gnio_gen_cfg_init(&g);
	g.frame_size = size;
	if (gnio_eth_rxq_get_stats(e->rxq, &st))
		return rs_fail(e, "rxq stats");
	uint64_t want = st.rx_packets + n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = gnio_gen_build(&g, seq + i, buf, sizeof(buf));
		if (!len || gnio_sw_peer_send(e->peer, 0, buf, len) != GNIO_SUCCESS)
			return rs_fail(e, "peer send");
	}
	for (uint64_t end = rs_now_ns() + 5000000000ull; rs_now_ns() < end; rs_sleep_ms(1)) {
		if (gnio_eth_rxq_get_stats(e->rxq, &st))
			return rs_fail(e, "rxq stats");
		if (st.rx_packets >= want)
			return 0;
	}
	return rs_fail(e, "the proxy did not publish the frames within 5 s");
}

/* Post a request; the kernel starts it at once. */
static inline void rs_post(struct rs_env *e, uint32_t max, uint64_t timeout_ns, int release, int attrs)
{
	struct rs_ctl *c = e->ctl;
	c->max = max;
	c->timeout_ns = timeout_ns;
	c->release = (uint32_t)release;
	c->attrs = (uint32_t)attrs;
	/* RELEASE(go): the request's fields before its number; the kernel reads
	 * go with acquire. */
	gnio_store_release_u32(&c->go, ++e->req);
}

static inline int rs_wait(struct rs_env *e, unsigned timeout_ms)
{
	for (uint64_t end = rs_now_ns() + (uint64_t)timeout_ms * 1000000ull; rs_now_ns() < end;) {
		if (gnio_load_acquire_u32(&e->ctl->done) == e->req) {
			if (e->ctl->hdr_bad)
				return rs_fail(e, "a frame's header bytes (get_pkt_hdr) differ from the frame's own");
			return 0;
		}
		if (!e->alive(e->user))
			return rs_fail(e, "the kernel ended");
		rs_sleep_ms(1);
	}
	return rs_fail(e, "the receive did not return in time");
}

#define RS_CHECK(cond, msg)                                                                                    \
	do {                                                                                                   \
		if (!(cond)) {                                                                                 \
			snprintf(e->why, sizeof(e->why), "%s (err %u count %u elapsed %llu us)", msg,          \
				 e->ctl->err, e->ctl->count, (unsigned long long)(e->ctl->elapsed_ns / 1000)); \
			return 1;                                                                              \
		}                                                                                              \
	} while (0)

/* Send n frames of size bytes, then post a request and wait for its
 * result; 0 when both went through. */
static inline int rs_send_and_ask(struct rs_env *e, uint64_t *seq, uint32_t n, uint32_t size, uint32_t max,
				  uint64_t timeout_ns, int release, int attrs)
{
	if (rs_send(e, *seq, n, size))
		return 1;
	*seq += n;
	if (e->settle_ms)
		rs_sleep_ms(e->settle_ms);
	rs_post(e, max, timeout_ns, release, attrs);
	return rs_wait(e, 5000);
}

/* The whole sequence; 0 when every case held, else 1 with e->why. slack_ms
 * bounds how much later than asked a timed-out receive may return. */
static inline int rs_run(struct rs_env *e, unsigned slack_ms)
{
	struct gnio_eth_rxq_stats st;
	uint64_t seq = 0;
	const uint64_t ms = 1000000ull;

	/* look once on an empty ring (the first request also waits for the
	 * kernel to start) */
	rs_post(e, 8, 1, 0, 0);
	if (rs_wait(e, 20000))
		return 1;
	RS_CHECK(e->ctl->err == GNIO_SUCCESS && e->ctl->count == 0, "look once: nothing there, SUCCESS");
	RS_CHECK(e->ctl->first == GNIO_GPUNETIO_ETH_RX_NO_PKT, "look once: no first index");
	RS_CHECK(!e->ctl->full_at_once, "look once on an empty ring: not full at once");

	/* look once with frames there: every one of them, not only the first
	 * (an inline-header poll spends members on the first entry's line and
	 * must still look at the entries behind it) */
	if (rs_send_and_ask(e, &seq, 6, 64, 8, 1, 0, 0))
		return 1;
	RS_CHECK(e->ctl->err == GNIO_SUCCESS && e->ctl->count == 6, "look once: all 6 frames there");
	RS_CHECK(e->ctl->first != GNIO_GPUNETIO_ETH_RX_NO_PKT, "look once with frames: a first index");

	/* fill to max, no time limit: 3 frames now, 5 more 50 ms later */
	if (rs_send(e, seq, 3, 64))
		return 1;
	seq += 3;
	rs_post(e, 8, 0, 0, 0);
	rs_sleep_ms(50);
	RS_CHECK(gnio_load_acquire_u32(&e->ctl->done) != e->req, "fill to max: returned before max frames came");
	if (rs_send(e, seq, 5, 64))
		return 1;
	seq += 5;
	if (rs_wait(e, 5000))
		return 1;
	RS_CHECK(e->ctl->err == GNIO_SUCCESS && e->ctl->count == 8, "fill to max: 8 frames");
	RS_CHECK(!e->ctl->full_at_once, "fill to max after waiting: not full at once");
	/* That it waited for the last 5 is the check above (not done 50 ms in,
	 * done once they came): the kernel's own elapsed time would also count
	 * how late a loaded machine or a sanitizer let it start. */

	/* fill to timeout: 5 frames, max 64, 30 ms */
	if (rs_send_and_ask(e, &seq, 5, 64, 64, 30 * ms, 0, 0))
		return 1;
	RS_CHECK(e->ctl->err == GNIO_SUCCESS && e->ctl->count == 5, "fill to timeout: the 5 frames there");
	RS_CHECK(!e->ctl->full_at_once, "fill to timeout, short: not full at once");
	RS_CHECK(e->ctl->elapsed_ns >= 30 * ms, "fill to timeout: waited the whole timeout");
	RS_CHECK(e->ctl->elapsed_ns < (30 + slack_ms) * ms, "fill to timeout: returned soon after the timeout");

	/* max 0: no count limit, ends at the timeout with everything there */
	if (rs_send_and_ask(e, &seq, 10, 64, 0, 20 * ms, 0, 0))
		return 1;
	RS_CHECK(e->ctl->err == GNIO_SUCCESS && e->ctl->count == 10, "max 0: all 10 frames");
	RS_CHECK(e->ctl->elapsed_ns >= 20 * ms, "max 0: ended by the timeout");

	/* both 0: refused, nothing taken */
	rs_post(e, 0, 0, 0, 0);
	if (rs_wait(e, 2000))
		return 1;
	RS_CHECK(e->ctl->err == GNIO_ERROR_INVALID_VALUE && e->ctl->count == 0, "max 0 and timeout 0: INVALID_VALUE");

	/* attributes: 4 frames of 100 bytes, max 4, no time limit */
	if (rs_send_and_ask(e, &seq, 4, 100, 4, 0, 0, 1))
		return 1;
	RS_CHECK(e->ctl->err == GNIO_SUCCESS && e->ctl->count == 4, "attributes: 4 frames");
	RS_CHECK(e->ctl->full_at_once, "all 4 frames there before the receive: full at once");
	RS_CHECK(e->ctl->attr_bytes == 400 && e->ctl->attr_len_ok, "attributes: bytes per packet");
	RS_CHECK(e->ctl->attr_ts_ok, "attributes: timestamp per packet");

	/* release: without it the batch stays owned; with it, handed back */
	if (rs_send_and_ask(e, &seq, 4, 64, 4, 0, 0, 0))
		return 1;
	RS_CHECK(e->ctl->count == 4, "release: 4 frames");
	if (gnio_eth_rxq_get_stats(e->rxq, &st))
		return rs_fail(e, "rxq stats");
	RS_CHECK(st.released + 4 == st.rx_packets, "release: the batch is still held before a release");
	if (rs_send_and_ask(e, &seq, 4, 64, 4, 0, 1, 0))
		return 1;
	RS_CHECK(e->ctl->count == 4, "release: 4 more frames");
	/* On a watched queue watcher 0 stores the consumer's release a moment
	 * after the receive returned (under a sanitizer, milliseconds): wait
	 * for it, boundedly, before the check. */
	for (unsigned waited = 0;; waited++) {
		if (gnio_eth_rxq_get_stats(e->rxq, &st))
			return rs_fail(e, "rxq stats");
		if (!e->settle_ms || st.released == st.rx_packets || waited >= 2000)
			break;
		rs_sleep_ms(1);
	}
	RS_CHECK(st.released == st.rx_packets && st.rx_packets == seq, "release: everything handed back at once");
	return 0;
}

#endif /* GNIO_TESTS_RECV_SEMANTICS_H */
