/* SPDX-License-Identifier: MIT */
/* src/core/rollback.c - the five-step fail-closed teardown (gnio/rollback.h,
 * docs/rollback.md). Every destructive call goes through the public API, so
 * the library's own ordering rules (reverse array order, nothing freed under
 * a running or hung kernel) still hold underneath. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/ctx_priv.h"
#include "core/errmsg.h"
#include "eth/eth_rxq_priv.h"
#include "eth/eth_txq_priv.h"
#include "gnio/buf_arr.h"
#include "gnio/dev.h"
#include "gnio/eth_rxq.h"
#include "gnio/eth_txq.h"
#include "gnio/rollback.h"
#include "gnio/semaphore.h"
#include "gpu/buf_arr_priv.h"
#include "gpu/gpu_priv.h"
#include "gpu/runner_priv.h"

enum rb_kind { RB_RUNNER, RB_BUF_ARR, RB_RXQ, RB_TXQ, RB_SEM, RB_MEM };

struct rb_item {
	enum rb_kind kind;
	void *obj;
	unsigned idx;   /* position among the items of its kind, for messages */
	int stopped;    /* runner: kernel confirmed finished (step 1) */
	int done;       /* released: destroyed, freed, or (queue) datapath stopped */
};

struct gnio_rollback {
	struct gnio_gpu *gpu;
	struct rb_item *items;
	unsigned n, cap;
	unsigned count[RB_MEM + 1];
	int ran;                /* gnio_rollback_run called: registration closed */
	unsigned next_step;     /* 1..5, GNIO_ROLLBACK_DONE */
	unsigned verify_fails;  /* step 5 failures (bounded at 2) */
	int no_trial_start;     /* step 5 checks the queues are stopped, starts none */
	gnio_error_t faulted;   /* a kernel ended with this error (step 1) */
	gnio_rollback_step_fn fn;
	void *user;
	char text[320];
};

