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
 * The receive's full-at-once answer is checked at each scope by
 * tests/util/recv_semantics.h (CPU device and GPU), and the tuner end to end
 * in an app by tests/unit/test_verify_app.c (a consumer behind its wire).
 */
#include "testutil.h"
#include "apps/batch_tuner.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_grows_while_behind),
		cmocka_unit_test(test_waiting_consumer_stays),
		cmocka_unit_test(test_shrinks_when_waiting_again),
		cmocka_unit_test(test_no_swinging),
		cmocka_unit_test(test_small_rings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
