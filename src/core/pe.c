/* SPDX-License-Identifier: MIT */
/* src/core/pe.c - the host progress engine: a bounded event queue filled by
 * proxy threads and drained by the application's gnio_pe_progress(). Events are
 * exceptional (errors, state changes), so a mutex is fine here. */
#include <pthread.h>
#include <stdlib.h>
#include "core/ctx_priv.h"
#include "core/errmsg.h"

#define PE_QUEUE 1024u
#define PE_MAX_CTX 64u

struct gnio_pe {
	pthread_mutex_t lock;
	struct gnio_pe_event ev[PE_QUEUE];
	uint64_t head, tail; /* tail: next write; head: next read */
	uint64_t lost;
	gnio_pe_event_fn fn;
	void *user;
	struct gnio_ctx *ctxs[PE_MAX_CTX];
	unsigned num_ctx;
};

gnio_error_t gnio_pe_create(struct gnio_pe **pe)
{
	gnio_api_enter();
	if (!pe)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pe", "create: NULL output");
	struct gnio_pe *p = calloc(1, sizeof(*p));
	if (!p)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "pe", "out of memory");
	pthread_mutex_init(&p->lock, NULL);
	*pe = p;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_pe_destroy(struct gnio_pe *pe)
{
	gnio_api_enter();
	if (!pe)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pe", "destroy: NULL");
	if (pe->num_ctx)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "pe", "%u context(s) still connected", pe->num_ctx);
	pthread_mutex_destroy(&pe->lock);
	free(pe);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_pe_set_event_cb(struct gnio_pe *pe, gnio_pe_event_fn fn, void *user)
{
	gnio_api_enter();
	if (!pe)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pe", "set_event_cb: NULL");
	pthread_mutex_lock(&pe->lock);
	pe->fn = fn;
	pe->user = user;
	pthread_mutex_unlock(&pe->lock);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_pe_connect_ctx(struct gnio_pe *pe, struct gnio_ctx *ctx)
{
	gnio_api_enter();
	if (!pe || !ctx)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pe", "connect_ctx: NULL");
	if (ctx->state == GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "pe", "connect the context before starting it");
	if (ctx->pe)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "pe", "context already connected to a progress engine");
	pthread_mutex_lock(&pe->lock);
	if (pe->num_ctx == PE_MAX_CTX) {
		pthread_mutex_unlock(&pe->lock);
		return gnio_fail(GNIO_ERROR_FULL, "pe", "at most %u contexts per progress engine", PE_MAX_CTX);
	}
	pe->ctxs[pe->num_ctx++] = ctx;
	pthread_mutex_unlock(&pe->lock);
	__atomic_store_n(&ctx->pe, pe, __ATOMIC_RELEASE);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_pe_disconnect_ctx(struct gnio_pe *pe, struct gnio_ctx *ctx)
{
	gnio_api_enter();
	if (!pe || !ctx || ctx->pe != pe)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "pe", "context is not connected to this engine");
	if (ctx->state == GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "pe", "stop the context before disconnecting it");
	pthread_mutex_lock(&pe->lock);
	for (unsigned i = 0; i < pe->num_ctx; i++) {
		if (pe->ctxs[i] == ctx) {
			pe->ctxs[i] = pe->ctxs[--pe->num_ctx];
			break;
		}
	}
	/* Drop queued events that name it, so no callback sees a freed context. */
	for (uint64_t i = pe->head; i != pe->tail; i++)
		if (pe->ev[i % PE_QUEUE].ctx == ctx)
			pe->ev[i % PE_QUEUE].ctx = NULL;
	pthread_mutex_unlock(&pe->lock);
	__atomic_store_n(&ctx->pe, NULL, __ATOMIC_RELEASE);
	return GNIO_SUCCESS;
}

void gnio_pe_post(struct gnio_pe *pe, const struct gnio_pe_event *ev)
{
	pthread_mutex_lock(&pe->lock);
	if (pe->tail - pe->head == PE_QUEUE)
		pe->lost++;
	else
		pe->ev[pe->tail++ % PE_QUEUE] = *ev;
	pthread_mutex_unlock(&pe->lock);
}

uint32_t gnio_pe_progress(struct gnio_pe *pe)
{
	if (!pe)
		return 0;
	uint32_t n = 0;
	for (;;) {
		struct gnio_pe_event ev;
		gnio_pe_event_fn fn;
		void *user;
		pthread_mutex_lock(&pe->lock);
		if (pe->head == pe->tail) {
			pthread_mutex_unlock(&pe->lock);
			break;
		}
		ev = pe->ev[pe->head++ % PE_QUEUE];
		fn = pe->fn;
		user = pe->user;
		pthread_mutex_unlock(&pe->lock);
		/* The context may be disconnected meanwhile (then ev.ctx was
		 * cleared under the lock); its callbacks outlive it no longer. */
		if (!(ev.ctx && ev.ctx->on_event && ev.ctx->on_event(ev.ctx, &ev)) && fn)
			fn(user, &ev);
		n++;
	}
	return n;
}

uint64_t gnio_pe_get_lost_events(const struct gnio_pe *pe)
{
	return pe ? __atomic_load_n(&pe->lost, __ATOMIC_RELAXED) : 0;
}