static const char *kind_name(enum rb_kind k)
{
	switch (k) {
	case RB_RUNNER: return "runner";
	case RB_BUF_ARR: return "buf_arr";
	case RB_RXQ: return "eth_rxq";
	case RB_TXQ: return "eth_txq";
	case RB_SEM: return "semaphore";
	case RB_MEM: return "mem";
	}
	return "?";
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

gnio_error_t gnio_rollback_create(struct gnio_gpu *gpu, struct gnio_rollback **rb)
{
	gnio_api_enter();
	if (!gpu || !rb)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback", "create: NULL argument");
	struct gnio_rollback *r = calloc(1, sizeof(*r));
	if (!r)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "rollback", "out of memory");
	r->gpu = gpu;
	r->next_step = 1;
	*rb = r;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_rollback_destroy(struct gnio_rollback *rb)
{
	gnio_api_enter();
	if (!rb)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback", "destroy: NULL");
	if (rb->next_step != GNIO_ROLLBACK_DONE && rb->ran)
		GNIO_LOG_WARN("rollback", "rollback object destroyed at step %u: registered objects stay held",
			      rb->next_step);
	free(rb->items);
	free(rb);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_rollback_set_step_cb(struct gnio_rollback *rb, gnio_rollback_step_fn fn, void *user)
{
	gnio_api_enter();
	if (!rb)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback", "set_step_cb: NULL rollback");
	rb->fn = fn;
	rb->user = user;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_rollback_get_next_step(const struct gnio_rollback *rb, unsigned *step)
{
	gnio_api_enter();
	if (!rb || !step)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback", "get_next_step: NULL argument");
	*step = rb->next_step;
	return GNIO_SUCCESS;
}

static gnio_error_t add(struct gnio_rollback *rb, enum rb_kind kind, void *obj)
{
	if (!rb || !obj)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback", "add %s: NULL argument", kind_name(kind));
	if (rb->ran)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "rollback",
				 "add %s: the rollback already ran; register everything before gnio_rollback_run",
				 kind_name(kind));
	for (unsigned i = 0; i < rb->n; i++)
		if (rb->items[i].obj == obj)
			return gnio_fail(GNIO_ERROR_ALREADY_EXIST, "rollback", "add %s: %p is already registered",
					 kind_name(kind), obj);
	if (rb->n == rb->cap) {
		unsigned cap = rb->cap ? rb->cap * 2 : 16;
		struct rb_item *it = realloc(rb->items, (size_t)cap * sizeof(*it));
		if (!it)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, "rollback", "out of memory");
		rb->items = it;
		rb->cap = cap;
	}
	rb->items[rb->n++] = (struct rb_item){.kind = kind, .obj = obj, .idx = rb->count[kind]++};
	return GNIO_SUCCESS;
}

gnio_error_t gnio_rollback_add_runner(struct gnio_rollback *rb, struct gnio_runner *runner)
{
	gnio_api_enter();
	if (rb && runner && runner->gpu != rb->gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback", "add runner: it runs on %s, the rollback is for %s",
				 gnio_gpu_get_bus_id(runner->gpu), gnio_gpu_get_bus_id(rb->gpu));
	return add(rb, RB_RUNNER, runner);
}

gnio_error_t gnio_rollback_add_buf_arr(struct gnio_rollback *rb, struct gnio_buf_arr *arr)
{
	gnio_api_enter();
	if (rb && arr && arr->gpu != rb->gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback",
				 "add buf_arr: it belongs to %s, the rollback is for %s", gnio_gpu_get_bus_id(arr->gpu),
				 gnio_gpu_get_bus_id(rb->gpu));
	return add(rb, RB_BUF_ARR, arr);
}

gnio_error_t gnio_rollback_add_rxq(struct gnio_rollback *rb, struct gnio_eth_rxq *rxq)
{
	gnio_api_enter();
	return add(rb, RB_RXQ, rxq);
}

gnio_error_t gnio_rollback_add_txq(struct gnio_rollback *rb, struct gnio_eth_txq *txq)
{
	gnio_api_enter();
	return add(rb, RB_TXQ, txq);
}

gnio_error_t gnio_rollback_add_semaphore(struct gnio_rollback *rb, struct gnio_gpu_semaphore *sem)
{
	gnio_api_enter();
	return add(rb, RB_SEM, sem);
}

gnio_error_t gnio_rollback_add_mem(struct gnio_rollback *rb, void *memptr_gpu)
{
	gnio_api_enter();
	if (rb && memptr_gpu) {
		pthread_mutex_lock(&rb->gpu->lock);
		struct gnio_gpu_alloc *a = gnio_gpu_find_alloc(rb->gpu, memptr_gpu, 1);
		int ok = a && !a->internal && a->gpu_ptr == memptr_gpu;
		pthread_mutex_unlock(&rb->gpu->lock);
		if (!ok)
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback",
					 "add mem: %p is not the start of an allocation of %s", memptr_gpu,
					 gnio_gpu_get_bus_id(rb->gpu));
	}
	return add(rb, RB_MEM, memptr_gpu);
}

static struct gnio_ctx *item_ctx(const struct rb_item *it)
{
	return it->kind == RB_RXQ ? gnio_eth_rxq_as_ctx(it->obj) : gnio_eth_txq_as_ctx(it->obj);
}

/* The wire of a queue item. */
static struct gnio_dev *item_dev(const struct rb_item *it)
{
	return it->kind == RB_RXQ ? ((struct gnio_eth_rxq *)it->obj)->dev : ((struct gnio_eth_txq *)it->obj)->dev;
}

/* Report a step: callback, log, and (on failure) the per-thread reason. */
static gnio_error_t report(struct gnio_rollback *rb, unsigned step, gnio_error_t err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static gnio_error_t report(struct gnio_rollback *rb, unsigned step, gnio_error_t err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rb->text, sizeof(rb->text), fmt, ap);
	va_end(ap);
	if (err != GNIO_SUCCESS && err != GNIO_ERROR_SKIPPED) {
		gnio_set_error_msg("rollback step %u: %s", step, rb->text);
		GNIO_LOG_WARN("rollback", "step %u: %s: %s", step, gnio_error_get_name(err), rb->text);
	} else {
		GNIO_LOG_INFO("rollback", "step %u: %s", step, rb->text);
	}
	if (rb->fn)
		rb->fn(rb->user, step, err, rb->text);
	return err;
}

