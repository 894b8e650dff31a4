/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_gen.c - `gnio gen`: put generated frames on a wire.
 *
 * Sends on a TX queue of the host datapath (gnio_eth_txq_send_burst: no proxy,
 * no device), so it can feed a gnio pipeline from the other end of a veth
 * pair, fill a pcap file, or measure a wire's send rate by itself.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "json.h"
#include "wireopt.h"

#define GEN_RING 4096u /* frame buffers the wire may still hold (tx_reap) */

static void gen_usage(FILE *f)
{
	fprintf(f,
		"usage: gnio gen --wire SPEC [options]\n"
		"Generate numbered Ethernet/IPv4 frames onto a wire (afxdp:IF, afpacket:IF, pcap:,out=F, ...).\n\n"
		"  --wire SPEC     wire to send on (required)\n"
		"  --count N       frames to send (default 1; 0 = until Ctrl-C)\n"
		"  --proto P       udp|dns|tcp|tcp-syn|tcp-ack|tcp-fin|http|icmp|arp|mix (default udp)\n"
		"  --size N        frame size in bytes without FCS (default 64)\n"
		"  --rate PPS      frames per second (default 0 = as fast as the wire takes them)\n"
		"  --queue Q       wire queue (default 0)\n"
		"  --flows F       distinct UDP/TCP source ports (default 1)\n"
		"  --first-seq S   sequence number of the first frame (default 0)\n"
		"  --burst N       frames per tx_burst call (default 64)\n"
		"  --json          print one JSON object as the last line\n"
		"  -h, --help      this text\n"
		"Exit: 0 all sent, 1 not all sent, 2 usage, 3 environment (interface, privilege).\n");
}

