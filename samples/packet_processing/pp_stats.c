/* SPDX-License-Identifier: MIT */
/* samples/packet_processing/pp_stats.c - the host thread the kernel's
 * counters reach through the stats semaphore: it takes each snapshot the
 * kernel posts (READY, the last one EXIT), frees its record, and prints the
 * newest once a second. */
#include <string.h>
#include <time.h>

#include "pp_host.h"

#define FINAL_WAIT_S 3.0

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pp_stats_line(FILE *f, double t, const struct pp_counters *c)
{
	fprintf(f,
		"[%5.1fs] icmp %llu (replied %llu) arp %llu (replied %llu) | dns %llu udp %llu | tcp syn %llu fin %llu "
		"other %llu | http get %llu post %llu head %llu (answered %llu) | other %llu\n",
		t, (unsigned long long)c->kind[PP_ICMP], (unsigned long long)c->icmp_replies,
		(unsigned long long)c->kind[PP_ARP], (unsigned long long)c->arp_replies,
		(unsigned long long)c->kind[PP_DNS], (unsigned long long)c->kind[PP_UDP_OTHER],
		(unsigned long long)c->kind[PP_TCP_SYN], (unsigned long long)c->kind[PP_TCP_FIN],
		(unsigned long long)c->kind[PP_TCP_OTHER], (unsigned long long)c->kind[PP_HTTP_GET],
		(unsigned long long)c->kind[PP_HTTP_POST], (unsigned long long)c->kind[PP_HTTP_HEAD],
		(unsigned long long)c->http_replies, (unsigned long long)c->kind[PP_OTHER]);
}

static void *stats_main(void *arg)
{
	struct pp_stats_reader *r = arg;
	double last_print = now_s(), stop_at = 0;
	for (;;) {
		enum gnio_gpu_semaphore_status st;
		/* ACQUIRE(status) pairs with the kernel's RELEASE in
		 * pp_post_stats: the snapshot is complete. */
		if (gnio_gpu_semaphore_get_status(r->sem, r->idx, &st) == GNIO_SUCCESS &&
		    (st == GNIO_GPU_SEMAPHORE_STATUS_READY || st == GNIO_GPU_SEMAPHORE_STATUS_EXIT)) {
			void *info;
			gnio_gpu_semaphore_get_custom_info_addr(r->sem, r->idx, &info);
			memcpy(&r->latest, info, sizeof(r->latest));
			r->snapshots++;
			gnio_gpu_semaphore_set_status(r->sem, r->idx, GNIO_GPU_SEMAPHORE_STATUS_FREE);
			r->idx = (r->idx + 1) % PP_STATS_ITEMS;
			if (st == GNIO_GPU_SEMAPHORE_STATUS_EXIT) {
				r->have_final = 1;
				break;
			}
			continue;
		}
		double t = now_s();
		if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
			if (!stop_at)
				stop_at = t;
			else if (t - stop_at > FINAL_WAIT_S)
				break; /* the kernel never posted its last snapshot */
		}
		if (t - last_print >= 1.0) {
			if (r->snapshots)
				pp_stats_line(stderr, t - r->t0, &r->latest);
			last_print = t;
		}
		struct timespec nap = {0, 1000000};
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int pp_stats_start(struct pp_stats_reader *r)
{
	r->stop = 0;
	r->running = pthread_create(&r->thread, NULL, stats_main, r) == 0;
	return r->running ? 0 : -1;
}

void pp_stats_stop(struct pp_stats_reader *r)
{
	if (!r->running)
		return;
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	pthread_join(r->thread, NULL);
	r->running = 0;
}