/* The library's reason for the last failure, copied before it is replaced. */
static void last_reason(char *buf, size_t len, gnio_error_t err)
{
	const char *m = gnio_last_error_msg();
	snprintf(buf, len, "%s", m && *m ? m : gnio_error_get_descr(err));
}

/* Step 1: set every stop flag, then poll each kernel to one fixed deadline. */
static gnio_error_t step1(struct gnio_rollback *rb, uint32_t deadline_ms)
{
	gnio_error_t faulted = GNIO_SUCCESS;
	/* The deadline is fixed before any flag flips (reference rollback step 1). */
	uint64_t deadline = mono_ns() + (uint64_t)deadline_ms * 1000000ull;
	unsigned stopped = 0, hung = 0, hung_idx = 0;
	uint64_t hung_beat = 0;
	char why[200] = "";

	for (unsigned i = 0; i < rb->n; i++) {
		struct rb_item *it = &rb->items[i];
		if (it->kind != RB_RUNNER || it->stopped)
			continue;
		enum gnio_runner_state s = gnio_runner_get_state(it->obj);
		if (s == GNIO_RUNNER_RUNNING || s == GNIO_RUNNER_EXITED || s == GNIO_RUNNER_HUNG) {
			/* RELEASE(ctl.stop): pairs with gnio_gpu_dev_kernel_should_stop();
			 * gnio_runner_stop sets it again, harmlessly. */
			struct gnio_runner *r = it->obj;
			gnio_store_release_u32(&r->ctl_cpu->stop, 1);
		}
	}
	for (unsigned i = 0; i < rb->n; i++) {
		struct rb_item *it = &rb->items[i];
		if (it->kind != RB_RUNNER || it->stopped)
			continue;
		struct gnio_runner *r = it->obj;
		enum gnio_runner_state s = gnio_runner_get_state(r);
		if (s != GNIO_RUNNER_RUNNING && s != GNIO_RUNNER_EXITED && s != GNIO_RUNNER_HUNG) {
			it->stopped = 1; /* idle or failed: no kernel to stop */
			continue;
		}
		uint64_t now = mono_ns();
		uint32_t left = now >= deadline ? 0 : (uint32_t)((deadline - now + 999999ull) / 1000000ull);
		gnio_error_t e = gnio_runner_stop(r, left);
		s = gnio_runner_get_state(r);
		if (s == GNIO_RUNNER_HUNG || s == GNIO_RUNNER_RUNNING) {
			if (!hung++) {
				hung_idx = it->idx;
				hung_beat = gnio_runner_get_heartbeat(r);
			}
			continue; /* give the other kernels their chance to stop, then fail closed */
		}
		/* The kernel has finished (possibly with a fault): it can touch nothing. */
		it->stopped = 1;
		stopped++;
		if (e != GNIO_SUCCESS && faulted == GNIO_SUCCESS) {
			faulted = e;
			last_reason(why, sizeof(why), e);
		}
	}
	if (hung)
		return report(rb, 1, GNIO_ERROR_TIME_OUT,
			      "runner %u (heartbeat %llu)%s did not stop within %u ms: failing closed, steps 2-5 not "
			      "run, nothing freed; resume once the kernel has finished",
			      hung_idx, (unsigned long long)hung_beat, hung > 1 ? " and others" : "", deadline_ms);
	if (faulted != GNIO_SUCCESS) {
		if (rb->faulted == GNIO_SUCCESS)
			rb->faulted = faulted;
		return report(rb, 1, faulted, "%u kernel(s) stopped; one ended with %s: %s (it has finished: going on)",
			      stopped, gnio_error_get_name(faulted), why);
	}
	if (!stopped)
		return report(rb, 1, GNIO_SUCCESS, "no kernel running");
	return report(rb, 1, GNIO_SUCCESS, "%u kernel(s) stopped within the %u ms deadline", stopped, deadline_ms);
}

