/* SPDX-License-Identifier: MIT */
/* tests/unit/test_lifecycle.c - one test per ordering rule of DESIGN.md and
 * gnio/ctx.h, each asserting the exact documented error code; argument
 * validation; the progress engine. All on the CPU device over sw wires. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "testutil.h"

#define ST(q) gnio_eth_rxq_as_ctx(q)
#define TT(q) gnio_eth_txq_as_ctx(q)

static void up(struct tpipe *p, const char *wire, int with_tx)
{
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, wire);
	c.ring = 64;
	c.tx_ring = 64;
	c.with_tx = with_tx;
	assert_ok(tpipe_up(p, &c));
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* A minimal frame: broadcast, EtherType 0x88b5 (local experimental). */
static uint32_t make_frame(uint8_t *f, uint32_t len, uint32_t seq)
{
	memset(f, 0, len);
	memset(f, 0xff, 6);
	f[6] = 0x02;
	f[11] = 0x01;
	f[12] = 0x88;
	f[13] = 0xb5;
	memcpy(f + 14, &seq, 4);
	for (uint32_t i = 18; i < len; i++)
		f[i] = (uint8_t)(seq + i);
	return len;
}

/* ---------------------------------------------------------- ctx rules -- */

static void test_setters_after_start(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:lc_set", 1);
	struct gnio_gpu *g2;
	assert_ok(gnio_gpu_create("cpu", &g2));
	assert_gnio(gnio_eth_rxq_set_num_packets(p.rxq, 128), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_rxq_set_type(p.rxq, GNIO_ETH_RXQ_TYPE_CYCLIC), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_rxq_set_queue_id(p.rxq, 1), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_rxq_set_pkt_buf(p.rxq, p.rx_pool), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_rxq_set_flow_control(p.rxq, 1), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_rxq_set_proxy_cpu(p.rxq, 0), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_ctx_set_datapath_on_gpu(ST(p.rxq), p.gpu), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_ctx_set_datapath_on_gpu(ST(p.rxq), g2), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_set_num_packets(p.txq, 128), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_set_type(p.txq, GNIO_ETH_TXQ_TYPE_REGULAR), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_set_queue_id(p.txq, 1), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_set_pkt_buf(p.txq, p.tx_pool), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_set_proxy_cpu(p.txq, 0), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_ctx_set_datapath_on_gpu(TT(p.txq), p.gpu), GNIO_ERROR_BAD_STATE);
	/* Once stopped, setters work again. */
	assert_ok(gnio_ctx_stop(ST(p.rxq)));
	assert_ok(gnio_eth_rxq_set_flow_control(p.rxq, 1));
	assert_ok(gnio_eth_rxq_set_num_packets(p.rxq, 64));
	tpipe_down(&p);
	assert_ok(gnio_gpu_destroy(g2));
}

static void test_start_twice(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:lc_start2", 1);
	assert_gnio(gnio_ctx_start(ST(p.rxq)), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_ctx_start(TT(p.txq)), GNIO_ERROR_BAD_STATE);
	enum gnio_ctx_state s;
	assert_ok(gnio_ctx_get_state(ST(p.rxq), &s));
	assert_int_equal(s, GNIO_CTX_STATE_STARTED);
	tpipe_down(&p);
}

static void test_stop_when_not_started(void **state)
{
	(void)state;
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	assert_ok(gnio_dev_open("sw:lc_stop", &dev));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1514, &rxq));
	assert_ok(gnio_eth_txq_create(dev, 32, &txq));
	assert_gnio(gnio_ctx_stop(ST(rxq)), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_ctx_stop(TT(txq)), GNIO_ERROR_BAD_STATE);
	/* Host-only start/stop, then a second stop is refused too. */
	assert_ok(gnio_ctx_start(ST(rxq)));
	assert_ok(gnio_ctx_stop(ST(rxq)));
	enum gnio_ctx_state s;
	assert_ok(gnio_ctx_get_state(ST(rxq), &s));
	assert_int_equal(s, GNIO_CTX_STATE_STOPPED);
	assert_gnio(gnio_ctx_stop(ST(rxq)), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_eth_txq_destroy(txq));
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_dev_close(dev));
}

static void test_destroy_while_started(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:lc_destroy", 1);
	assert_gnio(gnio_eth_rxq_destroy(p.rxq), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_destroy(p.txq), GNIO_ERROR_BAD_STATE);
	tpipe_down(&p); /* asserts the queues are then destroyed fine */
}

static void test_handle_before_start(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	struct gnio_gpu_eth_rxq *rh = NULL;
	struct gnio_gpu_eth_txq *th = NULL;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_dev_open("sw:lc_hb", &dev));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1514, &rxq));
	assert_ok(gnio_eth_txq_create(dev, 32, &txq));
	assert_gnio(gnio_eth_rxq_get_gpu_handle(rxq, &rh), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_get_gpu_handle(txq, &th), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_ctx_set_datapath_on_gpu(ST(rxq), gpu));
	assert_ok(gnio_ctx_set_datapath_on_gpu(TT(txq), gpu));
	/* Bound but still not started. */
	assert_gnio(gnio_eth_rxq_get_gpu_handle(rxq, &rh), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_get_gpu_handle(txq, &th), GNIO_ERROR_BAD_STATE);
	assert_null(rh);
	assert_null(th);
	assert_ok(gnio_eth_txq_destroy(txq));
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_dev_close(dev));
	assert_ok(gnio_gpu_destroy(gpu));
}

static void test_handle_without_datapath(void **state)
{
	(void)state;
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	struct gnio_gpu_eth_rxq *rh = NULL;
	struct gnio_gpu_eth_txq *th = NULL;
	assert_ok(gnio_dev_open("sw:lc_nodp", &dev));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1514, &rxq));
	assert_ok(gnio_eth_txq_create(dev, 32, &txq));
	assert_ok(gnio_ctx_start(ST(rxq)));
	assert_ok(gnio_ctx_start(TT(txq)));
	assert_gnio(gnio_eth_rxq_get_gpu_handle(rxq, &rh), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_get_gpu_handle(txq, &th), GNIO_ERROR_BAD_STATE);
	assert_non_null(strstr(gnio_last_error_msg(), "datapath"));
	assert_ok(gnio_ctx_stop(TT(txq)));
	assert_ok(gnio_ctx_stop(ST(rxq)));
	assert_ok(gnio_eth_txq_destroy(txq));
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_dev_close(dev));
}

