/* SPDX-License-Identifier: MIT */
/*
 * bench/latency.c - round-trip latency through the built-in echo app.
 *
 * The peer end of an sw wire sends one generated frame (stamped with its
 * sequence number), busy-polls until the echo kernel has sent it back with
 * the MAC addresses swapped, checks it byte for byte and records the round
 * trip on CLOCK_MONOTONIC; then sends the next. One frame is in flight, so
 * each sample is the whole path with empty queues:
 *
 *   peer -> sw FIFO -> RX proxy -> RX ring -> echo kernel -> TX ring
 *        -> TX proxy -> sw FIFO -> peer
 *
 * --app echo (default) sends each frame back in place from its RX buffer;
 * --app echo-copy copies it into the TX pool first, for comparison.
 *
 * It runs on the CPU device (the kernel is a host thread) and on a CUDA GPU.
 * The one-way figure is RTT/2, an estimate: the two directions differ.
 *
 * Split (--legs): the sw wire stamps the echo with CLOCK_REALTIME when the TX
 * proxy hands it to the wire, so on one host clock "to tx" is send -> TX
 * proxy hand-off (RX proxy, ring, kernel, TX ring) and "from tx" is hand-off
 * -> peer has it. The RX completion's ts_ns does not split anything on sw:
 * it is the wire's push stamp, i.e. the send time itself.
 *
 * Timeline (--timeline, implies --legs): the echo kernel also stores its
 * batch end index into host memory after each receive and after its sends
 * (gnio_app_args.trace), and the peer's poll loop stamps when each store
 * becomes visible. That splits "to tx" into send -> the kernel has the frame
 * (the RX proxy, the ring and the kernel's poll), the kernel's own work, and
 * the TX proxy's pick-up. Each visible time trails the GPU's store by one
 * posted write across PCIe; the kernel's own leg does not (both ends do).
 * The extra reads slow the peer's poll a little: use it to find where time
 * goes, not for the headline figure.
 *
 * Exit: 0 every frame came back intact and the books balance; 1 a frame was
 * lost, late or corrupt, the books do not balance, or set-up failed; 2 bad
 * usage; 77 the GPU asked for is not usable here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long */
#endif
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "gnio/apps/apps.h"
#include "gnio/gnio.h"
#include "gnio/impl/atomics.h"

#define RING_ENTRIES 256u
#define BURST 32u
#define MAX_BATCH 32u
#define RECV_TIMEOUT_NS 20000u     /* how often the kernel looks at its stop flag */
#define START_TIMEOUT_MS 10000u    /* first heartbeat (CUDA module load) */
#define MAX_MISSES 10u             /* consecutive losses: the path is dead, stop */
#define RX_CAP 65536u              /* above the sw wire's largest frame: no TOO_BIG */

struct opts {
	const char *gpu;
	uint32_t size;
	uint64_t count;
	uint64_t warmup;
	int scope;
	uint32_t threads;
	unsigned timeout_ms;
	enum gnio_gpu_mem_type rx_mem;
	int legs;
	int timeline; /* --timeline: the kernel's trace words split "to tx" */
	int yield; /* --poll yield */
	int proxy_poll;        /* enum gnio_poll_mode of the wire's proxies */
	uint64_t interval_us;  /* pause between round trips */
	int pin;   /* CPU for the peer and both proxies; -1 none */
	int json;
	const char *app;
	int send_scope;
	int inline_header; /* --inline-header: completions carry the first 42 bytes */
	uint32_t watchers; /* --watchers: warps that poll the RX queue for the echo (CUDA) */
};

struct pipe {
	struct gnio_pipeline *pl;
	struct gnio_gpu *gpu;
	struct gnio_sw_peer *peer;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	struct gnio_app_stats *stats; /* host view */
	struct gnio_app_args args;
	struct gnio_runner *runner;
	uint64_t *trace; /* host view of args.trace (--timeline) */
};

/* The trace words follow the stats in the pipeline's user memory. */
#define TRACE_AT ((sizeof(struct gnio_app_stats) + 127u) & ~(size_t)127u)

struct tally {
	uint64_t sent;
	uint64_t lost;    /* not back within timeout_ms */
	uint64_t late;    /* of those, came back later (seen while waiting for another) */
	uint64_t corrupt; /* came back different from what was sent */
	int dead;         /* gave up after MAX_MISSES losses in a row */
};

struct samples {
	uint64_t *rtt;
	int64_t *to_tx, *from_tx; /* CLOCK_REALTIME differences: may step */
	int64_t *to_kernel, *in_kernel, *to_wire; /* --timeline: to_tx split in three */
	/* --timeline: to_tx split again at the proxies' stamps (GNIO_PROXY_STAMPS):
	 * send -> RX proxy published, published -> TX proxy found the
	 * descriptor, found -> handed to the wire */
	int64_t *to_ring, *ring_to_txp, *txp_to_wire;
	/* --timeline on a GPU: the kernel's own clock (SM cycles) per frame */
	int64_t *k_wait;   /* the receive that got the frame: call -> return */
	int64_t *k_header; /* return -> the header read */
	int64_t *k_send;   /* header -> the send returned */
	int64_t *k_idle;   /* receives that found nothing since the last frame */
	uint64_t clk0, ns0, clk1, ns1; /* clock against global timer, first and last frame */
	uint64_t n;
};

static const char *const scope_names[] = {"thread", "warp", "block"};

