/* SPDX-License-Identifier: MIT */
/*
 * src/proxy/steer.h - fan-out between the RX proxies of one wire, for the
 * steering rules of a gnio_flow (docs/flow.md, "Where the proxy steers").
 *
 * Each RX ring keeps a single producer, its own proxy. A frame that a rule
 * sends to another queue is copied into that queue's inbox: a bounded
 * multi-producer, single-consumer ring of frame cells. Producers reserve a
 * run of cells with one CAS per burst, fill them, and publish each cell with
 * a release store of its sequence word; the destination proxy takes cells in
 * order while their sequence says "published" and moves them into its own
 * ring like frames from its wire.
 *
 * Lifetime: the dev holds one gnio_steer_slot per queue id for as long as it
 * is open. A queue opens its slot when it starts and closes it when it stops
 * or quiesces; closing waits until no producer is inside the slot, then takes
 * what is left (counted as stopped by the destination). A producer that
 * finds the slot closed counts the frames as stopped itself, so every frame
 * is counted exactly once.
 */
#ifndef GNIO_SRC_PROXY_STEER_H
#define GNIO_SRC_PROXY_STEER_H

#include <stdint.h>
#include "gnio/error.h"

#define GNIO_STEER_MAX_QUEUES 64   /* queue ids a rule can reach: 0..63 */
#define GNIO_STEER_INBOX_CELLS 1024u

struct gnio_steer_cell {
	uint64_t seq;   /* cell index + 1 once published (RELEASE by the producer) */
	uint32_t len;   /* true frame length; bytes copied: min(len, cell_size) */
	uint32_t reserved;
	uint64_t ts_ns;
};

struct gnio_steer_inbox {
	/* producers CAS head; the consumer alone writes tail: own cache lines */
	uint64_t head __attribute__((aligned(64)));
	uint64_t tail __attribute__((aligned(64)));
	uint32_t cells __attribute__((aligned(64)));
	uint32_t mask;
	uint32_t cell_size;
	struct gnio_steer_cell *meta;
	uint8_t *data;
};

/* One per queue id in the dev. */
struct gnio_steer_slot {
	struct gnio_steer_inbox *box; /* set while open */
	uint32_t open;                /* 1 while the destination takes frames */
	uint32_t busy;                /* producers inside the slot now */
	uint32_t was_open;            /* has been open: a closed slot means stopped, not never started */
};

/* A frame on its way to another queue. */
struct gnio_steer_frame {
	const uint8_t *data;
	uint32_t len;
	uint64_t ts_ns;
};

/* Control side, on the destination queue's start: allocate its inbox (cells
 * of cell_size bytes) and open the slot. Errors: NO_MEMORY. */
gnio_error_t gnio_steer_open(struct gnio_steer_slot *slot, uint32_t cell_size);
/* On its stop or quiesce: close the slot, wait for producers inside it to
 * leave, and return how many frames were left in the inbox (the caller
 * counts them as stopped). Frees the inbox. Idempotent. */
uint64_t gnio_steer_close(struct gnio_steer_slot *slot);

/* Producer (a source proxy): copy up to n frames into slot's inbox. Returns
 * how many went in; *closed is set when the slot was closed (then nothing
 * went in). The rest found the inbox full. A frame longer than the cells is
 * passed on with its length only (the destination counts it too_big). */
unsigned gnio_steer_push(struct gnio_steer_slot *slot, const struct gnio_steer_frame *f, unsigned n,
			 int *closed);

/* Consumer (the destination proxy): the next published cells, up to max, in
 * order, without taking them. Returns the count; cell i is at
 * gnio_steer_cell_at(box, first + i). */
unsigned gnio_steer_peek(struct gnio_steer_inbox *box, unsigned max, uint64_t *first);
/* Hand n peeked cells back to the producers. */
void gnio_steer_take(struct gnio_steer_inbox *box, unsigned n);

static inline struct gnio_steer_cell *gnio_steer_cell_at(struct gnio_steer_inbox *box, uint64_t idx)
{
	return &box->meta[idx & box->mask];
}
static inline const uint8_t *gnio_steer_data_at(struct gnio_steer_inbox *box, uint64_t idx)
{
	return box->data + (size_t)(idx & box->mask) * box->cell_size;
}

#endif
