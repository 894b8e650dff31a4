/* SPDX-License-Identifier: MIT */
/*
 * gnio/sw.h - the peer end of the in-process software wire `sw:NAME`.
 *
 * gnio_dev_open("sw:NAME") creates the wire; gnio_sw_peer_open("NAME") gives a
 * test or a generator its other end: frames it sends arrive at gnio's RX
 * queues, and frames gnio's TX queues send arrive at it. Each queue direction
 * is a bounded FIFO (depth option, default 4096 frames); a frame sent into a
 * full FIFO is dropped and counted as wire_overflow.
 */
#ifndef GNIO_SW_H
#define GNIO_SW_H

#include <stdint.h>
#include "error.h"
#include "gen.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_sw_peer;

struct gnio_sw_peer_stats {
	uint64_t offered;      /* frames the peer (and its generator) sent toward gnio */
	uint64_t overflow;     /* of those, dropped because the wire FIFO was full */
	uint64_t gen_sent;     /* of offered, frames built by the attached generator */
	uint64_t received;     /* frames gnio sent that the peer took */
	uint64_t tx_pending;   /* frames gnio sent that wait in the peer's FIFO */
	uint64_t tx_overflow;  /* tx_burst calls that found the peer FIFO full (gnio retried; none dropped) */
};

/* Errors: INVALID_VALUE, NOT_FOUND (no open sw wire of that name). */
/* @since 0.1 sw_wire_peer: Software wire with a test peer */
gnio_error_t gnio_sw_peer_open(const char *name, struct gnio_sw_peer **peer);
gnio_error_t gnio_sw_peer_close(struct gnio_sw_peer *peer);
/* Send one frame into queue q. SUCCESS when queued; FULL when dropped (and
 * counted as wire_overflow); INVALID_VALUE for len 0 or above 65535;
 * NOT_CONNECTED when the wire was closed. */
gnio_error_t gnio_sw_peer_send(struct gnio_sw_peer *peer, uint16_t queue, const void *frame, uint32_t len);
/* Take one frame gnio sent on queue q. EMPTY if none; TOO_BIG if cap is too
 * small (the frame stays queued, *len says how much is needed). */
gnio_error_t gnio_sw_peer_recv(struct gnio_sw_peer *peer, uint16_t queue, void *buf, uint32_t cap,
			       uint32_t *len, uint64_t *ts_ns);
/* Attach a generator that feeds queue q from inside the wire, paced by
 * cfg->rate_pps (0: as fast as the proxy reads) and stopping after cfg->count.
 * Errors: INVALID_VALUE (bad config), IN_USE (one already attached). */
gnio_error_t gnio_sw_peer_gen_attach(struct gnio_sw_peer *peer, uint16_t queue, const struct gnio_gen_cfg *cfg);
/* Stop the generator; later frames are not offered. */
gnio_error_t gnio_sw_peer_gen_detach(struct gnio_sw_peer *peer, uint16_t queue);
/* 1 when the generator has sent cfg->count frames (or none is attached). */
int gnio_sw_peer_gen_done(struct gnio_sw_peer *peer, uint16_t queue);
gnio_error_t gnio_sw_peer_get_stats(struct gnio_sw_peer *peer, uint16_t queue, struct gnio_sw_peer_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_SW_H */
