/* SPDX-License-Identifier: MIT */
/* src/gpu/runner.c - launch a persistent kernel, watch its heartbeat, stop it
 * with a deadline and fail closed when it does not stop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/errmsg.h"
#include "gnio/dev.h" /* gnio_last_error_msg */
#include "gpu/gpu_priv.h"
#include "gpu/runner_priv.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *gnio_runner_state_name(enum gnio_runner_state s)
{
	switch (s) {
	case GNIO_RUNNER_IDLE: return "idle";
	case GNIO_RUNNER_RUNNING: return "running";
	case GNIO_RUNNER_EXITED: return "exited";
	case GNIO_RUNNER_HUNG: return "hung";
	case GNIO_RUNNER_FAILED: return "failed";
	}
	return "?";
}

gnio_error_t gnio_runner_create(struct gnio_gpu *gpu, struct gnio_runner **runner)
{
	gnio_api_enter();
	if (!gpu || !runner)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "runner", "create: NULL argument");
	struct gnio_runner *r = calloc(1, sizeof(*r));
	if (!r)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "runner", "out of memory");
	void *g, *c;
	gnio_error_t err = gnio_gpu_alloc_internal(gpu, sizeof(struct gnio_kernel_ctl), GNIO_GPU_MEM_TYPE_CPU_GPU, &g, &c);
	if (err != GNIO_SUCCESS) {
		free(r);
		return err;
	}
	r->gpu = gpu;
	r->ctl_gpu = g;
	r->ctl_cpu = c;
	r->state = GNIO_RUNNER_IDLE;
	pthread_mutex_lock(&gpu->lock);
	gpu->num_runners++;
	pthread_mutex_unlock(&gpu->lock);
	*runner = r;
	return GNIO_SUCCESS;
}

static void count_running(struct gnio_gpu *gpu, int running_delta, int hung_delta)
{
	pthread_mutex_lock(&gpu->lock);
	gpu->num_running += running_delta;
	gpu->num_hung += hung_delta;
	pthread_mutex_unlock(&gpu->lock);
}

gnio_error_t gnio_runner_start(struct gnio_runner *r, gnio_runner_launch_fn fn, void *user)
{
	gnio_api_enter();
	if (!r || !fn)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "runner", "start: NULL argument");
	if (r->state == GNIO_RUNNER_RUNNING || r->state == GNIO_RUNNER_HUNG || r->state == GNIO_RUNNER_EXITED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "runner", "runner is %s; stop it before starting another kernel",
				 gnio_runner_state_name(r->state));
	memset(r->ctl_cpu, 0, sizeof(*r->ctl_cpu));
	/* RELEASE: the cleared control block is visible before the kernel runs. */
	gnio_store_release_u32(&r->ctl_cpu->stop, 0);
	r->fn = fn;
	r->launch.gpu = r->gpu;
	r->launch.ctl = r->ctl_gpu;
	r->launch.user = user;
	r->launch.stream = NULL;
	r->kernel_status = GNIO_SUCCESS;
	count_running(r->gpu, 1, 0);
	gnio_error_t err = r->gpu->ops->kernel_launch(r, fn, &r->launch);
	if (err != GNIO_SUCCESS) {
		count_running(r->gpu, -1, 0);
		r->state = GNIO_RUNNER_FAILED;
		return err;
	}
	r->state = GNIO_RUNNER_RUNNING;
	GNIO_LOG_INFO("runner", "kernel launched on %s", r->gpu->bus_id);
	return GNIO_SUCCESS;
}

/* Reap a finished kernel; returns its status. */
static gnio_error_t reap(struct gnio_runner *r, gnio_error_t st, int was_hung)
{
	r->gpu->ops->kernel_reap(r);
	count_running(r->gpu, -1, was_hung ? -1 : 0);
	r->kernel_status = st;
	r->state = st == GNIO_SUCCESS ? GNIO_RUNNER_IDLE : GNIO_RUNNER_FAILED;
	return st;
}