#define TRY(expr)                                                                                     \
	do {                                                                                          \
		gnio_error_t e_ = (expr);                                                             \
		if (e_ != GNIO_SUCCESS) {                                                             \
			fprintf(stderr, "latency: %s: %s (%s)\n", #expr, gnio_error_get_name(e_),     \
				gnio_last_error_msg());                                               \
			return e_;                                                                    \
		}                                                                                     \
	} while (0)

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gnio_latency_bench [--gpu BUSID|cpu] [--size N] [--count N] [--warmup N]\n"
		"                          [--recv-scope thread|warp|block] [--threads N]\n"
		"                          [--rx-mem cpu_gpu|gpu] [--timeout-ms N] [--poll spin|yield]\n"
		"                          [--pin CPU] [--legs] [--json] [--app echo|echo-copy]\n"
		"                          [--send-scope thread|warp|block] [--proxy-poll busy|adaptive]\n"
		"                          [--interval-us N] [--timeline] [--inline-header]\n"
		"                          [--watchers N]\n"
		"Ping-pong one frame at a time through the echo app over an sw wire;\n"
		"prints round-trip percentiles in microseconds.\n"
		"  --gpu       device (default: the best present, see gnio_gpu_pick_best)\n"
		"  --size      frame bytes without FCS (default 64)\n"
		"  --count     measured round trips (default 20000), after --warmup (1000)\n"
		"  --recv-scope  consumer of the RX queue in the kernel (default block)\n"
		"  --threads   CUDA threads per block (default: the app's)\n"
		"  --rx-mem    RX payload pool placement (default cpu_gpu)\n"
		"  --timeout-ms  a frame not back after this is lost (default 1000)\n"
		"  --poll      peer waits by spinning (default) or sched_yield between polls:\n"
		"              yield leaves the core to the proxies when cores are few\n"
		"  --pin       run the peer and both proxy threads on this CPU, leaving the\n"
		"              others to the CPU device's kernel thread (default: no pinning)\n"
		"  --legs      also split each trip at the TX proxy's wire stamp\n"
		"  --timeline  with --legs, split the trip at the kernel too: send -> the\n"
		"              kernel has it -> the kernel sent it -> the TX proxy handed it\n"
		"              to the wire (trace stores the peer's poll watches; slows it);\n"
		"              and at the proxies' stamps (GNIO_PROXY_STAMPS=1): send -> RX\n"
		"              proxy published -> TX proxy found it -> handed to the wire\n"
		"  --app       echo (in place, default) or echo-copy (through the TX pool)\n"
		"  --send-scope  the echo's send scope (default: the receive scope)\n"
		"  --proxy-poll  the proxies' polling mode (default busy; adaptive: they\n"
		"              sleep when idle and wake on traffic, gnio_dev_set_poll_mode)\n"
		"  --interval-us pause between round trips (default 0; 1000: 1000 frames/s)\n"
		"  --inline-header  the RX completions carry the frame's first 42 bytes, so\n"
		"              the echo reads its addresses without a PCIe round trip\n"
		"  --watchers  warps that poll the RX queue for a thread or warp receive and\n"
		"              make its releases, so the echo never waits on host memory\n"
		"              nor fences (CUDA; default 0)\n"
		"  --json      last stdout line: one JSON object with the results\n");
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (*end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"gpu", required_argument, NULL, 'g'},
		{"size", required_argument, NULL, 's'},
		{"count", required_argument, NULL, 'n'},
		{"warmup", required_argument, NULL, 'w'},
		{"recv-scope", required_argument, NULL, 'r'},
		{"threads", required_argument, NULL, 't'},
		{"rx-mem", required_argument, NULL, 'm'},
		{"timeout-ms", required_argument, NULL, 'T'},
		{"poll", required_argument, NULL, 'p'},
		{"pin", required_argument, NULL, 'P'},
		{"legs", no_argument, NULL, 'l'},
		{"timeline", no_argument, NULL, 'L'},
		{"json", no_argument, NULL, 'j'},
		{"app", required_argument, NULL, 'a'},
		{"send-scope", required_argument, NULL, 'S'},
		{"proxy-poll", required_argument, NULL, 'Q'},
		{"interval-us", required_argument, NULL, 'I'},
		{"inline-header", no_argument, NULL, 'H'},
		{"watchers", required_argument, NULL, 'W'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c, idx = 0;

	memset(o, 0, sizeof(*o));
	o->size = 64;
	o->count = 20000;
	o->warmup = 1000;
	o->scope = 2;
	o->send_scope = -1; /* the receive scope: frames stay in order */
	o->timeout_ms = 1000;
	o->rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU;
	o->pin = -1;
	o->app = "echo";
	o->proxy_poll = GNIO_POLL_BUSY;
	while ((c = getopt_long(argc, argv, "", lo, &idx)) != -1) {
		switch (c) {
		case 'g':
			o->gpu = optarg;
			break;
		case 's':
			if (parse_u64(optarg, GNIO_GEN_MIN_FRAME, GNIO_GEN_MAX_FRAME, &v))
				goto bad;
			o->size = (uint32_t)v;
			break;
		case 'n':
			if (parse_u64(optarg, 1, 100000000, &o->count))
				goto bad;
			break;
		case 'w':
			if (parse_u64(optarg, 0, 100000000, &o->warmup))
				goto bad;
			break;
		case 'r':
			for (o->scope = 0; o->scope < 3; o->scope++)
				if (!strcmp(optarg, scope_names[o->scope]))
					break;
			if (o->scope == 3)
				goto bad;
			break;
		case 't':
			if (parse_u64(optarg, 1, 1024, &v))
				goto bad;
			o->threads = (uint32_t)v;
			break;
		case 'm':
			if (!strcmp(optarg, "cpu_gpu"))
				o->rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU;
			else if (!strcmp(optarg, "gpu"))
				o->rx_mem = GNIO_GPU_MEM_TYPE_GPU;
			else
				goto bad;
			break;
		case 'T':
			if (parse_u64(optarg, 1, 600000, &v))
				goto bad;
			o->timeout_ms = (unsigned)v;
			break;
		case 'p':
			if (!strcmp(optarg, "spin") || !strcmp(optarg, "yield"))
				o->yield = optarg[0] == 'y';
			else
				goto bad;
			break;
		case 'P':
			if (parse_u64(optarg, 0, CPU_SETSIZE - 1, &v))
				goto bad;
			o->pin = (int)v;
			break;
		case 'l':
			o->legs = 1;
			break;
		case 'L':
			o->legs = o->timeline = 1;
			break;
		case 'Q':
			if (!strcmp(optarg, "busy"))
				o->proxy_poll = GNIO_POLL_BUSY;
			else if (!strcmp(optarg, "adaptive"))
				o->proxy_poll = GNIO_POLL_ADAPTIVE;
			else
				goto bad;
			break;
		case 'I':
			if (parse_u64(optarg, 0, 10000000, &o->interval_us))
				goto bad;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'H':
			o->inline_header = 1;
			break;
		case 'W':
			if (parse_u64(optarg, 0, 31, &v))
				goto bad;
			o->watchers = (uint32_t)v;
			break;
		case 'a':
			if (strcmp(optarg, "echo") && strcmp(optarg, "echo-copy"))
				goto bad;
			o->app = optarg;
			break;
		case 'S':
			for (o->send_scope = 0; o->send_scope < 3; o->send_scope++)
				if (!strcmp(optarg, scope_names[o->send_scope]))
					break;
			if (o->send_scope == 3)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "latency: unexpected argument %s\n", argv[optind]);
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "latency: bad value for --%s: %s\n", lo[idx].name, optarg);
	return -1;
}

