/* SPDX-License-Identifier: MIT */
/*
 * tests/gpu/gpu_test.h - shared helpers for the GPU tests (C and CUDA).
 *
 * Exit codes: 0 pass, 1 fail, 77 skipped (no usable CUDA GPU, with the reason
 * printed). Every check prints where it failed and the library's last reason.
 *
 * The sw rig builds the whole queue stack the way an application does:
 * memory -> buffer arrays -> dev_open("sw:NAME") -> eth queues -> setters ->
 * set_datapath_on_gpu -> start -> GPU handles; and tears it down in reverse.
 */
#ifndef GNIO_TESTS_GPU_TEST_H
#define GNIO_TESTS_GPU_TEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GNIO_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* Every public header carries its own C++ guards; the device headers are
 * templates in C++ and must not sit inside extern "C". */
#include "gnio/gnio.h"
#include "gnio/device/gnio_dev.h"
#include "gnio/apps/apps.h"

/* A failed check may leave a persistent kernel running; exit() would then
 * wait for it in the CUDA runtime's teardown. _exit ends the process and the
 * driver reclaims the context. */
static inline void gt_fail_exit(void)
{
	fflush(stdout);
	fflush(stderr);
	_exit(1);
}

#define GT_FAIL(...)                                                                               \
	do {                                                                                       \
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                              \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, " (last reason: '%s')\n", gnio_last_error_msg());                 \
		gt_fail_exit();                                                                    \
	} while (0)

#define GT_CHECK(cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "check '%s' failed\n", #cond);                             \
			GT_FAIL(__VA_ARGS__);                                                      \
		}                                                                                  \
	} while (0)

/* Expect a gnio call to return a given code. */
#define GT_EXPECT(expr, want)                                                                      \
	do {                                                                                       \
		gnio_error_t gt_e_ = (expr);                                                       \
		if (gt_e_ != (want))                                                               \
			GT_FAIL("%s returned %s, expected %s", #expr, gnio_error_get_name(gt_e_), \
				gnio_error_get_name(want));                                        \
	} while (0)
#define GT_OK(expr) GT_EXPECT(expr, GNIO_SUCCESS)

#ifdef GNIO_HAVE_CUDA
#define GT_CUDA(expr)                                                                              \
	do {                                                                                       \
		cudaError_t gt_c_ = (expr);                                                        \
		if (gt_c_ != cudaSuccess)                                                          \
			GT_FAIL("%s: %s", #expr, cudaGetErrorString(gt_c_));                       \
	} while (0)
#endif

static inline void gt_skip(const char *why)
{
	printf("SKIP: %s\n", why);
	fflush(stdout);
	exit(77);
}

static inline uint64_t gt_clock_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t gt_now_ns(void)
{
	return gt_clock_ns(CLOCK_REALTIME);
}

static inline uint64_t gt_mono_ns(void)
{
	return gt_clock_ns(CLOCK_MONOTONIC);
}

/* The gt_mono_ns() time timeout_ms from now. */
static inline uint64_t gt_deadline_ms(uint64_t timeout_ms)
{
	return gt_mono_ns() + timeout_ms * 1000000ull;
}

static inline void gt_sleep_us(unsigned us)
{
	struct timespec ts;
	ts.tv_sec = us / 1000000u;
	ts.tv_nsec = (long)(us % 1000000u) * 1000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Find the GPU to test: CUDA device 0's bus id in canonical form. Skips (77)
 * when built without CUDA or when no usable GPU exists; before skipping it
 * checks that gnio_gpu_create refuses a GPU bus id with DRIVER, NOT_FOUND or
 * NOT_SUPPORTED and a one-line reason, which is what a GPU-less machine must do.
 */
static inline void gt_find_gpu(char *bus, size_t len)
{
#ifndef GNIO_HAVE_CUDA
	(void)bus;
	(void)len;
	gt_skip("built without CUDA (GNIO_WITH_CUDA=OFF)");
#else
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		char why[320];
		struct gnio_gpu *g = NULL;
		gnio_error_t err = gnio_gpu_create("0000:00:06.0", &g);
		GT_CHECK(err == GNIO_ERROR_DRIVER || err == GNIO_ERROR_NOT_FOUND,
			 "gnio_gpu_create without a GPU gave %s", gnio_error_get_name(err));
		GT_CHECK(gnio_last_error_msg()[0] != '\0' && !strchr(gnio_last_error_msg(), '\n'),
			 "no one-line reason");
		snprintf(why, sizeof(why), "no usable CUDA GPU (%s); gnio_gpu_create says %s: %s",
			 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices", gnio_error_get_name(err),
			 gnio_last_error_msg());
		gt_skip(why);
	}
	char raw[32];
	GT_CUDA(cudaDeviceGetPCIBusId(raw, (int)sizeof(raw), 0));
	GT_OK(gnio_gpu_bus_id_canonical(raw, bus, len));
#endif
}

/* gt_find_gpu, then a context on that GPU. bus may be NULL where the caller
 * does not need the id. */
static inline struct gnio_gpu *gt_gpu_open(char *bus, size_t len)
{
	char own[32];
	struct gnio_gpu *g = NULL;

	if (!bus) {
		bus = own;
		len = sizeof(own);
	}
	gt_find_gpu(bus, len);
	GT_OK(gnio_gpu_create(bus, &g));
	return g;
}

/* The end of a passing test: the context destroyed, PASS printed, exit 0. */
static inline int gt_pass(struct gnio_gpu *g)
{
	GT_OK(gnio_gpu_destroy(g));
	printf("PASS\n");
	return 0;
}

/* Poll a 64-bit counter in pinned host memory until it reaches want. */
static inline int gt_wait_u64(const uint64_t *p, uint64_t want, unsigned timeout_ms)
{
	uint64_t end = gt_deadline_ms(timeout_ms);
	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) < want) {
		if (gt_mono_ns() > end)
			return 0;
		gt_sleep_us(50);
	}
	return 1;
}

