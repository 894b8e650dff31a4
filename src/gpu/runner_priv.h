/* SPDX-License-Identifier: MIT */
/* src/gpu/runner_priv.h - the persistent-kernel runner (private). */
#ifndef GNIO_SRC_GPU_RUNNER_PRIV_H
#define GNIO_SRC_GPU_RUNNER_PRIV_H

#include "gnio/runner.h"
#include "gnio/device/kernel.h"

struct gnio_runner {
	struct gnio_gpu *gpu;
	enum gnio_runner_state state;
	struct gnio_kernel_ctl *ctl_gpu; /* device view, in CPU_GPU memory */
	struct gnio_kernel_ctl *ctl_cpu; /* host view */
	struct gnio_runner_launch launch;
	gnio_runner_launch_fn fn;
	void *backend;                   /* cpu: thread state; cuda: cudaStream_t */
	gnio_error_t kernel_status;
};

#endif
