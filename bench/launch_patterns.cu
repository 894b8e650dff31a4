/* SPDX-License-Identifier: MIT */
/*
 * bench/launch_patterns.cu - why the persistent kernel exists: the same
 * per-frame work (gnio_classify, the classify app's GNIO_HD function, plus a
 * byte count) done four ways over the same frames, fed the same way:
 *
 *   persistent        gnio's classify app as a persistent kernel, receiving
 *                     from a gnio RX queue (bring-up: gnio_pipeline_create);
 *                     the queue's proxy thread pulls frames from the wire
 *                     into the pool and publishes them on the ring
 *   launch per frame  a host thread pulls the frames from the wire (host
 *                     datapath, gnio_eth_rxq_recv_burst) into a staging pool
 *                     and launches one kernel per frame
 *   launch per burst  the same, one kernel per burst of B frames
 *   graph per burst   the same, one CUDA graph launch per burst of B frames
 *                     (graphs instantiated and uploaded before the clock
 *                     starts, one per burst position in the staging pool)
 *
 * Equal work: the frames are the sw wire generator's (a pure function of the
 * sequence number), built by one host thread inside the wire in every
 * pattern; they land in pinned, GPU-mapped host memory (CPU_GPU, the gnio
 * run default) and the kernel reads each frame's length and headers from
 * there. Each pattern counts frames, bytes and frames per protocol on the
 * GPU, and the run checks those counts against the host's own
 * classification of the same frames: a pattern that skipped or misread a
 * frame fails the run.
 *
 * Timing: a pattern's rate is frames / (time from the first frame offered to
 * the moment its counts are complete on the host), the median of --reps runs
 * after one untimed warm-up run. The persistent kernel is running (and
 * idle) before its clock starts, as it is in a real deployment; graph
 * instantiation is set-up and is reported apart.
 *
 * Output: a table, then (--json) one JSON object as the last stdout line.
 * Exit: 0 done, counts all equal; 1 a count differed or something failed;
 * 2 bad usage; 77 no usable CUDA GPU (a line says why).
 */
#include <getopt.h>
#include <sched.h>
#include <cuda_runtime.h>

#include "gpu_test.h"
#include "gnio/apps/classify.h"

#define STAGE_CHUNKS 8u            /* staging pool: chunks reused in turn */
#define STAGE_CHUNK_FRAMES 2048u   /* frames per chunk; --frames is rounded up to this */
#define SLOT_BYTES 2048u           /* pool slot, as gnio run's default */
#define FEED_BURST_MIN 32u         /* the host pulls at least this many frames per wire call */
#define MAX_BURST 1024u
#define MAX_BURSTS 8
#define LAUNCH_THREADS_MAX 256u
#define START_TIMEOUT_MS 10000u    /* first heartbeat (CUDA module load) */

/* What the GPU counted. */
struct lp_counts {
	unsigned long long packets;
	unsigned long long bytes;
	unsigned long long proto[GNIO_PROTO_COUNT];
};

enum pattern_kind { PAT_PERSISTENT, PAT_LAUNCH, PAT_GRAPH };

struct pattern_result {
	char name[48];
	enum pattern_kind kind;
	uint32_t burst;          /* frames per launch (0: persistent) */
	double mpps[16];         /* one per rep */
	unsigned nreps;
	double setup_ms;         /* graph instantiation, pipeline bring-up */
	uint64_t launches;       /* per rep */
	int counts_ok;
	char why[200];           /* first mismatch or failure */
};

struct opts {
	const char *gpu;
	uint64_t frames;
	uint32_t size;
	enum gnio_gen_proto proto;
	unsigned reps;
	uint32_t bursts[MAX_BURSTS];
	unsigned nbursts;
	uint32_t batch;
	unsigned timeout_s;
	int json;
	int want_persistent, want_frame, want_burst, want_graph;
};

