/* SPDX-License-Identifier: MIT */
/* tests/unit/test_memory.c - memory the application brings
 * (gnio_gpu_mem_register, the doca_mmap counterpart) and GPU_CPU memory, on
 * the CPU device: a registered buffer becomes a buffer array and an RX pool
 * whose frames land in the application's own bytes; the rules around it. */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define ST(q) gnio_eth_rxq_as_ctx(q)

static void test_register_becomes_rx_pool(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	struct gnio_eth_rxq *rxq;
	struct gnio_buf_arr *arr;
	struct gnio_gpu_eth_rxq *h;
	const size_t size = 64 * 2048;
	uint8_t *mine = aligned_alloc(4096, size);
	assert_non_null(mine);
	memset(mine, 0, size);
	void *g, *c;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_gpu_mem_register(gpu, mine, size, &g, &c));
	assert_ptr_equal(g, mine);
	assert_ptr_equal(c, mine);
	/* The same bytes again, or overlapping ones: refused. */
	void *g2, *c2;
	assert_gnio(gnio_gpu_mem_register(gpu, mine + 4096, 4096, &g2, &c2), GNIO_ERROR_ALREADY_EXIST);
	assert_gnio(gnio_gpu_mem_register(gpu, NULL, size, &g2, &c2), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_gpu_mem_register(gpu, mine, 0, &g2, &c2), GNIO_ERROR_INVALID_VALUE);
	/* Not gnio's to free. */
	assert_gnio(gnio_gpu_mem_free(gpu, g), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "unregister"));

	assert_ok(gnio_buf_arr_create(gpu, g, 2048, 64, &arr));
	assert_ok(gnio_buf_arr_start(arr));
	assert_gnio(gnio_gpu_mem_unregister(gpu, g), GNIO_ERROR_BAD_STATE); /* the array uses it */
	assert_ok(gnio_dev_open("sw:mem_reg", &dev));
	assert_ok(gnio_sw_peer_open("mem_reg", &peer));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1518, &rxq));
	assert_ok(gnio_eth_rxq_set_num_packets(rxq, 64));
	assert_ok(gnio_eth_rxq_set_pkt_buf(rxq, arr));
	assert_ok(gnio_ctx_set_datapath_on_gpu(ST(rxq), gpu));
	assert_ok(gnio_ctx_start(ST(rxq)));
	assert_ok(gnio_eth_rxq_get_gpu_handle(rxq, &h));

	struct gnio_gen_cfg gc;
	gnio_gen_cfg_init(&gc);
	gc.frame_size = 200;
	uint8_t f[256];
	for (uint64_t s = 0; s < 10; s++)
		assert_ok(gnio_sw_peer_send(peer, 0, f, gnio_gen_build(&gc, s, f, sizeof(f))));
	/* The CPU device's kernel side, from this thread: the frames are in
	 * the application's buffer. */
	uint64_t first;
	uint32_t n = 0, got = 0;
	for (uint64_t end = test_now_ns() + 5000000000ull; got < 10 && test_now_ns() < end;) {
		assert_ok(gnio_gpu_dev_eth_rxq_recv_thread(h, 10 - got, 1000000, &first, &n, NULL));
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *p;
			uint32_t len;
			uint64_t seq;
			gnio_gpu_dev_eth_rxq_get_pkt(h, first + i, &p, &len, NULL);
			assert_true(p >= mine && p + len <= mine + size);
			assert_ok(gnio_gen_verify(&gc, p, len, &seq));
			assert_int_equal(seq, got + i);
		}
		got += n;
	}
	assert_int_equal(got, 10);
	gnio_gpu_dev_eth_rxq_release_thread(h);
	assert_ok(gnio_ctx_stop(ST(rxq)));
	assert_ok(gnio_buf_arr_destroy(arr));
	assert_ok(gnio_gpu_mem_unregister(gpu, g));
	assert_gnio(gnio_gpu_mem_unregister(gpu, g), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_sw_peer_close(peer));
	assert_ok(gnio_dev_close(dev));
	assert_ok(gnio_gpu_destroy(gpu));
	/* Still the application's: readable after gnio let go. */
	assert_true(mine[0] != 0 || mine[1] != 0 || mine[12] != 0);
	free(mine);
}

/* The rollback's step 4 unregisters what was registered. */
static void test_rollback_unregisters(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	struct gnio_rollback *rb;
	uint8_t *mine = malloc(8192);
	void *g, *c;
	assert_non_null(mine);
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_gpu_mem_register(gpu, mine, 8192, &g, &c));
	assert_ok(gnio_rollback_create(gpu, &rb));
	assert_ok(gnio_rollback_add_mem(rb, g));
	assert_ok(gnio_rollback_run(rb, 1000));
	assert_ok(gnio_rollback_destroy(rb));
	assert_ok(gnio_gpu_destroy(gpu)); /* nothing left registered */
	free(mine);
}

/* GPU_CPU memory: both views, as DOCA samples use it for exit flags. */
static void test_gpu_cpu_memory(void **state)
{
	(void)state;
	struct gnio_gpu *gpu;
	void *g, *c;
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_ok(gnio_gpu_mem_alloc(gpu, 4, 0, GNIO_GPU_MEM_TYPE_GPU_CPU, &g, &c));
	assert_non_null(g);
	assert_non_null(c);
	*(volatile uint32_t *)c = 1;
	assert_int_equal(*(volatile uint32_t *)g, 1);
	assert_ok(gnio_gpu_mem_free(gpu, g));
	assert_ok(gnio_gpu_destroy(gpu));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_becomes_rx_pool),
		cmocka_unit_test(test_rollback_unregisters),
		cmocka_unit_test(test_gpu_cpu_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
