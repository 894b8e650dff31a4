/* SPDX-License-Identifier: MIT */
/* tools/gnio/run_opts.c - `gnio run`'s options: one table, one setter that
 * checks every value whether it comes from a flag or from the config file
 * (config.c), every check before anything is built, each failure one line on
 * stderr that names where the value came from. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "commands.h"
#include "config.h"
#include "run.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gnio run [options]\n"
		"Run a built-in app as a persistent kernel on a wire, with live stats.\n"
		"With no options: the sw wire with its generator, the best device present,\n"
		"the count app, for 10 seconds.\n\n"
		"  --config FILE     read the run from a YAML file (docs/config.md); flags given\n"
		"                    with it override its values, and a later flag wins\n"
		"  --check-config    check the options, print the effective configuration as\n"
		"                    YAML (a file --config takes) and exit without running\n"
		"  --duration S      seconds to run (default 10; 0 = until Ctrl-C)\n"
		"  --wire SPEC       sw:NAME (default sw:demo), null:NAME, afxdp:IFACE[@Q], afpacket:IFACE,\n"
		"                    pcap:FILE (null: endless unwritten frames, to measure gnio itself)\n"
		"  --gpu BUSID|cpu|auto  device (default auto: first usable CUDA GPU, else cpu);\n"
		"                    BUSID,BUSID,...: several GPUs, queue i on the (i %% n)-th\n"
		"  --app NAME        count (default): frames and bytes from the completions;\n"
		"                    classify: per-protocol counts; touch: read every payload byte;\n"
		"                    echo: send each frame back in place at once (latency);\n"
		"                    echo-copy: the same through a copy into the TX pool;\n"
		"                    fwd: l2fwd, MACs swapped, sent back in place in batches;\n"
		"                    verify: every frame intact generator output, in sequence\n"
		"  --hold-us N       verify: hold each batch N us, then check it again (a consumer\n"
		"                    slower than the wire; default 0)\n"
		"  --size N          generated frame size in bytes, 60..9216 (default 64)\n"
		"  --proto P         udp (default), dns, tcp, http, icmp, arp, mix\n"
		"  --rate PPS        generator rate per queue; 0 = as fast as the kernel takes (default 0)\n"
		"  --count N         each queue's generator stops after N frames (default unlimited)\n"
		"  --ring N|auto     RX ring entries, power of two (default auto: 16384 for one\n"
		"                    queue, 4096 each for more)\n"
		"  --burst N|auto    frames a proxy moves per step (default auto: 1024 with\n"
		"                    --mem gpu, where each step is one copy, else 256)\n"
		"  --batch N|auto    frames per kernel recv (default auto: 1024, doubling up to\n"
		"                    half the ring while the kernel finds whole batches waiting,\n"
		"                    halving back while it waits; see docs/PERFORMANCE.md)\n"
		"  --flow-control on|off|auto  hold frames on the wire while the ring is full\n"
		"  --inline-header   each completion carries the frame's first 42 bytes, so a\n"
		"                    kernel reads headers without a PCIe round trip (echo latency)\n"
		"  --poll adaptive|busy  proxies sleep when idle and wake on traffic (default),\n"
		"                    or spin for ever (a core each, lowest latency)\n"
		"                    (default auto: on for the generator at rate 0 and the null wire)\n"
		"  --mem cpu_gpu|gpu RX payload placement (default cpu_gpu: pinned host memory)\n"
		"  --recv-scope thread|warp|block  CUDA recv scope (default block)\n"
		"  --send-scope thread|warp|block  echo/fwd send scope, at most --recv-scope (default: the same)\n"
		"  --threads N       CUDA threads per block (default 256)\n"
		"  --watchers N      CUDA: N more warps poll the RX queue for a thread or warp\n"
		"                    receive (0..31; default 0; the echo's lowest latency\n"
		"                    is --recv-scope warp --inline-header without them)\n"
		"  --queues N        RX queues, each with its own ring, proxy thread and kernel\n"
		"                    (default 1, at most 16)\n"
		"  --flow FILE       steering rules (docs/flow.md): match -> queue, rss, drop,\n"
		"                    kernel; the JSON reports each rule's hits\n"
		"  --cpus LIST       pin queue i's proxy threads to the (i %% n)-th CPU of LIST\n"
		"                    (e.g. 2-5,8; default: not pinned)\n"
		"  --rss             spread frames over the queues by a hash of their addresses\n"
		"                    and ports (the rules' default action); the sw generator\n"
		"                    then sends 4096 flows\n"
		"  --metrics ADDR:PORT  serve Prometheus /metrics there while running (PORT alone:\n"
		"                    127.0.0.1; port 0 picks a free one; docs/metrics.md)\n"
		"  --metrics-hold S  after the run, keep serving the final counters S seconds\n"
		"                    (default 0) so a last scrape sees them; a signal ends it\n"
		"  --user NAME       once the wire and kernels are up, become user NAME and keep\n"
		"                    only the capabilities the wire's teardown needs (docs/wires.md)\n"
		"  --json            print one JSON object as the last line of stdout\n"
		"  --quiet           no live lines\n"
		"Exit: 0 ok, 1 failure, 2 usage, 3 environment (device, wire or file missing).\n");
}

/* Each option: its flag (NULL: config file only), whether the flag takes a
 * value, what a value must be, and the largest number it takes (0: not a
 * plain number). */
