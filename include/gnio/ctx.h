/* SPDX-License-Identifier: MIT */
/*
 * gnio/ctx.h - the lifecycle shared by every startable object (DOCA: doca_ctx).
 *
 *   CREATED --setters--> CREATED --start--> STARTED --stop--> STOPPED
 *   STOPPED --setters/start--> ...        destroy from CREATED or STOPPED
 *
 * Setters are refused with BAD_STATE once started. A GPU handle can only be
 * taken from a STARTED context whose datapath was put on a GPU before start.
 */
#ifndef GNIO_CTX_H
#define GNIO_CTX_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_ctx;
struct gnio_gpu;

enum gnio_ctx_state {
	GNIO_CTX_STATE_CREATED = 0,
	GNIO_CTX_STATE_STARTED = 1,
	GNIO_CTX_STATE_STOPPED = 2,
};

/* Bind the datapath to a device before start. Errors: INVALID_VALUE,
 * BAD_STATE (already started, or a different GPU already bound). */
/* @since 0.1 datapath_on_gpu: Bind a queue's datapath to a device before start */
gnio_error_t gnio_ctx_set_datapath_on_gpu(struct gnio_ctx *ctx, struct gnio_gpu *gpu);
/* Start: opens the wire queue and, with a GPU datapath, builds the GPU-visible
 * ring and starts its proxy. Errors: INVALID_VALUE, BAD_STATE (already
 * started), NO_MEMORY, and whatever the wire reports when opening the queue. */
/* @since 0.1 ctx_lifecycle: Context lifecycle (created, started, stopped) with BAD_STATE rules */
gnio_error_t gnio_ctx_start(struct gnio_ctx *ctx);
/* Stop: the proxy stops, the ring is freed. Errors: INVALID_VALUE, BAD_STATE
 * (not started, or a running kernel still holds the GPU handle: stop the
 * kernel first). */
gnio_error_t gnio_ctx_stop(struct gnio_ctx *ctx);
gnio_error_t gnio_ctx_get_state(const struct gnio_ctx *ctx, enum gnio_ctx_state *state);
const char *gnio_ctx_state_name(enum gnio_ctx_state state);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_CTX_H */
