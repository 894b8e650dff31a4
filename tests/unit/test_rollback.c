/* SPDX-License-Identifier: MIT */
/* tests/unit/test_rollback.c - gnio_rollback_run (gnio/rollback.h): the five
 * steps in order with a reusable parent queue afterwards, fail-closed on a
 * hung kernel and resume, resume after a refused step, and wrong use. All on
 * the CPU device over sw wires. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "testutil.h"

#define ST(q) gnio_eth_rxq_as_ctx(q)
#define TT(q) gnio_eth_txq_as_ctx(q)

struct steps {
	unsigned n;
	unsigned step[32];
	gnio_error_t err[32];
	char text[32][320];
};

static void on_step(void *user, unsigned step, gnio_error_t err, const char *text)
{
	struct steps *s = user;
	assert_non_null(text);
	assert_null(strchr(text, '\n'));
	if (s->n < 32) {
		s->step[s->n] = step;
		s->err[s->n] = err;
		snprintf(s->text[s->n], sizeof(s->text[0]), "%s", text);
		s->n++;
	}
}

static void assert_five_ok(const struct steps *s, unsigned from)
{
	for (unsigned i = 0; i < 5; i++) {
		if (s->step[from + i] != i + 1 || s->err[from + i] != GNIO_SUCCESS)
			fail_msg("callback %u: step %u %s (%s), expected step %u ok", from + i, s->step[from + i],
				 gnio_error_get_name(s->err[from + i]), s->text[from + i], i + 1);
	}
}

/* This test hands every object to a rollback itself, so it builds them by
 * hand (not with gnio_pipeline_create, which registers them in a rollback of
 * its own): the same order, in the same struct the other tests use. */
static void up(struct tpipe *p, const char *wire, int with_tx)
{
	void *cpu;
	memset(p, 0, sizeof(*p));
	assert_ok(gnio_dev_open(wire, &p->dev));
	assert_ok(gnio_gpu_create("cpu", &p->gpu));
	assert_ok(gnio_sw_peer_open(strchr(wire, ':') + 1, &p->peer));
	assert_ok(gnio_gpu_mem_alloc(p->gpu, 64 * 2048, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &p->rx_mem, &cpu));
	assert_ok(gnio_buf_arr_create(p->gpu, p->rx_mem, 2048, 64, &p->rx_pool));
	assert_ok(gnio_buf_arr_start(p->rx_pool));
	assert_ok(gnio_eth_rxq_create(p->dev, 64, 2048, &p->rxq));
	assert_ok(gnio_eth_rxq_set_num_packets(p->rxq, 64));
	assert_ok(gnio_eth_rxq_set_pkt_buf(p->rxq, p->rx_pool));
	assert_ok(gnio_ctx_set_datapath_on_gpu(ST(p->rxq), p->gpu));
	assert_ok(gnio_ctx_start(ST(p->rxq)));
	assert_ok(gnio_eth_rxq_get_gpu_handle(p->rxq, &p->rxh));
	if (with_tx) {
		assert_ok(gnio_gpu_mem_alloc(p->gpu, 64 * 2048, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &p->tx_mem, &cpu));
		assert_ok(gnio_buf_arr_create(p->gpu, p->tx_mem, 2048, 64, &p->tx_pool));
		assert_ok(gnio_buf_arr_start(p->tx_pool));
		assert_ok(gnio_eth_txq_create(p->dev, 64, &p->txq));
		assert_ok(gnio_eth_txq_set_num_packets(p->txq, 64));
		assert_ok(gnio_eth_txq_set_pkt_buf(p->txq, p->tx_pool));
		assert_ok(gnio_ctx_set_datapath_on_gpu(TT(p->txq), p->gpu));
		assert_ok(gnio_ctx_start(TT(p->txq)));
		assert_ok(gnio_eth_txq_get_gpu_handle(p->txq, &p->txh));
	}
	assert_ok(gnio_gpu_mem_alloc(p->gpu, sizeof(struct gnio_app_stats), GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU,
				     &p->stats_mem, &cpu));
	p->stats_gpu = p->stats_mem;
	p->stats_cpu = cpu;
	p->args.rxq = p->rxh;
	p->args.txq = p->txh;
	p->args.stats = p->stats_gpu;
	p->args.max_batch = 64;
	p->args.recv_scope = GNIO_APP_SCOPE_BLOCK;
	assert_ok(gnio_runner_create(p->gpu, &p->runner));
}