static void test_datapath_second_gpu(void **state)
{
	(void)state;
	struct gnio_gpu *g1, *g2;
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	assert_ok(gnio_gpu_create("cpu", &g1));
	assert_ok(gnio_gpu_create("cpu", &g2));
	assert_ok(gnio_dev_open("sw:lc_2gpu", &dev));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1514, &rxq));
	assert_ok(gnio_ctx_set_datapath_on_gpu(ST(rxq), g1));
	assert_ok(gnio_ctx_set_datapath_on_gpu(ST(rxq), g1)); /* same one again: fine */
	assert_gnio(gnio_ctx_set_datapath_on_gpu(ST(rxq), g2), GNIO_ERROR_BAD_STATE);
	/* g2 took no reference: it can go; g1 holds the queue. */
	assert_ok(gnio_gpu_destroy(g2));
	assert_gnio(gnio_gpu_destroy(g1), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_gpu_destroy(g1));
	assert_ok(gnio_dev_close(dev));
}

/* A queue without a pool starts; the device side says BAD_STATE. */
static void test_no_pool_first_recv_send(void **state)
{
	(void)state;
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "sw:lc_nopool");
	c.ring = 64;
	c.register_rx_pool = 0;
	assert_ok(tpipe_up(&p, &c));
	uint64_t first = 5;
	uint32_t n = 5;
	assert_gnio(gnio_gpu_dev_eth_rxq_recv_thread(p.rxh, 32, 1, &first, &n, NULL), GNIO_ERROR_BAD_STATE);
	assert_int_equal(n, 0);
	assert_gnio(gnio_gpu_dev_eth_rxq_recv_block(p.rxh, 32, 1000, &first, &n, NULL), GNIO_ERROR_BAD_STATE);

	/* The built-in kernel stops on it and reports it. */
	assert_ok(tpipe_launch(&p, "count"));
	uint64_t end = test_now_ns() + 10ull * 1000000000ull;
	while (gnio_runner_get_state(p.runner) == GNIO_RUNNER_RUNNING && test_now_ns() < end)
		sleep_ms(1);
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_EXITED);
	assert_gnio(gnio_runner_stop(p.runner, 5000), GNIO_ERROR_BAD_STATE);
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_FAILED);
	assert_int_equal(gnio_load_acquire_u64(&p.stats_cpu->errors), 1);
	assert_int_equal(gnio_load_acquire_u64(&p.stats_cpu->last_error), GNIO_ERROR_BAD_STATE);

	/* TX queue without a pool: send is refused on the device side. */
	struct gnio_eth_txq *txq;
	struct gnio_gpu_eth_txq *th;
	assert_ok(gnio_eth_txq_create(p.dev, 32, &txq));
	assert_ok(gnio_eth_txq_set_num_packets(txq, 64));
	assert_ok(gnio_ctx_set_datapath_on_gpu(TT(txq), p.gpu));
	assert_ok(gnio_ctx_start(TT(txq)));
	assert_ok(gnio_eth_txq_get_gpu_handle(txq, &th));
	uint8_t frame[64];
	uint64_t t = 0;
	assert_gnio(gnio_gpu_dev_eth_txq_send_thread(th, (uint64_t)(uintptr_t)(frame), 0, 60, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, NULL), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_gpu_dev_eth_txq_reserve(th, 1, &t), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_ctx_stop(TT(txq)));
	assert_ok(gnio_eth_txq_destroy(txq));
	tpipe_down(&p);
}

/* -------------------------------------------------- memory and arrays -- */

static void test_buf_arr_reverse_order(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	void *mem, *cpu;
	struct gnio_buf_arr *a, *b;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_gpu_mem_alloc(gpu, 64 * 2048, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu));
	assert_non_null(cpu);
	assert_ok(gnio_buf_arr_create(gpu, mem, 2048, 32, &a));
	assert_ok(gnio_buf_arr_create(gpu, (uint8_t *)mem + 32 * 2048, 2048, 32, &b));
	assert_ok(gnio_buf_arr_start(a));
	assert_gnio(gnio_buf_arr_start(a), GNIO_ERROR_BAD_STATE);
	struct gnio_gpu_buf_arr *h;
	assert_gnio(gnio_buf_arr_get_gpu_handle(b, &h), GNIO_ERROR_BAD_STATE); /* not started */
	assert_ok(gnio_buf_arr_get_gpu_handle(a, &h));
	assert_ptr_equal(gnio_gpu_dev_buf_arr_get_addr(h, 3), (uint8_t *)mem + 3 * 2048);
	assert_int_equal(gnio_buf_arr_get_elem_size(b), 2048);
	assert_int_equal(gnio_buf_arr_get_num_elem(b), 32);
	assert_ptr_equal(gnio_buf_arr_get_cpu_base(b), (uint8_t *)cpu + 32 * 2048);

	assert_gnio(gnio_buf_arr_destroy(a), GNIO_ERROR_BAD_STATE); /* b is newer */
	assert_ok(gnio_buf_arr_destroy(b));
	assert_ok(gnio_buf_arr_destroy(a));
	assert_ok(gnio_gpu_mem_free(gpu, mem));
	assert_ok(gnio_gpu_destroy(gpu));
}

static void test_mem_free_under_buf_arr(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	void *mem, *cpu;
	struct gnio_buf_arr *a;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_gpu_mem_alloc(gpu, 16 * 2048, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu));
	assert_ok(gnio_buf_arr_create(gpu, mem, 2048, 16, &a));
	assert_gnio(gnio_gpu_mem_free(gpu, mem), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_buf_arr_destroy(a));
	assert_ok(gnio_gpu_mem_free(gpu, mem));
	/* A second free of the same pointer is not an allocation any more. */
	assert_gnio(gnio_gpu_mem_free(gpu, mem), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_gpu_destroy(gpu));
}

