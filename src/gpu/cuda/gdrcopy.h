/* SPDX-License-Identifier: MIT */
/* src/gpu/cuda/gdrcopy.h - GDRCopy (loaded with dlopen) for GPU_CPU memory. */
#ifndef GNIO_SRC_GPU_CUDA_GDRCOPY_H
#define GNIO_SRC_GPU_CUDA_GDRCOPY_H

#include <stddef.h>
#include <stdint.h>

/* GPU pages GDRCopy pins: device memory for it is aligned to this. */
#define GNIO_GDR_PAGE (64u << 10)

struct gnio_gdr_mapping {
	unsigned long handle;
	void *map;   /* what gdr_map returned */
	size_t size;
	void *cpu;   /* the CPU's view of the device address asked for */
};

/* 1 when GDRCopy can map device memory here; why says why not. */
int gnio_gdr_available(char *why, size_t why_len);
/* Pin and map size bytes of device memory at dev (GNIO_GDR_PAGE aligned).
 * 0 on success. */
int gnio_gdr_map(void *dev, size_t size, struct gnio_gdr_mapping *m);
void gnio_gdr_unmap(struct gnio_gdr_mapping *m);

#endif