#define LP_CUDA(expr)                                                                                 \
	do {                                                                                          \
		cudaError_t lp_c_ = (expr);                                                           \
		if (lp_c_ != cudaSuccess)                                                             \
			GT_FAIL("%s: %s", #expr, cudaGetErrorString(lp_c_));                          \
	} while (0)

/* ---------------------------------------------------------------- GPU -- */

/*
 * Classify frames [0, n) of one burst: frame i is at frames + i * slot, its
 * length at lens[i] (both in pinned host memory, as the persistent kernel's
 * completions and payloads are). Per-block totals in shared memory, then
 * one global atomic per counter, as the classify app keeps per-batch totals.
 */
__global__ void classify_burst(const uint8_t *frames, const uint32_t *lens, uint32_t slot, uint32_t n,
			       struct lp_counts *out)
{
	__shared__ unsigned int s_proto[GNIO_PROTO_COUNT];
	__shared__ unsigned long long s_bytes;
	const uint32_t tid = threadIdx.x;

	if (tid < GNIO_PROTO_COUNT)
		s_proto[tid] = 0;
	if (tid == 0)
		s_bytes = 0;
	__syncthreads();
	unsigned long long bytes = 0;
	for (uint32_t i = tid; i < n; i += blockDim.x) {
		const uint32_t len = lens[i];
		atomicAdd(&s_proto[gnio_classify(frames + (size_t)i * slot, len)], 1u);
		bytes += len;
	}
	if (bytes)
		atomicAdd(&s_bytes, bytes);
	__syncthreads();
	if (tid < GNIO_PROTO_COUNT && s_proto[tid])
		atomicAdd(&out->proto[tid], (unsigned long long)s_proto[tid]);
	if (tid == 0) {
		atomicAdd(&out->packets, (unsigned long long)n);
		atomicAdd(&out->bytes, s_bytes);
	}
}

/* ---------------------------------------------------------- reference -- */

/* The host's own classification of frames 0..n-1 of the generator. */
static void reference_counts(const struct gnio_gen_cfg *gc, uint64_t n, struct lp_counts *ref)
{
	struct gnio_gen *gen;
	static uint8_t buf[GNIO_GEN_MAX_FRAME];

	memset(ref, 0, sizeof(*ref));
	GT_OK(gnio_gen_init(gc, &gen));
	for (uint64_t s = 0; s < n; s++) {
		uint32_t len = gnio_gen_fill(gen, s, buf, sizeof(buf));
		ref->packets++;
		ref->bytes += len;
		ref->proto[gnio_classify(buf, len)]++;
	}
	gnio_gen_free(gen);
}

/* 1 when equal; else why names the first difference. */
static int counts_equal(const struct lp_counts *got, const struct lp_counts *want, char *why, size_t len)
{
	if (got->packets != want->packets) {
		snprintf(why, len, "packets %llu, expected %llu", got->packets, want->packets);
		return 0;
	}
	if (got->bytes != want->bytes) {
		snprintf(why, len, "bytes %llu, expected %llu", got->bytes, want->bytes);
		return 0;
	}
	for (int p = 0; p < GNIO_PROTO_COUNT; p++) {
		if (got->proto[p] != want->proto[p]) {
			snprintf(why, len, "%s %llu, expected %llu", gnio_proto_name(p), got->proto[p],
				 want->proto[p]);
			return 0;
		}
	}
	return 1;
}

static struct gnio_gen_cfg gen_cfg(const struct opts *o, uint64_t count)
{
	struct gnio_gen_cfg gc;
	gnio_gen_cfg_init(&gc);
	gc.proto = o->proto;
	gc.frame_size = o->size;
	gc.count = count;
	gc.rate_pps = 0; /* as fast as the reader takes them */
	gc.first_seq = 0;
	return gc;
}

/* ---------------------------------------------------------- persistent -- */

static uint64_t load_u64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void stats_snapshot(const struct gnio_app_stats *st, struct lp_counts *c)
{
	c->packets = load_u64(&st->packets);
	c->bytes = load_u64(&st->bytes);
	for (int p = 0; p < GNIO_PROTO_COUNT; p++)
		c->proto[p] = load_u64(&st->proto[p]);
}

/*
 * One run of n frames through the running classify kernel; the clock stops
 * when the kernel's packet count has moved by n. The kernel stores the
 * packet count first and the other totals after it, so the rest may lag by
 * one store: wait up to a second for them to equal `want`. Returns Mpps, or
 * -1 (why says what went wrong).
 */
static double persistent_run(struct gnio_sw_peer *peer, const struct gnio_app_stats *st, const struct opts *o,
			     uint64_t n, const struct lp_counts *want, char *why, size_t why_len)
{
	struct lp_counts before, now, delta;
	struct gnio_gen_cfg gc = gen_cfg(o, n);
	const uint64_t deadline_ns = (uint64_t)o->timeout_s * 1000000000ull;

	stats_snapshot(st, &before);
	const uint64_t t0 = gt_mono_ns();
	GT_OK(gnio_sw_peer_gen_attach(peer, 0, &gc));
	uint64_t t1;
	for (uint32_t polls = 0;; polls++) {
		if (load_u64(&st->packets) >= before.packets + n) {
			t1 = gt_mono_ns();
			break;
		}
		gnio_cpu_relax();
		if ((polls & 1023u) == 0 && gt_mono_ns() - t0 > deadline_ns) {
			snprintf(why, why_len, "%llu of %llu frames counted after %u s",
				 (unsigned long long)(load_u64(&st->packets) - before.packets),
				 (unsigned long long)n, o->timeout_s);
			GT_OK(gnio_sw_peer_gen_detach(peer, 0));
			return -1;
		}
	}
	int equal = 0;
	for (const uint64_t grace_end = t1 + 1000000000ull;;) {
		stats_snapshot(st, &now);
		delta.packets = now.packets - before.packets;
		delta.bytes = now.bytes - before.bytes;
		for (int p = 0; p < GNIO_PROTO_COUNT; p++)
			delta.proto[p] = now.proto[p] - before.proto[p];
		equal = counts_equal(&delta, want, why, why_len);
		if (equal || gt_mono_ns() > grace_end)
			break;
		gt_sleep_us(10);
	}
	GT_OK(gnio_sw_peer_gen_detach(peer, 0));
	return equal ? (double)n / (double)(t1 - t0) * 1e3 : -1;
}

static void bench_persistent(struct gnio_gpu *gpu, const struct opts *o, const struct lp_counts *ref,
			     const struct lp_counts *ref_warm, uint64_t warm_frames, struct pattern_result *r)
{
	struct gnio_pipeline_cfg pc;
	struct gnio_pipeline *pl;
	struct gnio_pipeline_queue q;
	struct gnio_sw_peer *peer;
	struct gnio_app_args args;
	char name[32], spec[40];
	const struct gnio_app *app = gnio_app_find("classify");

	snprintf(r->name, sizeof(r->name), "persistent kernel");
	r->kind = PAT_PERSISTENT;
	r->burst = 0;
	r->launches = 1;
	r->counts_ok = 1;
	GT_CHECK(app != NULL, "no classify app");
	snprintf(name, sizeof(name), "lpp%d", (int)getpid());
	snprintf(spec, sizeof(spec), "sw:%s", name);

	const uint64_t t_up = gt_mono_ns();
	gnio_pipeline_cfg_init(&pc, spec, NULL);
	pc.gpu_ctx = gpu;
	pc.queues = 1;
	pc.slot = SLOT_BYTES;
	pc.rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU;
	pc.flow_control = 1; /* the generator waits for ring room: nothing dropped */
	pc.user_mem = sizeof(struct gnio_app_stats);
	GT_OK(gnio_pipeline_create(&pc, &pl));
	GT_OK(gnio_pipeline_get_queue(pl, 0, &q));
	GT_OK(gnio_sw_peer_open(name, &peer));
	memset(&args, 0, sizeof(args));
	args.rxq = q.rxh;
	args.stats = (struct gnio_app_stats *)q.user_mem_gpu;
	args.max_batch = o->batch;
	args.blocks = 1;
	args.recv_scope = GNIO_APP_SCOPE_BLOCK;
	memset(q.user_mem_cpu, 0, sizeof(struct gnio_app_stats));
	/* The CPU device runs the same app as a host thread (not timed by this
	 * bench's callers, but it lets the persistent path be checked anywhere). */
	const int on_cpu = !strcmp(gnio_gpu_get_backend(gpu), "cpu");
	GT_OK(gnio_pipeline_launch(pl, 0, gnio_app_launcher(app, on_cpu), &args));
	GT_CHECK(gt_heartbeat_moves(q.runner, START_TIMEOUT_MS), "the classify kernel never started");
	r->setup_ms = (double)(gt_mono_ns() - t_up) / 1e6;
	const struct gnio_app_stats *st = (const struct gnio_app_stats *)q.user_mem_cpu;

	char why[160] = "";
	double mpps = persistent_run(peer, st, o, warm_frames, ref_warm, why, sizeof(why));
	if (mpps < 0) {
		r->counts_ok = 0;
		snprintf(r->why, sizeof(r->why), "warm-up: %s", why);
	}
	for (unsigned rep = 0; rep < o->reps && r->counts_ok; rep++) {
		mpps = persistent_run(peer, st, o, o->frames, ref, why, sizeof(why));
		if (mpps < 0) {
			r->counts_ok = 0;
			snprintf(r->why, sizeof(r->why), "run %u: %s", rep + 1, why);
			break;
		}
		r->mpps[r->nreps++] = mpps;
	}

	struct gnio_eth_rxq_stats rs;
	GT_OK(gnio_eth_rxq_get_stats(q.rxq, &rs));
	if (r->counts_ok && rs.dropped_total != 0) {
		r->counts_ok = 0;
		snprintf(r->why, sizeof(r->why), "the queue dropped %llu frames", (unsigned long long)rs.dropped_total);
	}
	GT_OK(gnio_sw_peer_close(peer));
	GT_OK(gnio_pipeline_destroy(pl)); /* the rollback stops the kernel first */
}

/* ---------------------------------------------------- launch patterns -- */

/* The staging pool the host fills and the kernels read, with one event per
 * chunk so a chunk is refilled only after the GPU has finished with it. */
struct stage {
	struct gnio_gpu *gpu;
	uint8_t *frames_gpu, *frames_cpu;
	uint32_t *lens_gpu, *lens_cpu;
	cudaEvent_t done[STAGE_CHUNKS];
	int pending[STAGE_CHUNKS];
	cudaStream_t stream;
	struct lp_counts *counts_gpu;
};

static void stage_open(struct stage *s, struct gnio_gpu *gpu)
{
	void *g, *c;
	const size_t frames = (size_t)STAGE_CHUNKS * STAGE_CHUNK_FRAMES;

	memset(s, 0, sizeof(*s));
	s->gpu = gpu;
	GT_OK(gnio_gpu_mem_alloc(gpu, frames * SLOT_BYTES, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &g, &c));
	s->frames_gpu = (uint8_t *)g;
	s->frames_cpu = (uint8_t *)c;
	GT_OK(gnio_gpu_mem_alloc(gpu, frames * sizeof(uint32_t), 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &g, &c));
	s->lens_gpu = (uint32_t *)g;
	s->lens_cpu = (uint32_t *)c;
	for (unsigned i = 0; i < STAGE_CHUNKS; i++)
		LP_CUDA(cudaEventCreateWithFlags(&s->done[i], cudaEventDisableTiming));
	LP_CUDA(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
	LP_CUDA(cudaMalloc((void **)&s->counts_gpu, sizeof(struct lp_counts)));
}

static void stage_close(struct stage *s)
{
	LP_CUDA(cudaStreamSynchronize(s->stream));
	LP_CUDA(cudaFree(s->counts_gpu));
	LP_CUDA(cudaStreamDestroy(s->stream));
	for (unsigned i = 0; i < STAGE_CHUNKS; i++)
		LP_CUDA(cudaEventDestroy(s->done[i]));
	GT_OK(gnio_gpu_mem_free(s->gpu, s->lens_gpu));
	GT_OK(gnio_gpu_mem_free(s->gpu, s->frames_gpu));
}

static uint32_t launch_threads(uint32_t burst)
{
	uint32_t t = (burst + 31u) & ~31u;
	return t < LAUNCH_THREADS_MAX ? t : LAUNCH_THREADS_MAX;
}

/* One instantiated graph per burst position in the staging pool: each
 * classifies the burst at its position, so no parameter changes per launch. */
struct graphs {
	cudaGraphExec_t *exec;
	uint32_t count;
};

static void graphs_build(struct graphs *gr, struct stage *s, uint32_t burst)
{
	cudaStream_t cap;
	const uint32_t positions = STAGE_CHUNKS * STAGE_CHUNK_FRAMES / burst;

	gr->count = positions;
	gr->exec = (cudaGraphExec_t *)calloc(positions, sizeof(*gr->exec));
	GT_CHECK(gr->exec != NULL, "out of memory");
	LP_CUDA(cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking));
	for (uint32_t p = 0; p < positions; p++) {
		cudaGraph_t g;
		const size_t first = (size_t)p * burst;
		LP_CUDA(cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal));
		classify_burst<<<1, launch_threads(burst), 0, cap>>>(s->frames_gpu + first * SLOT_BYTES,
								    s->lens_gpu + first, SLOT_BYTES, burst,
								    s->counts_gpu);
		LP_CUDA(cudaGetLastError());
		LP_CUDA(cudaStreamEndCapture(cap, &g));
		LP_CUDA(cudaGraphInstantiate(&gr->exec[p], g, 0));
		LP_CUDA(cudaGraphDestroy(g));
		LP_CUDA(cudaGraphUpload(gr->exec[p], s->stream));
	}
	LP_CUDA(cudaStreamSynchronize(s->stream));
	LP_CUDA(cudaStreamDestroy(cap));
}

