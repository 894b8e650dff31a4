/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_sink.c - `gnio sink`: receive and count frames from a wire.
 *
 * Receives on an RX queue of the host datapath (gnio_eth_rxq_recv_burst), so
 * it checks a wire (or the far end of a gnio pipeline) without a device. Counts per protocol with the same
 * classifier the apps use and, with --verify, checks each generator stamp,
 * the frame bytes and the sequence order.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "flowreport.h"
#include "json.h"
#include "gnio/apps/classify.h"
#include "gnio/flow.h"
#include "wireopt.h"

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
		"  --flow FILE      steering rules (docs/flow.md): frames are classified and each rule's hits\n"
		"                   reported; on afxdp the XDP program, on afpacket the socket filter\n"
		"                   applies them (kernel/drop never arrive)\n"
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
		{"flow", required_argument, 0, 'F'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	enum { BURST = 64 };
	struct gnio_eth_pkt fr[BURST];
	struct gnio_gen_cfg gcfg;
	struct wireopt wo = {.cmd = "gnio sink", .proto_hint = "", .gen = &gcfg, .usage = sink_usage, .exit = -1};
	struct gnio_wire_caps caps;
	struct gnio_eth_rxq_stats qs;
	struct gnio_dev *dev = NULL;
	const char *spec, *flow_file = NULL;
	struct gnio_flow *flow = NULL;
	struct gnio_flow_reader *flow_rd = NULL;
	uint64_t flow_per_action[GNIO_FLOW_ACTION_COUNT_] = {0};
	double duration = 10, idle = 0;
	uint64_t count = 0;
	uint32_t max_frame = 0;
	int verify = 0, json = 0, opt, st, rc = GNIO_EXIT_FAIL;
	uint8_t *bufs = NULL;
	struct gnio_eth_rxq *rxq = NULL;

	gnio_gen_cfg_init(&gcfg);
	optind = 1;
	while ((opt = wireopt_getopt(&wo, argc, argv, lo)) != -1) {
		char *end = NULL;

		switch (opt) {
		case 'd': duration = strtod(optarg, &end); break;
		case 'c': count = strtoull(optarg, &end, 0); break;
		case 'i': idle = strtod(optarg, &end); break;
		case 'v': verify = 1; break;
		case 'm': max_frame = (uint32_t)strtoul(optarg, &end, 0); break;
		case 'j': json = 1; break;
		case 'F': flow_file = optarg; break;
		}
		if (wireopt_bad_number(&wo, end, optarg))
			return GNIO_EXIT_USAGE;
	}
	if (wo.exit >= 0)
		return wo.exit;
	spec = wo.spec;
	if (duration < 0 || idle < 0 || (max_frame && max_frame < 14)) {
		fprintf(stderr, "gnio sink: --duration/--idle must be >= 0 and --max-frame >= 14\n");
		return GNIO_EXIT_USAGE;
	}
	st = wireopt_dev_open(&wo, &dev, &caps);
	if (st != GNIO_EXIT_OK)
		return st;
	if (!max_frame)
		max_frame = caps.max_frame_size ? caps.max_frame_size : 9216;
	if (max_frame > caps.max_frame_size && caps.max_frame_size) {
		fprintf(stderr, "gnio sink: --max-frame %u is larger than %s carries (%u)\n", max_frame, spec,
			caps.max_frame_size);
		rc = GNIO_EXIT_USAGE;
		goto out;
	}
	if (flow_file) {
		/* before the queue: on afxdp the rules are in the XDP program
		 * from the first frame on */
		gnio_error_t fe = gnio_flow_create(dev, &flow);

		if (!fe)
			fe = gnio_flow_load_file(flow, flow_file);
		if (!fe)
			fe = gnio_flow_reader_create(flow, (uint16_t)wo.queue, &flow_rd);
		if (fe) {
			fprintf(stderr, "gnio sink: %s\n", gnio_last_error_msg());
			rc = gnio_cli_exit(fe);
			goto out;
		}
	}
	st = wireopt_rxq_open(&wo, dev, max_frame, BURST, &rxq, &caps);
	if (st != GNIO_EXIT_OK) {
		rc = st;
		goto out;
	}
	bufs = malloc((size_t)BURST * max_frame);
	if (!bufs) {
		fprintf(stderr, "gnio sink: out of memory\n");
		goto out;
	}
	wireopt_catch_signals();
	fprintf(stderr, "gnio sink: ready on %s (%s)\n", spec, caps.mode);

	uint64_t rx = 0, bytes = 0, too_big = 0, runt = 0, overflow = 0, per[GNIO_PROTO_COUNT] = {0};
	uint64_t v_ok = 0, v_bad = 0, v_nostamp = 0, v_ooo = 0, v_gap = 0, next_seq = gcfg.first_seq;
	uint64_t first_seq = 0, last_seq = 0;
	uint64_t t0 = wireopt_mono_ns(), t_first = 0, t_last = 0, last_stats = t0;
	unsigned empty = 0;

	while (!wireopt_stop) {
		for (unsigned i = 0; i < BURST; i++) {
			fr[i].data = bufs + (size_t)i * max_frame;
			fr[i].cap = max_frame;
			fr[i].len = 0;
		}
		uint32_t got = 0;
		if (gnio_eth_rxq_recv_burst(rxq, fr, BURST, &got) != GNIO_SUCCESS) {
			fprintf(stderr, "gnio sink: %s\n", gnio_last_error_msg());
			break;
		}
		uint64_t now;

		if (got) {
			empty = 0;
			now = wireopt_mono_ns();
			if (!t_first)
				t_first = now;
			t_last = now;
		} else {
			now = wireopt_mono_ns();
			if (++empty > 256) {
				struct timespec ns = {0, 50000};

				nanosleep(&ns, NULL);
			}
		}
		if (flow_rd && got) {
			struct gnio_flow_frame ff[BURST];
			struct gnio_flow_result fres[BURST];
			unsigned nf = 0;

			for (unsigned i = 0; i < got; i++)
				ff[nf].data = fr[i].data, ff[nf++].len = fr[i].len;
			gnio_flow_classify(flow_rd, ff, nf, fres);
			for (unsigned i = 0; i < nf; i++)
				flow_per_action[fres[i].action]++;
		}
		/* The queue counts too_big and runt frames; what it returns is
		 * whole frames. */
		for (unsigned i = 0; i < got; i++) {
			const struct gnio_eth_pkt *f = &fr[i];
			uint64_t seq;

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
			gnio_eth_rxq_get_stats(rxq, &qs);
			too_big = qs.dropped[GNIO_DROP_TOO_BIG];
			runt = qs.dropped[GNIO_DROP_RUNT];
			overflow = qs.dropped[GNIO_DROP_WIRE_OVERFLOW];
			last_stats = now;
		}
		if (count && rx + too_big + runt + overflow >= count) {
			/* one more look: frames still in flight */
			if (!got)
				break;
		}
		if (duration > 0 && now - t0 >= (uint64_t)(duration * 1e9))
			break;
		if (idle > 0 && t_last && now - t_last >= (uint64_t)(idle * 1e9))
			break;
	}
	gnio_eth_rxq_get_stats(rxq, &qs);
	too_big = qs.dropped[GNIO_DROP_TOO_BIG];
	runt = qs.dropped[GNIO_DROP_RUNT];
	overflow = qs.dropped[GNIO_DROP_WIRE_OVERFLOW];
	double secs = (double)(wireopt_mono_ns() - t0) / 1e9;
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
		if (flow) {
			struct gnio_flow_stats fst = {.struct_size = sizeof(fst)};

			gnio_flow_get_stats(flow, &fst);
			json_obj_begin(&j, "flow");
			json_str(&j, "file", flow_file);
			flowreport_json(&j, flow);
			json_u64(&j, "frames", fst.frames);
			json_u64(&j, "xdp_frames", fst.xdp_frames);
			json_u64(&j, "xdp_no_socket", fst.xdp_no_socket);
			/* what reached the sink, by the action the proxy-side classifier gave it */
			json_obj_begin(&j, "received_by_action");
			for (int a = 0; a < GNIO_FLOW_ACTION_COUNT_; a++)
				json_u64(&j, gnio_flow_action_name((enum gnio_flow_action_type)a), flow_per_action[a]);
			json_obj_end(&j);
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
		if (flow) {
			printf("  flow %s (hits per rule):\n", flow_file);
			flowreport_print(stdout, flow, 1);
		}
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
	if (flow_rd)
		gnio_flow_reader_destroy(flow_rd);
	if (flow)
		gnio_flow_destroy(flow);
	wireopt_rxq_close(rxq);
	if (dev)
		gnio_dev_close(dev);
	free(bufs);
	return rc;
}
