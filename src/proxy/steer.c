/* SPDX-License-Identifier: MIT */
/* src/proxy/steer.c - the inboxes between RX proxies (steer.h). */
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "gnio/impl/atomics.h"
#include "proxy/steer.h"

gnio_error_t gnio_steer_open(struct gnio_steer_slot *slot, uint32_t cell_size)
{
	struct gnio_steer_inbox *box = calloc(1, sizeof(*box));
	if (!box)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "steer", "out of memory");
	box->cells = GNIO_STEER_INBOX_CELLS;
	box->mask = box->cells - 1;
	box->cell_size = (cell_size + 63u) & ~63u;
	box->meta = calloc(box->cells, sizeof(*box->meta));
	box->data = malloc((size_t)box->cells * box->cell_size);
	if (!box->meta || !box->data) {
		free(box->meta);
		free(box->data);
		free(box);
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "steer", "out of memory for a %u-cell inbox", GNIO_STEER_INBOX_CELLS);
	}
	/* RELEASE(box) then SEQ_CST(open): a producer that sees open sees the
	 * initialised inbox (pairs with the loads in gnio_steer_push). */
	__atomic_store_n(&slot->box, box, __ATOMIC_RELEASE);
	__atomic_store_n(&slot->was_open, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->open, 1, __ATOMIC_SEQ_CST);
	return GNIO_SUCCESS;
}

uint64_t gnio_steer_close(struct gnio_steer_slot *slot)
{
	struct gnio_steer_inbox *box = __atomic_load_n(&slot->box, __ATOMIC_ACQUIRE);
	if (!box)
		return 0;
	/* Dekker with gnio_steer_push: open=0 then read busy, against busy++
	 * then read open (all SEQ_CST). Either the producer sees the slot
	 * closed, or we see it inside and wait until its push has landed. */
	__atomic_store_n(&slot->open, 0, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&slot->busy, __ATOMIC_SEQ_CST))
		gnio_cpu_relax();
	/* Every reserved cell is published now: the rest of the inbox. */
	uint64_t left = __atomic_load_n(&box->head, __ATOMIC_ACQUIRE) - box->tail;
	__atomic_store_n(&slot->box, NULL, __ATOMIC_RELAXED);
	free(box->meta);
	free(box->data);
	free(box);
	return left;
}

unsigned gnio_steer_push(struct gnio_steer_slot *slot, const struct gnio_steer_frame *f, unsigned n, int *closed)
{
	*closed = 0;
	__atomic_fetch_add(&slot->busy, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&slot->open, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&slot->busy, 1, __ATOMIC_RELEASE);
		*closed = 1;
		return 0;
	}
	struct gnio_steer_inbox *box = __atomic_load_n(&slot->box, __ATOMIC_ACQUIRE);
	uint64_t head = __atomic_load_n(&box->head, __ATOMIC_RELAXED);
	unsigned k;
	for (;;) {
		/* ACQUIRE(tail): the consumer is done with the cells below it
		 * (pairs with the RELEASE in gnio_steer_take). */
		uint64_t tail = __atomic_load_n(&box->tail, __ATOMIC_ACQUIRE);
		uint64_t room = box->cells - (head - tail);
		k = room < n ? (unsigned)room : n;
		if (!k)
			break;
		if (__atomic_compare_exchange_n(&box->head, &head, head + k, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	}
	for (unsigned i = 0; i < k; i++) {
		uint64_t idx = head + i;
		struct gnio_steer_cell *c = gnio_steer_cell_at(box, idx);
		uint32_t bytes = f[i].len <= box->cell_size ? f[i].len : 0; /* longer: too_big at the destination */
		memcpy(box->data + (size_t)(idx & box->mask) * box->cell_size, f[i].data, bytes);
		c->len = f[i].len;
		c->ts_ns = f[i].ts_ns;
		/* RELEASE(seq): the bytes and length are in place (pairs with
		 * the ACQUIRE in gnio_steer_peek). */
		__atomic_store_n(&c->seq, idx + 1, __ATOMIC_RELEASE);
	}
	/* RELEASE(busy): a closing consumer that sees us gone sees the cells. */
	__atomic_fetch_sub(&slot->busy, 1, __ATOMIC_RELEASE);
	return k;
}

unsigned gnio_steer_peek(struct gnio_steer_inbox *box, unsigned max, uint64_t *first)
{
	uint64_t tail = box->tail;
	unsigned k = 0;
	while (k < max && __atomic_load_n(&gnio_steer_cell_at(box, tail + k)->seq, __ATOMIC_ACQUIRE) == tail + k + 1)
		k++;
	*first = tail;
	return k;
}

void gnio_steer_take(struct gnio_steer_inbox *box, unsigned n)
{
	/* RELEASE(tail): we have copied the cells out (pairs with the ACQUIRE
	 * in gnio_steer_push). */
	__atomic_store_n(&box->tail, box->tail + n, __ATOMIC_RELEASE);
}