static void graphs_free(struct graphs *gr)
{
	for (uint32_t p = 0; p < gr->count; p++)
		LP_CUDA(cudaGraphExecDestroy(gr->exec[p]));
	free(gr->exec);
	gr->exec = NULL;
	gr->count = 0;
}

/* Pull exactly `want` frames from the wire into staging slots [first,
 * first + want). 0 on success, -1 when the wire ran dry past the deadline. */
static int feed(struct gnio_eth_rxq *rxq, struct stage *s, size_t first, uint32_t want, uint64_t deadline)
{
	struct gnio_eth_pkt pk[MAX_BURST];
	uint32_t got = 0, idle = 0;

	while (got < want) {
		const uint32_t ask = want - got;
		for (uint32_t i = 0; i < ask; i++) {
			pk[i].data = s->frames_cpu + (first + got + i) * SLOT_BYTES;
			pk[i].cap = SLOT_BYTES;
		}
		uint32_t n = 0;
		GT_OK(gnio_eth_rxq_recv_burst(rxq, pk, ask, &n));
		for (uint32_t i = 0; i < n; i++) {
			/* A dropped frame would make the queue hand back buffers
			 * out of order; generated frames are never dropped. */
			GT_CHECK(pk[i].data == s->frames_cpu + (first + got + i) * SLOT_BYTES,
				 "the wire dropped a frame (see the queue's stats)");
			s->lens_cpu[first + got + i] = pk[i].len;
		}
		got += n;
		if (n == 0 && (++idle & 1023u) == 0 && gt_mono_ns() > deadline)
			return -1;
	}
	return 0;
}

