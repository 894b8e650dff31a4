/* SPDX-License-Identifier: MIT */
/* tools/gnio/run_opts.c - `gnio run`'s options: one table, one parse, every
 * check before anything is built, each failure one line on stderr. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "run.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gnio run [options]\n"
		"Run a built-in app as a persistent kernel on a wire, with live stats.\n"
		"With no options: the sw wire with its generator, the best device present,\n"
		"the count app, for 10 seconds.\n\n"
		"  --duration S      seconds to run (default 10; 0 = until Ctrl-C)\n"
		"  --wire SPEC       sw:NAME (default sw:demo), null:NAME, afxdp:IFACE[@Q], afpacket:IFACE,\n"
		"                    pcap:FILE (null: endless unwritten frames, to measure gnio itself)\n"
		"  --gpu BUSID|cpu   device (default: first usable CUDA GPU, else cpu)\n"
		"  --app NAME        count (default): frames and bytes from the completions;\n"
		"                    classify: per-protocol counts; touch: read every payload byte;\n"
		"                    echo: send each frame back in place at once (latency);\n"
		"                    echo-copy: the same through a copy into the TX pool;\n"
		"                    fwd: l2fwd, MACs swapped, sent back in place in batches\n"
		"  --size N          generated frame size in bytes, 60..9216 (default 64)\n"
		"  --proto P         udp (default), dns, tcp, http, icmp, arp, mix\n"
		"  --rate PPS        generator rate per queue; 0 = as fast as the kernel takes (default 0)\n"
		"  --count N         each queue's generator stops after N frames (default unlimited)\n"
		"  --ring N          RX ring entries, power of two (default 4096)\n"
		"  --burst N         proxy burst (default 256)\n"
		"  --batch N         frames per kernel recv (default 1024; larger amortises the\n"
		"                    PCIe round trips of each recv, see docs/PERFORMANCE.md)\n"
		"  --flow-control on|off  hold frames on the wire while the ring is full\n"
		"                    (default: on for the generator at rate 0 and the null wire, else off)\n"
		"  --mem cpu_gpu|gpu RX payload placement (default cpu_gpu: pinned host memory)\n"
		"  --recv-scope thread|warp|block  CUDA recv scope (default block)\n"
		"  --send-scope thread|warp|block  echo/fwd send scope (default: echo thread, fwd block)\n"
		"  --threads N       CUDA threads per block (default 256)\n"
		"  --queues N        RX queues, each with its own ring, proxy thread and kernel\n"
		"                    (default 1, at most 16)\n"
		"  --json            print one JSON object as the last line of stdout\n"
		"  --quiet           no live lines\n"
		"Exit: 0 ok, 1 failure, 2 usage, 3 environment (device or wire missing).\n");
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || !*s || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

static int parse_scope(const char *s)
{
	return !strcmp(s, "thread") ? GNIO_APP_SCOPE_THREAD
	       : !strcmp(s, "warp") ? GNIO_APP_SCOPE_WARP
	       : !strcmp(s, "block") ? GNIO_APP_SCOPE_BLOCK : -1;
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("gnio run: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return GNIO_EXIT_USAGE;
}

/* Integer options: where each goes. */
struct num_opt {
	int code;
	const char *name;
	uint64_t max;
};
static const struct num_opt num_opts[] = {
	{'s', "size", 0xffffffffu}, {'r', "rate", UINT64_MAX}, {'c', "count", UINT64_MAX},
	{'R', "ring", 0xffffffffu}, {'B', "burst", 0xffffffffu}, {'b', "batch", 0xffffffffu},
	{'t', "threads", 0xffffffffu}, {'Q', "queues", 0xffffffffu},
};

static void set_num(struct run_opts *o, int c, uint64_t v)
{
	switch (c) {
	case 's': o->size = (uint32_t)v; o->size_given = 1; break;
	case 'r': o->rate = v; break;
	case 'c': o->count = v; break;
	case 'R': o->ring = (uint32_t)v; break;
	case 'B': o->burst = (uint32_t)v; break;
	case 'b': o->batch = (uint32_t)v; break;
	case 't': o->threads = (uint32_t)v; break;
	case 'Q': o->queues = (uint32_t)v; break;
	}
}

