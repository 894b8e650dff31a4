/* SPDX-License-Identifier: MIT */
/* src/eth/dev_priv.h - an open wire (private). gnio_devinfo is the same
 * object seen through its read-only accessors. */
#ifndef GNIO_SRC_ETH_DEV_PRIV_H
#define GNIO_SRC_ETH_DEV_PRIV_H

#include <pthread.h>
#include "gnio/dev.h"
#include "eth/wire.h"

struct gnio_dev {
	const struct gnio_wire_ops *ops;
	void *wire;
	char spec[256];
	char kind[16];
	char name[192];
	pthread_mutex_t lock;
	unsigned num_queues; /* rxq + txq objects created on it */
	struct gnio_flow *flow; /* its steering rules, if any (src/flow/flow.c) */
};

#endif
