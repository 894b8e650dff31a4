/* SPDX-License-Identifier: MIT */
/*
 * gnio/pe.h - host progress engine (DOCA: doca_pe). Proxy threads and wires
 * post events (TX errors, state changes, wire trouble); the application drives
 * gnio_pe_progress() from its own loop and receives them in a callback.
 */
#ifndef GNIO_PE_H
#define GNIO_PE_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_pe;
struct gnio_ctx;

enum gnio_pe_event_type {
	GNIO_PE_EVENT_STATE_CHANGED = 0, /* a connected context changed state */
	GNIO_PE_EVENT_TX_ERROR = 1,      /* a descriptor failed; index = ring index */
	GNIO_PE_EVENT_WIRE_ERROR = 2,    /* the wire failed (peer gone, link down) */
	GNIO_PE_EVENT_TX_NOTIFY = 3,     /* a send flagged NOTIFY completed; index = its ticket */
};

struct gnio_pe_event {
	enum gnio_pe_event_type type;
	struct gnio_ctx *ctx;
	gnio_error_t error;
	uint64_t index;
	uint64_t timestamp_ns; /* when it happened, CLOCK_REALTIME ns */
	char msg[120];
};

typedef void (*gnio_pe_event_fn)(void *user, const struct gnio_pe_event *ev);

/* Errors: INVALID_VALUE, NO_MEMORY. */
/* @since 0.1 progress_engine: Host progress engine for TX errors and events */
gnio_error_t gnio_pe_create(struct gnio_pe **pe);
/* Errors: INVALID_VALUE, BAD_STATE (contexts still connected). */
gnio_error_t gnio_pe_destroy(struct gnio_pe *pe);
gnio_error_t gnio_pe_set_event_cb(struct gnio_pe *pe, gnio_pe_event_fn fn, void *user);
/* Connect before the context starts. Errors: INVALID_VALUE, BAD_STATE
 * (context started or already connected). */
gnio_error_t gnio_pe_connect_ctx(struct gnio_pe *pe, struct gnio_ctx *ctx);
gnio_error_t gnio_pe_disconnect_ctx(struct gnio_pe *pe, struct gnio_ctx *ctx);
/* Deliver pending events; returns how many were delivered. An event of a
 * queue with its own callbacks (gnio_eth_txq_gpu_event_*_register) goes to
 * those, every other one to the engine's callback. */
uint32_t gnio_pe_progress(struct gnio_pe *pe);
/* Events lost because the queue (1024 entries) was full. */
uint64_t gnio_pe_get_lost_events(const struct gnio_pe *pe);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_PE_H */
