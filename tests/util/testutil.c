/* SPDX-License-Identifier: MIT */
#include "testutil.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

uint64_t test_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int wait_until(int (*fn)(void *), void *arg, unsigned timeout_ms)
{
	uint64_t end = test_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	while (!fn(arg)) {
		if (test_now_ns() > end)
			return 0;
		struct timespec ts = {0, 100000};
		nanosleep(&ts, NULL);
	}
	return 1;
}

void tpipe_cfg_default(struct tpipe_cfg *c, const char *wire)
{
	memset(c, 0, sizeof(*c));
	c->gpu = "cpu";
	c->wire = wire;
	c->ring = 1024;
	c->slot = 2048;
	c->max_packet = 2048;
	c->burst = 64;
	c->tx_ring = 256;
	c->register_rx_pool = 1;
	c->rx_mem = GNIO_GPU_MEM_TYPE_CPU_GPU;
}

gnio_error_t tpipe_up(struct tpipe *p, const struct tpipe_cfg *cfg)
{
	gnio_error_t err;
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	if ((err = gnio_gpu_create(cfg->gpu, &p->gpu)))
		return err;
	if ((err = gnio_dev_open(cfg->wire, &p->dev)))
		return err;
	if (!strncmp(cfg->wire, "sw:", 3)) { /* other wires have no peer end */
		const char *name = cfg->wire + 3;
		char nm[64];
		snprintf(nm, sizeof(nm), "%.*s", (int)strcspn(name, ","), name);
		if ((err = gnio_sw_peer_open(nm, &p->peer)))
			return err;
	}
	void *cpu;
	if ((err = gnio_gpu_mem_alloc(p->gpu, (size_t)cfg->ring * cfg->slot, 4096, cfg->rx_mem, &p->rx_mem, &cpu)))
		return err;
	if ((err = gnio_buf_arr_create(p->gpu, p->rx_mem, cfg->slot, cfg->ring, &p->rx_pool)))
		return err;
	if ((err = gnio_buf_arr_start(p->rx_pool)))
		return err;
	if ((err = gnio_eth_rxq_create(p->dev, cfg->burst, cfg->max_packet, &p->rxq)))
		return err;
	if ((err = gnio_eth_rxq_set_num_packets(p->rxq, cfg->ring)))
		return err;
	if ((err = gnio_eth_rxq_set_flow_control(p->rxq, cfg->flow_control)))
		return err;
	if (cfg->register_rx_pool && (err = gnio_eth_rxq_set_pkt_buf(p->rxq, p->rx_pool)))
		return err;
	if ((err = gnio_ctx_set_datapath_on_gpu(gnio_eth_rxq_as_ctx(p->rxq), p->gpu)))
		return err;
	if ((err = gnio_ctx_start(gnio_eth_rxq_as_ctx(p->rxq))))
		return err;
	if ((err = gnio_eth_rxq_get_gpu_handle(p->rxq, &p->rxh)))
		return err;
	if (cfg->with_tx) {
		if ((err = gnio_gpu_mem_alloc(p->gpu, (size_t)cfg->tx_ring * cfg->slot, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU,
					      &p->tx_mem, &cpu)))
			return err;
		if ((err = gnio_buf_arr_create(p->gpu, p->tx_mem, cfg->slot, cfg->tx_ring, &p->tx_pool)))
			return err;
		if ((err = gnio_buf_arr_start(p->tx_pool)))
			return err;
		if ((err = gnio_eth_txq_create(p->dev, cfg->burst, &p->txq)))
			return err;
		if ((err = gnio_eth_txq_set_num_packets(p->txq, cfg->tx_ring)))
			return err;
		if ((err = gnio_eth_txq_set_pkt_buf(p->txq, p->tx_pool)))
			return err;
		if ((err = gnio_ctx_set_datapath_on_gpu(gnio_eth_txq_as_ctx(p->txq), p->gpu)))
			return err;
		if ((err = gnio_ctx_start(gnio_eth_txq_as_ctx(p->txq))))
			return err;
		if ((err = gnio_eth_txq_get_gpu_handle(p->txq, &p->txh)))
			return err;
	}
	void *scpu;
	if ((err = gnio_gpu_mem_alloc(p->gpu, sizeof(struct gnio_app_stats), GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU,
				      &p->stats_mem, &scpu)))
		return err;
	p->stats_gpu = p->stats_mem;
	p->stats_cpu = scpu;
	p->args.rxq = p->rxh;
	p->args.txq = p->txh;
	p->args.stats = p->stats_gpu;
	p->args.max_batch = 64;
	p->args.timeout_ns = 100000;
	p->args.blocks = 1;
	p->args.threads = 128;
	p->args.recv_scope = 2;
	return gnio_runner_create(p->gpu, &p->runner);
}

