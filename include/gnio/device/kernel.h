/* SPDX-License-Identifier: MIT */
/* gnio/device/kernel.h - the persistent kernel's side of gnio/runner.h:
 * read the host stop flag, publish a heartbeat. */
#ifndef GNIO_DEVICE_KERNEL_H
#define GNIO_DEVICE_KERNEL_H

#include "../impl/atomics.h"

struct gnio_kernel_ctl {
	/* Written by the host only (1 = stop). */
	GNIO_ALIGNED(GNIO_LINE) uint32_t stop;
	/* Written by the kernel only: any moving value means "alive". */
	GNIO_ALIGNED(GNIO_LINE) uint64_t heartbeat;
	uint32_t exit_code; /* written by the kernel before it returns; 0 = clean */
};

/* @since 0.1 dev_kernel_stop_flag: Device-side stop flag and heartbeat */
GNIO_DEV int gnio_gpu_dev_kernel_should_stop(const struct gnio_kernel_ctl *ctl)
{
	/* A plain flag: nothing is published with it, so relaxed is enough; the
	 * host's release store makes it visible within a poll or two. */
	return gnio_load_relaxed_u32(&ctl->stop) != 0;
}

GNIO_DEV void gnio_gpu_dev_kernel_heartbeat(struct gnio_kernel_ctl *ctl, uint64_t value)
{
	gnio_store_relaxed_u64(&ctl->heartbeat, value);
}

GNIO_DEV void gnio_gpu_dev_kernel_set_exit_code(struct gnio_kernel_ctl *ctl, uint32_t code)
{
	gnio_store_release_u32(&ctl->exit_code, code);
}

#endif /* GNIO_DEVICE_KERNEL_H */
