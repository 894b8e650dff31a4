/* SPDX-License-Identifier: MIT */
/*
 * tests/integration/rss_order.c - receive generated frames on a real wire
 * through N RX queues with RSS (the pipeline's rss: a flow whose default
 * spreads over every queue), on the CPU device, and record where each frame
 * went (tests/util/seen.h). Prints one JSON object: the books per queue and
 * in total, and per flow (told apart by source port) whether it stayed in
 * one queue and in order. test_rss_veth.sh drives it with `gnio gen` from
 * the other end of a veth pair and judges the JSON.
 *
 *   gnio_rss_order --wire SPEC --queues N --frames N [--timeout S]
 *
 * Exit: 0 the JSON was printed, 2 usage, 3 the pipeline did not come up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "seen.h"

struct totals {
	uint64_t rx, dropped, out, in, arrived;
};

static struct totals totals_of(struct gnio_pipeline *pl, uint32_t queues, struct gnio_eth_rxq_stats *per)
{
	struct totals t = {0};
	for (uint32_t q = 0; q < queues; q++) {
		struct gnio_pipeline_queue pq;
		if (gnio_pipeline_get_queue(pl, q, &pq) != GNIO_SUCCESS ||
		    gnio_eth_rxq_get_stats(pq.rxq, &per[q]) != GNIO_SUCCESS)
			continue;
		t.rx += per[q].rx_packets;
		t.dropped += per[q].dropped_total;
		t.out += per[q].steered_out;
		t.in += per[q].steered_in;
	}
	/* what the wire delivered: each queue's arrivals, less what moved */
	t.arrived = t.rx + t.dropped + t.out - t.in;
	return t;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(void)
{
	fprintf(stderr, "usage: gnio_rss_order --wire SPEC --queues N --frames N [--timeout S]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *wire = NULL;
	unsigned long queues = 0, frames = 0;
	double timeout = 30;
	for (int i = 1; i + 1 < argc; i += 2) {
		char *end = NULL;
		if (!strcmp(argv[i], "--wire"))
			wire = argv[i + 1];
		else if (!strcmp(argv[i], "--queues"))
			queues = strtoul(argv[i + 1], &end, 10);
		else if (!strcmp(argv[i], "--frames"))
			frames = strtoul(argv[i + 1], &end, 10);
		else if (!strcmp(argv[i], "--timeout"))
			timeout = strtod(argv[i + 1], &end);
		else
			return usage();
		if (end && *end)
			return usage();
	}
	if (argc % 2 == 0 || !wire || queues < 2 || queues > SEEN_MAX_QUEUES || !frames || timeout <= 0)
		return usage();

	struct seen *seen = seen_create(frames);
	struct seen_kernel_arg k[SEEN_MAX_QUEUES];
	struct gnio_pipeline_cfg c;
	struct gnio_pipeline *pl;
	gnio_pipeline_cfg_init(&c, wire, "cpu");
	c.queues = (uint32_t)queues;
	c.rss = 1;
	if (!seen || gnio_pipeline_create(&c, &pl) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio_rss_order: %s\n", seen ? gnio_last_error_msg() : "out of memory");
		return 3;
	}
	for (uint32_t q = 0; q < queues; q++) {
		struct gnio_pipeline_queue pq;
		gnio_error_t e = gnio_pipeline_get_queue(pl, q, &pq);
		k[q] = (struct seen_kernel_arg){pq.rxh, seen, (uint8_t)q};
		if (e == GNIO_SUCCESS)
			e = gnio_pipeline_launch(pl, q, seen_kernel, &k[q]);
		if (e != GNIO_SUCCESS) {
			fprintf(stderr, "gnio_rss_order: queue %u: %s\n", q, gnio_last_error_msg());
			gnio_pipeline_destroy(pl);
			return 3;
		}
	}
	fprintf(stderr, "gnio_rss_order: %lu queues on %s, running\n", queues, wire);

	/* Until the wire delivered every frame and each delivered frame is
	 * recorded, or the timeout. */
	struct gnio_eth_rxq_stats per[SEEN_MAX_QUEUES];
	struct totals t;
	const double until = now_s() + timeout;
	for (;;) {
		t = totals_of(pl, (uint32_t)queues, per);
		if (t.arrived >= frames && t.in == t.out && seen_count(seen) >= t.rx)
			break;
		if (now_s() > until)
			break;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	gnio_error_t stop = gnio_pipeline_quiesce(pl, 5000);
	if (stop == GNIO_SUCCESS)
		stop = gnio_pipeline_rollback(pl, 5000, NULL, NULL);
	/* The kernels have stopped: every entry is written. */
	t = totals_of(pl, (uint32_t)queues, per);
	struct seen_flow_report fr;
	seen_check_flows(seen, &fr);

	printf("{\"wire\": \"%s\", \"queues\": %lu, \"frames\": %lu, \"arrived\": %llu, \"rx_packets\": %llu, "
	       "\"dropped_total\": %llu, \"steered_out\": %llu, \"steered_in\": %llu, \"recorded\": %llu, "
	       "\"bad\": %llu, \"flows\": %llu, \"split_flows\": %llu, \"reordered\": %llu, \"stop\": \"%s\", "
	       "\"per_queue\": [",
	       wire, queues, frames, (unsigned long long)t.arrived, (unsigned long long)t.rx,
	       (unsigned long long)t.dropped, (unsigned long long)t.out, (unsigned long long)t.in,
	       (unsigned long long)seen_count(seen), (unsigned long long)seen->bad, (unsigned long long)fr.flows,
	       (unsigned long long)fr.split, (unsigned long long)fr.reordered, gnio_error_get_name(stop));
	for (uint32_t q = 0; q < queues; q++) {
		printf("%s{\"rx_packets\": %llu, \"dropped_total\": %llu, \"steered_out\": %llu, "
		       "\"steered_in\": %llu, \"recorded\": %llu, \"dropped\": {",
		       q ? ", " : "", (unsigned long long)per[q].rx_packets, (unsigned long long)per[q].dropped_total,
		       (unsigned long long)per[q].steered_out, (unsigned long long)per[q].steered_in,
		       (unsigned long long)seen->per_queue[q]);
		/* the reasons with a count, so a failed run says where frames went */
		const char *sep = "";
		for (int r = 0; r < GNIO_DROP_REASON_COUNT; r++)
			if (per[q].dropped[r]) {
				printf("%s\"%s\": %llu", sep, gnio_drop_reason_name((enum gnio_drop_reason)r),
				       (unsigned long long)per[q].dropped[r]);
				sep = ", ";
			}
		printf("}}");
	}
	printf("]}\n");
	gnio_pipeline_destroy(pl);
	seen_destroy(seen);
	return 0;
}