/* The library's bring-up: the sw wire, the RX and TX queues (the RX pool
 * registered for in-place sends, or a TX pool for echo-copy), the stats block
 * and the runner. Small rings: one frame is in flight. */
static gnio_error_t pipe_up(struct pipe *p, const struct opts *o, const char *bus, const struct gnio_app *app)
{
	uint32_t max_pkt = o->size > 1518 ? o->size : 1518;
	uint32_t slot = 2048;
	char name[32], spec[40];
	struct gnio_pipeline_cfg pc;
	struct gnio_pipeline_queue q;

	while (slot < max_pkt)
		slot <<= 1;
	snprintf(name, sizeof(name), "lat%d", (int)getpid());
	snprintf(spec, sizeof(spec), "sw:%s", name);
	gnio_pipeline_cfg_init(&pc, spec, bus);
	pc.ring = RING_ENTRIES;
	pc.burst = BURST;
	pc.slot = slot;
	pc.max_packet = max_pkt;
	pc.rx_mem = o->rx_mem;
	pc.tx = 1;
	pc.tx_in_place = app->tx_in_place;
	pc.tx_pool = app->needs_tx_pool;
	pc.tx_ring = RING_ENTRIES;
	pc.user_mem = TRACE_AT + GNIO_APP_TRACE_WORDS * sizeof(uint64_t);
	pc.proxy_cpu = o->pin;
	pc.poll_mode = o->proxy_poll;
	pc.inline_header = o->inline_header;
	TRY(gnio_pipeline_create(&pc, &p->pl));
	TRY(gnio_pipeline_get_queue(p->pl, 0, &q));
	TRY(gnio_sw_peer_open(name, &p->peer));
	p->gpu = gnio_pipeline_get_gpu(p->pl);
	p->rxq = q.rxq;
	p->txq = q.txq;
	p->stats = q.user_mem_cpu;
	p->runner = q.runner;
	p->args.rxq = q.rxh;
	p->args.txq = q.txh;
	p->args.stats = q.user_mem_gpu;
	p->args.max_batch = MAX_BATCH;
	p->args.timeout_ns = RECV_TIMEOUT_NS;
	p->args.blocks = 1;
	p->args.threads = o->threads;
	p->args.recv_scope = o->scope;
	p->args.send_scope = o->send_scope < 0 ? o->scope : o->send_scope;
	p->args.watchers = o->watchers;
	if (o->timeline) {
		p->trace = (uint64_t *)((uint8_t *)q.user_mem_cpu + TRACE_AT);
		memset(p->trace, 0, GNIO_APP_TRACE_WORDS * sizeof(uint64_t));
		p->args.trace = (uint64_t *)((uint8_t *)q.user_mem_gpu + TRACE_AT);
	}
	return GNIO_SUCCESS;
}

static int step_fails(const char *what, gnio_error_t e)
{
	if (e == GNIO_SUCCESS)
		return 0;
	fprintf(stderr, "latency: teardown: %s: %s (%s)\n", what, gnio_error_get_name(e), gnio_last_error_msg());
	return 1;
}