/* Under compute-sanitizer (scripts/gpu-check sets this) kernels run many
 * times slower: timing bounds are not checked, correctness still is. */
static inline int gt_under_sanitizer(void)
{
	const char *v = getenv("GNIO_TEST_UNDER_SANITIZER");
	return v && *v && strcmp(v, "0") != 0;
}

/* Wait until the kernel's heartbeat moves past hb (it is alive and polling). */
static inline int gt_heartbeat_moves(struct gnio_runner *r, unsigned timeout_ms)
{
	uint64_t hb = gnio_runner_get_heartbeat(r);
	uint64_t end = gt_deadline_ms(timeout_ms);
	while (gnio_runner_get_heartbeat(r) == hb) {
		if (gt_mono_ns() > end)
			return 0;
		gt_sleep_us(100);
	}
	return 1;
}

/* ------------------------------------------------------------ sw rig --- */

/* A test's queues on an sw wire, built by the library's bring-up
 * (gnio_pipeline_create) on the test's device context. */
struct gt_rig {
	struct gnio_pipeline *pl;
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	void *rx_mem, *rx_mem_cpu, *tx_mem, *tx_mem_cpu;
	struct gnio_buf_arr *rx_arr, *tx_arr;
	struct gnio_gpu_eth_rxq *rxh; /* device view */
	struct gnio_gpu_eth_txq *txh; /* device view */
	char name[32];
};

struct gt_rig_cfg {
	const char *name;          /* sw wire name */
	int rx, tx;                /* which queues */
	int tx_in_place;           /* register the RX pool with the TX queue */
	uint32_t rx_entries;       /* ring size, power of two */
	uint32_t tx_entries;
	uint32_t slot;             /* pool element size */
	uint32_t max_pkt;
	enum gnio_gpu_mem_type rx_mem_type;
	int inline_header;         /* completions carry the frame's first 56 bytes */
	int poll_mode;             /* enum gnio_poll_mode of the proxies (0: adaptive) */
};

static inline void gt_rig_cfg_init(struct gt_rig_cfg *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->rx = 1;
	c->rx_entries = 1024;
	c->tx_entries = 256;
	c->slot = 2048;
	c->max_pkt = 1518;
	c->rx_mem_type = GNIO_GPU_MEM_TYPE_CPU_GPU;
}

/* The same with only a TX queue, of tx_entries. */
static inline void gt_rig_cfg_init_tx(struct gt_rig_cfg *c, const char *name, uint32_t tx_entries)
{
	gt_rig_cfg_init(c, name);
	c->rx = 0;
	c->tx = 1;
	c->tx_entries = tx_entries;
}

