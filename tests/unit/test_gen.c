/* SPDX-License-Identifier: MIT */
/*
 * test_gen.c - the frame generator: every protocol builds frames whose
 * checksums (summed here independently), layout and classification are
 * right; stamps round-trip; verify catches any changed byte; limits give the
 * documented reasons; the fast template path equals the reference builder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gnio/gen.h"
#include "gnio/apps/classify.h"
#include "eth/gen_priv.h"

static const enum gnio_gen_proto all_protos[] = {
	GNIO_GEN_UDP,	  GNIO_GEN_DNS,	 GNIO_GEN_TCP_SYN,   GNIO_GEN_TCP_ACK,
	GNIO_GEN_TCP_FIN, GNIO_GEN_HTTP, GNIO_GEN_ICMP_ECHO, GNIO_GEN_ARP,
};
#define NPROTOS (sizeof(all_protos) / sizeof(all_protos[0]))

static const int expected_class[] = {
	[GNIO_GEN_UDP] = GNIO_PROTO_UDP,      [GNIO_GEN_DNS] = GNIO_PROTO_DNS,
	[GNIO_GEN_TCP_SYN] = GNIO_PROTO_TCP,  [GNIO_GEN_TCP_ACK] = GNIO_PROTO_TCP,
	[GNIO_GEN_TCP_FIN] = GNIO_PROTO_TCP,  [GNIO_GEN_HTTP] = GNIO_PROTO_HTTP,
	[GNIO_GEN_ICMP_ECHO] = GNIO_PROTO_ICMP, [GNIO_GEN_ARP] = GNIO_PROTO_ARP,
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* RFC 1071 the slow way: 32-bit accumulator, fold at the end. A correct
 * checksum makes the folded sum over the covered bytes 0xffff. */
static uint32_t ones_sum(const uint8_t *p, size_t len, uint32_t acc)
{
	while (len > 1) {
		acc += (uint32_t)(p[0] << 8 | p[1]);
		p += 2;
		len -= 2;
	}
	if (len)
		acc += (uint32_t)p[0] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return acc;
}

static void check_ip_and_l4_csums(const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + 14;
	uint32_t tot = be16(ip + 2), l4len = tot - 20, acc = 0;
	uint8_t proto = ip[9];

	assert_int_equal(ip[0], 0x45);
	assert_true(14 + tot <= len);
	assert_int_equal(ones_sum(ip, 20, 0), 0xffff);
	if (proto != 1) { /* pseudo header for UDP and TCP */
		acc = ones_sum(ip + 12, 8, 0) + proto + l4len;
		assert_true(proto == 6 || proto == 17);
	}
	assert_int_equal(ones_sum(ip + 20, l4len, acc), 0xffff);
	if (proto == 17) {
		assert_int_equal(be16(ip + 20 + 4), l4len);
		assert_int_not_equal(be16(ip + 20 + 6), 0); /* checksum present */
	}
}

static void cfg_for(struct gnio_gen_cfg *c, enum gnio_gen_proto p, uint32_t size)
{
	gnio_gen_cfg_init(c);
	c->proto = p;
	c->frame_size = size;
}

