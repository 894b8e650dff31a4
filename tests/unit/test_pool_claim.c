/* SPDX-License-Identifier: MIT */
/*
 * test_pool_claim.c - the pool rules a started RX queue relies on
 * (src/gpu/buf_arr.c): one pool is filled by one started RX queue at most
 * (IN_USE for the second, whose proxy would write the same slots), a restart
 * of the same queue re-takes its own claim, each release makes room again,
 * and destroying the array (the rollback's step 2, while queues are still
 * started) ends the claim so the queue's later release touches nothing
 * freed (ASan in test-sanitize). Drives the calls that RX queue start and
 * stop make.
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
	if (p->arr)
		assert_ok(gnio_buf_arr_destroy(p->arr));
	assert_ok(gnio_gpu_mem_free(p->gpu, p->mem));
	assert_ok(gnio_gpu_destroy(p->gpu));
}

static void test_one_rx_queue_per_pool(void **state)
{
	(void)state;
	struct pool p;
	struct gnio_buf_arr *q1 = NULL, *q2 = NULL; /* two RX queues' claim slots */
	pool_up(&p);
	assert_ok(gnio_buf_arr_claim_rx(p.arr, &q1, "eth_rxq"));
	assert_ptr_equal(q1, p.arr);
	assert_gnio(gnio_buf_arr_claim_rx(p.arr, &q2, "eth_rxq"), GNIO_ERROR_IN_USE);
	assert_non_null(strstr(gnio_last_error_msg(), "another started RX queue"));
	assert_null(q2);
	/* the same queue again (a start after a failed start) keeps its claim */
	assert_ok(gnio_buf_arr_claim_rx(p.arr, &q1, "eth_rxq"));
	/* the refused claim took nothing: one release frees the pool */
	gnio_buf_arr_unclaim_rx(p.gpu, &q1);
	assert_null(q1);
	assert_ok(gnio_buf_arr_claim_rx(p.arr, &q2, "eth_rxq"));
	gnio_buf_arr_unclaim_rx(p.gpu, &q2);
	gnio_buf_arr_unclaim_rx(p.gpu, &q2); /* twice: harmless */
	pool_down(&p);
}

static void test_destroy_ends_the_claim(void **state)
{
	(void)state;
	struct pool p;
	struct gnio_buf_arr *q1 = NULL;
	pool_up(&p);
	assert_ok(gnio_buf_arr_claim_rx(p.arr, &q1, "eth_rxq"));
	/* rollback step 2: the array goes while its queue is still started */
	assert_ok(gnio_buf_arr_destroy(p.arr));
	p.arr = NULL;
	assert_null(q1);
	/* the queue's stop releases nothing (and reads no freed array) */
	gnio_buf_arr_unclaim_rx(p.gpu, &q1);
	/* a new array on the same memory can be filled by a queue again */
	struct gnio_buf_arr *q2 = NULL;
	assert_ok(gnio_buf_arr_create(p.gpu, p.mem, 2048, 64, &p.arr));
	assert_ok(gnio_buf_arr_start(p.arr));
	assert_ok(gnio_buf_arr_claim_rx(p.arr, &q2, "eth_rxq"));
	gnio_buf_arr_unclaim_rx(p.gpu, &q2);
	pool_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_rx_queue_per_pool),
		cmocka_unit_test(test_destroy_ends_the_claim),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
