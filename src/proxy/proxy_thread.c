/* SPDX-License-Identifier: MIT */
/* src/proxy/proxy_thread.c - the polling loop shared by RX and TX proxies. */
#include <sched.h>
#include <string.h>
#include <time.h>
#include "core/errmsg.h"
#include "gnio/impl/atomics.h"
#include "proxy/proxy.h"

/* Spin first (lowest latency), then yield, then sleep briefly so an idle
 * queue does not hold a core: a 2-core CI machine runs a kernel thread, a
 * proxy and the generator at once. */
#define SPIN_POLLS 4096u
#define YIELD_POLLS 8192u
#define IDLE_SLEEP_NS 20000

static void *proxy_main(void *arg)
{
	struct gnio_proxy_thread *t = arg;
	unsigned idle = 0;
	if (t->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			GNIO_LOG_WARN("proxy", "%s: cannot pin to CPU %d", t->name, t->cpu);
	}
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		if (t->step(t->arg)) {
			idle = 0;
			continue;
		}
		idle++;
		if (idle < SPIN_POLLS) {
			gnio_cpu_relax();
		} else if (idle < YIELD_POLLS) {
			sched_yield();
		} else {
			struct timespec ts = {0, IDLE_SLEEP_NS};
			nanosleep(&ts, NULL);
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
	pthread_join(t->thread, NULL);
	t->running = 0;
}
