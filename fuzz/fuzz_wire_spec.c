/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_wire_spec.c - libFuzzer target: gnio_dev_open on wire specs.
 * The first byte picks the kind (sw, null, pcap, or the input as a whole
 * spec, kind included); the rest is the text after "kind:". Only wires
 * without side effects outside the process are opened (pcap opens input
 * files for reading only; its output file is written by a TX queue, never
 * opened here). pcap file names are kept relative and without '/', and the
 * target runs in an empty directory, so no real file (nor stdin, "-") is
 * read: the file path is fuzz_pcap's job. An sw wire reserves 2 x depth x
 * 2 KiB per queue (up to 16 GiB of address space at queues=64,depth=65536),
 * which slows the target to a crawl; specs asking for more than 1024
 * descriptors in all go through the option check only. What opens must
 * describe itself and close again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "eth/wire.h"
#include "eth/wire_opts.h"
#include "gnio/dev.h"
#include "gnio/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	gnio_log_set_level(GNIO_LOG_LEVEL_DISABLE);
	char dir[] = "/tmp/gnio-fuzz-spec.XXXXXX";
	if (!mkdtemp(dir) || chdir(dir))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = {"sw:", "null:", "pcap:", ""};
	if (!size || size > 400)
		return 0;
	const char *kind = kinds[data[0] % 4];
	char spec[512];
	size_t kl = strlen(kind);
	memcpy(spec, kind, kl);
	memcpy(spec + kl, data + 1, size - 1);
	spec[kl + size - 1] = 0;
	/* the raw form may name any kind: keep to the side-effect-free ones */
	if (!kind[0] && strncmp(spec, "sw:", 3) && strncmp(spec, "null:", 5) && strncmp(spec, "pcap:", 5))
		return 0;
	if (!strncmp(spec, "pcap:", 5)) {
		size_t name_len = strcspn(spec + 5, ",");
		if (memchr(spec + 5, '/', name_len) || (name_len == 1 && spec[5] == '-'))
			return 0;
	}
	if (!strncmp(spec, "sw:", 3)) {
		const char *opts = gnio_wire_split_args(spec + 3, NULL, 0);
		uint32_t depth = 4096, queues = 8;
		gnio_wire_opt_u32(opts, "depth", 0, UINT32_MAX, &depth);
		gnio_wire_opt_u32(opts, "queues", 0, UINT32_MAX, &queues);
		if ((uint64_t)depth * queues > 1024) {
			gnio_wire_check_opts("sw", opts);
			return 0;
		}
	}
	struct gnio_dev *dev = NULL;
	gnio_error_t e = gnio_dev_open(spec, &dev);
	if (e != GNIO_SUCCESS) {
		if (dev || !gnio_last_error_msg()[0])
			abort(); /* a refusal leaves nothing open and says why */
		return 0;
	}
	struct gnio_devinfo *info = gnio_dev_as_devinfo(dev);
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	if (gnio_devinfo_get_caps(info, &caps) != GNIO_SUCCESS || strcmp(gnio_devinfo_get_spec(info), spec))
		abort();
	if (gnio_dev_close(dev) != GNIO_SUCCESS)
		abort();
	return 0;
}
