/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_run.c - `gnio run`: the main job. Opens a wire (default: the
 * software wire with its built-in generator), picks a device (best present),
 * launches a built-in app as a persistent kernel, prints a live line every
 * second and a summary, and on stop walks the rollback sequence step by step.
 */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "apps/apps.h"
#include "commands.h"
#include "json.h"
#include "probe.h"

struct run_opts {
	double duration;
	const char *wire;
	const char *gpu;
	const char *app;
	uint32_t size;
	const char *proto;
	uint64_t rate;
	uint64_t count;
	uint32_t ring;
	uint32_t burst;
	uint32_t batch;
	int flow_control; /* -1 auto */
	int json;
	int quiet;
	const char *mem;
	const char *scope;
	uint32_t threads;
	uint32_t queues;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

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
		"                    classify: per-protocol counts; echo: send each frame back;\n"
		"                    touch: read every payload byte (what the kernel really pulls)\n"
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
		"  --threads N       CUDA threads per block (default 256)\n"
		"  --queues N        RX queues, each with its own ring, proxy thread and kernel\n"
		"                    (default 1, at most 16)\n"
		"  --json            print one JSON object as the last line of stdout\n"
		"  --quiet           no live lines\n"
		"Exit: 0 ok, 1 failure, 2 usage, 3 environment (device or wire missing).\n");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
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

static int env_exit(gnio_error_t err)
{
	return err == GNIO_ERROR_INVALID_VALUE ? GNIO_EXIT_USAGE : GNIO_EXIT_ENV;
}

#define RUN_MAX_QUEUES 16

/* One queue's worth of objects: ring, pools, kernel. */
struct run_queue {
	void *rx_mem, *tx_mem, *stats_mem;
	struct gnio_buf_arr *rx_pool, *tx_pool;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	struct gnio_runner *runner;
	struct gnio_app_stats *stats; /* host view */
	struct gnio_app_args args;
};

/* Everything the run builds, torn down in reverse by the rollback steps. */
struct run_state {
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	unsigned nq;
	struct run_queue q[RUN_MAX_QUEUES];
	struct gnio_rollback *rb; /* every object above, in creation order */
};

static void step_log(int quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step_log(int quiet, const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gnio: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The rollback (gnio_rollback_run) reports each step here. At step 1 the
 * kernels are done and their memory still allocated: copy the final counters. */
struct run_rb {
	struct run_state *s;
	int quiet;
	struct gnio_app_stats *qks;
};

static void run_rb_step(void *user, unsigned step, gnio_error_t err, const char *text)
{
	struct run_rb *r = user;
	if (step == 1 && err != GNIO_ERROR_TIME_OUT && r->qks)
		for (unsigned i = 0; i < r->s->nq; i++)
			if (r->s->q[i].stats)
				r->qks[i] = *r->s->q[i].stats;
	if (err && err != GNIO_ERROR_SKIPPED)
		step_log(0, "rollback %u/5: %s: %s", step, gnio_error_get_name(err), text);
	else
		step_log(r->quiet, "rollback %u/5: %s", step, text);
}

/* After a rollback that completed, the objects it released are gone. */
static void forget_released(struct run_state *s)
{
	for (unsigned i = 0; i < s->nq; i++) {
		struct run_queue *rq = &s->q[i];
		rq->runner = NULL;
		rq->rx_pool = rq->tx_pool = NULL;
		rq->rx_mem = rq->tx_mem = rq->stats_mem = NULL;
		rq->stats = NULL;
	}
}

static void destroy_rest(struct run_state *s)
{
	if (s->rb)
		gnio_rollback_destroy(s->rb);
	s->rb = NULL;
	for (unsigned i = 0; i < s->nq; i++) {
		if (s->q[i].txq)
			gnio_eth_txq_destroy(s->q[i].txq);
		if (s->q[i].rxq)
			gnio_eth_rxq_destroy(s->q[i].rxq);
		s->q[i].txq = NULL;
		s->q[i].rxq = NULL;
	}
	if (s->peer)
		gnio_sw_peer_close(s->peer);
	if (s->dev)
		gnio_dev_close(s->dev);
	if (s->gpu)
		gnio_gpu_destroy(s->gpu);
	s->peer = NULL;
	s->dev = NULL;
	s->gpu = NULL;
}

static uint64_t ld(const uint64_t *p) { return gnio_load_acquire_u64(p); }

/* With a sending app on the sw wire, gnio run plays the peer's receiving
 * end too, so frames the kernel sends do not back up (and stall it). */
struct peer_drain {
	struct gnio_sw_peer *peer;
	unsigned nq;
	int stop;
	uint64_t received;
	pthread_t thread;
};

static void *peer_drain_main(void *arg)
{
	struct peer_drain *d = arg;
	uint8_t buf[16384];
	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		unsigned got = 0;
		for (unsigned q = 0; q < d->nq; q++) {
			uint32_t len;
			while (gnio_sw_peer_recv(d->peer, (uint16_t)q, buf, sizeof(buf), &len, NULL) == GNIO_SUCCESS) {
				got++;
				__atomic_store_n(&d->received, d->received + 1, __ATOMIC_RELAXED);
			}
		}
		if (!got)
			sched_yield();
	}
	return NULL;
}

static void sum_kernel(struct run_state *s, uint64_t *pk, uint64_t *by)
{
	*pk = *by = 0;
	for (unsigned i = 0; i < s->nq; i++) {
		/* packets is stored last with release: read it first. */
		*pk += ld(&s->q[i].stats->packets);
		*by += ld(&s->q[i].stats->bytes);
	}
}

static uint64_t sum_heartbeat(struct run_state *s)
{
	uint64_t hb = 0;
	for (unsigned i = 0; i < s->nq; i++)
		hb += gnio_runner_get_heartbeat(s->q[i].runner);
	return hb;
}

static void add_rx_stats(struct gnio_eth_rxq_stats *sum, const struct gnio_eth_rxq_stats *one)
{
	sum->rx_packets += one->rx_packets;
	sum->rx_bytes += one->rx_bytes;
	sum->released += one->released;
	for (int k = 0; k < GNIO_DROP_REASON_COUNT; k++)
		sum->dropped[k] += one->dropped[k];
	sum->dropped_total += one->dropped_total;
}

static void sum_rx_stats(struct run_state *s, struct gnio_eth_rxq_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned i = 0; i < s->nq; i++) {
		struct gnio_eth_rxq_stats one;
		if (gnio_eth_rxq_get_stats(s->q[i].rxq, &one) == GNIO_SUCCESS)
			add_rx_stats(sum, &one);
	}
}

