/* SPDX-License-Identifier: MIT */
/*
 * gnio/device/eth_rxq.h - receive inside a persistent kernel (DOCA:
 * doca_gpunetio_dev_eth_rxq.cuh). One consumer per queue: a thread, a warp
 * or a block owns it.
 *
 * A receive returns (first index, count) of consecutive new frames. It ends
 * when it has max_rx_pkts frames or when timeout_ns has passed since it began:
 *   max_rx_pkts == 0  no count limit (at most the ring's size in one call);
 *   timeout_ns == 0   no time limit: wait for max_rx_pkts frames;
 *   both 0            INVALID_VALUE (DOCA would never return);
 *   timeout_ns == 1   look once: take what is there, up to max_rx_pkts.
 * It never returns early on a short queue except at the deadline. Frames of a
 * batch stay valid until the consumer releases them: explicitly with
 * gnio_gpu_dev_eth_rxq_release_*, or implicitly by the next receive.
 *
 * In C++ (CUDA) each call is a template whose parameters mirror DOCA's and
 * default to the same values; in C (the CPU device) they are plain functions
 * with the same arguments, where a non-NULL out_attr asks for attributes.
 * On the CPU device the warp and block forms are the thread form.
 */
#ifndef GNIO_DEVICE_ETH_RXQ_H
#define GNIO_DEVICE_ETH_RXQ_H

#include "../impl/ring.h"
#include "eth_def.h"
#include "time.h"
#if !GNIO_ON_GPU
#include <sched.h>
#endif

/* ------------------------------------------------------- implementation -- */

/* One thread takes frames for the consumer group. */
GNIO_DEV gnio_error_t gnio_rxq_recv_one(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					uint64_t *first, uint32_t *count)
{
	*count = 0;
	*first = GNIO_GPUNETIO_ETH_RX_NO_PKT;
	if (GNIO_UNLIKELY(q->pool == NULL))
		return GNIO_ERROR_BAD_STATE; /* no payload pool was registered */
	if (GNIO_UNLIKELY(max == 0 && timeout_ns == 0))
		return GNIO_ERROR_INVALID_VALUE;
	/* The previous batch goes back first: whatever the consumer still had. */
	gnio_rx_ring_release(q);
	struct gnio_rx_ring_local *lc = q->lc;
	const uint32_t want = (max == 0 || max > q->size) ? q->size : max;
	const uint64_t head = lc->head;
	uint64_t prod = lc->cached_prod;
	if (prod - head < want) {
		/* ACQUIRE(rx.prod) pairs with the proxy's RELEASE(rx.prod) in
		 * gnio_rx_ring_publish(): completions and payload bytes written
		 * before the publish are visible to the reads that follow. */
		prod = gnio_load_acquire_u64(&q->sh->prod);
		if (prod - head < want && timeout_ns != 1) {
			const uint64_t start = gnio_gpu_dev_time_ns();
#if !GNIO_ON_GPU
			unsigned spins = 0;
#endif
			do {
				gnio_cpu_relax();
#if !GNIO_ON_GPU
				/* A CPU-device kernel shares cores with the proxies
				 * that feed it: after a short spin, let them run. */
				if (++spins > 64)
					sched_yield();
#endif
				prod = gnio_load_acquire_u64(&q->sh->prod); /* same pair as above */
			} while (prod - head < want && (timeout_ns == 0 || gnio_gpu_dev_time_ns() - start < timeout_ns));
		}
		lc->cached_prod = prod;
	}
	uint64_t avail = prod - head;
	uint32_t n = avail < (uint64_t)want ? (uint32_t)avail : want;
	lc->head = head + n;
	if (n)
		*first = head;
	*count = n;
	return GNIO_SUCCESS;
}

/* Attributes of frames [first, first + n), this thread's share. */
GNIO_DEV void gnio_rxq_fill_attr(const struct gnio_gpu_eth_rxq *q, uint64_t first, uint32_t n,
				 struct gnio_gpu_dev_eth_rxq_attr *attr, uint32_t start, uint32_t step)
{
	for (uint32_t i = start; i < n; i += step) {
		const struct gnio_rx_cqe *c = gnio_rx_ring_cqe(q, first + i);
		attr[i].timestamp_ns = c->ts_ns;
		attr[i].bytes = c->len;
		attr[i].padding = 0;
	}
}

GNIO_DEV gnio_error_t gnio_rxq_recv_thread_impl(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
						uint64_t *first, uint32_t *count,
						struct gnio_gpu_dev_eth_rxq_attr *attr)
{
	gnio_error_t err = gnio_rxq_recv_one(q, max, timeout_ns, first, count);
	if (attr && *count)
		gnio_rxq_fill_attr(q, *first, *count, attr, 0, 1);
	return err;
}

#if GNIO_ON_GPU
/* Lane 0 receives for the warp; every lane gets the same result and fills
 * its share of the attributes. All 32 lanes must call. The previous batch is
 * released only once every lane is here. */
