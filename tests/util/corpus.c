/* SPDX-License-Identifier: MIT */
/* tests/util/corpus.c - see corpus.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "corpus.h"
#include "testutil.h"
#include "gnio/apps/classify.h"

static int proto_by_name(const char *n)
{
	for (int p = 0; p < GNIO_PROTO_COUNT; p++)
		if (!strcmp(gnio_proto_name(p), n))
			return p;
	return -1;
}

int corpus_load(const char *dir, struct corpus_frame *frames, unsigned max)
{
	char path[512], line[256];
	unsigned n = 0;
	snprintf(path, sizeof(path), "%s/EXPECTED", dir);
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
		if (n == max || proto_by_name(expect) < 0) {
			fprintf(stderr, "%s: too many frames or unknown protocol '%s'\n", path, expect);
			fclose(m);
			return -1;
		}
		struct corpus_frame *f = &frames[n++];
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->expect = proto_by_name(expect);
		f->len = len;
		f->data = malloc(len ? len : 1);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		FILE *b = fopen(path, "rb");
		int ok = b && f->data && fread(f->data, 1, len, b) == len && fgetc(b) == EOF;
		if (b)
			fclose(b);
		if (!ok) {
			fprintf(stderr, "%s: missing or not %u bytes\n", path, len);
			fclose(m);
			return -1;
		}
	}
	fclose(m);
	return (int)n;
}

void corpus_free(struct corpus_frame *frames, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(frames[i].data);
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

void corpus_run_classify(const char *gpu, enum gnio_gpu_mem_type rx_mem, const struct corpus_frame *frames,
			 unsigned n)
{
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "sw:corpus");
	c.gpu = gpu;
	c.ring = 128;
	c.slot = CORPUS_BUFFER;
	c.max_packet = CORPUS_BUFFER;
	c.rx_mem = rx_mem;
	assert_ok(tpipe_up(&p, &c));
	assert_ok(tpipe_launch(&p, "classify"));

	uint64_t want[GNIO_PROTO_COUNT] = {0}, runt = 0, too_big = 0, delivered = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct corpus_frame *f = &frames[i];
		assert_ok(gnio_sw_peer_send(p.peer, 0, f->data, f->len));
		if (f->len < 14)
			runt++;
		else if (f->len > CORPUS_BUFFER)
			too_big++;
		else
			want[f->expect]++, delivered++;
	}
	struct books b = {&p, n};
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
	assert_int_equal(st.rx_packets + st.dropped_total, n);
	assert_int_equal(gnio_load_acquire_u64(&p.stats_cpu->packets), delivered);
	for (int k = 0; k < GNIO_PROTO_COUNT; k++) {
		uint64_t got = gnio_load_acquire_u64(&p.stats_cpu->proto[k]);
		if (got != want[k])
			fail_msg("classify app counted %llu %s frames, expected %llu", (unsigned long long)got,
				 gnio_proto_name(k), (unsigned long long)want[k]);
	}
	print_message("%s: %u frames: %llu classified, %llu runt, %llu too_big\n", gpu, n,
		      (unsigned long long)delivered, (unsigned long long)runt, (unsigned long long)too_big);
	tpipe_down(&p);
}
