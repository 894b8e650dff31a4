/* SPDX-License-Identifier: MIT */
/*
 * gnio/runner.h - the persistent-kernel runner: launch, heartbeat, safe stop.
 *
 * The runner owns a control block in device-visible memory with a stop flag and
 * a heartbeat counter (gnio/device/kernel.h). Launch:
 *   CUDA : the launch function enqueues the user's __global__ kernel on
 *          l->stream and returns; the runner polls the stream.
 *   CPU  : the runner calls the launch function on a new host thread; the
 *          function is the kernel body and returns when it sees the stop flag.
 * Stop sets the flag, then polls (cudaStreamQuery / thread exit) until done or
 * the deadline passes, never cudaDeviceSynchronize. On the deadline it fails
 * closed: TIME_OUT, the runner is marked hung, and the device refuses to free
 * anything a kernel could still touch.
 */
#ifndef GNIO_RUNNER_H
#define GNIO_RUNNER_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_gpu;
struct gnio_runner;
struct gnio_kernel_ctl; /* gnio/device/kernel.h */

struct gnio_runner_launch {
	struct gnio_gpu *gpu;
	void *stream;                /* cudaStream_t on CUDA, NULL on the CPU device */
	struct gnio_kernel_ctl *ctl; /* device view: pass it to the kernel */
	void *user;
};

typedef gnio_error_t (*gnio_runner_launch_fn)(const struct gnio_runner_launch *l);

enum gnio_runner_state {
	GNIO_RUNNER_IDLE = 0,     /* created or stopped cleanly */
	GNIO_RUNNER_RUNNING = 1,
	GNIO_RUNNER_EXITED = 2,   /* the kernel returned on its own; call stop to reap */
	GNIO_RUNNER_HUNG = 3,     /* missed a stop deadline: nothing may be freed */
	GNIO_RUNNER_FAILED = 4,   /* the launch or the kernel failed (see the log) */
};

/* Errors: INVALID_VALUE, NO_MEMORY. */
gnio_error_t gnio_runner_create(struct gnio_gpu *gpu, struct gnio_runner **runner);
/* Launch. Errors: INVALID_VALUE, BAD_STATE (running or hung), DRIVER
 * (the launch failed; the CUDA error text is logged). */
/* @since 0.1 persistent_kernel: Persistent-kernel runner with host stop flag */
gnio_error_t gnio_runner_start(struct gnio_runner *runner, gnio_runner_launch_fn fn, void *user);
/* Stop. Errors: INVALID_VALUE, BAD_STATE (never started), TIME_OUT
 * (deadline passed: runner now HUNG), DRIVER (the kernel faulted). */
/* @since 0.1 kernel_stop_deadline: Kernel stop with deadline, fail-closed on a hung kernel */
gnio_error_t gnio_runner_stop(struct gnio_runner *runner, uint32_t deadline_ms);
/* Errors: INVALID_VALUE, BAD_STATE (running or hung), DRIVER (the device
 * could not free the runner's memory, as after a kernel fault; the runner
 * is destroyed all the same). */
gnio_error_t gnio_runner_destroy(struct gnio_runner *runner);

enum gnio_runner_state gnio_runner_get_state(struct gnio_runner *runner);
const char *gnio_runner_state_name(enum gnio_runner_state state);
/* Heartbeat counter the kernel bumps; readable while it runs. A value that
 * keeps moving while no packets arrive means "alive and polling". */
/* @since 0.1 kernel_heartbeat: Kernel heartbeat counter */
uint64_t gnio_runner_get_heartbeat(const struct gnio_runner *runner);
/* Host view of the control block (for debugging tools). */
struct gnio_kernel_ctl *gnio_runner_get_ctl_host(const struct gnio_runner *runner);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_RUNNER_H */