/* Register a tpipe's objects in the order tpipe_up created them. */
static void register_all(struct gnio_rollback *rb, struct tpipe *p)
{
	assert_ok(gnio_rollback_add_mem(rb, p->rx_mem));
	assert_ok(gnio_rollback_add_buf_arr(rb, p->rx_pool));
	assert_ok(gnio_rollback_add_rxq(rb, p->rxq));
	if (p->txq) {
		assert_ok(gnio_rollback_add_mem(rb, p->tx_mem));
		assert_ok(gnio_rollback_add_buf_arr(rb, p->tx_pool));
		assert_ok(gnio_rollback_add_txq(rb, p->txq));
	}
	assert_ok(gnio_rollback_add_mem(rb, p->stats_mem));
	assert_ok(gnio_rollback_add_runner(rb, p->runner));
}

/* After a complete rollback only the queues, wire and device remain. */
static void destroy_parents(struct tpipe *p)
{
	if (p->txq)
		assert_ok(gnio_eth_txq_destroy(p->txq));
	assert_ok(gnio_eth_rxq_destroy(p->rxq));
	assert_ok(gnio_sw_peer_close(p->peer));
	assert_ok(gnio_dev_close(p->dev));
	/* Succeeds only when nothing (memory, array, runner, queue) is left. */
	assert_ok(gnio_gpu_destroy(p->gpu));
	memset(p, 0, sizeof(*p));
}

static void send_one(struct tpipe *p, uint64_t seq)
{
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	uint8_t frame[256];
	uint32_t len = gnio_gen_build(&g, seq, frame, sizeof(frame));
	assert_true(len > 0);
	assert_ok(gnio_sw_peer_send(p->peer, 0, frame, len));
}

