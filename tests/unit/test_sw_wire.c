/* SPDX-License-Identifier: MIT */
/*
 * test_sw_wire.c - the sw wire through its ops table and its peer end:
 * both directions byte for byte, full FIFOs counted exactly, too-big frames,
 * the generator's counts and pacing, names, closing under a live peer,
 * queue isolation, and a two-thread run of each FIFO.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "eth/wire.h"
#include "gnio/gen.h"
#include "gnio/sw.h"

extern const struct gnio_wire_ops gnio_wire_sw_ops;
static const struct gnio_wire_ops *ops = &gnio_wire_sw_ops;

struct wq {
	void *wire;
	void *rxq;
	void *txq;
	struct gnio_sw_peer *peer;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Open "sw:spec", queue q both ways, and a peer. */
static void wq_open(struct wq *w, const char *spec, const char *name, uint16_t q)
{
	struct gnio_wire_queue_cfg qc = { .queue_id = q, .max_frame = 65535, .ring_size = 1024, .burst = 64 };

	memset(w, 0, sizeof(*w));
	assert_int_equal(ops->open(NULL, spec, &w->wire), GNIO_SUCCESS);
	assert_int_equal(ops->rxq_open(w->wire, &qc, &w->rxq), GNIO_SUCCESS);
	assert_int_equal(ops->txq_open(w->wire, &qc, &w->txq), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_open(name, &w->peer), GNIO_SUCCESS);
}

static void wq_close(struct wq *w)
{
	assert_int_equal(gnio_sw_peer_close(w->peer), GNIO_SUCCESS);
	ops->rxq_close(w->rxq);
	ops->txq_close(w->txq);
	ops->close(w->wire);
}

/* A frame whose bytes say (tag, index). */
static void make_frame(uint8_t *f, uint32_t len, uint32_t tag)
{
	for (uint32_t i = 0; i < len; i++)
		f[i] = (uint8_t)(tag * 31 + i * 7 + (i >> 8));
}

static struct gnio_sw_peer_stats stats(struct gnio_sw_peer *p, uint16_t q)
{
	struct gnio_sw_peer_stats st;

	assert_int_equal(gnio_sw_peer_get_stats(p, q, &st), GNIO_SUCCESS);
	return st;
}

