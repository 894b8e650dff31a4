/* SPDX-License-Identifier: MIT */
/*
 * test_flow_xdp.c - the flow's programs in the kernel decide like the proxy:
 * the same rules table, loaded into the kernel and run on each frame with
 * BPF_PROG_TEST_RUN, gives every frame the verdict its userspace action
 * implies, and the kernel's per-rule counters equal the userspace hit counts
 * exactly, over well-formed frames of every kind and thousands of damaged
 * ones. Replacing the table takes effect at once; removing it gives back the
 * plain program, which counts nothing. Both programs:
 *  - XDP (afxdp): kernel -> XDP_PASS, drop -> XDP_DROP, gnio queues ->
 *    redirect, which without a socket is XDP_PASS and counted as no_socket;
 *  - the socket filter (afpacket): kernel and drop -> 0 (the socket takes
 *    no copy), everything else -> the whole frame; IPv6 extension chains
 *    longer than its first read are read again in full.
 *
 * Needs the XDP flow program (clang at configure time) and the right to
 * load BPF programs (root); skips otherwise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <cmocka.h>

#include "testutil.h"
#include "flow_frames.h"
#include "gnio/flow.h"
#include "flow/flow_priv.h"

#ifdef GNIO_HAVE_XDP_FLOW
#include "flow/flow_xdp.h"

#define NFRAMES 6000

struct corpus {
	uint8_t (*b)[1600];
	uint32_t *len;
	unsigned n;
};

static void corpus_build(struct corpus *c)
{
	static const struct tf_spec base[] = {
		{.ipv = 4, .proto = 17, .src = "10.0.0.1", .dst = "10.0.0.2", .sport = 1000, .dport = 4791},
		{.ipv = 4, .proto = 17, .src = "10.9.0.1", .dst = "10.0.0.2", .sport = 1000, .dport = 53},
		{.ipv = 6, .proto = 17, .src = "2001:db8::1", .dst = "fd00::2", .sport = 7, .dport = 4795},
		{.ipv = 4, .proto = 6, .src = "10.0.0.1", .dst = "192.168.1.1", .sport = 40000, .dport = 80},
		{.ipv = 6, .proto = 6, .src = "2001:db8::1", .dst = "fd00::2", .sport = 22, .dport = 5000},
		{.ipv = 4, .proto = 1, .src = "10.0.0.1", .dst = "10.0.0.2"},
		{.ipv = 6, .proto = 58, .src = "fe80::1", .dst = "ff02::1"},
		{.arp = 1, .src = "10.0.0.1", .dst = "10.0.0.2"},
		{.ethertype = 0x88cc},
		{.ipv = 4, .proto = 17, .src = "10.0.0.1", .dst = "10.0.0.2", .sport = 1, .dport = 4791, .tpid = {0x8100}, .vid = {100}},
		{.ipv = 6, .proto = 17, .src = "::1", .dst = "::2", .sport = 1, .dport = 4791, .tpid = {0x88a8, 0x8100}, .vid = {100, 5}},
		{.ipv = 6, .proto = 17, .src = "::1", .dst = "::2", .sport = 1, .dport = 53, .n_ext = 3, .v6_ext = {0, 43, 60}},
		{.ipv = 4, .proto = 17, .src = "10.0.0.1", .dst = "10.0.0.2", .sport = 1, .dport = 53, .frag = 0x2000 | 100},
		{.ipv = 6, .proto = 17, .src = "::1", .dst = "::2", .sport = 1, .dport = 53, .v6_frag = 1, .frag = 1},
		/* a chain of 3 x 168 bytes: the ports lie past byte 560 */
		{.ipv = 6, .proto = 17, .src = "::1", .dst = "::2", .sport = 1, .dport = 53, .n_ext = 3,
		 .v6_ext = {0, 60, 60}, .ext_units = 20},
		{.ipv = 6, .proto = 6, .src = "2001:db8::1", .dst = "::2", .sport = 22, .dport = 80, .n_ext = 2,
		 .v6_ext = {60, 43}, .ext_units = 40},
	};
	const unsigned nb = sizeof(base) / sizeof(base[0]);
	uint64_t s = 0x2545f4914f6cdd1dull;

	c->b = malloc((size_t)NFRAMES * sizeof(*c->b));
	c->len = malloc(NFRAMES * sizeof(uint32_t));
	assert_non_null(c->b);
	assert_non_null(c->len);
	c->n = NFRAMES;
	for (unsigned i = 0; i < NFRAMES; i++) {
		uint32_t len = tf_build(c->b[i], &base[i % nb]);

		if (i >= 2 * nb) { /* damage: flipped bytes, and a cut */
			for (int k = 0; k < 3; k++) {
				s ^= s << 13, s ^= s >> 7, s ^= s << 17;
				c->b[i][14 + s % (len - 14)] = (uint8_t)(s >> 40);
			}
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			if (s & 1)
				len = 14 + (uint32_t)((s >> 8) % (len - 13));
		}
		c->len[i] = len;
	}
}

