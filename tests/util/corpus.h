/* SPDX-License-Identifier: MIT */
/*
 * tests/util/corpus.h - the hostile-frame corpus (tests/corpus/frames and its
 * EXPECTED list) loaded for the tests, and the run that sends every frame
 * through a sw wire into the classify app on a device and checks the books:
 * the CPU device in unit/test_corpus, a CUDA GPU (under compute-sanitizer in
 * scripts/gpu-check) in gpu/test_gpu_corpus.
 */
#ifndef GNIO_TESTS_CORPUS_H
#define GNIO_TESTS_CORPUS_H

#include <stdint.h>
#include "gnio/gnio.h"

#define CORPUS_MAX_FRAMES 256
/* pool slot and largest packet of the end-to-end run */
#define CORPUS_BUFFER 9216u

struct corpus_frame {
	char name[96];
	int expect;      /* enum gnio_proto that gnio_classify must give */
	uint32_t len;
	uint8_t *data;
};

/* Load dir/EXPECTED and its frames. Returns the count, or -1 with the
 * reason on stderr. */
int corpus_load(const char *dir, struct corpus_frame *frames, unsigned max);
void corpus_free(struct corpus_frame *frames, unsigned n);
/* Every frame through sw -> RX queue -> the classify app on device gpu
 * ("cpu" or a bus id), with RX payloads in rx_mem: each frame counted once,
 * per protocol by the kernel as EXPECTED says, or dropped as runt (< 14
 * bytes) or too_big (> CORPUS_BUFFER). cmocka asserts. */
void corpus_run_classify(const char *gpu, enum gnio_gpu_mem_type rx_mem, const struct corpus_frame *frames,
			 unsigned n);

#endif
