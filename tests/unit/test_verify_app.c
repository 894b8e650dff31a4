/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_verify_app.c - the verify app and its per-frame check
 * (gnio/apps/verify.h), which the slow-consumer test and the soak rely on:
 *   - every frame the generator builds passes, with its sequence number, for
 *     every protocol and a range of sizes;
 *   - one flipped bit anywhere from the IP header on fails the check;
 *   - on the CPU device with a consumer slower than the wire (the app holds
 *     each batch), drops are counted and every one shows as a gap between
 *     stamps, and nothing the kernel held changed;
 *   - with the adaptive batch, a consumer that is behind grows its batch to
 *     half the ring, with the same exact books;
 *   - the check that would catch a rewrite does: frames overwritten under a
 *     held batch are reported (changed_in_hold), so a zero means something.
 */
#include <string.h>
#include <time.h>
#include "testutil.h"
#include "gnio/apps/apps.h"
#include "gnio/apps/verify.h"
#include "gnio/gen.h"
#include "gnio/gnio.h"
#include "gnio/impl/atomics.h"

static void test_generated_frames_pass(void **state)
{
	(void)state;
	static const enum gnio_gen_proto protos[] = {GNIO_GEN_UDP, GNIO_GEN_DNS,	  GNIO_GEN_TCP_SYN,
						     GNIO_GEN_TCP_ACK, GNIO_GEN_HTTP, GNIO_GEN_ICMP_ECHO, GNIO_GEN_ARP,
						     GNIO_GEN_MIX};
	static const uint32_t sizes[] = {60, 64, 97, 128, 511, 1500, 9000};
	uint8_t buf[GNIO_GEN_MAX_FRAME];
	unsigned checked = 0;
	for (size_t p = 0; p < sizeof(protos) / sizeof(protos[0]); p++) {
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			struct gnio_gen_cfg cfg;
			gnio_gen_cfg_init(&cfg);
			cfg.proto = protos[p];
			cfg.frame_size = sizes[z];
			if (sizes[z] < gnio_gen_min_frame(protos[p]))
				continue;
			for (uint64_t seq = 0; seq < 50; seq++) {
				uint32_t len = gnio_gen_build(&cfg, seq * 7919, buf, sizeof(buf));
				assert_int_equal(len, sizes[z]);
				int64_t got = gnio_verify_frame(buf, len);
				if (got != (int64_t)(seq * 7919))
					fail_msg("%s, %u bytes, seq %llu: verify gave %lld", gnio_gen_proto_name(protos[p]),
						 len, (unsigned long long)(seq * 7919), (long long)got);
				checked++;
			}
		}
	}
	assert_true(checked > 1500);
}

static void test_one_bit_fails(void **state)
{
	(void)state;
	static const enum gnio_gen_proto protos[] = {GNIO_GEN_UDP, GNIO_GEN_TCP_ACK, GNIO_GEN_ICMP_ECHO};
	uint8_t buf[GNIO_GEN_MAX_FRAME];
	for (size_t p = 0; p < sizeof(protos) / sizeof(protos[0]); p++) {
		struct gnio_gen_cfg cfg;
		gnio_gen_cfg_init(&cfg);
		cfg.proto = protos[p];
		cfg.frame_size = 200;
		uint32_t len = gnio_gen_build(&cfg, 12345, buf, sizeof(buf));
		assert_int_equal(gnio_verify_frame(buf, len), 12345);
		/* From the IP header to the stamp every byte is under a checksum
		 * (the stamp also under its magic). */
		for (uint32_t at = 14; at < len; at++) {
			for (int bit = 0; bit < 8; bit += 3) {
				buf[at] ^= (uint8_t)(1u << bit);
				if (gnio_verify_frame(buf, len) >= 0)
					fail_msg("%s: bit %d of byte %u flipped and the frame still passed",
						 gnio_gen_proto_name(protos[p]), bit, at);
				buf[at] ^= (uint8_t)(1u << bit);
			}
		}
		/* A frame cut short loses its stamp. */
		assert_true(gnio_verify_frame(buf, len - 1) < 0);
	}
	/* Not generator output at all. */
	memset(buf, 0, 64);
	assert_true(gnio_verify_frame(buf, 64) < 0);
}

/* ---------------------------------------------------- on the CPU device -- */

