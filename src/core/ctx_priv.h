/* SPDX-License-Identifier: MIT */
/* src/core/ctx_priv.h - the lifecycle base embedded first in every startable
 * object (eth rxq, eth txq). */
#ifndef GNIO_SRC_CORE_CTX_PRIV_H
#define GNIO_SRC_CORE_CTX_PRIV_H

#include "gnio/ctx.h"
#include "gnio/pe.h"

struct gnio_ctx;

struct gnio_ctx_ops {
	const char *kind; /* "eth_rxq", "eth_txq" */
	gnio_error_t (*start)(struct gnio_ctx *ctx);
	gnio_error_t (*stop)(struct gnio_ctx *ctx);
};

struct gnio_ctx {
	const struct gnio_ctx_ops *ops;
	enum gnio_ctx_state state;
	struct gnio_gpu *gpu; /* datapath device, NULL for none */
	struct gnio_pe *pe;
	/* Optional: the object's own event callbacks; returns 1 when it took
	 * the event (gnio_pe_progress then skips the engine's callback). */
	int (*on_event)(struct gnio_ctx *ctx, const struct gnio_pe_event *ev);
};

void gnio_ctx_init(struct gnio_ctx *ctx, const struct gnio_ctx_ops *ops);
/* Undo set_datapath_on_gpu bookkeeping; call from the owner's destroy. */
void gnio_ctx_fini(struct gnio_ctx *ctx);
/* BAD_STATE with a message when started (for setters). */
gnio_error_t gnio_ctx_check_configurable(const struct gnio_ctx *ctx, const char *what);

/* Progress-engine posting (pe.c); safe from any thread. */
void gnio_pe_post(struct gnio_pe *pe, const struct gnio_pe_event *ev);
void gnio_ctx_post_event(struct gnio_ctx *ctx, enum gnio_pe_event_type type, gnio_error_t err,
			 uint64_t index, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A TX completion notification (no message to format). */
void gnio_ctx_post_notify(struct gnio_ctx *ctx, uint64_t ticket, uint64_t timestamp_ns);

#endif