static void test_rollback_five_steps_then_reuse(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:rb_ok", 1);
	assert_ok(tpipe_launch(&p, "count"));
	send_one(&p, 1);
	assert_true(tpipe_wait_packets(&p, 1, 10000));

	struct gnio_rollback *rb;
	struct steps s = {0};
	assert_ok(gnio_rollback_create(p.gpu, &rb));
	assert_ok(gnio_rollback_set_step_cb(rb, on_step, &s));
	register_all(rb, &p);
	unsigned next = 0;
	assert_ok(gnio_rollback_get_next_step(rb, &next));
	assert_int_equal(next, 1);

	struct gnio_gpu_semaphore *sem;
	assert_ok(gnio_gpu_semaphore_create(p.gpu, &sem));
	assert_ok(gnio_gpu_semaphore_set_items_num(sem, 4));
	assert_ok(gnio_gpu_semaphore_set_custom_info(sem, 16, GNIO_GPU_MEM_TYPE_CPU_GPU));
	assert_ok(gnio_gpu_semaphore_start(sem));
	assert_ok(gnio_rollback_add_semaphore(rb, sem));

	assert_ok(gnio_rollback_run(rb, 5000));
	assert_int_equal(s.n, 5);
	assert_five_ok(&s, 0);
	assert_ok(gnio_rollback_get_next_step(rb, &next));
	assert_int_equal(next, GNIO_ROLLBACK_DONE);
	assert_non_null(strstr(s.text[4], "2 queue(s) stopped and restartable"));

	/* Completed: a second run and late registration are refused. */
	assert_gnio(gnio_rollback_run(rb, 5000), GNIO_ERROR_BAD_STATE);
	assert_int_equal(s.n, 5);
	assert_gnio(gnio_rollback_add_rxq(rb, p.rxq), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_rollback_destroy(rb));

	/* Everything registered is gone; the parent queues are STOPPED. */
	p.runner = NULL;
	p.rx_pool = p.tx_pool = NULL;
	p.rx_mem = p.tx_mem = p.stats_mem = NULL;
	enum gnio_ctx_state st;
	assert_ok(gnio_ctx_get_state(ST(p.rxq), &st));
	assert_int_equal(st, GNIO_CTX_STATE_STOPPED);
	assert_ok(gnio_ctx_get_state(TT(p.txq), &st));
	assert_int_equal(st, GNIO_CTX_STATE_STOPPED);
	struct gnio_gpu_eth_rxq *h;
	assert_gnio(gnio_eth_rxq_get_gpu_handle(p.rxq, &h), GNIO_ERROR_BAD_STATE);

	/* Reuse the parent rxq: new pool, start, new kernel, one frame. */
	void *cpu, *scpu;
	assert_ok(gnio_gpu_mem_alloc(p.gpu, 64 * 2048, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &p.rx_mem, &cpu));
	assert_ok(gnio_buf_arr_create(p.gpu, p.rx_mem, 2048, 64, &p.rx_pool));
	assert_ok(gnio_buf_arr_start(p.rx_pool));
	assert_ok(gnio_eth_rxq_set_pkt_buf(p.rxq, p.rx_pool));
	assert_ok(gnio_ctx_start(ST(p.rxq)));
	assert_ok(gnio_eth_rxq_get_gpu_handle(p.rxq, &p.rxh));
	assert_ok(gnio_gpu_mem_alloc(p.gpu, sizeof(struct gnio_app_stats), 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &p.stats_mem,
				     &scpu));
	memset(scpu, 0, sizeof(struct gnio_app_stats));
	p.stats_gpu = p.stats_mem;
	p.stats_cpu = scpu;
	p.args.rxq = p.rxh;
	p.args.txq = NULL;
	p.args.stats = p.stats_gpu;
	assert_ok(gnio_runner_create(p.gpu, &p.runner));
	assert_ok(tpipe_launch(&p, "count"));
	send_one(&p, 2);
	assert_true(tpipe_wait_packets(&p, 1, 10000));
	struct gnio_eth_rxq_stats rs;
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &rs));
	assert_true(rs.rx_packets >= 2); /* counters survive the stop: one before, one after */

	/* And roll the second life back the same way. */
	struct steps s2 = {0};
	assert_ok(gnio_rollback_create(p.gpu, &rb));
	assert_ok(gnio_rollback_set_step_cb(rb, on_step, &s2));
	assert_ok(gnio_rollback_add_mem(rb, p.rx_mem));
	assert_ok(gnio_rollback_add_buf_arr(rb, p.rx_pool));
	assert_ok(gnio_rollback_add_rxq(rb, p.rxq));
	assert_ok(gnio_rollback_add_mem(rb, p.stats_mem));
	assert_ok(gnio_rollback_add_runner(rb, p.runner));
	assert_ok(gnio_rollback_run(rb, 5000));
	assert_int_equal(s2.n, 5);
	assert_five_ok(&s2, 0);
	assert_ok(gnio_rollback_destroy(rb));
	destroy_parents(&p);
}

static int hung_release; /* the test sets it to let the hung kernel go */
static int hung_entered;

static gnio_error_t hung_kernel(const struct gnio_runner_launch *l)
{
	(void)l;
	__atomic_store_n(&hung_entered, 1, __ATOMIC_RELEASE);
	/* Ignores the stop flag until the test lets it go. */
	while (!__atomic_load_n(&hung_release, __ATOMIC_ACQUIRE)) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return GNIO_SUCCESS;
}

static int entered(void *arg)
{
	(void)arg;
	return __atomic_load_n(&hung_entered, __ATOMIC_ACQUIRE);
}

