/* SPDX-License-Identifier: MIT */
/* gnio/device/time.h - a nanosecond clock shared by kernels and the proxy.
 * GPU: %globaltimer (ns, kept close to host CLOCK_REALTIME by the driver; it
 * ticks in steps of about a microsecond). CPU device: CLOCK_REALTIME. Timed
 * sends and RX timestamps use this clock. */
#ifndef GNIO_DEVICE_TIME_H
#define GNIO_DEVICE_TIME_H

#include "../impl/hd.h"
#if !GNIO_ON_GPU
#include <time.h>
#endif

GNIO_HD uint64_t gnio_gpu_dev_time_ns(void)
{
#if GNIO_ON_GPU
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
#else
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

#endif /* GNIO_DEVICE_TIME_H */
