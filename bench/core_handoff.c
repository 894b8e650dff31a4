/* SPDX-License-Identifier: MIT */
/*
 * bench/core_handoff.c - what one hand-off between two host threads costs,
 * for every pair of CPUs.
 *
 * Every frame on a gnio wire crosses host threads: the peer (or the NIC's
 * socket) to the RX proxy, the TX proxy back to the peer. Each crossing is at
 * least one cache line moving from one core to another, so the fastest
 * round trip the host side of an echo can make is bounded by these figures,
 * and a pair of CPUs that hands over slowly makes every frame slow. This
 * measures them: two threads pinned to CPUs a and b pass a counter back and
 * forth through one cache line (each waits for the other's value with a
 * plain spin), and the median round trip over --rounds is reported. A
 * second line carries a 64-byte "frame" in the flag's wake, as a proxy
 * hand-off does (index and payload on separate lines).
 *
 *   core_handoff [--cpus LIST] [--rounds N] [--json]
 *
 * Prints a matrix of the median round trip in ns (one line + one data line),
 * the fastest and slowest pairs, and with --json one object per pair.
 * Exit 0; 1 when a pair could not be measured; 2 on bad usage (a CPU named
 * twice or not available); 77 when fewer than two CPUs are given or usable.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnio/impl/atomics.h"

#define MAX_CPUS 256
#define LINE 64
#define DEFAULT_ROUNDS 20000u
#define WARM_ROUNDS 1000u

struct shared {
	_Alignas(LINE) uint64_t ping; /* written by a */
	_Alignas(LINE) uint64_t pong; /* written by b */
	_Alignas(LINE) uint8_t frame[LINE];
	int cpu_b;
	uint32_t rounds;
	int with_frame;
	int ready; /* the responder is pinned and polling (atomic) */
};

static volatile uint8_t frame_sink; /* the responder's reads of the frame stay */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pin_self(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* b: answer every ping (after reading the frame when there is one). */
static void *responder(void *arg)
{
	struct shared *s = arg;
	if (pin_self(s->cpu_b))
		return (void *)1;
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	for (uint64_t i = 1; i <= (uint64_t)s->rounds + WARM_ROUNDS; i++) {
		while (gnio_load_acquire_u64(&s->ping) != i)
			gnio_cpu_relax();
		if (s->with_frame)
			frame_sink = ((volatile uint8_t *)s->frame)[(i * 7) & (LINE - 1)];
		gnio_store_release_u64(&s->pong, i);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Median round trip (ns) between CPUs a and b; 0 when either cannot be used. */
static uint64_t pair_rtt(int a, int b, uint32_t rounds, int with_frame, uint64_t *samples)
{
	struct shared *s = aligned_alloc(LINE, sizeof(*s));
	pthread_t th;
	void *rc = NULL;
	if (!s)
		return 0;
	memset(s, 0, sizeof(*s));
	s->cpu_b = b;
	s->rounds = rounds;
	s->with_frame = with_frame;
	if (pin_self(a) || pthread_create(&th, NULL, responder, s)) {
		free(s);
		return 0;
	}
	while (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
		gnio_cpu_relax();
	for (uint64_t i = 1; i <= (uint64_t)rounds + WARM_ROUNDS; i++) {
		const uint64_t t0 = now_ns();
		if (with_frame)
			memset(s->frame, (int)i, LINE);
		gnio_store_release_u64(&s->ping, i);
		while (gnio_load_acquire_u64(&s->pong) != i)
			gnio_cpu_relax();
		if (i > WARM_ROUNDS)
			samples[i - WARM_ROUNDS - 1] = now_ns() - t0;
	}
	pthread_join(th, &rc);
	free(s);
	if (rc)
		return 0;
	qsort(samples, rounds, sizeof(*samples), cmp_u64);
	return samples[rounds / 2];
}

static int parse_cpus(const char *text, int *cpus)
{
	int n = 0;
	const char *p = text;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p || lo < 0)
			return -1;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo)
				return -1;
		}
		for (long c = lo; c <= hi; c++) {
			if (n == MAX_CPUS || c >= MAX_CPUS)
				return -1;
			cpus[n++] = (int)c;
		}
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		p = end;
	}
	return n;
}

