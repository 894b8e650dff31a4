/* SPDX-License-Identifier: MIT */
/* tests/unit/test_txq_notify.c - send flags on the CPU device: a send with
 * GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY reports its completion through the
 * progress engine (position, ticket, time) and to the kernel's completion
 * poll; sends without it report nothing; a bad send reports an error event. */
#include <sched.h>
#include <string.h>
#include "testutil.h"

#define FRAMES 10u

struct nk {
	const struct gnio_gpu_eth_txq *txq;
	uint8_t *pool;      /* TX pool, device view = host view on the CPU device */
	uint32_t slot;
	int result;         /* kernel -> test: 1 ok, -1 failed */
	uint32_t completed; /* from the completion poll */
};

static gnio_error_t notify_kernel(const struct gnio_runner_launch *l)
{
	struct nk *k = l->user;
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	for (uint32_t i = 0; i < FRAMES; i++) {
		uint8_t *f = k->pool + (size_t)i * k->slot;
		uint32_t len = gnio_gen_build(&g, i, f, k->slot);
		/* Frames 4 and 9 ask to be told when they are out. */
		enum gnio_gpu_eth_send_flags fl = (i == 4 || i == 9) ? GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY
								     : GNIO_GPUNETIO_ETH_SEND_FLAG_NONE;
		gnio_error_t e;
		while ((e = gnio_gpu_dev_eth_txq_send_thread(k->txq, (uint64_t)(uintptr_t)f, 0, len, fl, NULL)) ==
		       GNIO_ERROR_AGAIN)
			sched_yield();
		if (e != GNIO_SUCCESS) {
			__atomic_store_n(&k->result, -1, __ATOMIC_RELEASE);
			return e;
		}
	}
	uint32_t n = 0;
	gnio_error_t e = gnio_gpu_dev_eth_txq_poll_completion(k->txq, 1, GNIO_GPUNETIO_ETH_WAIT_FLAG_B, &n);
	k->completed = n;
	__atomic_store_n(&k->result, e == GNIO_SUCCESS ? 1 : -1, __ATOMIC_RELEASE);
	while (!gnio_gpu_dev_kernel_should_stop(l->ctl))
		sched_yield();
	return GNIO_SUCCESS;
}

struct seen {
	unsigned notify, errors;
	uint16_t pos[8];
	uint64_t ticket[8];
	uint64_t ts[8];
};

static void on_notify(struct gnio_eth_txq_gpu_event_notify_send_packet *ev, void *user)
{
	struct seen *s = user;
	if (s->notify < 8) {
		assert_ok(gnio_eth_txq_gpu_event_notify_send_packet_get_position(ev, &s->pos[s->notify]));
		assert_ok(gnio_eth_txq_gpu_event_notify_send_packet_get_ticket(ev, &s->ticket[s->notify]));
		assert_ok(gnio_eth_txq_gpu_event_notify_send_packet_get_timestamp(ev, &s->ts[s->notify]));
	}
	s->notify++;
}

static void on_error(struct gnio_eth_txq_gpu_event_error_send_packet *ev, void *user)
{
	struct seen *s = user;
	uint16_t pos;
	assert_ok(gnio_eth_txq_gpu_event_error_send_packet_get_position(ev, &pos));
	s->errors++;
}

static void test_notify_through_progress_engine(void **state)
{
	(void)state;
	struct gnio_pe *pe;
	struct seen s;
	memset(&s, 0, sizeof(s));
	assert_ok(gnio_pe_create(&pe));
	struct gnio_pipeline_cfg c;
	gnio_pipeline_cfg_init(&c, "sw:notify", "cpu");
	c.ring = 64;
	c.tx = 1;
	c.tx_pool = 1;
	c.tx_ring = 64;
	c.pe = pe;
	c.tx_notify_cb = on_notify;
	c.tx_error_cb = on_error;
	c.tx_event_user = &s;
	struct gnio_pipeline *pl;
	assert_ok(gnio_pipeline_create(&c, &pl));
	struct gnio_pipeline_queue q;
	assert_ok(gnio_pipeline_get_queue(pl, 0, &q));
	struct gnio_sw_peer *peer;
	assert_ok(gnio_sw_peer_open("notify", &peer));
	struct nk k = {q.txh, q.tx_mem, gnio_buf_arr_get_elem_size(q.tx_pool), 0, 0};
	assert_ok(gnio_pipeline_launch(pl, 0, notify_kernel, &k));
	uint64_t end = test_now_ns() + 10000000000ull;
	while (__atomic_load_n(&k.result, __ATOMIC_ACQUIRE) == 0 && test_now_ns() < end)
		sched_yield();
	assert_int_equal(k.result, 1);
	assert_int_equal(k.completed, 1);
	/* The events wait in the engine until the application drives it. */
	while (s.notify < 2 && test_now_ns() < end)
		gnio_pe_progress(pe);
	assert_int_equal(s.notify, 2);
	assert_int_equal(s.errors, 0);
	assert_int_equal(s.ticket[0], 4);
	assert_int_equal(s.ticket[1], 9);
	assert_int_equal(s.pos[0], 4);
	assert_int_equal(s.pos[1], 9);
	assert_true(s.ts[0] > 0 && s.ts[1] >= s.ts[0]);
	struct gnio_eth_txq_stats ts;
	assert_ok(gnio_eth_txq_get_stats(q.txq, &ts));
	assert_int_equal(ts.tx_packets, FRAMES);
	assert_int_equal(ts.tx_notified, 2);
	assert_int_equal(ts.tx_in_place, 0); /* the TX pool is no RX pool */
	uint8_t buf[2048];
	uint32_t len, got = 0;
	while (gnio_sw_peer_recv(peer, 0, buf, sizeof(buf), &len, NULL) == GNIO_SUCCESS)
		got++;
	assert_int_equal(got, FRAMES);
	assert_ok(gnio_sw_peer_close(peer));
	assert_ok(gnio_pipeline_destroy(pl));
	assert_ok(gnio_pe_destroy(pe));
}

/* Registering events after start, or without a callback, is refused. */
static void test_notify_register_rules(void **state)
{
	(void)state;
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "sw:notify_rules");
	c.with_tx = 1;
	assert_ok(tpipe_up(&p, &c));
	assert_gnio(gnio_eth_txq_gpu_event_notify_send_packet_register(p.txq, on_notify, NULL), GNIO_ERROR_BAD_STATE);
	assert_gnio(gnio_eth_txq_gpu_event_notify_send_packet_register(NULL, on_notify, NULL),
		    GNIO_ERROR_INVALID_VALUE);
	struct gnio_pipeline_cfg pc;
	struct gnio_pipeline *pl;
	gnio_pipeline_cfg_init(&pc, "sw:notify_nope", "cpu");
	pc.tx = 1;
	pc.tx_notify_cb = on_notify; /* no progress engine to deliver them */
	assert_gnio(gnio_pipeline_create(&pc, &pl), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "progress engine"));
	tpipe_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notify_through_progress_engine),
		cmocka_unit_test(test_notify_register_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
