/* SPDX-License-Identifier: MIT */
/*
 * A kernel that ignores the stop flag: stop must fail closed (TIME_OUT, runner
 * HUNG) and nothing the kernel could touch may be freed: mem_free,
 * buf_arr_destroy, runner_destroy and gpu_destroy all say BAD_STATE. The
 * kernel also watches a second flag that only this test sets, so once the
 * refusals are checked we release it, stop again, and tear down cleanly.
 */
#include "gpu_test.h"

/* Keeps beating (it is alive) but only a write to *release ends it. */
__global__ void hung_kernel(struct gnio_kernel_ctl *ctl, const uint32_t *release, uint32_t *pool)
{
	uint64_t hb = 0;
	while (gnio_load_acquire_u32(release) == 0) {
		gnio_gpu_dev_kernel_heartbeat(ctl, ++hb);
		pool[hb & 1023] = (uint32_t)hb; /* it really does touch the pool */
		__nanosleep(10000);
	}
}

struct hargs {
	uint32_t *release;
	uint32_t *pool;
};

static gnio_error_t hung_launch(const struct gnio_runner_launch *l)
{
	const struct hargs *a = (const struct hargs *)l->user;
	hung_kernel<<<1, 1, 0, (cudaStream_t)l->stream>>>(l->ctl, a->release, a->pool);
	GT_LAUNCH_CHECK();
	return GNIO_SUCCESS;
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);

	void *relg, *relc, *poolg, *poolc;
	GT_OK(gnio_gpu_mem_alloc(g, 4096, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &relg, &relc));
	GT_OK(gnio_gpu_mem_alloc(g, 1 << 20, 0, GNIO_GPU_MEM_TYPE_GPU, &poolg, &poolc));
	__atomic_store_n((uint32_t *)relc, 0, __ATOMIC_RELEASE);
	struct gnio_buf_arr *arr;
	GT_OK(gnio_buf_arr_create(g, poolg, 2048, 512, &arr));
	GT_OK(gnio_buf_arr_start(arr));

	struct gnio_runner *r;
	struct hargs a = {(uint32_t *)relg, (uint32_t *)poolg};
	GT_OK(gnio_runner_create(g, &r));
	GT_OK(gnio_runner_start(r, hung_launch, &a));

	/* Alive: the heartbeat moves. */
	GT_CHECK(gt_heartbeat_moves(r, 5000), "no heartbeat");

	/* Stop misses its deadline: TIME_OUT, HUNG, and it took about that long. */
	uint64_t t0 = gt_mono_ns();
	GT_EXPECT(gnio_runner_stop(r, 300), GNIO_ERROR_TIME_OUT);
	uint64_t took = gt_mono_ns() - t0;
	printf("stop returned TIME_OUT after %.0f ms: %s\n", took / 1e6, gnio_last_error_msg());
	GT_CHECK(took >= 290000000ull && took < 3000000000ull, "stop took %.0f ms", took / 1e6);
	GT_CHECK(gnio_runner_get_state(r) == GNIO_RUNNER_HUNG, "state %s",
		 gnio_runner_state_name(gnio_runner_get_state(r)));
	GT_CHECK(gt_heartbeat_moves(r, 5000), "the hung kernel should still beat");

	/* Fail closed: nothing it can touch is freed. */
	GT_EXPECT(gnio_gpu_mem_free(g, poolg), GNIO_ERROR_BAD_STATE);
	GT_EXPECT(gnio_gpu_mem_free(g, relg), GNIO_ERROR_BAD_STATE);
	GT_EXPECT(gnio_buf_arr_destroy(arr), GNIO_ERROR_BAD_STATE);
	GT_EXPECT(gnio_runner_destroy(r), GNIO_ERROR_BAD_STATE);
	GT_EXPECT(gnio_runner_start(r, hung_launch, &a), GNIO_ERROR_BAD_STATE);
	GT_EXPECT(gnio_gpu_destroy(g), GNIO_ERROR_BAD_STATE);
	void *x, *xc;
	gnio_error_t e = gnio_gpu_mem_alloc(g, 4096, 0, GNIO_GPU_MEM_TYPE_GPU, &x, &xc);
	GT_CHECK(e == GNIO_ERROR_BAD_STATE || e == GNIO_SUCCESS, "alloc while hung: %s", gnio_error_get_name(e));
	if (e == GNIO_SUCCESS)
		printf("note: allocation is allowed while a kernel is hung (only frees are refused)\n");

	/* Release it through the test's own flag; a second stop reaps it. */
	__atomic_store_n((uint32_t *)relc, 1, __ATOMIC_RELEASE);
	GT_OK(gnio_runner_stop(r, 2000));
	GT_CHECK(gnio_runner_get_state(r) == GNIO_RUNNER_IDLE, "state after release %s",
		 gnio_runner_state_name(gnio_runner_get_state(r)));
	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_buf_arr_destroy(arr));
	if (e == GNIO_SUCCESS)
		GT_OK(gnio_gpu_mem_free(g, x));
	GT_OK(gnio_gpu_mem_free(g, poolg));
	GT_OK(gnio_gpu_mem_free(g, relg));
	return gt_pass(g);
}