struct run {
	struct gnio_pipeline *pl;
	struct gnio_pipeline_queue q;
	struct gnio_sw_peer *peer;
	struct gnio_app_args args;
	struct gnio_app_stats *stats;
	struct gnio_gen_cfg gen;
};

static void nap_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void run_up(struct run *r, const char *wire, uint32_t ring, uint32_t batch, uint64_t hold_ns, uint64_t count,
		   uint64_t rate)
{
	memset(r, 0, sizeof(*r));
	struct gnio_pipeline_cfg pc;
	gnio_pipeline_cfg_init(&pc, wire, "cpu");
	pc.ring = ring;
	pc.user_mem = sizeof(struct gnio_app_stats);
	assert_ok(gnio_pipeline_create(&pc, &r->pl));
	assert_ok(gnio_pipeline_get_queue(r->pl, 0, &r->q));
	r->stats = r->q.user_mem_cpu;
	r->args = (struct gnio_app_args){.rxq = r->q.rxh, .stats = r->q.user_mem_gpu, .max_batch = batch,
					 .timeout_ns = 100000, .blocks = 1, .hold_ns = hold_ns};
	const struct gnio_app *app = gnio_app_find("verify");
	assert_non_null(app);
	assert_ok(gnio_pipeline_launch(r->pl, 0, gnio_app_launcher(app, 1), &r->args));
	assert_ok(gnio_sw_peer_open(wire + 3, &r->peer));
	gnio_gen_cfg_init(&r->gen);
	r->gen.count = count;
	r->gen.rate_pps = rate;
	assert_ok(gnio_sw_peer_gen_attach(r->peer, 0, &r->gen));
}

/* Wait for the generator to finish and the kernel to take every delivered
 * frame, then stop: copies out the kernel's final counters (k) before the
 * rollback frees them, and the queue's and the peer's. */
static void run_down(struct run *r, struct gnio_app_stats *k, struct gnio_eth_rxq_stats *rs,
		     struct gnio_sw_peer_stats *ps)
{
	for (int i = 0; i < 4000 && !gnio_sw_peer_gen_done(r->peer, 0); i++)
		nap_ms(5);
	assert_true(gnio_sw_peer_gen_done(r->peer, 0));
	for (int i = 0; i < 2000; i++) {
		assert_ok(gnio_eth_rxq_get_stats(r->q.rxq, rs));
		if (gnio_load_acquire_u64(&r->stats->packets) == rs->rx_packets &&
		    rs->rx_packets + rs->dropped_total == r->gen.count)
			break;
		nap_ms(5);
	}
	assert_ok(gnio_pipeline_quiesce(r->pl, 5000));
	/* The kernel still runs (it stops at the rollback) and republishes its
	 * totals on each poll: read them word by word with atomic loads. */
	const uint64_t *src = (const uint64_t *)r->stats;
	uint64_t *dst = (uint64_t *)k;
	for (size_t i = 0; i < sizeof(*k) / sizeof(uint64_t); i++)
		dst[i] = gnio_load_acquire_u64(&src[i]);
	assert_ok(gnio_sw_peer_get_stats(r->peer, 0, ps));
	assert_ok(gnio_pipeline_rollback(r->pl, 5000, NULL, NULL));
	assert_ok(gnio_eth_rxq_get_stats(r->q.rxq, rs));
	gnio_sw_peer_close(r->peer);
	assert_ok(gnio_pipeline_destroy(r->pl));
}

/* The kernel holds each batch longer than the wire takes to fill the ring:
 * frames are dropped (ring_full), and each drop is a gap between the stamps
 * the kernel saw, or falls before the first or after the last. */
static void test_slow_consumer(void **state)
{
	(void)state;
	struct run r;
	const uint64_t count = 200000;
	run_up(&r, "sw:verify-slow", 256, 64, 200000, count, 2000000);
	struct gnio_eth_rxq_stats rs;
	struct gnio_sw_peer_stats ps;
	struct gnio_app_stats k;
	run_down(&r, &k, &rs, &ps);
	print_message("slow consumer: offered %llu, delivered %llu, ring_full %llu, gaps %llu, batches %llu\n",
		      (unsigned long long)ps.offered, (unsigned long long)rs.rx_packets,
		      (unsigned long long)rs.dropped[GNIO_DROP_RING_FULL], (unsigned long long)k.seq_gap,
		      (unsigned long long)k.batches);
	assert_int_equal(ps.offered, count);
	assert_int_equal(rs.rx_packets + rs.dropped_total, count);
	assert_true(rs.dropped[GNIO_DROP_RING_FULL] > 0); /* the consumer really was slower */
	assert_int_equal(k.packets, rs.rx_packets);
	assert_int_equal(k.verify_fail, 0);
	assert_int_equal(k.seq_reorder, 0);
	assert_int_equal(k.changed_in_hold, 0);
	assert_true(k.packets > 0);
	assert_int_equal(k.seq_gap + k.seq_first + (count - 1 - k.seq_last), rs.dropped_total);
}