static void test_rollback_hung_kernel_fails_closed_then_resumes(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:rb_hung", 1);
	__atomic_store_n(&hung_release, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&hung_entered, 0, __ATOMIC_RELEASE);
	assert_ok(gnio_runner_start(p.runner, hung_kernel, NULL));
	assert_true(wait_until(entered, NULL, 5000));

	struct gnio_rollback *rb;
	struct steps s = {0};
	assert_ok(gnio_rollback_create(p.gpu, &rb));
	assert_ok(gnio_rollback_set_step_cb(rb, on_step, &s));
	register_all(rb, &p);

	uint64_t t0 = test_now_ns();
	assert_gnio(gnio_rollback_run(rb, 200), GNIO_ERROR_TIME_OUT);
	assert_true(test_now_ns() - t0 >= 199ull * 1000000ull); /* it waited for the deadline */
	assert_int_equal(s.n, 1);
	assert_int_equal(s.step[0], 1);
	assert_int_equal(s.err[0], GNIO_ERROR_TIME_OUT);
	assert_non_null(strstr(s.text[0], "failing closed"));
	assert_non_null(strstr(gnio_last_error_msg(), "rollback step 1"));
	unsigned next = 0;
	assert_ok(gnio_rollback_get_next_step(rb, &next));
	assert_int_equal(next, 1);

	/* Nothing was touched: the runner is hung, memory and arrays held, queues started. */
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_HUNG);
	assert_gnio(gnio_gpu_mem_free(p.gpu, p.rx_mem), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_gpu_mem_free(p.gpu, p.stats_mem), GNIO_ERROR_BAD_STATE);
	struct gnio_gpu_buf_arr *ah;
	assert_ok(gnio_buf_arr_get_gpu_handle(p.rx_pool, &ah));
	assert_ok(gnio_buf_arr_get_gpu_handle(p.tx_pool, &ah));
	assert_int_equal(gnio_buf_arr_get_num_elem(p.tx_pool), 64);
	enum gnio_ctx_state st;
	assert_ok(gnio_ctx_get_state(ST(p.rxq), &st));
	assert_int_equal(st, GNIO_CTX_STATE_STARTED);
	assert_ok(gnio_ctx_get_state(TT(p.txq), &st));
	assert_int_equal(st, GNIO_CTX_STATE_STARTED);
	/* Registration is closed once a run began, even a failed one. */
	assert_gnio(gnio_rollback_add_mem(rb, p.rx_mem), GNIO_ERROR_BAD_STATE);

	/* Still hung: a second short run fails closed again. */
	assert_gnio(gnio_rollback_run(rb, 20), GNIO_ERROR_TIME_OUT);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.err[1], GNIO_ERROR_TIME_OUT);

	/* The kernel finally finishes: the same object resumes and completes. */
	__atomic_store_n(&hung_release, 1, __ATOMIC_RELEASE);
	assert_ok(gnio_rollback_run(rb, 10000));
	assert_int_equal(s.n, 7);
	assert_five_ok(&s, 2);
	assert_ok(gnio_rollback_get_next_step(rb, &next));
	assert_int_equal(next, GNIO_ROLLBACK_DONE);
	assert_ok(gnio_rollback_destroy(rb));
	destroy_parents(&p);
}

/* A library ordering rule refuses step 2 (a newer, unregistered array still
 * exists): the run stops there, resumable; nothing after step 2 happened. */
static void test_rollback_refused_step_resumes(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:rb_order", 1);
	assert_ok(tpipe_launch(&p, "count"));
	struct gnio_rollback *rb;
	struct steps s = {0};
	assert_ok(gnio_rollback_create(p.gpu, &rb));
	assert_ok(gnio_rollback_set_step_cb(rb, on_step, &s));
	assert_ok(gnio_rollback_add_mem(rb, p.rx_mem));
	assert_ok(gnio_rollback_add_buf_arr(rb, p.rx_pool));
	assert_ok(gnio_rollback_add_rxq(rb, p.rxq));
	assert_ok(gnio_rollback_add_mem(rb, p.stats_mem));
	assert_ok(gnio_rollback_add_runner(rb, p.runner));

	assert_gnio(gnio_rollback_run(rb, 5000), GNIO_ERROR_BAD_STATE);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.step[0], 1);
	assert_int_equal(s.err[0], GNIO_SUCCESS);
	assert_int_equal(s.step[1], 2);
	assert_int_equal(s.err[1], GNIO_ERROR_BAD_STATE);
	unsigned next = 0;
	assert_ok(gnio_rollback_get_next_step(rb, &next));
	assert_int_equal(next, 2);
	enum gnio_ctx_state st;
	assert_ok(gnio_ctx_get_state(ST(p.rxq), &st));
	assert_int_equal(st, GNIO_CTX_STATE_STARTED); /* step 3 did not run */

	/* The application removes the newer array; the run resumes at step 2. */
	assert_ok(gnio_ctx_stop(TT(p.txq)));
	assert_ok(gnio_buf_arr_destroy(p.tx_pool));
	assert_ok(gnio_gpu_mem_free(p.gpu, p.tx_mem));
	assert_ok(gnio_rollback_run(rb, 5000));
	assert_int_equal(s.n, 6);
	for (unsigned i = 2; i < 6; i++) {
		assert_int_equal(s.step[i], i);
		assert_int_equal(s.err[i], GNIO_SUCCESS);
	}
	/* The txq was not registered, so step 5 did not trial-start it: it is
	 * still STOPPED as the application left it. */
	assert_ok(gnio_ctx_get_state(TT(p.txq), &st));
	assert_int_equal(st, GNIO_CTX_STATE_STOPPED);
	assert_ok(gnio_rollback_destroy(rb));
	destroy_parents(&p);
}