/*
 * One run of n frames (a multiple of STAGE_CHUNK_FRAMES): the host fills the
 * staging pool chunk by chunk, in feed bursts of at least FEED_BURST_MIN
 * frames, and after each feed burst launches its frames `burst` at a time
 * (kernels, or the graphs of those positions). Returns Mpps, or -1.
 */
static double launch_run(struct gnio_eth_rxq *rxq, struct gnio_sw_peer *peer, struct stage *s,
			 const struct graphs *gr, uint32_t burst, const struct opts *o, uint64_t n,
			 struct lp_counts *got, char *why, size_t why_len)
{
	const uint32_t feed_burst = burst > FEED_BURST_MIN ? burst : FEED_BURST_MIN;
	const uint32_t threads = launch_threads(burst);
	struct gnio_gen_cfg gc = gen_cfg(o, n);
	int failed = 0;

	LP_CUDA(cudaMemsetAsync(s->counts_gpu, 0, sizeof(*s->counts_gpu), s->stream));
	LP_CUDA(cudaStreamSynchronize(s->stream));
	memset(s->pending, 0, sizeof(s->pending));
	const uint64_t t0 = gt_mono_ns();
	const uint64_t deadline = t0 + (uint64_t)o->timeout_s * 1000000000ull;
	GT_OK(gnio_sw_peer_gen_attach(peer, 0, &gc));
	for (uint64_t done = 0, chunk = 0; done < n && !failed; chunk++, done += STAGE_CHUNK_FRAMES) {
		const unsigned c = (unsigned)(chunk % STAGE_CHUNKS);
		const size_t base = (size_t)c * STAGE_CHUNK_FRAMES;
		if (s->pending[c])
			LP_CUDA(cudaEventSynchronize(s->done[c])); /* the GPU is done reading it */
		for (uint32_t k = 0; k < STAGE_CHUNK_FRAMES; k += feed_burst) {
			if (feed(rxq, s, base + k, feed_burst, deadline)) {
				snprintf(why, why_len, "the wire gave %llu of %llu frames in %u s",
					 (unsigned long long)(done + k), (unsigned long long)n, o->timeout_s);
				failed = 1;
				break;
			}
			for (uint32_t b = 0; b < feed_burst; b += burst) {
				const size_t first = base + k + b;
				if (gr) {
					LP_CUDA(cudaGraphLaunch(gr->exec[first / burst], s->stream));
				} else {
					classify_burst<<<1, threads, 0, s->stream>>>(s->frames_gpu + first * SLOT_BYTES,
										    s->lens_gpu + first, SLOT_BYTES,
										    burst, s->counts_gpu);
					LP_CUDA(cudaGetLastError());
				}
			}
		}
		LP_CUDA(cudaEventRecord(s->done[c], s->stream));
		s->pending[c] = 1;
	}
	LP_CUDA(cudaStreamSynchronize(s->stream));
	const uint64_t t1 = gt_mono_ns();
	GT_OK(gnio_sw_peer_gen_detach(peer, 0));
	LP_CUDA(cudaMemcpy(got, s->counts_gpu, sizeof(*got), cudaMemcpyDeviceToHost));
	return failed ? -1 : (double)n / (double)(t1 - t0) * 1e3;
}