/* What the program of this kind must return for a frame of len bytes whose
 * proxy action is act. */
static uint32_t verdict_for(enum flow_prog_kind kind, uint8_t act, uint32_t len)
{
	if (kind == FLOW_PROG_SOCKET)
		return act == GNIO_FLOW_ACTION_KERNEL || act == GNIO_FLOW_ACTION_DROP ? 0 : len;
	return act == GNIO_FLOW_ACTION_KERNEL ? XDP_PASS : act == GNIO_FLOW_ACTION_DROP ? XDP_DROP : XDP_PASS;
}

/* Run the corpus through both; compare verdicts frame by frame and the
 * counters slot by slot. */
static void compare(struct gnio_flow *f, struct flow_xdp *x, enum flow_prog_kind kind, const struct corpus *c)
{
	struct gnio_flow_reader *rd;
	uint64_t before[FK_NUM_SLOTS], after[FK_NUM_SLOTS], user[FK_NUM_SLOTS] = {0};
	uint64_t to_gnio = 0;

	assert_ok(gnio_flow_reader_create(f, 0, &rd));
	assert_ok(flow_xdp_read_hits(x, before));
	for (unsigned i = 0; i < c->n; i++) {
		struct gnio_flow_frame fr = {c->b[i], c->len[i]};
		struct gnio_flow_result r;
		uint32_t verdict;
		unsigned slot = FK_SLOT_DEFAULT;

		gnio_flow_classify(rd, &fr, 1, &r);
		if (r.rule_id != GNIO_FLOW_RULE_DEFAULT)
			for (uint32_t k = 0; k < f->nentries; k++)
				if (f->entries[k].id == r.rule_id)
					slot = f->entries[k].slot;
		user[slot]++;
		if (r.action != GNIO_FLOW_ACTION_KERNEL && r.action != GNIO_FLOW_ACTION_DROP)
			to_gnio++;
		assert_ok(flow_xdp_test_run(x, c->b[i], c->len[i], &verdict));
		if (verdict != verdict_for(kind, r.action, c->len[i]))
			fail_msg("frame %u (%u bytes): proxy says %s (rule %u), the %s program returned %u", i,
				 c->len[i], gnio_flow_action_name((enum gnio_flow_action_type)r.action), r.rule_id,
				 kind == FLOW_PROG_SOCKET ? "socket" : "XDP", verdict);
	}
	assert_ok(flow_xdp_read_hits(x, after));
	for (unsigned s = 0; s <= FK_SLOT_DEFAULT; s++)
		if (after[s] - before[s] != user[s])
			fail_msg("slot %u: XDP counted %llu, the proxy %llu", s, (unsigned long long)(after[s] - before[s]),
				 (unsigned long long)user[s]);
	assert_int_equal(after[FK_SLOT_FRAMES] - before[FK_SLOT_FRAMES], c->n);
	/* XDP: gnio decisions found no socket (the XSKMAP is empty): passed,
	 * counted; a socket filter has no socket to miss */
	assert_int_equal(after[FK_SLOT_NO_SOCKET] - before[FK_SLOT_NO_SOCKET], kind == FLOW_PROG_XDP ? to_gnio : 0);
	assert_ok(gnio_flow_reader_destroy(rd));
}

