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
 * It runs on the CPU device (the kernel is a host thread) and on a CUDA GPU.
 * The one-way figure is RTT/2, an estimate: the two directions differ.
 *
 * Split (--legs): the sw wire stamps the echo with CLOCK_REALTIME when the TX
 * proxy hands it to the wire, so on one host clock "to tx" is send -> TX
 * proxy hand-off (RX proxy, ring, kernel, TX ring) and "from tx" is hand-off
 * -> peer has it. The RX completion's ts_ns does not split anything on sw:
 * it is the wire's push stamp, i.e. the send time itself.
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
#include "apps/apps.h"

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
	int yield; /* --poll yield */
	int pin;   /* CPU for the peer and both proxies; -1 none */
	int json;
};

struct pipe {
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	void *rx_mem, *tx_mem, *stats_mem;
	struct gnio_buf_arr *rx_arr, *tx_arr;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	struct gnio_app_stats *stats; /* host view */
	struct gnio_app_args args;
	struct gnio_runner *runner;
};

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
		"                          [--pin CPU] [--legs] [--json]\n"
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
		{"json", no_argument, NULL, 'j'},
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
	o->timeout_ms = 1000;
	o->rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU;
	o->pin = -1;
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
		case 'j':
			o->json = 1;
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

/* Build the sw wire, the RX and TX queues with their pools, the stats block
 * and the runner. Small rings: one frame is in flight. */
static gnio_error_t pipe_up(struct pipe *p, const struct opts *o)
{
	uint32_t max_pkt = o->size > 1518 ? o->size : 1518;
	uint32_t slot = 2048;
	char name[32], spec[40];
	void *cpu;

	while (slot < max_pkt)
		slot <<= 1;
	snprintf(name, sizeof(name), "lat%d", (int)getpid());
	snprintf(spec, sizeof(spec), "sw:%s", name);
	TRY(gnio_dev_open(spec, &p->dev));
	TRY(gnio_sw_peer_open(name, &p->peer));

	TRY(gnio_gpu_mem_alloc(p->gpu, (size_t)slot * RING_ENTRIES, 4096, o->rx_mem, &p->rx_mem, &cpu));
	TRY(gnio_buf_arr_create(p->gpu, p->rx_mem, slot, RING_ENTRIES, &p->rx_arr));
	TRY(gnio_buf_arr_start(p->rx_arr));
	TRY(gnio_eth_rxq_create(p->dev, BURST, max_pkt, &p->rxq));
	TRY(gnio_eth_rxq_set_num_packets(p->rxq, RING_ENTRIES));
	TRY(gnio_eth_rxq_set_pkt_buf(p->rxq, p->rx_arr));
	TRY(gnio_eth_rxq_set_proxy_cpu(p->rxq, o->pin));
	TRY(gnio_ctx_set_datapath_on_gpu(gnio_eth_rxq_as_ctx(p->rxq), p->gpu));
	TRY(gnio_ctx_start(gnio_eth_rxq_as_ctx(p->rxq)));
	TRY(gnio_eth_rxq_get_gpu_handle(p->rxq, &p->args.rxq));

	TRY(gnio_gpu_mem_alloc(p->gpu, (size_t)slot * RING_ENTRIES, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &p->tx_mem,
			       &cpu));
	TRY(gnio_buf_arr_create(p->gpu, p->tx_mem, slot, RING_ENTRIES, &p->tx_arr));
	TRY(gnio_buf_arr_start(p->tx_arr));
	TRY(gnio_eth_txq_create(p->dev, BURST, &p->txq));
	TRY(gnio_eth_txq_set_num_packets(p->txq, RING_ENTRIES));
	TRY(gnio_eth_txq_set_pkt_buf(p->txq, p->tx_arr));
	TRY(gnio_eth_txq_set_proxy_cpu(p->txq, o->pin));
	TRY(gnio_ctx_set_datapath_on_gpu(gnio_eth_txq_as_ctx(p->txq), p->gpu));
	TRY(gnio_ctx_start(gnio_eth_txq_as_ctx(p->txq)));
	TRY(gnio_eth_txq_get_gpu_handle(p->txq, &p->args.txq));

	TRY(gnio_gpu_mem_alloc(p->gpu, sizeof(struct gnio_app_stats), GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU,
			       &p->stats_mem, &cpu));
	memset(cpu, 0, sizeof(struct gnio_app_stats));
	p->stats = cpu;
	p->args.stats = p->stats_mem;
	p->args.max_batch = MAX_BATCH;
	p->args.timeout_ns = RECV_TIMEOUT_NS;
	p->args.blocks = 1;
	p->args.threads = o->threads;
	p->args.recv_scope = o->scope;
	TRY(gnio_runner_create(p->gpu, &p->runner));
	return GNIO_SUCCESS;
}

