/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_alloc_fail.c - issue 11: an allocation failure injected at
 * each allocation point of a whole bring-up and teardown gives a clean error
 * and leaks nothing.
 *
 * The library's allocator calls are wrapped at link time (-Wl,--wrap, see
 * tests/CMakeLists.txt). The wrappers count the calls made while a library
 * call is armed, fail the Nth one (pass "once"), or the Nth and every later
 * one of the same call (pass "sticky"), and keep a table of the live blocks
 * with their callers, so a leak is found and located without ASan. cmocka
 * and libc allocate through the real allocator: shared libraries are not
 * wrapped, only the objects linked into this program.
 *
 * The scenario (CPU device, sw wires) runs for N = 1, 2, ... until a run
 * reaches its end with no allocation failed. The armed call that met the
 * failure must return an error with a reason and leave no block behind. Pass
 * "once" then runs the call again unarmed (it must work: the state is clean)
 * and carries on to the end, frames through the kernels included; pass
 * "sticky" abandons the bring-up there and tears down whatever exists. Either
 * way every block is freed once the teardown is done.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "testutil.h"

/* ------------------------------------------------------------ wrappers -- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
int __real_posix_memalign(void **p, size_t align, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
void __real_free(void *p);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
int __wrap_posix_memalign(void **p, size_t align, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
void __wrap_free(void *p);

/* Any thread may allocate (proxy and kernel threads are the library's), so
 * everything here is atomic or under the table's spin lock. */
static struct {
	int armed;               /* a library call is running: count its allocations */
	unsigned long calls;     /* armed allocation calls so far in this run */
	unsigned long fail_at;   /* the armed call that fails (0: none) */
	int sticky;              /* and every armed call after it */
	unsigned long failed;    /* allocations failed on purpose */
	unsigned long foreign;   /* frees of blocks these wrappers never saw */
	void *failed_caller;     /* where the (first) failed allocation was called */
	unsigned long off_thread; /* armed calls made by threads other than the test's */
} inj;

static pthread_t test_thread;

#define LIVE_SLOTS 16384u /* power of two, far above what the scenario holds */

struct live_block {
	void *p;
	void *caller;
	unsigned long seq; /* allocation number since the start of the program */
};

static struct {
	char lock;
	unsigned count;
	unsigned long seq;
	struct live_block slot[LIVE_SLOTS];
} live;

static void live_lock(void)
{
	while (__atomic_test_and_set(&live.lock, __ATOMIC_ACQUIRE))
		;
}

static void live_unlock(void) { __atomic_clear(&live.lock, __ATOMIC_RELEASE); }

static unsigned live_hash(const void *p)
{
	uint64_t v = (uint64_t)(uintptr_t)p;
	return (unsigned)((v * 0x9e3779b97f4a7c15ull) >> 40) & (LIVE_SLOTS - 1);
}

static void live_add(void *p, void *caller)
{
	if (!p)
		return;
	live_lock();
	if (live.count >= LIVE_SLOTS - 1) {
		live_unlock();
		fprintf(stderr, "test_alloc_fail: more than %u live blocks\n", LIVE_SLOTS - 1);
		abort();
	}
	unsigned i = live_hash(p);
	while (live.slot[i].p)
		i = (i + 1) & (LIVE_SLOTS - 1);
	live.slot[i] = (struct live_block){p, caller, ++live.seq};
	live.count++;
	live_unlock();
}

/* Remove p (linear probing, backward-shift deletion: no tombstones). */
static void live_del(void *p)
{
	if (!p)
		return;
	live_lock();
	unsigned i = live_hash(p);
	while (live.slot[i].p && live.slot[i].p != p)
		i = (i + 1) & (LIVE_SLOTS - 1);
	if (!live.slot[i].p) {
		live_unlock();
		__atomic_add_fetch(&inj.foreign, 1, __ATOMIC_RELAXED);
		return;
	}
	live.slot[i].p = NULL;
	live.count--;
	for (unsigned j = (i + 1) & (LIVE_SLOTS - 1); live.slot[j].p; j = (j + 1) & (LIVE_SLOTS - 1)) {
		unsigned home = live_hash(live.slot[j].p);
		/* leave it where it is when its home is cyclically in (i, j] */
		int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (stays)
			continue;
		live.slot[i] = live.slot[j];
		live.slot[j].p = NULL;
		i = j;
	}
	live_unlock();
}

