/* SPDX-License-Identifier: MIT */
/* gnio/device/buf_arr.h - device view of a registered payload pool. */
#ifndef GNIO_DEVICE_BUF_ARR_H
#define GNIO_DEVICE_BUF_ARR_H

#include "../impl/hd.h"

struct gnio_gpu_buf_arr {
	uint8_t *base;      /* device view */
	uint32_t elem_size;
	uint32_t num_elem;
};

GNIO_DEV uint8_t *gnio_dev_buf_arr_get_addr(const struct gnio_gpu_buf_arr *arr, uint32_t idx)
{
	return arr->base + (uint64_t)idx * arr->elem_size;
}

#endif /* GNIO_DEVICE_BUF_ARR_H */