int gnio_cmd_gen(int argc, char **argv)
{
	static const struct option lo[] = {
		{"wire", required_argument, 0, 'w'}, {"count", required_argument, 0, 'c'},
		{"proto", required_argument, 0, 'p'}, {"size", required_argument, 0, 's'},
		{"rate", required_argument, 0, 'r'}, {"queue", required_argument, 0, 'q'},
		{"flows", required_argument, 0, 'f'}, {"first-seq", required_argument, 0, 'S'},
		{"burst", required_argument, 0, 'b'}, {"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	struct gnio_gen_cfg cfg;
	struct wireopt wo = {.cmd = "gnio gen", .proto_hint = " (udp|dns|tcp|http|icmp|arp|mix)", .gen = &cfg,
			     .usage = gen_usage, .exit = -1};
	struct gnio_wire_caps caps;
	struct gnio_eth_pkt *fr = NULL;
	struct gnio_gen *gen = NULL;
	struct gnio_dev *dev = NULL;
	uint8_t *bufs = NULL;
	const char *spec;
	unsigned burst = 64;
	int json = 0, opt, st, rc = GNIO_EXIT_FAIL;
	struct gnio_eth_txq *txq = NULL;
	char why[160];

	gnio_gen_cfg_init(&cfg);
	cfg.count = 1;
	optind = 1;
	while ((opt = wireopt_getopt(&wo, argc, argv, lo)) != -1) {
		char *end = NULL;

		switch (opt) {
		case 'c': cfg.count = strtoull(optarg, &end, 0); break;
		case 'r': cfg.rate_pps = strtoull(optarg, &end, 0); break;
		case 'b': burst = (unsigned)strtoul(optarg, &end, 0); break;
		case 'j': json = 1; break;
		}
		if (wireopt_bad_number(&wo, end, optarg))
			return GNIO_EXIT_USAGE;
	}
	if (wo.exit >= 0)
		return wo.exit;
	spec = wo.spec;
	if (burst < 1 || burst > 1024) {
		fprintf(stderr, "gnio gen: --burst must be 1..1024\n");
		return GNIO_EXIT_USAGE;
	}
	if (gnio_gen_cfg_check(&cfg, why, sizeof(why))) {
		fprintf(stderr, "gnio gen: %s\n", why);
		return GNIO_EXIT_USAGE;
	}
	st = wireopt_dev_open(&wo, &dev, &caps);
	if (st != GNIO_EXIT_OK)
		return st;
	if (cfg.frame_size > caps.max_frame_size) {
		fprintf(stderr, "gnio gen: --size %u is larger than %s carries (%u bytes: MTU + Ethernet header)\n",
			cfg.frame_size, spec, caps.max_frame_size);
		rc = GNIO_EXIT_USAGE;
		goto out;
	}
	st = wireopt_txq_open(&wo, dev, GEN_RING, burst, &txq, &caps);
	if (st != GNIO_EXIT_OK) {
		rc = st;
		goto out;
	}
	if (gnio_gen_init(&cfg, &gen)) {
		fprintf(stderr, "gnio gen: %s\n", gnio_last_error_msg());
		goto out;
	}
	bufs = malloc((size_t)GEN_RING * cfg.frame_size);
	fr = calloc(burst, sizeof(*fr));
	if (!bufs || !fr) {
		fprintf(stderr, "gnio gen: out of memory\n");
		goto out;
	}

	wireopt_catch_signals();
	uint64_t accepted = 0, done = 0, built = 0, stalls = 0;
	uint64_t t0 = wireopt_mono_ns(), last_progress = t0;
	const uint64_t count = cfg.count ? cfg.count : UINT64_MAX;

	while (accepted < count && !wireopt_stop) {
		uint64_t now = wireopt_mono_ns();
		uint64_t n = count - accepted;

		if (n > burst)
			n = burst;
		if (cfg.rate_pps) {
			/* frames due by now at the requested rate */
			uint64_t due = (uint64_t)((double)(now - t0) * (double)cfg.rate_pps / 1e9) + 1;

			if (due <= accepted) {
				/* ahead of schedule: nap when the next frame is far off */
				if (cfg.rate_pps < 20000) {
					struct timespec ns = {0, 20000};

					nanosleep(&ns, NULL);
				}
				continue;
			}
			if (n > due - accepted)
				n = due - accepted;
		}
		/* buffers of accepted frames are reused only after completion */
		if (accepted + n - done > GEN_RING)
			n = GEN_RING - (accepted - done);
		for (uint64_t i = built - accepted; i < n; i++) {
			uint64_t s = accepted + i;
			uint8_t *b = bufs + (size_t)(s % GEN_RING) * cfg.frame_size;

			fr[i].data = b;
			fr[i].len = gnio_gen_fill(gen, cfg.first_seq + s, b, cfg.frame_size);
			built = s + 1;
		}
		uint32_t took = 0, completed = 0;
		if (n && gnio_eth_txq_send_burst(txq, fr, (uint32_t)n, &took) != GNIO_SUCCESS) {
			fprintf(stderr, "gnio gen: %s\n", gnio_last_error_msg());
			break;
		}

		accepted += took;
		/* frames not taken stay built: slide them to the front */
		if (took && built > accepted)
			memmove(fr, fr + took, (size_t)(built - accepted) * sizeof(*fr));
		gnio_eth_txq_poll_completions(txq, &completed);
		done += completed;
		if (took) {
			last_progress = now;
		} else {
			stalls++;
			if (now - last_progress > 5000000000ull) {
				fprintf(stderr, "gnio gen: %s took no frame for 5 s; stopping\n", spec);
				break;
			}
		}
	}
	/* wait for the wire to finish what it accepted */
	for (uint64_t t = wireopt_mono_ns(); done < accepted && wireopt_mono_ns() - t < 5000000000ull;) {
		uint32_t completed = 0;
		gnio_eth_txq_poll_completions(txq, &completed);
		done += completed;
	}
	double secs = (double)(wireopt_mono_ns() - t0) / 1e9;
	double pps = secs > 0 ? (double)accepted / secs : 0;

	gnio_devinfo_get_caps(gnio_dev_as_devinfo(dev), &caps);
	if (json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_obj_begin(&j, NULL);
		json_str(&j, "wire", spec);
		json_str(&j, "mode", caps.mode);
		json_str(&j, "proto", gnio_gen_proto_name(cfg.proto));
		json_u64(&j, "size", cfg.frame_size);
		json_u64(&j, "requested", cfg.count);
		json_u64(&j, "sent", accepted);
		json_u64(&j, "completed", done);
		json_u64(&j, "first_seq", cfg.first_seq);
		json_dbl(&j, "elapsed_s", secs);
		json_dbl(&j, "pps", pps);
		json_dbl(&j, "mpps", pps / 1e6);
		json_dbl(&j, "gbps", pps * cfg.frame_size * 8 / 1e9);
		json_obj_end(&j);
		json_finish(&j);
	} else {
		printf("gnio gen: sent %llu/%llu %s frames of %u bytes on %s (%s) in %.3f s: %.3f Mpps\n",
		       (unsigned long long)accepted, (unsigned long long)cfg.count, gnio_gen_proto_name(cfg.proto),
		       cfg.frame_size, spec, caps.mode[0] ? caps.mode : "-", secs, pps / 1e6);
	}
	rc = (cfg.count && (accepted != cfg.count || done != accepted)) ? GNIO_EXIT_FAIL : GNIO_EXIT_OK;
	if (wireopt_stop && !cfg.count)
		rc = GNIO_EXIT_OK;
	(void)stalls;
out:
	wireopt_txq_close(txq);
	if (dev)
		gnio_dev_close(dev);
	gnio_gen_free(gen);
	free(bufs);
	free(fr);
	return rc;
}