static void bench_launch(struct stage *s, enum pattern_kind kind, uint32_t burst, const struct opts *o,
			 const struct lp_counts *ref, const struct lp_counts *ref_warm, uint64_t warm_frames,
			 struct pattern_result *r)
{
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	struct gnio_sw_peer *peer;
	struct graphs gr = {NULL, 0};
	char name[32], spec[40], why[160] = "";

	r->kind = kind;
	r->burst = burst;
	r->counts_ok = 1;
	r->launches = o->frames / burst;
	if (kind == PAT_GRAPH)
		snprintf(r->name, sizeof(r->name), "graph per burst");
	else
		snprintf(r->name, sizeof(r->name), burst == 1 ? "launch per frame" : "launch per burst");
	snprintf(name, sizeof(name), "lpl%d_%u_%u", (int)getpid(), (unsigned)kind, burst);
	snprintf(spec, sizeof(spec), "sw:%s", name);

	/* The host datapath: this thread pulls the frames from the wire. */
	GT_OK(gnio_dev_open(spec, &dev));
	GT_OK(gnio_sw_peer_open(name, &peer));
	GT_OK(gnio_eth_rxq_create(dev, MAX_BURST, SLOT_BYTES, &rxq));
	GT_OK(gnio_ctx_start(gnio_eth_rxq_as_ctx(rxq)));
	if (kind == PAT_GRAPH) {
		const uint64_t t = gt_mono_ns();
		graphs_build(&gr, s, burst);
		r->setup_ms = (double)(gt_mono_ns() - t) / 1e6;
	}

	struct lp_counts got;
	double mpps = launch_run(rxq, peer, s, gr.exec ? &gr : NULL, burst, o, warm_frames, &got, why, sizeof(why));
	if (mpps < 0 || !counts_equal(&got, ref_warm, why, sizeof(why))) {
		r->counts_ok = 0;
		snprintf(r->why, sizeof(r->why), "warm-up: %s", why);
	}
	for (unsigned rep = 0; rep < o->reps && r->counts_ok; rep++) {
		mpps = launch_run(rxq, peer, s, gr.exec ? &gr : NULL, burst, o, o->frames, &got, why, sizeof(why));
		if (mpps < 0 || !counts_equal(&got, ref, why, sizeof(why))) {
			r->counts_ok = 0;
			snprintf(r->why, sizeof(r->why), "run %u: %s", rep + 1, why);
			break;
		}
		r->mpps[r->nreps++] = mpps;
	}
	if (gr.exec)
		graphs_free(&gr);
	GT_OK(gnio_ctx_stop(gnio_eth_rxq_as_ctx(rxq)));
	GT_OK(gnio_eth_rxq_destroy(rxq));
	GT_OK(gnio_sw_peer_close(peer));
	GT_OK(gnio_dev_close(dev));
}