/* Per-protocol layout facts on top of the checksums. */
static void check_proto_fields(enum gnio_gen_proto p, const uint8_t *f, uint32_t len, uint64_t seq)
{
	const uint8_t *ip = f + 14, *l4 = f + 34;
	uint32_t tot;

	if (p == GNIO_GEN_ARP) {
		assert_int_equal(be16(f + 12), 0x0806);
		for (int i = 0; i < 6; i++)
			assert_int_equal(f[i], 0xff);
		assert_int_equal(be16(f + 14 + 6), 1); /* who-has */
		assert_int_equal(be32(f + 14 + 14), 0x0a000001);
		assert_int_equal(be32(f + 14 + 24), 0x0a000002);
		return;
	}
	assert_int_equal(be16(f + 12), 0x0800);
	tot = be16(ip + 2);
	assert_int_equal(be16(ip + 4), seq & 0xffff);
	switch (p) {
	case GNIO_GEN_UDP:
		assert_int_equal(14 + tot, len);
		assert_int_equal(be16(l4 + 2), 9000);
		break;
	case GNIO_GEN_DNS: {
		static const uint8_t q[] = { 4, 'g', 'n', 'i', 'o', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1 };
		const uint8_t *d = l4 + 8;

		assert_int_equal(be16(l4 + 2), 53);
		assert_int_equal(be16(d + 2) & 0x8000, 0); /* a query */
		assert_int_equal(be16(d + 4), 1);
		assert_memory_equal(d + 12, q, sizeof(q));
		if (be16(d + 10) == 1) { /* EDNS padding: OPT RR fills the message */
			const uint8_t *o = d + 12 + sizeof(q);

			assert_int_equal(be16(o + 1), 41);
			assert_int_equal(be16(o + 11), 12);
			assert_int_equal(12 + sizeof(q) + 11 + be16(o + 9), be16(l4 + 4) - 8);
		} else {
			assert_int_equal(be16(l4 + 4), 8 + 12 + sizeof(q));
		}
		assert_true(14 + tot <= len - 8);
		break;
	}
	case GNIO_GEN_TCP_SYN:
		assert_int_equal(l4[13], 0x02);
		assert_int_equal(be32(l4 + 8), 0);
		assert_int_equal(tot, 40);
		break;
	case GNIO_GEN_TCP_FIN:
		assert_int_equal(l4[13], 0x11);
		assert_int_equal(tot, 40);
		break;
	case GNIO_GEN_TCP_ACK:
		assert_int_equal(l4[13], 0x10);
		assert_int_equal(14 + tot, len);
		break;
	case GNIO_GEN_HTTP: {
		static const char head[] = "GET / HTTP/1.1\r\nHost: gnio.test\r\n";
		const uint8_t *pl = l4 + 20;
		uint32_t plen = tot - 40;

		assert_int_equal(be16(l4 + 2), 80);
		assert_int_equal(l4[13], 0x18);
		assert_true(plen >= sizeof(head) - 1 + 2);
		assert_memory_equal(pl, head, sizeof(head) - 1);
		assert_memory_equal(pl + plen - 4, "\r\n\r\n", 4);
		/* one header block, nothing after it */
		for (uint32_t i = 0; i + 4 < plen; i++)
			assert_false(!memcmp(pl + i, "\r\n\r\n", 4));
		break;
	}
	case GNIO_GEN_ICMP_ECHO:
		assert_int_equal(l4[0], 8);
		assert_int_equal(l4[1], 0);
		assert_int_equal(be16(l4 + 6), seq & 0xffff);
		assert_int_equal(14 + tot, len);
		break;
	default:
		fail();
	}
	if (ip[9] == 6) {
		assert_int_equal(l4[12] >> 4, 5);
		assert_int_not_equal(be16(l4 + 14), 0); /* window */
		if (l4[13] & 0x10)
			assert_int_not_equal(be32(l4 + 8), 0); /* ack number */
	}
}

static void test_every_proto_valid(void **state)
{
	static const uint32_t sizes[] = { 0 /* min */, 64, 99, 101, 128, 1500, 1501, 9216 };
	uint8_t *f = malloc(GNIO_GEN_MAX_FRAME);

	(void)state;
	for (size_t pi = 0; pi < NPROTOS; pi++) {
		enum gnio_gen_proto p = all_protos[pi];

		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			uint32_t size = sizes[si] ? sizes[si] : gnio_gen_min_frame(p);
			struct gnio_gen_cfg c;
			char why[128];

			if (size < gnio_gen_min_frame(p))
				continue;
			cfg_for(&c, p, size);
			assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_SUCCESS);
			for (uint64_t seq = 0; seq < 40; seq += 7) {
				uint64_t got = ~0ull;

				assert_int_equal(gnio_gen_build(&c, seq, f, GNIO_GEN_MAX_FRAME), size);
				if (p != GNIO_GEN_ARP)
					check_ip_and_l4_csums(f, size);
				check_proto_fields(p, f, size, seq);
				assert_int_equal(gnio_classify(f, size), expected_class[p]);
				assert_int_equal(gnio_gen_stamp_read(f, size, &got), GNIO_SUCCESS);
				assert_int_equal(got, seq);
				got = ~0ull;
				assert_int_equal(gnio_gen_verify(&c, f, size, &got), GNIO_SUCCESS);
				assert_int_equal(got, seq);
			}
		}
	}
	free(f);
}

