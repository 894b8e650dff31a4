/* SPDX-License-Identifier: MIT */
/*
 * gnio/device/eth_txq.h - send from a persistent kernel (DOCA:
 * doca_gpu_dev_eth_txq_*). Many threads may send into one queue at once.
 *
 * Slot style (no copy): reserve tickets, write each frame into its pool slot
 * gnio_dev_eth_txq_slot_addr(q, ticket), then commit. Slot k of the pool
 * belongs to ticket k modulo the ring size, and is free once the ticket is
 * reserved, because reserve only hands out entries the proxy has completed.
 *
 * Buffer style: gnio_dev_eth_txq_send(q, addr, len) for a frame anywhere in
 * the registered pool; the caller must not reuse the bytes until
 * gnio_dev_eth_txq_completed() has passed the returned ticket.
 *
 * A full ring gives GNIO_ERROR_AGAIN: drain completions, do not spin on it.
 */
#ifndef GNIO_DEVICE_ETH_TXQ_H
#define GNIO_DEVICE_ETH_TXQ_H

#include "../impl/ring.h"
#include "time.h"

/* @since 0.1 dev_txq_slot_send: Device-side slot send (reserve, write, commit) */
GNIO_DEV gnio_error_t gnio_dev_eth_txq_reserve(const struct gnio_gpu_eth_txq *q, uint32_t n, uint64_t *ticket)
{
	return gnio_tx_ring_reserve(q, n, ticket);
}

GNIO_DEV uint8_t *gnio_dev_eth_txq_slot_addr(const struct gnio_gpu_eth_txq *q, uint64_t ticket)
{
	return q->pool + (uint64_t)(ticket & q->mask) * q->slot_size;
}

/* Commit the frame in ticket's slot; send_at_ns 0 = now. */
GNIO_DEV void gnio_dev_eth_txq_commit(const struct gnio_gpu_eth_txq *q, uint64_t ticket, uint32_t len,
				      uint64_t send_at_ns)
{
	gnio_tx_ring_commit(q, ticket, (uint64_t)(ticket & q->mask) * q->slot_size, len,
			    send_at_ns ? GNIO_TX_F_TIMED : 0u, send_at_ns);
}

/* Send len bytes at addr (inside the registered pool) at send_at_ns (0 = now).
 * Errors: BAD_STATE (no pool registered), INVALID_VALUE (outside the pool or
 * zero length), AGAIN (ring full). */
/* @since 0.1 dev_txq_send: Device-side send, many senders per queue */
GNIO_DEV gnio_error_t gnio_dev_eth_txq_send_at(const struct gnio_gpu_eth_txq *q, const uint8_t *addr, uint32_t len,
					       uint64_t send_at_ns, uint64_t *ticket_out)
{
	if (GNIO_UNLIKELY(q->pool == NULL))
		return GNIO_ERROR_BAD_STATE;
	if (GNIO_UNLIKELY(len == 0 || addr < q->pool || (uint64_t)(addr - q->pool) + len > q->pool_size))
		return GNIO_ERROR_INVALID_VALUE;
	uint64_t t;
	gnio_error_t err = gnio_tx_ring_reserve(q, 1, &t);
	if (err != GNIO_SUCCESS)
		return err;
	gnio_tx_ring_commit(q, t, (uint64_t)(addr - q->pool), len, send_at_ns ? GNIO_TX_F_TIMED : 0u,
			    send_at_ns);
	if (ticket_out)
		*ticket_out = t;
	return GNIO_SUCCESS;
}

GNIO_DEV gnio_error_t gnio_dev_eth_txq_send(const struct gnio_gpu_eth_txq *q, const uint8_t *addr, uint32_t len)
{
	return gnio_dev_eth_txq_send_at(q, addr, len, 0, (uint64_t *)0);
}

/* Number of descriptors the proxy has completed (a free-running index):
 * every ticket below it has left the queue. */
GNIO_DEV uint64_t gnio_dev_eth_txq_completed(const struct gnio_gpu_eth_txq *q)
{
	return gnio_tx_ring_done(q);
}

/* Descriptors the proxy failed to send so far. */
GNIO_DEV uint64_t gnio_dev_eth_txq_errors(const struct gnio_gpu_eth_txq *q)
{
	return gnio_load_acquire_u64(&q->sh->errors);
}

#endif /* GNIO_DEVICE_ETH_TXQ_H */
