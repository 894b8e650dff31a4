/* SPDX-License-Identifier: MIT */
/* tests/util/seen.c - see seen.h. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "seen.h"
#include "gnio/device/gnio_dev.h"

struct seen *seen_create(uint64_t cap)
{
	struct seen *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->f = calloc(cap, sizeof(*s->f));
	if (!s->f) {
		free(s);
		return NULL;
	}
	s->cap = cap;
	return s;
}

void seen_destroy(struct seen *s)
{
	if (!s)
		return;
	free(s->f);
	free(s);
}

uint64_t seen_count(const struct seen *s)
{
	uint64_t sum = 0;
	/* ACQUIRE(per_queue): each count is bumped after its entry is written */
	for (unsigned q = 0; q < SEEN_MAX_QUEUES; q++)
		sum += __atomic_load_n(&s->per_queue[q], __ATOMIC_ACQUIRE);
	return sum;
}

uint16_t seen_frame_sport(const uint8_t *f, uint32_t len)
{
	/* generated frames: Ethernet, IPv4 with IHL 5, then the L4 ports */
	if (len < 38 || f[12] != 0x08 || f[13] != 0x00)
		return 0;
	if (f[23] != 17 && f[23] != 6)
		return 0;
	return (uint16_t)(f[34] << 8 | f[35]);
}

gnio_error_t seen_kernel(const struct gnio_runner_launch *l)
{
	struct seen_kernel_arg *k = l->user;
	struct seen *s = k->seen;

	while (!gnio_gpu_dev_kernel_should_stop(l->ctl)) {
		uint64_t first = 0;
		uint32_t n = 0;
		gnio_error_t e = gnio_gpu_dev_eth_rxq_recv_thread(k->rxq, 64, 100000, &first, &n, NULL);
		if (e != GNIO_SUCCESS)
			return e;
		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *f = (const uint8_t *)(uintptr_t)gnio_gpu_dev_eth_rxq_get_pkt_addr(k->rxq, first + i);
			uint32_t len = gnio_gpu_dev_eth_rxq_get_pkt_bytes(k->rxq, first + i);
			uint64_t seq;
			if (gnio_gen_stamp_read(f, len, &seq) != GNIO_SUCCESS) {
				__atomic_fetch_add(&s->bad, 1, __ATOMIC_RELAXED);
				continue;
			}
			uint64_t at = __atomic_fetch_add(&s->n, 1, __ATOMIC_RELAXED);
			if (at >= s->cap) {
				__atomic_fetch_add(&s->bad, 1, __ATOMIC_RELAXED);
				continue;
			}
			s->f[at] = (struct seen_frame){seen_frame_sport(f, len), seq, k->queue};
			/* RELEASE(per_queue) after the entry: pairs with
			 * seen_count's acquire loads */
			__atomic_fetch_add(&s->per_queue[k->queue], 1, __ATOMIC_RELEASE);
		}
		if (!n)
			sched_yield();
	}
	gnio_gpu_dev_eth_rxq_release_thread(k->rxq);
	return GNIO_SUCCESS;
}

void seen_check_flows(const struct seen *s, struct seen_flow_report *r)
{
	/* by source port: the queue the flow went to (-1: none yet) and its
	 * last stamp + 1 (0: none yet) */
	static int8_t flow_queue[65536];
	static uint64_t flow_last[65536];
	uint64_t n = seen_count(s);

	memset(r, 0, sizeof(*r));
	memset(flow_queue, -1, sizeof(flow_queue));
	memset(flow_last, 0, sizeof(flow_last));
	if (n > s->cap)
		n = s->cap;
	for (uint64_t i = 0; i < n; i++) {
		const struct seen_frame *f = &s->f[i];
		if (flow_queue[f->sport] < 0) {
			flow_queue[f->sport] = (int8_t)f->queue;
			r->flows++;
		} else if (flow_queue[f->sport] != (int8_t)f->queue && flow_queue[f->sport] != -2) {
			flow_queue[f->sport] = -2; /* counted once */
			r->split++;
		}
		if (f->seq + 1 <= flow_last[f->sport])
			r->reordered++;
		flow_last[f->sport] = f->seq + 1;
		r->frames++;
	}
}
