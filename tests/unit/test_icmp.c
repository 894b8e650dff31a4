/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_icmp.c - gnio/apps/icmp.h: the checksum helpers against a
 * plain RFC 1071 sum written here, and gnio_icmp_echo_reply_in_place on
 * frames built here byte by byte: replies whose IPv4 header and ICMP
 * checksums verify, odd lengths, IP options, Ethernet padding, VLAN tags;
 * malformed or short frames and ICMP that is not an echo request refused
 * with the frame untouched. Short frames live in buffers of exactly their
 * length, so the sanitizer build catches a read past the end.
 */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "gnio/apps/icmp.h"

/* ------------------------------------------------------------ reference -- */

/* RFC 1071: ones'-complement sum of big-endian 16-bit words, an odd last
 * byte padded with zero, carries folded in. */
static uint16_t ref_sum(const uint8_t *p, size_t len)
{
	uint64_t s = 0;
	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* A region carrying its own correct checksum sums to 0xffff. */
static int ref_verifies(const uint8_t *p, size_t len)
{
	return ref_sum(p, len) == 0xffff;
}

/* The checksum to store for a region whose checksum field holds zero. */
static uint16_t ref_csum(const uint8_t *p, size_t len)
{
	return (uint16_t)~ref_sum(p, len);
}

static uint32_t rnd_state = 0x12345678u;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* --------------------------------------------------------- frame builder -- */

struct fspec {
	int vlan;           /* 0: none; else the TPID (0x8100, 0x88a8) */
	int qinq;           /* a second 0x8100 tag after the first */
	uint16_t ethertype; /* 0: 0x0800 */
	uint8_t version;    /* 0: 4 */
	uint8_t ihl_words;  /* 0: 5 */
	uint8_t proto;      /* 0: ICMP (1) */
	uint16_t frag;      /* flags + fragment offset word */
	uint8_t type, code; /* ICMP; type 8 unless set with set_type */
	int set_type;
	uint16_t id, seq;
	uint32_t payload;   /* ICMP data bytes */
	uint32_t pad;       /* Ethernet padding after the IP packet */
	int32_t tot_adjust; /* added to the IPv4 total length field */
	int zero_payload;
};

static const uint8_t MAC_A[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0a};
static const uint8_t MAC_B[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0b};
static const uint8_t IP_A[4] = {192, 0, 2, 1};
static const uint8_t IP_B[4] = {192, 0, 2, 77};

/* Build into f (cap bytes); returns the frame length and the IPv4 offset. */
static uint32_t build(const struct fspec *s, uint8_t *f, uint32_t cap, uint32_t *l3_out)
{
	uint32_t off = 12;
	const uint32_t ihl = (s->ihl_words ? s->ihl_words : 5u) * 4u;
	const uint32_t icmp_len = 8 + s->payload;
	const uint32_t tot = ihl + icmp_len;
	memset(f, 0, cap);
	memcpy(f, MAC_B, 6); /* to the responder */
	memcpy(f + 6, MAC_A, 6);
	if (s->vlan) {
		f[off] = (uint8_t)(s->vlan >> 8);
		f[off + 1] = (uint8_t)s->vlan;
		f[off + 2] = 0x20; /* PCP 1 */
		f[off + 3] = 42;   /* VLAN 42 */
		off += 4;
		if (s->qinq) {
			f[off] = 0x81;
			f[off + 1] = 0x00;
			f[off + 3] = 7;
			off += 4;
		}
	}
	const uint16_t et = s->ethertype ? s->ethertype : 0x0800;
	f[off] = (uint8_t)(et >> 8);
	f[off + 1] = (uint8_t)et;
	const uint32_t l3 = off + 2;
	uint8_t *ip = f + l3;
	ip[0] = (uint8_t)((s->version ? s->version : 4) << 4 | (ihl / 4));
	const uint32_t tot_field = (uint32_t)((int32_t)tot + s->tot_adjust);
	ip[2] = (uint8_t)(tot_field >> 8);
	ip[3] = (uint8_t)tot_field;
	ip[4] = 0x12;
	ip[5] = 0x34;
	ip[6] = (uint8_t)(s->frag >> 8);
	ip[7] = (uint8_t)s->frag;
	ip[8] = 64;
	ip[9] = s->proto ? s->proto : 1;
	memcpy(ip + 12, IP_A, 4);
	memcpy(ip + 16, IP_B, 4);
	for (uint32_t i = 20; i < ihl; i++) /* options: NOPs, then end of list */
		ip[i] = i + 1 < ihl ? 1 : 0;
	const uint16_t hc = ref_csum(ip, ihl);
	ip[10] = (uint8_t)(hc >> 8);
	ip[11] = (uint8_t)hc;
	uint8_t *ic = ip + ihl;
	ic[0] = s->set_type ? s->type : 8;
	ic[1] = s->code;
	ic[4] = (uint8_t)(s->id >> 8);
	ic[5] = (uint8_t)s->id;
	ic[6] = (uint8_t)(s->seq >> 8);
	ic[7] = (uint8_t)s->seq;
	for (uint32_t i = 0; i < s->payload; i++)
		ic[8 + i] = s->zero_payload ? 0 : (uint8_t)(rnd() >> 7);
	const uint16_t cc = ref_csum(ic, icmp_len);
	ic[2] = (uint8_t)(cc >> 8);
	ic[3] = (uint8_t)cc;
	const uint32_t len = l3 + tot + s->pad;
	for (uint32_t i = l3 + tot; i < len; i++)
		f[i] = 0xa5; /* padding a NIC would strip or keep */
	assert_true(len <= cap);
	if (l3_out)
		*l3_out = l3;
	return len;
}

/* f is the reply to q (both len bytes, l3 the IPv4 offset): addresses
 * swapped, type 0, everything else as it was; both checksums verify and
 * the ICMP one equals a full recomputation. */
static void check_reply(const uint8_t *q, const uint8_t *f, uint32_t len, uint32_t l3, uint32_t reply_len)
{
	const uint8_t *qip = q + l3, *ip = f + l3;
	const uint32_t ihl = (uint32_t)(qip[0] & 0x0f) * 4;
	const uint32_t tot = (uint32_t)qip[2] << 8 | qip[3];
	assert_int_equal(reply_len, l3 + tot);
	assert_memory_equal(f, q + 6, 6);
	assert_memory_equal(f + 6, q, 6);
	assert_memory_equal(f + 12, q + 12, l3 - 12);
	assert_memory_equal(ip, qip, 12);
	assert_memory_equal(ip + 12, qip + 16, 4);
	assert_memory_equal(ip + 16, qip + 12, 4);
	assert_memory_equal(ip + 20, qip + 20, ihl - 20);
	assert_true(ref_verifies(ip, ihl));
	const uint8_t *ic = ip + ihl, *qic = qip + ihl;
	const uint32_t icmp_len = tot - ihl;
	assert_int_equal(ic[0], 0);
	assert_int_equal(ic[1], qic[1]);
	assert_memory_equal(ic + 4, qic + 4, icmp_len - 4);
	assert_true(ref_verifies(ic, icmp_len));
	uint8_t tmp[2048];
	assert_true(icmp_len <= sizeof(tmp));
	memcpy(tmp, ic, icmp_len);
	tmp[2] = tmp[3] = 0;
	assert_int_equal((uint32_t)ic[2] << 8 | ic[3], ref_csum(tmp, icmp_len));
	/* nothing after the IP packet changed (padding) */
	if (len > l3 + tot)
		assert_memory_equal(f + l3 + tot, q + l3 + tot, len - l3 - tot);
}

/* Answer the request of spec s and check the reply. */
static void answer(const struct fspec *s)
{
	uint8_t q[2048], f[2048];
	uint32_t l3;
	const uint32_t len = build(s, q, sizeof(q), &l3);
	memcpy(f, q, sizeof(f));
	const uint32_t r = gnio_icmp_echo_reply_in_place(f, len, 0);
	assert_int_not_equal(r, 0);
	check_reply(q, f, len, l3, r);
	assert_memory_equal(f + len, q + len, sizeof(f) - len); /* nothing past the frame */
}

/* The frame of spec s (possibly cut to cut_len bytes) is refused, and no
 * byte changes. The frame sits in a buffer of exactly its length. */
static void refuse(const struct fspec *s, uint32_t cut_len, uint32_t ip_be)
{
	uint8_t q[2048];
	uint32_t len = build(s, q, sizeof(q), NULL);
	if (cut_len)
		len = cut_len;
	uint8_t *f = malloc(len ? len : 1);
	assert_non_null(f);
	memcpy(f, q, len);
	assert_int_equal(gnio_icmp_echo_reply_in_place(f, len, ip_be), 0);
	assert_memory_equal(f, q, len);
	free(f);
}

/* ------------------------------------------------------------ checksums -- */

static void test_csum_rfc1071_example(void **state)
{
	(void)state;
	/* The worked example of RFC 1071 section 3: these eight bytes sum to
	 * 0xddf2; the checksum is its complement. */
	static const uint8_t b[8] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
	assert_int_equal(ref_sum(b, 8), 0xddf2);
	assert_int_equal(gnio_csum_fold(gnio_csum_add(0, b, 8)), (uint16_t)~0xddf2);
	/* Empty and one-byte regions. */
	assert_int_equal(gnio_csum_fold(gnio_csum_add(0, b, 0)), 0xffff);
	assert_int_equal(gnio_csum_fold(gnio_csum_add(0, b + 2, 1)), (uint16_t)~0xf200);
}

static void test_csum_matches_reference(void **state)
{
	(void)state;
	uint8_t buf[1600];
	for (int round = 0; round < 400; round++) {
		const uint32_t len = rnd() % sizeof(buf);
		for (uint32_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rnd();
		/* odd and even lengths alike */
		assert_int_equal(gnio_csum_fold(gnio_csum_add(0, buf, len)), ref_csum(buf, len));
		/* a sum carried across regions split at an even offset */
		const uint32_t cut = (len / 2) & ~1u;
		uint32_t s = gnio_csum_add(0, buf, cut);
		s = gnio_csum_add(s, buf + cut, len - cut);
		assert_int_equal(gnio_csum_fold(s), ref_csum(buf, len));
		/* storing the checksum makes the region verify */
		if (len >= 4) {
			buf[2] = buf[3] = 0;
			const uint16_t c = gnio_csum_fold(gnio_csum_add(0, buf, len));
			buf[2] = (uint8_t)(c >> 8);
			buf[3] = (uint8_t)c;
			assert_true(ref_verifies(buf, len));
		}
	}
}

static void test_csum_large_region(void **state)
{
	(void)state;
	/* The largest IPv4 packet of 0xff bytes: the 32-bit running sum must
	 * not overflow before the fold. */
	const uint32_t len = 65535;
	uint8_t *b = malloc(len);
	assert_non_null(b);
	memset(b, 0xff, len);
	assert_int_equal(gnio_csum_fold(gnio_csum_add(0, b, len)), ref_csum(b, len));
	free(b);
}

static void test_ipv4_offset(void **state)
{
	(void)state;
	uint8_t f[128];
	struct fspec s;
	memset(&s, 0, sizeof(s));
	uint32_t l3;
	uint32_t len = build(&s, f, sizeof(f), &l3);
	assert_int_equal(gnio_ipv4_offset(f, len), 14);
	s.vlan = 0x8100;
	len = build(&s, f, sizeof(f), &l3);
	assert_int_equal(gnio_ipv4_offset(f, len), 18);
	s.vlan = 0x88a8;
	len = build(&s, f, sizeof(f), &l3);
	assert_int_equal(gnio_ipv4_offset(f, len), 18);
	assert_int_equal(gnio_ipv4_offset(f, 17), 0); /* the tag's ethertype is cut */
	assert_int_equal(gnio_ipv4_offset(f, 13), 0);
	s.vlan = 0;
	s.ethertype = 0x86dd;
	len = build(&s, f, sizeof(f), &l3);
	assert_int_equal(gnio_ipv4_offset(f, len), 0);
}

/* ---------------------------------------------------------------- echo -- */

static void test_echo_reply_sizes(void **state)
{
	(void)state;
	struct fspec s;
	memset(&s, 0, sizeof(s));
	/* Every payload length from none to 300 bytes (odd ICMP lengths
	 * included), random identifiers and sequence numbers, then a few
	 * large ones. */
	for (uint32_t p = 0; p <= 300; p++) {
		s.payload = p;
		s.id = (uint16_t)rnd();
		s.seq = (uint16_t)rnd();
		answer(&s);
	}
	const uint32_t big[] = {1400, 1471, 1472, 1473, 1480};
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		s.payload = big[i];
		answer(&s);
	}
}

static void test_echo_reply_options_padding_vlan(void **state)
{
	(void)state;
	struct fspec s;
	for (uint8_t w = 5; w <= 15; w++) { /* IP options up to the 60-byte header */
		memset(&s, 0, sizeof(s));
		s.ihl_words = w;
		s.payload = 17 + w;
		answer(&s);
	}
	memset(&s, 0, sizeof(s));
	s.payload = 2;
	s.pad = 12; /* a short echo padded to the Ethernet minimum */
	answer(&s);
	s.vlan = 0x8100;
	s.payload = 33;
	s.pad = 0;
	answer(&s);
	s.vlan = 0x88a8;
	s.pad = 5;
	answer(&s);
}

/* The incremental update must give what a full recomputation gives, also
 * where the new checksum is zero, and where the reply's words are all zero
 * (its sum is +0, so its checksum is 0xffff, not 0x0000). */
static void test_echo_reply_checksum_edges(void **state)
{
	(void)state;
	struct fspec s;
	memset(&s, 0, sizeof(s));
	/* reply words sum to 0xffff: checksum 0x0000 */
	s.id = 0xffff;
	s.seq = 0;
	s.payload = 0;
	answer(&s);
	s.id = 0xfffe;
	s.seq = 0x0001;
	s.payload = 6;
	s.zero_payload = 1;
	answer(&s);
	/* reply words all zero: checksum 0xffff */
	s.id = 0;
	s.seq = 0;
	s.payload = 0;
	answer(&s);
	s.payload = 5;
	answer(&s);
	/* many random ones */
	s.zero_payload = 0;
	for (int i = 0; i < 2000; i++) {
		s.id = (uint16_t)rnd();
		s.seq = (uint16_t)rnd();
		s.payload = rnd() % 64;
		answer(&s);
	}
}

static void test_echo_address_filter(void **state)
{
	(void)state;
	struct fspec s;
	memset(&s, 0, sizeof(s));
	s.payload = 24;
	uint8_t q[256], f[256];
	uint32_t l3;
	const uint32_t len = build(&s, q, sizeof(q), &l3);
	uint32_t mine, other;
	memcpy(&mine, IP_B, 4); /* network byte order, as in the header */
	memcpy(&other, IP_A, 4);
	refuse(&s, 0, other);
	memcpy(f, q, len);
	const uint32_t r = gnio_icmp_echo_reply_in_place(f, len, mine);
	assert_int_equal(r, len);
	check_reply(q, f, len, l3, r);
}

static void test_echo_refuses_malformed(void **state)
{
	(void)state;
	struct fspec s;
	uint8_t q[256];

	/* Cut short anywhere before the end of the IP packet. */
	memset(&s, 0, sizeof(s));
	s.payload = 20;
	const uint32_t full = build(&s, q, sizeof(q), NULL);
	for (uint32_t cut = 1; cut < full; cut++)
		refuse(&s, cut, 0);
	s.vlan = 0x8100;
	const uint32_t vfull = build(&s, q, sizeof(q), NULL);
	for (uint32_t cut = 1; cut < vfull; cut++)
		refuse(&s, cut, 0);

	/* Not IPv4, or an IPv4 header that cannot be. */
	memset(&s, 0, sizeof(s));
	s.payload = 8;
	s.ethertype = 0x0806; /* ARP */
	refuse(&s, 0, 0);
	s.ethertype = 0x86dd; /* IPv6 */
	refuse(&s, 0, 0);
	s.ethertype = 0;
	s.version = 6; /* version 6 under the IPv4 ethertype */
	refuse(&s, 0, 0);
	s.version = 0;
	for (uint8_t w = 0; w < 5; w++) { /* header length below 20 bytes */
		s.ihl_words = w ? w : 1;
		refuse(&s, 0, 0);
	}
	s.ihl_words = 0;
	s.tot_adjust = 1; /* total length past the end of the frame */
	refuse(&s, 0, 0);
	s.tot_adjust = -(int32_t)(8 + s.payload) + 7; /* too short for an ICMP header */
	refuse(&s, 0, 0);
	s.tot_adjust = 0;
	/* Two VLAN tags: only one is looked through. */
	s.vlan = 0x88a8;
	s.qinq = 1;
	refuse(&s, 0, 0);
}

static void test_echo_leaves_other_traffic(void **state)
{
	(void)state;
	struct fspec s;
	memset(&s, 0, sizeof(s));
	s.payload = 16;
	s.proto = 17; /* UDP */
	refuse(&s, 0, 0);
	s.proto = 6; /* TCP */
	refuse(&s, 0, 0);
	s.proto = 0;
	/* Fragments: more-fragments set, or an offset. */
	s.frag = 0x2000;
	refuse(&s, 0, 0);
	s.frag = 0x0001;
	refuse(&s, 0, 0);
	s.frag = 0x4000; /* don't-fragment alone is fine */
	answer(&s);
	s.frag = 0;
	/* ICMP that is not an echo request. */
	static const uint8_t types[][2] = {{0, 0}, {3, 1}, {5, 0}, {8, 1}, {11, 0}, {13, 0}, {14, 0}, {128, 0}};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		s.set_type = 1;
		s.type = types[i][0];
		s.code = types[i][1];
		refuse(&s, 0, 0);
	}
}

/* A reply answered again is no request: the second call refuses it. */
static void test_echo_once(void **state)
{
	(void)state;
	struct fspec s;
	memset(&s, 0, sizeof(s));
	s.payload = 40;
	uint8_t f[256], g[256];
	uint32_t l3;
	const uint32_t len = build(&s, f, sizeof(f), &l3);
	assert_int_equal(gnio_icmp_echo_reply_in_place(f, len, 0), len);
	memcpy(g, f, len);
	assert_int_equal(gnio_icmp_echo_reply_in_place(f, len, 0), 0);
	assert_memory_equal(f, g, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum_rfc1071_example),
		cmocka_unit_test(test_csum_matches_reference),
		cmocka_unit_test(test_csum_large_region),
		cmocka_unit_test(test_ipv4_offset),
		cmocka_unit_test(test_echo_reply_sizes),
		cmocka_unit_test(test_echo_reply_options_padding_vlan),
		cmocka_unit_test(test_echo_reply_checksum_edges),
		cmocka_unit_test(test_echo_address_filter),
		cmocka_unit_test(test_echo_refuses_malformed),
		cmocka_unit_test(test_echo_leaves_other_traffic),
		cmocka_unit_test(test_echo_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
