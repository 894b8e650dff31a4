/* SPDX-License-Identifier: MIT */
/*
 * bench/gen_fill.c - how fast one thread builds frames with gnio_gen_fill,
 * the sw wire's generator, by protocol and size. Frames go into 16,384 pool
 * slots in turn, the way the RX proxy hands them out (2 KiB slots: 32 MiB),
 * so the figure includes the stores' misses, not only the arithmetic; a
 * smaller or odd slot size shows how much of it the misses are.
 *
 *   gen_fill [SECONDS_PER_CASE [SLOT_BYTES]]     (defaults 1 and 2048)
 *
 * One line per case: protocol, size, ns per frame and Mpps; the sw wire's
 * one-queue rate cannot exceed the Mpps shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gnio/gnio.h"

#define NSLOT 16384u

static uint32_t slot = 2048u;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_case(uint8_t *pool, enum gnio_gen_proto proto, uint32_t size, double seconds)
{
	struct gnio_gen_cfg cfg;
	struct gnio_gen *gen;
	uint64_t seq = 0, bytes = 0;
	double t0, dt;

	gnio_gen_cfg_init(&cfg);
	cfg.proto = proto;
	cfg.frame_size = size;
	if (gnio_gen_init(&cfg, &gen) != GNIO_SUCCESS) {
		fprintf(stderr, "gen_fill: %s %u B: %s\n", gnio_gen_proto_name(proto), size, gnio_last_error_msg());
		return 1;
	}
	t0 = now_s();
	do {
		for (uint32_t i = 0; i < NSLOT; i++)
			bytes += gnio_gen_fill(gen, seq++, pool + (size_t)i * slot, slot);
		dt = now_s() - t0;
	} while (dt < seconds);
	gnio_gen_free(gen);
	if (bytes != seq * size) {
		fprintf(stderr, "gen_fill: %s %u B: filled %llu bytes for %llu frames\n", gnio_gen_proto_name(proto),
			size, (unsigned long long)bytes, (unsigned long long)seq);
		return 1;
	}
	printf("%-5s %5u B  %7.2f ns/frame  %7.1f Mpps\n", gnio_gen_proto_name(proto), size, dt * 1e9 / (double)seq,
	       (double)seq / dt / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 64, 128, 512, 1500 };
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	uint8_t *pool;
	int rc = 0;

	if (argc > 2)
		slot = (uint32_t)atoi(argv[2]);
	if (seconds <= 0 || slot < 64u || slot > 65536u) {
		fprintf(stderr, "usage: gen_fill [SECONDS_PER_CASE > 0 [SLOT_BYTES 64..65536]]\n");
		return 2;
	}
	pool = aligned_alloc(4096, ((size_t)slot * NSLOT + 4095u) & ~(size_t)4095u);
	if (!pool) {
		fprintf(stderr, "gen_fill: out of memory for %u slots of %u bytes\n", NSLOT, slot);
		return 2;
	}
	printf("%u slots of %u bytes\n", NSLOT, slot);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (sizes[i] <= slot)
			rc |= run_case(pool, GNIO_GEN_UDP, sizes[i], seconds);
	if (slot >= 128u) {
		rc |= run_case(pool, GNIO_GEN_TCP_ACK, 128, seconds);
		rc |= run_case(pool, GNIO_GEN_MIX, 128, seconds);
	}
	free(pool);
	return rc;
}