/* Any single changed byte is caught: either the stamp no longer reads, or
 * the rebuilt frame differs. */
static void test_verify_detects_flip(void **state)
{
	uint8_t f[512];

	(void)state;
	for (size_t pi = 0; pi < NPROTOS; pi++) {
		struct gnio_gen_cfg c;
		uint32_t size = 200;

		cfg_for(&c, all_protos[pi], size);
		assert_int_equal(gnio_gen_build(&c, 12345, f, sizeof(f)), size);
		for (uint32_t i = 0; i < size; i++) {
			uint64_t got = 12345;
			gnio_error_t err;

			/* A flip in the stamp's seq bits can name another valid
			 * frame; then verify must at least report that seq. */
			f[i] ^= 0x20;
			err = gnio_gen_verify(&c, f, size, &got);
			assert_true(err == GNIO_ERROR_UNEXPECTED || err == GNIO_ERROR_NOT_FOUND ||
				    (err == GNIO_SUCCESS && got != 12345));
			if (i < size - 6) /* below the stamp's upper seq bits */
				assert_int_not_equal(err, GNIO_SUCCESS);
			f[i] ^= 0x20;
		}
		assert_int_equal(gnio_gen_verify(&c, f, size, NULL), GNIO_SUCCESS);
		/* wrong length */
		assert_int_equal(gnio_gen_verify(&c, f + 1, size - 1, NULL), GNIO_ERROR_UNEXPECTED);
	}
}

static void test_size_limits(void **state)
{
	struct gnio_gen_cfg c;
	char why[128];
	uint8_t f[128];

	(void)state;
	cfg_for(&c, GNIO_GEN_UDP, 1);
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);
	assert_string_equal(why, "size 1 is below the Ethernet minimum of 60 bytes");
	assert_int_equal(gnio_gen_build(&c, 0, f, sizeof(f)), 0);

	c.frame_size = 100000;
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);
	assert_string_equal(why, "size 100000 exceeds the maximum frame size of 9216 bytes");

	c.frame_size = 59;
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);
	c.frame_size = 60;
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_SUCCESS);
	c.frame_size = 9216;
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_SUCCESS);
	c.frame_size = 9217;
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);

	/* A protocol's own minimum: one byte less is refused with both numbers. */
	for (size_t pi = 0; pi <= NPROTOS; pi++) {
		enum gnio_gen_proto p = pi < NPROTOS ? all_protos[pi] : GNIO_GEN_MIX;
		uint32_t min = gnio_gen_min_frame(p);
		char expect[128];

		assert_true(min >= GNIO_GEN_MIN_FRAME);
		cfg_for(&c, p, min);
		assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_SUCCESS);
		if (min == GNIO_GEN_MIN_FRAME)
			continue;
		c.frame_size = min - 1;
		assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);
		snprintf(expect, sizeof(expect), "size %u is below the minimum of %u bytes for %s frames",
			 min - 1, min, gnio_gen_proto_name(p));
		assert_string_equal(why, expect);
		assert_int_equal(gnio_gen_build(&c, 0, f, sizeof(f)), 0);
	}
	/* MIX needs room for its largest member (HTTP). */
	assert_int_equal(gnio_gen_min_frame(GNIO_GEN_MIX), gnio_gen_min_frame(GNIO_GEN_HTTP));
	assert_true(gnio_gen_min_frame(GNIO_GEN_HTTP) > 64);

	/* cap too small */
	cfg_for(&c, GNIO_GEN_UDP, 100);
	assert_int_equal(gnio_gen_build(&c, 0, f, 99), 0);
	assert_int_equal(gnio_gen_build(&c, 0, f, 100), 100);

	/* struct_size guards against an uninitialized config */
	cfg_for(&c, GNIO_GEN_UDP, 64);
	c.struct_size = 4;
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);
	cfg_for(&c, GNIO_GEN_UDP, 64);
	c.flows = 70000;
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(why, "70000"));
	cfg_for(&c, GNIO_GEN_UDP, 64);
	c.proto = GNIO_GEN_PROTO_COUNT;
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(gnio_gen_cfg_check(NULL, why, sizeof(why)), GNIO_ERROR_INVALID_VALUE);
}

