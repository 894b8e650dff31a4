/* SPDX-License-Identifier: MIT */
/* tests/unit/test_host_datapath.c - eth queues on the CPU datapath (no
 * device): gnio_eth_rxq_recv_burst and gnio_eth_txq_send_burst /
 * poll_completions over sw, with every frame accounted for, and the rules
 * (GPU-datapath queues and stopped queues refuse them). */
#include <string.h>
#include "testutil.h"

static void test_rx_burst(void **state)
{
	(void)state;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	struct gnio_eth_rxq *rxq;
	assert_ok(gnio_dev_open("sw:hdp_rx", &dev));
	assert_ok(gnio_sw_peer_open("hdp_rx", &peer));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1518, &rxq));
	struct gnio_eth_pkt pk[16];
	uint32_t n = 7;
	/* Not started yet. */
	assert_gnio(gnio_eth_rxq_recv_burst(rxq, pk, 16, &n), GNIO_ERROR_BAD_STATE);
	assert_int_equal(n, 0);
	assert_ok(gnio_ctx_start(gnio_eth_rxq_as_ctx(rxq)));

	/* 20 good frames, one runt, one longer than the buffers given. */
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.frame_size = 100;
	uint8_t f[2048];
	for (uint64_t s = 0; s < 10; s++)
		assert_ok(gnio_sw_peer_send(peer, 0, f, gnio_gen_build(&g, s, f, sizeof(f))));
	assert_ok(gnio_sw_peer_send(peer, 0, f, 10));
	memset(f, 0x5a, 600);
	assert_ok(gnio_sw_peer_send(peer, 0, f, 600));
	for (uint64_t s = 10; s < 20; s++)
		assert_ok(gnio_sw_peer_send(peer, 0, f, gnio_gen_build(&g, s, f, sizeof(f))));

	static uint8_t bufs[16][512];
	uint64_t seq_next = 0, got = 0;
	for (int round = 0; round < 100 && got < 20; round++) {
		for (int i = 0; i < 16; i++)
			pk[i] = (struct gnio_eth_pkt){.data = bufs[i], .cap = sizeof(bufs[i])};
		assert_ok(gnio_eth_rxq_recv_burst(rxq, pk, 16, &n));
		for (uint32_t i = 0; i < n; i++) {
			uint64_t seq;
			assert_int_equal(pk[i].len, 100);
			assert_ok(gnio_gen_verify(&g, pk[i].data, pk[i].len, &seq));
			assert_int_equal(seq, seq_next);
			assert_true(pk[i].ts_ns > 0);
			seq_next++;
		}
		got += n;
	}
	assert_int_equal(got, 20);
	struct gnio_eth_rxq_stats st;
	assert_ok(gnio_eth_rxq_get_stats(rxq, &st));
	assert_int_equal(st.rx_packets, 20);
	assert_int_equal(st.rx_bytes, 2000);
	assert_int_equal(st.dropped[GNIO_DROP_RUNT], 1);
	assert_int_equal(st.dropped[GNIO_DROP_TOO_BIG], 1);
	assert_int_equal(st.dropped_total, 2);
	struct gnio_sw_peer_stats ps;
	assert_ok(gnio_sw_peer_get_stats(peer, 0, &ps));
	assert_int_equal(ps.offered, st.rx_packets + st.dropped_total);
	/* Nothing more: a burst returns at once with none. */
	assert_ok(gnio_eth_rxq_recv_burst(rxq, pk, 16, &n));
	assert_int_equal(n, 0);
	assert_gnio(gnio_eth_rxq_recv_burst(rxq, NULL, 16, &n), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_ctx_stop(gnio_eth_rxq_as_ctx(rxq)));
	assert_gnio(gnio_eth_rxq_recv_burst(rxq, pk, 16, &n), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_sw_peer_close(peer));
	assert_ok(gnio_dev_close(dev));
}

static void test_tx_burst(void **state)
{
	(void)state;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	struct gnio_eth_txq *txq;
	assert_ok(gnio_dev_open("sw:hdp_tx", &dev));
	assert_ok(gnio_sw_peer_open("hdp_tx", &peer));
	assert_ok(gnio_eth_txq_create(dev, 32, &txq));
	assert_ok(gnio_ctx_start(gnio_eth_txq_as_ctx(txq)));
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	static uint8_t frames[50][128];
	struct gnio_eth_pkt pk[50];
	for (uint32_t i = 0; i < 50; i++)
		pk[i] = (struct gnio_eth_pkt){.data = frames[i], .len = gnio_gen_build(&g, i, frames[i], 128)};
	uint32_t sent = 0, done = 0;
	assert_ok(gnio_eth_txq_send_burst(txq, pk, 50, &sent));
	assert_int_equal(sent, 50);
	assert_ok(gnio_eth_txq_poll_completions(txq, &done));
	assert_int_equal(done, 50);
	assert_ok(gnio_eth_txq_poll_completions(txq, &done));
	assert_int_equal(done, 0);
	uint8_t buf[256];
	uint32_t len;
	for (uint64_t s = 0; s < 50; s++) {
		uint64_t seq;
		assert_ok(gnio_sw_peer_recv(peer, 0, buf, sizeof(buf), &len, NULL));
		assert_ok(gnio_gen_verify(&g, buf, len, &seq));
		assert_int_equal(seq, s);
	}
	struct gnio_eth_txq_stats ts;
	assert_ok(gnio_eth_txq_get_stats(txq, &ts));
	assert_int_equal(ts.tx_packets, 50);
	/* A frame without data is refused whole. */
	pk[0].len = 0;
	assert_gnio(gnio_eth_txq_send_burst(txq, pk, 1, &sent), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_ctx_stop(gnio_eth_txq_as_ctx(txq)));
	assert_ok(gnio_eth_txq_destroy(txq));
	assert_ok(gnio_sw_peer_close(peer));
	assert_ok(gnio_dev_close(dev));
}

/* A queue whose datapath is on a device belongs to its kernel. */
static void test_gpu_datapath_refuses_host_bursts(void **state)
{
	(void)state;
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "sw:hdp_gpu");
	c.with_tx = 1;
	assert_ok(tpipe_up(&p, &c));
	struct gnio_eth_pkt pk[1] = {{0}};
	uint32_t n;
	assert_gnio(gnio_eth_rxq_recv_burst(p.rxq, pk, 1, &n), GNIO_ERROR_BAD_STATE);
	assert_non_null(strstr(gnio_last_error_msg(), "kernel"));
	assert_gnio(gnio_eth_txq_send_burst(p.txq, pk, 1, &n), GNIO_ERROR_BAD_STATE);
	tpipe_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_burst),
		cmocka_unit_test(test_tx_burst),
		cmocka_unit_test(test_gpu_datapath_refuses_host_bursts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
