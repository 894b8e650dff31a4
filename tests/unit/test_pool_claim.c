/* SPDX-License-Identifier: MIT */
/*
 * test_pool_claim.c - the pool rules a started queue relies on
 * (src/gpu/buf_arr.c): a buffer array that a started queue uses cannot be
 * destroyed (BAD_STATE), one pool is filled by one started RX queue at most
 * (IN_USE for the second), TX queues may share a pool with an RX queue (in
 * place send) or with each other, and each release makes room again.
 * Drives the claim calls that queue start and stop make.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"
#include "gpu/buf_arr_priv.h"

struct pool {
	struct gnio_gpu *gpu;
	void *mem;
	struct gnio_buf_arr *arr;
};

static void pool_up(struct pool *p)
{
	void *cpu;
	assert_ok(gnio_gpu_create("cpu", &p->gpu));
	assert_ok(gnio_gpu_mem_alloc(p->gpu, 64 * 2048, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &p->mem, &cpu));
	assert_ok(gnio_buf_arr_create(p->gpu, p->mem, 2048, 64, &p->arr));
	assert_ok(gnio_buf_arr_start(p->arr));
}

static void pool_down(struct pool *p)
{
	assert_ok(gnio_buf_arr_destroy(p->arr));
	assert_ok(gnio_gpu_mem_free(p->gpu, p->mem));
	assert_ok(gnio_gpu_destroy(p->gpu));
}

static void test_destroy_refused_while_claimed(void **state)
{
	(void)state;
	struct pool p;
	pool_up(&p);
	assert_ok(gnio_buf_arr_claim(p.arr, 1, "eth_rxq"));
	assert_gnio(gnio_buf_arr_destroy(p.arr), GNIO_ERROR_BAD_STATE);
	assert_non_null(strstr(gnio_last_error_msg(), "pool of 1 started queue(s) (1 RX, 0 TX)"));
	/* nor the memory under it */
	assert_gnio(gnio_gpu_mem_free(p.gpu, p.mem), GNIO_ERROR_BAD_STATE);
	gnio_buf_arr_unclaim(p.arr, 1);
	/* a TX claim holds it just the same */
	assert_ok(gnio_buf_arr_claim(p.arr, 0, "eth_txq"));
	assert_gnio(gnio_buf_arr_destroy(p.arr), GNIO_ERROR_BAD_STATE);
	gnio_buf_arr_unclaim(p.arr, 0);
	pool_down(&p);
}

static void test_one_rx_queue_per_pool(void **state)
{
	(void)state;
	struct pool p;
	pool_up(&p);
	assert_ok(gnio_buf_arr_claim(p.arr, 1, "eth_rxq"));
	assert_gnio(gnio_buf_arr_claim(p.arr, 1, "eth_rxq"), GNIO_ERROR_IN_USE);
	assert_non_null(strstr(gnio_last_error_msg(), "another started RX queue"));
	/* the refused claim took nothing: one release frees the pool */
	gnio_buf_arr_unclaim(p.arr, 1);
	assert_ok(gnio_buf_arr_claim(p.arr, 1, "eth_rxq")); /* a restart, or the next queue */
	gnio_buf_arr_unclaim(p.arr, 1);
	pool_down(&p);
}

static void test_tx_may_share(void **state)
{
	(void)state;
	struct pool p;
	pool_up(&p);
	/* in-place send: the TX queue registers the RX queue's pool */
	assert_ok(gnio_buf_arr_claim(p.arr, 1, "eth_rxq"));
	assert_ok(gnio_buf_arr_claim(p.arr, 0, "eth_txq"));
	assert_ok(gnio_buf_arr_claim(p.arr, 0, "eth_txq"));
	gnio_buf_arr_unclaim(p.arr, 1);
	assert_gnio(gnio_buf_arr_destroy(p.arr), GNIO_ERROR_BAD_STATE);
	assert_non_null(strstr(gnio_last_error_msg(), "(0 RX, 2 TX)"));
	gnio_buf_arr_unclaim(p.arr, 0);
	gnio_buf_arr_unclaim(p.arr, 0);
	/* an unbalanced release does not wrap the count */
	gnio_buf_arr_unclaim(p.arr, 0);
	pool_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_destroy_refused_while_claimed),
		cmocka_unit_test(test_one_rx_queue_per_pool),
		cmocka_unit_test(test_tx_may_share),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