/* Release the items of the given kinds, newest registration first; stop at
 * the first failure. */
static gnio_error_t release_reverse(struct gnio_rollback *rb, unsigned mask, unsigned *count, char *why, size_t len)
{
	for (unsigned i = rb->n; i-- > 0;) {
		struct rb_item *it = &rb->items[i];
		if (!(mask & (1u << it->kind)) || it->done)
			continue;
		gnio_error_t e = GNIO_SUCCESS;
		switch (it->kind) {
		case RB_BUF_ARR: e = gnio_buf_arr_destroy(it->obj); break;
		case RB_RUNNER: e = gnio_runner_destroy(it->obj); break;
		case RB_SEM: e = gnio_gpu_semaphore_destroy(it->obj); break;
		case RB_MEM: e = gnio_gpu_release_user_mem(rb->gpu, it->obj); break;
		case RB_RXQ:
		case RB_TXQ: {
			enum gnio_ctx_state st;
			gnio_ctx_get_state(item_ctx(it), &st);
			if (st == GNIO_CTX_STATE_STARTED)
				e = gnio_ctx_stop(item_ctx(it));
			break;
		}
		}
		if (e != GNIO_SUCCESS) {
			char r[200];
			last_reason(r, sizeof(r), e);
			snprintf(why, len, "%s %u: %s", kind_name(it->kind), it->idx, r);
			return e;
		}
		it->done = 1;
		(*count)++;
	}
	return GNIO_SUCCESS;
}

#define KIND(k) (1u << (k))

static gnio_error_t step2(struct gnio_rollback *rb)
{
	unsigned n = 0;
	char why[256];
	gnio_error_t e = release_reverse(rb, KIND(RB_BUF_ARR), &n, why, sizeof(why));
	if (e)
		return report(rb, 2, e, "%s", why);
	return report(rb, 2, GNIO_SUCCESS, "%u buffer array(s) destroyed, newest first", n);
}

static gnio_error_t step3(struct gnio_rollback *rb)
{
	unsigned nq = 0, no = 0;
	char why[256];
	gnio_error_t e = release_reverse(rb, KIND(RB_RXQ) | KIND(RB_TXQ), &nq, why, sizeof(why));
	if (!e)
		e = release_reverse(rb, KIND(RB_RUNNER) | KIND(RB_SEM), &no, why, sizeof(why));
	if (e)
		return report(rb, 3, e, "%s", why);
	return report(rb, 3, GNIO_SUCCESS,
		      "%u queue(s) stopped (GPU handles and rings freed, queue objects kept); %u runner(s)/semaphore(s) "
		      "destroyed", nq, no);
}

static gnio_error_t step4(struct gnio_rollback *rb)
{
	unsigned n = 0;
	char why[256];
	gnio_error_t e = release_reverse(rb, KIND(RB_MEM), &n, why, sizeof(why));
	if (e)
		return report(rb, 4, e, "%s", why);
	return report(rb, 4, GNIO_SUCCESS, "%u allocation(s) freed", n);
}

/* Step 5: each registered queue is STOPPED (or CREATED, never started), and
 * each STOPPED one really starts again and stops again. */