static void test_determinism(void **state)
{
	uint8_t a[1600], b[1600];
	struct gnio_gen_cfg c;

	(void)state;
	for (size_t pi = 0; pi < NPROTOS; pi++) {
		cfg_for(&c, all_protos[pi], 1000);
		assert_int_equal(gnio_gen_build(&c, 77, a, sizeof(a)), 1000);
		memset(b, 0xa5, sizeof(b));
		assert_int_equal(gnio_gen_build(&c, 77, b, sizeof(b)), 1000);
		assert_memory_equal(a, b, 1000);
		/* a different seq gives different bytes */
		assert_int_equal(gnio_gen_build(&c, 78, b, sizeof(b)), 1000);
		assert_memory_not_equal(a, b, 1000);
	}
}

/* The template path must give the reference builder's bytes exactly. */
static void test_fast_fill_equals_build(void **state)
{
	/* 60-65: the small frames the sw wire makes most, odd and even, where
	 * the stamp falls on and off the checksum's word grid */
	static const uint32_t sizes[] = { 60, 61, 64, 65, 97, 98, 99, 100, 101, 333, 1514, 9215, 9216 };
	static const uint32_t flows[] = { 1, 3, 4 };
	uint8_t *a = malloc(GNIO_GEN_MAX_FRAME), *b = malloc(GNIO_GEN_MAX_FRAME);

	(void)state;
	for (size_t pi = 0; pi <= NPROTOS; pi++) {
		enum gnio_gen_proto p = pi < NPROTOS ? all_protos[pi] : GNIO_GEN_MIX;

		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			for (size_t fi = 0; fi < 3; fi++) {
				struct gnio_gen_cfg c;
				struct gnio_gen *g;

				if (sizes[si] < gnio_gen_min_frame(p))
					continue;
				cfg_for(&c, p, sizes[si]);
				c.flows = flows[fi];
				c.src_port = 65534; /* port wraps past 65535 */
				assert_int_equal(gnio_gen_init(&c, &g), GNIO_SUCCESS);
				assert_int_equal(gnio_gen_get_cfg(g)->frame_size, sizes[si]);
				for (uint64_t seq = 0; seq < 64; seq++) {
					uint64_t s = seq < 32 ? seq : seq * 0x9e3779b97f4a7c15ull >> 16;

					assert_int_equal(gnio_gen_build(&c, s, a, GNIO_GEN_MAX_FRAME), sizes[si]);
					memset(b, 0x5a, sizes[si]);
					assert_int_equal(gnio_gen_fill(g, s, b, GNIO_GEN_MAX_FRAME), sizes[si]);
					assert_memory_equal(a, b, sizes[si]);
				}
				assert_int_equal(gnio_gen_fill(g, 0, b, sizes[si] - 1), 0);
				gnio_gen_free(g);
			}
		}
	}
	free(a);
	free(b);

	struct gnio_gen_cfg bad;
	struct gnio_gen *g = (struct gnio_gen *)&bad;

	cfg_for(&bad, GNIO_GEN_UDP, 1);
	assert_int_equal(gnio_gen_init(&bad, &g), GNIO_ERROR_INVALID_VALUE);
	assert_null(g);
}