static void test_mem_free_while_queue_uses_pool(void **state)
{
	(void)state;
	/* Teardown order of DESIGN.md: arrays go before the queues stop, but
	 * the memory under them stays while the started queue writes it. The
	 * objects are built here, so the test itself takes them apart. */
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	struct gnio_buf_arr *pool;
	void *mem, *cpu;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_dev_open("sw:lc_memq", &dev));
	assert_ok(gnio_gpu_mem_alloc(gpu, 64 * 2048, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu));
	assert_ok(gnio_buf_arr_create(gpu, mem, 2048, 64, &pool));
	assert_ok(gnio_buf_arr_start(pool));
	assert_ok(gnio_eth_rxq_create(dev, 64, 2048, &rxq));
	assert_ok(gnio_eth_rxq_set_num_packets(rxq, 64));
	assert_ok(gnio_eth_rxq_set_pkt_buf(rxq, pool));
	assert_ok(gnio_ctx_set_datapath_on_gpu(ST(rxq), gpu));
	assert_ok(gnio_ctx_start(ST(rxq)));
	assert_ok(gnio_buf_arr_destroy(pool));
	assert_gnio(gnio_gpu_mem_free(gpu, mem), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_ctx_stop(ST(rxq)));
	assert_ok(gnio_gpu_mem_free(gpu, mem));
	/* The destroyed pool is no longer registered: a restart has none. */
	assert_ok(gnio_ctx_start(ST(rxq)));
	assert_ok(gnio_ctx_stop(ST(rxq)));
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_dev_close(dev));
	assert_ok(gnio_gpu_destroy(gpu));
}

static void test_gpu_destroy_with_anything_alive(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	void *mem, *cpu;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_string_equal(gnio_gpu_get_bus_id(gpu), "cpu");
	assert_string_equal(gnio_gpu_get_backend(gpu), "cpu");
	assert_true(gnio_gpu_is_cpu(gpu));

	/* memory */
	assert_ok(gnio_gpu_mem_alloc(gpu, 4096, 0, GNIO_GPU_MEM_TYPE_GPU, &mem, &cpu));
	assert_gnio(gnio_gpu_destroy(gpu), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_gpu_mem_free(gpu, mem));
	/* runner */
	struct gnio_runner *r;
	assert_ok(gnio_runner_create(gpu, &r));
	assert_gnio(gnio_gpu_destroy(gpu), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_runner_destroy(r));
	/* semaphore */
	struct gnio_gpu_semaphore *s;
	assert_ok(gnio_gpu_semaphore_create(gpu, &s));
	assert_ok(gnio_gpu_semaphore_set_items_num(s, 4));
	assert_ok(gnio_gpu_semaphore_start(s));
	assert_gnio(gnio_gpu_destroy(gpu), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_gpu_semaphore_destroy(s));
	/* queue bound to it */
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	assert_ok(gnio_dev_open("sw:lc_gpud", &dev));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1514, &rxq));
	assert_ok(gnio_ctx_set_datapath_on_gpu(ST(rxq), gpu));
	assert_gnio(gnio_gpu_destroy(gpu), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_dev_close(dev));
	/* buffer array (and its memory) */
	struct gnio_buf_arr *a;
	assert_ok(gnio_gpu_mem_alloc(gpu, 4096, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu));
	assert_ok(gnio_buf_arr_create(gpu, mem, 512, 8, &a));
	assert_ok(gnio_buf_arr_start(a));
	assert_gnio(gnio_gpu_destroy(gpu), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_buf_arr_destroy(a));
	assert_gnio(gnio_gpu_destroy(gpu), GNIO_ERROR_BAD_STATE); /* memory still there */
	assert_ok(gnio_gpu_mem_free(gpu, mem));
	assert_ok(gnio_gpu_destroy(gpu));
}

static void test_dev_close_with_queues(void **state)
{
	(void)state;
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	assert_ok(gnio_dev_open("sw:lc_close", &dev));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1514, &rxq));
	assert_ok(gnio_eth_txq_create(dev, 32, &txq));
	assert_gnio(gnio_dev_close(dev), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_gnio(gnio_dev_close(dev), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_eth_txq_destroy(txq));
	assert_ok(gnio_dev_close(dev));
}

/* ----------------------------------------------------------- kernels -- */

static void test_ctx_stop_while_kernel_runs(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:lc_kstop", 1);
	assert_ok(tpipe_launch(&p, "count"));
	assert_gnio(gnio_ctx_stop(ST(p.rxq)), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_ctx_stop(TT(p.txq)), GNIO_ERROR_BAD_STATE);
	/* Nor may arrays or their memory go while it runs. */
	assert_gnio(gnio_buf_arr_destroy(p.tx_pool), GNIO_ERROR_BAD_STATE);
	enum gnio_ctx_state s;
	assert_ok(gnio_ctx_get_state(ST(p.rxq), &s));
	assert_int_equal(s, GNIO_CTX_STATE_STARTED);
	assert_ok(gnio_runner_stop(p.runner, 5000));
	tpipe_down(&p);
}

static void test_runner_rules(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:lc_runner", 0);
	assert_gnio(gnio_runner_stop(p.runner, 100), GNIO_ERROR_BAD_STATE); /* never started */
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_IDLE);
	assert_ok(tpipe_launch(&p, "count"));
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_RUNNING);
	assert_gnio(tpipe_launch(&p, "count"), GNIO_ERROR_BAD_STATE); /* start twice */
	assert_gnio(gnio_runner_destroy(p.runner), GNIO_ERROR_BAD_STATE);
	/* The heartbeat moves while it runs. */
	uint64_t hb0 = gnio_runner_get_heartbeat(p.runner);
	uint64_t end = test_now_ns() + 10ull * 1000000000ull;
	while (gnio_runner_get_heartbeat(p.runner) == hb0 && test_now_ns() < end)
		sleep_ms(1);
	assert_true(gnio_runner_get_heartbeat(p.runner) != hb0);
	assert_ok(gnio_runner_stop(p.runner, 5000));
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_IDLE);
	assert_gnio(gnio_runner_stop(p.runner, 5000), GNIO_ERROR_BAD_STATE); /* stop twice */
	/* A stopped runner can launch again. */
	assert_ok(tpipe_launch(&p, "count"));
	assert_ok(gnio_runner_stop(p.runner, 5000));
	tpipe_down(&p);
}

