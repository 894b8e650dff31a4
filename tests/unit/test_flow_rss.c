/* SPDX-License-Identifier: MIT */
/*
 * test_flow_rss.c - the RSS hash and spread: the Toeplitz hash equals the
 * published verification values of the key gnio uses (IPv4 and IPv6, with
 * and without ports); one 5-tuple always gets one queue whatever else the
 * frame carries; fragments and non-port protocols hash their addresses;
 * many random flows spread within +-20% of even over 2, 3, 4 and 8 queues.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"
#include "flow_frames.h"
#include "gnio/flow.h"

/* Microsoft's RSS verification suite for this key: source 66.9.149.187:2794,
 * destination 161.142.100.80:1766 and the IPv6 pair below. */
static void test_known_values(void **state)
{
	uint8_t b[1600];
	struct tf_spec s;

	(void)state;
	s = (struct tf_spec){.ipv = 4, .proto = 6, .src = "66.9.149.187", .dst = "161.142.100.80", .sport = 2794, .dport = 1766};
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x51ccc178);
	s.proto = 17; /* UDP hashes its ports the same way */
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x51ccc178);
	s.proto = 1; /* no ports: the 2-tuple */
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x323e8fc2);
	s.proto = 17;
	s.frag = 0x2000; /* a first fragment hashes like the rest of its datagram */
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x323e8fc2);
	s.frag = 0x0010;
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x323e8fc2);
	s = (struct tf_spec){.ipv = 6, .proto = 6, .src = "3ffe:2501:200:1fff::7", .dst = "3ffe:2501:200:3::1", .sport = 2794, .dport = 1766};
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x40207d3d);
	s.proto = 58;
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x2cc18cd5);
	s.proto = 17;
	s.n_ext = 1; /* extension headers do not change the tuple */
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x40207d3d);
	/* and a VLAN tag does not either */
	s.n_ext = 0;
	s.tpid[0] = 0x8100;
	s.vid[0] = 12;
	assert_int_equal(gnio_flow_hash(b, tf_build(b, &s)), 0x40207d3d);
}

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* A random flow's frame. */
static uint32_t random_flow(uint8_t *b, int v6, struct tf_spec *s, char *src, char *dst)
{
	if (v6) {
		sprintf(src, "2001:db8:%x:%x::%x", rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff);
		sprintf(dst, "fd00::%x:%x", rnd() & 0xffff, rnd() & 0xffff);
	} else {
		sprintf(src, "10.%u.%u.%u", rnd() & 255, rnd() & 255, rnd() & 255);
		sprintf(dst, "192.168.%u.%u", rnd() & 255, rnd() & 255);
	}
	*s = (struct tf_spec){.ipv = v6 ? 6 : 4, .proto = (rnd() & 1) ? 17 : 6, .src = src, .dst = dst,
			      .sport = (uint16_t)rnd(), .dport = (uint16_t)(4791 + rnd() % 10), .payload = rnd() % 64};
	return tf_build(b, s);
}

/* Spread of nflows random flows over the queues of `rules`' rss action. */
static void spread(const char *rules, const uint16_t *set, unsigned nq, unsigned nflows)
{
	struct gnio_flow *f;
	struct gnio_flow_reader *rd;
	unsigned count[64] = {0};

	assert_ok(gnio_flow_create(NULL, &f));
	assert_ok(gnio_flow_load_string(f, rules, NULL));
	assert_ok(gnio_flow_reader_create(f, 0, &rd));
	for (unsigned i = 0; i < nflows; i++) {
		uint8_t b[1600];
		char src[64], dst[64];
		struct tf_spec s;
		struct gnio_flow_frame fr;
		struct gnio_flow_result r;
		unsigned k;

		fr.data = b;
		fr.len = random_flow(b, i & 1, &s, src, dst);
		gnio_flow_classify(rd, &fr, 1, &r);
		assert_int_equal(r.action, GNIO_FLOW_ACTION_RSS);
		for (k = 0; k < nq && set[k] != r.queue; k++)
			;
		assert_true(k < nq); /* a queue of the set */
		count[k]++;
	}
	for (unsigned k = 0; k < nq; k++) {
		double even = (double)nflows / nq;

		if (count[k] < 0.8 * even || count[k] > 1.2 * even)
			fail_msg("%s: queue %u got %u of %u flows (even: %.0f, allowed +-20%%)", rules, set[k], count[k],
				 nflows, even);
	}
	assert_ok(gnio_flow_reader_destroy(rd));
	assert_ok(gnio_flow_destroy(f));
}