/* ------------------------------------------------------------- report -- */

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const struct pattern_result *r, double *lo, double *hi)
{
	double v[16];
	if (r->nreps == 0) {
		*lo = *hi = 0;
		return 0;
	}
	memcpy(v, r->mpps, r->nreps * sizeof(double));
	qsort(v, r->nreps, sizeof(double), cmp_double);
	*lo = v[0];
	*hi = v[r->nreps - 1];
	return r->nreps % 2 ? v[r->nreps / 2] : (v[r->nreps / 2 - 1] + v[r->nreps / 2]) / 2;
}

/* The JSON key of a pattern: persistent, launch_per_frame,
 * launch_per_burst_32, graph_per_burst_32, ... */
static void pattern_key(const struct pattern_result *r, char *out, size_t len)
{
	if (r->kind == PAT_PERSISTENT)
		snprintf(out, len, "persistent");
	else if (r->kind == PAT_LAUNCH && r->burst == 1)
		snprintf(out, len, "launch_per_frame");
	else
		snprintf(out, len, "%s_%u", r->kind == PAT_GRAPH ? "graph_per_burst" : "launch_per_burst", r->burst);
}

/* The issue's targets: persistent / other, at least this much. */
static double target_ratio(const struct pattern_result *r)
{
	if (r->kind == PAT_LAUNCH && r->burst == 1)
		return 10.0;
	if (r->burst == 32)
		return 2.0;
	return 0; /* no target */
}

static void report(const struct opts *o, const char *bus, const char *gpu_name, const struct lp_counts *ref,
		   const struct pattern_result *res, unsigned nres, int ok)
{
	double lo, hi;
	const struct pattern_result *pers = NULL;
	for (unsigned i = 0; i < nres; i++)
		if (res[i].kind == PAT_PERSISTENT && res[i].nreps)
			pers = &res[i];
	const double pers_med = pers ? median(pers, &lo, &hi) : 0;

	printf("\nlaunch patterns: %s (%s), %llu frames of %u B (%s) per run, median of %u runs\n", bus, gpu_name,
	       (unsigned long long)o->frames, o->size, gnio_gen_proto_name(o->proto), o->reps);
	printf("%-20s %6s %10s %21s %10s %12s %10s  %s\n", "pattern", "burst", "Mpps", "[min - max]", "launches",
	       "pers/this", "setup ms", "counts");
	for (unsigned i = 0; i < nres; i++) {
		const struct pattern_result *r = &res[i];
		const double med = median(r, &lo, &hi);
		char burst[16], ratio[32];
		snprintf(burst, sizeof(burst), r->kind == PAT_PERSISTENT ? "-" : "%u", r->burst);
		if (pers_med > 0 && med > 0)
			snprintf(ratio, sizeof(ratio), "%.2fx", pers_med / med);
		else
			snprintf(ratio, sizeof(ratio), "-");
		printf("%-20s %6s %10.3f   [%7.3f - %7.3f] %10llu %12s %10.1f  %s%s%s\n", r->name, burst, med, lo, hi,
		       (unsigned long long)r->launches, ratio, r->setup_ms, r->counts_ok ? "equal" : "DIFFER",
		       r->counts_ok ? "" : ": ", r->why);
	}
	printf("every pattern's frames, bytes and per-protocol counts %s the host's classification"
	       " (%llu frames, %llu bytes)\n",
	       ok ? "equal" : "do NOT all equal", ref->packets, ref->bytes);
	if (!o->json)
		return;

	printf("{\"bench\":\"launch_patterns\",\"ok\":%s,\"device\":\"%s\",\"gpu_name\":\"%s\",\"frames\":%llu,"
	       "\"size\":%u,\"proto\":\"%s\",\"reps\":%u,\"batch\":%u,\"slot\":%u,\"feed_burst_min\":%u,"
	       "\"reference\":{\"packets\":%llu,\"bytes\":%llu,\"proto\":{",
	       ok ? "true" : "false", bus, gpu_name, (unsigned long long)o->frames, o->size,
	       gnio_gen_proto_name(o->proto), o->reps, o->batch, SLOT_BYTES, FEED_BURST_MIN, ref->packets, ref->bytes);
	for (int p = 0; p < GNIO_PROTO_COUNT; p++)
		printf("%s\"%s\":%llu", p ? "," : "", gnio_proto_name(p), ref->proto[p]);
	printf("}},\"patterns\":[");
	for (unsigned i = 0; i < nres; i++) {
		const struct pattern_result *r = &res[i];
		const double med = median(r, &lo, &hi);
		char key[48];
		pattern_key(r, key, sizeof(key));
		printf("%s{\"key\":\"%s\",\"name\":\"%s\",\"burst\":%u,\"mpps_median\":%.4f,\"mpps_min\":%.4f,"
		       "\"mpps_max\":%.4f,\"runs_mpps\":[",
		       i ? "," : "", key, r->name, r->burst, med, lo, hi);
		for (unsigned k = 0; k < r->nreps; k++)
			printf("%s%.4f", k ? "," : "", r->mpps[k]);
		printf("],\"launches_per_run\":%llu,\"setup_ms\":%.2f,\"counts_equal\":%s,\"why\":\"%s\"",
		       (unsigned long long)r->launches, r->setup_ms, r->counts_ok ? "true" : "false", r->why);
		if (r->kind != PAT_PERSISTENT && pers_med > 0 && med > 0) {
			const double ratio = pers_med / med, target = target_ratio(r);
			printf(",\"persistent_ratio\":%.3f", ratio);
			if (target > 0)
				printf(",\"target_ratio\":%.1f,\"target_met\":%s", target, ratio >= target ? "true" : "false");
		}
		printf("}");
	}
	printf("]}\n");
}

