/* SPDX-License-Identifier: MIT */
/* Built-in apps on the CPU device: touch reads every payload word and its
 * digest matches one computed independently here; count and touch agree on
 * frames and bytes. */
#include "testutil.h"
#include <string.h>

static uint32_t word_xor(const uint8_t *p, uint32_t len)
{
	uint32_t x = 0, w, i = 0;
	for (; i + 4 <= len; i += 4) {
		memcpy(&w, p + i, 4);
		x ^= w;
	}
	for (uint32_t k = 0; i < len; i++, k++)
		x ^= (uint32_t)p[i] << (8 * k);
	return x;
}

static void test_touch_digest(void **state)
{
	(void)state;
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "sw:apps_touch");
	assert_ok(tpipe_up(&p, &c));
	assert_ok(tpipe_launch(&p, "touch"));

	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	uint8_t buf[2048];
	uint64_t want = 0, bytes = 0;
	const unsigned n = 500;
	for (unsigned i = 0; i < n; i++) {
		g.frame_size = 60 + (i % 7) * 101; /* odd and even lengths */
		uint32_t len = gnio_gen_build(&g, i, buf, sizeof(buf));
		assert_true(len > 0);
		want ^= word_xor(buf, len);
		bytes += len;
		while (gnio_sw_peer_send(p.peer, 0, buf, len) == GNIO_ERROR_FULL)
			;
	}
	assert_true(tpipe_wait_packets(&p, n, 10000));
	assert_ok(gnio_runner_stop(p.runner, 5000));
	assert_int_equal(p.stats_cpu->packets, n);
	assert_int_equal(p.stats_cpu->bytes, bytes);
	assert_int_equal(p.stats_cpu->digest, want);
	assert_int_equal(p.stats_cpu->errors, 0);
	tpipe_down(&p);
}

static void test_touch_sees_corruption(void **state)
{
	(void)state;
	/* Flip one payload byte: the digest must move, so the app really reads
	 * the bytes rather than trusting lengths. */
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "sw:apps_flip");
	assert_ok(tpipe_up(&p, &c));
	assert_ok(tpipe_launch(&p, "touch"));
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.frame_size = 200;
	uint8_t buf[256];
	uint32_t len = gnio_gen_build(&g, 7, buf, sizeof(buf));
	uint64_t clean = word_xor(buf, len);
	buf[150] ^= 0x5a;
	assert_ok(gnio_sw_peer_send(p.peer, 0, buf, len));
	assert_true(tpipe_wait_packets(&p, 1, 10000));
	assert_ok(gnio_runner_stop(p.runner, 5000));
	assert_int_equal(p.stats_cpu->digest, word_xor(buf, len));
	assert_int_not_equal(p.stats_cpu->digest, clean);
	tpipe_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_touch_digest),
		cmocka_unit_test(test_touch_sees_corruption),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