/* Returns SUCCESS or the first error (the caller decides fail or skip). */
static inline gnio_error_t gt_rig_open(struct gt_rig *r, struct gnio_gpu *gpu, const struct gt_rig_cfg *c)
{
	char spec[48];
	struct gnio_pipeline_cfg pc;
	struct gnio_pipeline_queue q;
	gnio_error_t err;

	memset(r, 0, sizeof(*r));
	r->gpu = gpu;
	snprintf(r->name, sizeof(r->name), "%s", c->name);
	snprintf(spec, sizeof(spec), "sw:%s", c->name);
	gnio_pipeline_cfg_init(&pc, spec, NULL);
	pc.gpu_ctx = gpu;
	pc.ring = c->rx_entries;
	pc.burst = 256;
	pc.slot = c->slot;
	pc.max_packet = c->max_pkt;
	pc.rx_mem = c->rx_mem_type;
	pc.flow_control = 1; /* tests count every frame: hold frames on the wire, never drop */
	pc.inline_header = c->inline_header;
	pc.poll_mode = c->poll_mode;
	pc.tx = c->tx;
	pc.tx_only = c->tx && !c->rx;
	pc.tx_pool = c->tx;
	pc.tx_in_place = c->tx && c->rx && c->tx_in_place;
	pc.tx_ring = c->tx_entries;
	err = gnio_pipeline_create(&pc, &r->pl);
	if (err != GNIO_SUCCESS)
		return err;
	GT_OK(gnio_pipeline_get_queue(r->pl, 0, &q));
	r->dev = gnio_pipeline_get_dev(r->pl);
	r->rxq = q.rxq;
	r->txq = q.txq;
	r->rxh = q.rxh;
	r->txh = q.txh;
	r->rx_arr = q.rx_pool;
	r->tx_arr = q.tx_pool;
	r->rx_mem = q.rx_mem;
	r->tx_mem = q.tx_mem;
	r->rx_mem_cpu = q.rx_pool ? gnio_buf_arr_get_cpu_base(q.rx_pool) : NULL;
	r->tx_mem_cpu = q.tx_pool ? gnio_buf_arr_get_cpu_base(q.tx_pool) : NULL;
	GT_OK(gnio_sw_peer_open(c->name, &r->peer));
	return GNIO_SUCCESS;
}

/* The pipeline's rollback and teardown, every step checked. The kernels the
 * test launched on its own runners must be stopped already. */
static inline void gt_rig_close(struct gt_rig *r)
{
	GT_OK(gnio_sw_peer_close(r->peer));
	GT_OK(gnio_pipeline_destroy(r->pl));
	memset(r, 0, sizeof(*r));
}

/* The end of a passing rig test: the rig closed, then as gt_pass. */
static inline int gt_rig_pass(struct gt_rig *r)
{
	struct gnio_gpu *g = r->gpu;

	gt_rig_close(r);
	return gt_pass(g);
}

/* Send frames [first, first+n) of cfg into queue 0 of the rig's wire,
 * keeping at most 512 frames between the peer and the RX ring, so the wire
 * FIFO (4096 deep) never overflows. Returns the bytes sent. */
static inline uint64_t gt_send_gen(struct gt_rig *r, const struct gnio_gen_cfg *cfg, uint64_t first, uint64_t n)
{
	static uint8_t buf[GNIO_GEN_MAX_FRAME];
	uint64_t bytes = 0;
	for (uint64_t s = first; s < first + n; s++) {
		uint32_t len = gnio_gen_build(cfg, s, buf, sizeof(buf));
		GT_CHECK(len > 0, "gen_build seq %llu", (unsigned long long)s);
		uint64_t end = gt_deadline_ms(5000);
		for (;;) {
			struct gnio_sw_peer_stats ps;
			struct gnio_eth_rxq_stats rs;
			GT_OK(gnio_sw_peer_get_stats(r->peer, 0, &ps));
			GT_OK(gnio_eth_rxq_get_stats(r->rxq, &rs));
			if (ps.offered - (rs.rx_packets + rs.dropped_total) < 512)
				break;
			GT_CHECK(gt_mono_ns() < end, "the proxy took nothing for 5 s");
			gt_sleep_us(20);
		}
		GT_OK(gnio_sw_peer_send(r->peer, 0, buf, len));
		bytes += len;
	}
	return bytes;
}

/* Receive one frame gnio sent, waiting up to timeout_ms. */
static inline gnio_error_t gt_peer_recv(struct gnio_sw_peer *peer, void *buf, uint32_t cap, uint32_t *len,
					uint64_t *ts, unsigned timeout_ms)
{
	uint64_t end = gt_deadline_ms(timeout_ms);
	for (;;) {
		gnio_error_t e = gnio_sw_peer_recv(peer, 0, buf, cap, len, ts);
		if (e != GNIO_ERROR_EMPTY || gt_mono_ns() > end)
			return e;
		gt_sleep_us(20);
	}
}

/* A generator config: the defaults with this protocol and frame size. */
static inline struct gnio_gen_cfg gt_gen_cfg(enum gnio_gen_proto proto, uint32_t size)
{
	struct gnio_gen_cfg cfg;
	gnio_gen_cfg_init(&cfg);
	cfg.proto = proto;
	cfg.frame_size = size;
	return cfg;
}

/* ------------------------------------------------------ built-in apps --- */