/* The pipeline's rollback: the kernel stops first. Returns failed steps. */
static int pipe_down(struct pipe *p)
{
	int bad = 0;
	if (p->peer)
		bad += step_fails("peer close", gnio_sw_peer_close(p->peer));
	if (p->pl)
		bad += step_fails("pipeline destroy", gnio_pipeline_destroy(p->pl));
	return bad;
}

/* The echo of tx: MACs exchanged, every other byte equal. */
static int is_echo(const uint8_t *tx, uint32_t len, const uint8_t *rx, uint32_t rlen)
{
	return rlen == len && !memcmp(rx, tx + 6, 6) && !memcmp(rx + 6, tx, 6) &&
	       !memcmp(rx + 12, tx + 12, len - 12);
}

enum { RT_OK, RT_LOST, RT_BAD, RT_FATAL };

/* --timeline: stamp (CLOCK_REALTIME) the first look that finds the kernel's
 * trace word at `want` or beyond. */
static void trace_look(const struct pipe *p, uint64_t want, uint64_t *t_recv, uint64_t *t_sent)
{
	if (!*t_recv && gnio_load_relaxed_u64(&p->trace[GNIO_APP_TRACE_RECV]) >= want)
		*t_recv = now_ns(CLOCK_REALTIME);
	if (!*t_sent && gnio_load_relaxed_u64(&p->trace[GNIO_APP_TRACE_SENT]) >= want)
		*t_sent = now_ns(CLOCK_REALTIME);
}

/*
 * One round trip of frame `seq`. Echoes of earlier frames that missed their
 * deadline may still arrive first: they are counted late and skipped.
 */
static int round_trip(struct pipe *p, const struct opts *o, const uint8_t *tx, uint32_t len, uint64_t seq,
		      uint8_t *rx, struct tally *t, uint64_t *rtt, int64_t *to_tx, int64_t *from_tx, int64_t *legs3,
		      int64_t *proxy3)
{
	uint64_t t0, t1, rt0, rt1, ts, got, deadline, t_recv = 0, t_sent = 0;
	uint32_t rlen, polls = 0;
	gnio_error_t err;

	/* The REALTIME reads sit inside the timed window only for --legs. */
	t0 = now_ns(CLOCK_MONOTONIC);
	rt0 = o->legs ? now_ns(CLOCK_REALTIME) : 0;
	err = gnio_sw_peer_send(p->peer, 0, tx, len);
	if (err != GNIO_SUCCESS) {
		fprintf(stderr, "latency: send seq %llu: %s (%s)\n", (unsigned long long)seq,
			gnio_error_get_name(err), gnio_last_error_msg());
		return RT_FATAL;
	}
	t->sent++;
	deadline = t0 + (uint64_t)o->timeout_ms * 1000000ull;
	for (;;) {
		if (p->trace)
			trace_look(p, t->sent, &t_recv, &t_sent);
		err = gnio_sw_peer_recv(p->peer, 0, rx, RX_CAP, &rlen, &ts);
		if (err == GNIO_ERROR_EMPTY) {
			/* Look at the clock now and then: the poll is the hot loop. */
			if ((++polls & 255) == 0 && now_ns(CLOCK_MONOTONIC) > deadline) {
				t->lost++;
				return RT_LOST;
			}
			if (o->yield)
				sched_yield();
			else
				gnio_cpu_relax();
			continue;
		}
		t1 = now_ns(CLOCK_MONOTONIC);
		rt1 = o->legs ? now_ns(CLOCK_REALTIME) : 0;
		if (err != GNIO_SUCCESS) {
			fprintf(stderr, "latency: recv: %s (%s)\n", gnio_error_get_name(err), gnio_last_error_msg());
			return RT_FATAL;
		}
		if (gnio_gen_stamp_read(rx, rlen, &got) == GNIO_SUCCESS && got < seq) {
			t->late++;
			continue;
		}
		if (!is_echo(tx, len, rx, rlen)) {
			if (t->corrupt++ == 0)
				fprintf(stderr, "latency: seq %llu came back altered (%u bytes, sent %u)\n",
					(unsigned long long)seq, rlen, len);
			return RT_BAD;
		}
		*rtt = t1 - t0;
		*to_tx = (int64_t)(ts - rt0);
		*from_tx = (int64_t)(rt1 - ts);
		if (p->trace) {
			/* The kernel's trace store after its send may land after
			 * the echo: wait for it (outside the timed window). */
			while ((!t_recv || !t_sent) && now_ns(CLOCK_MONOTONIC) < deadline)
				trace_look(p, t->sent, &t_recv, &t_sent);
			legs3[0] = (int64_t)(t_recv - rt0);
			legs3[1] = (int64_t)(t_sent - t_recv);
			legs3[2] = (int64_t)(ts - t_sent);
			/* The proxies' latest stamps are this frame's: it is the
			 * only one in flight. */
			struct gnio_eth_rxq_stats rs;
			struct gnio_eth_txq_stats xs;
			if (gnio_eth_rxq_get_stats(p->rxq, &rs) == GNIO_SUCCESS &&
			    gnio_eth_txq_get_stats(p->txq, &xs) == GNIO_SUCCESS && rs.last_publish_ns &&
			    xs.last_pickup_ns) {
				proxy3[0] = (int64_t)(rs.last_publish_ns - rt0);
				proxy3[1] = (int64_t)(xs.last_pickup_ns - rs.last_publish_ns);
				proxy3[2] = (int64_t)(ts - xs.last_pickup_ns);
			}
		}
		return RT_OK;
	}
}