static void test_registry_and_caps(void **state)
{
	struct gnio_wire_caps caps;
	struct gnio_sw_peer *p;
	void *w, *w2;

	(void)state;
	assert_ptr_equal(gnio_wire_find("sw"), &gnio_wire_sw_ops);
	assert_int_equal(ops->open(NULL, "reg", &w), GNIO_SUCCESS);
	assert_int_equal(ops->caps(w, &caps), GNIO_SUCCESS);
	assert_int_equal(caps.flags, GNIO_WIRE_CAP_RX | GNIO_WIRE_CAP_TX | GNIO_WIRE_CAP_MULTI_QUEUE |
					     GNIO_WIRE_CAP_SW_TIMESTAMP);
	assert_int_equal(caps.max_frame_size, 65535);
	assert_int_equal(caps.num_rx_queues, 8);
	assert_int_equal(caps.num_tx_queues, 8);
	assert_string_equal(caps.mode, "inproc");

	/* same name twice: IN_USE; other names fine */
	assert_int_equal(ops->open(NULL, "reg", &w2), GNIO_ERROR_IN_USE);
	assert_int_equal(ops->open(NULL, "reg,queues=2", &w2), GNIO_ERROR_IN_USE);
	assert_int_equal(ops->open(NULL, "reg2,queues=3,depth=16", &w2), GNIO_SUCCESS);
	assert_int_equal(ops->caps(w2, &caps), GNIO_SUCCESS);
	assert_int_equal(caps.num_rx_queues, 3);
	ops->close(w2);

	/* bad specs */
	assert_int_equal(ops->open(NULL, "", &w2), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(ops->open(NULL, ",depth=8", &w2), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(ops->open(NULL, "b,depth=0", &w2), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(ops->open(NULL, "b,depth=abc", &w2), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(ops->open(NULL, "b,queues=0", &w2), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(ops->open(NULL, "b,queues=1000", &w2), GNIO_ERROR_INVALID_VALUE);
	/* unknown option names are refused by gnio_dev_open for every wire
	 * (tests/unit/test_wire_opts.c) before the wire sees them */
	assert_int_equal(ops->open(NULL, "b,depth", &w2), GNIO_ERROR_INVALID_VALUE);

	/* peers find open wires only */
	assert_int_equal(gnio_sw_peer_open("nosuch", &p), GNIO_ERROR_NOT_FOUND);
	assert_int_equal(gnio_sw_peer_open("reg2", &p), GNIO_ERROR_NOT_FOUND); /* closed */
	assert_int_equal(gnio_sw_peer_open(NULL, &p), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(gnio_sw_peer_open("reg", &p), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_close(p), GNIO_SUCCESS);
	ops->close(w);
	/* the name is free again */
	assert_int_equal(ops->open(NULL, "reg", &w), GNIO_SUCCESS);
	ops->close(w);
}

static void test_peer_to_gnio(void **state)
{
	uint8_t sent[10][300], got[10][2048];
	struct gnio_wire_frame fr[4];
	struct wq w;
	uint64_t before, after;
	unsigned total = 0, n;

	(void)state;
	wq_open(&w, "p2g", "p2g", 0);
	before = now_ns();
	for (unsigned i = 0; i < 10; i++) {
		make_frame(sent[i], 60 + i * 20, i);
		assert_int_equal(gnio_sw_peer_send(w.peer, 0, sent[i], 60 + i * 20), GNIO_SUCCESS);
	}
	after = now_ns();
	for (;;) {
		for (unsigned i = 0; i < 4; i++) {
			fr[i].data = got[(total + i) % 10];
			fr[i].cap = sizeof(got[0]);
		}
		n = ops->rx_burst(w.rxq, fr, 4);
		if (!n)
			break;
		for (unsigned i = 0; i < n; i++) {
			unsigned idx = total + i;

			assert_int_equal(fr[i].len, 60 + idx * 20);
			assert_memory_equal(fr[i].data, sent[idx], fr[i].len);
			assert_true(fr[i].ts_ns >= before && fr[i].ts_ns <= after);
		}
		total += n;
	}
	assert_int_equal(total, 10);
	struct gnio_sw_peer_stats st = stats(w.peer, 0);

	assert_int_equal(st.offered, 10);
	assert_int_equal(st.overflow, 0);
	assert_int_equal(st.gen_sent, 0);
	wq_close(&w);
}

static void test_gnio_to_peer(void **state)
{
	uint8_t data[5][1000], buf[2048];
	struct gnio_wire_frame fr[5];
	struct wq w;
	uint32_t len = 0;
	uint64_t ts = 0, before;

	(void)state;
	wq_open(&w, "g2p,queues=2", "g2p", 1);
	assert_int_equal(gnio_sw_peer_recv(w.peer, 1, buf, sizeof(buf), &len, &ts), GNIO_ERROR_EMPTY);
	for (unsigned i = 0; i < 5; i++) {
		make_frame(data[i], 100 + i * 200, 40 + i);
		fr[i] = (struct gnio_wire_frame){ .data = data[i], .len = 100 + i * 200 };
	}
	before = now_ns();
	assert_int_equal(ops->tx_burst(w.txq, fr, 5), 5);
	assert_int_equal(stats(w.peer, 1).tx_pending, 5);

	/* TOO_BIG: the frame stays, len says what is needed */
	assert_int_equal(gnio_sw_peer_recv(w.peer, 1, buf, 50, &len, &ts), GNIO_ERROR_TOO_BIG);
	assert_int_equal(len, 100);
	assert_int_equal(gnio_sw_peer_recv(w.peer, 1, NULL, 0, &len, NULL), GNIO_ERROR_TOO_BIG);
	assert_int_equal(stats(w.peer, 1).tx_pending, 5);
	for (unsigned i = 0; i < 5; i++) {
		memset(buf, 0, sizeof(buf));
		assert_int_equal(gnio_sw_peer_recv(w.peer, 1, buf, sizeof(buf), &len, &ts), GNIO_SUCCESS);
		assert_int_equal(len, 100 + i * 200);
		assert_memory_equal(buf, data[i], len);
		assert_true(ts >= before && ts <= now_ns());
	}
	assert_int_equal(gnio_sw_peer_recv(w.peer, 1, buf, sizeof(buf), &len, &ts), GNIO_ERROR_EMPTY);
	assert_int_equal(gnio_sw_peer_recv(w.peer, 0, buf, sizeof(buf), &len, &ts), GNIO_ERROR_EMPTY);
	struct gnio_sw_peer_stats st = stats(w.peer, 1);

	assert_int_equal(st.received, 5);
	assert_int_equal(st.tx_pending, 0);
	assert_int_equal(st.tx_overflow, 0);
	assert_int_equal(gnio_sw_peer_recv(w.peer, 1, buf, sizeof(buf), NULL, &ts), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(gnio_sw_peer_recv(w.peer, 2, buf, sizeof(buf), &len, &ts), GNIO_ERROR_INVALID_VALUE);
	wq_close(&w);
}

static void test_rx_fifo_full(void **state)
{
	uint8_t f[128], out[8][128];
	struct gnio_wire_frame fr[8];
	struct gnio_wire_rxq_stats rs;
	struct wq w;

	(void)state;
	wq_open(&w, "full,depth=8", "full", 0);
	for (unsigned i = 0; i < 8; i++) {
		make_frame(f, 64, i);
		assert_int_equal(gnio_sw_peer_send(w.peer, 0, f, 64), GNIO_SUCCESS);
	}
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(gnio_sw_peer_send(w.peer, 0, f, 64), GNIO_ERROR_FULL);
	struct gnio_sw_peer_stats st = stats(w.peer, 0);

	assert_int_equal(st.offered, 13);
	assert_int_equal(st.overflow, 5);
	ops->rxq_stats(w.rxq, &rs);
	assert_int_equal(rs.overflow, 5);

	/* the 8 that fit are intact and in order; then there is room again */
	for (unsigned i = 0; i < 8; i++)
		fr[i] = (struct gnio_wire_frame){ .data = out[i], .cap = sizeof(out[i]) };
	assert_int_equal(ops->rx_burst(w.rxq, fr, 8), 8);
	for (unsigned i = 0; i < 8; i++) {
		make_frame(f, 64, i);
		assert_memory_equal(out[i], f, 64);
	}
	assert_int_equal(ops->rx_burst(w.rxq, fr, 8), 0);
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, f, 64), GNIO_SUCCESS);
	assert_int_equal(stats(w.peer, 0).overflow, 5);
	assert_int_equal(stats(w.peer, 0).offered, 14);

	/* sizes outside 1..65535 are refused, not counted */
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, f, 0), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, f, 65536), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(gnio_sw_peer_send(w.peer, 8, f, 64), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(stats(w.peer, 0).offered, 14);
	wq_close(&w);
}

/* Big frames fill the byte ring before the descriptor ring; still exact. */
static void test_rx_fifo_full_by_bytes(void **state)
{
	static uint8_t f[9000], out[9000];
	struct gnio_wire_frame fr = { .data = out, .cap = sizeof(out) };
	unsigned ok = 0, full = 0;
	struct wq w;

	(void)state;
	wq_open(&w, "bytes,depth=1024", "bytes", 0);
	for (unsigned i = 0; i < 1024; i++) {
		gnio_error_t e = gnio_sw_peer_send(w.peer, 0, f, sizeof(f));

		assert_true(e == GNIO_SUCCESS || e == GNIO_ERROR_FULL);
		e == GNIO_SUCCESS ? ok++ : full++;
	}
	assert_true(ok > 0 && full > 0);
	assert_int_equal(stats(w.peer, 0).overflow, full);
	assert_int_equal(stats(w.peer, 0).offered, 1024);
	for (unsigned i = 0; i < ok; i++)
		assert_int_equal(ops->rx_burst(w.rxq, &fr, 1), 1);
	assert_int_equal(ops->rx_burst(w.rxq, &fr, 1), 0);
	wq_close(&w);
}

static void test_too_big_and_max_frame(void **state)
{
	uint8_t *big = malloc(65535), *out = malloc(65535);
	uint8_t small[100], sb[2048];
	struct gnio_wire_frame fr[2];
	struct wq w;

	(void)state;
	wq_open(&w, "big,depth=4", "big", 0);
	make_frame(big, 65535, 9);
	make_frame(small, sizeof(small), 3);
	/* 3000 bytes into a 2048-byte buffer: consumed, len set, nothing copied */
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, big, 3000), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, small, sizeof(small)), GNIO_SUCCESS);
	memset(sb, 0xee, sizeof(sb));
	fr[0] = (struct gnio_wire_frame){ .data = sb, .cap = sizeof(sb) };
	assert_int_equal(ops->rx_burst(w.rxq, fr, 1), 1);
	assert_int_equal(fr[0].len, 3000);
	for (unsigned i = 0; i < sizeof(sb); i++)
		assert_int_equal(sb[i], 0xee);
	assert_int_equal(ops->rx_burst(w.rxq, fr, 1), 1);
	assert_int_equal(fr[0].len, sizeof(small));
	assert_memory_equal(sb, small, sizeof(small));

	/* the largest frame crosses intact, many times (byte-ring wrap) */
	for (unsigned r = 0; r < 20; r++) {
		big[0] = (uint8_t)r;
		assert_int_equal(gnio_sw_peer_send(w.peer, 0, big, 65535), GNIO_SUCCESS);
		assert_int_equal(gnio_sw_peer_send(w.peer, 0, small, 61 + r), GNIO_SUCCESS);
		fr[0] = (struct gnio_wire_frame){ .data = out, .cap = 65535 };
		fr[1] = (struct gnio_wire_frame){ .data = sb, .cap = sizeof(sb) };
		assert_int_equal(ops->rx_burst(w.rxq, fr, 2), 2);
		assert_int_equal(fr[0].len, 65535);
		assert_memory_equal(out, big, 65535);
		assert_int_equal(fr[1].len, 61 + r);
		assert_memory_equal(sb, small, 61 + r);
	}
	free(big);
	free(out);
	wq_close(&w);
}

static void test_tx_fifo_full(void **state)
{
	uint8_t data[6][200], buf[256];
	struct gnio_wire_frame fr[6];
	struct wq w;
	uint32_t len;

	(void)state;
	wq_open(&w, "txfull,depth=4", "txfull", 0);
	for (unsigned i = 0; i < 6; i++) {
		make_frame(data[i], 200, i);
		fr[i] = (struct gnio_wire_frame){ .data = data[i], .len = 200 };
	}
	/* takes what fits, never drops; each call that found it full counts */
	assert_int_equal(ops->tx_burst(w.txq, fr, 6), 4);
	assert_int_equal(stats(w.peer, 0).tx_overflow, 1);
	assert_int_equal(ops->tx_burst(w.txq, fr + 4, 2), 0);
	assert_int_equal(stats(w.peer, 0).tx_overflow, 2);
	assert_int_equal(stats(w.peer, 0).tx_pending, 4);
	assert_int_equal(gnio_sw_peer_recv(w.peer, 0, buf, sizeof(buf), &len, NULL), GNIO_SUCCESS);
	assert_memory_equal(buf, data[0], 200);
	assert_int_equal(ops->tx_burst(w.txq, fr + 4, 2), 1);
	assert_int_equal(stats(w.peer, 0).tx_overflow, 3);
	for (unsigned i = 1; i < 5; i++) {
		assert_int_equal(gnio_sw_peer_recv(w.peer, 0, buf, sizeof(buf), &len, NULL), GNIO_SUCCESS);
		assert_memory_equal(buf, data[i], 200);
	}
	assert_int_equal(ops->tx_burst(w.txq, fr + 5, 1), 1);
	assert_int_equal(stats(w.peer, 0).tx_overflow, 3);
	assert_int_equal(stats(w.peer, 0).received, 5);
	wq_close(&w);
}

static void gen_cfg(struct gnio_gen_cfg *c, enum gnio_gen_proto p, uint32_t size, uint64_t count,
		    uint64_t rate)
{
	gnio_gen_cfg_init(c);
	c->proto = p;
	c->frame_size = size;
	c->count = count;
	c->rate_pps = rate;
}

/* rate 0: exactly what rx_burst asks for, until count; frames verify. */
static void test_gen_count(void **state)
{
	static uint8_t bufs[64][256];
	struct gnio_wire_frame fr[64];
	struct gnio_gen_cfg c;
	uint8_t pre[80];
	uint64_t total = 0, seq;
	struct wq w;
	unsigned n;

	(void)state;
	wq_open(&w, "gen", "gen", 0);
	gen_cfg(&c, GNIO_GEN_MIX, 200, 1000, 0);
	c.first_seq = 500;
	assert_int_equal(gnio_sw_peer_gen_done(w.peer, 0), 1); /* none attached */
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_ERROR_IN_USE);
	assert_int_equal(gnio_sw_peer_gen_done(w.peer, 0), 0);

	/* a FIFO frame goes first */
	make_frame(pre, sizeof(pre), 1);
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, pre, sizeof(pre)), GNIO_SUCCESS);
	for (unsigned i = 0; i < 64; i++)
		fr[i] = (struct gnio_wire_frame){ .data = bufs[i], .cap = sizeof(bufs[i]) };
	assert_int_equal(ops->rx_burst(w.rxq, fr, 3), 3);
	assert_int_equal(fr[0].len, sizeof(pre));
	assert_memory_equal(bufs[0], pre, sizeof(pre));
	for (unsigned i = 1; i < 3; i++) {
		assert_int_equal(gnio_gen_verify(&c, bufs[i], fr[i].len, &seq), GNIO_SUCCESS);
		assert_int_equal(seq, 500 + total++);
		assert_true(fr[i].ts_ns > 0);
	}
	for (unsigned ask = 1;; ask = ask % 64 + 1) {
		n = ops->rx_burst(w.rxq, fr, ask);
		if (!n)
			break;
		assert_true(n <= ask);
		if (total + ask <= 1000)
			assert_int_equal(n, ask); /* rate 0: all it asked for */
		for (unsigned i = 0; i < n; i++) {
			assert_int_equal(fr[i].len, 200);
			assert_int_equal(gnio_gen_verify(&c, bufs[i], 200, &seq), GNIO_SUCCESS);
			assert_int_equal(seq, 500 + total++);
		}
	}
	assert_int_equal(total, 1000);
	assert_int_equal(gnio_sw_peer_gen_done(w.peer, 0), 1);
	struct gnio_sw_peer_stats st = stats(w.peer, 0);

	assert_int_equal(st.offered, 1001);
	assert_int_equal(st.gen_sent, 1000);
	assert_int_equal(st.overflow, 0);

	/* detach, attach a new one: counters keep adding up */
	assert_int_equal(gnio_sw_peer_gen_detach(w.peer, 0), GNIO_SUCCESS);
	gen_cfg(&c, GNIO_GEN_UDP, 64, 10, 0);
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_SUCCESS);
	assert_int_equal(ops->rx_burst(w.rxq, fr, 64), 10);
	assert_int_equal(stats(w.peer, 0).gen_sent, 1010);
	assert_int_equal(gnio_sw_peer_gen_detach(w.peer, 0), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_gen_done(w.peer, 0), 1);

	/* detached: nothing more is offered */
	gen_cfg(&c, GNIO_GEN_UDP, 64, 0, 0);
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_SUCCESS);
	assert_int_equal(ops->rx_burst(w.rxq, fr, 64), 64);
	assert_int_equal(gnio_sw_peer_gen_done(w.peer, 0), 0); /* unlimited */
	assert_int_equal(gnio_sw_peer_gen_detach(w.peer, 0), GNIO_SUCCESS);
	assert_int_equal(ops->rx_burst(w.rxq, fr, 64), 0);
	assert_int_equal(stats(w.peer, 0).gen_sent, 1074);

	/* a bad config is refused */
	gen_cfg(&c, GNIO_GEN_UDP, 1, 0, 0);
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, NULL), GNIO_ERROR_INVALID_VALUE);
	wq_close(&w);
}

