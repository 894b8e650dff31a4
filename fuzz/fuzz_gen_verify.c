/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_gen_verify.c - libFuzzer target: the generator's parse and
 * verify paths (what gnio sink --verify runs on every received frame).
 * Input: 8 bytes of configuration (protocol, frame size, first sequence
 * number, flows), then the frame. The frame is checked against the
 * configuration (gnio_gen_stamp_read, gnio_gen_verify), the configuration is
 * checked and built from (gnio_gen_cfg_check, gnio_gen_build into a buffer of
 * a fuzzed size), and the frame's first bytes go to gnio_gen_proto_parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gnio/gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8 || size > 8 + GNIO_GEN_MAX_FRAME)
		return 0;
	struct gnio_gen_cfg cfg;
	gnio_gen_cfg_init(&cfg);
	cfg.proto = (enum gnio_gen_proto)(data[0] % (GNIO_GEN_PROTO_COUNT + 1)); /* one past: invalid */
	uint32_t frame_len = (uint32_t)(size - 8);
	/* bit 7 of data[1]: the frame's own length (verify goes on to rebuild);
	 * else a size from the input, possibly out of range */
	cfg.frame_size = (data[1] & 0x80) ? frame_len : ((uint32_t)(data[1] & 0x7f) << 8 | data[2]) * 2u;
	cfg.first_seq = (uint64_t)data[3] << 40 | (uint64_t)data[4] << 8;
	cfg.flows = data[5];
	uint32_t cap = ((uint32_t)data[6] << 8 | data[7]) % (GNIO_GEN_MAX_FRAME + 64);
	uint64_t build_seq = cfg.first_seq + data[5]; /* a sequence number verify can place */

	uint8_t *frame = malloc(frame_len ? frame_len : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 8, frame_len);
	uint64_t seq;
	gnio_gen_stamp_read(frame, frame_len, &seq);
	gnio_error_t v = gnio_gen_verify(&cfg, frame, frame_len, &seq);

	char why[128];
	if (gnio_gen_cfg_check(&cfg, why, sizeof(why)) == GNIO_SUCCESS) {
		uint8_t *out = malloc(cap ? cap : 1);
		if (out) {
			uint32_t n = gnio_gen_build(&cfg, build_seq, out, cap);
			if (n > cap)
				abort();
			/* what was built verifies, stamp and all */
			if (n && n == cfg.frame_size && (gnio_gen_verify(&cfg, out, n, &seq) != GNIO_SUCCESS ||
							   seq != build_seq))
				abort();
			free(out);
		}
	} else if (v == GNIO_SUCCESS) {
		abort(); /* a frame verified against a configuration that is refused */
	}

	char name[16];
	size_t nl = frame_len < sizeof(name) - 1 ? frame_len : sizeof(name) - 1;
	memcpy(name, frame, nl);
	name[nl] = 0;
	enum gnio_gen_proto pr;
	if (gnio_gen_proto_parse(name, &pr) == GNIO_SUCCESS && !gnio_gen_proto_name(pr))
		abort();
	free(frame);
	return 0;
}