static void test_rollback_wrong_use(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:rb_wrong", 0);
	struct gnio_rollback *rb = NULL;
	unsigned next;

	assert_gnio(gnio_rollback_create(NULL, &rb), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_create(p.gpu, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_destroy(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_run(NULL, 100), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_set_step_cb(NULL, on_step, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_get_next_step(NULL, &next), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_runner(NULL, p.runner), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_buf_arr(NULL, p.rx_pool), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_rxq(NULL, p.rxq), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_txq(NULL, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_semaphore(NULL, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_mem(NULL, p.rx_mem), GNIO_ERROR_INVALID_VALUE);

	assert_ok(gnio_rollback_create(p.gpu, &rb));
	assert_gnio(gnio_rollback_get_next_step(rb, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_runner(rb, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_buf_arr(rb, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_rxq(rb, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_txq(rb, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_semaphore(rb, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_mem(rb, NULL), GNIO_ERROR_INVALID_VALUE);
	/* Not the start of a user allocation of this device. */
	int local;
	assert_gnio(gnio_rollback_add_mem(rb, &local), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_mem(rb, (uint8_t *)p.rx_mem + 64), GNIO_ERROR_INVALID_VALUE);
	/* Objects of another device context. */
	struct gnio_gpu *other;
	struct gnio_runner *other_runner;
	void *other_mem, *other_cpu;
	assert_ok(gnio_gpu_create("cpu", &other));
	assert_ok(gnio_runner_create(other, &other_runner));
	assert_ok(gnio_gpu_mem_alloc(other, 4096, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &other_mem, &other_cpu));
	assert_gnio(gnio_rollback_add_runner(rb, other_runner), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_rollback_add_mem(rb, other_mem), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_gpu_mem_free(other, other_mem));
	assert_ok(gnio_runner_destroy(other_runner));
	assert_ok(gnio_gpu_destroy(other));
	/* Twice. */
	assert_ok(gnio_rollback_add_rxq(rb, p.rxq));
	assert_gnio(gnio_rollback_add_rxq(rb, p.rxq), GNIO_ERROR_ALREADY_EXIST);
	assert_ok(gnio_rollback_destroy(rb));

	/* Nothing registered: steps 1-4 have nothing to do, step 5 says SKIPPED
	 * (nothing was verified) and the run succeeds; afterwards adding and
	 * running again are BAD_STATE. */
	struct steps s = {0};
	assert_ok(gnio_rollback_create(p.gpu, &rb));
	assert_ok(gnio_rollback_set_step_cb(rb, on_step, &s));
	assert_ok(gnio_rollback_run(rb, 100));
	assert_int_equal(s.n, 5);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(s.err[i], GNIO_SUCCESS);
	assert_int_equal(s.step[4], 5);
	assert_int_equal(s.err[4], GNIO_ERROR_SKIPPED);
	assert_gnio(gnio_rollback_add_runner(rb, p.runner), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_rollback_add_buf_arr(rb, p.rx_pool), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_rollback_add_rxq(rb, p.rxq), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_rollback_add_mem(rb, p.rx_mem), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_rollback_run(rb, 100), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_rollback_destroy(rb));

	/* The rollback objects never released anything on their own: all of
	 * it is still there for a real one. */
	assert_ok(gnio_rollback_create(p.gpu, &rb));
	register_all(rb, &p);
	assert_ok(gnio_rollback_run(rb, 5000));
	assert_ok(gnio_rollback_destroy(rb));
	destroy_parents(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rollback_five_steps_then_reuse),
		cmocka_unit_test(test_rollback_hung_kernel_fails_closed_then_resumes),
		cmocka_unit_test(test_rollback_refused_step_resumes),
		cmocka_unit_test(test_rollback_wrong_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