static gnio_error_t step5(struct gnio_rollback *rb)
{
	unsigned restarted = 0, never = 0, wire_lost = 0;
	char lost_why[256] = "";
	for (unsigned i = 0; i < rb->n; i++) {
		struct rb_item *it = &rb->items[i];
		if (it->kind != RB_RXQ && it->kind != RB_TXQ)
			continue;
		struct gnio_ctx *ctx = item_ctx(it);
		enum gnio_ctx_state st;
		gnio_ctx_get_state(ctx, &st);
		if (st == GNIO_CTX_STATE_CREATED) {
			never++;
			continue;
		}
		if (st != GNIO_CTX_STATE_STOPPED)
			return report(rb, 5, GNIO_ERROR_BAD_STATE, "%s %u is %s, not stopped", kind_name(it->kind),
				      it->idx, gnio_ctx_state_name(st));
		if (rb->no_trial_start) {
			restarted++;
			continue;
		}
		char r[200];
		gnio_error_t e = gnio_ctx_start(ctx);
		gnio_error_t we = GNIO_SUCCESS;
		if (e && gnio_dev_get_wire_error(item_dev(it), &we, lost_why, sizeof(lost_why)) == GNIO_SUCCESS &&
		    we != GNIO_SUCCESS) {
			/* Its wire failed (an interface deleted, ...): the queue is
			 * stopped and its memory is back; it cannot start again,
			 * and that is the wire's fault, reported as such. */
			wire_lost++;
			continue;
		}
		if (e) {
			last_reason(r, sizeof(r), e);
			return report(rb, 5, e, "%s %u: trial start after the rollback failed: %s", kind_name(it->kind),
				      it->idx, r);
		}
		e = gnio_ctx_stop(ctx);
		if (e) {
			last_reason(r, sizeof(r), e);
			return report(rb, 5, e, "%s %u: stop after the trial start failed (queue left started): %s",
				      kind_name(it->kind), it->idx, r);
		}
		gnio_ctx_get_state(ctx, &st);
		if (st != GNIO_CTX_STATE_STOPPED)
			return report(rb, 5, GNIO_ERROR_UNEXPECTED, "%s %u is %s after the trial start and stop",
				      kind_name(it->kind), it->idx, gnio_ctx_state_name(st));
		restarted++;
	}
	if (wire_lost)
		return report(rb, 5, GNIO_SUCCESS,
			      "%u queue(s) stopped and restartable, %u never started, %u stopped on a failed wire (not "
			      "restartable: %s)",
			      restarted, never, wire_lost, lost_why);
	if (!restarted && !never)
		return report(rb, 5, GNIO_ERROR_SKIPPED, "no queues registered: nothing to re-verify");
	if (rb->no_trial_start)
		return report(rb, 5, GNIO_SUCCESS, "%u queue(s) stopped, %u never started (no trial start: asked off)",
			      restarted, never);
	if (never)
		return report(rb, 5, GNIO_SUCCESS,
			      "%u queue(s) stopped and restartable (trial start+stop ok), %u never started", restarted,
			      never);
	return report(rb, 5, GNIO_SUCCESS, "%u queue(s) stopped and restartable (trial start+stop ok)", restarted);
}

gnio_error_t gnio_rollback_set_trial_start(struct gnio_rollback *rb, int on)
{
	gnio_api_enter();
	if (!rb)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback", "set_trial_start: NULL rollback");
	rb->no_trial_start = !on;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_rollback_run(struct gnio_rollback *rb, uint32_t deadline_ms)
{
	gnio_api_enter();
	if (!rb)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "rollback", "run: NULL rollback");
	if (rb->next_step == GNIO_ROLLBACK_DONE)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "rollback", "the rollback already completed");
	rb->ran = 1;
	gnio_error_t e;

	if (rb->next_step == 1) {
		e = step1(rb, deadline_ms);
		if (e == GNIO_ERROR_TIME_OUT)
			return e; /* fail closed: touch nothing else */
		rb->next_step = 2;
	}
	if (rb->next_step == 2) {
		if ((e = step2(rb)))
			return e;
		rb->next_step = 3;
	}
	if (rb->next_step == 3) {
		if ((e = step3(rb)))
			return e;
		rb->next_step = 4;
	}
	if (rb->next_step == 4) {
		if ((e = step4(rb)))
			return e;
		rb->next_step = 5;
	}
	e = step5(rb);
	if (e == GNIO_ERROR_SKIPPED)
		e = GNIO_SUCCESS;
	if (e && ++rb->verify_fails < 2)
		return e; /* one retry allowed */
	rb->next_step = GNIO_ROLLBACK_DONE;
	if (e) {
		GNIO_LOG_ERR("rollback", "second non-green re-verify: unresolved residual gap, not retried");
		return e;
	}
	if (rb->faulted != GNIO_SUCCESS)
		return gnio_fail(rb->faulted, "rollback", "rollback complete, but a kernel had ended with %s",
				 gnio_error_get_name(rb->faulted));
	return GNIO_SUCCESS;
}