/* UDP sends a computed checksum of 0 as 0xffff (0 means "none"). */
static void test_udp_zero_checksum(void **state)
{
	uint8_t a[64], b[64];
	struct gnio_gen_cfg c;
	struct gnio_gen *g;
	unsigned hits = 0;

	(void)state;
	cfg_for(&c, GNIO_GEN_UDP, 64);
	assert_int_equal(gnio_gen_init(&c, &g), GNIO_SUCCESS);
	for (uint64_t seq = 0; seq < (1u << 18); seq++) {
		gnio_gen_fill(g, seq, a, sizeof(a));
		assert_int_not_equal(be16(a + 40), 0);
		if (be16(a + 40) == 0xffff) {
			hits++;
			check_ip_and_l4_csums(a, 64);
			gnio_gen_build(&c, seq, b, sizeof(b));
			assert_memory_equal(a, b, 64);
		}
	}
	assert_true(hits > 0);
	gnio_gen_free(g);
}

static void test_flows(void **state)
{
	uint8_t f[256];

	(void)state;
	for (uint32_t flows = 1; flows <= 5; flows++) {
		struct gnio_gen_cfg c;

		cfg_for(&c, GNIO_GEN_UDP, 128);
		c.flows = flows;
		for (uint64_t seq = 0; seq < 20; seq++) {
			assert_int_equal(gnio_gen_build(&c, seq, f, sizeof(f)), 128);
			assert_int_equal(be16(f + 34), 1024 + seq % flows);
			assert_int_equal(gnio_gen_verify(&c, f, 128, NULL), GNIO_SUCCESS);
		}
		cfg_for(&c, GNIO_GEN_ICMP_ECHO, 128);
		c.flows = flows;
		for (uint64_t seq = 0; seq < 20; seq++) {
			assert_int_equal(gnio_gen_build(&c, seq, f, sizeof(f)), 128);
			assert_int_equal(be16(f + 38), 1024 + seq % flows); /* echo id */
		}
		cfg_for(&c, GNIO_GEN_TCP_SYN, 128);
		c.flows = flows;
		for (uint64_t seq = 0; seq < 20; seq++) {
			assert_int_equal(gnio_gen_build(&c, seq, f, sizeof(f)), 128);
			assert_int_equal(be16(f + 34), 1024 + seq % flows);
		}
	}
}

/* TCP data segments advance the sequence number by their payload length. */
static void test_tcp_sequence(void **state)
{
	uint8_t a[512], b[512];
	struct gnio_gen_cfg c;

	(void)state;
	cfg_for(&c, GNIO_GEN_TCP_ACK, 300);
	gnio_gen_build(&c, 5, a, sizeof(a));
	gnio_gen_build(&c, 6, b, sizeof(b));
	assert_int_equal(be32(b + 38) - be32(a + 38), 300 - 54);
	cfg_for(&c, GNIO_GEN_TCP_SYN, 64);
	gnio_gen_build(&c, 5, a, sizeof(a));
	gnio_gen_build(&c, 6, b, sizeof(b));
	assert_int_equal(be32(b + 38) - be32(a + 38), 1);
}

static void test_mix_cycles(void **state)
{
	uint8_t f[256];
	struct gnio_gen_cfg c;
	int seen[GNIO_PROTO_COUNT] = { 0 };

	(void)state;
	cfg_for(&c, GNIO_GEN_MIX, 200);
	for (uint64_t seq = 0; seq < 16; seq++) {
		uint64_t got;

		assert_int_equal(gnio_gen_build(&c, seq, f, sizeof(f)), 200);
		assert_int_equal(gnio_classify(f, 200), expected_class[all_protos[seq % NPROTOS]]);
		seen[gnio_classify(f, 200)]++;
		assert_int_equal(gnio_gen_verify(&c, f, 200, &got), GNIO_SUCCESS);
		assert_int_equal(got, seq);
	}
	assert_int_equal(seen[GNIO_PROTO_TCP], 6);
	assert_int_equal(seen[GNIO_PROTO_ARP], 2);
	assert_int_equal(seen[GNIO_PROTO_HTTP], 2);
}