static unsigned live_count(void)
{
	live_lock();
	unsigned n = live.count;
	live_unlock();
	return n;
}

static unsigned long live_seq(void)
{
	live_lock();
	unsigned long s = live.seq;
	live_unlock();
	return s;
}

/* An address as MODULE+0xOFFSET, for addr2line -f -e MODULE OFFSET (the
 * program is not linked with -rdynamic, so dladdr knows no static names). */
static void describe(const void *addr, char *buf, size_t len)
{
	Dl_info info;
	memset(&info, 0, sizeof(info));
	if (!dladdr(addr, &info) || !info.dli_fname) {
		snprintf(buf, len, "%p", addr);
		return;
	}
	const char *name = strrchr(info.dli_fname, '/');
	snprintf(buf, len, "%s+0x%lx", name ? name + 1 : info.dli_fname,
		 (unsigned long)((uintptr_t)addr - (uintptr_t)info.dli_fbase));
}

/* Print the live blocks allocated after seq, with their callers. */
static void live_report(unsigned long after_seq)
{
	live_lock();
	for (unsigned i = 0; i < LIVE_SLOTS; i++) {
		const struct live_block *b = &live.slot[i];
		if (!b->p || b->seq <= after_seq)
			continue;
		char where[128];
		describe((const char *)b->caller - 1, where, sizeof(where)); /* the call, not the return */
		fprintf(stderr, "  live block #%lu %p allocated from %s\n", b->seq, b->p, where);
	}
	live_unlock();
}

static int inject_failure(void *caller)
{
	if (!__atomic_load_n(&inj.armed, __ATOMIC_ACQUIRE))
		return 0;
	unsigned long n = __atomic_add_fetch(&inj.calls, 1, __ATOMIC_RELAXED);
	if (!pthread_equal(pthread_self(), test_thread))
		__atomic_add_fetch(&inj.off_thread, 1, __ATOMIC_RELAXED);
	unsigned long at = __atomic_load_n(&inj.fail_at, __ATOMIC_RELAXED);
	if (!at || n < at || (n > at && !__atomic_load_n(&inj.sticky, __ATOMIC_RELAXED)))
		return 0;
	if (n == at)
		__atomic_store_n(&inj.failed_caller, caller, __ATOMIC_RELAXED);
	__atomic_add_fetch(&inj.failed, 1, __ATOMIC_RELAXED);
	return 1;
}