GNIO_DEV gnio_error_t gnio_rxq_recv_warp_impl(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					      uint64_t *first, uint32_t *count,
					      struct gnio_gpu_dev_eth_rxq_attr *attr)
{
	uint32_t err = 0, n = 0;
	unsigned long long f = GNIO_GPUNETIO_ETH_RX_NO_PKT;
	const uint32_t lane = threadIdx.x & 31u;
	__syncwarp();
	if (lane == 0) {
		uint64_t f64;
		err = (uint32_t)gnio_rxq_recv_one(q, max, timeout_ns, &f64, &n);
		f = f64;
	}
	err = __shfl_sync(0xffffffffu, err, 0);
	n = __shfl_sync(0xffffffffu, n, 0);
	f = __shfl_sync(0xffffffffu, f, 0);
	if (attr && n)
		gnio_rxq_fill_attr(q, f, n, attr, lane, 32);
	*first = f;
	*count = n;
	__syncwarp(); /* outputs and attributes written before any lane reads them */
	return (gnio_error_t)err;
}

/* Thread 0 receives for the block; all threads of the block must call it. The
 * outputs may point to __shared__ variables (as DOCA's block receive needs):
 * every thread writes the same values, and a barrier ends the call. */
GNIO_DEV gnio_error_t gnio_rxq_recv_block_impl(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns,
					       uint64_t *first, uint32_t *count,
					       struct gnio_gpu_dev_eth_rxq_attr *attr)
{
	__shared__ uint64_t s_first;
	__shared__ uint32_t s_count, s_err;
	const uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	const uint32_t nthr = blockDim.x * blockDim.y * blockDim.z;
	/* Every thread is done with the previous batch before thread 0
	 * releases it (and before s_* are rewritten). */
	__syncthreads();
	if (tid == 0)
		s_err = (uint32_t)gnio_rxq_recv_one(q, max, timeout_ns, &s_first, &s_count);
	__syncthreads();
	const uint64_t f = s_first;
	const uint32_t n = s_count;
	const gnio_error_t err = (gnio_error_t)s_err;
	if (attr && n)
		gnio_rxq_fill_attr(q, f, n, attr, tid, nthr);
	__syncthreads(); /* every thread has read s_* and written its attributes */
	*first = f;
	*count = n;
	__syncthreads(); /* shared outputs hold their values before anyone reads them */
	return err;
}

GNIO_DEV void gnio_rxq_release_warp_impl(const struct gnio_gpu_eth_rxq *q)
{
	__syncwarp();
	if ((threadIdx.x & 31u) == 0)
		gnio_rx_ring_release(q);
	__syncwarp();
}

GNIO_DEV void gnio_rxq_release_block_impl(const struct gnio_gpu_eth_rxq *q)
{
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
		gnio_rx_ring_release(q);
	__syncthreads();
}
#else
#define gnio_rxq_recv_warp_impl gnio_rxq_recv_thread_impl
#define gnio_rxq_recv_block_impl gnio_rxq_recv_thread_impl
#define gnio_rxq_release_warp_impl gnio_rx_ring_release
#define gnio_rxq_release_block_impl gnio_rx_ring_release
#endif

/* ------------------------------------------------------------- receive -- */

#if defined(__cplusplus)
/* @since 0.2 dev_rxq_recv: Device-side receive filling to max or timeout, at thread, warp or block scope */
template <enum gnio_gpu_dev_eth_mcst_mode MCST = GNIO_GPUNETIO_ETH_MCST_DISABLED,
	  enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
	  enum gnio_gpu_dev_eth_rxq_attr_type ATTR = GNIO_GPUNETIO_ETH_RX_ATTR_NONE>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv_thread(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						       uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
						       uint32_t *out_pkt_num,
						       struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	return gnio_rxq_recv_thread_impl(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num,
					 ATTR != GNIO_GPUNETIO_ETH_RX_ATTR_NONE ? out_attr : nullptr);
}

template <enum gnio_gpu_dev_eth_mcst_mode MCST = GNIO_GPUNETIO_ETH_MCST_DISABLED,
	  enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
	  enum gnio_gpu_dev_eth_rxq_attr_type ATTR = GNIO_GPUNETIO_ETH_RX_ATTR_NONE>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv_warp(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						     uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
						     uint32_t *out_pkt_num, struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	return gnio_rxq_recv_warp_impl(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num,
				       ATTR != GNIO_GPUNETIO_ETH_RX_ATTR_NONE ? out_attr : nullptr);
}

template <enum gnio_gpu_dev_eth_mcst_mode MCST = GNIO_GPUNETIO_ETH_MCST_DISABLED,
	  enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
	  enum gnio_gpu_dev_eth_rxq_attr_type ATTR = GNIO_GPUNETIO_ETH_RX_ATTR_NONE>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv_block(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						      uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
						      uint32_t *out_pkt_num, struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	return gnio_rxq_recv_block_impl(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num,
					ATTR != GNIO_GPUNETIO_ETH_RX_ATTR_NONE ? out_attr : nullptr);
}