/* A buffer smaller than the generator's frames: len set, nothing written. */
static void test_gen_too_big(void **state)
{
	uint8_t small[100];
	struct gnio_wire_frame fr = { .data = small, .cap = sizeof(small) };
	struct gnio_gen_cfg c;
	struct wq w;

	(void)state;
	wq_open(&w, "gbig", "gbig", 0);
	gen_cfg(&c, GNIO_GEN_UDP, 1500, 2, 0);
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_SUCCESS);
	memset(small, 0x77, sizeof(small));
	assert_int_equal(ops->rx_burst(w.rxq, &fr, 1), 1);
	assert_int_equal(fr.len, 1500);
	for (unsigned i = 0; i < sizeof(small); i++)
		assert_int_equal(small[i], 0x77);
	assert_int_equal(stats(w.peer, 0).gen_sent, 1);
	wq_close(&w);
}

/* rate > 0: a backlog beyond depth is overflow; offered == taken + overflow. */
static void test_gen_overflow_exact(void **state)
{
	static uint8_t bufs[256][128];
	struct gnio_wire_frame fr[256];
	struct gnio_wire_rxq_stats rs;
	struct gnio_gen_cfg c;
	struct wq w;
	uint64_t seq;

	(void)state;
	wq_open(&w, "gover,depth=100", "gover", 0);
	gen_cfg(&c, GNIO_GEN_UDP, 128, 5000, 1000000); /* 5000 frames due within 5 ms */
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_SUCCESS);
	for (unsigned i = 0; i < 256; i++)
		fr[i] = (struct gnio_wire_frame){ .data = bufs[i], .cap = sizeof(bufs[i]) };
	assert_int_equal(ops->rx_burst(w.rxq, fr, 256), 0); /* the clock starts: nothing due */
	sleep_ms(30);
	/* all 5000 are due; the FIFO model holds 100, the rest overflowed */
	assert_int_equal(ops->rx_burst(w.rxq, fr, 256), 100);
	for (unsigned i = 0; i < 100; i++) {
		assert_int_equal(gnio_gen_verify(&c, bufs[i], 128, &seq), GNIO_SUCCESS);
		assert_int_equal(seq, 4900 + i); /* the oldest were lost */
	}
	assert_int_equal(ops->rx_burst(w.rxq, fr, 256), 0);
	assert_int_equal(gnio_sw_peer_gen_done(w.peer, 0), 1);
	struct gnio_sw_peer_stats st = stats(w.peer, 0);

	assert_int_equal(st.offered, 5000);
	assert_int_equal(st.gen_sent, 100);
	assert_int_equal(st.overflow, 4900);
	assert_int_equal(st.offered, st.gen_sent + st.overflow);
	ops->rxq_stats(w.rxq, &rs);
	assert_int_equal(rs.overflow, 4900);
	wq_close(&w);
}