void *__wrap_malloc(size_t size)
{
	if (inject_failure(__builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = __real_malloc(size);
	live_add(p, __builtin_return_address(0));
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (inject_failure(__builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = __real_calloc(n, size);
	live_add(p, __builtin_return_address(0));
	return p;
}

void *__wrap_realloc(void *p, size_t size)
{
	if (inject_failure(__builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL; /* p stays allocated, as a real failure leaves it */
	}
	void *q = __real_realloc(p, size);
	if (q) {
		live_del(p);
		live_add(q, __builtin_return_address(0));
	}
	return q;
}

int __wrap_posix_memalign(void **p, size_t align, size_t size)
{
	if (inject_failure(__builtin_return_address(0)))
		return ENOMEM;
	int rc = __real_posix_memalign(p, align, size);
	if (!rc)
		live_add(*p, __builtin_return_address(0));
	return rc;
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
	if (inject_failure(__builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = __real_aligned_alloc(align, size);
	live_add(p, __builtin_return_address(0));
	return p;
}

void __wrap_free(void *p)
{
	live_del(p);
	__real_free(p);
}

/* --------------------------------------------------------------- steps -- */

/* What a run found: the step that met the injected failure, and where the
 * allocation points of each step lie (from the run that failed nothing). */
#define MAX_STEPS 160

struct step_info {
	const char *phase;
	const char *call;
	unsigned long first, last; /* armed allocation numbers of the step: (first, last] */
};

struct run {
	unsigned long fail_at;   /* the armed allocation that fails */
	int abandon;             /* sticky pass: stop the bring-up at the failed step */
	const char *phase;
	unsigned nsteps;
	struct step_info steps[MAX_STEPS];
	const char *failed_phase, *failed_call;
	gnio_error_t failed_err;
	char failed_msg[256];
	char failed_site[128];   /* the failed allocation's caller */
};

static struct run *cur;

static void arm(void) { __atomic_store_n(&inj.armed, 1, __ATOMIC_RELEASE); }
static void disarm(void) { __atomic_store_n(&inj.armed, 0, __ATOMIC_RELEASE); }

struct step_mark {
	unsigned long failed, calls, seq;
	unsigned live;
};

static void step_begin(struct step_mark *m)
{
	m->failed = __atomic_load_n(&inj.failed, __ATOMIC_RELAXED);
	m->calls = __atomic_load_n(&inj.calls, __ATOMIC_RELAXED);
	m->live = live_count();
	m->seq = live_seq();
	arm();
}

/* After an armed call: 1 when it met the injected failure (and failed
 * cleanly), 0 when it met none (and succeeded). */
static int step_end(const struct step_mark *m, const char *call, gnio_error_t err)
{
	disarm();
	const unsigned long calls = __atomic_load_n(&inj.calls, __ATOMIC_RELAXED);
	if (cur->nsteps < MAX_STEPS)
		cur->steps[cur->nsteps++] = (struct step_info){cur->phase, call, m->calls, calls};
	if (__atomic_load_n(&inj.failed, __ATOMIC_RELAXED) == m->failed) {
		if (err != GNIO_SUCCESS)
			fail_msg("%s: %s without an injected failure (%s)", call, gnio_error_get_name(err),
				 gnio_last_error_msg());
		return 0;
	}
	/* Only one failure per run: the rest of the run must succeed. */
	__atomic_store_n(&inj.fail_at, 0, __ATOMIC_RELAXED);
	if (err == GNIO_SUCCESS)
		fail_msg("%s: allocation %lu failed but the call succeeded", call, cur->fail_at);
	if (!gnio_last_error_msg()[0])
		fail_msg("%s: %s without a reason in gnio_last_error_msg()", call, gnio_error_get_name(err));
	cur->failed_phase = cur->phase;
	cur->failed_call = call;
	cur->failed_err = err;
	snprintf(cur->failed_msg, sizeof(cur->failed_msg), "%s", gnio_last_error_msg());
	describe((const char *)__atomic_load_n(&inj.failed_caller, __ATOMIC_RELAXED) - 1, cur->failed_site,
		 sizeof(cur->failed_site));
	if (live_count() > m->live) {
		fprintf(stderr, "%s failed (%s) and left %u block(s) behind:\n", call, gnio_error_get_name(err),
			live_count() - m->live);
		live_report(m->seq);
		fail_msg("%s: leaked after allocation %lu (%s) failed", call, cur->fail_at, cur->failed_site);
	}
	return 1;
}

/* Run a library call armed (see the file comment). In the sticky pass a
 * failed step returns -1 from the enclosing function: the caller then tears
 * down what exists. */
#define STEP(call)                                                                                            \
	do {                                                                                                  \
		struct step_mark m_;                                                                          \
		step_begin(&m_);                                                                              \
		gnio_error_t step_err_ = (call);                                                              \
		if (step_end(&m_, #call, step_err_)) {                                                        \
			if (cur->abandon)                                                                     \
				return -1;                                                                    \
			assert_ok(call);                                                                      \
		}                                                                                             \
	} while (0)

/* ------------------------------------------------------------ scenario -- */

#define RING 64u
#define SLOT 2048u
#define BURST 32u
#define FRAME_LEN 128u

struct scen {
	/* sw wires of their own per pass, so a failed pass leaves the next alone */
	char wire[16], wire_spec[64], pl_wire[16], pl_wire_spec[64], pl3_wire_spec[64];
	/* the manual bring-up, call by call */
	struct gnio_gpu *gpu;
	struct gnio_pe *pe;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	struct gnio_flow *wire_flow;
	void *rx_mem, *tx_mem, *stats_mem;
	void *app_buf, *app_buf_gpu; /* the application's memory, registered */
	struct gnio_app_stats *stats_cpu;
	struct gnio_buf_arr *rx_pool, *tx_pool;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	int rxq_started, txq_started;
	struct gnio_gpu_semaphore *sem;
	int sem_started;
	struct gnio_runner *runner;
	int kernel_running;
	int gen_attached;
	struct gnio_app_args args;
	/* the rules parser, on a flow without a wire */
	struct gnio_flow *flow;
	struct gnio_flow_reader *reader;
	uint32_t rule_id;
	/* the pipeline */
	struct gnio_pe *pl_pe;
	struct gnio_pipeline *pl;
	struct gnio_sw_peer *pl_peer;
	struct gnio_app_args pl_args[2];
	int pl_kernels;
	struct gnio_pipeline *pl3;
};

static char rules_path[64];

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void app_args(struct gnio_app_args *a, struct gnio_gpu_eth_rxq *rxh, struct gnio_gpu_eth_txq *txh,
		     struct gnio_app_stats *stats)
{
	memset(a, 0, sizeof(*a));
	a->rxq = rxh;
	a->txq = txh;
	a->stats = stats;
	a->max_batch = 32;
	a->timeout_ns = 100000;
	a->blocks = 1;
	a->threads = 32;
	a->recv_scope = GNIO_APP_SCOPE_BLOCK;
	a->send_scope = GNIO_APP_SCOPE_THREAD;
}

static gnio_runner_launch_fn echo_launcher(void)
{
	const struct gnio_app *app = gnio_app_find("echo");
	assert_non_null(app);
	gnio_runner_launch_fn fn = gnio_app_launcher(app, 1);
	assert_non_null(fn);
	return fn;
}

/* A UDP frame (10.0.0.1:1024 -> 10.0.0.2:9000): none of the rules below
 * matches it, so it stays on the queue it arrived on. */
static uint32_t test_frame(uint8_t *buf, uint32_t cap, uint64_t seq)
{
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.frame_size = FRAME_LEN;
	return gnio_gen_build(&g, seq, buf, cap);
}

/* Send one frame on queue q and wait for the echo kernel to send it back. */
static void echo_through(struct gnio_sw_peer *peer, uint16_t q)
{
	uint8_t frame[256], back[256];
	uint32_t len = test_frame(frame, sizeof(frame), 1), got = 0;
	assert_int_equal(len, FRAME_LEN);
	assert_ok(gnio_sw_peer_send(peer, q, frame, len));
	uint64_t end = test_now_ns() + 5000000000ull;
	gnio_error_t e;
	while ((e = gnio_sw_peer_recv(peer, q, back, sizeof(back), &got, NULL)) == GNIO_ERROR_EMPTY &&
	       test_now_ns() < end)
		sleep_ms(1);
	assert_gnio(e, GNIO_SUCCESS);
	assert_int_equal(got, FRAME_LEN);
	/* echo swaps the MAC addresses and nothing else */
	assert_memory_equal(back, frame + 6, 6);
	assert_memory_equal(back + 12, frame + 12, FRAME_LEN - 12);
}

static int gen_finished(void *arg)
{
	struct scen *s = arg;
	return gnio_sw_peer_gen_done(s->peer, 0) && gnio_load_acquire_u64(&s->stats_cpu->packets) >= 3;
}

static int manual_up(struct scen *s)
{
	STEP(gnio_gpu_create("cpu", &s->gpu));
	STEP(gnio_pe_create(&s->pe));
	STEP(gnio_dev_open(s->wire_spec, &s->dev));
	STEP(gnio_sw_peer_open(s->wire, &s->peer));
	STEP(gnio_flow_create(s->dev, &s->wire_flow));
	STEP(gnio_flow_load_string(s->wire_flow, "tcp dport 7 -> drop\nudp dport 9 -> queue 1\n", "manual"));

	STEP(gnio_gpu_mem_alloc(s->gpu, (size_t)RING * SLOT, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &s->rx_mem, NULL));
	STEP(gnio_buf_arr_create(s->gpu, s->rx_mem, SLOT, RING, &s->rx_pool));
	STEP(gnio_buf_arr_start(s->rx_pool));
	STEP(gnio_eth_rxq_create(s->dev, BURST, SLOT, &s->rxq));
	STEP(gnio_eth_rxq_set_num_packets(s->rxq, RING));
	STEP(gnio_eth_rxq_set_pkt_buf(s->rxq, s->rx_pool));
	STEP(gnio_pe_connect_ctx(s->pe, gnio_eth_rxq_as_ctx(s->rxq)));
	STEP(gnio_ctx_set_datapath_on_gpu(gnio_eth_rxq_as_ctx(s->rxq), s->gpu));
	STEP(gnio_ctx_start(gnio_eth_rxq_as_ctx(s->rxq)));
	s->rxq_started = 1;
	struct gnio_gpu_eth_rxq *rxh;
	STEP(gnio_eth_rxq_get_gpu_handle(s->rxq, &rxh));

	/* device memory: the TX proxy then stages frames out of it */
	STEP(gnio_gpu_mem_alloc(s->gpu, (size_t)RING * SLOT, 4096, GNIO_GPU_MEM_TYPE_GPU, &s->tx_mem, NULL));
	STEP(gnio_buf_arr_create(s->gpu, s->tx_mem, SLOT, RING, &s->tx_pool));
	STEP(gnio_buf_arr_start(s->tx_pool));
	STEP(gnio_eth_txq_create(s->dev, BURST, &s->txq));
	STEP(gnio_eth_txq_set_num_packets(s->txq, RING));
	STEP(gnio_eth_txq_set_pkt_buf(s->txq, s->tx_pool));
	STEP(gnio_eth_txq_add_buf_arr(s->txq, s->rx_pool));
	STEP(gnio_pe_connect_ctx(s->pe, gnio_eth_txq_as_ctx(s->txq)));
	STEP(gnio_ctx_set_datapath_on_gpu(gnio_eth_txq_as_ctx(s->txq), s->gpu));
	STEP(gnio_ctx_start(gnio_eth_txq_as_ctx(s->txq)));
	s->txq_started = 1;
	struct gnio_gpu_eth_txq *txh;
	STEP(gnio_eth_txq_get_gpu_handle(s->txq, &txh));

	s->app_buf = aligned_alloc(4096, 4096); /* unarmed: the application's, not the library's */
	assert_non_null(s->app_buf);
	STEP(gnio_gpu_mem_register(s->gpu, s->app_buf, 4096, &s->app_buf_gpu, NULL));

	STEP(gnio_gpu_semaphore_create(s->gpu, &s->sem));
	STEP(gnio_gpu_semaphore_set_items_num(s->sem, 16));
	STEP(gnio_gpu_semaphore_start(s->sem));
	s->sem_started = 1;

	void *stats_cpu;
	STEP(gnio_gpu_mem_alloc(s->gpu, sizeof(struct gnio_app_stats), GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU,
				&s->stats_mem, &stats_cpu));
	s->stats_cpu = stats_cpu;
	STEP(gnio_runner_create(s->gpu, &s->runner));
	app_args(&s->args, rxh, txh, s->stats_mem);
	STEP(gnio_runner_start(s->runner, echo_launcher(), &s->args));
	s->kernel_running = 1;

	/* The queues, pools and kernel work, whatever failed on the way. */
	echo_through(s->peer, 0);
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.frame_size = FRAME_LEN;
	g.count = 2;
	g.first_seq = 100;
	STEP(gnio_sw_peer_gen_attach(s->peer, 0, &g));
	s->gen_attached = 1;
	assert_true(wait_until(gen_finished, s, 5000));
	return 0;
}

static int flow_rules(struct scen *s)
{
	struct gnio_flow_rule rule;
	int is_default = 0;
	STEP(gnio_flow_create(NULL, &s->flow));
	STEP(gnio_flow_rule_parse("ipv4 udp dport 4791-4800 -> rss 0,1", &rule, &is_default));
	assert_false(is_default);
	STEP(gnio_flow_rule_add(s->flow, &rule, &s->rule_id));
	STEP(gnio_flow_load_string(s->flow, "# text\narp -> kernel\nvlan 5 -> queue 2\ndefault -> drop\n", "text"));
	STEP(gnio_flow_load_file(s->flow, rules_path));
	uint32_t first_id;
	STEP(gnio_flow_rule_insert(s->flow, 0, &rule, &first_id));
	STEP(gnio_flow_reader_create(s->flow, 3, &s->reader));
	uint8_t frame[256];
	struct gnio_flow_frame f = {frame, test_frame(frame, sizeof(frame), 7)};
	struct gnio_flow_result res;
	gnio_flow_classify(s->reader, &f, 1, &res);
	assert_int_equal(res.action, GNIO_FLOW_ACTION_DROP); /* the text's default */
	uint64_t hits = 0;
	STEP(gnio_flow_rule_remove(s->flow, first_id, &hits));
	struct gnio_flow_action a = {.type = GNIO_FLOW_ACTION_GNIO};
	STEP(gnio_flow_set_default(s->flow, &a));
	uint32_t count = 0;
	STEP(gnio_flow_get_rule_count(s->flow, &count));
	assert_int_equal(count, 5); /* the added rule, 2 from the text, 2 from the file */
	return 0;
}

static int pipeline_up(struct scen *s)
{
	struct gnio_pipeline_cfg c;
	gnio_pipeline_cfg_init(&c, s->pl_wire_spec, "cpu");
	c.queues = 2;
	c.ring = RING;
	c.slot = SLOT;
	c.burst = BURST;
	c.tx = 1;
	c.tx_pool = 1;
	c.tx_in_place = 1;
	c.tx_ring = RING;
	c.user_mem = sizeof(struct gnio_app_stats);
	c.flow_rules = "udp dport 9 -> queue 1\n";
	STEP(gnio_pe_create(&s->pl_pe));
	c.pe = s->pl_pe;
	STEP(gnio_pipeline_create(&c, &s->pl));
	STEP(gnio_sw_peer_open(s->pl_wire, &s->pl_peer));
	for (uint32_t i = 0; i < 2; i++) {
		struct gnio_pipeline_queue q;
		assert_ok(gnio_pipeline_get_queue(s->pl, i, &q));
		app_args(&s->pl_args[i], q.rxh, q.txh, q.user_mem_gpu);
		STEP(gnio_pipeline_launch(s->pl, i, echo_launcher(), &s->pl_args[i]));
		s->pl_kernels++;
	}
	echo_through(s->pl_peer, 0);
	echo_through(s->pl_peer, 1);
	return 0;
}

static int pipeline3_up(struct scen *s)
{
	struct gnio_pipeline_cfg c;
	/* Three queues with TX queues but no TX pools: the 17th object the
	 * pipeline registers for rollback is queue 2's kernel memory, where
	 * the rollback's list grows. */
	gnio_pipeline_cfg_init(&c, s->pl3_wire_spec, "cpu");
	c.queues = 3;
	c.ring = RING;
	c.slot = SLOT;
	c.burst = BURST;
	c.tx = 1;
	c.tx_in_place = 1;
	c.tx_ring = RING;
	c.user_mem = sizeof(struct gnio_app_stats);
	STEP(gnio_pipeline_create(&c, &s->pl3));
	return 0;
}

/* Tear down whatever exists, newest first; each object is forgotten once it
 * is gone, so an abandoned teardown can be resumed. */
static int teardown(struct scen *s)
{
	cur->phase = "teardown";
	if (s->pl3) {
		STEP(gnio_pipeline_destroy(s->pl3));
		s->pl3 = NULL;
	}
	if (s->pl_peer) {
		STEP(gnio_sw_peer_close(s->pl_peer));
		s->pl_peer = NULL;
	}
	if (s->pl) {
		/* the rollback stops the kernels, then frees and re-verifies */
		STEP(gnio_pipeline_destroy(s->pl));
		s->pl = NULL;
		s->pl_kernels = 0;
	}
	if (s->pl_pe) {
		STEP(gnio_pe_destroy(s->pl_pe));
		s->pl_pe = NULL;
	}
	if (s->reader) {
		STEP(gnio_flow_reader_destroy(s->reader));
		s->reader = NULL;
	}
	if (s->flow) {
		STEP(gnio_flow_destroy(s->flow));
		s->flow = NULL;
	}
	if (s->gen_attached) {
		STEP(gnio_sw_peer_gen_detach(s->peer, 0));
		s->gen_attached = 0;
	}
	if (s->kernel_running) {
		STEP(gnio_runner_stop(s->runner, 5000));
		s->kernel_running = 0;
	}
	if (s->runner) {
		STEP(gnio_runner_destroy(s->runner));
		s->runner = NULL;
	}
	if (s->stats_mem) {
		STEP(gnio_gpu_mem_free(s->gpu, s->stats_mem));
		s->stats_mem = NULL;
	}
	if (s->sem_started) {
		STEP(gnio_gpu_semaphore_stop(s->sem));
		s->sem_started = 0;
	}
	if (s->sem) {
		STEP(gnio_gpu_semaphore_destroy(s->sem));
		s->sem = NULL;
	}
	if (s->app_buf_gpu) {
		STEP(gnio_gpu_mem_unregister(s->gpu, s->app_buf_gpu));
		s->app_buf_gpu = NULL;
	}
	free(s->app_buf);
	s->app_buf = NULL;
	if (s->txq_started) {
		STEP(gnio_ctx_stop(gnio_eth_txq_as_ctx(s->txq)));
		s->txq_started = 0;
	}
	if (s->rxq_started) {
		STEP(gnio_ctx_stop(gnio_eth_rxq_as_ctx(s->rxq)));
		s->rxq_started = 0;
	}
	if (s->txq) {
		STEP(gnio_eth_txq_destroy(s->txq));
		s->txq = NULL;
	}
	if (s->rxq) {
		STEP(gnio_eth_rxq_destroy(s->rxq));
		s->rxq = NULL;
	}
	if (s->tx_pool) {
		STEP(gnio_buf_arr_destroy(s->tx_pool));
		s->tx_pool = NULL;
	}
	if (s->rx_pool) {
		STEP(gnio_buf_arr_destroy(s->rx_pool));
		s->rx_pool = NULL;
	}
	if (s->tx_mem) {
		STEP(gnio_gpu_mem_free(s->gpu, s->tx_mem));
		s->tx_mem = NULL;
	}
	if (s->rx_mem) {
		STEP(gnio_gpu_mem_free(s->gpu, s->rx_mem));
		s->rx_mem = NULL;
	}
	if (s->wire_flow) {
		STEP(gnio_flow_destroy(s->wire_flow));
		s->wire_flow = NULL;
	}
	if (s->peer) {
		STEP(gnio_sw_peer_close(s->peer));
		s->peer = NULL;
	}
	if (s->dev) {
		STEP(gnio_dev_close(s->dev));
		s->dev = NULL;
	}
	if (s->pe) {
		STEP(gnio_pe_destroy(s->pe));
		s->pe = NULL;
	}
	if (s->gpu) {
		STEP(gnio_gpu_destroy(s->gpu));
		s->gpu = NULL;
	}
	return 0;
}

/* The scenario in parts, each brought up and then torn down completely, so
 * a part allocates the same way whatever ran before it: allocation N of a
 * part is found by running that part alone. */
static const struct part {
	const char *name;
	int (*up)(struct scen *s);
} parts[] = {
	{"manual bring-up", manual_up},
	{"flow rules", flow_rules},
	{"pipeline", pipeline_up},
	{"pipeline, 3 queues", pipeline3_up},
};
#define NUM_PARTS (sizeof(parts) / sizeof(parts[0]))

/* ---------------------------------------------------------------- runs -- */

/* One run of a part with its allocation fail_at failing; returns 1 when an
 * allocation failed (there may be a next point), 0 when none did. */
static int one_run(struct run *r, const struct part *part, unsigned long fail_at, int sticky)
{
	struct scen s;
	memset(&s, 0, sizeof(s));
	const char *mode = sticky ? "sticky" : "once";
	snprintf(s.wire, sizeof(s.wire), "af_%s", mode);
	snprintf(s.wire_spec, sizeof(s.wire_spec), "sw:%s,queues=2,depth=64", s.wire);
	snprintf(s.pl_wire, sizeof(s.pl_wire), "af_pl_%s", mode);
	snprintf(s.pl_wire_spec, sizeof(s.pl_wire_spec), "sw:%s,queues=2,depth=64", s.pl_wire);
	snprintf(s.pl3_wire_spec, sizeof(s.pl3_wire_spec), "sw:af_pl3_%s,queues=3,depth=64", mode);
	cur = r;
	r->fail_at = fail_at;
	r->phase = part->name;
	__atomic_store_n(&inj.calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&inj.sticky, sticky, __ATOMIC_RELAXED);
	__atomic_store_n(&inj.fail_at, fail_at, __ATOMIC_RELAXED);
	const unsigned long failed_before = __atomic_load_n(&inj.failed, __ATOMIC_RELAXED);
	const unsigned live_before = live_count();
	const unsigned long seq_before = live_seq();

	if (part->up(&s) || teardown(&s)) {
		/* abandoned at the failed step: take down what exists */
		assert_true(r->abandon);
		assert_int_equal(teardown(&s), 0);
	}
	const int failed = __atomic_load_n(&inj.failed, __ATOMIC_RELAXED) != failed_before;
	if (live_count() != live_before) {
		fprintf(stderr, "%s, fail_at %lu (%s): %u block(s) still live after the teardown:\n", part->name,
			fail_at, r->failed_call ? r->failed_call : "nothing failed", live_count() - live_before);
		live_report(seq_before);
		fail_msg("%s, fail_at %lu: leak after the teardown", part->name, fail_at);
	}
	assert_int_equal(__atomic_load_n(&inj.foreign, __ATOMIC_RELAXED), 0);
	return failed;
}

/* The one call that may fail with another code: gnio_pipeline_destroy says
 * BAD_STATE (the pipeline stays valid; call it again) when its rollback
 * stopped at step 5, whose trial restart of the queues allocates. */
static int other_code_ok(const struct run *r)
{
	return r->failed_err == GNIO_ERROR_BAD_STATE && !strncmp(r->failed_call, "gnio_pipeline_destroy(", 22) &&
	       strstr(r->failed_msg, "step 5") && strstr(r->failed_msg, "NO_MEMORY");
}

static void pass(int sticky)
{
	static struct run r;
	const char *mode = sticky ? "sticky" : "once";
	unsigned long total = 0;
	unsigned other = 0;
	for (unsigned k = 0; k < NUM_PARTS; k++) {
		unsigned long n;
		for (n = 1;; n++) {
			/* far above a part's points: more means runs that never end */
			assert_true(n < 5000);
			memset(&r, 0, sizeof(r));
			r.abandon = sticky;
			if (!one_run(&r, &parts[k], n, sticky))
				break;
			printf("[%s] %3lu %-18s %s %s at %s\n", mode, total + n, r.failed_phase, r.failed_call,
			       gnio_error_get_name(r.failed_err), r.failed_site);
			if (r.failed_err != GNIO_ERROR_NO_MEMORY && !other_code_ok(&r)) {
				printf("        unexpected %s: %s\n", gnio_error_get_name(r.failed_err), r.failed_msg);
				other++;
			}
		}
		/* r is the run that failed nothing: where the part's points lie */
		unsigned long up = 0, down = 0;
		for (unsigned i = 0; i < r.nsteps; i++) {
			const unsigned long in_step = r.steps[i].last - r.steps[i].first;
			if (strcmp(r.steps[i].phase, "teardown"))
				up += in_step;
			else
				down += in_step;
		}
		assert_true(r.nsteps < MAX_STEPS);
		assert_int_equal(up + down, n - 1); /* the part allocates the same way every run */
		assert_true(up > 0);
		printf("[%s] %-18s %3lu allocation points: %lu in the bring-up, %lu in the teardown\n", mode,
		       parts[k].name, n - 1, up, down);
		total += n - 1;
	}
	printf("[%s] %lu allocation points, each failed in turn (armed calls on other threads: %lu)\n", mode, total,
	       __atomic_load_n(&inj.off_thread, __ATOMIC_RELAXED));
	assert_int_equal(other, 0);
}

static void test_fail_once_and_retry(void **state)
{
	(void)state;
	pass(0);
}

static void test_fail_sticky_and_abandon(void **state)
{
	(void)state;
	pass(1);
}

/* The wrappers see the library's allocations, or the passes prove nothing. */
static void test_wrappers_see_library(void **state)
{
	(void)state;
	struct run r;
	memset(&r, 0, sizeof(r));
	cur = &r;
	r.phase = "self-check";
	const unsigned before = live_count();
	struct gnio_gpu *gpu = NULL;
	__atomic_store_n(&inj.fail_at, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&inj.calls, 0, __ATOMIC_RELAXED);
	arm();
	assert_gnio(gnio_gpu_create("cpu", &gpu), GNIO_ERROR_NO_MEMORY);
	disarm();
	assert_null(gpu);
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_int_equal(live_count(), before + 1);
	assert_ok(gnio_gpu_destroy(gpu));
	assert_int_equal(live_count(), before);
}

static int write_rules_file(void **state)
{
	(void)state;
	snprintf(rules_path, sizeof(rules_path), "/tmp/gnio_alloc_fail_XXXXXX");
	int fd = mkstemp(rules_path);
	if (fd < 0)
		return -1;
	static const char text[] = "icmp -> kernel\nipv6 tcp sport 1-1024 -> cpu 0\n";
	ssize_t w = write(fd, text, sizeof(text) - 1);
	close(fd);
	return w == (ssize_t)sizeof(text) - 1 ? 0 : -1;
}

static int remove_rules_file(void **state)
{
	(void)state;
	unlink(rules_path);
	return 0;
}

int main(void)
{
#if defined(__SANITIZE_THREAD__)
	/* TSan's allocator interceptors and the link-time wrappers have not been
	 * proven together; ASan and the plain build run it. */
	printf("skip: not run under ThreadSanitizer\n");
	return 77;
#endif
	test_thread = pthread_self();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrappers_see_library),
		cmocka_unit_test(test_fail_once_and_retry),
		cmocka_unit_test(test_fail_sticky_and_abandon),
	};
	return cmocka_run_group_tests(tests, write_rules_file, remove_rules_file);
}
