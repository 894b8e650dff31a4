/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_steer.c - a gnio_flow steering a sw wire's frames across
 * four RX queues on the CPU device, through the proxies (src/proxy/steer.c):
 * - every frame a queue's kernel sees is one the rules send to that queue
 *   (checked against an independent classification of the same frames);
 * - RSS keeps each flow in one queue, in order, and spreads flows within
 *   20 % of even;
 * - drop, kernel-less queues and stopped queues are counted by name, and
 *   the books balance exactly: sent == sum(rx_packets + dropped), per-rule
 *   hits == the independent counts;
 * - rules change under traffic with the books still exact;
 * - wrong order (a flow after the queues started) is refused.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "seen.h"
#include "testutil.h"

#define QUEUES 4u
#define MAX_FLOWS 4096u
#define MAX_SEEN 200000u

struct rig {
	struct gnio_dev *dev;
	struct gnio_flow *flow;
	struct gnio_pipeline *pl;
	struct gnio_sw_peer *peer;
	struct seen_kernel_arg k[QUEUES];
	struct seen *seen;
	struct gnio_eth_rxq *rxq[QUEUES];
};

static void rig_up(struct rig *r, const char *name, const char *rules)
{
	char spec[64];
	memset(r, 0, sizeof(*r));
	r->seen = seen_create(MAX_SEEN);
	assert_non_null(r->seen);
	snprintf(spec, sizeof(spec), "sw:%s", name);
	assert_ok(gnio_dev_open(spec, &r->dev));
	assert_ok(gnio_flow_create(r->dev, &r->flow));
	assert_ok(gnio_flow_load_string(r->flow, rules, name));
	struct gnio_pipeline_cfg c;
	gnio_pipeline_cfg_init(&c, NULL, "cpu");
	c.dev = r->dev;
	c.queues = QUEUES;
	c.ring = 1024;
	assert_ok(gnio_pipeline_create(&c, &r->pl));
	assert_ok(gnio_sw_peer_open(name, &r->peer));
	for (unsigned q = 0; q < QUEUES; q++) {
		struct gnio_pipeline_queue pq;
		assert_ok(gnio_pipeline_get_queue(r->pl, q, &pq));
		r->rxq[q] = pq.rxq;
		r->k[q] = (struct seen_kernel_arg){pq.rxh, r->seen, (uint8_t)q};
		assert_ok(gnio_pipeline_launch(r->pl, q, seen_kernel, &r->k[q]));
	}
}

static void rig_down(struct rig *r)
{
	assert_ok(gnio_sw_peer_close(r->peer));
	assert_ok(gnio_pipeline_destroy(r->pl));
	assert_ok(gnio_flow_destroy(r->flow));
	assert_ok(gnio_dev_close(r->dev));
	seen_destroy(r->seen);
}

struct books {
	uint64_t rx, dropped[GNIO_DROP_REASON_COUNT], total, out, in;
};

static struct books books_of(struct rig *r)
{
	struct books b;
	memset(&b, 0, sizeof(b));
	for (unsigned q = 0; q < QUEUES; q++) {
		struct gnio_eth_rxq_stats st;
		assert_ok(gnio_eth_rxq_get_stats(r->rxq[q], &st));
		b.rx += st.rx_packets;
		for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
			b.dropped[i] += st.dropped[i];
		b.total += st.rx_packets + st.dropped_total;
		b.out += st.steered_out;
		b.in += st.steered_in;
	}
	return b;
}

struct until_arg {
	struct rig *r;
	uint64_t n;
};
static int accounted(void *arg)
{
	struct until_arg *u = arg;
	struct books b = books_of(u->r);
	return b.total >= u->n && b.in == b.out && seen_count(u->r->seen) >= b.rx;
}

/* Send n frames on a wire queue, 256 at a time, each batch waiting until
 * the previous ones are accounted for, so that the four kernels on a small
 * machine keep up and nothing is ring_full (the test is about where frames
 * go, not about speed). `before` is what was accounted before the call. */
static void send_frames(struct rig *r, const struct gnio_gen_cfg *g, uint16_t wire_queue, uint64_t first,
			uint64_t n, uint64_t before)
{
	uint8_t f[2048];
	for (uint64_t s = first; s < first + n; s++) {
		uint32_t len = gnio_gen_build(g, s, f, sizeof(f));
		gnio_error_t e;
		while ((e = gnio_sw_peer_send(r->peer, wire_queue, f, len)) == GNIO_ERROR_FULL)
			sched_yield();
		assert_ok(e);
		if ((s - first + 1) % 256 == 0) {
			struct until_arg u = {r, before + (s - first + 1)};
			assert_true(wait_until(accounted, &u, 20000));
		}
	}
}

