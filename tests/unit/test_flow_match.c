/* SPDX-License-Identifier: MIT */
/*
 * test_flow_match.c - what each match field matches and what it does not
 * (IPv4 and IPv6, VLAN, prefixes, port ranges), first match wins, the
 * default, rule ids, queues and hit counts in the results; then hostile
 * frames (runts, truncated and lying headers, IHL < 5, QinQ, IPv6 extension
 * headers, fragments), each placed so that its last byte is the last byte
 * before an unmapped page: a read past len faults.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"
#include "flow_frames.h"
#include "gnio/flow.h"

/* ---------------------------------------------------- guarded frames -- */

static uint8_t *guard_area;
static size_t page;

/* Copy the frame so that it ends right before a PROT_NONE page. */
static const uint8_t *guarded(const uint8_t *f, uint32_t len)
{
	uint8_t *dst = guard_area + page - len;

	assert_true(len <= page);
	memcpy(dst, f, len);
	return dst;
}

static int setup(void **state)
{
	(void)state;
	page = (size_t)sysconf(_SC_PAGESIZE);
	guard_area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(guard_area != MAP_FAILED);
	assert_int_equal(mprotect(guard_area + page, page, PROT_NONE), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(guard_area, 2 * page);
	return 0;
}

/* ------------------------------------------------------------ helpers -- */

struct fx {
	struct gnio_flow *flow;
	struct gnio_flow_reader *rd;
	uint32_t ids[16];
	unsigned n;
};

/* A flow from rules text (one rule per line) and a reader on queue 9. */
static void fx_up(struct fx *x, const char *rules)
{
	uint32_t n;

	memset(x, 0, sizeof(*x));
	assert_ok(gnio_flow_create(NULL, &x->flow));
	assert_ok(gnio_flow_load_string(x->flow, rules, "rules"));
	assert_ok(gnio_flow_get_rule_count(x->flow, &n));
	for (uint32_t i = 0; i < n; i++)
		assert_ok(gnio_flow_get_rule(x->flow, i, &x->ids[i], NULL));
	x->n = n;
	assert_ok(gnio_flow_reader_create(x->flow, 9, &x->rd));
}

static void fx_down(struct fx *x)
{
	assert_ok(gnio_flow_reader_destroy(x->rd));
	assert_ok(gnio_flow_destroy(x->flow));
}

/* Index of the rule that took the frame (-1 = default). */
static int classify_raw(struct fx *x, const uint8_t *f, uint32_t len, struct gnio_flow_result *out)
{
	struct gnio_flow_frame fr = {guarded(f, len), len};
	struct gnio_flow_result r;

	gnio_flow_classify(x->rd, &fr, 1, &r);
	if (out)
		*out = r;
	if (r.rule_id == GNIO_FLOW_RULE_DEFAULT)
		return -1;
	for (unsigned i = 0; i < x->n; i++)
		if (x->ids[i] == r.rule_id)
			return (int)i;
	fail_msg("result names rule id %u, which the flow does not have", r.rule_id);
	return -2;
}

static int classify(struct fx *x, const struct tf_spec *s)
{
	uint8_t b[1600];
	uint32_t len = tf_build(b, s);

	return classify_raw(x, b, len, NULL);
}

#define UDP4(sp, dp) ((struct tf_spec){.ipv = 4, .proto = 17, .src = "10.1.2.3", .dst = "192.168.0.9", .sport = (sp), .dport = (dp)})
#define TCP4(sp, dp) ((struct tf_spec){.ipv = 4, .proto = 6, .src = "10.1.2.3", .dst = "192.168.0.9", .sport = (sp), .dport = (dp)})
#define UDP6(sp, dp) ((struct tf_spec){.ipv = 6, .proto = 17, .src = "2001:db8::1", .dst = "fe80::2", .sport = (sp), .dport = (dp)})
#define TCP6(sp, dp) ((struct tf_spec){.ipv = 6, .proto = 6, .src = "2001:db8::1", .dst = "fe80::2", .sport = (sp), .dport = (dp)})
#define ICMP4 ((struct tf_spec){.ipv = 4, .proto = 1, .src = "10.1.2.3", .dst = "192.168.0.9"})
#define ICMP6 ((struct tf_spec){.ipv = 6, .proto = 58, .src = "2001:db8::1", .dst = "fe80::2"})
#define ARP ((struct tf_spec){.arp = 1, .src = "10.0.0.1", .dst = "10.0.0.2"})

/* -------------------------------------------------------------- tests -- */

static void test_protocols(void **state)
{
	struct fx x;

	(void)state;
	fx_up(&x, "udp -> drop\ntcp -> kernel\nicmp -> queue 1\nicmp6 -> queue 2\narp -> cpu 3\n");
	assert_int_equal(classify(&x, &UDP4(1, 2)), 0);
	assert_int_equal(classify(&x, &UDP6(1, 2)), 0); /* udp covers IPv6 too */
	assert_int_equal(classify(&x, &TCP4(1, 2)), 1);
	assert_int_equal(classify(&x, &TCP6(1, 2)), 1);
	assert_int_equal(classify(&x, &ICMP4), 2);
	assert_int_equal(classify(&x, &ICMP6), 3);
	assert_int_equal(classify(&x, &ARP), 4);
	/* proto 1 in IPv6 is not icmp; proto 58 in IPv4 is not icmp6 */
	assert_int_equal(classify(&x, &(struct tf_spec){.ipv = 6, .proto = 1, .src = "::1", .dst = "::2"}), -1);
	assert_int_equal(classify(&x, &(struct tf_spec){.ipv = 4, .proto = 58, .src = "1.1.1.1", .dst = "2.2.2.2"}), -1);
	assert_int_equal(classify(&x, &(struct tf_spec){.ethertype = 0x88cc}), -1); /* LLDP */
	fx_down(&x);
}

static void test_ip_narrowing(void **state)
{
	struct fx x;

	(void)state;
	fx_up(&x, "ipv6 udp -> drop\nipv4 -> kernel\nipv6 -> queue 4\n");
	assert_int_equal(classify(&x, &UDP6(5, 6)), 0);
	assert_int_equal(classify(&x, &UDP4(5, 6)), 1);
	assert_int_equal(classify(&x, &ICMP4), 1);
	assert_int_equal(classify(&x, &TCP6(5, 6)), 2);
	assert_int_equal(classify(&x, &ARP), -1);
	fx_down(&x);
}

static void test_ethertype_vlan(void **state)
{
	struct gnio_flow_result r;
	struct tf_spec s;
	uint8_t b[1600];
	struct fx x;

	(void)state;
	fx_up(&x, "vlan 100 udp -> queue 1\nvlan 200 -> queue 2\nethertype 0x0800 -> queue 3\nethertype 0x88f7 -> cpu 4\n");
	s = UDP4(1, 2);
	assert_int_equal(classify(&x, &s), 2); /* untagged: no vlan rule */
	s.tpid[0] = 0x8100;
	s.vid[0] = 100;
	assert_int_equal(classify(&x, &s), 0);
	s.vid[0] = 0x2000 | 100; /* PCP bits are not the VID */
	assert_int_equal(classify(&x, &s), 0);
	s.vid[0] = 101;
	assert_int_equal(classify(&x, &s), 2); /* ethertype is read after the tag */
	s.vid[0] = 200;
	assert_int_equal(classify(&x, &s), 1);
	/* QinQ: the outer tag is the VLAN id; IP is still found inside */
	s.tpid[0] = 0x88a8;
	s.vid[0] = 100;
	s.tpid[1] = 0x8100;
	s.vid[1] = 200;
	assert_int_equal(classify(&x, &s), 0);
	s.vid[0] = 7;
	assert_int_equal(classify(&x, &s), 2);
	s = (struct tf_spec){.ethertype = 0x88f7, .tpid = {0x8100}, .vid = {300}};
	assert_int_equal(classify_raw(&x, b, tf_build(b, &s), &r), 3);
	assert_int_equal(r.action, GNIO_FLOW_ACTION_CPU);
	assert_int_equal(r.queue, 4);
	fx_down(&x);
}

static void test_prefixes(void **state)
{
	struct fx x;
	struct tf_spec s;

	(void)state;
	fx_up(&x, "src 10.1.2.3 -> queue 1\n"
		  "dst 192.168.0.0/16 -> queue 2\n"
		  "src 2001:db8:0:0:8000::/65 -> queue 3\n"
		  "dst fe80::2 -> queue 4\n"
		  "arp dst 10.0.0.0/24 -> kernel\n"
		  "src 0.0.0.0/0 -> queue 5\n");
	s = UDP4(1, 2);
	assert_int_equal(classify(&x, &s), 0);
	s.src = "10.1.2.4";
	assert_int_equal(classify(&x, &s), 1);
	s.dst = "192.169.0.9";
	assert_int_equal(classify(&x, &s), 5); /* /0 matches any IPv4 */
	s = UDP6(1, 2);
	s.src = "2001:db8::8000:0:0:1"; /* bit 64 set: inside the /65 */
	assert_int_equal(classify(&x, &s), 2);
	s.src = "2001:db8::7fff:0:0:1"; /* bit 64 clear */
	assert_int_equal(classify(&x, &s), 3);
	s.dst = "fe80::3";
	assert_int_equal(classify(&x, &s), -1); /* /0 was IPv4: no IPv6 match */
	assert_int_equal(classify(&x, &ARP), 4); /* ARP target 10.0.0.2 */
	s = ARP;
	s.dst = "10.0.1.2";
	assert_int_equal(classify(&x, &s), -1); /* ARP is not IPv4: src 0/0 does not take it */
	fx_down(&x);
}

static void test_port_ranges(void **state)
{
	struct fx x;

	(void)state;
	fx_up(&x, "udp dport 4791-4800 -> rss 0,1,2,3\ntcp sport 1000 -> queue 1\nudp sport 0 dport 65535 -> queue 2\n");
	assert_int_equal(classify(&x, &UDP4(9, 4790)), -1);
	assert_int_equal(classify(&x, &UDP4(9, 4791)), 0);
	assert_int_equal(classify(&x, &UDP6(9, 4795)), 0);
	assert_int_equal(classify(&x, &UDP4(9, 4800)), 0);
	assert_int_equal(classify(&x, &UDP4(9, 4801)), -1);
	assert_int_equal(classify(&x, &TCP4(9, 4795)), -1); /* tcp is not udp */
	assert_int_equal(classify(&x, &TCP4(999, 1)), -1);
	assert_int_equal(classify(&x, &TCP4(1000, 1)), 1);
	assert_int_equal(classify(&x, &TCP6(1000, 1)), 1);
	assert_int_equal(classify(&x, &TCP4(1001, 1)), -1);
	assert_int_equal(classify(&x, &UDP4(0, 65535)), 2);
	assert_int_equal(classify(&x, &UDP4(1, 65535)), -1);
	fx_down(&x);
}

/* Order decides; the default takes the rest; results carry ids, actions,
 * queues; hits add up. */
static void test_first_match_and_default(void **state)
{
	struct gnio_flow_frame fr[6];
	struct gnio_flow_result res[6];
	struct gnio_flow_stats st = {.struct_size = sizeof(st)};
	struct gnio_flow_action a = {.type = GNIO_FLOW_ACTION_QUEUE, .queue = 7};
	uint8_t b[6][1600];
	struct tf_spec specs[6] = {UDP4(1, 53), UDP4(1, 54), TCP4(1, 80), ICMP4, ARP, UDP6(1, 53)};
	uint64_t hits;
	uint32_t id;
	struct fx x;

	(void)state;
	fx_up(&x, "udp dport 53 -> kernel\nudp -> queue 3\nipv4 -> drop\nudp dport 53 -> cpu 1\n");
	for (int i = 0; i < 6; i++) {
		fr[i].len = tf_build(b[i], &specs[i]);
		fr[i].data = b[i];
	}
	gnio_flow_classify(x.rd, fr, 6, res);
	assert_int_equal(res[0].rule_id, x.ids[0]);
	assert_int_equal(res[0].action, GNIO_FLOW_ACTION_KERNEL);
	assert_int_equal(res[1].rule_id, x.ids[1]);
	assert_int_equal(res[1].action, GNIO_FLOW_ACTION_QUEUE);
	assert_int_equal(res[1].queue, 3);
	assert_int_equal(res[2].rule_id, x.ids[2]); /* tcp: not rule 1, then ipv4 */
	assert_int_equal(res[2].action, GNIO_FLOW_ACTION_DROP);
	assert_int_equal(res[3].rule_id, x.ids[2]);
	assert_int_equal(res[4].rule_id, GNIO_FLOW_RULE_DEFAULT);
	assert_int_equal(res[4].action, GNIO_FLOW_ACTION_GNIO);
	assert_int_equal(res[4].queue, 9); /* the reader's arrival queue */
	assert_int_equal(res[5].rule_id, x.ids[0]);
	/* rule 3 never wins: rule 0 matches first */
	assert_ok(gnio_flow_get_rule_hits(x.flow, x.ids[3], &hits));
	assert_int_equal(hits, 0);
	assert_ok(gnio_flow_get_rule_hits(x.flow, x.ids[0], &hits));
	assert_int_equal(hits, 2);
	assert_ok(gnio_flow_get_rule_hits(x.flow, x.ids[2], &hits));
	assert_int_equal(hits, 2);
	assert_ok(gnio_flow_get_rule_hits(x.flow, GNIO_FLOW_RULE_DEFAULT, &hits));
	assert_int_equal(hits, 1);
	/* a new default, a rule inserted first */
	assert_ok(gnio_flow_set_default(x.flow, &a));
	{
		struct gnio_flow_rule r;
		int d;

		assert_ok(gnio_flow_rule_parse("arp -> drop", &r, &d));
		assert_ok(gnio_flow_rule_insert(x.flow, 0, &r, &id));
	}
	gnio_flow_classify(x.rd, fr, 6, res);
	assert_int_equal(res[4].rule_id, id);
	assert_int_equal(res[4].action, GNIO_FLOW_ACTION_DROP);
	assert_int_equal(res[0].rule_id, x.ids[0]);
	/* removing rule 0 hands DNS to rule 1 */
	assert_ok(gnio_flow_rule_remove(x.flow, x.ids[0], &hits));
	assert_int_equal(hits, 4);
	gnio_flow_classify(x.rd, fr, 6, res);
	assert_int_equal(res[0].rule_id, x.ids[1]);
	assert_int_equal(res[5].rule_id, x.ids[1]);
	assert_gnio(gnio_flow_get_rule_hits(x.flow, x.ids[0], &hits), GNIO_ERROR_NOT_FOUND);
	assert_gnio(gnio_flow_rule_remove(x.flow, x.ids[0], NULL), GNIO_ERROR_NOT_FOUND);
	assert_ok(gnio_flow_get_stats(x.flow, &st));
	assert_int_equal(st.frames, 18);
	assert_int_equal(st.removed_hits, 4);
	assert_int_equal(st.default_hits, 1);
	{
		uint64_t sum = st.default_hits + st.removed_hits;
		uint32_t n;

		assert_ok(gnio_flow_get_rule_count(x.flow, &n));
		for (uint32_t i = 0; i < n; i++) {
			assert_ok(gnio_flow_get_rule(x.flow, i, &id, NULL));
			assert_ok(gnio_flow_get_rule_hits(x.flow, id, &hits));
			sum += hits;
		}
		assert_int_equal(sum, st.frames);
	}
	fx_down(&x);
}

/* A reader's counts stay in the flow after it is gone; slots of removed
 * rules are reused without inheriting counts. */
static void test_counts_survive(void **state)
{
	struct gnio_flow_frame fr;
	struct gnio_flow_result res;
	struct gnio_flow_rule r;
	uint8_t b[1600];
	uint64_t hits;
	uint32_t id;
	int d;
	struct fx x;

	(void)state;
	fx_up(&x, "udp -> drop\n");
	fr.len = tf_build(b, &UDP4(1, 2));
	fr.data = b;
	for (int i = 0; i < 5; i++)
		gnio_flow_classify(x.rd, &fr, 1, &res);
	assert_ok(gnio_flow_reader_destroy(x.rd));
	assert_ok(gnio_flow_get_rule_hits(x.flow, x.ids[0], &hits));
	assert_int_equal(hits, 5);
	assert_ok(gnio_flow_reader_create(x.flow, 0, &x.rd));
	/* rule 0's slot is reused by the next rule, which starts at 0 hits */
	assert_ok(gnio_flow_rule_remove(x.flow, x.ids[0], &hits));
	assert_int_equal(hits, 5);
	assert_ok(gnio_flow_rule_parse("udp -> kernel", &r, &d));
	assert_ok(gnio_flow_rule_add(x.flow, &r, &id));
	assert_int_not_equal(id, x.ids[0]); /* ids are never reused */
	assert_ok(gnio_flow_get_rule_hits(x.flow, id, &hits));
	assert_int_equal(hits, 0);
	gnio_flow_classify(x.rd, &fr, 1, &res);
	assert_ok(gnio_flow_get_rule_hits(x.flow, id, &hits));
	assert_int_equal(hits, 1);
	/* the flow refuses to go while a reader exists */
	assert_gnio(gnio_flow_destroy(x.flow), GNIO_ERROR_BAD_STATE);
	fx_down(&x);
}

static void test_bad_rules_name_the_field(void **state)
{
	struct gnio_flow *f;
	struct gnio_flow_rule r;
	uint32_t id;

	(void)state;
	assert_ok(gnio_flow_create(NULL, &f));
	gnio_flow_rule_init(&r);
	r.struct_size = 8;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "rule.struct_size"));
	gnio_flow_rule_init(&r);
	r.match.fields = 1u << 20;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "match.fields"));
	gnio_flow_rule_init(&r);
	r.match.l4 = (enum gnio_flow_l4)42;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "match.l4"));
	gnio_flow_rule_init(&r);
	r.match.fields = GNIO_FLOW_MATCH_VLAN;
	r.match.vlan_id = 5000;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "match.vlan_id"));
	gnio_flow_rule_init(&r);
	r.match.fields = GNIO_FLOW_MATCH_SRC;
	r.match.src.family = 5;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "match.src: family 5"));
	gnio_flow_rule_init(&r);
	r.match.fields = GNIO_FLOW_MATCH_SRC;
	r.match.src.family = 4;
	r.match.src.len = 32;
	r.match.src.addr[7] = 1;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "match.src: bytes past the IPv4 address"));
	gnio_flow_rule_init(&r);
	r.action.type = GNIO_FLOW_ACTION_RSS;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "action.num_queues"));
	r.action.num_queues = 2;
	r.action.queues[0] = r.action.queues[1] = 3;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "action.queues: queue 3 is listed twice"));
	gnio_flow_rule_init(&r);
	r.action.type = (enum gnio_flow_action_type)99;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "action.type"));
	assert_gnio(gnio_flow_set_default(f, &r.action), GNIO_ERROR_INVALID_VALUE);
	/* a larger struct from a newer caller: fine when the extra is zero */
	{
		struct {
			struct gnio_flow_rule r;
			uint32_t extra;
		} big;

		memset(&big, 0, sizeof(big));
		gnio_flow_rule_init(&big.r);
		big.r.struct_size = sizeof(big);
		assert_ok(gnio_flow_rule_add(f, &big.r, &id));
		big.extra = 1;
		assert_gnio(gnio_flow_rule_add(f, &big.r, &id), GNIO_ERROR_INVALID_VALUE);
		assert_non_null(strstr(gnio_last_error_msg(), "past the"));
	}
	gnio_flow_rule_init(&r);
	assert_gnio(gnio_flow_rule_insert(f, 5, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_flow_rule_add(NULL, &r, &id), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_flow_create(NULL, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_flow_destroy(f));
}

/* ---------------------------------------------------------- hostile -- */

static void test_runts(void **state)
{
	uint8_t b[1600];
	struct fx x;

	(void)state;
	/* a rule with no field (any) is the only one a runt can match */
	fx_up(&x, "ethertype 0x0800 -> queue 1\nvlan 0 -> queue 2\nany -> queue 3\n");
	tf_build(b, &UDP4(1, 2));
	for (uint32_t len = 0; len < 14; len++)
		assert_int_equal(classify_raw(&x, b, len, NULL), 2);
	assert_int_equal(classify_raw(&x, b, 14, NULL), 0);
	{
		struct gnio_flow_frame fr = {NULL, 100};
		struct gnio_flow_result r;

		gnio_flow_classify(x.rd, &fr, 1, &r); /* NULL data reads as empty */
		assert_int_equal(r.rule_id, x.ids[2]);
	}
	fx_down(&x);
}

static void test_truncations(void **state)
{
	/* Every prefix of every kind of frame: parsing never faults, and the
	 * verdict only uses what fits. A udp port rule must not match before
	 * the ports are in the frame. */
	struct tf_spec specs[] = {
		UDP4(1, 53), TCP4(1, 53), UDP6(1, 53), ICMP4, ICMP6, ARP,
		{.ipv = 6, .proto = 17, .src = "::1", .dst = "::2", .sport = 1, .dport = 53, .n_ext = 2, .v6_ext = {0, 60}},
		{.ipv = 4, .proto = 17, .src = "1.1.1.1", .dst = "2.2.2.2", .sport = 1, .dport = 53, .tpid = {0x88a8, 0x8100}, .vid = {1, 2}},
	};
	struct fx x;

	(void)state;
	fx_up(&x, "udp dport 53 -> queue 1\nany -> queue 2\n");
	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		uint8_t b[1600];
		uint32_t full = tf_build(b, &specs[s]), l4;

		/* where the UDP ports end */
		l4 = 14 + 4 * (specs[s].tpid[0] != 0) + 4 * (specs[s].tpid[1] != 0) +
		     (specs[s].ipv == 4 ? 20 : 40 + 8 * (uint32_t)specs[s].n_ext) + 4;
		for (uint32_t len = 0; len <= full; len++) {
			int want = specs[s].proto == 17 && len >= l4 ? 0 : 1;

			if (classify_raw(&x, b, len, NULL) != want)
				fail_msg("frame kind %zu cut to %u of %u bytes: expected rule %d", s, len, full, want);
		}
	}
	fx_down(&x);
}

