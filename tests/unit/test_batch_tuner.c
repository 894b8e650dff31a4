/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_batch_tuner.c - the built-in apps' adaptive batch
 * (src/apps/batch_tuner.h), stepped by hand:
 *   - a fixed batch never moves;
 *   - a consumer that is behind (every receive full at once) doubles its
 *     batch every GNIO_BATCH_TUNER_STREAK receives, up to half the ring,
 *     and stays there;
 *   - a consumer that waits for its frames (full, but not at once: the
 *     generator-fed sw wire) never grows;
 *   - one that falls back to waiting shrinks to the floor, and one odd
 *     receive in a streak restarts the count;
 *   - one that keeps up only at the bigger batch does not swing between
 *     the two (the shrink backs off), while the sw wire's case settles at
 *     the floor;
 *   - small rings: floor and ceiling are at most half the ring;
 * and end to end on the CPU device: with --batch auto over an endless null
 * wire the count app's batch reaches half the ring, with the books exact;
 * the receive's full-at-once answer itself is checked at each scope by
 * tests/util/recv_semantics.h (CPU device and GPU).
 */
#include "testutil.h"
#include "apps/batch_tuner.h"
#include "gnio/apps/apps.h"

static void test_fixed(void **state)
{
	(void)state;
	struct gnio_batch_tuner t;
	gnio_batch_tuner_init(&t, 64, 4096);
	for (int i = 0; i < 100; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 64, 1), 64);
	for (int i = 0; i < 100; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 3, 0), 64);
}

static void test_grows_while_behind(void **state)
{
	(void)state;
	struct gnio_batch_tuner t;
	gnio_batch_tuner_init(&t, 0, 16384);
	assert_int_equal(t.batch, GNIO_BATCH_TUNER_START);
	uint32_t want = GNIO_BATCH_TUNER_START;
	for (int step = 0; step < 3; step++) {
		for (int i = 1; i < GNIO_BATCH_TUNER_STREAK; i++)
			assert_int_equal(gnio_batch_tuner_next(&t, want, 1), want);
		want *= 2;
		assert_int_equal(gnio_batch_tuner_next(&t, want / 2, 1), want);
	}
	assert_int_equal(want, 8192);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 8192, 1), 8192); /* the ceiling: half the ring */
}

static void test_waiting_consumer_stays(void **state)
{
	(void)state;
	struct gnio_batch_tuner t;
	gnio_batch_tuner_init(&t, 0, 4096);
	/* full batches that it had to wait for, and short ones at the timeout */
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(gnio_batch_tuner_next(&t, 1024, 0), 1024);
		assert_int_equal(gnio_batch_tuner_next(&t, 17, 0), 1024);
	}
	/* behind, but every few receives it catches up: never 8 in a row */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 1024, (i % GNIO_BATCH_TUNER_STREAK) != 0), 1024);
}

static void test_shrinks_when_waiting_again(void **state)
{
	(void)state;
	struct gnio_batch_tuner t;
	gnio_batch_tuner_init(&t, 0, 8192);
	for (int i = 0; i < 4 * GNIO_BATCH_TUNER_STREAK; i++)
		gnio_batch_tuner_next(&t, t.batch, 1);
	assert_int_equal(t.batch, 4096);
	/* receives that waited: one short of a streak changes nothing */
	for (int i = 1; i < GNIO_BATCH_TUNER_STREAK; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 4096, 0), 4096);
	/* ... and a one-off full receive restarts the count of waits */
	assert_int_equal(gnio_batch_tuner_next(&t, 4096, 1), 4096);
	for (int i = 1; i < GNIO_BATCH_TUNER_STREAK; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 100, 0), 4096);
	assert_int_equal(gnio_batch_tuner_next(&t, 100, 0), 2048);
	for (int i = 0; i < GNIO_BATCH_TUNER_STREAK; i++)
		gnio_batch_tuner_next(&t, 0, 0); /* idle: timeouts with nothing */
	assert_int_equal(t.batch, 1024);
	for (int i = 0; i < 100; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 0, 0), 1024); /* the floor */
	/* a full-at-once receive of fewer than the batch is not "behind" */
	for (int i = 0; i < 100; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 512, 1), 1024);
}

