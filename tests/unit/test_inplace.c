/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_inplace.c - sending received frames in place (the RX pool
 * registered with the TX queue) on the CPU device over sw:
 *  - every echo leaves from the RX buffer (tx_in_place == tx_packets, no
 *    copy) and comes back intact;
 *  - while sends cannot complete (the peer does not read), the RX buffers they
 *    hold are not refilled: frames that find their buffer held are dropped as
 *    no_buffer, counted, never lost; once the peer reads, every held frame
 *    leaves unchanged and reception resumes;
 *  - a TX queue stopped with sends still queued releases their holds.
 */
#include <string.h>
#include "testutil.h"

#define RING 64u

static void up(struct tpipe *p, const char *wire)
{
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, wire);
	c.ring = RING;
	c.with_tx = 1;
	c.tx_ring = 1024; /* room for every held send: the RX side runs out first */
	assert_ok(tpipe_up(p, &c));
}

static struct gnio_gen_cfg gen_cfg(void)
{
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.frame_size = 128;
	return g;
}

/* Send frame seq; wait until the wire delivered or dropped it and, while the
 * kernel runs, until the kernel took it. Waiting for the kernel keeps the
 * ring from filling behind a kernel thread that a loaded machine (or TSan)
 * runs slowly: a drop can then only be a held buffer (no_buffer), never
 * ring_full. */
static void send_one(struct tpipe *p, const struct gnio_gen_cfg *g, uint64_t seq, int kernel_runs)
{
	uint8_t buf[256];
	uint32_t len = gnio_gen_build(g, seq, buf, sizeof(buf));
	struct gnio_eth_rxq_stats before, now;
	assert_ok(gnio_eth_rxq_get_stats(p->rxq, &before));
	assert_ok(gnio_sw_peer_send(p->peer, 0, buf, len));
	for (uint64_t end = test_now_ns() + 5000000000ull;;) {
		assert_ok(gnio_eth_rxq_get_stats(p->rxq, &now));
		if (now.rx_packets + now.dropped_total > before.rx_packets + before.dropped_total)
			break;
		assert_true(test_now_ns() < end);
		sched_yield();
	}
	if (kernel_runs)
		assert_true(tpipe_wait_packets(p, now.rx_packets, 5000));
}

/* Take one echo from the peer: the generated frame seq with its MACs swapped. */
static int take_echo(struct tpipe *p, const struct gnio_gen_cfg *g, uint64_t *seq, unsigned timeout_ms)
{
	uint8_t buf[2048], tmp[6];
	uint32_t len;
	for (uint64_t end = test_now_ns() + (uint64_t)timeout_ms * 1000000ull;;) {
		gnio_error_t e = gnio_sw_peer_recv(p->peer, 0, buf, sizeof(buf), &len, NULL);
		if (e == GNIO_SUCCESS)
			break;
		assert_gnio(e, GNIO_ERROR_EMPTY);
		if (test_now_ns() > end)
			return 0;
		sched_yield();
	}
	memcpy(tmp, buf, 6);
	memcpy(buf, buf + 6, 6);
	memcpy(buf + 6, tmp, 6);
	assert_ok(gnio_gen_verify(g, buf, len, seq));
	return 1;
}

static void test_echo_in_place_holds(void **state)
{
	(void)state;
	struct tpipe p;
	/* The peer's FIFO toward it holds 16 frames: with nobody reading, the
	 * 17th send cannot complete. */
	up(&p, "sw:ip_hold,depth=16");
	struct gnio_gen_cfg g = gen_cfg();
	assert_ok(tpipe_launch(&p, "echo"));

	const uint64_t n1 = 4 * RING;
	for (uint64_t s = 0; s < n1; s++)
		send_one(&p, &g, s, 1);
	struct gnio_eth_rxq_stats rs;
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &rs));
	/* More arrived than the ring plus the peer's FIFO can take while
	 * sends are stuck: the held buffers made the difference. */
	assert_true(rs.dropped[GNIO_DROP_NO_BUFFER] > 0);
	assert_int_equal(rs.rx_packets + rs.dropped_total, n1);
	assert_true(rs.rx_packets < n1);
	/* Each delivered frame is echoed, in order, unchanged. */
	uint64_t got = 0, seq, last = 0;
	while (got < rs.rx_packets && take_echo(&p, &g, &seq, 5000)) {
		assert_true(got == 0 || seq > last);
		last = seq;
		got++;
	}
	assert_int_equal(got, rs.rx_packets);
	/* Reception resumed: 2 more rings' worth, all delivered and echoed. */
	const uint64_t n2 = 2 * RING;
	for (uint64_t s = n1; s < n1 + n2; s++) {
		send_one(&p, &g, s, 1);
		assert_true(take_echo(&p, &g, &seq, 5000));
		assert_int_equal(seq, s);
	}
	assert_true(tpipe_wait_packets(&p, rs.rx_packets + n2, 5000));
	struct gnio_eth_rxq_stats end;
	struct gnio_eth_txq_stats ts;
	struct gnio_sw_peer_stats ps;
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &end));
	assert_ok(gnio_eth_txq_get_stats(p.txq, &ts));
	assert_ok(gnio_sw_peer_get_stats(p.peer, 0, &ps));
	assert_int_equal(ps.offered, n1 + n2);
	assert_int_equal(end.rx_packets + end.dropped_total, ps.offered);
	assert_int_equal(end.dropped[GNIO_DROP_NO_BUFFER], end.dropped_total);
	assert_int_equal(ts.tx_packets, end.rx_packets);
	assert_int_equal(ts.tx_in_place, ts.tx_packets);
	assert_int_equal(ts.tx_copies, 0);
	assert_int_equal(ps.received, ts.tx_packets);
	tpipe_down(&p);
}

/* Sends still queued when the TX queue stops: their holds are released, so
 * the RX queue refills those buffers again. */
static void test_tx_stop_releases_holds(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:ip_stop,depth=16");
	struct gnio_gen_cfg g = gen_cfg();
	assert_ok(tpipe_launch(&p, "echo"));
	for (uint64_t s = 0; s < RING; s++)
		send_one(&p, &g, s, 1);
	assert_true(tpipe_wait_packets(&p, RING, 5000));
	/* Kernel first, then the TX queue, whose proxy still had sends. */
	assert_ok(gnio_runner_stop(p.runner, 5000));
	assert_ok(gnio_ctx_stop(gnio_eth_txq_as_ctx(p.txq)));
	/* The kernel released the ring; 16 sends reached the peer's FIFO and
	 * the rest were still queued. Another ring's worth must land in every
	 * buffer again: a hold left by a send that will never happen would
	 * drop these as no_buffer. */
	struct gnio_eth_rxq_stats rs;
	for (uint64_t s = RING; s < 2 * RING; s++)
		send_one(&p, &g, s, 0);
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &rs));
	assert_int_equal(rs.dropped[GNIO_DROP_NO_BUFFER], 0);
	assert_int_equal(rs.dropped_total, 0);
	assert_int_equal(rs.rx_packets, 2 * RING);
	tpipe_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo_in_place_holds),
		cmocka_unit_test(test_tx_stop_releases_holds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