static uint64_t sum_offered(struct run_state *s)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < s->nq; i++) {
		struct gnio_sw_peer_stats ps;
		if (gnio_sw_peer_get_stats(s->peer, (uint16_t)i, &ps) == GNIO_SUCCESS)
			n += ps.offered;
	}
	return n;
}

static int gen_all_done(struct run_state *s)
{
	for (unsigned i = 0; i < s->nq; i++)
		if (!gnio_sw_peer_gen_done(s->peer, (uint16_t)i))
			return 0;
	return 1;
}

int gnio_cmd_run(int argc, char **argv)
{
	struct run_opts o = {
		.duration = 10, .wire = "sw:demo", .app = "count", .size = 64, .proto = "udp",
		.ring = 4096, .burst = 256, .batch = 1024, .flow_control = -1, .mem = "cpu_gpu",
		.scope = "block", .threads = 256, .queues = 1,
	};
	static const struct option longopts[] = {
		{"duration", required_argument, 0, 'd'}, {"wire", required_argument, 0, 'w'},
		{"gpu", required_argument, 0, 'g'},      {"app", required_argument, 0, 'a'},
		{"size", required_argument, 0, 's'},     {"proto", required_argument, 0, 'p'},
		{"rate", required_argument, 0, 'r'},     {"count", required_argument, 0, 'c'},
		{"ring", required_argument, 0, 'R'},     {"burst", required_argument, 0, 'B'},
		{"batch", required_argument, 0, 'b'},    {"flow-control", required_argument, 0, 'f'},
		{"mem", required_argument, 0, 'm'},      {"recv-scope", required_argument, 0, 'S'},
		{"threads", required_argument, 0, 't'},  {"json", no_argument, 0, 'j'},
		{"queues", required_argument, 0, 'Q'},
		{"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	optind = 1;
	int c, size_given = 0;
	uint64_t v;
	while ((c = getopt_long(argc, argv, "hjq", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': {
			char *end;
			o.duration = strtod(optarg, &end);
			if (*end || o.duration < 0) {
				fprintf(stderr, "gnio run: --duration '%s' is not a number of seconds >= 0\n", optarg);
				return GNIO_EXIT_USAGE;
			}
			break;
		}
		case 'w': o.wire = optarg; break;
		case 'g': o.gpu = optarg; break;
		case 'a': o.app = optarg; break;
		case 'p': o.proto = optarg; break;
		case 'm': o.mem = optarg; break;
		case 'S': o.scope = optarg; break;
		case 'j': o.json = 1; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		case 'f':
			if (!strcmp(optarg, "on"))
				o.flow_control = 1;
			else if (!strcmp(optarg, "off"))
				o.flow_control = 0;
			else {
				fprintf(stderr, "gnio run: --flow-control takes on or off\n");
				return GNIO_EXIT_USAGE;
			}
			break;
		case 's': case 'r': case 'c': case 'R': case 'B': case 'b': case 't': case 'Q':
			if (parse_u64(optarg, &v)) {
				fprintf(stderr, "gnio run: --%s '%s' is not a non-negative integer\n",
					c == 's' ? "size" : c == 'r' ? "rate" : c == 'c' ? "count" : c == 'R' ? "ring"
					: c == 'B' ? "burst" : c == 'b' ? "batch" : c == 'Q' ? "queues" : "threads", optarg);
				return GNIO_EXIT_USAGE;
			}
			if (c == 's') {
				o.size = v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
				size_given = 1;
			}
			else if (c == 'r')
				o.rate = v;
			else if (c == 'c')
				o.count = v;
			else if (c == 'R')
				o.ring = (uint32_t)v;
			else if (c == 'B')
				o.burst = (uint32_t)v;
			else if (c == 'b')
				o.batch = (uint32_t)v;
			else if (c == 'Q')
				o.queues = v > 1000 ? 1000 : (uint32_t)v;
			else
				o.threads = (uint32_t)v;
			break;
		default: usage(stderr); return GNIO_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gnio run: unexpected argument '%s' (see gnio run --help)\n", argv[optind]);
		return GNIO_EXIT_USAGE;
	}

	if (o.queues < 1 || o.queues > RUN_MAX_QUEUES) {
		fprintf(stderr, "gnio run: --queues %u is outside 1..%d\n", o.queues, RUN_MAX_QUEUES);
		return GNIO_EXIT_USAGE;
	}
	const struct gnio_app *app = gnio_app_find(o.app);
	if (!app) {
		fprintf(stderr, "gnio run: unknown app '%s' (count, classify, echo, touch)\n", o.app);
		return GNIO_EXIT_USAGE;
	}
	int scope = !strcmp(o.scope, "thread") ? 0 : !strcmp(o.scope, "warp") ? 1 : !strcmp(o.scope, "block") ? 2 : -1;
	if (scope < 0) {
		fprintf(stderr, "gnio run: --recv-scope takes thread, warp or block\n");
		return GNIO_EXIT_USAGE;
	}
	enum gnio_gpu_mem_type rx_mem_type;
	if (!strcmp(o.mem, "cpu_gpu"))
		rx_mem_type = GNIO_GPU_MEM_TYPE_CPU_GPU;
	else if (!strcmp(o.mem, "gpu"))
		rx_mem_type = GNIO_GPU_MEM_TYPE_GPU;
	else {
		fprintf(stderr, "gnio run: --mem takes cpu_gpu or gpu\n");
		return GNIO_EXIT_USAGE;
	}
	int is_sw = !strncmp(o.wire, "sw:", 3);
	struct gnio_gen_cfg gen;
	gnio_gen_cfg_init(&gen);
	if (gnio_gen_proto_parse(o.proto, &gen.proto) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio run: unknown --proto '%s' (udp, dns, tcp, http, icmp, arp, mix)\n", o.proto);
		return GNIO_EXIT_USAGE;
	}
	if (!size_given && gnio_gen_min_frame(gen.proto) > o.size)
		o.size = gnio_gen_min_frame(gen.proto); /* e.g. mix needs 97 bytes */
	gen.frame_size = o.size;
	gen.count = o.count;
	gen.rate_pps = o.rate;
	char why[256];
	if (gnio_gen_cfg_check(&gen, why, sizeof(why)) != GNIO_SUCCESS) {
		fprintf(stderr, "gnio run: --size %u: %s\n", o.size, why);
		return GNIO_EXIT_USAGE;
	}
	/* Endless sources (the generator at rate 0, the null wire) would only
	 * measure how fast they can overrun the ring; hold them back instead. */
	if (o.flow_control < 0)
		o.flow_control = (is_sw && o.rate == 0) || !strncmp(o.wire, "null:", 5);

	/* Device: the one asked for, else the best present, saying why. */
	char bus[64];
	if (o.gpu) {
		snprintf(bus, sizeof(bus), "%s", o.gpu);
		why[0] = 0;
	} else {
		gnio_gpu_pick_best(bus, sizeof(bus), why, sizeof(why));
	}
	struct run_state s;
	memset(&s, 0, sizeof(s));
	/* Declared before the first goto fail so the fail path sees them set. */
	struct peer_drain drain;
	memset(&drain, 0, sizeof(drain));
	int drain_running = 0;
	gnio_error_t err = gnio_gpu_create(bus, &s.gpu);
	if (err != GNIO_SUCCESS) {
		fprintf(stderr, "gnio run: --gpu %s: %s (%s)\n", bus, gnio_last_error_msg(), gnio_error_get_name(err));
		return env_exit(err);
	}
	err = gnio_rollback_create(s.gpu, &s.rb);
	if (err != GNIO_SUCCESS) {
		fprintf(stderr, "gnio run: rollback bookkeeping: %s\n", gnio_last_error_msg());
		destroy_rest(&s);
		return GNIO_EXIT_FAIL;
	}
	int on_cpu = gnio_gpu_is_cpu(s.gpu);
	gnio_runner_launch_fn kernel = on_cpu ? app->cpu : app->cuda;
	if (!kernel) {
		fprintf(stderr, "gnio run: app %s has no %s kernel in this build\n", app->name, on_cpu ? "CPU" : "CUDA");
		destroy_rest(&s);
		return GNIO_EXIT_ENV;
	}
	/* The null wire makes frames of the run's --size unless its spec says. */
	char wire_spec[512];
	if (!strncmp(o.wire, "null:", 5) && !strstr(o.wire, "size="))
		snprintf(wire_spec, sizeof(wire_spec), "%s,size=%u", o.wire, o.size);
	else if (is_sw && o.queues > 8 && !strstr(o.wire, "queues="))
		snprintf(wire_spec, sizeof(wire_spec), "%s,queues=%u", o.wire, o.queues);
	else
		snprintf(wire_spec, sizeof(wire_spec), "%s", o.wire);
	err = gnio_dev_open(wire_spec, &s.dev);
	if (err != GNIO_SUCCESS) {
		fprintf(stderr, "gnio run: --wire %s: %s (%s)\n", o.wire, gnio_last_error_msg(), gnio_error_get_name(err));
		destroy_rest(&s);
		return env_exit(err);
	}
	uint32_t slot = o.size > 2048 ? (o.size + 63) / 64 * 64 : 2048;
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	gnio_devinfo_get_caps(gnio_dev_as_devinfo(s.dev), &caps);
	uint32_t max_packet = caps.max_frame_size && caps.max_frame_size < slot ? caps.max_frame_size : slot;
	if (is_sw && o.size > max_packet) {
		fprintf(stderr, "gnio run: --size %u exceeds the wire's maximum frame of %u bytes\n", o.size, max_packet);
		destroy_rest(&s);
		return GNIO_EXIT_USAGE;
	}
	/* Say which device and why only once the wire is known good, so that a
	 * bad --wire fails with exactly one line on stderr. */
	if (!o.quiet)
		fprintf(stderr, "gnio: device %s (%s)%s%s\n", gnio_gpu_get_bus_id(s.gpu), gnio_gpu_get_name(s.gpu),
			why[0] ? ": " : "", why);

#define RUN_CHECK(expr, what)                                                                                 \
	do {                                                                                                  \
		err = (expr);                                                                                 \
		if (err != GNIO_SUCCESS) {                                                                    \
			fprintf(stderr, "gnio run: %s: %s (%s)\n", what, gnio_last_error_msg(),              \
				gnio_error_get_name(err));                                                    \
			goto fail;                                                                            \
		}                                                                                             \
	} while (0)

	if (caps.num_rx_queues && o.queues > caps.num_rx_queues) {
		fprintf(stderr, "gnio run: --queues %u: the wire %s has %u RX queue(s)\n", o.queues, o.wire,
			caps.num_rx_queues);
		destroy_rest(&s);
		return GNIO_EXIT_USAGE;
	}
	s.nq = o.queues;
	for (unsigned i = 0; i < s.nq; i++) {
		struct run_queue *rq = &s.q[i];
		void *cpu_ptr;
		RUN_CHECK(gnio_gpu_mem_alloc(s.gpu, (size_t)o.ring * slot, 4096, rx_mem_type, &rq->rx_mem, &cpu_ptr),
			  "RX payload pool");
		RUN_CHECK(gnio_rollback_add_mem(s.rb, rq->rx_mem), "rollback registration");
		RUN_CHECK(gnio_buf_arr_create(s.gpu, rq->rx_mem, slot, o.ring, &rq->rx_pool), "RX buffer array");
		RUN_CHECK(gnio_rollback_add_buf_arr(s.rb, rq->rx_pool), "rollback registration");
		RUN_CHECK(gnio_buf_arr_start(rq->rx_pool), "RX buffer array start");
		RUN_CHECK(gnio_eth_rxq_create(s.dev, o.burst, max_packet, &rq->rxq), "RX queue");
		RUN_CHECK(gnio_rollback_add_rxq(s.rb, rq->rxq), "rollback registration");
		RUN_CHECK(gnio_eth_rxq_set_queue_id(rq->rxq, (uint16_t)i), "RX queue id");
		RUN_CHECK(gnio_eth_rxq_set_num_packets(rq->rxq, o.ring), "--ring");
		RUN_CHECK(gnio_eth_rxq_set_flow_control(rq->rxq, o.flow_control), "flow control");
		RUN_CHECK(gnio_eth_rxq_set_pkt_buf(rq->rxq, rq->rx_pool), "RX pool registration");
		RUN_CHECK(gnio_ctx_set_datapath_on_gpu(gnio_eth_rxq_as_ctx(rq->rxq), s.gpu), "RX datapath");
		RUN_CHECK(gnio_ctx_start(gnio_eth_rxq_as_ctx(rq->rxq)), "RX queue start");
		struct gnio_gpu_eth_rxq *rxh;
		RUN_CHECK(gnio_eth_rxq_get_gpu_handle(rq->rxq, &rxh), "RX GPU handle");
		struct gnio_gpu_eth_txq *txh = NULL;
		if (app->needs_tx) {
			uint32_t tx_ring = 1024;
			RUN_CHECK(gnio_gpu_mem_alloc(s.gpu, (size_t)tx_ring * slot, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU,
						     &rq->tx_mem, &cpu_ptr), "TX payload pool");
			RUN_CHECK(gnio_rollback_add_mem(s.rb, rq->tx_mem), "rollback registration");
			RUN_CHECK(gnio_buf_arr_create(s.gpu, rq->tx_mem, slot, tx_ring, &rq->tx_pool), "TX buffer array");
			RUN_CHECK(gnio_rollback_add_buf_arr(s.rb, rq->tx_pool), "rollback registration");
			RUN_CHECK(gnio_buf_arr_start(rq->tx_pool), "TX buffer array start");
			RUN_CHECK(gnio_eth_txq_create(s.dev, o.burst, &rq->txq), "TX queue");
			RUN_CHECK(gnio_rollback_add_txq(s.rb, rq->txq), "rollback registration");
			RUN_CHECK(gnio_eth_txq_set_queue_id(rq->txq, (uint16_t)i), "TX queue id");
			RUN_CHECK(gnio_eth_txq_set_num_packets(rq->txq, tx_ring), "TX ring");
			RUN_CHECK(gnio_eth_txq_set_pkt_buf(rq->txq, rq->tx_pool), "TX pool registration");
			RUN_CHECK(gnio_ctx_set_datapath_on_gpu(gnio_eth_txq_as_ctx(rq->txq), s.gpu), "TX datapath");
			RUN_CHECK(gnio_ctx_start(gnio_eth_txq_as_ctx(rq->txq)), "TX queue start");
			RUN_CHECK(gnio_eth_txq_get_gpu_handle(rq->txq, &txh), "TX GPU handle");
		}
		void *stats_cpu;
		RUN_CHECK(gnio_gpu_mem_alloc(s.gpu, sizeof(struct gnio_app_stats), GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU,
					     &rq->stats_mem, &stats_cpu), "kernel stats");
		RUN_CHECK(gnio_rollback_add_mem(s.rb, rq->stats_mem), "rollback registration");
		rq->stats = stats_cpu;
		rq->args = (struct gnio_app_args){
			.rxq = rxh, .txq = txh, .stats = rq->stats_mem, .max_batch = o.batch, .timeout_ns = 200000,
			.blocks = 1, .threads = o.threads, .recv_scope = scope,
		};
		RUN_CHECK(gnio_runner_create(s.gpu, &rq->runner), "runner");
		RUN_CHECK(gnio_rollback_add_runner(s.rb, rq->runner), "rollback registration");
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (unsigned i = 0; i < s.nq; i++)
		RUN_CHECK(gnio_runner_start(s.q[i].runner, kernel, &s.q[i].args), "kernel launch");
	if (is_sw) {
		char name[192];
		snprintf(name, sizeof(name), "%s", gnio_devinfo_get_name(gnio_dev_as_devinfo(s.dev)));
		RUN_CHECK(gnio_sw_peer_open(name, &s.peer), "sw peer");
		for (unsigned i = 0; i < s.nq; i++)
			RUN_CHECK(gnio_sw_peer_gen_attach(s.peer, (uint16_t)i, &gen), "generator");
		if (app->needs_tx) {
			drain.peer = s.peer;
			drain.nq = s.nq;
			if (pthread_create(&drain.thread, NULL, peer_drain_main, &drain) == 0)
				drain_running = 1;
		}
	}
	if (!o.quiet)
		fprintf(stderr, "gnio: %s%s on %s, app %s, %u-byte %s frames%s, %u queue%s, %s\n",
			on_cpu ? "CPU kernel" : "CUDA kernel", s.nq > 1 ? "s" : "", o.wire, app->name, o.size,
			gnio_gen_proto_name(gen.proto), is_sw ? "" : " (from the wire)", s.nq, s.nq > 1 ? "s" : "",
			o.duration > 0 ? "running" : "running until Ctrl-C");

	int nvml_ok = 1;
	char dev_bus[64];
	snprintf(dev_bus, sizeof(dev_bus), "%s", gnio_gpu_get_bus_id(s.gpu));
	double t0 = now_s(), last_t = t0, idle_since = t0;
	uint64_t last_pk = 0, last_by = 0, last_hb = sum_heartbeat(&s);
	int warned_idle = 0, kernel_failed = 0;
	/* Steady-state window: from the first live tick (start-up excluded). */
	double t_warm = 0;
	uint64_t pk_warm = 0, by_warm = 0;
	while (!stop_requested) {
		sleep_ms(100);
		double t = now_s();
		if (o.duration > 0 && t - t0 >= o.duration)
			break;
		uint64_t pk, by;
		sum_kernel(&s, &pk, &by);
		if (is_sw && o.count && gen_all_done(&s) && pk >= o.count * s.nq)
			break;
		int bad = -1;
		for (unsigned i = 0; i < s.nq && bad < 0; i++)
			if (gnio_runner_get_state(s.q[i].runner) != GNIO_RUNNER_RUNNING)
				bad = (int)i;
		if (bad >= 0) {
			fprintf(stderr, "gnio run: kernel of queue %d %s early (last error %s)\n", bad,
				gnio_runner_state_name(gnio_runner_get_state(s.q[bad].runner)),
				gnio_error_get_name((gnio_error_t)ld(&s.q[bad].stats->last_error)));
			kernel_failed = 1;
			break;
		}
		if (t - last_t < 1.0)
			continue;
		if (t_warm == 0) {
			t_warm = t;
			pk_warm = pk;
			by_warm = by;
		}
		uint64_t hb = sum_heartbeat(&s);
		struct gnio_eth_rxq_stats rst;
		sum_rx_stats(&s, &rst);
		double dt = t - last_t;
		if (pk != last_pk)
			idle_since = t;
		if (!o.quiet) {
			/* GPU utilization from NVML (dlopen'd) when it answers; a
			 * persistent kernel keeps it high even when idle, so the
			 * heartbeat is what tells alive from hung. */
			char util[32] = "";
			unsigned pct;
			char nvwhy[PROBE_REASON];
			if (!on_cpu && nvml_ok && probe_nvml_utilization(dev_bus, &pct, nvwhy, sizeof(nvwhy)) == 0)
				snprintf(util, sizeof(util), " | GPU %u%%", pct);
			else
				nvml_ok = 0;
			fprintf(stderr, "[%5.1fs] %9.3f Mpps %8.3f Gbit/s | kernel %llu pkts | dropped %llu | heartbeat %s%s\n",
				t - t0, (double)(pk - last_pk) / dt / 1e6, (double)(by - last_by) * 8 / dt / 1e9,
				(unsigned long long)pk, (unsigned long long)rst.dropped_total,
				hb != last_hb ? "alive" : "STALLED", util);
		}
		if (!warned_idle && t - idle_since >= 3.0 && hb != last_hb) {
			fprintf(stderr, "gnio: kernel alive and polling, no packets for %.0f s: is the peer sending?\n",
				t - idle_since);
			warned_idle = 1;
		}
		last_t = t;
		last_pk = pk;
		last_by = by;
		last_hb = hb;
	}
	double t_end = now_s();
	uint64_t measured, measured_bytes;
	sum_kernel(&s, &measured, &measured_bytes);
	if (stop_requested && !o.quiet)
		fprintf(stderr, "gnio: stop requested, rolling back\n");

	/* Quiesce so the books close exactly: stop offering (sw generator), let
	 * the proxies hand over what the wire still holds, stop taking frames
	 * from the wire, and let the kernels consume everything in the rings. */
	struct gnio_eth_rxq_stats rst;
	int have_peer = s.peer != NULL;
	if (s.peer) {
		for (unsigned i = 0; i < s.nq; i++)
			gnio_sw_peer_gen_detach(s.peer, (uint16_t)i);
		for (int i = 0; i < 200; i++) {
			sum_rx_stats(&s, &rst);
			if (rst.rx_packets + rst.dropped_total >= sum_offered(&s))
				break;
			sleep_ms(5);
		}
	}
	for (unsigned i = 0; i < s.nq; i++)
		gnio_eth_rxq_quiesce(s.q[i].rxq);
	for (int i = 0; i < 500 && !kernel_failed; i++) {
		uint64_t pk, by;
		sum_rx_stats(&s, &rst);
		sum_kernel(&s, &pk, &by);
		if (pk == rst.rx_packets)
			break;
		sleep_ms(10);
	}
	int quiet_steps = o.quiet || o.json;
	/* Offered counts stop moving once the generators are detached; read
	 * them while the queues still exist. */
	uint64_t offered_gen = have_peer ? sum_offered(&s) : 0;
	struct gnio_app_stats ks, qks[RUN_MAX_QUEUES];
	memset(qks, 0, sizeof(qks));
	struct run_rb rr = {&s, quiet_steps, qks};
	gnio_rollback_set_step_cb(s.rb, run_rb_step, &rr);
	gnio_error_t rerr = gnio_rollback_run(s.rb, 5000);
	unsigned next_step = 0;
	gnio_rollback_get_next_step(s.rb, &next_step);
	if (rerr == GNIO_ERROR_TIME_OUT || next_step < 5) {
		/* Failed closed: what the kernels may still touch stays allocated. */
		fprintf(stderr, "gnio run: rollback stopped at step %u (%s); memory left allocated on purpose "
			"(see docs/rollback.md)\n", next_step, gnio_error_get_name(rerr));
		return GNIO_EXIT_FAIL;
	}
	forget_released(&s);
	if (drain_running) {
		__atomic_store_n(&drain.stop, 1, __ATOMIC_RELEASE);
		pthread_join(drain.thread, NULL);
		drain_running = 0;
	}
	memset(&ks, 0, sizeof(ks));
	for (unsigned i = 0; i < s.nq; i++) {
		ks.packets += qks[i].packets;
		ks.bytes += qks[i].bytes;
		ks.errors += qks[i].errors;
		ks.tx_packets += qks[i].tx_packets;
		ks.digest ^= qks[i].digest;
		for (int k = 0; k < GNIO_PROTO_COUNT; k++)
			ks.proto[k] += qks[i].proto[k];
	}
	struct gnio_eth_rxq_stats qrst[RUN_MAX_QUEUES];
	memset(&rst, 0, sizeof(rst));
	struct gnio_eth_txq_stats tst = {0};
	for (unsigned i = 0; i < s.nq; i++) {
		gnio_eth_rxq_get_stats(s.q[i].rxq, &qrst[i]);
		add_rx_stats(&rst, &qrst[i]);
		struct gnio_eth_txq_stats t1;
		if (s.q[i].txq && gnio_eth_txq_get_stats(s.q[i].txq, &t1) == GNIO_SUCCESS) {
			tst.tx_packets += t1.tx_packets;
			tst.tx_errors += t1.tx_errors;
		}
	}
	char dev_id[64], dev_name[128];
	snprintf(dev_id, sizeof(dev_id), "%s", gnio_gpu_get_bus_id(s.gpu));
	snprintf(dev_name, sizeof(dev_name), "%s", gnio_gpu_get_name(s.gpu));
	unsigned nq = s.nq;
	destroy_rest(&s);
	step_log(quiet_steps, "wire and device closed");

	/* offered: what the peer put on the wire when we can see it (sw), else
	 * everything the wire delivered. */
	uint64_t offered = have_peer ? offered_gen : rst.rx_packets + rst.dropped_total;
	double secs = t_end - t0 > 0 ? t_end - t0 : 1e-9;
	double mpps = (double)measured / secs / 1e6;
	double gbps = (double)measured_bytes * 8 / secs / 1e9;
	double steady_s = t_warm > 0 && t_end - t_warm > 0.5 ? t_end - t_warm : 0;
	double mpps_steady = steady_s ? (double)(measured - pk_warm) / steady_s / 1e6 : mpps;
	double gbps_steady = steady_s ? (double)(measured_bytes - by_warm) * 8 / steady_s / 1e9 : gbps;
	int balanced = offered == rst.rx_packets + rst.dropped_total;
	int consumed = ks.packets == rst.rx_packets;
	uint64_t proto_sum = 0;
	for (int i = 0; i < GNIO_PROTO_COUNT; i++)
		proto_sum += ks.proto[i];
	int rc = kernel_failed || !balanced || !consumed ? GNIO_EXIT_FAIL : GNIO_EXIT_OK;

	if (!o.json) {
		printf("\ngnio run summary\n");
		printf("  wire            %s\n", o.wire);
		printf("  device          %s (%s)\n", dev_id, dev_name);
		printf("  app             %s\n", app->name);
		printf("  queues          %u\n", nq);
		printf("  duration        %.2f s\n", secs);
		printf("  offered         %llu\n", (unsigned long long)offered);
		printf("  rx_packets      %llu (handed to the kernel)\n", (unsigned long long)rst.rx_packets);
		printf("  kernel_packets  %llu (processed by the kernel)\n", (unsigned long long)ks.packets);
		printf("  dropped         %llu", (unsigned long long)rst.dropped_total);
		for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
			if (rst.dropped[i])
				printf(" %s=%llu", gnio_drop_reason_name(i), (unsigned long long)rst.dropped[i]);
		printf("\n  tx_packets      %llu\n", (unsigned long long)tst.tx_packets);
		printf("  rate            %.3f Mpps, %.3f Gbit/s (kernel, over the run)\n", mpps, gbps);
		printf("  steady rate     %.3f Mpps, %.3f Gbit/s (after the first second)\n", mpps_steady,
		       gbps_steady);
		if (nq > 1)
			for (unsigned i = 0; i < nq; i++)
				printf("    queue %-2u      kernel %llu, rx %llu, dropped %llu\n", i,
				       (unsigned long long)qks[i].packets, (unsigned long long)qrst[i].rx_packets,
				       (unsigned long long)qrst[i].dropped_total);
		if (!strcmp(app->name, "classify")) {
			printf("  protocols      ");
			for (int i = 0; i < GNIO_PROTO_COUNT; i++)
				if (ks.proto[i])
					printf(" %s=%llu", gnio_proto_name(i), (unsigned long long)ks.proto[i]);
			printf("\n");
		}
		printf("  books           offered %s rx_packets + dropped%s\n", balanced ? "==" : "!=",
		       consumed ? "; every delivered frame processed" : "; KERNEL MISSED FRAMES");
	} else {
		struct json j;
		json_init(&j, stdout, 0);
		json_obj_begin(&j, NULL);
		json_str(&j, "wire", o.wire);
		json_str(&j, "device", dev_id);
		json_str(&j, "device_name", dev_name);
		json_str(&j, "backend", on_cpu ? "cpu" : "cuda");
		json_str(&j, "app", app->name);
		json_u64(&j, "queues", nq);
		json_u64(&j, "frame_size", o.size);
		json_str(&j, "proto", gnio_gen_proto_name(gen.proto));
		json_dbl(&j, "duration_s", secs);
		json_u64(&j, "offered", offered);
		json_str(&j, "offered_source", have_peer ? "generator" : "wire");
		json_u64(&j, "rx_packets", rst.rx_packets);
		json_u64(&j, "rx_bytes", rst.rx_bytes);
		json_u64(&j, "kernel_packets", ks.packets);
		json_u64(&j, "kernel_bytes", ks.bytes);
		json_obj_begin(&j, "dropped");
		for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
			json_u64(&j, gnio_drop_reason_name(i), rst.dropped[i]);
		json_obj_end(&j);
		json_u64(&j, "dropped_total", rst.dropped_total);
		json_u64(&j, "tx_packets", tst.tx_packets);
		if (app->needs_tx && have_peer)
			json_u64(&j, "peer_received", drain.received);
		json_u64(&j, "tx_errors", tst.tx_errors);
		json_dbl(&j, "mpps", mpps);
		json_dbl(&j, "gbps", gbps);
		json_dbl(&j, "mpps_steady", mpps_steady);
		json_dbl(&j, "gbps_steady", gbps_steady);
		json_bool(&j, "flow_control", o.flow_control);
		json_str(&j, "rx_mem", o.mem);
		if (!strcmp(app->name, "classify")) {
			json_obj_begin(&j, "protocols");
			for (int i = 0; i < GNIO_PROTO_COUNT; i++)
				json_u64(&j, gnio_proto_name(i), ks.proto[i]);
			json_obj_end(&j);
			json_u64(&j, "protocols_total", proto_sum);
		}
		json_u64(&j, "kernel_errors", ks.errors);
		if (!strcmp(app->name, "touch"))
			json_u64(&j, "digest", ks.digest);
		json_bool(&j, "balanced", balanced);
		json_arr_begin(&j, "per_queue");
		for (unsigned i = 0; i < nq; i++) {
			json_obj_begin(&j, NULL);
			json_u64(&j, "queue", i);
			json_u64(&j, "rx_packets", qrst[i].rx_packets);
			json_u64(&j, "kernel_packets", qks[i].packets);
			json_u64(&j, "dropped_total", qrst[i].dropped_total);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
		json_finish(&j);
	}
	if (!balanced)
		fprintf(stderr, "gnio run: accounting mismatch: offered %llu != rx %llu + dropped %llu\n",
			(unsigned long long)offered, (unsigned long long)rst.rx_packets,
			(unsigned long long)rst.dropped_total);
	if (!consumed)
		fprintf(stderr, "gnio run: kernel processed %llu of %llu delivered frames\n",
			(unsigned long long)ks.packets, (unsigned long long)rst.rx_packets);
	return rc;

fail:
	if (drain_running) {
		__atomic_store_n(&drain.stop, 1, __ATOMIC_RELEASE);
		pthread_join(drain.thread, NULL);
	}
	{
		unsigned stopped_at = 0;
		gnio_rollback_run(s.rb, 5000);
		gnio_rollback_get_next_step(s.rb, &stopped_at);
		if (stopped_at < 5) {
			fprintf(stderr, "gnio run: rollback stopped at step %u; memory left allocated on purpose\n",
				stopped_at);
			return env_exit(err);
		}
		forget_released(&s);
	}
	destroy_rest(&s);
	return env_exit(err);
}