/* --timeline: the kernel's clock stamps of the frame just echoed (CUDA; the
 * CPU device leaves them 0). Read after the trace's SENT store was seen, so
 * they are this frame's: the next is not sent yet. */
static void kernel_clocks(const struct pipe *p, struct samples *s)
{
	const uint64_t *tr = p->trace;
	uint64_t call = gnio_load_relaxed_u64(&tr[GNIO_APP_TRACE_CLK_RECV_CALL]);
	uint64_t got = gnio_load_relaxed_u64(&tr[GNIO_APP_TRACE_CLK_RECEIVED]);
	uint64_t hdr = gnio_load_relaxed_u64(&tr[GNIO_APP_TRACE_CLK_HEADER]);
	uint64_t sent = gnio_load_relaxed_u64(&tr[GNIO_APP_TRACE_CLK_SENT]);
	uint64_t ns = gnio_load_relaxed_u64(&tr[GNIO_APP_TRACE_GLOBAL_NS]);
	s->k_wait[s->n] = (int64_t)(got - call);
	s->k_header[s->n] = hdr ? (int64_t)(hdr - got) : 0;
	s->k_send[s->n] = (int64_t)(sent - (hdr ? hdr : got));
	s->k_idle[s->n] = (int64_t)gnio_load_relaxed_u64(&tr[GNIO_APP_TRACE_IDLE_RECVS]);
	if (!s->clk0) {
		s->clk0 = got;
		s->ns0 = ns;
	}
	s->clk1 = got;
	s->ns1 = ns;
}

