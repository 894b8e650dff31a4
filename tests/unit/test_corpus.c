/* SPDX-License-Identifier: MIT */
/*
 * test_corpus.c - the hostile-frame corpus (tests/corpus/frames, written by
 * tests/corpus/make_frames.py): runts, truncated headers, IHL < 5, lying
 * total lengths, TCP data offsets past the end, VLAN/QinQ/triple tags, IPv6
 * extension chains, odd ARP, zero-length UDP, jumbo frames, HTTP requests
 * longer than the packet buffer.
 *   - gnio_classify gives each frame the result EXPECTED names, and never
 *     reads past the end: every prefix of every frame is classified from a
 *     buffer of exactly that size (ASan in test-sanitize catches a byte over);
 *   - the generator's stamp reader and verifier reject every frame;
 *   - end to end on the CPU device (sw wire -> classify app) every frame is
 *     counted exactly once: per protocol by the kernel, or dropped as runt
 *     (< 14 bytes) or too_big (> the 9216-byte buffer).
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
#include "gnio/apps/classify.h"

#define MAX_FRAMES 256
#define BUFFER 9216u /* pool slot and max packet size of the end-to-end run */

struct frame {
	char name[96];
	int expect;      /* enum gnio_proto */
	uint32_t len;
	uint8_t *data;
};

static struct frame frames[MAX_FRAMES];
static unsigned nframes;

static int proto_by_name(const char *n)
{
	for (int p = 0; p < GNIO_PROTO_COUNT; p++)
		if (!strcmp(gnio_proto_name(p), n))
			return p;
	return -1;
}

static int load(void **state)
{
	(void)state;
	char path[512], line[256];
	snprintf(path, sizeof(path), "%s/EXPECTED", GNIO_CORPUS_DIR);
	FILE *m = fopen(path, "r");
	if (!m) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), m)) {
		char name[96], expect[32];
		unsigned len;
		if (line[0] == '#' || sscanf(line, "%95s %31s %u", name, expect, &len) != 3)
			continue;
		if (nframes == MAX_FRAMES || proto_by_name(expect) < 0)
			return -1;
		struct frame *f = &frames[nframes++];
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->expect = proto_by_name(expect);
		f->len = len;
		f->data = malloc(len ? len : 1);
		snprintf(path, sizeof(path), "%s/%s", GNIO_CORPUS_DIR, name);
		FILE *b = fopen(path, "rb");
		if (!b || !f->data || fread(f->data, 1, len, b) != len || fgetc(b) != EOF) {
			fprintf(stderr, "%s: missing or not %u bytes\n", path, len);
			return -1;
		}
		fclose(b);
	}
	fclose(m);
	return nframes >= 50 ? 0 : -1;
}

static int unload(void **state)
{
	(void)state;
	for (unsigned i = 0; i < nframes; i++)
		free(frames[i].data);
	return 0;
}

static void test_classify_expected(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (unsigned i = 0; i < nframes; i++) {
		int got = gnio_classify(frames[i].data, frames[i].len);
		if (got != frames[i].expect) {
			print_error("%s: classify says %s, EXPECTED %s\n", frames[i].name, gnio_proto_name(got),
				    gnio_proto_name(frames[i].expect));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_classify_every_prefix(void **state)
{
	(void)state;
	uint64_t calls = 0;
	for (unsigned i = 0; i < nframes; i++) {
		for (uint32_t n = 0; n <= frames[i].len; n++) {
			/* exactly n bytes on the heap: one byte read past them is
			 * an ASan error in the sanitizer build */
			uint8_t *b = malloc(n ? n : 1);
			assert_non_null(b);
			memcpy(b, frames[i].data, n);
			int p = gnio_classify(b, n);
			assert_true(p >= 0 && p < GNIO_PROTO_COUNT);
			if (n < 14)
				assert_int_equal(p, GNIO_PROTO_MALFORMED);
			free(b);
			calls++;
		}
	}
	print_message("%llu classify calls on prefixes\n", (unsigned long long)calls);
}

static void test_generator_rejects_all(void **state)
{
	(void)state;
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.proto = GNIO_GEN_MIX;
	for (unsigned i = 0; i < nframes; i++) {
		uint64_t seq;
		uint8_t *b = malloc(frames[i].len ? frames[i].len : 1);
		assert_non_null(b);
		memcpy(b, frames[i].data, frames[i].len);
		gnio_error_t e = gnio_gen_verify(&g, b, frames[i].len, &seq);
		if (e == GNIO_SUCCESS)
			fail_msg("%s verified as generated frame %llu", frames[i].name, (unsigned long long)seq);
		gnio_gen_stamp_read(b, frames[i].len, &seq);
		free(b);
	}
}

struct books {
	struct tpipe *p;
	uint64_t n;
};

static int all_counted(void *arg)
{
	struct books *b = arg;
	struct gnio_eth_rxq_stats st;
	gnio_eth_rxq_get_stats(b->p->rxq, &st);
	return st.rx_packets + st.dropped_total >= b->n;
}

static void test_e2e_cpu_device(void **state)
{
	(void)state;
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "sw:corpus");
	c.ring = 128;
	c.slot = BUFFER;
	c.max_packet = BUFFER;
	assert_ok(tpipe_up(&p, &c));
	assert_ok(tpipe_launch(&p, "classify"));

	uint64_t want[GNIO_PROTO_COUNT] = {0}, runt = 0, too_big = 0, delivered = 0;
	for (unsigned i = 0; i < nframes; i++) {
		const struct frame *f = &frames[i];
		assert_ok(gnio_sw_peer_send(p.peer, 0, f->data, f->len));
		if (f->len < 14)
			runt++;
		else if (f->len > BUFFER)
			too_big++;
		else
			want[f->expect]++, delivered++;
	}
	struct books b = {&p, nframes};
	assert_true(wait_until(all_counted, &b, 10000));
	assert_ok(gnio_eth_rxq_quiesce(p.rxq));
	struct gnio_eth_rxq_stats st;
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &st));
	assert_true(tpipe_wait_packets(&p, st.rx_packets, 10000));
	assert_ok(gnio_runner_stop(p.runner, 5000));

	assert_int_equal(st.rx_packets, delivered);
	assert_int_equal(st.dropped[GNIO_DROP_RUNT], runt);
	assert_int_equal(st.dropped[GNIO_DROP_TOO_BIG], too_big);
	assert_int_equal(st.dropped_total, runt + too_big);
	assert_int_equal(st.rx_packets + st.dropped_total, nframes);
	assert_int_equal(gnio_load_acquire_u64(&p.stats_cpu->packets), delivered);
	for (int k = 0; k < GNIO_PROTO_COUNT; k++) {
		uint64_t got = gnio_load_acquire_u64(&p.stats_cpu->proto[k]);
		if (got != want[k])
			fail_msg("classify app counted %llu %s frames, expected %llu", (unsigned long long)got,
				 gnio_proto_name(k), (unsigned long long)want[k]);
	}
	print_message("%u frames: %llu classified, %llu runt, %llu too_big\n", nframes,
		      (unsigned long long)delivered, (unsigned long long)runt, (unsigned long long)too_big);
	tpipe_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_expected),
		cmocka_unit_test(test_classify_every_prefix),
		cmocka_unit_test(test_generator_rejects_all),
		cmocka_unit_test(test_e2e_cpu_device),
	};
	return cmocka_run_group_tests(tests, load, unload);
}
