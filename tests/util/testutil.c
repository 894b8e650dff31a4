/* SPDX-License-Identifier: MIT */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
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
	struct gnio_pipeline_cfg pc;
	gnio_pipeline_cfg_init(&pc, cfg->wire, cfg->gpu);
	pc.ring = cfg->ring;
	pc.slot = cfg->slot;
	pc.max_packet = cfg->max_packet;
	pc.burst = cfg->burst;
	pc.rx_mem = cfg->rx_mem;
	pc.flow_control = cfg->flow_control;
	pc.inline_header = cfg->inline_header;
	pc.poll_mode = cfg->poll_mode;
	pc.no_rx_pool = !cfg->register_rx_pool;
	pc.tx = cfg->with_tx;
	pc.tx_pool = cfg->with_tx;
	pc.tx_in_place = cfg->with_tx;
	pc.tx_ring = cfg->tx_ring;
	pc.user_mem = sizeof(struct gnio_app_stats);
	if ((err = gnio_pipeline_create(&pc, &p->pl)))
		return err;
	struct gnio_pipeline_queue q;
	if ((err = gnio_pipeline_get_queue(p->pl, 0, &q)))
		return err;
	p->gpu = gnio_pipeline_get_gpu(p->pl);
	p->dev = gnio_pipeline_get_dev(p->pl);
	p->rx_mem = q.rx_mem;
	p->rx_pool = q.rx_pool;
	p->tx_pool = q.tx_pool;
	p->tx_mem = q.tx_mem;
	p->rxq = q.rxq;
	p->txq = q.txq;
	p->rxh = q.rxh;
	p->txh = q.txh;
	p->stats_mem = q.user_mem_gpu;
	p->stats_gpu = q.user_mem_gpu;
	p->stats_cpu = q.user_mem_cpu;
	p->runner = q.runner;
	if (!strcmp(gnio_devinfo_get_wire(gnio_dev_as_devinfo(p->dev)), "sw")) { /* other wires have no peer end */
		const char *name = gnio_devinfo_get_name(gnio_dev_as_devinfo(p->dev));
		char nm[64];
		snprintf(nm, sizeof(nm), "%.*s", (int)strcspn(name, ","), name);
		if ((err = gnio_sw_peer_open(nm, &p->peer)))
			return err;
	}
	p->args.rxq = p->rxh;
	p->args.txq = p->txh;
	p->args.stats = p->stats_gpu;
	p->args.max_batch = 64;
	p->args.timeout_ns = 100000;
	p->args.blocks = 1;
	p->args.threads = 128;
	p->args.recv_scope = GNIO_APP_SCOPE_BLOCK;
	p->args.send_scope = GNIO_APP_SCOPE_THREAD;
	return GNIO_SUCCESS;
}

gnio_error_t tpipe_launch(struct tpipe *p, const char *app)
{
	const struct gnio_app *a = gnio_app_find(app);
	if (!a)
		return GNIO_ERROR_NOT_FOUND;
	gnio_runner_launch_fn fn = gnio_app_launcher(a, gnio_gpu_is_cpu(p->gpu));
	if (!fn)
		return GNIO_ERROR_NOT_SUPPORTED;
	return p->pl ? gnio_pipeline_launch(p->pl, 0, fn, &p->args) : gnio_runner_start(p->runner, fn, &p->args);
}

void tpipe_down(struct tpipe *p)
{
	if (p->peer)
		assert_ok(gnio_sw_peer_close(p->peer));
	if (p->pl)
		assert_ok(gnio_pipeline_destroy(p->pl));
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

void *test_zalloc_line(size_t size)
{
	size_t sz = (size + GNIO_LINE - 1) / GNIO_LINE * GNIO_LINE;
	void *p = aligned_alloc(GNIO_LINE, sz);
	assert_non_null(p);
	memset(p, 0, sz);
	return p;
}
