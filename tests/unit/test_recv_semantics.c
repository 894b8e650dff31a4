/* SPDX-License-Identifier: MIT */
/* tests/unit/test_recv_semantics.c - the receive semantics of the device API
 * (max 0, timeout 0, fill to max, fill to timeout, attributes, explicit
 * release) on the CPU device, through a real runner, ring and proxy. The
 * same checks run on a GPU in tests/gpu/test_gpu_recv_semantics.cu. */
#include <sched.h>
#include "testutil.h"
#include "recv_semantics.h"

struct rs_args {
	const struct gnio_gpu_eth_rxq *rxq;
	struct rs_ctl *ctl;
};

static gnio_error_t rs_kernel(const struct gnio_runner_launch *l)
{
	const struct rs_args *a = l->user;
	struct rs_ctl *c = a->ctl;
	struct gnio_gpu_dev_eth_rxq_attr attr[RS_MAX_ATTR];
	uint32_t seen = 0;
	while (!gnio_gpu_dev_kernel_should_stop(l->ctl)) {
		/* ACQUIRE(go): pairs with the host's RELEASE in rs_post(). */
		uint32_t go = gnio_load_acquire_u32(&c->go);
		if (go == seen) {
			sched_yield();
			continue;
		}
		seen = go;
		struct gnio_gpu_dev_eth_rxq_attr *at = c->attrs ? attr : NULL;
		uint64_t first = 0, t0 = gnio_gpu_dev_time_ns();
		uint32_t n = 0;
		gnio_error_t err = gnio_gpu_dev_eth_rxq_recv_thread(a->rxq, c->max, c->timeout_ns, &first, &n, at);
		uint64_t elapsed = gnio_gpu_dev_time_ns() - t0;
		if (c->release)
			gnio_gpu_dev_eth_rxq_release_thread(a->rxq);
		rs_publish(c, go, err, first, n, elapsed, a->rxq, at);
	}
	gnio_gpu_dev_eth_rxq_release_thread(a->rxq);
	return GNIO_SUCCESS;
}

static int runner_alive(void *user)
{
	return gnio_runner_get_state(user) == GNIO_RUNNER_RUNNING;
}

static void recv_semantics_cpu(int inline_header)
{
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, inline_header ? "sw:rs_cpu_ih" : "sw:rs_cpu");
	c.ring = 64;
	c.flow_control = 1;
	c.inline_header = inline_header;
	assert_ok(tpipe_up(&p, &c));
	void *ctl_gpu, *ctl_cpu;
	assert_ok(gnio_gpu_mem_alloc(p.gpu, sizeof(struct rs_ctl), GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU, &ctl_gpu,
				     &ctl_cpu));
	memset(ctl_cpu, 0, sizeof(struct rs_ctl));
	struct rs_args a = {p.rxh, ctl_gpu};
	assert_ok(gnio_runner_start(p.runner, rs_kernel, &a));
	struct rs_env e = {.peer = p.peer, .rxq = p.rxq, .ctl = ctl_cpu, .alive = runner_alive, .user = p.runner};
	int bad = rs_run(&e, 200);
	assert_ok(gnio_runner_stop(p.runner, 5000));
	if (bad)
		fail_msg("%s", e.why);
	struct gnio_eth_rxq_stats st;
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &st));
	assert_int_equal(st.dropped_total, 0);
	assert_int_equal(st.released, st.rx_packets);
	assert_ok(gnio_gpu_mem_free(p.gpu, ctl_gpu));
	tpipe_down(&p);
}

static void test_recv_semantics_cpu(void **state)
{
	(void)state;
	recv_semantics_cpu(0);
}

/* The same with an inline header: the headers come with the completions. */
static void test_recv_semantics_cpu_inline_header(void **state)
{
	(void)state;
	recv_semantics_cpu(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recv_semantics_cpu),
		cmocka_unit_test(test_recv_semantics_cpu_inline_header),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