static void test_spread(void **state)
{
	static const uint16_t q4[] = {0, 1, 2, 3}, q2[] = {0, 1}, q3[] = {5, 9, 2}, q8[] = {0, 1, 2, 3, 4, 5, 6, 7};

	(void)state;
	spread("udp dport 4791-4800 -> rss 0,1,2,3\ntcp -> rss 0-3\n", q4, 4, 20000);
	spread("any -> rss 0,1\n", q2, 2, 20000);
	spread("default -> rss 5,9,2\n", q3, 3, 30000);
	spread("ipv4 -> rss 0-7\nipv6 -> rss 0-7\n", q8, 8, 40000);
	/* a small population stays within bounds too (the seed is fixed) */
	spread("any -> rss 0-3\n", q4, 4, 2000);
}

/* One flow always gets one queue: its frames differ in payload, length,
 * VLAN and IPv6 extension headers, and are seen by two readers. */
static void test_flow_sticks(void **state)
{
	struct gnio_flow *f;
	struct gnio_flow_reader *r1, *r2;

	(void)state;
	assert_ok(gnio_flow_create(NULL, &f));
	assert_ok(gnio_flow_load_string(f, "any -> rss 0-7\n", NULL));
	assert_ok(gnio_flow_reader_create(f, 0, &r1));
	assert_ok(gnio_flow_reader_create(f, 1, &r2));
	for (int flow = 0; flow < 500; flow++) {
		uint8_t b[1600];
		char src[64], dst[64];
		struct tf_spec s;
		struct gnio_flow_frame fr = {b, 0};
		struct gnio_flow_result r, first;

		fr.len = random_flow(b, flow & 1, &s, src, dst);
		gnio_flow_classify(r1, &fr, 1, &first);
		for (int k = 0; k < 20; k++) {
			s.payload = rnd() % 900;
			s.tpid[0] = (k & 1) ? 0x8100 : 0;
			s.vid[0] = (uint16_t)(k & 1 ? 7 : 0);
			s.n_ext = s.ipv == 6 ? k % 3 : 0;
			fr.len = tf_build(b, &s);
			gnio_flow_classify((k & 2) ? r2 : r1, &fr, 1, &r);
			assert_int_equal(r.queue, first.queue);
			assert_int_equal(r.hash, first.hash);
		}
	}
	assert_ok(gnio_flow_reader_destroy(r1));
	assert_ok(gnio_flow_reader_destroy(r2));
	assert_ok(gnio_flow_destroy(f));
}

/* Non-IP frames hash their MAC addresses: stable, and different MACs spread. */
static void test_non_ip(void **state)
{
	uint8_t b[1600];
	struct tf_spec s = {.ethertype = 0x88cc};
	uint32_t h1, h2, len;

	(void)state;
	len = tf_build(b, &s);
	h1 = gnio_flow_hash(b, len);
	b[30] ^= 0xff; /* payload does not count */
	assert_int_equal(gnio_flow_hash(b, len), h1);
	b[11] ^= 0x01; /* the source MAC does */
	h2 = gnio_flow_hash(b, len);
	assert_int_not_equal(h1, h2);
	assert_int_equal(gnio_flow_hash(b, 11), 0); /* too short for MACs */
	assert_int_equal(gnio_flow_hash(NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_flow_sticks),
		cmocka_unit_test(test_non_ip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