/* A built-in app's stats (zeroed, pinned and mapped) and its arguments on
 * the rig's queues: one block of 256 threads, max_batch frames per recv,
 * 100 us recv waits. Returns the stats' CPU view; *stats_gpu (the device
 * view) is the one to free. */
static inline struct gnio_app_stats *gt_app_setup(const struct gt_rig *rig, uint32_t max_batch,
						  struct gnio_app_args *a, void **stats_gpu)
{
	void *cpu;
	GT_OK(gnio_gpu_mem_alloc(rig->gpu, sizeof(struct gnio_app_stats), 0, GNIO_GPU_MEM_TYPE_CPU_GPU, stats_gpu,
				 &cpu));
	memset(cpu, 0, sizeof(struct gnio_app_stats));
	memset(a, 0, sizeof(*a));
	a->rxq = rig->rxh;
	a->txq = rig->txh; /* NULL without a TX queue */
	a->stats = (struct gnio_app_stats *)*stats_gpu;
	a->max_batch = max_batch;
	a->timeout_ns = 100000;
	a->blocks = 1;
	a->threads = 256;
	return (struct gnio_app_stats *)cpu;
}

/* Start app's CUDA body at a receive scope (0 thread, 1 warp, 2 block) with
 * its stats zeroed. */
static inline void gt_app_start(struct gnio_runner *r, const struct gnio_app *app, struct gnio_app_args *a,
				struct gnio_app_stats *st, int scope)
{
	memset(st, 0, sizeof(*st));
	a->recv_scope = scope;
	a->send_scope = scope; /* sends at the receive scope keep arrival order */
	GT_OK(gnio_runner_start(r, app->cuda, a));
}

static inline int gt_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
static inline int gt_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* ----------------------------------------------------- device helpers --- */
#ifdef __CUDACC__

#define GT_SCOPE_THREAD 0
#define GT_SCOPE_WARP 1
#define GT_SCOPE_BLOCK 2

/* Thread 0 reads the stop flag (and an optional test-owned flag) and bumps
 * the heartbeat; the whole group learns the answer. */
template <int SCOPE> __device__ int gt_group_stop(struct gnio_kernel_ctl *ctl, uint64_t *hb)
{
	__shared__ int s_stop;
	int stop = 0;
	if (threadIdx.x == 0) {
		stop = gnio_gpu_dev_kernel_should_stop(ctl);
		gnio_gpu_dev_kernel_heartbeat(ctl, ++*hb);
	}
	if (SCOPE == GT_SCOPE_BLOCK) {
		__syncthreads(); /* the previous iteration's readers are done */
		if (threadIdx.x == 0)
			s_stop = stop;
		__syncthreads();
		stop = s_stop;
	} else if (SCOPE == GT_SCOPE_WARP) {
		stop = __shfl_sync(0xffffffffu, stop, 0);
	}
	return stop;
}

template <int SCOPE>
__device__ gnio_error_t gt_recv(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t tmo, uint64_t *first,
				uint32_t *count)
{
	if (SCOPE == GT_SCOPE_BLOCK)
		return gnio_gpu_dev_eth_rxq_recv_block(q, max, tmo, first, count, NULL);
	if (SCOPE == GT_SCOPE_WARP)
		return gnio_gpu_dev_eth_rxq_recv_warp(q, max, tmo, first, count, NULL);
	return gnio_gpu_dev_eth_rxq_recv_thread(q, max, tmo, first, count, NULL);
}

template <int SCOPE> __device__ void gt_group_sync(void)
{
	if (SCOPE == GT_SCOPE_BLOCK)
		__syncthreads();
	else if (SCOPE == GT_SCOPE_WARP)
		__syncwarp();
}

/* Wait (up to 2 s, napping) until the TX proxy has completed every ticket
 * below want. 1 when it has, 0 on the timeout. */
__device__ static inline int gt_wait_completed(const struct gnio_gpu_eth_txq *q, uint64_t want)
{
	const uint64_t t0 = gnio_gpu_dev_time_ns();
	while (gnio_gpu_dev_eth_txq_completed(q) < want) {
		if (gnio_gpu_dev_time_ns() - t0 > 2000000000ull)
			return 0;
		__nanosleep(1000);
	}
	return 1;
}

#define GT_LAUNCH_CHECK()                                                                          \
	do {                                                                                       \
		cudaError_t gt_l_ = cudaGetLastError();                                            \
		if (gt_l_ != cudaSuccess)                                                          \
			return GNIO_ERROR_DRIVER;                                                  \
	} while (0)

#endif /* __CUDACC__ */

#endif /* GNIO_TESTS_GPU_TEST_H */