static void test_lying_ipv4(void **state)
{
	uint8_t b[1600];
	uint32_t len;
	struct fx x;

	(void)state;
	fx_up(&x, "udp dport 53 -> queue 1\nudp -> queue 2\nipv4 -> queue 3\nethertype 0x0800 -> queue 4\n");
	len = tf_build(b, &UDP4(1, 53));
	assert_int_equal(classify_raw(&x, b, len, NULL), 0);
	/* IHL < 5: not IPv4 at all, only the EtherType matches */
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		b[14] = (uint8_t)(0x40 | ihl);
		assert_int_equal(classify_raw(&x, b, len, NULL), 3);
	}
	/* version 6 inside EtherType 0x0800 */
	b[14] = 0x65;
	assert_int_equal(classify_raw(&x, b, len, NULL), 3);
	/* IHL 15 (60 bytes) with a 34-byte frame: header past the end */
	b[14] = 0x4f;
	assert_int_equal(classify_raw(&x, b, 34, NULL), 3);
	/* IHL 15 in a long enough frame: ports are read after the options */
	len = tf_build(b, &UDP4(1, 53));
	memmove(b + 14 + 60, b + 34, len - 34);
	memset(b + 34, 1, 40); /* NOP options */
	b[14] = 0x4f;
	tf_put16(b + 16, (uint16_t)(len - 14 + 40));
	assert_int_equal(classify_raw(&x, b, len + 40, NULL), 0);
	/* total length shorter than the header: malformed */
	len = tf_build(b, &UDP4(1, 53));
	tf_put16(b + 16, 19);
	assert_int_equal(classify_raw(&x, b, len, NULL), 3);
	/* total length covers the IP header only: no room for ports */
	tf_put16(b + 16, 20);
	assert_int_equal(classify_raw(&x, b, len, NULL), 1);
	tf_put16(b + 16, 23);
	assert_int_equal(classify_raw(&x, b, len, NULL), 1);
	tf_put16(b + 16, 24);
	assert_int_equal(classify_raw(&x, b, len, NULL), 0);
	/* total length larger than the frame (truncated capture): what fits counts */
	tf_put16(b + 16, 9000);
	assert_int_equal(classify_raw(&x, b, 38, NULL), 0);
	assert_int_equal(classify_raw(&x, b, 37, NULL), 1);
	fx_down(&x);
}

