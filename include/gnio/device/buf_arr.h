/* SPDX-License-Identifier: MIT */
/*
 * gnio/device/buf_arr.h - device view of a registered buffer array (DOCA:
 * doca_gpunetio_dev_buf.cuh). Each element is a gnio_gpu_buf: its address
 * and the array's key, which is what a send takes.
 */
#ifndef GNIO_DEVICE_BUF_ARR_H
#define GNIO_DEVICE_BUF_ARR_H

#include "../impl/hd.h"
#include "../error.h"

struct gnio_gpu_buf {
	uint64_t addr; /* device view */
	uint32_t mkey; /* the array's key */
	uint32_t len;  /* element size */
};

struct gnio_gpu_buf_arr {
	uint8_t *base;             /* device view */
	struct gnio_gpu_buf *bufs; /* num_elem descriptors, device memory */
	uint32_t elem_size;
	uint32_t num_elem;
	uint32_t mkey;
	uint32_t rsvd;
};

/* @since 0.2 dev_buf: Device-side buffer descriptors (address + key) */
GNIO_DEV gnio_error_t gnio_gpu_dev_buf_get_buf(const struct gnio_gpu_buf_arr *buf_arr, uint64_t buf_idx,
					       struct gnio_gpu_buf **buf)
{
	if (GNIO_UNLIKELY(buf_idx >= buf_arr->num_elem))
		return GNIO_ERROR_INVALID_VALUE;
	*buf = &buf_arr->bufs[buf_idx];
	return GNIO_SUCCESS;
}

GNIO_DEV gnio_error_t gnio_gpu_dev_buf_get_addr(const struct gnio_gpu_buf *buf, uintptr_t *addr)
{
	*addr = (uintptr_t)buf->addr;
	return GNIO_SUCCESS;
}

GNIO_DEV gnio_error_t gnio_gpu_dev_buf_get_mkey(const struct gnio_gpu_buf *buf, uint32_t *mkey)
{
	*mkey = buf->mkey;
	return GNIO_SUCCESS;
}

/* gnio: the address of element idx, without a descriptor read. */
GNIO_DEV uint8_t *gnio_gpu_dev_buf_arr_get_addr(const struct gnio_gpu_buf_arr *arr, uint64_t idx)
{
	return arr->base + idx * arr->elem_size;
}

#endif /* GNIO_DEVICE_BUF_ARR_H */
