/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_sink.c - `gnio sink`: receive and count frames from a wire.
 *
 * Drives the wire's ops table directly, so it checks a wire (or the far end of
 * a gnio pipeline) without a device. Counts per protocol with the same
 * classifier the apps use and, with --verify, checks each generator stamp,
 * the frame bytes and the sequence order.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "json.h"
#include "gnio/apps/classify.h"
#include "gnio/dev.h"
#include "gnio/gen.h"
#include "eth/dev_priv.h"

int gnio_cli_env_exit(gnio_error_t e); /* cmd_gen.c */

static volatile sig_atomic_t sink_stop;

static void on_sig(int s)
{
	(void)s;
	sink_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sink_usage(FILE *f)
{
	fprintf(f,
		"usage: gnio sink --wire SPEC [options]\n"
		"Receive frames from a wire and count them (per protocol), optionally checking gnio gen stamps.\n\n"
		"  --wire SPEC      wire to receive from (required)\n"
		"  --duration S     stop after S seconds (default 10; 0 = no limit)\n"
		"  --count N        stop once N frames were received or dropped by the wire\n"
		"  --idle S         stop after S seconds without a frame, once one arrived\n"
		"  --verify         check stamps, bytes and order against --proto/--size/--flows\n"
		"  --proto P --size N --flows F --first-seq S   the generator settings to verify against\n"
		"  --max-frame N    largest frame accepted; longer ones count as too_big\n"
		"  --queue Q        wire queue (default 0)\n"
		"  --json           print one JSON object as the last line\n"
		"  -h, --help       this text\n"
		"Prints 'gnio sink: ready' on stderr once the queue is open.\n"
		"Exit: 0 ok (and, with --count, all N received and verified), 1 short or bad frames,\n"
		"2 usage, 3 environment (interface, privilege).\n");
}

int gnio_cmd_sink(int argc, char **argv)
{
	static const struct option lo[] = {
		{"wire", required_argument, 0, 'w'}, {"duration", required_argument, 0, 'd'},
		{"count", required_argument, 0, 'c'}, {"idle", required_argument, 0, 'i'},
		{"verify", no_argument, 0, 'v'}, {"proto", required_argument, 0, 'p'},
		{"size", required_argument, 0, 's'}, {"flows", required_argument, 0, 'f'},
		{"first-seq", required_argument, 0, 'S'}, {"max-frame", required_argument, 0, 'm'},
		{"queue", required_argument, 0, 'q'}, {"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	enum { BURST = 64 };
	struct gnio_wire_frame fr[BURST];
	struct gnio_gen_cfg gcfg;
	struct gnio_wire_queue_cfg qc;
	struct gnio_wire_caps caps;
	struct gnio_wire_rxq_stats ws = {0}, ws0 = {0};
	struct gnio_dev *dev = NULL;
	const char *spec = NULL;
	double duration = 10, idle = 0;
	uint64_t count = 0;
	uint32_t max_frame = 0;
	unsigned queue = 0;
	int verify = 0, json = 0, opt, rc = GNIO_EXIT_FAIL;
	uint8_t *bufs = NULL;
	void *rxq = NULL;
	gnio_error_t err;

	gnio_gen_cfg_init(&gcfg);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char *end = NULL;

		switch (opt) {
		case 'w': spec = optarg; break;
		case 'd': duration = strtod(optarg, &end); break;
		case 'c': count = strtoull(optarg, &end, 0); break;
		case 'i': idle = strtod(optarg, &end); break;
		case 'v': verify = 1; break;
		case 'p':
			if (gnio_gen_proto_parse(optarg, &gcfg.proto)) {
				fprintf(stderr, "gnio sink: unknown protocol '%s'\n", optarg);
				return GNIO_EXIT_USAGE;
			}
			break;
		case 's': gcfg.frame_size = (uint32_t)strtoul(optarg, &end, 0); break;
		case 'f': gcfg.flows = (uint32_t)strtoul(optarg, &end, 0); break;
		case 'S': gcfg.first_seq = strtoull(optarg, &end, 0); break;
		case 'm': max_frame = (uint32_t)strtoul(optarg, &end, 0); break;
		case 'q': queue = (unsigned)strtoul(optarg, &end, 0); break;
		case 'j': json = 1; break;
		case 'h': sink_usage(stdout); return GNIO_EXIT_OK;
		default: sink_usage(stderr); return GNIO_EXIT_USAGE;
		}
		if (end && *end) {
			fprintf(stderr, "gnio sink: bad number '%s'\n", optarg);
			return GNIO_EXIT_USAGE;
		}
	}
	if (optind < argc || !spec) {
		fprintf(stderr, "gnio sink: %s\n", spec ? "unexpected argument" : "--wire SPEC is required");
		return GNIO_EXIT_USAGE;
	}
	if (duration < 0 || idle < 0 || (max_frame && max_frame < 14)) {
		fprintf(stderr, "gnio sink: --duration/--idle must be >= 0 and --max-frame >= 14\n");
		return GNIO_EXIT_USAGE;
	}
	err = gnio_dev_open(spec, &dev);
	if (err) {
		fprintf(stderr, "gnio sink: %s\n", gnio_last_error_msg());
		return gnio_cli_env_exit(err);
	}
	memset(&caps, 0, sizeof(caps));
	caps.struct_size = sizeof(caps);
	dev->ops->caps(dev->wire, &caps);
	if (!max_frame)
		max_frame = caps.max_frame_size ? caps.max_frame_size : 9216;
	if (max_frame > caps.max_frame_size && caps.max_frame_size) {
		fprintf(stderr, "gnio sink: --max-frame %u is larger than %s carries (%u)\n", max_frame, spec,
			caps.max_frame_size);
		rc = GNIO_EXIT_USAGE;
		goto out;
	}
	memset(&qc, 0, sizeof(qc));
	qc.queue_id = (uint16_t)queue;
	qc.max_frame = max_frame;
	qc.ring_size = 4096;
	qc.burst = BURST;
	err = dev->ops->rxq_open(dev->wire, &qc, &rxq);
	if (err) {
		fprintf(stderr, "gnio sink: %s\n", gnio_last_error_msg());
		rc = gnio_cli_env_exit(err);
		goto out;
	}
	dev->ops->caps(dev->wire, &caps);
	bufs = malloc((size_t)BURST * max_frame);
	if (!bufs) {
		fprintf(stderr, "gnio sink: out of memory\n");
		goto out;
	}
	dev->ops->rxq_stats(rxq, &ws0); /* counters of a reused socket start here */
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	fprintf(stderr, "gnio sink: ready on %s (%s)\n", spec, caps.mode);

	uint64_t rx = 0, bytes = 0, too_big = 0, runt = 0, per[GNIO_PROTO_COUNT] = {0};
	uint64_t v_ok = 0, v_bad = 0, v_nostamp = 0, v_ooo = 0, v_gap = 0, next_seq = gcfg.first_seq;
	uint64_t first_seq = 0, last_seq = 0;
	uint64_t t0 = mono_ns(), t_first = 0, t_last = 0, last_stats = t0;
	unsigned empty = 0;

	while (!sink_stop) {
		for (unsigned i = 0; i < BURST; i++) {
			fr[i].data = bufs + (size_t)i * max_frame;
			fr[i].cap = max_frame;
			fr[i].len = 0;
		}
		unsigned got = dev->ops->rx_burst(rxq, fr, BURST);
		uint64_t now;

		if (got) {
			empty = 0;
			now = mono_ns();
			if (!t_first)
				t_first = now;
			t_last = now;
		} else {
			now = mono_ns();
			if (++empty > 256) {
				struct timespec ns = {0, 50000};

				nanosleep(&ns, NULL);
			}
		}
		for (unsigned i = 0; i < got; i++) {
			const struct gnio_wire_frame *f = &fr[i];
			uint64_t seq;

			if (f->len > f->cap) {
				too_big++;
				continue;
			}
			if (f->len < 14) {
				runt++;
				continue;
			}
			rx++;
			bytes += f->len;
			per[gnio_classify(f->data, f->len)]++;
			if (!verify)
				continue;
			gnio_error_t ve = gnio_gen_verify(&gcfg, f->data, f->len, &seq);
			if (ve == GNIO_ERROR_NOT_FOUND) {
				v_nostamp++;
				continue;
			}
			if (ve) {
				v_bad++;
				continue;
			}
			v_ok++;
			if (v_ok == 1)
				first_seq = seq;
			last_seq = seq;
			if (seq < next_seq) {
				v_ooo++;
			} else {
				v_gap += seq - next_seq;
				next_seq = seq + 1;
			}
		}
		if (now - last_stats > 100000000ull || (count && rx + too_big + runt >= count)) {
			dev->ops->rxq_stats(rxq, &ws);
			last_stats = now;
		}
		if (count && rx + too_big + runt + (ws.overflow - ws0.overflow) >= count) {
			/* one more look: frames still in flight */
			if (!got)
				break;
		}
		if (duration > 0 && now - t0 >= (uint64_t)(duration * 1e9))
			break;
		if (idle > 0 && t_last && now - t_last >= (uint64_t)(idle * 1e9))
			break;
	}
	dev->ops->rxq_stats(rxq, &ws);
	uint64_t overflow = ws.overflow - ws0.overflow;
	double secs = (double)(mono_ns() - t0) / 1e9;
	double active = t_last > t_first ? (double)(t_last - t_first) / 1e9 : 0;
	double pps = active > 0 && rx > 1 ? (double)(rx - 1) / active : 0;

	if (json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_obj_begin(&j, NULL);
		json_str(&j, "wire", spec);
		json_str(&j, "mode", caps.mode);
		json_u64(&j, "rx_packets", rx);
		json_u64(&j, "rx_bytes", bytes);
		json_obj_begin(&j, "dropped");
		json_u64(&j, "too_big", too_big);
		json_u64(&j, "runt", runt);
		json_u64(&j, "wire_overflow", overflow);
		json_obj_end(&j);
		json_u64(&j, "dropped_total", too_big + runt + overflow);
		json_u64(&j, "seen", rx + too_big + runt + overflow);
		json_obj_begin(&j, "proto");
		for (int p = 0; p < GNIO_PROTO_COUNT; p++)
			json_u64(&j, gnio_proto_name(p), per[p]);
		json_obj_end(&j);
		if (verify) {
			json_obj_begin(&j, "verify");
			json_u64(&j, "ok", v_ok);
			json_u64(&j, "bad", v_bad);
			json_u64(&j, "no_stamp", v_nostamp);
			json_u64(&j, "out_of_order", v_ooo);
			json_u64(&j, "gaps", v_gap);
			json_u64(&j, "first_seq", first_seq);
			json_u64(&j, "last_seq", last_seq);
			json_obj_end(&j);
		}
		json_dbl(&j, "elapsed_s", secs);
		json_dbl(&j, "active_s", active);
		json_dbl(&j, "pps", pps);
		json_dbl(&j, "mpps", pps / 1e6);
		json_obj_end(&j);
		json_finish(&j);
	} else {
		printf("gnio sink: %llu frames, %llu bytes on %s (%s) in %.3f s (%.3f Mpps while active); dropped: "
		       "too_big %llu runt %llu wire_overflow %llu\n",
		       (unsigned long long)rx, (unsigned long long)bytes, spec, caps.mode, secs, pps / 1e6,
		       (unsigned long long)too_big, (unsigned long long)runt, (unsigned long long)overflow);
		for (int p = 0; p < GNIO_PROTO_COUNT; p++)
			if (per[p])
				printf("  %-10s %llu\n", gnio_proto_name(p), (unsigned long long)per[p]);
		if (verify)
			printf("  verify: ok %llu bad %llu no_stamp %llu out_of_order %llu gaps %llu\n",
			       (unsigned long long)v_ok, (unsigned long long)v_bad, (unsigned long long)v_nostamp,
			       (unsigned long long)v_ooo, (unsigned long long)v_gap);
	}
	rc = GNIO_EXIT_OK;
	if (verify && (v_bad || v_ooo || v_nostamp))
		rc = GNIO_EXIT_FAIL;
	if (count && rx < count)
		rc = GNIO_EXIT_FAIL;
out:
	if (rxq)
		dev->ops->rxq_close(rxq);
	if (dev)
		gnio_dev_close(dev);
	free(bufs);
	return rc;
}