int main(int argc, char **argv)
{
	int cpus[MAX_CPUS], n = 0, json = 0;
	uint32_t rounds = DEFAULT_ROUNDS;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
			n = parse_cpus(argv[++i], cpus);
			if (n < 0) {
				fprintf(stderr, "core_handoff: bad --cpus list\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);
			if (*end || v < 100 || v > 10000000) {
				fprintf(stderr, "core_handoff: --rounds takes 100..10000000\n");
				return 2;
			}
			rounds = (uint32_t)v;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else {
			fprintf(stderr, "usage: core_handoff [--cpus LIST] [--rounds N] [--json]\n");
			return 2;
		}
	}
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return 77;
	if (!n) {
		for (int c = 0; c < MAX_CPUS && c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[n++] = c;
	}
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			if (cpus[j] == cpus[i]) {
				fprintf(stderr, "core_handoff: CPU %d is named twice\n", cpus[i]);
				return 2;
			}
		if (!CPU_ISSET(cpus[i], &allowed)) {
			fprintf(stderr, "core_handoff: CPU %d is not one this process may run on\n", cpus[i]);
			return 2;
		}
	}
	if (n < 2) {
		printf("SKIP: core_handoff needs two CPUs\n");
		return 77;
	}
	uint64_t *samples = malloc(sizeof(*samples) * rounds);
	uint64_t *flag_rtt = calloc((size_t)n * n, sizeof(*flag_rtt));
	uint64_t *frame_rtt = calloc((size_t)n * n, sizeof(*frame_rtt));
	if (!samples || !flag_rtt || !frame_rtt)
		return 1;
	int unmeasured = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			flag_rtt[i * n + j] = flag_rtt[j * n + i] = pair_rtt(cpus[i], cpus[j], rounds, 0, samples);
			frame_rtt[i * n + j] = frame_rtt[j * n + i] = pair_rtt(cpus[i], cpus[j], rounds, 1, samples);
			if (!flag_rtt[i * n + j] || !frame_rtt[i * n + j]) {
				fprintf(stderr, "core_handoff: CPUs %d and %d could not be measured\n", cpus[i], cpus[j]);
				unmeasured++;
			}
		}
	uint64_t best = UINT64_MAX, worst = 0;
	int bi = 0, bj = 1, wi = 0, wj = 1;
	printf("median round trip (ns) between two pinned threads, %u rounds; flag / flag + 64-byte frame\n", rounds);
	printf("%5s", "cpu");
	for (int j = 0; j < n; j++)
		printf(" %9d", cpus[j]);
	printf("\n");
	for (int i = 0; i < n; i++) {
		printf("%5d", cpus[i]);
		for (int j = 0; j < n; j++) {
			const uint64_t f = flag_rtt[i * n + j], d = frame_rtt[i * n + j];
			if (i == j)
				printf(" %9s", "-");
			else
				printf(" %4llu/%-4llu", (unsigned long long)f, (unsigned long long)d);
			if (i < j && f && f < best) {
				best = f;
				bi = i;
				bj = j;
			}
			if (i < j && f > worst) {
				worst = f;
				wi = i;
				wj = j;
			}
		}
		printf("\n");
	}
	printf("fastest pair %d,%d: %llu ns; slowest pair %d,%d: %llu ns\n", cpus[bi], cpus[bj],
	       (unsigned long long)best, cpus[wi], cpus[wj], (unsigned long long)worst);
	if (json)
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				printf("{\"bench\":\"core_handoff\",\"cpu_a\":%d,\"cpu_b\":%d,\"rounds\":%u,"
				       "\"rtt_ns\":%llu,\"rtt_frame_ns\":%llu}\n",
				       cpus[i], cpus[j], rounds, (unsigned long long)flag_rtt[i * n + j],
				       (unsigned long long)frame_rtt[i * n + j]);
	free(samples);
	free(flag_rtt);
	free(frame_rtt);
	return unmeasured ? 1 : 0;
}