/* -------------------------------------------------------------- main -- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: launch_patterns [--gpu BUSID] [--frames N] [--size N] [--proto NAME] [--reps N]\n"
		"                       [--bursts N[,N...]] [--batch N] [--patterns LIST] [--timeout-s N] [--json]\n"
		"The same per-frame work (gnio_classify + byte count) over the same generated\n"
		"frames: gnio's persistent kernel vs one kernel launch per frame, per burst,\n"
		"and one CUDA graph launch per burst.\n"
		"  --gpu       CUDA device by PCIe bus id (default: device 0)\n"
		"  --frames    frames per run (default 1048576; rounded up to a multiple of %u)\n"
		"  --size      frame bytes without FCS (default 64; at least the protocol's minimum)\n"
		"  --proto     generator protocol (default udp; mix, every kind the classifier\n"
		"              knows, needs --size 97 or more)\n"
		"  --reps      timed runs per pattern, after one warm-up run (default 3, at most 16)\n"
		"  --bursts    burst sizes for the per-burst launch and graph rows (default 32,256)\n"
		"  --batch     the persistent kernel's frames per recv (default 1024, where gnio run's\n"
		"              adaptive batch starts)\n"
		"  --patterns  which rows: persistent,frame,burst,graph (default all)\n"
		"  --timeout-s a run that has not finished after this fails (default 120)\n"
		"  --json      last stdout line: one JSON object with the results\n",
		STAGE_CHUNK_FRAMES);
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_list(const char *s, struct opts *o)
{
	char buf[128], *save = NULL;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", s);
	o->nbursts = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		/* Bursts divide the staging chunk, so every launch is full. */
		if (o->nbursts == MAX_BURSTS || parse_u64(t, 2, MAX_BURST, &v) || STAGE_CHUNK_FRAMES % v)
			return -1;
		o->bursts[o->nbursts++] = (uint32_t)v;
	}
	return o->nbursts ? 0 : -1;
}

static int parse_patterns(const char *s, struct opts *o)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	o->want_persistent = o->want_frame = o->want_burst = o->want_graph = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "persistent"))
			o->want_persistent = 1;
		else if (!strcmp(t, "frame"))
			o->want_frame = 1;
		else if (!strcmp(t, "burst"))
			o->want_burst = 1;
		else if (!strcmp(t, "graph"))
			o->want_graph = 1;
		else
			return -1;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"gpu", required_argument, NULL, 'g'},     {"frames", required_argument, NULL, 'n'},
		{"size", required_argument, NULL, 's'},    {"proto", required_argument, NULL, 'p'},
		{"reps", required_argument, NULL, 'r'},    {"bursts", required_argument, NULL, 'b'},
		{"batch", required_argument, NULL, 'B'},   {"patterns", required_argument, NULL, 'P'},
		{"timeout-s", required_argument, NULL, 'T'}, {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c, idx = 0;

	memset(o, 0, sizeof(*o));
	o->frames = 1u << 20;
	o->size = 64;
	o->proto = GNIO_GEN_UDP; /* mix needs more than 64 bytes */
	o->reps = 3;
	o->bursts[0] = 32;
	o->bursts[1] = 256;
	o->nbursts = 2;
	o->batch = 1024;
	o->timeout_s = 120;
	o->want_persistent = o->want_frame = o->want_burst = o->want_graph = 1;
	while ((c = getopt_long(argc, argv, "", lo, &idx)) != -1) {
		switch (c) {
		case 'g':
			o->gpu = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, 1, 1ull << 32, &o->frames))
				goto bad;
			break;
		case 's':
			if (parse_u64(optarg, GNIO_GEN_MIN_FRAME, SLOT_BYTES, &v))
				goto bad;
			o->size = (uint32_t)v;
			break;
		case 'p':
			if (gnio_gen_proto_parse(optarg, &o->proto) != GNIO_SUCCESS)
				goto bad;
			break;
		case 'r':
			if (parse_u64(optarg, 1, 16, &v))
				goto bad;
			o->reps = (unsigned)v;
			break;
		case 'b':
			if (parse_list(optarg, o))
				goto bad;
			break;
		case 'B':
			if (parse_u64(optarg, 1, 65536, &v))
				goto bad;
			o->batch = (uint32_t)v;
			break;
		case 'P':
			if (parse_patterns(optarg, o))
				goto bad;
			break;
		case 'T':
			if (parse_u64(optarg, 1, 3600, &v))
				goto bad;
			o->timeout_s = (unsigned)v;
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
		fprintf(stderr, "launch_patterns: unexpected argument %s\n", argv[optind]);
		return -1;
	}
	if (o->size < gnio_gen_min_frame(o->proto)) {
		fprintf(stderr, "launch_patterns: %s frames need at least %u bytes\n", gnio_gen_proto_name(o->proto),
			gnio_gen_min_frame(o->proto));
		return -1;
	}
	o->frames = (o->frames + STAGE_CHUNK_FRAMES - 1) / STAGE_CHUNK_FRAMES * STAGE_CHUNK_FRAMES;
	return 0;