static void test_fragments(void **state)
{
	struct tf_spec s;
	struct fx x;

	(void)state;
	fx_up(&x, "udp dport 53 -> queue 1\nudp -> queue 2\n");
	s = UDP4(1, 53);
	s.frag = 0x2000; /* MF, offset 0: the first fragment has the ports */
	assert_int_equal(classify(&x, &s), 0);
	s.frag = 0x2000 | 185; /* later fragment: protocol yes, ports no */
	assert_int_equal(classify(&x, &s), 1);
	s.frag = 185; /* last fragment */
	assert_int_equal(classify(&x, &s), 1);
	s = UDP6(1, 53);
	s.v6_frag = 1;
	s.frag = 1; /* M, offset 0 */
	assert_int_equal(classify(&x, &s), 0);
	s.frag = 8 << 3; /* offset 8 */
	assert_int_equal(classify(&x, &s), 1);
	fx_down(&x);
}

static void test_ipv6_ext_headers(void **state)
{
	uint8_t b[1600];
	uint32_t len;
	struct tf_spec s;
	struct fx x;

	(void)state;
	fx_up(&x, "udp dport 53 -> queue 1\nudp -> queue 2\nipv6 -> queue 3\n");
	s = UDP6(1, 53);
	s.n_ext = 3;
	s.v6_ext[0] = 0;  /* hop-by-hop */
	s.v6_ext[1] = 43; /* routing */
	s.v6_ext[2] = 60; /* destination options */
	assert_int_equal(classify(&x, &s), 0);
	/* eight destination-options headers are walked; a ninth is past the
	 * walk, so neither protocol nor ports are known */
	len = tf_build(b, &UDP6(1, 53));
	for (uint32_t n = 8; n <= 9; n++) {
		uint8_t c[1600];
		uint32_t off = 54;

		memcpy(c, b, 54);
		c[20] = 60;
		for (uint32_t i = 0; i < n; i++) {
			memset(c + off, 0, 8);
			c[off] = i + 1 < n ? 60 : 17;
			off += 8;
		}
		memcpy(c + off, b + 54, 8); /* the UDP header */
		tf_put16(c + 18, (uint16_t)(off + 8 - 54));
		assert_int_equal(classify_raw(&x, c, off + 8, NULL), n == 8 ? 0 : 2);
	}
	/* an extension header that claims more than the frame holds */
	s = UDP6(1, 53);
	s.n_ext = 1;
	len = tf_build(b, &s);
	b[54 + 1] = 200; /* (200+1)*8 bytes */
	assert_int_equal(classify_raw(&x, b, len, NULL), 2);
	/* payload length shorter than the extension header */
	len = tf_build(b, &s);
	tf_put16(b + 18, 4);
	assert_int_equal(classify_raw(&x, b, len, NULL), 2);
	/* payload length 0 (jumbogram style): no L4 bytes */
	len = tf_build(b, &UDP6(1, 53));
	tf_put16(b + 18, 0);
	assert_int_equal(classify_raw(&x, b, len, NULL), 1);
	fx_down(&x);
}