/* The scope as a template parameter, as DOCA's generic receive. */
template <enum gnio_gpu_dev_eth_exec_scope SCOPE = GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD,
	  enum gnio_gpu_dev_eth_mcst_mode MCST = GNIO_GPUNETIO_ETH_MCST_DISABLED,
	  enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
	  enum gnio_gpu_dev_eth_rxq_attr_type ATTR = GNIO_GPUNETIO_ETH_RX_ATTR_NONE>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						uint64_t timeout_ns, uint64_t *out_first_pkt_idx, uint32_t *out_pkt_num,
						struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	if (SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
		return gnio_gpu_dev_eth_rxq_recv_block<MCST, NIC, ATTR>(rxq, max_rx_pkts, timeout_ns,
									out_first_pkt_idx, out_pkt_num, out_attr);
	if (SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP)
		return gnio_gpu_dev_eth_rxq_recv_warp<MCST, NIC, ATTR>(rxq, max_rx_pkts, timeout_ns,
								       out_first_pkt_idx, out_pkt_num, out_attr);
	return gnio_gpu_dev_eth_rxq_recv_thread<MCST, NIC, ATTR>(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx,
								 out_pkt_num, out_attr);
}

/* @since 0.2 dev_rxq_release: Explicit release of a received batch */
template <enum gnio_gpu_dev_eth_exec_scope SCOPE = GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD>
GNIO_DEV void gnio_gpu_dev_eth_rxq_release(const struct gnio_gpu_eth_rxq *rxq)
{
	if (SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
		gnio_rxq_release_block_impl(rxq);
	else if (SCOPE == GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP)
		gnio_rxq_release_warp_impl(rxq);
	else
		gnio_rx_ring_release(rxq);
}
#else
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_rxq_recv_thread(const struct gnio_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
						       uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
						       uint32_t *out_pkt_num,
						       struct gnio_gpu_dev_eth_rxq_attr *out_attr)
{
	return gnio_rxq_recv_thread_impl(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num, out_attr);
}
#define gnio_gpu_dev_eth_rxq_recv_warp gnio_gpu_dev_eth_rxq_recv_thread
#define gnio_gpu_dev_eth_rxq_recv_block gnio_gpu_dev_eth_rxq_recv_thread
#endif

/* Release every frame received so far: the proxy may reuse their entries and
 * buffers (a buffer sent in place stays held until its send completes). All
 * threads of the scope must call it. The next receive does this too. */
GNIO_DEV void gnio_gpu_dev_eth_rxq_release_thread(const struct gnio_gpu_eth_rxq *rxq) { gnio_rx_ring_release(rxq); }
GNIO_DEV void gnio_gpu_dev_eth_rxq_release_warp(const struct gnio_gpu_eth_rxq *rxq)
{
	gnio_rxq_release_warp_impl(rxq);
}
GNIO_DEV void gnio_gpu_dev_eth_rxq_release_block(const struct gnio_gpu_eth_rxq *rxq)
{
	gnio_rxq_release_block_impl(rxq);
}

/* ---------------------------------------------------------- the frames -- */

/* Address of frame packet_idx of a batch (DOCA returns it as an integer). */
GNIO_DEV uint64_t gnio_gpu_dev_eth_rxq_get_pkt_addr(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
	return (uint64_t)(uintptr_t)(rxq->pool + gnio_rx_ring_cqe(rxq, packet_idx)->buf_off);
}
GNIO_DEV uint32_t gnio_gpu_dev_eth_rxq_get_pkt_bytes(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
	return gnio_rx_ring_cqe(rxq, packet_idx)->len;
}
GNIO_DEV uint64_t gnio_gpu_dev_eth_rxq_get_pkt_ts(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
	return gnio_rx_ring_cqe(rxq, packet_idx)->ts_ns;
}
/* The key of the RX pool, to send a received frame in place. */
GNIO_DEV uint32_t gnio_gpu_dev_eth_rxq_get_pkt_mkey(const struct gnio_gpu_eth_rxq *rxq) { return rxq->pkt_mkey; }

/* gnio: address, length and arrival time in one read of the completion. */
GNIO_DEV void gnio_gpu_dev_eth_rxq_get_pkt(const struct gnio_gpu_eth_rxq *rxq, uint64_t packet_idx, uint8_t **addr,
					   uint32_t *len, uint64_t *ts_ns)
{
	const struct gnio_rx_cqe *c = gnio_rx_ring_cqe(rxq, packet_idx);
	uint64_t off = c->buf_off;
	uint32_t l = c->len;
	if (ts_ns)
		*ts_ns = c->ts_ns;
	*addr = rxq->pool + off;
	*len = l;
}

#endif /* GNIO_DEVICE_ETH_RXQ_H */
