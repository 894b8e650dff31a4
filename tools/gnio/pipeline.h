/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/pipeline.h - what configure, test, debug and rollback share: the
 * library's bring-up (gnio_pipeline_create, gnio/pipeline.h) on a wire the
 * verb opened with its peer end, and the five-step rollback with each step
 * reported through a callback so each verb can print, log or record it.
 * Rollback (pipe_rollback):
 *   1 stop the kernel (host flag, poll until done or the deadline); on
 *     TIME_OUT fail closed: nothing below runs, nothing is freed
 *   2 destroy buffer arrays in reverse registration order
 *   3 stop the queues' GPU datapath (handles and rings go), destroy them
 *   4 free device memory, destroy the device context
 *   5 re-verify the wire: a fresh queue on the same open wire receives
 */
#ifndef GNIO_TOOLS_PIPELINE_H
#define GNIO_TOOLS_PIPELINE_H

#include <stdint.h>
#include "gnio/apps/apps.h"
#include "gnio/device/gnio_dev.h"
#include "caps.h"

struct pipe_cfg {
	const char *gpu;        /* bus id or "cpu" */
	const char *wire;       /* spec */
	const char *peer_iface; /* non-sw wires: the interface the peer sends on */
	uint32_t ring, slot, burst, tx_ring;
	int with_tx;
	int register_rx_pool;
	uint16_t peer_queue;    /* queue the peer sends into (fault injection) */
};

struct pipe {
	struct pipe_cfg cfg;
	struct gnio_pipeline *pl;
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;  /* sw wires */
	int peer_fd;                /* other wires: AF_PACKET socket, -1 none */
	void *rx_mem, *stats_mem;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	struct gnio_gpu_eth_rxq *rxh;
	struct gnio_gpu_eth_txq *txh;
	struct gnio_app_stats *stats_cpu;
	struct gnio_app_args args;
	struct gnio_runner *runner;
	int hung;                   /* rollback failed closed */
};

/* Step reporter: layer is "environment" or "program" (where the fix lies). */
typedef void (*pipe_step_fn)(void *user, const char *step, gnio_error_t err, const char *layer,
			     const char *detail);

void pipe_cfg_default(struct pipe_cfg *c, const char *wire, const char *gpu);
/* Bring up everything but the kernel; stops at the first failing step. */
gnio_error_t pipe_up(struct pipe *p, const struct pipe_cfg *cfg, pipe_step_fn fn, void *user);
gnio_error_t pipe_launch(struct pipe *p, const char *app, pipe_step_fn fn, void *user);
/* The five-step rollback. TIME_OUT leaves p->hung set and everything held. */
gnio_error_t pipe_rollback(struct pipe *p, uint32_t deadline_ms, int verify, pipe_step_fn fn, void *user);

/* Peer side (sw peer or AF_PACKET on cfg.peer_iface). */
gnio_error_t pipe_peer_send(struct pipe *p, const void *frame, uint32_t len);
/* Receive one frame of exactly want_len bytes equal to want, or time out. */
int pipe_peer_expect(struct pipe *p, const uint8_t *want, uint32_t want_len, unsigned timeout_ms);
/* Frames the kernel counted. */
uint64_t pipe_kernel_packets(const struct pipe *p);
int pipe_wait_packets(struct pipe *p, uint64_t n, unsigned timeout_ms);

/* JSON maps the snapshot needs: allocations, queues, stop flag. */
void pipe_json_maps(struct json *j, const struct pipe *p);
uint64_t now_ms(void);
void sleep_ms(unsigned ms);

#endif