/* rate > 0 and a reader that keeps up: paced, no overflow, exact totals. */
static void test_gen_pacing(void **state)
{
	static uint8_t bufs[64][128];
	struct gnio_wire_frame fr[64];
	struct gnio_gen_cfg c;
	uint64_t taken = 0, t0, elapsed_ns;
	struct wq w;

	(void)state;
	wq_open(&w, "gpace", "gpace", 0);
	gen_cfg(&c, GNIO_GEN_UDP, 128, 0, 20000);
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_SUCCESS);
	for (unsigned i = 0; i < 64; i++)
		fr[i] = (struct gnio_wire_frame){ .data = bufs[i], .cap = sizeof(bufs[i]) };
	t0 = now_ns();
	while (now_ns() - t0 < 200000000ull) {
		taken += ops->rx_burst(w.rxq, fr, 64);
		sleep_ms(1);
	}
	elapsed_ns = now_ns() - t0;
	/* never more than due: rate * elapsed (+1 for rounding) */
	assert_true(taken <= elapsed_ns * 20000 / 1000000000ull + 1);
	/* and not far below it: at least half of 200 ms worth */
	assert_true(taken >= 2000);
	struct gnio_sw_peer_stats st = stats(w.peer, 0);

	assert_int_equal(st.overflow, 0);
	assert_int_equal(st.offered, taken);
	assert_int_equal(st.gen_sent, taken);
	wq_close(&w);
}