/* The adaptive batch (max_batch 0) end to end: a kernel that holds each
 * batch 5 ms behind a wire at 1 Mfps finds every batch waiting, so its
 * batch grows from 1024 to half the 4096 ring, which it can only do on the
 * receive's full-at-once answer; the books balance and every drop is a
 * gap, as with a fixed batch. */
static void test_adaptive_batch_grows_when_behind(void **state)
{
	(void)state;
	struct run r;
	const uint64_t count = 200000;
	run_up(&r, "sw:verify-adapt", 4096, 0, 5000000, count, 1000000);
	struct gnio_eth_rxq_stats rs;
	struct gnio_sw_peer_stats ps;
	struct gnio_app_stats k;
	run_down(&r, &k, &rs, &ps);
	print_message("adaptive batch: peak %llu, batches %llu, delivered %llu, dropped %llu\n",
		      (unsigned long long)k.batch_peak, (unsigned long long)k.batches,
		      (unsigned long long)rs.rx_packets, (unsigned long long)rs.dropped_total);
	assert_int_equal(k.batch_peak, 2048);
	assert_int_equal(ps.offered, count);
	assert_int_equal(rs.rx_packets + rs.dropped_total, count);
	assert_int_equal(k.packets, rs.rx_packets);
	assert_int_equal(k.verify_fail, 0);
	assert_int_equal(k.seq_reorder, 0);
	assert_int_equal(k.seq_gap + k.seq_first + (count - 1 - k.seq_last), rs.dropped_total);
}

/* A slot rewritten while the kernel holds its batch is caught. */
static void test_rewrite_under_hold_caught(void **state)
{
	(void)state;
#if defined(__SANITIZE_THREAD__)
	/* The test writes the pool while the kernel thread reads it, on
	 * purpose: that race is what the verify app must catch, and TSan
	 * rightly reports it. The plain and ASan builds run it. */
	skip();
#endif
	struct run r;
	const uint64_t count = 64; /* one batch */
	run_up(&r, "sw:verify-rewrite", 256, 64, 400000000ull, count, 0);
	struct gnio_eth_rxq_stats rs;
	for (int i = 0; i < 2000; i++) {
		assert_ok(gnio_eth_rxq_get_stats(r.q.rxq, &rs));
		if (rs.rx_packets == count)
			break;
		nap_ms(1);
	}
	assert_int_equal(rs.rx_packets, count);
	nap_ms(100); /* the kernel has the batch and holds it for 400 ms */
	/* Rewrite every slot with another valid frame, as a proxy that
	 * refilled held slots would. */
	uint8_t *pool = r.q.rx_mem;
	uint32_t elem = gnio_buf_arr_get_elem_size(r.q.rx_pool);
	for (uint32_t s = 0; s < count; s++)
		gnio_gen_build(&r.gen, 1000000 + s, pool + (size_t)s * elem, elem);
	struct gnio_app_stats k;
	struct gnio_sw_peer_stats ps;
	run_down(&r, &k, &rs, &ps);
	print_message("rewrite under hold: changed_in_hold %llu, not intact %llu\n",
		      (unsigned long long)k.changed_in_hold, (unsigned long long)k.verify_fail);
	assert_int_equal(k.packets, count);
	assert_int_equal(k.verify_fail, 0);     /* the new frames are intact ... */
	assert_true(k.changed_in_hold >= 1);    /* ... but not the ones that were held */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_frames_pass),
		cmocka_unit_test(test_one_bit_fails),
		cmocka_unit_test(test_slow_consumer),
		cmocka_unit_test(test_adaptive_batch_grows_when_behind),
		cmocka_unit_test(test_rewrite_under_hold_caught),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