struct opt_def {
	const char *flag;
	int has_arg;
	const char *expect;
	uint64_t max;
};

#define U32 0xffffffffull
static const struct opt_def defs[RUN_OPT_COUNT_] = {
	[RUN_OPT_DURATION] = {"duration", 1, "a number of seconds >= 0 (0: until a signal)", 0},
	[RUN_OPT_WIRE] = {"wire", 1, "a wire spec: sw:NAME, null:NAME, afxdp:IFACE[@Q], afpacket:IFACE or pcap:FILE",
			  0},
	[RUN_OPT_GPU] = {"gpu", 1, "a PCIe bus id, a comma-separated list of them, cpu, or auto (the best device present)", 0},
	[RUN_OPT_APP] = {"app", 1, "an app: count, classify, touch, echo, echo-copy, fwd or verify", 0},
	[RUN_OPT_SIZE] = {"size", 1, "frame bytes, 60..9216", U32},
	[RUN_OPT_PROTO] = {"proto", 1, "a protocol: udp, dns, tcp, http, icmp, arp or mix", 0},
	[RUN_OPT_RATE] = {"rate", 1, "frames per second per queue; 0: as fast as the kernel takes", UINT64_MAX},
	[RUN_OPT_COUNT] = {"count", 1, "frames per queue; 0: unlimited", UINT64_MAX},
	[RUN_OPT_QUEUES] = {"queues", 1, "queues, 1..16", U32},
	[RUN_OPT_RING] = {"ring", 1, "RX ring entries, a power of two, or auto", U32},
	[RUN_OPT_BURST] = {"burst", 1, "frames a proxy moves per step, or auto", U32},
	[RUN_OPT_BATCH] = {"batch", 1, "frames per kernel receive, or auto", U32},
	[RUN_OPT_FLOW_CONTROL] = {"flow-control", 1, "on, off or auto", 0},
	[RUN_OPT_MEM] = {"mem", 1, "cpu_gpu or gpu", 0},
	[RUN_OPT_RECV_SCOPE] = {"recv-scope", 1, "thread, warp or block", 0},
	[RUN_OPT_SEND_SCOPE] = {"send-scope", 1, "thread, warp or block", 0},
	[RUN_OPT_THREADS] = {"threads", 1, "CUDA threads per block", U32},
	[RUN_OPT_WATCHERS] = {"watchers", 1, "watcher warps, 0..31", GNIO_APP_MAX_WATCHERS},
	[RUN_OPT_POLL] = {"poll", 1, "busy or adaptive", 0},
	[RUN_OPT_FLOW] = {NULL, 1, "a list of flow rules", 0},
	[RUN_OPT_FLOW_FILE] = {"flow", 1, "a flow rules file (docs/flow.md)", 0},
	[RUN_OPT_RSS] = {"rss", 0, "true or false", 0},
	[RUN_OPT_INLINE_HEADER] = {"inline-header", 0, "true or false", 0},
	[RUN_OPT_CPUS] = {"cpus", 1, "a CPU list such as 2-5,8 (queue i's proxies on the (i % n)-th)", 0},
	[RUN_OPT_METRICS] = {"metrics", 1, "ADDR:PORT, [IPV6]:PORT or PORT (loopback)", 0},
	[RUN_OPT_METRICS_HOLD] = {"metrics-hold", 1, "a number of seconds >= 0", 0},
	[RUN_OPT_HOLD_US] = {"hold-us", 1, "microseconds the verify app holds each batch", 60000000},
	[RUN_OPT_USER] = {"user", 1, "a user name or uid to run as once set up", 0},
	[RUN_OPT_JSON] = {"json", 0, "true or false", 0},
	[RUN_OPT_QUIET] = {"quiet", 0, "true or false", 0},
};

