/* SPDX-License-Identifier: MIT */
/*
 * gnio/device/eth_rxq.h - receive from a GPU RX handle inside a persistent
 * kernel (DOCA: doca_gpu_dev_eth_rxq_recv). One consumer per queue: a thread,
 * a warp or a block owns it. Each recv first releases the batch returned by
 * the previous recv, then returns (first index, count) of new frames, waiting
 * up to timeout_ns (0: do not wait) for at least one.
 *
 * On the CPU device the warp and block forms are the thread form.
 */
#ifndef GNIO_DEVICE_ETH_RXQ_H
#define GNIO_DEVICE_ETH_RXQ_H

#include "../impl/ring.h"
#include "time.h"
#if !GNIO_ON_GPU
#include <sched.h>
#endif

/* @since 0.1 dev_rxq_recv: Device-side receive (thread, warp, block scope) */
GNIO_DEV gnio_error_t gnio_dev_eth_rxq_recv_thread(const struct gnio_gpu_eth_rxq *q, uint32_t max,
						   uint64_t timeout_ns, uint64_t *first, uint32_t *count)
{
	*count = 0;
	*first = 0;
	if (GNIO_UNLIKELY(q->pool == NULL))
		return GNIO_ERROR_BAD_STATE; /* no payload pool was registered */
	if (GNIO_UNLIKELY(max == 0))
		return GNIO_ERROR_INVALID_VALUE;
	gnio_rx_ring_release(q);
	uint32_t n = gnio_rx_ring_take(q, max, first);
	if (n == 0 && timeout_ns != 0) {
		uint64_t start = gnio_dev_time_ns();
#if !GNIO_ON_GPU
		unsigned spins = 0;
#endif
		do {
			gnio_cpu_relax();
#if !GNIO_ON_GPU
			/* A CPU-device kernel shares cores with the proxies that
			 * feed it: after a short spin, let them run. */
			if (++spins > 64)
				sched_yield();
#endif
			n = gnio_rx_ring_take(q, max, first);
		} while (n == 0 && gnio_dev_time_ns() - start < timeout_ns);
	}
	*count = n;
	return GNIO_SUCCESS;
}

#if GNIO_ON_GPU
/* Lane 0 receives for the warp; every lane gets the same result. All 32 lanes
 * must call it. The previous batch is released only once every lane is here. */
GNIO_DEV gnio_error_t gnio_dev_eth_rxq_recv_warp(const struct gnio_gpu_eth_rxq *q, uint32_t max,
						 uint64_t timeout_ns, uint64_t *first, uint32_t *count)
{
	uint32_t err = 0, n = 0;
	unsigned long long f = 0;
	__syncwarp();
	if ((threadIdx.x & 31) == 0) {
		uint64_t f64;
		err = (uint32_t)gnio_dev_eth_rxq_recv_thread(q, max, timeout_ns, &f64, &n);
		f = f64;
	}
	err = __shfl_sync(0xffffffffu, err, 0);
	n = __shfl_sync(0xffffffffu, n, 0);
	f = __shfl_sync(0xffffffffu, f, 0);
	*first = f;
	*count = n;
	return (gnio_error_t)err;
}

/* Thread 0 receives for the block; all threads of the block must call it. */
GNIO_DEV gnio_error_t gnio_dev_eth_rxq_recv_block(const struct gnio_gpu_eth_rxq *q, uint32_t max,
						  uint64_t timeout_ns, uint64_t *first, uint32_t *count)
{
	__shared__ uint64_t s_first;
	__shared__ uint32_t s_count, s_err;
	/* Every thread is done with the previous batch before thread 0 releases it. */
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
		s_err = (uint32_t)gnio_dev_eth_rxq_recv_thread(q, max, timeout_ns, &s_first, &s_count);
	}
	__syncthreads();
	*first = s_first;
	*count = s_count;
	return (gnio_error_t)s_err;
}
#else
GNIO_DEV gnio_error_t gnio_dev_eth_rxq_recv_warp(const struct gnio_gpu_eth_rxq *q, uint32_t max,
						 uint64_t timeout_ns, uint64_t *first, uint32_t *count)
{
	return gnio_dev_eth_rxq_recv_thread(q, max, timeout_ns, first, count);
}
GNIO_DEV gnio_error_t gnio_dev_eth_rxq_recv_block(const struct gnio_gpu_eth_rxq *q, uint32_t max,
						  uint64_t timeout_ns, uint64_t *first, uint32_t *count)
{
	return gnio_dev_eth_rxq_recv_thread(q, max, timeout_ns, first, count);
}
#endif

/* Frame `idx` (from a recv batch): address, length and arrival time in one
 * read of its completion entry. */
GNIO_DEV void gnio_dev_eth_rxq_get_pkt(const struct gnio_gpu_eth_rxq *q, uint64_t idx, uint8_t **addr,
				       uint32_t *len, uint64_t *ts_ns)
{
	const struct gnio_rx_cqe *c = gnio_rx_ring_cqe(q, idx);
	uint64_t off = c->buf_off;
	uint32_t l = c->len;
	if (ts_ns)
		*ts_ns = c->ts_ns;
	*addr = q->pool + off;
	*len = l;
}

GNIO_DEV uint8_t *gnio_dev_eth_rxq_get_pkt_addr(const struct gnio_gpu_eth_rxq *q, uint64_t idx)
{
	return q->pool + gnio_rx_ring_cqe(q, idx)->buf_off;
}
GNIO_DEV uint32_t gnio_dev_eth_rxq_get_pkt_len(const struct gnio_gpu_eth_rxq *q, uint64_t idx)
{
	return gnio_rx_ring_cqe(q, idx)->len;
}
GNIO_DEV uint64_t gnio_dev_eth_rxq_get_pkt_ts(const struct gnio_gpu_eth_rxq *q, uint64_t idx)
{
	return gnio_rx_ring_cqe(q, idx)->ts_ns;
}

#endif /* GNIO_DEVICE_ETH_RXQ_H */