/* The rules in action: each frame where the rules say, by name otherwise. */
static void test_steer_mix(void **state)
{
	(void)state;
	static const char rules[] = "udp dport 53 -> drop          # DNS\n"
				    "tcp dport 80 -> queue 9        # no such queue\n"
				    "udp -> rss 0,1,2,3\n"
				    "tcp -> queue 2\n"
				    "default -> gnio                # ICMP, ARP: the arrival queue\n";
	struct rig r;
	rig_up(&r, "steer_mix", rules);

	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.proto = GNIO_GEN_MIX;
	g.frame_size = gnio_gen_min_frame(GNIO_GEN_MIX);
	g.flows = 256;
	const uint64_t per_queue = 4000;
	send_frames(&r, &g, 0, 0, per_queue, 0);
	send_frames(&r, &g, 1, per_queue, per_queue, per_queue);
	struct until_arg u = {&r, 2 * per_queue};
	assert_true(wait_until(accounted, &u, 20000));

	/* Classify the same frames independently (no wire). */
	struct gnio_flow *ref;
	struct gnio_flow_reader *rd0, *rd1;
	assert_ok(gnio_flow_create(NULL, &ref));
	assert_ok(gnio_flow_load_string(ref, rules, "ref"));
	assert_ok(gnio_flow_reader_create(ref, 0, &rd0));
	assert_ok(gnio_flow_reader_create(ref, 1, &rd1));
	static int8_t want_queue[2 * 4000];
	uint64_t want_drop = 0, want_noq = 0, want_rx = 0;
	for (uint64_t s = 0; s < 2 * per_queue; s++) {
		uint8_t f[2048];
		struct gnio_flow_frame ff = {f, gnio_gen_build(&g, s, f, sizeof(f))};
		struct gnio_flow_result res;
		gnio_flow_classify(s < per_queue ? rd0 : rd1, &ff, 1, &res);
		want_queue[s] = -1;
		if (res.action == GNIO_FLOW_ACTION_DROP)
			want_drop++;
		else if (res.queue >= QUEUES)
			want_noq++;
		else {
			want_queue[s] = (int8_t)res.queue;
			want_rx++;
		}
	}
	assert_true(want_drop > 0 && want_noq > 0 && want_rx > 0);

	struct books b = books_of(&r);
	for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
		if (b.dropped[i])
			print_message("dropped %s: %llu\n", gnio_drop_reason_name((enum gnio_drop_reason)i),
				      (unsigned long long)b.dropped[i]);
	assert_int_equal(b.total, 2 * per_queue);
	assert_int_equal(b.rx, want_rx);
	assert_int_equal(b.dropped[GNIO_DROP_FLOW_DROP], want_drop);
	assert_int_equal(b.dropped[GNIO_DROP_NO_QUEUE], want_noq);
	assert_int_equal(b.in, b.out);
	assert_true(b.out > 0);
	assert_int_equal(r.seen->bad, 0);
	assert_int_equal(seen_count(r.seen), want_rx);
	for (uint64_t i = 0; i < want_rx; i++)
		assert_int_equal(r.seen->f[i].queue, want_queue[r.seen->f[i].seq]);

	/* Per-rule hits: the proxies' counts equal the reference's. */
	uint32_t nrules, nref;
	assert_ok(gnio_flow_get_rule_count(r.flow, &nrules));
	assert_ok(gnio_flow_get_rule_count(ref, &nref));
	assert_int_equal(nrules, nref);
	assert_ok(gnio_flow_reader_destroy(rd0));
	assert_ok(gnio_flow_reader_destroy(rd1));
	for (uint32_t i = 0; i <= nrules; i++) {
		uint32_t id = GNIO_FLOW_RULE_DEFAULT, idr = GNIO_FLOW_RULE_DEFAULT;
		if (i < nrules) {
			assert_ok(gnio_flow_get_rule(r.flow, i, &id, NULL));
			assert_ok(gnio_flow_get_rule(ref, i, &idr, NULL));
		}
		uint64_t h, hr;
		assert_ok(gnio_flow_get_rule_hits(r.flow, id, &h));
		assert_ok(gnio_flow_get_rule_hits(ref, idr, &hr));
		assert_int_equal(h, hr);
	}
	assert_ok(gnio_flow_destroy(ref));

	/* The flow belongs to the started queues' proxies. */
	assert_gnio(gnio_flow_destroy(r.flow), GNIO_ERROR_BAD_STATE);
	rig_down(&r);
}

