/* SPDX-License-Identifier: MIT */
/* test_gpu_rx with the RX payload pool in GPU memory (issue 3 item 4): the
 * proxy copies each batch into the pool asynchronously and publishes it only
 * after the copy's fence; the kernel reads frames from device memory. */
#define GT_RX_GPUMEM 1
#include "test_gpu_rx.cu"