/* What is derived from the options: the app, the generator, the wire spec. */
static int derive(struct run_opts *o)
{
	if (o->queues < 1 || o->queues > RUN_MAX_QUEUES) {
		fprintf(stderr, "gnio run: --queues %u is outside 1..%d\n", o->queues, RUN_MAX_QUEUES);
		return GNIO_EXIT_USAGE;
	}
	o->app = gnio_app_find(o->app_name);
	if (!o->app) {
		fprintf(stderr, "gnio run: unknown app '%s' (", o->app_name);
		for (const struct gnio_app *const *a = gnio_app_list(); *a; a++)
			fprintf(stderr, "%s%s", a == gnio_app_list() ? "" : ", ", (*a)->name);
		fprintf(stderr, ")\n");
		return GNIO_EXIT_USAGE;
	}
	if (o->send_scope < 0)
		o->send_scope = !strcmp(o->app->name, "fwd") ? GNIO_APP_SCOPE_BLOCK : GNIO_APP_SCOPE_THREAD;
	o->is_sw = !strncmp(o->wire, "sw:", 3);
	gnio_gen_cfg_init(&o->gen);
	if (gnio_gen_proto_parse(o->proto, &o->gen.proto) != GNIO_SUCCESS)
		return usage_error("unknown --proto '%s' (udp, dns, tcp, http, icmp, arp, mix)", o->proto);
	if (!o->size_given && gnio_gen_min_frame(o->gen.proto) > o->size)
		o->size = gnio_gen_min_frame(o->gen.proto); /* e.g. mix needs 97 bytes */
	o->gen.frame_size = o->size;
	o->gen.count = o->count;
	o->gen.rate_pps = o->rate;
	char why[256];
	if (gnio_gen_cfg_check(&o->gen, why, sizeof(why)) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio run: --size %u: %s\n", o->size, why);
		return GNIO_EXIT_USAGE;
	}
	/* Endless sources (the generator at rate 0, the null wire) would only
	 * measure how fast they can overrun the ring; hold them back instead. */
	if (o->flow_control < 0)
		o->flow_control = (o->is_sw && o->rate == 0) || !strncmp(o->wire, "null:", 5);
	/* The null wire makes frames of the run's --size unless its spec says;
	 * the sw wire has 8 queues unless its spec says. */
	if (!strncmp(o->wire, "null:", 5) && !strstr(o->wire, "size="))
		snprintf(o->wire_spec, sizeof(o->wire_spec), "%s,size=%u", o->wire, o->size);
	else if (o->is_sw && o->queues > 8 && !strstr(o->wire, "queues="))
		snprintf(o->wire_spec, sizeof(o->wire_spec), "%s,queues=%u", o->wire, o->queues);
	else
		snprintf(o->wire_spec, sizeof(o->wire_spec), "%s", o->wire);
	return -1;
}

int run_parse_opts(int argc, char **argv, struct run_opts *o)
{
	*o = (struct run_opts){
		.duration = 10, .wire = "sw:demo", .app_name = "count", .size = 64, .proto = "udp",
		.ring = 4096, .burst = 256, .batch = 1024, .flow_control = -1, .rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU,
		.mem_name = "cpu_gpu", .recv_scope = GNIO_APP_SCOPE_BLOCK, .send_scope = -1, .threads = 256,
		.queues = 1,
	};
	static const struct option longopts[] = {
		{"duration", required_argument, 0, 'd'}, {"wire", required_argument, 0, 'w'},
		{"gpu", required_argument, 0, 'g'},      {"app", required_argument, 0, 'a'},
		{"size", required_argument, 0, 's'},     {"proto", required_argument, 0, 'p'},
		{"rate", required_argument, 0, 'r'},     {"count", required_argument, 0, 'c'},
		{"ring", required_argument, 0, 'R'},     {"burst", required_argument, 0, 'B'},
		{"batch", required_argument, 0, 'b'},    {"flow-control", required_argument, 0, 'f'},
		{"mem", required_argument, 0, 'm'},      {"recv-scope", required_argument, 0, 'S'},
		{"send-scope", required_argument, 0, 'T'}, {"threads", required_argument, 0, 't'},
		{"json", no_argument, 0, 'j'},           {"queues", required_argument, 0, 'Q'},
		{"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "hjq", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': {
			char *end;
			o->duration = strtod(optarg, &end);
			if (!*optarg || *end || !isfinite(o->duration) || o->duration < 0)
				return usage_error("--duration '%s' is not a number of seconds >= 0", optarg);
			break;
		}
		case 'w': o->wire = optarg; break;
		case 'g': o->gpu = optarg; break;
		case 'a': o->app_name = optarg; break;
		case 'p': o->proto = optarg; break;
		case 'j': o->json = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		case 'm':
			o->mem_name = optarg;
			if (!strcmp(optarg, "cpu_gpu"))
				o->rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU;
			else if (!strcmp(optarg, "gpu"))
				o->rx_mem = GNIO_GPU_MEM_TYPE_GPU;
			else
				return usage_error("--mem takes cpu_gpu or gpu, not '%s'", optarg);
			break;
		case 'S':
			if ((o->recv_scope = parse_scope(optarg)) < 0)
				return usage_error("--recv-scope takes thread, warp or block, not '%s'", optarg);
			break;
		case 'T':
			if ((o->send_scope = parse_scope(optarg)) < 0)
				return usage_error("--send-scope takes thread, warp or block, not '%s'", optarg);
			break;
		case 'f':
			if (!strcmp(optarg, "on"))
				o->flow_control = 1;
			else if (!strcmp(optarg, "off"))
				o->flow_control = 0;
			else
				return usage_error("--flow-control takes on or off, not '%s'", optarg);
			break;
		case '?':
			if (optopt)
				fprintf(stderr, "gnio run: option -%c is unknown or needs a value (see gnio run --help)\n",
					optopt);
			else
				fprintf(stderr, "gnio run: unknown option '%s' (see gnio run --help)\n",
					argv[optind - 1]);
			return GNIO_EXIT_USAGE;
		default: {
			const struct num_opt *n = NULL;
			for (size_t i = 0; i < sizeof(num_opts) / sizeof(num_opts[0]); i++)
				if (num_opts[i].code == c)
					n = &num_opts[i];
			uint64_t v;
			if (!n)
				return usage_error("%s", "internal: unhandled option");
			if (parse_u64(optarg, &v) || v > n->max) {
				fprintf(stderr, "gnio run: --%s '%s' is not a non-negative integer (at most %llu)\n",
					n->name, optarg, (unsigned long long)n->max);
				return GNIO_EXIT_USAGE;
			}
			set_num(o, c, v);
		}
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (see gnio run --help)", argv[optind]);
	return derive(o);
}