static void test_peer_after_close(void **state)
{
	struct gnio_wire_frame fr;
	struct gnio_sw_peer_stats st;
	struct gnio_gen_cfg c;
	struct gnio_sw_peer *p2;
	uint8_t f[64] = { 1 }, buf[64];
	uint32_t len;
	struct wq w;
	void *w2;

	(void)state;
	wq_open(&w, "gone", "gone", 0);
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, f, sizeof(f)), GNIO_SUCCESS);
	fr = (struct gnio_wire_frame){ .data = f, .len = sizeof(f) };
	assert_int_equal(ops->tx_burst(w.txq, &fr, 1), 1);
	ops->rxq_close(w.rxq);
	ops->txq_close(w.txq);
	ops->close(w.wire);

	gen_cfg(&c, GNIO_GEN_UDP, 64, 0, 0);
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, f, sizeof(f)), GNIO_ERROR_NOT_CONNECTED);
	assert_int_equal(gnio_sw_peer_recv(w.peer, 0, buf, sizeof(buf), &len, NULL),
			 GNIO_ERROR_NOT_CONNECTED);
	assert_int_equal(gnio_sw_peer_gen_attach(w.peer, 0, &c), GNIO_ERROR_NOT_CONNECTED);
	assert_int_equal(gnio_sw_peer_gen_detach(w.peer, 0), GNIO_ERROR_NOT_CONNECTED);
	assert_int_equal(gnio_sw_peer_gen_done(w.peer, 0), 1);
	/* the counters outlive the wire */
	assert_int_equal(gnio_sw_peer_get_stats(w.peer, 0, &st), GNIO_SUCCESS);
	assert_int_equal(st.offered, 1);
	assert_int_equal(st.tx_pending, 1);

	/* a new wire of the same name is a different wire */
	assert_int_equal(ops->open(NULL, "gone", &w2), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_send(w.peer, 0, f, sizeof(f)), GNIO_ERROR_NOT_CONNECTED);
	assert_int_equal(gnio_sw_peer_open("gone", &p2), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_send(p2, 0, f, sizeof(f)), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_close(w.peer), GNIO_SUCCESS); /* frees the old state */
	assert_int_equal(gnio_sw_peer_close(p2), GNIO_SUCCESS);
	ops->close(w2);
}

