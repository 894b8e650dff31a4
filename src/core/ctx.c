/* SPDX-License-Identifier: MIT */
/* src/core/ctx.c - the shared lifecycle and its ordering rules. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/ctx_priv.h"
#include "core/errmsg.h"
#include "gpu/gpu_priv.h"
#include "gnio/device/time.h"

void gnio_ctx_init(struct gnio_ctx *ctx, const struct gnio_ctx_ops *ops)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->ops = ops;
	ctx->state = GNIO_CTX_STATE_CREATED;
}

void gnio_ctx_fini(struct gnio_ctx *ctx)
{
	if (ctx->gpu) {
		pthread_mutex_lock(&ctx->gpu->lock);
		ctx->gpu->num_ctx--;
		pthread_mutex_unlock(&ctx->gpu->lock);
		ctx->gpu = NULL;
	}
	if (ctx->pe)
		gnio_pe_disconnect_ctx(ctx->pe, ctx);
}

gnio_error_t gnio_ctx_check_configurable(const struct gnio_ctx *ctx, const char *what)
{
	if (ctx->state == GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, ctx->ops->kind,
				 "%s: cannot change %s after start; stop the queue first", ctx->ops->kind, what);
	return GNIO_SUCCESS;
}

const char *gnio_ctx_state_name(enum gnio_ctx_state s)
{
	switch (s) {
	case GNIO_CTX_STATE_CREATED: return "created";
	case GNIO_CTX_STATE_STARTED: return "started";
	case GNIO_CTX_STATE_STOPPED: return "stopped";
	}
	return "?";
}

gnio_error_t gnio_ctx_set_datapath_on_gpu(struct gnio_ctx *ctx, struct gnio_gpu *gpu)
{
	gnio_api_enter();
	if (!ctx || !gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "ctx", "set_datapath_on_gpu: NULL argument");
	GNIO_CHECK(gnio_ctx_check_configurable(ctx, "the datapath device"));
	if (ctx->gpu == gpu)
		return GNIO_SUCCESS;
	if (ctx->gpu)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "ctx",
				 "%s is already bound to device %s", ctx->ops->kind, gnio_gpu_get_bus_id(ctx->gpu));
	pthread_mutex_lock(&gpu->lock);
	gpu->num_ctx++;
	pthread_mutex_unlock(&gpu->lock);
	ctx->gpu = gpu;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_ctx_start(struct gnio_ctx *ctx)
{
	gnio_api_enter();
	if (!ctx)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "ctx", "start: NULL context");
	if (ctx->state == GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, ctx->ops->kind, "%s is already started", ctx->ops->kind);
	gnio_error_t err = ctx->ops->start(ctx);
	if (err != GNIO_SUCCESS)
		return err;
	ctx->state = GNIO_CTX_STATE_STARTED;
	gnio_ctx_post_event(ctx, GNIO_PE_EVENT_STATE_CHANGED, GNIO_SUCCESS, GNIO_CTX_STATE_STARTED,
			    "%s started", ctx->ops->kind);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_ctx_stop(struct gnio_ctx *ctx)
{
	gnio_api_enter();
	if (!ctx)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "ctx", "stop: NULL context");
	if (ctx->state != GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, ctx->ops->kind, "%s is not started (state %s)",
				 ctx->ops->kind, gnio_ctx_state_name(ctx->state));
	if (ctx->gpu) {
		pthread_mutex_lock(&ctx->gpu->lock);
		unsigned running = ctx->gpu->num_running;
		pthread_mutex_unlock(&ctx->gpu->lock);
		if (running)
			return gnio_fail(GNIO_ERROR_BAD_STATE, ctx->ops->kind,
					 "%s: %u kernel(s) still run on %s and may hold this queue; stop them first",
					 ctx->ops->kind, running, gnio_gpu_get_bus_id(ctx->gpu));
	}
	gnio_error_t err = ctx->ops->stop(ctx);
	if (err != GNIO_SUCCESS)
		return err;
	ctx->state = GNIO_CTX_STATE_STOPPED;
	gnio_ctx_post_event(ctx, GNIO_PE_EVENT_STATE_CHANGED, GNIO_SUCCESS, GNIO_CTX_STATE_STOPPED,
			    "%s stopped", ctx->ops->kind);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_ctx_get_state(const struct gnio_ctx *ctx, enum gnio_ctx_state *state)
{
	gnio_api_enter();
	if (!ctx || !state)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "ctx", "get_state: NULL argument");
	*state = ctx->state;
	return GNIO_SUCCESS;
}

void gnio_ctx_post_event(struct gnio_ctx *ctx, enum gnio_pe_event_type type, gnio_error_t err,
			 uint64_t index, const char *fmt, ...)
{
	struct gnio_pe *pe = __atomic_load_n(&ctx->pe, __ATOMIC_ACQUIRE);
	if (!pe)
		return;
	struct gnio_pe_event ev = {.type = type, .ctx = ctx, .error = err, .index = index,
				   .timestamp_ns = gnio_gpu_dev_time_ns()};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ev.msg, sizeof(ev.msg), fmt, ap);
	va_end(ap);
	gnio_pe_post(pe, &ev);
}

void gnio_ctx_post_notify(struct gnio_ctx *ctx, uint64_t ticket, uint64_t timestamp_ns)
{
	struct gnio_pe *pe = __atomic_load_n(&ctx->pe, __ATOMIC_ACQUIRE);
	if (!pe)
		return;
	struct gnio_pe_event ev = {.type = GNIO_PE_EVENT_TX_NOTIFY, .ctx = ctx, .index = ticket,
				   .timestamp_ns = timestamp_ns};
	gnio_pe_post(pe, &ev);
}
