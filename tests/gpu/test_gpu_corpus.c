/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_corpus.c - the hostile-frame corpus (tests/corpus/frames) end to
 * end on a CUDA GPU: every frame through a sw wire into the CUDA classify
 * kernel, with RX payloads in pinned host memory and then in GPU memory
 * (staged copies), each frame counted once: per protocol by the kernel as
 * tests/corpus/frames/EXPECTED says, or dropped as runt or too_big.
 * scripts/gpu-check runs it (with every GPU test) under compute-sanitizer
 * memcheck, so a read past a frame by the device-side parser is reported.
 * The same run on the CPU device is unit/test_corpus. Skips (77) without a
 * usable CUDA GPU.
 */
#include "gpu_test.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "corpus.h"

static struct corpus_frame frames[CORPUS_MAX_FRAMES];
static unsigned nframes;
static char bus[32];

static void test_corpus_cpu_gpu_pool(void **state)
{
	(void)state;
	corpus_run_classify(bus, GNIO_GPU_MEM_TYPE_CPU_GPU, frames, nframes);
}

static void test_corpus_gpu_pool(void **state)
{
	(void)state;
	corpus_run_classify(bus, GNIO_GPU_MEM_TYPE_GPU, frames, nframes);
}

int main(void)
{
	gt_find_gpu(bus, sizeof(bus)); /* exits 77 with the reason when none */
	/* The build's source tree, unless the tests run from a copy of it
	 * elsewhere (scripts/gpu-check sets GNIO_CORPUS_DIR). */
	const char *dir = getenv("GNIO_CORPUS_DIR");
	int n = corpus_load(dir && *dir ? dir : GNIO_CORPUS_DIR, frames, CORPUS_MAX_FRAMES);
	GT_CHECK(n >= 50, "the corpus did not load (%d frames)", n);
	nframes = (unsigned)n;
	printf("corpus: %u frames on %s\n", nframes, bus);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_cpu_gpu_pool),
		cmocka_unit_test(test_corpus_gpu_pool),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	corpus_free(frames, nframes);
	return rc;
}