static int step_fails(const char *what, gnio_error_t e)
{
	if (e == GNIO_SUCCESS)
		return 0;
	fprintf(stderr, "latency: teardown: %s: %s (%s)\n", what, gnio_error_get_name(e), gnio_last_error_msg());
	return 1;
}

/* Reverse order of pipe_up; the kernel stops first. Returns failed steps. */
static int pipe_down(struct pipe *p)
{
	enum gnio_ctx_state st;
	int bad = 0;

	if (p->runner) {
		enum gnio_runner_state rs = gnio_runner_get_state(p->runner);

		if (rs == GNIO_RUNNER_RUNNING || rs == GNIO_RUNNER_EXITED)
			bad += step_fails("runner stop", gnio_runner_stop(p->runner, 5000));
		if (gnio_runner_get_state(p->runner) == GNIO_RUNNER_HUNG)
			return bad + 1; /* fail closed: free nothing it could touch */
		bad += step_fails("runner destroy", gnio_runner_destroy(p->runner));
	}
	if (p->txq) {
		if (!gnio_ctx_get_state(gnio_eth_txq_as_ctx(p->txq), &st) && st == GNIO_CTX_STATE_STARTED)
			bad += step_fails("txq stop", gnio_ctx_stop(gnio_eth_txq_as_ctx(p->txq)));
		bad += step_fails("txq destroy", gnio_eth_txq_destroy(p->txq));
	}
	if (p->rxq) {
		if (!gnio_ctx_get_state(gnio_eth_rxq_as_ctx(p->rxq), &st) && st == GNIO_CTX_STATE_STARTED)
			bad += step_fails("rxq stop", gnio_ctx_stop(gnio_eth_rxq_as_ctx(p->rxq)));
		bad += step_fails("rxq destroy", gnio_eth_rxq_destroy(p->rxq));
	}
	if (p->peer)
		bad += step_fails("peer close", gnio_sw_peer_close(p->peer));
	if (p->dev)
		bad += step_fails("dev close", gnio_dev_close(p->dev));
	if (p->tx_arr)
		bad += step_fails("tx pool destroy", gnio_buf_arr_destroy(p->tx_arr));
	if (p->rx_arr)
		bad += step_fails("rx pool destroy", gnio_buf_arr_destroy(p->rx_arr));
	if (p->stats_mem)
		bad += step_fails("stats free", gnio_gpu_mem_free(p->gpu, p->stats_mem));
	if (p->tx_mem)
		bad += step_fails("tx mem free", gnio_gpu_mem_free(p->gpu, p->tx_mem));
	if (p->rx_mem)
		bad += step_fails("rx mem free", gnio_gpu_mem_free(p->gpu, p->rx_mem));
	return bad;
}

/* The echo of tx: MACs exchanged, every other byte equal. */
static int is_echo(const uint8_t *tx, uint32_t len, const uint8_t *rx, uint32_t rlen)
{
	return rlen == len && !memcmp(rx, tx + 6, 6) && !memcmp(rx + 6, tx, 6) &&
	       !memcmp(rx + 12, tx + 12, len - 12);
}

enum { RT_OK, RT_LOST, RT_BAD, RT_FATAL };

/*
 * One round trip of frame `seq`. Echoes of earlier frames that missed their
 * deadline may still arrive first: they are counted late and skipped.
 */
static int round_trip(struct pipe *p, const struct opts *o, const uint8_t *tx, uint32_t len, uint64_t seq,
		      uint8_t *rx, struct tally *t, uint64_t *rtt, int64_t *to_tx, int64_t *from_tx)
{
	uint64_t t0, t1, rt0, rt1, ts, got, deadline;
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
		return RT_OK;
	}
}

