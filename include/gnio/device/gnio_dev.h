/* SPDX-License-Identifier: MIT */
/* gnio/device/gnio_dev.h - everything a persistent kernel includes. Compiles
 * as CUDA and, for the CPU device, as C11. */
#ifndef GNIO_DEVICE_GNIO_DEV_H
#define GNIO_DEVICE_GNIO_DEV_H

#include "time.h"
#include "kernel.h"
#include "buf_arr.h"
#include "semaphore.h"
#include "eth_rxq.h"
#include "eth_txq.h"

#endif
