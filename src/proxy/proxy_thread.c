/* SPDX-License-Identifier: MIT */
/* src/proxy/proxy_thread.c - the polling loop shared by RX and TX proxies.
 *
 * Busy mode never sleeps (after a spin it yields, which returns at once
 * unless another thread wants the core). Adaptive mode (the default) spins
 * while there is work and for a few thousand polls after, yields for a while (at most
 * YIELD_POLLS polls and YIELD_MAX_NS), then sleeps in naps that double from
 * NAP_MIN_NS to NAP_MAX_NS: an idle queue wakes about 500 times a second. A
 * TX proxy holding a timed frame never sleeps past 50 us before its send
 * time. An RX proxy sleeps on its wire (a socket or the sw FIFO wakes it
 * when a frame arrives); a TX proxy sleeps on its device's kick word, which
 * an RX proxy bumps when it delivers frames, since replies follow arrivals.
 * Any work puts the thread back to spinning.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "core/errmsg.h"
#include "gnio/dev.h"
#include "gnio/device/time.h"
#include "gnio/impl/atomics.h"
#include "proxy/proxy.h"

#define SPIN_POLLS 4096u
#define YIELD_POLLS 8192u
#define NAP_MIN_NS 20000ull
#define NAP_MAX_NS 2000000ull
#define DUE_SPIN_NS 50000ull
/* The yield phase ends after this long even when its polls are not used up:
 * where another thread wants the core (the CPU device's kernel, a busy
 * host) each sched_yield is a context switch, and 4096 of them cost an idle
 * queue about 2 % of a core per frame a second on the 2-core development VM
 * (docs/PERFORMANCE.md, "Idle cost on the development VM"). Where yields
 * return at once (about 0.5 us each there) the phase lasts as long as it
 * did. */
#define YIELD_MAX_NS 2000000ull

static void nap(uint64_t ns)
{
	struct timespec ts = gnio_timespec_ns(ns);
	nanosleep(&ts, NULL);
}

int gnio_proxy_stamps_wanted(void)
{
	const char *v = getenv("GNIO_PROXY_STAMPS");
	return v && strcmp(v, "0") && *v;
}

void gnio_proxy_kick(uint32_t *kick, uint32_t *sleepers)
{
	/* SEQ_CST pairs with the sleeper's SEQ_CST increment of *sleepers before
	 * it reads *kick: either it sees this bump, or this load sees it. */
	if (!kick || !__atomic_load_n(sleepers, __ATOMIC_SEQ_CST))
		return;
	__atomic_add_fetch(kick, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, kick, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Idle in adaptive mode for up to ns. Returns nonzero when the thread should
 * spin again: a last look found work (a TX proxy looks once more after it
 * says it sleeps, so a kick between its look and its sleep is not lost), or
 * it was kicked (frames arrived: the replies come within microseconds, so
 * it spins for them instead of sleeping again). */
static unsigned idle_wait(struct gnio_proxy_thread *t, uint64_t ns)
{
	/* Work due soon (a timed frame): spin for its last DUE_SPIN_NS, sleep
	 * no longer than until then. */
	const uint64_t due = t->due_ns ? t->due_ns(t->arg) : 0;
	if (due) {
		const uint64_t now = gnio_gpu_dev_time_ns();
		if (due <= now + DUE_SPIN_NS)
			return 0;
		if (due - now - DUE_SPIN_NS < ns)
			ns = due - now - DUE_SPIN_NS;
	}
	if (t->wait) {
		t->wait(t->arg, ns);
		return 0;
	}
	if (!t->kick) {
		nap(ns);
		return 0;
	}
	__atomic_add_fetch(t->sleepers, 1, __ATOMIC_SEQ_CST);
	uint32_t seen = __atomic_load_n(t->kick, __ATOMIC_SEQ_CST);
	unsigned work = t->step(t->arg);
	if (!work) {
		struct timespec ts = gnio_timespec_ns(ns);
		syscall(SYS_futex, t->kick, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
		work = __atomic_load_n(t->kick, __ATOMIC_SEQ_CST) != seen;
	}
	__atomic_sub_fetch(t->sleepers, 1, __ATOMIC_SEQ_CST);
	return work;
}

static void *proxy_main(void *arg)
{
	struct gnio_proxy_thread *t = arg;
	unsigned idle = 0;
	uint64_t nap_ns = NAP_MIN_NS;
	/* Naps end on time (the default slack of 50 us would make a timed
	 * frame's proxy late by up to that much). */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (t->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			GNIO_LOG_WARN("proxy", "%s: cannot pin to CPU %d", t->name, t->cpu);
	}
	const int busy = t->poll_mode == GNIO_POLL_BUSY;
	uint64_t yield_until = 0;
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		if (t->step(t->arg)) {
			idle = 0;
			nap_ns = NAP_MIN_NS;
			continue;
		}
		if (++idle < SPIN_POLLS) {
			gnio_cpu_relax();
			continue;
		}
		if (idle == SPIN_POLLS)
			yield_until = gnio_gpu_dev_time_ns() + YIELD_MAX_NS;
		if (busy || (idle < YIELD_POLLS && gnio_gpu_dev_time_ns() < yield_until)) {
			sched_yield(); /* busy: returns at once unless a thread waits for the core */
		} else if (idle_wait(t, nap_ns)) {
			idle = 0;
			nap_ns = NAP_MIN_NS;
		} else if (nap_ns < NAP_MAX_NS) {
			nap_ns *= 2;
		}
	}
	return NULL;
}

gnio_error_t gnio_proxy_thread_start(struct gnio_proxy_thread *t)
{
	t->stop = 0;
	int rc = pthread_create(&t->thread, NULL, proxy_main, t);
	if (rc)
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, "proxy", "cannot start proxy thread: %s", strerror(rc));
	pthread_setname_np(t->thread, t->name);
	t->running = 1;
	return GNIO_SUCCESS;
}

void gnio_proxy_thread_stop(struct gnio_proxy_thread *t)
{
	if (!t->running)
		return;
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	/* A TX proxy may sleep on its kick word for up to NAP_MAX_NS and an RX
	 * proxy on its wire: both wake by timeout at the latest. */
	pthread_join(t->thread, NULL);
	t->running = 0;
}