/* RSS: one flow, one queue, in order; flows spread within 20 % of even. */
static void test_rss_spread_and_order(void **state)
{
	(void)state;
	struct rig r;
	rig_up(&r, "steer_rss", "default -> rss 0,1,2,3\n");
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.flows = MAX_FLOWS;
	const uint64_t n = 40000;
	send_frames(&r, &g, 0, 0, n, 0);
	struct until_arg u = {&r, n};
	assert_true(wait_until(accounted, &u, 20000));
	struct books b = books_of(&r);
	assert_int_equal(b.total, n);
	assert_int_equal(b.rx, n); /* the kernels keep up: nothing dropped */
	assert_int_equal(seen_count(r.seen), n);
	assert_int_equal(r.seen->bad, 0);
	struct seen_flow_report fr;
	seen_check_flows(r.seen, &fr);
	assert_int_equal(fr.frames, n);
	assert_int_equal(fr.flows, MAX_FLOWS);
	assert_int_equal(fr.split, 0);     /* one flow, one queue */
	assert_int_equal(fr.reordered, 0); /* ... in order */
	for (unsigned q = 0; q < QUEUES; q++) {
		uint64_t got = r.seen->per_queue[q];
		assert_true(got * 10 >= n / QUEUES * 8 && got * 10 <= n / QUEUES * 12);
	}
	rig_down(&r);
}

/* Rules added and removed while frames flow: books and hits still exact. */
static void test_rules_change_under_traffic(void **state)
{
	(void)state;
	struct rig r;
	rig_up(&r, "steer_live", "default -> gnio\n");
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.flows = 64;
	uint64_t sent = 0, removed = 0;
	for (int round = 0; round < 20; round++) {
		struct gnio_flow_rule rule;
		uint32_t id;
		gnio_flow_rule_init(&rule);
		int is_default;
		assert_ok(gnio_flow_rule_parse(round % 2 ? "udp -> rss 1,2,3" : "udp -> drop", &rule, &is_default));
		assert_ok(gnio_flow_rule_add(r.flow, &rule, &id));
		send_frames(&r, &g, 0, sent, 500, sent);
		sent += 500;
		uint64_t hits;
		assert_ok(gnio_flow_rule_remove(r.flow, id, &hits));
		removed += hits;
		send_frames(&r, &g, 0, sent, 100, sent);
		sent += 100;
	}
	struct until_arg u = {&r, sent};
	assert_true(wait_until(accounted, &u, 20000));
	struct books b = books_of(&r);
	assert_int_equal(b.total, sent);
	struct gnio_flow_stats fs = {.struct_size = sizeof(fs)};
	assert_ok(gnio_flow_get_stats(r.flow, &fs));
	assert_int_equal(fs.frames, sent);
	assert_int_equal(fs.removed_hits, removed);
	assert_int_equal(fs.default_hits + fs.removed_hits, sent);
	assert_int_equal(b.rx + b.dropped[GNIO_DROP_FLOW_DROP], sent);
	assert_true(b.dropped[GNIO_DROP_FLOW_DROP] > 0 && b.out > 0);
	rig_down(&r);
}

/* A stopped destination: what is still steered to it is counted as stopped
 * by the sender, and the books stay exact. */
static void test_stopped_destination(void **state)
{
	(void)state;
	struct rig r;
	rig_up(&r, "steer_stop", "default -> queue 3\n");
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	send_frames(&r, &g, 0, 0, 1000, 0);
	struct until_arg u = {&r, 1000};
	assert_true(wait_until(accounted, &u, 20000));
	assert_ok(gnio_eth_rxq_quiesce(r.rxq[3]));
	send_frames(&r, &g, 0, 1000, 500, 1000);
	struct until_arg u2 = {&r, 1500};
	assert_true(wait_until(accounted, &u2, 20000));
	struct books b = books_of(&r);
	assert_int_equal(b.total, 1500);
	assert_int_equal(b.rx, 1000);
	assert_int_equal(b.dropped[GNIO_DROP_STOPPED], 500);
	rig_down(&r);
}

static void test_order_rules(void **state)
{
	(void)state;
	struct gnio_dev *dev;
	struct gnio_pipeline *pl;
	assert_ok(gnio_dev_open("sw:steer_order", &dev));
	struct gnio_pipeline_cfg c;
	gnio_pipeline_cfg_init(&c, NULL, "cpu");
	c.dev = dev;
	assert_ok(gnio_pipeline_create(&c, &pl));
	struct gnio_flow *flow;
	assert_gnio(gnio_flow_create(dev, &flow), GNIO_ERROR_BAD_STATE);
	assert_true(strstr(gnio_last_error_msg(), "before starting") != NULL);
	assert_ok(gnio_pipeline_destroy(pl));
	assert_ok(gnio_flow_create(dev, &flow));
	assert_ok(gnio_flow_destroy(flow));
	assert_ok(gnio_dev_close(dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steer_mix),
		cmocka_unit_test(test_rss_spread_and_order),
		cmocka_unit_test(test_rules_change_under_traffic),
		cmocka_unit_test(test_stopped_destination),
		cmocka_unit_test(test_order_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
