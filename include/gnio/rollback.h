/* SPDX-License-Identifier: MIT */
/*
 * gnio/rollback.h - the five-step safe teardown as one call (docs/rollback.md).
 *
 * The application registers what it builds, in creation order, then calls
 * gnio_rollback_run() to undo it fail-closed:
 *
 *   1 stop every registered runner: set all stop flags, then poll each kernel
 *     until done or one fixed deadline passes (never cudaDeviceSynchronize).
 *     A kernel that misses it: TIME_OUT, steps 2-5 do not run, nothing is
 *     stopped, destroyed or freed; call gnio_rollback_run() again to resume
 *     once the kernel has finished.
 *   2 destroy the registered buffer arrays, newest registration first.
 *   3 stop the GPU datapath of the registered eth queues (gnio_ctx_stop: proxy
 *     stopped, GPU handle and ring freed), newest first; then destroy the
 *     registered runners and semaphores, newest first. The eth queue objects
 *     are NOT destroyed: they stay STOPPED and reusable (the parent queue).
 *   4 free the registered memory allocations, newest first.
 *   5 re-verify the parents: every registered queue must be in state STOPPED
 *     (or CREATED when it was never started), and every STOPPED queue is
 *     started again and stopped again (a real gnio_ctx_start/gnio_ctx_stop:
 *     the wire queue is reopened, the ring rebuilt, then both released). It
 *     must come back STOPPED. See docs/rollback.md for exactly what this
 *     proves and what it does not.
 *
 * What the rollback never touches: the device context (gnio_gpu), the wire
 * (gnio_dev) and the eth queue objects. Destroy those after the run if the
 * program is ending (queues first, then the device context), or reuse the
 * queues: give them a new pool and start them again.
 *
 * A step that fails stops the run at that step; what it had already done
 * stays done and a later gnio_rollback_run() resumes at the first thing not
 * yet done. Exceptions: a kernel that ended with a fault (DRIVER from its
 * stop) has finished, so the run goes on and reports DRIVER at the end; and
 * step 5 is bounded: it may be retried once, a second failure is final (an
 * unresolved residual gap to report, not to retry).
 *
 * Registered objects must stay alive until the run that releases them; the
 * device context must outlive the rollback object. Not thread-safe: use one
 * rollback object from one thread at a time.
 */
#ifndef GNIO_ROLLBACK_H
#define GNIO_ROLLBACK_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_gpu;
struct gnio_runner;
struct gnio_buf_arr;
struct gnio_eth_rxq;
struct gnio_eth_txq;
struct gnio_gpu_semaphore;
struct gnio_rollback;

/* Number of the step after the last one (what get_next_step reports when
 * the rollback is complete). */
#define GNIO_ROLLBACK_DONE 6

/* Called once per step as it ends, in order 1..5: step number, its result
 * (GNIO_SUCCESS; GNIO_ERROR_SKIPPED for a step 5 with no queues to check;
 * else the error that stopped or marked the step) and one line of text
 * without newline. It runs after the step and before the next one: at step 1
 * the kernels are finished and the registered memory is still allocated, so
 * the callback may copy the kernels' final counters out of it. The callback
 * must not destroy or free registered objects. */
typedef void (*gnio_rollback_step_fn)(void *user, unsigned step, gnio_error_t err, const char *text);

/* Create an empty rollback for the objects of one device context.
 * Errors: INVALID_VALUE (NULL argument), NO_MEMORY. */
/* @since 0.1 rollback: Five-step fail-closed teardown as one library call */
gnio_error_t gnio_rollback_create(struct gnio_gpu *gpu, struct gnio_rollback **rb);
/* Free the rollback object itself. Never stops, destroys or frees a
 * registered object: after a fail-closed run they stay held.
 * Errors: INVALID_VALUE (NULL). */
gnio_error_t gnio_rollback_destroy(struct gnio_rollback *rb);

/* Register objects, in creation order, before the first run. Each add
 * refuses: INVALID_VALUE (NULL argument; a runner, buffer array or memory
 * pointer that belongs to another device context; a pointer that is not the
 * start of a user allocation of this context), ALREADY_EXIST (registered
 * twice), BAD_STATE (gnio_rollback_run was already called), NO_MEMORY. */
/* @since 0.1 rollback_register: Register runners, pools, queues, semaphores, memory for rollback */
gnio_error_t gnio_rollback_add_runner(struct gnio_rollback *rb, struct gnio_runner *runner);
gnio_error_t gnio_rollback_add_buf_arr(struct gnio_rollback *rb, struct gnio_buf_arr *arr);
/* Queues whose GPU datapath step 3 stops; the queue objects stay. */
gnio_error_t gnio_rollback_add_rxq(struct gnio_rollback *rb, struct gnio_eth_rxq *rxq);
gnio_error_t gnio_rollback_add_txq(struct gnio_rollback *rb, struct gnio_eth_txq *txq);
gnio_error_t gnio_rollback_add_semaphore(struct gnio_rollback *rb, struct gnio_gpu_semaphore *sem);
/* memptr_gpu: the pointer gnio_gpu_mem_alloc (freed in step 4) or
 * gnio_gpu_mem_register (unregistered in step 4) returned for this context. */
gnio_error_t gnio_rollback_add_mem(struct gnio_rollback *rb, void *memptr_gpu);

/* Step reporter (NULL: none). Errors: INVALID_VALUE (NULL rb). */
gnio_error_t gnio_rollback_set_step_cb(struct gnio_rollback *rb, gnio_rollback_step_fn fn, void *user);

/* Step 5 re-verifies each stopped queue by starting and stopping it again
 * (on by default). Off, it only checks that each is stopped: for a process
 * that has given up the privileges a start needs (gnio run --user).
 * Errors: INVALID_VALUE (NULL rb). */
/* @since 0.2 rollback_trial_start: Turn off step 5's trial restart */
gnio_error_t gnio_rollback_set_trial_start(struct gnio_rollback *rb, int on);

/* Run (or resume) the five steps; deadline_ms bounds step 1 as a whole, it
 * is fixed before the first stop flag is set. Returns the first error:
 *   INVALID_VALUE  NULL rb.
 *   BAD_STATE      the rollback already completed; or a library ordering rule
 *                  refused a step (e.g. an array created after a registered
 *                  one is not registered and still exists, or a kernel not
 *                  registered still runs on the device) - resumable.
 *   TIME_OUT       step 1: a kernel missed the deadline and is HUNG. Failed
 *                  closed: nothing after step 1 ran, nothing was freed;
 *                  resumable once the kernel has finished.
 *   DRIVER         a kernel had faulted: it has ended, all five steps ran.
 *   any other      what the failing step's call returned (gnio_ctx_stop,
 *                  gnio_gpu_mem_free, ... in steps 2-4: resumable; in step
 *                  5, what gnio_ctx_start/gnio_ctx_stop returned or
 *                  BAD_STATE for a queue not STOPPED: retried once by a
 *                  later run, then final).
 * gnio_last_error_msg() names the object and the reason. */
/* @since 0.1 rollback_fail_closed: Rollback stops at a hung kernel and resumes later */
gnio_error_t gnio_rollback_run(struct gnio_rollback *rb, uint32_t deadline_ms);

/* The step the next gnio_rollback_run starts at: 1..5, or GNIO_ROLLBACK_DONE
 * when complete. Errors: INVALID_VALUE (NULL argument). */
gnio_error_t gnio_rollback_get_next_step(const struct gnio_rollback *rb, unsigned *step);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_ROLLBACK_H */