/* Run round trips [first, first + n); keep samples if s is not NULL. */
static int ping_pong(struct pipe *p, const struct opts *o, const struct gnio_gen_cfg *gc, uint64_t first,
		     uint64_t n, struct tally *t, struct samples *s)
{
	static uint8_t tx[GNIO_GEN_MAX_FRAME], rx[RX_CAP];
	unsigned misses = 0;

	for (uint64_t seq = first; seq < first + n; seq++) {
		uint64_t rtt;
		int64_t a, b, legs3[3] = {0, 0, 0}, proxy3[3] = {0, 0, 0};
		uint32_t len = gnio_gen_build(gc, seq, tx, sizeof(tx));
		if (o->interval_us) {
			struct timespec ts = {(time_t)(o->interval_us / 1000000u), (long)(o->interval_us % 1000000u) * 1000};
			nanosleep(&ts, NULL);
		}
		int r = round_trip(p, o, tx, len, seq, rx, t, &rtt, &a, &b, legs3, proxy3);

		if (r == RT_FATAL)
			return -1;
		if (r == RT_LOST && ++misses >= MAX_MISSES) {
			t->dead = 1;
			return -1;
		}
		if (r != RT_LOST)
			misses = 0;
		if (r == RT_OK && s) {
			s->rtt[s->n] = rtt;
			s->to_tx[s->n] = a;
			s->from_tx[s->n] = b;
			if (o->timeline) {
				s->to_kernel[s->n] = legs3[0];
				s->in_kernel[s->n] = legs3[1];
				s->to_wire[s->n] = legs3[2];
				s->to_ring[s->n] = proxy3[0];
				s->ring_to_txp[s->n] = proxy3[1];
				s->txp_to_wire[s->n] = proxy3[2];
				kernel_clocks(p, s);
			}
			s->n++;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array, in microseconds. */
static double pct_u(const uint64_t *v, uint64_t n, double p)
{
	uint64_t k = (uint64_t)(p / 100.0 * (double)n + 0.999999);

	return (double)v[k ? k - 1 : 0] / 1000.0;
}

static double pct_i(const int64_t *v, uint64_t n, double p)
{
	uint64_t k = (uint64_t)(p / 100.0 * (double)n + 0.999999);

	return (double)v[k ? k - 1 : 0] / 1000.0;
}

/* Every frame sent reached the kernel, was echoed and came back. */
static int books_balance(struct pipe *p, const struct tally *t)
{
	struct gnio_eth_rxq_stats rs;
	struct gnio_eth_txq_stats ts;
	struct gnio_sw_peer_stats ps;
	const struct gnio_app_stats *k = p->stats;
	uint64_t kp, ktx, kerr;

	if (gnio_eth_rxq_get_stats(p->rxq, &rs) || gnio_eth_txq_get_stats(p->txq, &ts) ||
	    gnio_sw_peer_get_stats(p->peer, 0, &ps))
		return 0;
	kp = gnio_load_acquire_u64(&k->packets);
	ktx = gnio_load_relaxed_u64(&k->tx_packets);
	kerr = gnio_load_relaxed_u64(&k->errors);
	if (rs.rx_packets == t->sent && rs.dropped_total == 0 && kp == t->sent && ktx == t->sent && kerr == 0 &&
	    ts.tx_packets == t->sent && ps.received == t->sent &&
	    (p->args.txq == NULL || ts.tx_in_place + ts.tx_copies >= ts.tx_in_place))
		return 1;
	fprintf(stderr,
		"latency: books do not balance: sent %llu, rx ring %llu (dropped %llu), kernel rx %llu tx %llu "
		"errors %llu (last %s), txq sent %llu, peer got %llu\n",
		(unsigned long long)t->sent, (unsigned long long)rs.rx_packets,
		(unsigned long long)rs.dropped_total, (unsigned long long)kp, (unsigned long long)ktx,
		(unsigned long long)kerr, gnio_error_get_name((gnio_error_t)k->last_error),
		(unsigned long long)ts.tx_packets, (unsigned long long)ps.received);
	return 0;
}

static int wait_heartbeat(struct gnio_runner *r)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + START_TIMEOUT_MS * 1000000ull;
	struct timespec nap = {0, 100000};

	while (gnio_runner_get_heartbeat(r) == 0) {
		if (gnio_runner_get_state(r) != GNIO_RUNNER_RUNNING || now_ns(CLOCK_MONOTONIC) > end)
			return 0;
		nanosleep(&nap, NULL);
	}
	return 1;
}

static void report(const struct opts *o, struct pipe *p, const struct tally *t, struct samples *s, int ok,
		   const char *why)
{
	const char *dev = gnio_gpu_get_bus_id(p->gpu);
	double r[6] = {0}, mean = 0, a50 = 0, a99 = 0, b50 = 0, b99 = 0;
	/* --timeline: p10, p50, p90, p99 of each of the three legs of to_tx */
	static const double tl_pcts[4] = {10, 50, 90, 99};
	static const char *const tl_names[6] = {"to_kernel", "in_kernel", "to_wire",
						"to_ring", "ring_to_txp", "txp_to_wire"};
	double tl[6][4] = {{0}};
	/* ... and the kernel's own legs, in us (idle: a count) */
	static const char *const kl_names[4] = {"k_wait", "k_header", "k_send", "k_idle_recvs"};
	double kl[4][4] = {{0}};
	int have_kl = 0;
	char date[32];
	time_t now = time(NULL);

	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (s->n) {
		for (uint64_t i = 0; i < s->n; i++)
			mean += (double)s->rtt[i];
		mean /= (double)s->n * 1000.0;
		qsort(s->rtt, s->n, sizeof(*s->rtt), cmp_u64);
		r[0] = pct_u(s->rtt, s->n, 0);
		r[1] = pct_u(s->rtt, s->n, 50);
		r[2] = pct_u(s->rtt, s->n, 90);
		r[3] = pct_u(s->rtt, s->n, 99);
		r[4] = pct_u(s->rtt, s->n, 99.9);
		r[5] = pct_u(s->rtt, s->n, 100);
		if (o->legs) {
			qsort(s->to_tx, s->n, sizeof(*s->to_tx), cmp_i64);
			qsort(s->from_tx, s->n, sizeof(*s->from_tx), cmp_i64);
			a50 = pct_i(s->to_tx, s->n, 50);
			a99 = pct_i(s->to_tx, s->n, 99);
			b50 = pct_i(s->from_tx, s->n, 50);
			b99 = pct_i(s->from_tx, s->n, 99);
		}
		if (o->timeline) {
			int64_t *leg[6] = {s->to_kernel, s->in_kernel, s->to_wire,
					   s->to_ring, s->ring_to_txp, s->txp_to_wire};
			for (int l = 0; l < 6; l++) {
				qsort(leg[l], s->n, sizeof(*leg[l]), cmp_i64);
				for (int q = 0; q < 4; q++)
					tl[l][q] = pct_i(leg[l], s->n, tl_pcts[q]);
			}
			/* cycles per ns from the stamps of the first and last frames */
			const double cpn = s->ns1 > s->ns0 ? (double)(s->clk1 - s->clk0) / (double)(s->ns1 - s->ns0) : 0;
			int64_t *kleg[4] = {s->k_wait, s->k_header, s->k_send, s->k_idle};
			have_kl = cpn > 0;
			for (int l = 0; l < 4 && have_kl; l++) {
				qsort(kleg[l], s->n, sizeof(*kleg[l]), cmp_i64);
				for (int q = 0; q < 4; q++)
					kl[l][q] = l == 3 ? (double)kleg[l][(uint64_t)(tl_pcts[q] / 100.0 * (double)(s->n - 1))]
							  : pct_i(kleg[l], s->n, tl_pcts[q]) / cpn;
			}
		}
	}
	printf("latency: %s (%s, %s), %s app, recv scope %s, sw wire, %u B frames, rx pool %s, peer %s%s, "
	       "proxies %s, every %llu us, %s\n",
	       dev, gnio_gpu_get_name(p->gpu), gnio_gpu_get_backend(p->gpu), o->app, scope_names[o->scope], o->size,
	       o->rx_mem == GNIO_GPU_MEM_TYPE_GPU ? "gpu" : "cpu_gpu", o->yield ? "yields" : "spins",
	       o->pin >= 0 ? ", pinned" : "", o->proxy_poll == GNIO_POLL_BUSY ? "busy" : "adaptive",
	       (unsigned long long)o->interval_us, date);
	printf("round trips: %llu measured after %llu warm-up; sent %llu, lost %llu (late %llu), corrupt %llu\n",
	       (unsigned long long)s->n, (unsigned long long)o->warmup, (unsigned long long)t->sent,
	       (unsigned long long)t->lost, (unsigned long long)t->late, (unsigned long long)t->corrupt);
	if (s->n) {
		printf("RTT us:  min %.3f  p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (mean %.3f)\n", r[0],
		       r[1], r[2], r[3], r[4], r[5], mean);
		printf("one-way estimate (RTT/2) us:  p50 %.3f  p99 %.3f\n", r[1] / 2, r[3] / 2);
		if (o->legs)
			printf("legs us (CLOCK_REALTIME):  send -> TX proxy to wire p50 %.3f p99 %.3f;  "
			       "wire -> peer p50 %.3f p99 %.3f\n",
			       a50, a99, b50, b99);
		if (o->timeline)
			for (int l = 0; l < 6; l++)
				printf("timeline us %-9s  p10 %.3f  p50 %.3f  p90 %.3f  p99 %.3f\n", tl_names[l],
				       tl[l][0], tl[l][1], tl[l][2], tl[l][3]);
		for (int l = 0; l < 4 && have_kl; l++)
			printf("kernel %-12s  p10 %.3f  p50 %.3f  p90 %.3f  p99 %.3f%s\n", kl_names[l], kl[l][0], kl[l][1],
			       kl[l][2], kl[l][3], l == 3 ? "" : " us");
	}
	printf("%s%s%s\n", ok ? "RESULT: ok" : "RESULT: FAILED", why ? ": " : "", why ? why : "");
	if (!o->json)
		return;
	printf("{\"bench\":\"latency\",\"ok\":%s,\"device\":\"%s\",\"device_name\":\"%s\",\"backend\":\"%s\","
	       "\"app\":\"%s\",\"send_scope\":\"%s\",\"wire\":\"sw\",\"recv_scope\":\"%s\",\"rx_mem\":\"%s\",\"poll\":\"%s\",\"pin\":%d,\"size\":%u,"
	       "\"count\":%llu,\"warmup\":%llu,\"samples\":%llu,\"sent\":%llu,\"lost\":%llu,\"late\":%llu,"
	       "\"corrupt\":%llu,\"min_us\":%.3f,\"p50_us\":%.3f,\"p90_us\":%.3f,\"p99_us\":%.3f,"
	       "\"p999_us\":%.3f,\"max_us\":%.3f,\"mean_us\":%.3f,\"one_way_p50_us_est\":%.3f,"
	       "\"one_way_p99_us_est\":%.3f",
	       ok ? "true" : "false", dev, gnio_gpu_get_name(p->gpu), gnio_gpu_get_backend(p->gpu), o->app,
	       scope_names[o->send_scope < 0 ? o->scope : o->send_scope], scope_names[o->scope], o->rx_mem == GNIO_GPU_MEM_TYPE_GPU ? "gpu" : "cpu_gpu",
	       o->yield ? "yield" : "spin", o->pin, o->size, (unsigned long long)o->count, (unsigned long long)o->warmup, (unsigned long long)s->n,
	       (unsigned long long)t->sent, (unsigned long long)t->lost, (unsigned long long)t->late,
	       (unsigned long long)t->corrupt, r[0], r[1], r[2], r[3], r[4], r[5], mean, r[1] / 2, r[3] / 2);
	printf(",\"proxy_poll\":\"%s\",\"interval_us\":%llu,\"inline_header\":%s,\"watchers\":%u",
	       o->proxy_poll == GNIO_POLL_BUSY ? "busy" : "adaptive", (unsigned long long)o->interval_us,
	       o->inline_header ? "true" : "false", o->watchers);
	if (o->legs)
		printf(",\"to_tx_p50_us\":%.3f,\"to_tx_p99_us\":%.3f,\"from_tx_p50_us\":%.3f,\"from_tx_p99_us\":%.3f",
		       a50, a99, b50, b99);
	if (o->timeline)
		for (int l = 0; l < 6; l++)
			printf(",\"%s_p10_us\":%.3f,\"%s_p50_us\":%.3f,\"%s_p90_us\":%.3f,\"%s_p99_us\":%.3f",
			       tl_names[l], tl[l][0], tl_names[l], tl[l][1], tl_names[l], tl[l][2], tl_names[l], tl[l][3]);
	for (int l = 0; l < 4 && have_kl; l++)
		printf(",\"%s_p10\":%.3f,\"%s_p50\":%.3f,\"%s_p90\":%.3f,\"%s_p99\":%.3f", kl_names[l], kl[l][0],
		       kl_names[l], kl[l][1], kl_names[l], kl[l][2], kl_names[l], kl[l][3]);
	printf(",\"date\":\"%s\"}\n", date);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct pipe p;
	struct tally t;
	struct samples s;
	struct gnio_gen_cfg gc;
	const struct gnio_app *app;
	gnio_runner_launch_fn fn;
	char bus[64], why[320] = "", msg[256] = "";
	gnio_error_t err;
	int ok = 0, rc;

	if (parse_opts(argc, argv, &o))
		return 2;
	/* --timeline: the proxies stamp their hand-offs (read at queue start);
	 * set before any thread (the GPU driver's) could read the environment */
	if (o.timeline && setenv("GNIO_PROXY_STAMPS", "1", 1) != 0) {
		perror("latency: setenv");
		return 1;
	}
	app = gnio_app_find(o.app);
	if (o.gpu) {
		snprintf(bus, sizeof(bus), "%s", o.gpu);
	} else if (gnio_gpu_pick_best(bus, sizeof(bus), why, sizeof(why)) != GNIO_SUCCESS) {
		fprintf(stderr, "latency: no device: %s\n", gnio_last_error_msg());
		return 1;
	}
	memset(&p, 0, sizeof(p));
	memset(&t, 0, sizeof(t));
	/* Is the device usable here at all? (Not: skip.) */
	struct gnio_gpu *probe = NULL;
	err = gnio_gpu_create(bus, &probe);
	if (probe)
		gnio_gpu_destroy(probe);
	if (err == GNIO_ERROR_DRIVER || err == GNIO_ERROR_NOT_FOUND || err == GNIO_ERROR_NOT_SUPPORTED) {
		printf("SKIP: device %s is not usable here: %s (%s)\n", bus, gnio_error_get_name(err),
		       gnio_last_error_msg());
		return 77;
	}
	if (err != GNIO_SUCCESS) {
		fprintf(stderr, "latency: gnio_gpu_create(%s): %s (%s)\n", bus, gnio_error_get_name(err),
			gnio_last_error_msg());
		return 1;
	}
	if (why[0] && !o.json)
		fprintf(stderr, "latency: %s\n", why);

	memset(&s, 0, sizeof(s));
	s.rtt = calloc(o.count, sizeof(*s.rtt));
	s.to_tx = calloc(o.count, sizeof(*s.to_tx));
	s.from_tx = calloc(o.count, sizeof(*s.from_tx));
	s.to_kernel = calloc(o.count, sizeof(*s.to_kernel));
	s.in_kernel = calloc(o.count, sizeof(*s.in_kernel));
	s.to_wire = calloc(o.count, sizeof(*s.to_wire));
	s.to_ring = calloc(o.count, sizeof(*s.to_ring));
	s.ring_to_txp = calloc(o.count, sizeof(*s.ring_to_txp));
	s.txp_to_wire = calloc(o.count, sizeof(*s.txp_to_wire));
	s.k_wait = calloc(o.count, sizeof(*s.k_wait));
	s.k_header = calloc(o.count, sizeof(*s.k_header));
	s.k_send = calloc(o.count, sizeof(*s.k_send));
	s.k_idle = calloc(o.count, sizeof(*s.k_idle));
	fn = gnio_app_launcher(app, !strcmp(bus, "cpu"));
	gnio_gen_cfg_init(&gc);
	gc.frame_size = o.size;
	if (!s.rtt || !s.to_tx || !s.from_tx || !s.to_kernel || !s.in_kernel || !s.to_wire || !s.to_ring ||
	    !s.ring_to_txp || !s.txp_to_wire || !s.k_wait || !s.k_header || !s.k_send || !s.k_idle) {
		snprintf(msg, sizeof(msg), "out of memory for %llu samples", (unsigned long long)o.count);
		goto out;
	}
	if (!fn) {
		snprintf(msg, sizeof(msg), "the %s app has no body for device %s", o.app, bus);
		goto out;
	}
	if (pipe_up(&p, &o, bus, app) != GNIO_SUCCESS) {
		snprintf(msg, sizeof(msg), "set-up failed");
		goto out;
	}
	err = gnio_runner_start(p.runner, fn, &p.args);
	if (err != GNIO_SUCCESS) {
		snprintf(msg, sizeof(msg), "launch: %s (%s)", gnio_error_get_name(err), gnio_last_error_msg());
		goto out;
	}
	/* Pin the peer only now: threads inherit their creator's mask, and the
	 * CPU device's kernel thread should keep the other cores. */
	if (o.pin >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.pin, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			snprintf(msg, sizeof(msg), "cannot pin the peer to CPU %d", o.pin);
			goto out;
		}
	}
	if (!wait_heartbeat(p.runner)) {
		snprintf(msg, sizeof(msg), "the echo kernel did not start within %u ms (runner %s)", START_TIMEOUT_MS,
			 gnio_runner_state_name(gnio_runner_get_state(p.runner)));
		goto out;
	}

	if (ping_pong(&p, &o, &gc, 0, o.warmup, &t, NULL) == 0)
		ping_pong(&p, &o, &gc, o.warmup, o.count, &t, &s);

	/* Stop the kernel before reading its totals: its last publish is final. */
	err = gnio_runner_stop(p.runner, 5000);
	if (err != GNIO_SUCCESS) {
		snprintf(msg, sizeof(msg), "kernel stop: %s (%s)", gnio_error_get_name(err), gnio_last_error_msg());
		goto out;
	}
	if (t.dead)
		snprintf(msg, sizeof(msg), "%u frames in a row did not come back; stopped after %llu sent", MAX_MISSES,
			 (unsigned long long)t.sent);
	else if (t.lost || t.corrupt)
		snprintf(msg, sizeof(msg), "%llu of %llu frames did not come back within %u ms (%llu came later), "
			 "%llu came back altered",
			 (unsigned long long)t.lost, (unsigned long long)t.sent, o.timeout_ms,
			 (unsigned long long)t.late, (unsigned long long)t.corrupt);
	else if (s.n != o.count)
		snprintf(msg, sizeof(msg), "stopped early after %llu of %llu round trips", (unsigned long long)s.n,
			 (unsigned long long)o.count);
	else if (!books_balance(&p, &t))
		snprintf(msg, sizeof(msg), "counters do not balance (see stderr)");
	else
		ok = 1;
out:
	if (p.gpu)
		report(&o, &p, &t, &s, ok, msg[0] ? msg : NULL);
	else
		printf("RESULT: FAILED: %s\n", msg);
	rc = ok ? 0 : 1;
	if (pipe_down(&p))
		rc = 1;
	free(s.rtt);
	free(s.to_tx);
	free(s.from_tx);
	free(s.to_kernel);
	free(s.in_kernel);
	free(s.to_wire);
	free(s.to_ring);
	free(s.ring_to_txp);
	free(s.txp_to_wire);
	free(s.k_wait);
	free(s.k_header);
	free(s.k_send);
	free(s.k_idle);
	return rc;
}
