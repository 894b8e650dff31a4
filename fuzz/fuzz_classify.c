/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_classify.c - libFuzzer target: gnio_classify on arbitrary bytes.
 * The frame sits in a heap buffer of exactly its size, so a read past the
 * end is an AddressSanitizer error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gnio/apps/classify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65535)
		return 0; /* no Ethernet frame is longer */
	uint8_t *f = malloc(size ? size : 1);
	if (!f)
		return 0;
	memcpy(f, data, size);
	int p = gnio_classify(f, (uint32_t)size);
	if (p < 0 || p >= GNIO_PROTO_COUNT || !gnio_proto_name(p)[0])
		abort();
	free(f);
	return 0;
}