/* Random bytes and random damage to valid frames, at every length: no
 * fault (the guard page), and the same verdict twice. */
static void test_fuzz(void **state)
{
	struct fx x;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	uint8_t b[1600];

	(void)state;
	fx_up(&x, "udp dport 53 -> queue 1\ntcp src 10.0.0.0/8 -> queue 2\nvlan 5 -> drop\nicmp6 -> kernel\n"
		  "arp dst 10.0.0.2 -> cpu 0\nipv6 udp sport 1-100 -> rss 0,1,2\n");
	for (int it = 0; it < 20000; it++) {
		static const struct tf_spec base[] = {UDP4(1, 53), TCP6(1, 2), UDP6(50, 7), ICMP6, ARP};
		uint32_t len;
		int v1, v2;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		len = tf_build(b, &base[s % 5]);
		for (int k = 0; k < 4; k++) { /* flip a few bytes */
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			b[s % len] = (uint8_t)(s >> 32);
		}
		if (it % 4 == 0)
			for (uint32_t i = 0; i < len; i++)
				b[i] = (uint8_t)(s >> (i % 56));
		len = (uint32_t)((s >> 20) % (len + 1));
		v1 = classify_raw(&x, b, len, NULL);
		v2 = classify_raw(&x, b, len, NULL);
		assert_int_equal(v1, v2);
	}
	fx_down(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protocols),
		cmocka_unit_test(test_ip_narrowing),
		cmocka_unit_test(test_ethertype_vlan),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_port_ranges),
		cmocka_unit_test(test_first_match_and_default),
		cmocka_unit_test(test_counts_survive),
		cmocka_unit_test(test_bad_rules_name_the_field),
		cmocka_unit_test(test_runts),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_lying_ipv4),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_ipv6_ext_headers),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
