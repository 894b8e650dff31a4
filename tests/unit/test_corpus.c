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

#include "corpus.h"
#include "testutil.h"
#include "gnio/apps/classify.h"

static struct corpus_frame frames[CORPUS_MAX_FRAMES];
static unsigned nframes;

static int load(void **state)
{
	(void)state;
	int n = corpus_load(GNIO_CORPUS_DIR, frames, CORPUS_MAX_FRAMES);
	if (n < 50)
		return -1;
	nframes = (unsigned)n;
	return 0;
}

static int unload(void **state)
{
	(void)state;
	corpus_free(frames, nframes);
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

static void test_e2e_cpu_device(void **state)
{
	(void)state;
	corpus_run_classify("cpu", GNIO_GPU_MEM_TYPE_CPU_GPU, frames, nframes);
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
