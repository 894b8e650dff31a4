/* SPDX-License-Identifier: MIT */
/* src/eth/dev_priv.h - an open wire (private). gnio_devinfo is the same
 * object seen through its read-only accessors. */
#ifndef GNIO_SRC_ETH_DEV_PRIV_H
#define GNIO_SRC_ETH_DEV_PRIV_H

#include <pthread.h>
#include "gnio/dev.h"
#include "eth/wire.h"
#include "proxy/steer.h"

struct gnio_dev {
	const struct gnio_wire_ops *ops;
	void *wire;
	char spec[256];
	char kind[16];
	char name[192];
	pthread_mutex_t lock;
	unsigned num_queues; /* rxq + txq objects created on it */
	struct gnio_flow *flow; /* its steering rules, if any (src/flow/flow.c) */
	/* Inboxes of the RX queues that a flow's rules reach, by queue id
	 * (src/proxy/steer.h), and how many GPU-datapath RX queues run. */
	struct gnio_steer_slot steer[GNIO_STEER_MAX_QUEUES];
	unsigned rx_started;
	/* The first fault a wire reported (gnio_dev_wire_failed), under lock;
	 * GNIO_SUCCESS while the wire is healthy. */
	gnio_error_t wire_err;
	char wire_err_msg[256];
	/* enum gnio_poll_mode for queues started from now on */
	int poll_mode;
	/* Adaptive polling: TX proxies asleep on this device, and the word they
	 * sleep on; an RX proxy that delivers frames bumps it and wakes them
	 * (gnio_proxy_kick), since replies follow arrivals. */
	uint32_t tx_sleepers;
	uint32_t tx_kick;
};

/* A wire reports a fault that ends its traffic (a corrupt capture record, a
 * vanished interface): logged at ERROR now, and kept (the first one) for
 * gnio_dev_get_wire_error(). Any thread; dev may be NULL (wire used without
 * a gnio_dev, as some tests do): then it is only logged. */
void gnio_dev_wire_failed(struct gnio_dev *dev, gnio_error_t err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));


#endif
