/* SPDX-License-Identifier: MIT */
/*
 * samples/packet_processing/pp_host.h - the host side of packet_processing
 * beyond main: the HTTP pages (pp_pages.c), the flow table's writer
 * (pp_flow.c), the TCP path that answers handshakes and teardowns
 * (pp_tcp_path.c), and the thread that reads the kernel's counter snapshots
 * from the stats semaphore and prints them every second (pp_stats.c).
 */
#ifndef GNIO_SAMPLE_PP_HOST_H
#define GNIO_SAMPLE_PP_HOST_H

#include <pthread.h>
#include <stdio.h>

#include <gnio/gnio.h>
#include "packet_processing.h"

/* Write the index page and the not-found response into shared. */
void pp_pages_init(struct pp_shared *shared, const char *device);

/* The flow table's only writer. insert: 0, or -1 when the key's probe window
 * is full. remove: 1 when it was there. */
int pp_flow_insert(uint64_t *flows, uint64_t key);
int pp_flow_remove(uint64_t *flows, uint64_t key);
/* Our initial sequence number for a flow: a keyed hash, so it is not
 * guessable from outside and needs no state. */
uint32_t pp_isn(uint64_t key, uint64_t secret);

struct pp_tcp_path {
	struct gnio_gpu_semaphore *tcp_sem; /* from the kernel: SYN, FIN, RST segments */
	struct gnio_gpu_semaphore *tx_sem;  /* to the kernel: the answers */
	struct pp_shared *shared;           /* host view: the flow table */
	uint32_t ip;                        /* ours, as stored in memory */
	uint64_t secret;
	pthread_t thread;
	int running, stop;
	uint32_t rx_idx, tx_idx;
	/* what it did (read after stop) */
	uint64_t segments, syn_acks, fin_acks, resets_sent, resets_seen, opened, closed, tx_full, ignored;
	/* left at stop (pp_tcp_path_count_left): answers the kernel never took,
	 * segments this path never read */
	uint64_t tx_unsent, unhandled;
};

/* Start the thread. Returns 0, or -1 (pthread_create failed). */
int pp_tcp_path_start(struct pp_tcp_path *p);
void pp_tcp_path_stop(struct pp_tcp_path *p);
/* Before the kernel stops: wait up to timeout_ns until this path has read
 * every segment handed to it and the kernel has sent every answer (both
 * semaphores all FREE). Returns 1 drained, 0 timed out. */
int pp_tcp_path_drain(struct pp_tcp_path *p, uint64_t timeout_ns);
/* After the kernel and this path stopped: count what is left in the
 * semaphores (tx_unsent, unhandled), so the books close on a loaded
 * machine where the drain timed out. */
void pp_tcp_path_count_left(struct pp_tcp_path *p);

struct pp_stats_reader {
	struct gnio_gpu_semaphore *sem;
	double t0;                 /* CLOCK_MONOTONIC seconds: the live lines' clock */
	pthread_t thread;
	int running, stop;
	uint32_t idx;
	struct pp_counters latest; /* the newest snapshot */
	uint64_t snapshots;
	int have_final;            /* the kernel's EXIT snapshot arrived */
};

/* Read snapshots as the kernel posts them, print the newest every second
 * on stderr, until the EXIT snapshot; stop() waits up to 3 s for it. */
int pp_stats_start(struct pp_stats_reader *r);
void pp_stats_stop(struct pp_stats_reader *r);
void pp_stats_line(FILE *f, double t, const struct pp_counters *c);

#endif /* GNIO_SAMPLE_PP_HOST_H */