/* Run round trips [first, first + n); keep samples if s is not NULL. */
static int ping_pong(struct pipe *p, const struct opts *o, const struct gnio_gen_cfg *gc, uint64_t first,
		     uint64_t n, struct tally *t, struct samples *s)
{
	static uint8_t tx[GNIO_GEN_MAX_FRAME], rx[RX_CAP];
	unsigned misses = 0;

	for (uint64_t seq = first; seq < first + n; seq++) {
		uint64_t rtt;
		int64_t a, b;
		uint32_t len = gnio_gen_build(gc, seq, tx, sizeof(tx));
		int r = round_trip(p, o, tx, len, seq, rx, t, &rtt, &a, &b);

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
	    ts.tx_packets == t->sent && ps.received == t->sent)
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
	}
	printf("latency: %s (%s, %s), echo app, recv scope %s, sw wire, %u B frames, rx pool %s, peer %s%s, %s\n",
	       dev, gnio_gpu_get_name(p->gpu), gnio_gpu_get_backend(p->gpu), scope_names[o->scope], o->size,
	       o->rx_mem == GNIO_GPU_MEM_TYPE_GPU ? "gpu" : "cpu_gpu", o->yield ? "yields" : "spins",
	       o->pin >= 0 ? ", pinned" : "", date);
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
	}
	printf("%s%s%s\n", ok ? "RESULT: ok" : "RESULT: FAILED", why ? ": " : "", why ? why : "");
	if (!o->json)
		return;
	printf("{\"bench\":\"latency\",\"ok\":%s,\"device\":\"%s\",\"device_name\":\"%s\",\"backend\":\"%s\","
	       "\"app\":\"echo\",\"wire\":\"sw\",\"recv_scope\":\"%s\",\"rx_mem\":\"%s\",\"poll\":\"%s\",\"pin\":%d,\"size\":%u,"
	       "\"count\":%llu,\"warmup\":%llu,\"samples\":%llu,\"sent\":%llu,\"lost\":%llu,\"late\":%llu,"
	       "\"corrupt\":%llu,\"min_us\":%.3f,\"p50_us\":%.3f,\"p90_us\":%.3f,\"p99_us\":%.3f,"
	       "\"p999_us\":%.3f,\"max_us\":%.3f,\"mean_us\":%.3f,\"one_way_p50_us_est\":%.3f,"
	       "\"one_way_p99_us_est\":%.3f",
	       ok ? "true" : "false", dev, gnio_gpu_get_name(p->gpu), gnio_gpu_get_backend(p->gpu),
	       scope_names[o->scope], o->rx_mem == GNIO_GPU_MEM_TYPE_GPU ? "gpu" : "cpu_gpu",
	       o->yield ? "yield" : "spin", o->pin, o->size, (unsigned long long)o->count, (unsigned long long)o->warmup, (unsigned long long)s->n,
	       (unsigned long long)t->sent, (unsigned long long)t->lost, (unsigned long long)t->late,
	       (unsigned long long)t->corrupt, r[0], r[1], r[2], r[3], r[4], r[5], mean, r[1] / 2, r[3] / 2);
	if (o->legs)
		printf(",\"to_tx_p50_us\":%.3f,\"to_tx_p99_us\":%.3f,\"from_tx_p50_us\":%.3f,\"from_tx_p99_us\":%.3f",
		       a50, a99, b50, b99);
	printf(",\"date\":\"%s\"}\n", date);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct pipe p;
	struct tally t;
	struct samples s;
	struct gnio_gen_cfg gc;
	const struct gnio_app *app = gnio_app_find("echo");
	gnio_runner_launch_fn fn;
	char bus[64], why[320] = "", msg[256] = "";
	gnio_error_t err;
	int ok = 0, rc;

	if (parse_opts(argc, argv, &o))
		return 2;
	if (o.gpu) {
		snprintf(bus, sizeof(bus), "%s", o.gpu);
	} else if (gnio_gpu_pick_best(bus, sizeof(bus), why, sizeof(why)) != GNIO_SUCCESS) {
		fprintf(stderr, "latency: no device: %s\n", gnio_last_error_msg());
		return 1;
	}
	memset(&p, 0, sizeof(p));
	memset(&t, 0, sizeof(t));
	err = gnio_gpu_create(bus, &p.gpu);
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

	s.n = 0;
	s.rtt = calloc(o.count, sizeof(*s.rtt));
	s.to_tx = calloc(o.count, sizeof(*s.to_tx));
	s.from_tx = calloc(o.count, sizeof(*s.from_tx));
	fn = gnio_gpu_is_cpu(p.gpu) ? app->cpu : app->cuda;
	gnio_gen_cfg_init(&gc);
	gc.frame_size = o.size;
	if (!s.rtt || !s.to_tx || !s.from_tx) {
		snprintf(msg, sizeof(msg), "out of memory for %llu samples", (unsigned long long)o.count);
		goto out;
	}
	if (!fn) {
		snprintf(msg, sizeof(msg), "the echo app has no body for backend %s", gnio_gpu_get_backend(p.gpu));
		goto out;
	}
	if (pipe_up(&p, &o) != GNIO_SUCCESS) {
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
	report(&o, &p, &t, &s, ok, msg[0] ? msg : NULL);
	rc = ok ? 0 : 1;
	if (pipe_down(&p))
		rc = 1;
	else if (step_fails("gpu destroy", gnio_gpu_destroy(p.gpu)))
		rc = 1;
	free(s.rtt);
	free(s.to_tx);
	free(s.from_tx);
	return rc;
}