bad:
	fprintf(stderr, "launch_patterns: bad value for --%s: %s\n", lo[idx].name, optarg);
	usage(stderr);
	return -1;
}

/* No usable GPU: say why (and in JSON), exit 77. */
static void skip(const struct opts *o, const char *why)
{
	printf("launch_patterns: skipped: %s\n", why);
	if (o->json)
		printf("{\"bench\":\"launch_patterns\",\"ok\":null,\"skipped\":true,\"reason\":\"%s\"}\n", why);
	fflush(stdout);
	exit(77);
}

int main(int argc, char **argv)
{
	struct opts o;
	char bus[32], why[256];
	int ndev = 0, ordinal = 0;

	if (parse_opts(argc, argv, &o))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	cudaError_t ce = cudaGetDeviceCount(&ndev);
	if (ce != cudaSuccess || ndev == 0) {
		snprintf(why, sizeof(why), "no usable CUDA GPU (%s); this benchmark compares GPU launch patterns",
			 ce != cudaSuccess ? cudaGetErrorString(ce) : "0 devices");
		skip(&o, why);
	}
	if (o.gpu) {
		if (cudaDeviceGetByPCIBusId(&ordinal, o.gpu) != cudaSuccess) {
			snprintf(why, sizeof(why), "no CUDA device at bus id %s", o.gpu);
			skip(&o, why);
		}
	}
	char raw[32];
	LP_CUDA(cudaDeviceGetPCIBusId(raw, (int)sizeof(raw), ordinal));
	GT_OK(gnio_gpu_bus_id_canonical(raw, bus, sizeof(bus)));
	struct gnio_gpu *gpu;
	GT_OK(gnio_gpu_create(bus, &gpu));
	LP_CUDA(cudaSetDevice(ordinal)); /* this thread's launches go to the same device */

	/* The warm-up run is one pass over the staging pool. */
	const uint64_t warm = (uint64_t)STAGE_CHUNKS * STAGE_CHUNK_FRAMES;
	struct gnio_gen_cfg gc = gen_cfg(&o, o.frames);
	struct lp_counts ref, ref_warm;
	reference_counts(&gc, o.frames, &ref);
	reference_counts(&gc, warm, &ref_warm);
	printf("launch_patterns: %s (%s): %llu frames of %u B (%s) per run, %u runs per pattern\n", bus,
	       gnio_gpu_get_name(gpu), (unsigned long long)o.frames, o.size, gnio_gen_proto_name(o.proto), o.reps);

	static struct pattern_result res[2 + 2 * MAX_BURSTS];
	unsigned nres = 0;
	memset(res, 0, sizeof(res));
	/* The persistent kernel runs alone: it is stopped before the launch
	 * patterns start, so it takes no SM or PCIe time from them. */
	if (o.want_persistent) {
		printf("  persistent kernel ...\n");
		bench_persistent(gpu, &o, &ref, &ref_warm, warm, &res[nres++]);
	}
	struct stage s;
	stage_open(&s, gpu);
	if (o.want_frame) {
		printf("  launch per frame ...\n");
		bench_launch(&s, PAT_LAUNCH, 1, &o, &ref, &ref_warm, warm, &res[nres++]);
	}
	for (unsigned b = 0; b < o.nbursts; b++) {
		if (o.want_burst) {
			printf("  launch per burst of %u ...\n", o.bursts[b]);
			bench_launch(&s, PAT_LAUNCH, o.bursts[b], &o, &ref, &ref_warm, warm, &res[nres++]);
		}
		if (o.want_graph) {
			printf("  graph per burst of %u ...\n", o.bursts[b]);
			bench_launch(&s, PAT_GRAPH, o.bursts[b], &o, &ref, &ref_warm, warm, &res[nres++]);
		}
	}
	stage_close(&s);

	int ok = 1;
	for (unsigned i = 0; i < nres; i++)
		ok &= res[i].counts_ok;
	report(&o, bus, gnio_gpu_get_name(gpu), &ref, res, nres, ok);
	GT_OK(gnio_gpu_destroy(gpu));
	return ok ? 0 : 1;
}