/* getopt_long values: an option's id + OPT_BASE, and the flags that are not
 * options of the run itself. */
enum { OPT_BASE = 256, FLAG_CONFIG = 512, FLAG_CHECK_CONFIG, FLAG_HELP };

/* The ring when --ring is auto. One queue's kernel runs fastest with a
 * batch of 8192 (the adaptive batch grows to half the ring), but several
 * queues' pools together outgrow what the GPU reads quickly from host
 * memory: on the H200, 1500-byte frames over 8 queues ran a third slower
 * at 16384 than at 4096, and 4 sw queues slower at 8192 (PERFORMANCE.md,
 * "Defaults that adapt"). */
uint32_t run_opts_ring(const struct run_opts *o)
{
	if (o->ring)
		return o->ring;
	return o->queues <= 1 ? 16384u : 4096u;
}

/* A GPU-memory pool's proxy copies each step's frames in one staged copy:
 * 1024 frames a copy carried 1500-byte frames at 42.1 GB/s against 36.8 with
 * 256 (H200, 4 queues; docs/PERFORMANCE.md "GPU-memory pools: bigger
 * copies"). Pinned pools showed no difference, and keep the shorter step. */
uint32_t run_opts_burst(const struct run_opts *o)
{
	if (o->burst)
		return o->burst;
	return o->rx_mem == GNIO_GPU_MEM_TYPE_GPU ? 1024u : 256u;
}

void run_opts_defaults(struct run_opts *o)
{
	*o = (struct run_opts){
		.duration = 10, .wire = "sw:demo", .app_name = "count", .size = 64, .proto = "udp",
		.ring = 0, .burst = 0, .batch = 0, .flow_control = -1, .rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU,
		.mem_name = "cpu_gpu", .recv_scope = GNIO_APP_SCOPE_BLOCK, .send_scope = -1, .threads = 256,
		.queues = 1, .poll = RUN_POLL_ADAPTIVE,
	};
}

void run_opts_free(struct run_opts *o)
{
	free(o->flow_text);
	o->flow_text = NULL;
	for (size_t i = 0; i < o->nowned; i++)
		free(o->owned[i]);
	free(o->owned);
	o->owned = NULL;
	o->nowned = 0;
}