static void matches_proxy(enum flow_prog_kind kind)
{
	struct gnio_flow *f;
	struct flow_xdp *x;
	struct corpus c;
	gnio_error_t err;

	corpus_build(&c);
	assert_ok(gnio_flow_create(NULL, &f));
	assert_ok(gnio_flow_load_string(f,
					"udp dport 4791-4800 -> rss 0,1,2,3\n"
					"icmp -> kernel\n"
					"icmp6 -> kernel\n"
					"arp -> kernel\n"
					"ipv4 src 10.9.0.0/16 udp -> drop\n"
					"ipv6 udp dport 53 -> queue 1\n"
					"tcp dport 80 -> queue 2\n"
					"vlan 100 -> cpu 0\n"
					"ipv6 src 2001:db8::/32 tcp sport 1-1023 -> drop\n"
					"ethertype 0x88cc -> kernel\n"
					"dst 10.0.0.2 -> gnio\n"
					"default -> drop\n",
					NULL));
	assert_ok(flow_xdp_open(kind, 64, &x));
	assert_ok(flow_xdp_publish(x, &f->table->kt));
	err = flow_xdp_load(x);
	if (err == GNIO_ERROR_NOT_PERMITTED) {
		print_message("skipped: %s\n", gnio_last_error_msg());
		flow_xdp_close(x);
		assert_ok(gnio_flow_destroy(f));
		skip();
	}
	assert_ok(err);
	compare(f, x, kind, &c);

	/* a new table (the same flow, changed) takes over at once */
	{
		struct gnio_flow_rule r;
		uint32_t id;
		int d;

		assert_ok(gnio_flow_rule_parse("udp -> kernel", &r, &d));
		assert_ok(gnio_flow_rule_insert(f, 0, &r, &id));
		assert_ok(flow_xdp_publish(x, &f->table->kt));
		compare(f, x, kind, &c);
	}
	/* no table: the plain program (redirect; take every frame), which
	 * counts nothing */
	{
		uint64_t before[FK_NUM_SLOTS], after[FK_NUM_SLOTS];
		uint32_t verdict;

		assert_ok(flow_xdp_publish(x, NULL));
		assert_ok(flow_xdp_read_hits(x, before));
		for (unsigned i = 0; i < c.n; i += 7) {
			assert_ok(flow_xdp_test_run(x, c.b[i], c.len[i], &verdict));
			/* XDP: no socket on the queue; socket: the whole frame */
			assert_int_equal(verdict, kind == FLOW_PROG_XDP ? XDP_PASS : c.len[i]);
		}
		assert_ok(flow_xdp_read_hits(x, after));
		assert_memory_equal(before, after, sizeof(before));
	}
	flow_xdp_close(x);
	assert_ok(gnio_flow_destroy(f));
	free(c.b);
	free(c.len);
}

static void test_xdp_matches_proxy(void **state)
{
	(void)state;
	matches_proxy(FLOW_PROG_XDP);
}

static void test_sock_matches_proxy(void **state)
{
	(void)state;
	matches_proxy(FLOW_PROG_SOCKET);
}

/* All 256 rules: the kernel's verifier takes the full loop, and the last
 * rule still matches. */
static void full_table(enum flow_prog_kind kind)
{
	struct gnio_flow *f;
	struct flow_xdp *x;
	struct corpus c = {0};
	char *text = malloc(64 * GNIO_FLOW_MAX_RULES);
	size_t off = 0;
	gnio_error_t err;

	for (int i = 0; i < GNIO_FLOW_MAX_RULES - 1; i++)
		off += (size_t)sprintf(text + off, "udp dport %d -> drop\n", 20000 + i);
	sprintf(text + off, "udp dport 4791 -> kernel\n");
	assert_ok(gnio_flow_create(NULL, &f));
	assert_ok(gnio_flow_load_string(f, text, NULL));
	free(text);
	assert_ok(flow_xdp_open(kind, 64, &x));
	assert_ok(flow_xdp_publish(x, &f->table->kt));
	err = flow_xdp_load(x);
	if (err == GNIO_ERROR_NOT_PERMITTED) {
		flow_xdp_close(x);
		assert_ok(gnio_flow_destroy(f));
		skip();
	}
	assert_ok(err);
	corpus_build(&c);
	c.n = 200;
	compare(f, x, kind, &c);
	{
		uint64_t hits;
		uint32_t id;

		assert_ok(gnio_flow_get_rule(f, GNIO_FLOW_MAX_RULES - 1, &id, NULL));
		assert_ok(gnio_flow_get_rule_hits(f, id, &hits));
		assert_true(hits > 0); /* the last rule was reached, in both */
	}
	flow_xdp_close(x);
	assert_ok(gnio_flow_destroy(f));
	free(c.b);
	free(c.len);
}

static void test_xdp_full_table(void **state)
{
	(void)state;
	full_table(FLOW_PROG_XDP);
}

static void test_sock_full_table(void **state)
{
	(void)state;
	full_table(FLOW_PROG_SOCKET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xdp_matches_proxy),
		cmocka_unit_test(test_xdp_full_table),
		cmocka_unit_test(test_sock_matches_proxy),
		cmocka_unit_test(test_sock_full_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !GNIO_HAVE_XDP_FLOW */

int main(void)
{
	printf("skipped: gnio was built without the XDP flow program (no clang at configure time)\n");
	return GNIO_TEST_SKIP;
}

#endif
