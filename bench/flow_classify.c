/* SPDX-License-Identifier: MIT */
/*
 * bench/flow_classify.c - how fast one thread classifies frames with
 * gnio_flow_classify, by rule table: no rules, the mixed table of
 * docs/flow.md, and 64 / 256 rules where frames match only the last one
 * (the worst case: every rule is compared). Frames are a fixed mix of UDP,
 * TCP, ICMP, ARP over IPv4 and IPv6, in bursts of 64.
 *
 *   flow_classify [SECONDS_PER_CASE]     (default 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnio/gnio.h"
#include "../tests/util/flow_frames.h"

#define NFRAMES 1024
#define BURST 64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *last_rule_table(int n)
{
	char *t = malloc((size_t)n * 48 + 64);
	size_t off = 0;

	for (int i = 0; i < n - 1; i++)
		off += (size_t)sprintf(t + off, "udp dport %d -> drop\n", 20000 + i);
	sprintf(t + off, "any -> rss 0-7\n");
	return t;
}

int main(int argc, char **argv)
{
	static uint8_t buf[NFRAMES][1600];
	static struct gnio_flow_frame fr[NFRAMES];
	struct gnio_flow_result res[BURST];
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	static const struct tf_spec kinds[] = {
		{.ipv = 4, .proto = 17, .src = "10.0.0.1", .dst = "10.0.0.2", .dport = 4791},
		{.ipv = 4, .proto = 6, .src = "10.1.0.1", .dst = "192.168.7.2", .dport = 80},
		{.ipv = 6, .proto = 17, .src = "2001:db8::1", .dst = "fd00::2", .dport = 53},
		{.ipv = 6, .proto = 6, .src = "2001:db8::1", .dst = "fd00::2", .sport = 22},
		{.ipv = 4, .proto = 1, .src = "10.0.0.1", .dst = "10.0.0.2"},
		{.arp = 1, .src = "10.0.0.1", .dst = "10.0.0.2"},
	};
	char *t64 = last_rule_table(64), *t256 = last_rule_table(256);
	const struct {
		const char *name;
		const char *rules;
	} cases[] = {
		{"no rules (default gnio)", ""},
		{"docs/flow.md mix, 12 rules", "udp dport 4791-4800 -> rss 0,1,2,3\nicmp -> kernel\nicmp6 -> kernel\n"
					       "arp -> kernel\nvlan 200 -> drop\nipv4 src 10.0.0.0/8 tcp dport 80 -> queue 1\n"
					       "ipv6 udp dport 53 -> queue 2\ndst 192.168.7.0/24 -> cpu 0\n"
					       "tcp sport 1-1023 -> drop\nethertype 0x88cc -> kernel\n"
					       "ipv6 src 2001:db8::/32 -> queue 3\nudp sport 5353 -> gnio\ndefault -> drop\n"},
		{"64 rules, match at the last (rss)", t64},
		{"256 rules, match at the last (rss)", t256},
	};

	for (int i = 0; i < NFRAMES; i++) {
		struct tf_spec s = kinds[i % 6];

		s.sport = (uint16_t)(s.sport + i);
		s.payload = (uint32_t)(i % 7) * 60;
		fr[i].len = tf_build(buf[i], &s);
		fr[i].data = buf[i];
	}
	printf("%-36s %10s %8s\n", "rules", "Mframes/s", "ns/frame");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct gnio_flow *f;
		struct gnio_flow_reader *rd;
		uint64_t n = 0;
		double t0, t;

		if (gnio_flow_create(NULL, &f) || gnio_flow_load_string(f, cases[c].rules, NULL) ||
		    gnio_flow_reader_create(f, 0, &rd)) {
			fprintf(stderr, "flow_classify: %s\n", gnio_last_error_msg());
			return 1;
		}
		t0 = now_s();
		do {
			for (int b = 0; b < NFRAMES; b += BURST)
				gnio_flow_classify(rd, fr + b, BURST, res);
			n += NFRAMES;
			t = now_s();
		} while (t - t0 < secs);
		printf("%-36s %10.1f %8.1f\n", cases[c].name, (double)n / (t - t0) / 1e6, (t - t0) * 1e9 / (double)n);
		gnio_flow_reader_destroy(rd);
		gnio_flow_destroy(f);
	}
	free(t64);
	free(t256);
	return 0;
}