const char *run_opts_keep(struct run_opts *o, const char *s)
{
	char **grown = realloc(o->owned, (o->nowned + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	o->owned = grown;
	char *copy = strdup(s);
	if (copy)
		o->owned[o->nowned++] = copy;
	return copy;
}

const char *run_opt_where(const struct run_opts *o, enum run_opt id, char *buf, size_t len)
{
	const struct run_origin *from = &o->origin[id];
	if (from->file)
		snprintf(buf, len, "%s:%u: %s", from->file, from->line, from->key);
	else if (defs[id].flag)
		snprintf(buf, len, "--%s", defs[id].flag);
	else
		snprintf(buf, len, "%s", "(default)");
	return buf;
}

/* One line on stderr: where the value came from, what it must be, and what
 * it was. */
static int bad_value(const struct run_opts *o, enum run_opt id, const char *expect, const char *val)
{
	char where[320];
	run_opt_where(o, id, where, sizeof(where));
	if (val && *val)
		fprintf(stderr, "gnio run: %s: expected %s, got '%s'\n", where, expect, val);
	else
		fprintf(stderr, "gnio run: %s: expected %s, got nothing\n", where, expect);
	return GNIO_EXIT_USAGE;
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

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* YAML's and people's words for yes and no; a bare flag (NULL) is yes. */
static int parse_bool(const char *s)
{
	static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
	if (!s)
		return 1;
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

/* "2-5,8": the CPUs in order, each a CPU this machine has; -1 if bad. */
static int parse_cpus(const char *s, int *out, unsigned *n)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	*n = 0;
	while (*s) {
		char *end;
		errno = 0;
		long a = strtol(s, &end, 10), b = a;
		if (errno || end == s || a < 0)
			return -1;
		if (*end == '-') {
			const char *p = end + 1;
			b = strtol(p, &end, 10);
			if (errno || end == p || b < a)
				return -1;
		}
		if (*end && *end != ',')
			return -1;
		for (long c = a; c <= b; c++) {
			if (c >= ncpu || *n == RUN_MAX_CPUS)
				return -1;
			out[(*n)++] = (int)c;
		}
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return -1; /* a trailing comma */
	}
	return *n ? 0 : -1;
}

static int parse_scope(const char *s)
{
	return !strcmp(s, "thread") ? GNIO_APP_SCOPE_THREAD
	       : !strcmp(s, "warp") ? GNIO_APP_SCOPE_WARP
	       : !strcmp(s, "block") ? GNIO_APP_SCOPE_BLOCK : -1;
}

static const char *scope_name(int s)
{
	return s == GNIO_APP_SCOPE_THREAD ? "thread" : s == GNIO_APP_SCOPE_WARP ? "warp" : "block";
}

static int set_number(struct run_opts *o, enum run_opt id, const char *val)
{
	uint64_t v;
	char expect[160];
	snprintf(expect, sizeof(expect), "a whole number up to %llu (%s)", (unsigned long long)defs[id].max,
		 defs[id].expect);
	/* ring, burst and batch: 0 stands for auto (run_opts_ring,
	 * run_opts_burst, the apps' tuner) */
	const int has_auto = id == RUN_OPT_RING || id == RUN_OPT_BURST || id == RUN_OPT_BATCH;
	if (has_auto && !strcmp(val, "auto"))
		v = 0;
	else if (parse_u64(val, &v) || v > defs[id].max || ((id == RUN_OPT_RING || id == RUN_OPT_BURST) && v == 0))
		return bad_value(o, id, expect, val);
	switch (id) {
	case RUN_OPT_SIZE: o->size = (uint32_t)v; o->size_given = 1; break;
	case RUN_OPT_RATE: o->rate = v; break;
	case RUN_OPT_COUNT: o->count = v; break;
	case RUN_OPT_QUEUES:
		if (v < 1 || v > RUN_MAX_QUEUES)
			return bad_value(o, id, "1..16 queues", val);
		o->queues = (uint32_t)v;
		break;
	case RUN_OPT_RING: o->ring = (uint32_t)v; break;
	case RUN_OPT_BURST: o->burst = (uint32_t)v; break;
	case RUN_OPT_BATCH: o->batch = (uint32_t)v; break;
	case RUN_OPT_THREADS: o->threads = (uint32_t)v; break;
	case RUN_OPT_WATCHERS: o->watchers = (uint32_t)v; break;
	case RUN_OPT_HOLD_US: o->hold_us = v; break;
	default: break;
	}
	return 0;
}

int run_opt_set(struct run_opts *o, enum run_opt id, const char *val, const struct run_origin *from)
{
	o->origin[id] = *from;
	const char *expect = defs[id].expect;
	if (defs[id].has_arg && (!val || !*val))
		return bad_value(o, id, expect, val);
	if (defs[id].max)
		return set_number(o, id, val);
	int b, sc;
	switch (id) {
	case RUN_OPT_DURATION:
		return parse_seconds(val, &o->duration) ? bad_value(o, id, expect, val) : 0;
	case RUN_OPT_METRICS_HOLD:
		return parse_seconds(val, &o->metrics_hold) ? bad_value(o, id, expect, val) : 0;
	case RUN_OPT_WIRE: o->wire = val; return 0;
	case RUN_OPT_GPU: o->gpu = !strcmp(val, "auto") ? NULL : val; return 0;
	case RUN_OPT_METRICS: o->metrics = val; return 0;
	case RUN_OPT_USER: o->user = val; return 0;
	case RUN_OPT_FLOW_FILE: o->flow_file = val; return 0;
	case RUN_OPT_CPUS:
		if (parse_cpus(val, o->cpu_list, &o->ncpus))
			return bad_value(o, id, expect, val);
		o->cpus = val;
		return 0;
	case RUN_OPT_APP:
		if (!gnio_app_find(val)) {
			char list[160] = "an app: ";
			for (const struct gnio_app *const *a = gnio_app_list(); *a; a++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 a == gnio_app_list() ? "" : ", ", (*a)->name);
			return bad_value(o, id, list, val);
		}
		o->app_name = val;
		return 0;
	case RUN_OPT_PROTO: {
		enum gnio_gen_proto p;
		if (gnio_gen_proto_parse(val, &p) != GNIO_SUCCESS)
			return bad_value(o, id, expect, val);
		o->proto = val;
		return 0;
	}
	case RUN_OPT_FLOW_CONTROL:
		if (!strcmp(val, "auto")) {
			o->flow_control = -1;
			return 0;
		}
		if ((b = parse_bool(val)) < 0)
			return bad_value(o, id, expect, val);
		o->flow_control = b;
		return 0;
	case RUN_OPT_MEM:
		if (!strcmp(val, "cpu_gpu"))
			o->rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU;
		else if (!strcmp(val, "gpu"))
			o->rx_mem = GNIO_GPU_MEM_TYPE_GPU;
		else
			return bad_value(o, id, expect, val);
		o->mem_name = val;
		return 0;
	case RUN_OPT_RECV_SCOPE:
	case RUN_OPT_SEND_SCOPE:
		if ((sc = parse_scope(val)) < 0)
			return bad_value(o, id, expect, val);
		*(id == RUN_OPT_RECV_SCOPE ? &o->recv_scope : &o->send_scope) = sc;
		return 0;
	case RUN_OPT_POLL:
		if (!strcmp(val, "busy") || !strcmp(val, "adaptive")) {
			o->poll = val[0] == 'b' ? RUN_POLL_BUSY : RUN_POLL_ADAPTIVE;
			return 0;
		}
		return bad_value(o, id, expect, val);
	case RUN_OPT_JSON:
	case RUN_OPT_QUIET:
	case RUN_OPT_RSS:
	case RUN_OPT_INLINE_HEADER:
		if ((b = parse_bool(val)) < 0)
			return bad_value(o, id, expect, val);
		*(id == RUN_OPT_JSON ? &o->json
		  : id == RUN_OPT_QUIET ? &o->quiet
		  : id == RUN_OPT_RSS ? &o->rss
				      : &o->inline_header) = b;
		return 0;
	default:
		return bad_value(o, id, "an option gnio run knows", val);
	}
}

int run_opt_add_flow(struct run_opts *o, const char *rule, const struct run_origin *from)
{
	if (!o->nflow)
		o->origin[RUN_OPT_FLOW] = *from;
	if (o->nflow == RUN_MAX_FLOW_RULES) {
		char expect[64];
		snprintf(expect, sizeof(expect), "at most %d flow rules", RUN_MAX_FLOW_RULES);
		o->origin[RUN_OPT_FLOW] = *from;
		return bad_value(o, RUN_OPT_FLOW, expect, rule);
	}
	o->flow[o->nflow++] = rule;
	return 0;
}

const char *run_opt_text(const struct run_opts *o, enum run_opt id, char *buf, size_t len)
{
	uint64_t n;
	switch (id) {
	case RUN_OPT_DURATION: snprintf(buf, len, "%g", o->duration); return buf;
	case RUN_OPT_METRICS_HOLD:
		if (!o->metrics)
			return NULL; /* a hold without an endpoint is refused */
		snprintf(buf, len, "%g", o->metrics_hold);
		return buf;
	case RUN_OPT_WIRE: return o->wire;
	case RUN_OPT_GPU: return o->gpu ? o->gpu : "auto";
	case RUN_OPT_APP: return o->app_name;
	case RUN_OPT_PROTO: return o->proto;
	case RUN_OPT_SIZE:
		if (!o->size_given)
			return NULL; /* the protocol's own minimum or 64 */
		n = o->size;
		break;
	case RUN_OPT_RATE: n = o->rate; break;
	case RUN_OPT_COUNT: n = o->count; break;
	case RUN_OPT_QUEUES: n = o->queues; break;
	case RUN_OPT_RING:
	case RUN_OPT_BURST:
	case RUN_OPT_BATCH:
		n = id == RUN_OPT_RING ? o->ring : id == RUN_OPT_BURST ? o->burst : o->batch;
		if (!n)
			return "auto";
		break;
	case RUN_OPT_THREADS: n = o->threads; break;
	case RUN_OPT_WATCHERS:
		if (!o->watchers)
			return NULL;
		n = o->watchers;
		break;
	case RUN_OPT_HOLD_US:
		if (!o->hold_us)
			return NULL;
		n = o->hold_us;
		break;
	case RUN_OPT_USER: return o->user;
	case RUN_OPT_FLOW_CONTROL: return o->flow_control < 0 ? "auto" : o->flow_control ? "on" : "off";
	case RUN_OPT_MEM: return o->mem_name;
	case RUN_OPT_RECV_SCOPE: return scope_name(o->recv_scope);
	case RUN_OPT_SEND_SCOPE: return o->send_scope < 0 ? NULL : scope_name(o->send_scope);
	case RUN_OPT_POLL: return o->poll == RUN_POLL_BUSY ? "busy" : "adaptive";
	case RUN_OPT_METRICS: return o->metrics;
	case RUN_OPT_JSON: return o->json ? "true" : "false";
	case RUN_OPT_QUIET: return o->quiet ? "true" : "false";
	case RUN_OPT_FLOW_FILE: return o->flow_file;
	case RUN_OPT_RSS: return o->rss ? "true" : "false";
	case RUN_OPT_INLINE_HEADER: return o->inline_header ? "true" : "false";
	case RUN_OPT_CPUS: return o->cpus;
	default: return NULL;
	}
	snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}

int run_opts_check(struct run_opts *o)
{
	char where[320];
	if (o->nflow) {
		/* The config's rules as one rules text: checked here, with the
		 * key's line, before anything is opened. */
		size_t len = 1;
		for (unsigned i = 0; i < o->nflow; i++)
			len += strlen(o->flow[i]) + 1;
		free(o->flow_text);
		o->flow_text = calloc(1, len);
		if (!o->flow_text) {
			fprintf(stderr, "gnio run: out of memory\n");
			return GNIO_EXIT_FAIL;
		}
		size_t at = 0;
		for (unsigned i = 0; i < o->nflow; i++) {
			struct gnio_flow_rule rule;
			int is_default;
			gnio_flow_rule_init(&rule);
			if (gnio_flow_rule_parse(o->flow[i], &rule, &is_default) != GNIO_SUCCESS) {
				fprintf(stderr, "gnio run: %s[%u]: '%s': %s\n",
					run_opt_where(o, RUN_OPT_FLOW, where, sizeof(where)), i, o->flow[i],
					gnio_last_error_msg());
				return GNIO_EXIT_USAGE;
			}
			size_t n = strlen(o->flow[i]);
			memcpy(o->flow_text + at, o->flow[i], n); /* len counted every rule + 1 */
			at += n;
			o->flow_text[at++] = '\n';
		}
	}
	if (o->rss && o->queues < 2) {
		fprintf(stderr, "gnio run: %s: spreading needs --queues 2 or more\n",
			run_opt_where(o, RUN_OPT_RSS, where, sizeof(where)));
		return GNIO_EXIT_USAGE;
	}
	if (o->metrics_hold > 0 && !o->metrics) {
		fprintf(stderr, "gnio run: %s: a hold needs an endpoint to serve from (metrics.listen or --metrics)\n",
			run_opt_where(o, RUN_OPT_METRICS_HOLD, where, sizeof(where)));
		return GNIO_EXIT_USAGE;
	}
	o->app = gnio_app_find(o->app_name);
	if (o->hold_us && strcmp(o->app_name, "verify")) {
		fprintf(stderr, "gnio run: %s: only the verify app holds its batches (--app verify)\n",
			run_opt_where(o, RUN_OPT_HOLD_US, where, sizeof(where)));
		return GNIO_EXIT_USAGE;
	}
	if (o->user) {
		char why[192];
		if (privdrop_resolve(o->user, &o->user_id, why, sizeof(why))) {
			fprintf(stderr, "gnio run: %s: %s\n", run_opt_where(o, RUN_OPT_USER, where, sizeof(where)), why);
			return GNIO_EXIT_USAGE;
		}
		if (!o->check_config && !privdrop_possible()) {
			fprintf(stderr, "gnio run: %s %s: switching users needs root (or CAP_SETUID and CAP_SETGID)\n",
				run_opt_where(o, RUN_OPT_USER, where, sizeof(where)), o->user);
			return GNIO_EXIT_ENV;
		}
	}
	/* Sending at the receive scope keeps the frames in order. */
	if (o->send_scope < 0)
		o->send_scope = o->recv_scope;
	if (o->send_scope > o->recv_scope) {
		fprintf(stderr, "gnio run: %s: a send scope wider than the receive scope (%s) has no group to send as\n",
			run_opt_where(o, RUN_OPT_SEND_SCOPE, where, sizeof(where)), scope_name(o->recv_scope));
		return GNIO_EXIT_USAGE;
	}
	/* Watchers poll for one thread or one warp; a block receive polls with
	 * all its threads already (docs/PERFORMANCE.md, "Echo without fences"). */
	if (o->watchers && o->recv_scope == GNIO_APP_SCOPE_BLOCK) {
		fprintf(stderr, "gnio run: %s: watchers poll for a thread or warp receive; add --recv-scope warp or thread\n",
			run_opt_where(o, RUN_OPT_WATCHERS, where, sizeof(where)));
		return GNIO_EXIT_USAGE;
	}
	o->is_sw = !strncmp(o->wire, "sw:", 3);
	gnio_gen_cfg_init(&o->gen);
	gnio_gen_proto_parse(o->proto, &o->gen.proto); /* checked when set */
	if (!o->size_given && gnio_gen_min_frame(o->gen.proto) > o->size)
		o->size = gnio_gen_min_frame(o->gen.proto); /* e.g. mix needs 97 bytes */
	o->gen.frame_size = o->size;
	/* Spreading shows only with many flows: vary the source port. */
	if (o->rss)
		o->gen.flows = 4096;
	o->gen.count = o->count;
	o->gen.rate_pps = o->rate;
	char why[256];
	if (gnio_gen_cfg_check(&o->gen, why, sizeof(why)) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio run: %s: %s\n", run_opt_where(o, RUN_OPT_SIZE, where, sizeof(where)), why);
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
	/* afpacket: one socket per queue, in a fanout group */
	else if (((o->is_sw && o->queues > 8) || (!strncmp(o->wire, "afpacket:", 9) && o->queues > 1)) &&
		 !strstr(o->wire, "queues="))
		snprintf(o->wire_spec, sizeof(o->wire_spec), "%s,queues=%u", o->wire, o->queues);
	else
		snprintf(o->wire_spec, sizeof(o->wire_spec), "%s", o->wire);
	return -1;
}

/* getopt_long's table, from defs. */
static const struct option *long_options(void)
{
	static struct option lo[RUN_OPT_COUNT_ + 4];
	if (lo[0].name)
		return lo;
	size_t n = 0;
	for (int id = 0; id < RUN_OPT_COUNT_; id++)
		if (defs[id].flag)
			lo[n++] = (struct option){defs[id].flag, defs[id].has_arg ? required_argument : no_argument,
						  NULL, OPT_BASE + id};
	lo[n++] = (struct option){"config", required_argument, NULL, FLAG_CONFIG};
	lo[n++] = (struct option){"check-config", no_argument, NULL, FLAG_CHECK_CONFIG};
	lo[n++] = (struct option){"help", no_argument, NULL, FLAG_HELP};
	return lo;
}

static int next_opt(int argc, char **argv)
{
	int c = getopt_long(argc, argv, "hjq", long_options(), NULL);
	return c == 'h' ? FLAG_HELP : c == 'j' ? OPT_BASE + RUN_OPT_JSON : c == 'q' ? OPT_BASE + RUN_OPT_QUIET : c;
}

int run_parse_opts(int argc, char **argv, struct run_opts *o)
{
	run_opts_defaults(o);
	const struct run_origin flag = {NULL, 0, NULL};
	int c, help = 0;

	/* First pass: only --config (and --help), so that the file comes
	 * before every flag wherever --config stands. */
	optind = 0; /* rescanning argv: a full reset */
	opterr = 0;
	while ((c = next_opt(argc, argv)) != -1) {
		if (c == FLAG_HELP)
			help = 1;
		if (c != FLAG_CONFIG)
			continue;
		if (o->config) {
			fprintf(stderr, "gnio run: --config given twice ('%s', '%s'): one file per run\n", o->config,
				optarg);
			return GNIO_EXIT_USAGE;
		}
		o->config = optarg;
	}
	if (help) {
		usage(stdout);
		return GNIO_EXIT_OK;
	}
	if (o->config) {
		int rc = config_load(o->config, o);
		if (rc >= 0)
			return rc;
	}

	/* Second pass: the flags, in order. */
	optind = 0;
	while ((c = next_opt(argc, argv)) != -1) {
		if (c == FLAG_CONFIG)
			continue;
		if (c == FLAG_CHECK_CONFIG) {
			o->check_config = 1;
			continue;
		}
		if (c >= OPT_BASE && c < OPT_BASE + RUN_OPT_COUNT_) {
			int rc = run_opt_set(o, (enum run_opt)(c - OPT_BASE), optarg, &flag);
			if (rc)
				return rc;
			continue;
		}
		if (optopt > 0 && optopt < OPT_BASE)
			fprintf(stderr, "gnio run: option -%c is unknown or needs a value (see gnio run --help)\n", optopt);
		else if (optopt >= OPT_BASE)
			fprintf(stderr, "gnio run: %s needs a value (see gnio run --help)\n", argv[optind - 1]);
		else
			fprintf(stderr, "gnio run: unknown option '%s' (see gnio run --help)\n", argv[optind - 1]);
		return GNIO_EXIT_USAGE;
	}
	if (optind < argc) {
		fprintf(stderr, "gnio run: unexpected argument '%s' (see gnio run --help)\n", argv[optind]);
		return GNIO_EXIT_USAGE;
	}

	/* What a config file takes back: the values as given, before the
	 * checks resolve the automatic ones (flow control, send scope, size). */
	struct run_opts given = *o;
	int rc = run_opts_check(o);
	if (rc >= 0 || !o->check_config)
		return rc;
	char why[256];
	if (config_write(stdout, &given, "the effective configuration of gnio run --check-config: the defaults,\n"
					  "then the --config file, then the flags in order",
			 why, sizeof(why))) {
		fprintf(stderr, "gnio run: --check-config: %s\n", why);
		return GNIO_EXIT_FAIL;
	}
	return GNIO_EXIT_OK;
}