static int hung_release; /* the test sets it to let the hung kernel go */
static int hung_entered;

static gnio_error_t hung_kernel(const struct gnio_runner_launch *l)
{
	(void)l;
	__atomic_store_n(&hung_entered, 1, __ATOMIC_RELEASE);
	/* Ignores the stop flag until the test lets it go. */
	while (!__atomic_load_n(&hung_release, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	return GNIO_SUCCESS;
}

static void test_hung_kernel_fails_closed(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:lc_hung", 1);
	void *extra, *extra_cpu;
	assert_ok(gnio_gpu_mem_alloc(p.gpu, 4096, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &extra, &extra_cpu));
	__atomic_store_n(&hung_release, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&hung_entered, 0, __ATOMIC_RELEASE);
	assert_ok(gnio_runner_start(p.runner, hung_kernel, NULL));
	/* On a loaded machine the kernel's thread may take a while to be
	 * scheduled: it is hung only once it runs. */
	for (uint64_t until = test_now_ns() + 10ull * 1000000000ull;
	     !__atomic_load_n(&hung_entered, __ATOMIC_ACQUIRE) && test_now_ns() < until;)
		sleep_ms(1);
	assert_int_equal(__atomic_load_n(&hung_entered, __ATOMIC_ACQUIRE), 1);
	uint64_t t0 = test_now_ns();
	assert_gnio(gnio_runner_stop(p.runner, 200), GNIO_ERROR_TIME_OUT);
	/* It waited for the deadline (the runner's clock has 1 ms steps). */
	assert_true(test_now_ns() - t0 >= 199ull * 1000000ull);
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_HUNG);
	assert_int_equal(__atomic_load_n(&hung_entered, __ATOMIC_ACQUIRE), 1);
	/* Fail closed: nothing the kernel could touch is freed. */
	assert_gnio(gnio_gpu_mem_free(p.gpu, extra), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_gpu_mem_free(p.gpu, p.stats_mem), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_buf_arr_destroy(p.tx_pool), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_runner_destroy(p.runner), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_runner_start(p.runner, hung_kernel, NULL), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_ctx_stop(ST(p.rxq)), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_gpu_destroy(p.gpu), GNIO_ERROR_BAD_STATE);
	/* A second short stop still times out and stays hung. */
	assert_gnio(gnio_runner_stop(p.runner, 50), GNIO_ERROR_TIME_OUT);
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_HUNG);

	__atomic_store_n(&hung_release, 1, __ATOMIC_RELEASE);
	assert_ok(gnio_runner_stop(p.runner, 10000));
	assert_int_equal(gnio_runner_get_state(p.runner), GNIO_RUNNER_IDLE);
	assert_ok(gnio_gpu_mem_free(p.gpu, extra));
	tpipe_down(&p);
}

static void test_queue_restart_keeps_stats(void **state)
{
	(void)state;
	struct tpipe p;
	up(&p, "sw:lc_restart", 0);
	uint8_t f[128];
	assert_ok(tpipe_launch(&p, "count"));
	for (uint32_t i = 0; i < 5; i++)
		assert_ok(gnio_sw_peer_send(p.peer, 0, f, make_frame(f, 64, i)));
	assert_true(tpipe_wait_packets(&p, 5, 10000));
	assert_ok(gnio_runner_stop(p.runner, 5000));
	assert_ok(gnio_ctx_stop(ST(p.rxq)));
	struct gnio_eth_rxq_stats st;
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &st));
	assert_int_equal(st.rx_packets, 5);
	assert_int_equal(st.rx_bytes, 5 * 64);
	assert_int_equal(st.released, 5);
	assert_int_equal(st.dropped_total, 0);
	/* Handle is gone while stopped. */
	struct gnio_gpu_eth_rxq *h;
	assert_gnio(gnio_eth_rxq_get_gpu_handle(p.rxq, &h), GNIO_ERROR_BAD_STATE);

	/* Start again: the parent queue is reusable. */
	assert_ok(gnio_ctx_start(ST(p.rxq)));
	assert_ok(gnio_eth_rxq_get_gpu_handle(p.rxq, &h));
	p.rxh = h;
	p.args.rxq = h;
	memset(p.stats_cpu, 0, sizeof(*p.stats_cpu));
	assert_ok(tpipe_launch(&p, "count"));
	for (uint32_t i = 0; i < 3; i++)
		assert_ok(gnio_sw_peer_send(p.peer, 0, f, make_frame(f, 100, i)));
	assert_true(tpipe_wait_packets(&p, 3, 10000));
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &st));
	assert_int_equal(st.rx_packets, 8);
	assert_int_equal(st.rx_bytes, 5 * 64 + 3 * 100);
	assert_int_equal(st.dropped_total, 0);
	assert_int_equal(gnio_load_acquire_u64(&p.stats_cpu->packets), 3);
	assert_int_equal(gnio_load_acquire_u64(&p.stats_cpu->bytes), 300);
	struct gnio_sw_peer_stats ps;
	assert_ok(gnio_sw_peer_get_stats(p.peer, 0, &ps));
	assert_int_equal(ps.offered, 8);
	tpipe_down(&p);
}

/* ---------------------------------------------------- invalid values -- */