gnio_error_t tpipe_launch(struct tpipe *p, const char *app)
{
	const struct gnio_app *a = gnio_app_find(app);
	if (!a)
		return GNIO_ERROR_NOT_FOUND;
	gnio_runner_launch_fn fn = gnio_gpu_is_cpu(p->gpu) ? a->cpu : a->cuda;
	if (!fn)
		return GNIO_ERROR_NOT_SUPPORTED;
	return gnio_runner_start(p->runner, fn, &p->args);
}

void tpipe_down(struct tpipe *p)
{
	if (p->runner) {
		enum gnio_runner_state s = gnio_runner_get_state(p->runner);
		if (s == GNIO_RUNNER_RUNNING || s == GNIO_RUNNER_EXITED)
			assert_ok(gnio_runner_stop(p->runner, 5000));
		assert_ok(gnio_runner_destroy(p->runner));
	}
	if (p->tx_pool)
		assert_ok(gnio_buf_arr_destroy(p->tx_pool));
	if (p->rx_pool)
		assert_ok(gnio_buf_arr_destroy(p->rx_pool));
	if (p->txq) {
		enum gnio_ctx_state st;
		gnio_ctx_get_state(gnio_eth_txq_as_ctx(p->txq), &st);
		if (st == GNIO_CTX_STATE_STARTED)
			assert_ok(gnio_ctx_stop(gnio_eth_txq_as_ctx(p->txq)));
		assert_ok(gnio_eth_txq_destroy(p->txq));
	}
	if (p->rxq) {
		enum gnio_ctx_state st;
		gnio_ctx_get_state(gnio_eth_rxq_as_ctx(p->rxq), &st);
		if (st == GNIO_CTX_STATE_STARTED)
			assert_ok(gnio_ctx_stop(gnio_eth_rxq_as_ctx(p->rxq)));
		assert_ok(gnio_eth_rxq_destroy(p->rxq));
	}
	if (p->stats_mem)
		assert_ok(gnio_gpu_mem_free(p->gpu, p->stats_mem));
	if (p->tx_mem)
		assert_ok(gnio_gpu_mem_free(p->gpu, p->tx_mem));
	if (p->rx_mem)
		assert_ok(gnio_gpu_mem_free(p->gpu, p->rx_mem));
	if (p->peer)
		assert_ok(gnio_sw_peer_close(p->peer));
	if (p->dev)
		assert_ok(gnio_dev_close(p->dev));
	if (p->gpu)
		assert_ok(gnio_gpu_destroy(p->gpu));
	memset(p, 0, sizeof(*p));
}

struct wait_pk {
	struct tpipe *p;
	uint64_t n;
};

static int got_packets(void *arg)
{
	struct wait_pk *w = arg;
	return gnio_load_acquire_u64(&w->p->stats_cpu->packets) >= w->n;
}

int tpipe_wait_packets(struct tpipe *p, uint64_t packets, unsigned timeout_ms)
{
	struct wait_pk w = {p, packets};
	return wait_until(got_packets, &w, timeout_ms);
}