/* A consumer that keeps up only at 4096 (it waits there, and is behind at
 * 2048) would swing between the two; the back-off keeps it at 4096. */
static void test_no_swinging(void **state)
{
	(void)state;
	struct gnio_batch_tuner t;
	gnio_batch_tuner_init(&t, 0, 8192);
	unsigned at_4096 = 0, shrinks = 0;
	const unsigned n = 100000;
	for (unsigned i = 0; i < n; i++) {
		const uint32_t before = t.batch;
		gnio_batch_tuner_next(&t, before, before < 4096);
		at_4096 += before == 4096;
		shrinks += t.batch < before;
	}
	assert_int_equal(t.peak, 4096);
	if (at_4096 < n * 99 / 100 || shrinks > 200)
		fail_msg("%u of %u receives at 4096, %u shrinks", at_4096, n, shrinks);
	/* the sw wire's case: grown by a burst, then waiting: back to the
	 * floor after one streak, and it stays */
	gnio_batch_tuner_init(&t, 0, 4096);
	for (int i = 0; i < GNIO_BATCH_TUNER_STREAK; i++)
		gnio_batch_tuner_next(&t, 1024, 1);
	assert_int_equal(t.batch, 2048);
	for (int i = 0; i < GNIO_BATCH_TUNER_STREAK; i++)
		gnio_batch_tuner_next(&t, 2048, 0);
	assert_int_equal(t.batch, 1024);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 1024, 0), 1024);
	assert_int_equal(t.peak, 2048);
}

static void test_small_rings(void **state)
{
	(void)state;
	struct gnio_batch_tuner t;
	gnio_batch_tuner_init(&t, 0, 512);
	assert_int_equal(t.batch, 256);
	for (int i = 0; i < 100; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 256, 1), 256);
	gnio_batch_tuner_init(&t, 0, 2048);
	assert_int_equal(t.batch, 1024);
	for (int i = 0; i < 100; i++)
		assert_int_equal(gnio_batch_tuner_next(&t, 1024, 1), 1024);
	gnio_batch_tuner_init(&t, 0, 1);
	assert_int_equal(t.batch, 1);
}

/* The count app with max_batch 0 on the CPU device over an endless null
 * wire, whose producer is always ahead: its batch reaches half the ring,
 * and every frame published is counted by the kernel. */
static void test_cpu_count_grows(void **state)
{
	(void)state;
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "null:tuner");
	c.ring = 1024;
	c.flow_control = 1;
	assert_ok(tpipe_up(&p, &c));
	p.args.max_batch = 0;
	assert_ok(tpipe_launch(&p, "count"));
	uint64_t batch = 0;
	for (uint64_t end = test_now_ns() + 10000000000ull; batch != 512 && test_now_ns() < end;)
		batch = gnio_load_relaxed_u64(&p.stats_cpu->batch_peak);
	assert_ok(gnio_runner_stop(p.runner, 5000));
	assert_int_equal(batch, 512);
	struct gnio_eth_rxq_stats st;
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &st));
	assert_int_equal(st.dropped_total, 0);
	/* the kernel counted and released all it took; the rest still waits
	 * on the ring (at most the ring: flow control holds the wire) */
	assert_int_equal(gnio_load_acquire_u64(&p.stats_cpu->packets), st.released);
	assert_true(st.released > 0 && st.rx_packets - st.released <= c.ring);
	tpipe_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_grows_while_behind),
		cmocka_unit_test(test_waiting_consumer_stays),
		cmocka_unit_test(test_shrinks_when_waiting_again),
		cmocka_unit_test(test_no_swinging),
		cmocka_unit_test(test_small_rings),
		cmocka_unit_test(test_cpu_count_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