static void test_invalid_values(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq = NULL;
	struct gnio_eth_txq *txq = NULL;
	void *mem, *cpu;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_dev_open("sw:lc_inval", &dev));

	/* NULL arguments */
	assert_gnio(gnio_gpu_create(NULL, &gpu), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_create("cpu", NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_destroy(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_dev_open(NULL, &dev), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_dev_open("sw:x", NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_dev_close(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_rxq_create(NULL, 32, 1514, &rxq), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_rxq_create(dev, 32, 1514, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_txq_create(NULL, 32, &txq), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_txq_create(dev, 32, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_rxq_destroy(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_txq_destroy(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_ctx_start(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_ctx_stop(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_ctx_set_datapath_on_gpu(NULL, gpu), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_mem_alloc(NULL, 64, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_mem_alloc(gpu, 64, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, NULL, &cpu), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_mem_free(gpu, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_buf_arr_create(gpu, NULL, 64, 8, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_buf_arr_start(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_buf_arr_destroy(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_runner_create(NULL, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_runner_start(NULL, hung_kernel, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_runner_stop(NULL, 10), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_runner_destroy(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_pe_create(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_pe_destroy(NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_semaphore_create(NULL, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_sw_peer_open(NULL, NULL), GNIO_ERROR_INVALID_VALUE);

	/* memory: bad alignment, zero size, unknown type, foreign pointer */
	assert_gnio(gnio_gpu_mem_alloc(gpu, 64, 3, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_mem_alloc(gpu, 0, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_mem_alloc(gpu, 64, 0, (enum gnio_gpu_mem_type)9, &mem, &cpu), GNIO_ERROR_INVALID_VALUE);
	int local;
	assert_gnio(gnio_gpu_mem_free(gpu, &local), GNIO_ERROR_INVALID_VALUE);
	/* buffer array outside its allocation */
	assert_ok(gnio_gpu_mem_alloc(gpu, 4096, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu));
	struct gnio_buf_arr *a;
	assert_gnio(gnio_buf_arr_create(gpu, mem, 512, 9, &a), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_buf_arr_create(gpu, mem, 0, 8, &a), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_buf_arr_create(gpu, &local, 4, 1, &a), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_gpu_mem_free(gpu, mem));

	/* burst 0 and too large, packet size beyond the wire's maximum */
	assert_gnio(gnio_eth_rxq_create(dev, 0, 1514, &rxq), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_txq_create(dev, 0, &txq), GNIO_ERROR_INVALID_VALUE);
	uint32_t wmax = 0, bmax = 0;
	assert_ok(gnio_eth_rxq_cap_get_max_packet_size(gnio_dev_as_devinfo(dev), &wmax));
	assert_ok(gnio_eth_rxq_cap_get_max_burst_size(gnio_dev_as_devinfo(dev), &bmax));
	assert_true(wmax >= 1514);
	assert_gnio(gnio_eth_rxq_create(dev, bmax + 1, 1514, &rxq), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_rxq_create(dev, 32, wmax + 1, &rxq), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_rxq_create(dev, 32, 13, &rxq), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_eth_rxq_create(dev, 32, wmax, &rxq));

	/* ring sizes: powers of two from 8 to 1<<20 only */
	uint32_t bad_sizes[] = {0, 1, 4, 7, 1000, 4097, 3u << 10, 1u << 21};
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		assert_gnio(gnio_eth_rxq_set_num_packets(rxq, bad_sizes[i]), GNIO_ERROR_INVALID_VALUE);
	}
	assert_ok(gnio_eth_rxq_set_num_packets(rxq, 8));
	assert_ok(gnio_eth_rxq_set_num_packets(rxq, 1u << 20));
	assert_gnio(gnio_eth_rxq_set_type(rxq, (enum gnio_eth_rxq_type)7), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_rxq_set_pkt_buf(rxq, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_rxq_set_num_packets(NULL, 64), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_eth_txq_create(dev, 32, &txq));
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++)
		assert_gnio(gnio_eth_txq_set_num_packets(txq, bad_sizes[i]), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_txq_set_type(txq, (enum gnio_eth_txq_type)7), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_eth_txq_set_pkt_buf(txq, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_eth_txq_destroy(txq));
	assert_ok(gnio_eth_rxq_destroy(rxq));

	/* bus ids */
	const char *bad_ids[] = {"0000:zz:00.0", "", "1:2:3:4:5", "0000:00:20.0", "0000:00:00.8", "gpu0", "0000:00:00",
				 "100000000:00:00.0", "000000000:00:00.0", "fffff:00:00.0", "0000:100:00.0", ":00:00.0",
				 "0000::00.0", "0000:00:00.", "0000:00:00.0:", "0000.00:00:0"};
	for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		struct gnio_gpu *g = NULL;
		char canon[32];
		if (gnio_gpu_create(bad_ids[i], &g) != GNIO_ERROR_INVALID_VALUE)
			fail_msg("gnio_gpu_create(\"%s\") did not give INVALID_VALUE", bad_ids[i]);
		assert_null(g);
		assert_gnio(gnio_gpu_bus_id_canonical(bad_ids[i], canon, sizeof(canon)), GNIO_ERROR_INVALID_VALUE);
	}
	char canon[32];
	assert_ok(gnio_gpu_bus_id_canonical("17:00.0", canon, sizeof(canon)));
	assert_string_equal(canon, "0000:17:00.0");
	assert_ok(gnio_gpu_bus_id_canonical("00000000:17:00.0", canon, sizeof(canon))); /* as nvidia-smi writes it */
	assert_string_equal(canon, "0000:17:00.0");
	assert_ok(gnio_gpu_bus_id_canonical("0000:AB:1f.7", canon, sizeof(canon)));
	assert_string_equal(canon, "0000:ab:1f.7");

	assert_ok(gnio_dev_close(dev));
	assert_ok(gnio_gpu_destroy(gpu));
}

static void test_gpu_without_cuda(void **state)
{
	(void)state;
	if (gnio_built_with_cuda()) {
		print_message("built with CUDA: the NOT_SUPPORTED path does not apply\n");
		skip();
	}
	struct gnio_gpu *g = NULL;
	assert_gnio(gnio_gpu_create("0000:ff:00.0", &g), GNIO_ERROR_NOT_SUPPORTED);
	assert_null(g);
	const char *msg = gnio_last_error_msg();
	assert_non_null(strstr(msg, "CUDA"));
	assert_non_null(strstr(msg, "0000:ff:00.0"));
	/* The short form is canonicalised in the message. */
	assert_gnio(gnio_gpu_create("ff:00.0", &g), GNIO_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(gnio_last_error_msg(), "0000:ff:00.0"));
	/* pick_best falls back to the CPU device and says why. */
	char bus[32], why[256];
	assert_ok(gnio_gpu_pick_best(bus, sizeof(bus), why, sizeof(why)));
	assert_string_equal(bus, "cpu");
	assert_non_null(strstr(why, "CUDA"));
}

static void test_wire_specs(void **state)
{
	(void)state;
	struct gnio_dev *dev = NULL;
	assert_gnio(gnio_dev_open("nosuch:x", &dev), GNIO_ERROR_NOT_FOUND);
	assert_non_null(strstr(gnio_last_error_msg(), "nosuch"));
	assert_null(dev);
	assert_gnio(gnio_dev_open("nocolon", &dev), GNIO_ERROR_INVALID_VALUE);
	assert_null(dev);
	assert_gnio(gnio_dev_open("", &dev), GNIO_ERROR_INVALID_VALUE);
	/* sw: unknown option, bad depth */
	assert_gnio(gnio_dev_open("sw:lc_w,bogus=1", &dev), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_dev_open("sw:lc_w,depth=0", &dev), GNIO_ERROR_INVALID_VALUE);
	/* A peer for a wire that does not exist. */
	struct gnio_sw_peer *peer = NULL;
	assert_gnio(gnio_sw_peer_open("lc_no_such_wire", &peer), GNIO_ERROR_NOT_FOUND);
	/* A good one, with its devinfo. */
	assert_ok(gnio_dev_open("sw:lc_w,depth=16", &dev));
	struct gnio_devinfo *info = gnio_dev_as_devinfo(dev);
	assert_string_equal(gnio_devinfo_get_wire(info), "sw");
	assert_string_equal(gnio_devinfo_get_name(info), "lc_w");
	assert_string_equal(gnio_devinfo_get_spec(info), "sw:lc_w,depth=16");
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	assert_ok(gnio_devinfo_get_caps(info, &caps));
	assert_true(caps.flags & GNIO_WIRE_CAP_RX);
	assert_true(caps.flags & GNIO_WIRE_CAP_TX);
	assert_ok(gnio_eth_rxq_cap_is_type_supported(info, GNIO_ETH_RXQ_TYPE_CYCLIC, GNIO_ETH_RXQ_DATA_PATH_TYPE_GPU));
	assert_ok(gnio_dev_close(dev));
}

/* --------------------------------------------------------- semaphore -- */

static void test_semaphore(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	struct gnio_gpu_semaphore *s;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	/* DOCA's order: create, configure, start. */
	assert_ok(gnio_gpu_semaphore_create(gpu, &s));
	struct gnio_gpu_semaphore_gpu *h0;
	assert_gnio(gnio_gpu_semaphore_get_gpu_handle(s, &h0), GNIO_ERROR_BAD_STATE); /* not started */
	assert_gnio(gnio_gpu_semaphore_start(s), GNIO_ERROR_BAD_STATE);               /* no items */
	assert_gnio(gnio_gpu_semaphore_set_items_num(s, 0), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_semaphore_set_custom_info(s, 65537, GNIO_GPU_MEM_TYPE_CPU_GPU), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_semaphore_set_memory_type(s, GNIO_GPU_MEM_TYPE_GPU), GNIO_ERROR_NOT_SUPPORTED);
	assert_ok(gnio_gpu_semaphore_set_memory_type(s, GNIO_GPU_MEM_TYPE_GPU_CPU));
	assert_ok(gnio_gpu_semaphore_set_items_num(s, 4));
	assert_ok(gnio_gpu_semaphore_set_custom_info(s, 32, GNIO_GPU_MEM_TYPE_CPU_GPU));
	assert_ok(gnio_gpu_semaphore_start(s));
	assert_gnio(gnio_gpu_semaphore_set_items_num(s, 8), GNIO_ERROR_BAD_STATE); /* started */
	enum gnio_gpu_semaphore_status st;
	for (uint32_t i = 0; i < 4; i++) {
		assert_ok(gnio_gpu_semaphore_get_status(s, i, &st));
		assert_int_equal(st, GNIO_GPU_SEMAPHORE_STATUS_FREE);
	}
	/* Host round trip for every status value. */
	for (int v = GNIO_GPU_SEMAPHORE_STATUS_FREE; v <= GNIO_GPU_SEMAPHORE_STATUS_EXIT; v++) {
		assert_ok(gnio_gpu_semaphore_set_status(s, 2, (enum gnio_gpu_semaphore_status)v));
		assert_ok(gnio_gpu_semaphore_get_status(s, 2, &st));
		assert_int_equal(st, v);
	}
	assert_gnio(gnio_gpu_semaphore_set_status(s, 1, (enum gnio_gpu_semaphore_status)6), GNIO_ERROR_INVALID_VALUE);
	/* Out of range. */
	assert_gnio(gnio_gpu_semaphore_get_status(s, 4, &st), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_semaphore_set_status(s, 4, GNIO_GPU_SEMAPHORE_STATUS_READY), GNIO_ERROR_INVALID_VALUE);
	void *info[4], *bad;
	assert_gnio(gnio_gpu_semaphore_get_custom_info_addr(s, 4, &bad), GNIO_ERROR_INVALID_VALUE);
	for (uint32_t i = 0; i < 4; i++) {
		assert_ok(gnio_gpu_semaphore_get_custom_info_addr(s, i, &info[i]));
		assert_non_null(info[i]);
		if (i)
			assert_true((uint8_t *)info[i] - (uint8_t *)info[i - 1] >= 32);
	}
	/* Kernel side (CPU device: the handle is host-readable): info, then
	 * READY, seen by the host; the host's DONE is seen by the kernel. */
	struct gnio_gpu_semaphore_gpu *h;
	assert_ok(gnio_gpu_semaphore_get_gpu_handle(s, &h));
	assert_int_equal(h->num_items, 4);
	enum gnio_gpu_semaphore_status v = GNIO_GPU_SEMAPHORE_STATUS_FREE;
	void *dinfo = NULL;
	assert_gnio(gnio_gpu_dev_semaphore_set_status(h, 4, GNIO_GPU_SEMAPHORE_STATUS_READY), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_dev_semaphore_get_status(h, 4, &v), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_dev_semaphore_get_custom_info_addr(h, 4, &dinfo), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_gpu_dev_semaphore_get_custom_info_addr(h, 3, &dinfo));
	memcpy(dinfo, "hello", 6);
	assert_ok(gnio_gpu_dev_semaphore_set_status(h, 3, GNIO_GPU_SEMAPHORE_STATUS_READY));
	assert_ok(gnio_gpu_semaphore_get_status(s, 3, &st));
	assert_int_equal(st, GNIO_GPU_SEMAPHORE_STATUS_READY);
	assert_string_equal((const char *)info[3], "hello");
	assert_ok(gnio_gpu_semaphore_set_status(s, 3, GNIO_GPU_SEMAPHORE_STATUS_DONE));
	assert_ok(gnio_gpu_dev_semaphore_get_status(h, 3, &v));
	assert_int_equal(v, GNIO_GPU_SEMAPHORE_STATUS_DONE);
	assert_ok(gnio_gpu_semaphore_stop(s));
	assert_gnio(gnio_gpu_semaphore_get_status(s, 3, &st), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_gpu_semaphore_destroy(s));
	assert_ok(gnio_gpu_destroy(gpu));
}

/* --------------------------------------------------- progress engine -- */

#define MAX_EV 64
struct ev_log {
	int n;
	struct gnio_pe_event ev[MAX_EV];
};

static void on_event(void *user, const struct gnio_pe_event *ev)
{
	struct ev_log *l = user;
	if (l->n < MAX_EV)
		l->ev[l->n++] = *ev;
}

static void test_pe_connect_and_state_events(void **state)
{
	(void)state;
	struct gnio_pe *pe, *pe2;
	struct gnio_dev *dev;
	struct gnio_eth_rxq *rxq;
	struct ev_log log;
	memset(&log, 0, sizeof(log));
	assert_ok(gnio_pe_create(&pe));
	assert_ok(gnio_pe_create(&pe2));
	assert_ok(gnio_pe_set_event_cb(pe, on_event, &log));
	assert_ok(gnio_dev_open("sw:lc_pe", &dev));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1514, &rxq));
	assert_ok(gnio_pe_connect_ctx(pe, ST(rxq)));
	assert_gnio(gnio_pe_connect_ctx(pe, ST(rxq)), GNIO_ERROR_BAD_STATE);  /* already */
	assert_gnio(gnio_pe_connect_ctx(pe2, ST(rxq)), GNIO_ERROR_BAD_STATE); /* already, elsewhere */
	assert_int_equal(gnio_pe_progress(pe), 0);

	assert_ok(gnio_ctx_start(ST(rxq)));
	assert_int_equal(log.n, 0); /* only delivered from progress */
	assert_int_equal(gnio_pe_progress(pe), 1);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.ev[0].type, GNIO_PE_EVENT_STATE_CHANGED);
	assert_ptr_equal(log.ev[0].ctx, ST(rxq));
	assert_int_equal(log.ev[0].index, GNIO_CTX_STATE_STARTED);
	assert_int_equal(log.ev[0].error, GNIO_SUCCESS);

	/* Connecting after start is refused; disconnecting while started too. */
	struct gnio_eth_rxq *rxq2;
	assert_ok(gnio_eth_rxq_create(dev, 32, 1514, &rxq2));
	assert_ok(gnio_eth_rxq_set_queue_id(rxq2, 1));
	assert_ok(gnio_ctx_start(ST(rxq2)));
	assert_gnio(gnio_pe_connect_ctx(pe2, ST(rxq2)), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_pe_disconnect_ctx(pe, ST(rxq)), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_pe_destroy(pe), GNIO_ERROR_BAD_STATE);

	assert_ok(gnio_ctx_stop(ST(rxq)));
	assert_ok(gnio_ctx_stop(ST(rxq2)));
	assert_int_equal(gnio_pe_progress(pe), 1);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.ev[1].type, GNIO_PE_EVENT_STATE_CHANGED);
	assert_int_equal(log.ev[1].index, GNIO_CTX_STATE_STOPPED);
	assert_int_equal(gnio_pe_progress(pe2), 0); /* rxq2 never connected */
	assert_int_equal(gnio_pe_get_lost_events(pe), 0);

	/* Destroying a queue disconnects it. */
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_eth_rxq_destroy(rxq2));
	assert_ok(gnio_pe_destroy(pe));
	assert_ok(gnio_pe_destroy(pe2));
	assert_ok(gnio_dev_close(dev));
}

static void test_pe_tx_error_event(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	struct gnio_pe *pe;
	struct gnio_eth_txq *txq;
	struct gnio_gpu_eth_txq *th;
	struct gnio_buf_arr *pool;
	void *mem, *cpu;
	struct ev_log log;
	memset(&log, 0, sizeof(log));
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_dev_open("sw:lc_txerr", &dev));
	assert_ok(gnio_sw_peer_open("lc_txerr", &peer));
	assert_ok(gnio_pe_create(&pe));
	assert_ok(gnio_pe_set_event_cb(pe, on_event, &log));
	assert_ok(gnio_gpu_mem_alloc(gpu, 16 * 2048, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu));
	assert_ok(gnio_buf_arr_create(gpu, mem, 2048, 16, &pool));
	assert_ok(gnio_buf_arr_start(pool));
	assert_ok(gnio_eth_txq_create(dev, 32, &txq));
	assert_ok(gnio_eth_txq_set_num_packets(txq, 16));
	assert_ok(gnio_eth_txq_set_pkt_buf(txq, pool));
	assert_ok(gnio_ctx_set_datapath_on_gpu(TT(txq), gpu));
	assert_ok(gnio_pe_connect_ctx(pe, TT(txq)));
	assert_ok(gnio_ctx_start(TT(txq)));
	assert_ok(gnio_eth_txq_get_gpu_handle(txq, &th));

	/* good, bad (zero length), good, good: acting as the kernel. */
	uint64_t t = 0;
	assert_ok(gnio_gpu_dev_eth_txq_reserve(th, 4, &t));
	assert_int_equal(t, 0);
	uint32_t lens[4] = {64, 0, 80, 96};
	for (uint32_t i = 0; i < 4; i++) {
		uint8_t *slot = gnio_gpu_dev_eth_txq_slot_addr(th, t + i);
		if (lens[i])
			make_frame(slot, lens[i], i);
	}
	for (uint32_t i = 0; i < 4; i++)
		gnio_gpu_dev_eth_txq_commit(th, t + i, lens[i], GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);

	/* All four complete; three reach the peer in order. */
	uint64_t end = test_now_ns() + 10ull * 1000000000ull;
	while (gnio_gpu_dev_eth_txq_completed(th) < 4 && test_now_ns() < end)
		sleep_ms(1);
	assert_int_equal(gnio_gpu_dev_eth_txq_completed(th), 4);
	assert_int_equal(gnio_gpu_dev_eth_txq_errors(th), 1);
	uint8_t buf[2048], want[2048];
	uint32_t good[3] = {0, 2, 3};
	for (int i = 0; i < 3; i++) {
		uint32_t len = 0;
		assert_ok(gnio_sw_peer_recv(peer, 0, buf, sizeof(buf), &len, NULL));
		assert_int_equal(len, lens[good[i]]);
		make_frame(want, lens[good[i]], good[i]);
		assert_memory_equal(buf, want, len);
	}
	uint32_t len;
	assert_gnio(gnio_sw_peer_recv(peer, 0, buf, sizeof(buf), &len, NULL), GNIO_ERROR_EMPTY);
	struct gnio_eth_txq_stats st;
	assert_ok(gnio_eth_txq_get_stats(txq, &st));
	assert_int_equal(st.tx_errors, 1);
	assert_int_equal(st.tx_packets, 3);
	assert_int_equal(st.tx_bytes, 64 + 80 + 96);

	/* Events: STARTED, then the TX error naming descriptor 1. */
	gnio_pe_progress(pe);
	int tx_err = 0, started = 0;
	for (int i = 0; i < log.n; i++) {
		if (log.ev[i].type == GNIO_PE_EVENT_TX_ERROR) {
			tx_err++;
			assert_int_equal(log.ev[i].index, 1);
			assert_int_equal(log.ev[i].error, GNIO_ERROR_INVALID_VALUE);
			assert_ptr_equal(log.ev[i].ctx, TT(txq));
			assert_true(strlen(log.ev[i].msg) > 0);
		} else if (log.ev[i].type == GNIO_PE_EVENT_STATE_CHANGED) {
			started++;
		}
	}
	assert_int_equal(tx_err, 1);
	assert_int_equal(started, 1);

	/* The queue keeps working after the error. */
	assert_ok(gnio_gpu_dev_eth_txq_reserve(th, 1, &t));
	assert_int_equal(t, 4);
	make_frame(gnio_gpu_dev_eth_txq_slot_addr(th, t), 60, 4);
	gnio_gpu_dev_eth_txq_commit(th, t, 60, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
	end = test_now_ns() + 10ull * 1000000000ull;
	gnio_error_t e;
	while ((e = gnio_sw_peer_recv(peer, 0, buf, sizeof(buf), &len, NULL)) == GNIO_ERROR_EMPTY &&
	       test_now_ns() < end)
		sleep_ms(1);
	assert_ok(e);
	make_frame(want, 60, 4);
	assert_int_equal(len, 60);
	assert_memory_equal(buf, want, 60);

	assert_ok(gnio_buf_arr_destroy(pool));
	assert_ok(gnio_ctx_stop(TT(txq)));
	assert_ok(gnio_eth_txq_destroy(txq));
	assert_ok(gnio_pe_destroy(pe));
	assert_ok(gnio_gpu_mem_free(gpu, mem));
	assert_ok(gnio_sw_peer_close(peer));
	assert_ok(gnio_dev_close(dev));
	assert_ok(gnio_gpu_destroy(gpu));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setters_after_start),
		cmocka_unit_test(test_start_twice),
		cmocka_unit_test(test_stop_when_not_started),
		cmocka_unit_test(test_destroy_while_started),
		cmocka_unit_test(test_handle_before_start),
		cmocka_unit_test(test_handle_without_datapath),
		cmocka_unit_test(test_datapath_second_gpu),
		cmocka_unit_test(test_no_pool_first_recv_send),
		cmocka_unit_test(test_buf_arr_reverse_order),
		cmocka_unit_test(test_mem_free_under_buf_arr),
		cmocka_unit_test(test_mem_free_while_queue_uses_pool),
		cmocka_unit_test(test_gpu_destroy_with_anything_alive),
		cmocka_unit_test(test_dev_close_with_queues),
		cmocka_unit_test(test_ctx_stop_while_kernel_runs),
		cmocka_unit_test(test_runner_rules),
		cmocka_unit_test(test_hung_kernel_fails_closed),
		cmocka_unit_test(test_queue_restart_keeps_stats),
		cmocka_unit_test(test_invalid_values),
		cmocka_unit_test(test_gpu_without_cuda),
		cmocka_unit_test(test_wire_specs),
		cmocka_unit_test(test_semaphore),
		cmocka_unit_test(test_pe_connect_and_state_events),
		cmocka_unit_test(test_pe_tx_error_event),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