static void test_stamp(void **state)
{
	uint8_t f[128] = { 0 };
	struct gnio_gen_cfg c;
	uint64_t seq = 0;

	(void)state;
	assert_int_equal(gnio_gen_stamp_read(f, sizeof(f), &seq), GNIO_ERROR_NOT_FOUND);
	assert_int_equal(gnio_gen_verify(NULL, f, sizeof(f), &seq), GNIO_ERROR_INVALID_VALUE);
	cfg_for(&c, GNIO_GEN_UDP, 64);
	assert_int_equal(gnio_gen_verify(&c, f, 64, &seq), GNIO_ERROR_NOT_FOUND);
	assert_int_equal(gnio_gen_stamp_read(f, 4, &seq), GNIO_ERROR_NOT_FOUND);

	/* 48-bit stamp; verify restores the upper bits from first_seq */
	c.first_seq = (5ull << 48) + 1000;
	for (uint64_t s = c.first_seq; s < c.first_seq + 3; s++) {
		uint64_t got = 0;

		assert_int_equal(gnio_gen_build(&c, s, f, sizeof(f)), 64);
		assert_int_equal(gnio_gen_stamp_read(f, 64, &got), GNIO_SUCCESS);
		assert_int_equal(got, s & ((1ull << 48) - 1));
		assert_int_equal(gnio_gen_verify(&c, f, 64, &got), GNIO_SUCCESS);
		assert_int_equal(got, s);
	}
	/* the stamp is the last 8 bytes of every kind of frame */
	for (size_t pi = 0; pi < NPROTOS; pi++) {
		uint64_t got;

		cfg_for(&c, all_protos[pi], 120);
		assert_int_equal(gnio_gen_build(&c, 0xabcdef, f, sizeof(f)), 120);
		memset(f, 0, 112);
		assert_int_equal(gnio_gen_stamp_read(f, 120, &got), GNIO_SUCCESS);
		assert_int_equal(got, 0xabcdef);
	}
}

static void test_names_and_defaults(void **state)
{
	struct gnio_gen_cfg c;
	enum gnio_gen_proto p;
	char why[128];

	(void)state;
	for (unsigned i = 0; i < GNIO_GEN_PROTO_COUNT; i++) {
		assert_int_equal(gnio_gen_proto_parse(gnio_gen_proto_name((enum gnio_gen_proto)i), &p),
				 GNIO_SUCCESS);
		assert_int_equal(p, i);
	}
	assert_string_equal(gnio_gen_proto_name(GNIO_GEN_ICMP_ECHO), "icmp");
	assert_string_equal(gnio_gen_proto_name(GNIO_GEN_TCP_FIN), "tcp-fin");
	assert_int_equal(gnio_gen_proto_parse("tcp", &p), GNIO_SUCCESS);
	assert_int_equal(p, GNIO_GEN_TCP_SYN);
	assert_int_equal(gnio_gen_proto_parse("bogus", &p), GNIO_ERROR_INVALID_VALUE);

	gnio_gen_cfg_init(&c);
	assert_int_equal(c.struct_size, sizeof(c));
	assert_int_equal(c.proto, GNIO_GEN_UDP);
	assert_int_equal(c.frame_size, 64);
	assert_int_equal(c.count, 0);
	assert_int_equal(c.rate_pps, 0);
	assert_int_equal(c.src_ip, 0x0a000001);
	assert_int_equal(c.dst_ip, 0x0a000002);
	assert_int_equal(c.src_port, 1024);
	assert_int_equal(c.dst_port, 9000);
	assert_int_equal(gnio_gen_cfg_check(&c, why, sizeof(why)), GNIO_SUCCESS);
	assert_string_equal(why, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_proto_valid),
		cmocka_unit_test(test_verify_detects_flip),
		cmocka_unit_test(test_size_limits),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_fast_fill_equals_build),
		cmocka_unit_test(test_udp_zero_checksum),
		cmocka_unit_test(test_flows),
		cmocka_unit_test(test_tcp_sequence),
		cmocka_unit_test(test_mix_cycles),
		cmocka_unit_test(test_stamp),
		cmocka_unit_test(test_names_and_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