gnio_error_t gnio_runner_stop(struct gnio_runner *r, uint32_t deadline_ms)
{
	gnio_api_enter();
	if (!r)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "runner", "stop: NULL");
	if (r->state == GNIO_RUNNER_IDLE || r->state == GNIO_RUNNER_FAILED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "runner", "no kernel to stop (runner is %s)",
				 gnio_runner_state_name(r->state));
	int was_hung = r->state == GNIO_RUNNER_HUNG;
	/* Record the deadline before flipping the flag (rollback step 1). */
	uint64_t deadline = mono_ns() + (uint64_t)deadline_ms * 1000000ull;
	/* RELEASE(ctl.stop): pairs with the kernel's read in
	 * gnio_gpu_dev_kernel_should_stop(). */
	gnio_store_release_u32(&r->ctl_cpu->stop, 1);
	for (;;) {
		gnio_error_t st = GNIO_SUCCESS;
		if (r->gpu->ops->kernel_poll(r, &st)) {
			/* the backend's reason (e.g. the CUDA error of a kernel
			 * that faulted), before reap's calls replace it */
			char why[256] = "";
			if (st != GNIO_SUCCESS)
				snprintf(why, sizeof(why), "%s", gnio_last_error_msg());
			gnio_error_t res = reap(r, st, was_hung);
			if (res != GNIO_SUCCESS)
				return gnio_fail(res, "runner", "kernel on %s ended with %s%s%s", r->gpu->bus_id,
						 gnio_error_get_name(res), why[0] ? ": " : "", why);
			GNIO_LOG_INFO("runner", "kernel on %s stopped", r->gpu->bus_id);
			return GNIO_SUCCESS;
		}
		if (mono_ns() >= deadline)
			break;
		struct timespec ts = {0, 200000};
		nanosleep(&ts, NULL);
	}
	if (!was_hung) {
		r->state = GNIO_RUNNER_HUNG;
		count_running(r->gpu, 0, 1);
	}
	GNIO_LOG_ERR("runner",
		     "kernel on %s did not stop within %u ms (heartbeat %llu): failing closed, nothing it can touch is freed",
		     r->gpu->bus_id, deadline_ms, (unsigned long long)gnio_runner_get_heartbeat(r));
	return gnio_fail(GNIO_ERROR_TIME_OUT, "runner",
			 "kernel on %s did not stop within %u ms; failing closed (memory stays allocated)",
			 r->gpu->bus_id, deadline_ms);
}

gnio_error_t gnio_runner_destroy(struct gnio_runner *r)
{
	gnio_api_enter();
	if (!r)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "runner", "destroy: NULL");
	if (r->state == GNIO_RUNNER_RUNNING || r->state == GNIO_RUNNER_HUNG || r->state == GNIO_RUNNER_EXITED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "runner", "runner is %s; stop the kernel first",
				 gnio_runner_state_name(r->state));
	struct gnio_gpu *gpu = r->gpu;
	gnio_error_t err = gnio_gpu_free_internal(gpu, r->ctl_gpu);
	/* DRIVER: the device could not free the stop flag (a kernel fault
	 * leaves the CUDA context unusable). Its bookkeeping is gone all the
	 * same, so the runner is released too, or the device context could
	 * never be destroyed. */
	if (err != GNIO_SUCCESS && err != GNIO_ERROR_DRIVER)
		return err;
	pthread_mutex_lock(&gpu->lock);
	gpu->num_runners--;
	pthread_mutex_unlock(&gpu->lock);
	free(r);
	return err;
}

enum gnio_runner_state gnio_runner_get_state(struct gnio_runner *r)
{
	if (!r)
		return GNIO_RUNNER_FAILED;
	if (r->state == GNIO_RUNNER_RUNNING) {
		gnio_error_t st = GNIO_SUCCESS;
		/* A kernel that returned on its own stays EXITED until stop reaps it. */
		if (r->gpu->ops->kernel_poll(r, &st)) {
			r->kernel_status = st;
			r->state = GNIO_RUNNER_EXITED;
		}
	}
	return r->state;
}

uint64_t gnio_runner_get_heartbeat(const struct gnio_runner *r)
{
	return r ? gnio_load_relaxed_u64(&r->ctl_cpu->heartbeat) : 0;
}

struct gnio_kernel_ctl *gnio_runner_get_ctl_host(const struct gnio_runner *r) { return r ? r->ctl_cpu : NULL; }
