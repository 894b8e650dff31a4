/* SPDX-License-Identifier: MIT */
/*
 * A user kernel that faults (a store to an illegal address): the stop
 * reports DRIVER with the CUDA reason in one line, promptly, and nothing
 * afterwards hangs: destroying the runner, freeing the memory and destroying
 * the device context each return (SUCCESS or DRIVER) within the test's
 * alarm. A fault leaves the CUDA context unusable; what matters is a named
 * error and no hang. Under compute-sanitizer the fault would be reported as
 * the error it is, so the test skips there.
 */
#include <signal.h>
#include <unistd.h>
#include "gpu_test.h"

/* Beats a while (it runs), then stores through a pointer no allocation owns. */
__global__ void fault_kernel(struct gnio_kernel_ctl *ctl, uint32_t *bad)
{
	for (uint64_t hb = 1; hb <= 2000; hb++) {
		gnio_gpu_dev_kernel_heartbeat(ctl, hb);
		__nanosleep(1000);
	}
	*bad = 1; /* the fault */
	while (!gnio_gpu_dev_kernel_should_stop(ctl))
		__nanosleep(1000);
}

static gnio_error_t fault_launch(const struct gnio_runner_launch *l)
{
	fault_kernel<<<1, 1, 0, (cudaStream_t)l->stream>>>(l->ctl, (uint32_t *)l->user);
	GT_LAUNCH_CHECK();
	return GNIO_SUCCESS;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL: a call hung after the kernel faulted (alarm)\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	if (gt_under_sanitizer()) {
		GT_OK(gnio_gpu_destroy(g));
		gt_skip("the fault is the test; under compute-sanitizer it is reported as the error it is");
	}
	signal(SIGALRM, on_alarm);
	alarm(60);

	void *memg, *memc;
	GT_OK(gnio_gpu_mem_alloc(g, 4096, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &memg, &memc));
	struct gnio_runner *r;
	GT_OK(gnio_runner_create(g, &r));
	GT_OK(gnio_runner_start(r, fault_launch, (void *)(uintptr_t)0x8));
	GT_CHECK(gt_heartbeat_moves(r, 5000), "no heartbeat before the fault");

	/* Give it time to fault, then stop: DRIVER, the reason, no wait for
	 * the deadline. */
	gt_sleep_us(200000);
	uint64_t t0 = gt_mono_ns();
	gnio_error_t e = gnio_runner_stop(r, 5000);
	uint64_t took = gt_mono_ns() - t0;
	printf("stop: %s after %.1f ms: %s\n", gnio_error_get_name(e), took / 1e6, gnio_last_error_msg());
	GT_CHECK(e == GNIO_ERROR_DRIVER, "stop returned %s, expected GNIO_ERROR_DRIVER", gnio_error_get_name(e));
	GT_CHECK(took < 1000000000ull, "stop took %.0f ms: a faulted kernel has ended, nothing to wait for",
		 took / 1e6);
	GT_CHECK(strstr(gnio_last_error_msg(), "illegal") != NULL, "the reason does not name the fault: %s",
		 gnio_last_error_msg());
	GT_CHECK(!strchr(gnio_last_error_msg(), '\n'), "the reason is more than one line");
	GT_CHECK(gnio_runner_get_state(r) == GNIO_RUNNER_FAILED, "state %s",
		 gnio_runner_state_name(gnio_runner_get_state(r)));

	/* Teardown on a context the fault left unusable: each call returns. */
	gnio_error_t e1 = gnio_runner_destroy(r);
	gnio_error_t e2 = gnio_gpu_mem_free(g, memg);
	gnio_error_t e3 = gnio_gpu_destroy(g);
	printf("after the fault: runner_destroy %s, mem_free %s, gpu_destroy %s (%s)\n", gnio_error_get_name(e1),
	       gnio_error_get_name(e2), gnio_error_get_name(e3), gnio_last_error_msg());
	GT_CHECK(e1 == GNIO_SUCCESS || e1 == GNIO_ERROR_DRIVER, "runner_destroy %s", gnio_error_get_name(e1));
	GT_CHECK(e2 == GNIO_SUCCESS || e2 == GNIO_ERROR_DRIVER, "mem_free %s", gnio_error_get_name(e2));
	GT_CHECK(e3 == GNIO_SUCCESS || e3 == GNIO_ERROR_DRIVER, "gpu_destroy %s: %s", gnio_error_get_name(e3),
		 gnio_last_error_msg());
	printf("PASS\n");
	return 0;
}