static void test_multi_queue_isolation(void **state)
{
	struct gnio_wire_queue_cfg qc = { .max_frame = 2048 };
	uint8_t f[100], out[2048];
	struct gnio_wire_frame fr = { .data = out, .cap = sizeof(out) };
	void *wire, *rxq[4], *txq[4], *extra;
	struct gnio_sw_peer *peer;
	struct gnio_gen_cfg c;
	uint32_t len;

	(void)state;
	assert_int_equal(ops->open(NULL, "mq,queues=4,depth=16", &wire), GNIO_SUCCESS);
	for (uint16_t q = 0; q < 4; q++) {
		qc.queue_id = q;
		assert_int_equal(ops->rxq_open(wire, &qc, &rxq[q]), GNIO_SUCCESS);
		assert_int_equal(ops->txq_open(wire, &qc, &txq[q]), GNIO_SUCCESS);
	}
	qc.queue_id = 1;
	assert_int_equal(ops->rxq_open(wire, &qc, &extra), GNIO_ERROR_IN_USE);
	assert_int_equal(ops->txq_open(wire, &qc, &extra), GNIO_ERROR_IN_USE);
	qc.queue_id = 4;
	assert_int_equal(ops->rxq_open(wire, &qc, &extra), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(gnio_sw_peer_open("mq", &peer), GNIO_SUCCESS);

	/* RX: a frame for queue 1 appears on queue 1 only */
	make_frame(f, sizeof(f), 11);
	assert_int_equal(gnio_sw_peer_send(peer, 1, f, sizeof(f)), GNIO_SUCCESS);
	assert_int_equal(ops->rx_burst(rxq[0], &fr, 1), 0);
	assert_int_equal(ops->rx_burst(rxq[2], &fr, 1), 0);
	assert_int_equal(ops->rx_burst(rxq[1], &fr, 1), 1);
	assert_memory_equal(out, f, sizeof(f));
	/* a full queue 3 does not affect queue 0 */
	for (unsigned i = 0; i < 20; i++)
		gnio_sw_peer_send(peer, 3, f, sizeof(f));
	assert_int_equal(stats(peer, 3).overflow, 4);
	assert_int_equal(stats(peer, 0).overflow, 0);
	assert_int_equal(gnio_sw_peer_send(peer, 0, f, sizeof(f)), GNIO_SUCCESS);
	/* a generator on queue 2 feeds queue 2 only */
	gen_cfg(&c, GNIO_GEN_UDP, 64, 5, 0);
	assert_int_equal(gnio_sw_peer_gen_attach(peer, 2, &c), GNIO_SUCCESS);
	assert_int_equal(gnio_sw_peer_gen_done(peer, 0), 1);
	assert_int_equal(ops->rx_burst(rxq[0], &fr, 1), 1);
	assert_int_equal(ops->rx_burst(rxq[0], &fr, 1), 0);
	assert_int_equal(ops->rx_burst(rxq[2], &fr, 1), 1);
	assert_int_equal(stats(peer, 2).gen_sent, 1);
	assert_int_equal(stats(peer, 0).gen_sent, 0);

	/* TX: queue 2's frame reaches the peer on queue 2 only */
	struct gnio_wire_frame tf = { .data = f, .len = sizeof(f) };

	assert_int_equal(ops->tx_burst(txq[2], &tf, 1), 1);
	assert_int_equal(gnio_sw_peer_recv(peer, 3, out, sizeof(out), &len, NULL), GNIO_ERROR_EMPTY);
	assert_int_equal(gnio_sw_peer_recv(peer, 0, out, sizeof(out), &len, NULL), GNIO_ERROR_EMPTY);
	assert_int_equal(gnio_sw_peer_recv(peer, 2, out, sizeof(out), &len, NULL), GNIO_SUCCESS);
	assert_int_equal(len, sizeof(f));
	assert_int_equal(gnio_sw_peer_send(peer, 4, f, sizeof(f)), GNIO_ERROR_INVALID_VALUE);

	assert_int_equal(gnio_sw_peer_close(peer), GNIO_SUCCESS);
	for (unsigned q = 0; q < 4; q++) {
		ops->rxq_close(rxq[q]);
		ops->txq_close(txq[q]);
	}
	/* closed queues can be opened again */
	qc.queue_id = 1;
	assert_int_equal(ops->rxq_open(wire, &qc, &extra), GNIO_SUCCESS);
	ops->rxq_close(extra);
	ops->close(wire);
}

/* One producer thread, one consumer thread, per direction: every frame
 * arrives in order with its content, or was refused and counted. */
#define STRESS_FRAMES 100000u

struct stress {
	struct wq *w;
	uint64_t full_returns;
};

static uint32_t stress_len(uint32_t i)
{
	return 60 + (i * 37) % 1400;
}

static void stress_fill(uint8_t *f, uint32_t i)
{
	uint32_t len = stress_len(i);

	memcpy(f, &i, 4);
	f[len - 1] = (uint8_t)(i ^ 0x5a);
}

static void *peer_sender(void *arg)
{
	struct stress *s = arg;
	uint8_t f[1500];

	for (uint32_t i = 0; i < STRESS_FRAMES;) {
		stress_fill(f, i);
		gnio_error_t e = gnio_sw_peer_send(s->w->peer, 0, f, stress_len(i));

		if (e == GNIO_SUCCESS) {
			i++;
		} else {
			s->full_returns++;
			sched_yield(); /* 2-core CI: let the reader run */
		}
	}
	return NULL;
}

static void *gnio_sender(void *arg)
{
	struct stress *s = arg;
	static uint8_t f[32][1500];
	struct gnio_wire_frame fr[32];
	uint32_t next = 0;

	while (next < STRESS_FRAMES) {
		unsigned n = STRESS_FRAMES - next < 32 ? STRESS_FRAMES - next : 32, took;

		for (unsigned k = 0; k < n; k++) {
			stress_fill(f[k], next + k);
			fr[k] = (struct gnio_wire_frame){ .data = f[k], .len = stress_len(next + k) };
		}
		took = gnio_wire_sw_ops.tx_burst(s->w->txq, fr, n);
		next += took;
		if (took < n)
			sched_yield();
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	static uint8_t bufs[32][2048];
	struct gnio_wire_frame fr[32];
	struct stress s = { 0 };
	struct wq w;
	pthread_t th;
	uint32_t expect = 0, len;
	uint8_t buf[2048];

	(void)state;
	wq_open(&w, "stress,depth=256", "stress", 0);
	s.w = &w;
	assert_int_equal(pthread_create(&th, NULL, peer_sender, &s), 0);
	while (expect < STRESS_FRAMES) {
		unsigned n;

		for (unsigned i = 0; i < 32; i++)
			fr[i] = (struct gnio_wire_frame){ .data = bufs[i], .cap = sizeof(bufs[i]) };
		n = ops->rx_burst(w.rxq, fr, 32);
		if (!n)
			sched_yield();
		for (unsigned i = 0; i < n; i++, expect++) {
			uint32_t got;

			assert_int_equal(fr[i].len, stress_len(expect));
			memcpy(&got, bufs[i], 4);
			assert_int_equal(got, expect);
			assert_int_equal(bufs[i][fr[i].len - 1], (uint8_t)(expect ^ 0x5a));
		}
	}
	pthread_join(th, NULL);
	struct gnio_sw_peer_stats st = stats(w.peer, 0);

	assert_int_equal(st.offered, STRESS_FRAMES + s.full_returns);
	assert_int_equal(st.overflow, s.full_returns);

	/* the other direction */
	expect = 0;
	assert_int_equal(pthread_create(&th, NULL, gnio_sender, &s), 0);
	while (expect < STRESS_FRAMES) {
		gnio_error_t e = gnio_sw_peer_recv(w.peer, 0, buf, sizeof(buf), &len, NULL);
		uint32_t got;

		if (e == GNIO_ERROR_EMPTY) {
			sched_yield();
			continue;
		}
		assert_int_equal(e, GNIO_SUCCESS);
		assert_int_equal(len, stress_len(expect));
		memcpy(&got, buf, 4);
		assert_int_equal(got, expect);
		assert_int_equal(buf[len - 1], (uint8_t)(expect ^ 0x5a));
		expect++;
		/* The consumer sees a frame only after prod counts it: the
		 * pending count never wraps below zero. */
		if (expect % 64 == 0)
			assert_true(stats(w.peer, 0).tx_pending <= 256);
	}
	pthread_join(th, NULL);
	assert_int_equal(stats(w.peer, 0).received, STRESS_FRAMES);
	assert_int_equal(stats(w.peer, 0).tx_pending, 0);
	wq_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_and_caps),
		cmocka_unit_test(test_peer_to_gnio),
		cmocka_unit_test(test_gnio_to_peer),
		cmocka_unit_test(test_rx_fifo_full),
		cmocka_unit_test(test_rx_fifo_full_by_bytes),
		cmocka_unit_test(test_too_big_and_max_frame),
		cmocka_unit_test(test_tx_fifo_full),
		cmocka_unit_test(test_gen_count),
		cmocka_unit_test(test_gen_too_big),
		cmocka_unit_test(test_gen_overflow_exact),
		cmocka_unit_test(test_gen_pacing),
		cmocka_unit_test(test_peer_after_close),
		cmocka_unit_test(test_multi_queue_isolation),
		cmocka_unit_test(test_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
