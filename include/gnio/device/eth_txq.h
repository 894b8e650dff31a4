/* SPDX-License-Identifier: MIT */
/*
 * gnio/device/eth_txq.h - send from a persistent kernel (DOCA:
 * doca_gpunetio_dev_eth_txq.cuh).
 *
 * A frame is named by its address and the key of the buffer array it lives
 * in (DOCA: address + mkey). The array must be registered with the queue
 * before start (gnio_eth_txq_set_pkt_buf / gnio_eth_txq_add_buf_arr); the RX
 * pool of an RX queue may be, so a kernel sends a received frame in place.
 * A key of 0 means "find the array by address"; the key is accepted in either
 * byte order.
 *
 * Scopes: in THREAD scope the calling thread sends one frame. In WARP scope
 * all 32 lanes call and each lane with size > 0 sends one frame; in BLOCK
 * scope (1-D blocks) every thread calls likewise. One reservation serves the
 * whole group, so its frames take consecutive descriptors in lane order.
 *
 * Sharing modes: EXCLUSIVE queues (one sending agent) reserve without
 * atomics, CTA queues with block-scope atomics, GPU queues with device-scope
 * atomics.
 *
 * Unlike DOCA (whose send returns nothing and overwrites a full queue), a
 * send returns an error: AGAIN when the ring is full (nothing was queued:
 * drain completions and send again), INVALID_VALUE for a frame outside every
 * registered array (or of size 0 in THREAD scope), BAD_STATE when no array is
 * registered. In a group, a member with size 0 sits the send out (SUCCESS);
 * every member gets the group's AGAIN, those with size 0 or a bad frame
 * included, so a `while (send(...) == AGAIN)` loop stays uniform; otherwise
 * INVALID_VALUE is per member.
 *
 * Completions: the frame's bytes must stay untouched until the proxy has
 * completed its ticket (gnio_gpu_dev_eth_txq_completed() > ticket); a frame
 * sent from an RX buffer is held by the RX queue until then.
 */
#ifndef GNIO_DEVICE_ETH_TXQ_H
#define GNIO_DEVICE_ETH_TXQ_H

#include "../impl/ring.h"
#include "eth_def.h"
#include "time.h"
#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

#if GNIO_TX_HDR_BYTES != GNIO_GPUNETIO_ETH_TX_HDR_MAX
#error "the descriptor's header room and its public name disagree"
#endif

/* ------------------------------------------------------- implementation -- */

GNIO_DEV gnio_error_t gnio_txq_reserve_mode(const struct gnio_gpu_eth_txq *q, uint32_t n, uint64_t *ticket,
					    int sharing)
{
	if (sharing == GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE)
		return gnio_tx_ring_reserve_exclusive(q, n, ticket);
	return gnio_tx_ring_reserve_shared(q, n, ticket, sharing == GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_CTA);
}

/* Validate one frame: its buffer index, offset, and a copy of the buffer's
 * entry (in registers: the send reads it again for the hold word). */
GNIO_DEV gnio_error_t gnio_txq_locate(const struct gnio_gpu_eth_txq *q, uint64_t addr, uint32_t mkey, uint64_t size,
				      uint32_t *buf, uint64_t *off, struct gnio_tx_buf *b)
{
	if (GNIO_UNLIKELY(q->nbufs == 0))
		return GNIO_ERROR_BAD_STATE;
	if (GNIO_UNLIKELY(size == 0 || size > 0xffffffffull))
		return GNIO_ERROR_INVALID_VALUE;
	const int i = gnio_tx_ring_find_buf_copy(q, addr, mkey, size, off, b);
	if (GNIO_UNLIKELY(i < 0))
		return GNIO_ERROR_INVALID_VALUE;
	*buf = (uint32_t)i;
	return GNIO_SUCCESS;
}

/* What a send carries besides the frame: the header that replaces its
 * first bytes (gnio_gpu_dev_eth_txq_send_hdr), and whether the sender wrote
 * bytes the proxy must see first (every other send). */
struct gnio_txq_extra {
	const uint8_t *hdr;
	uint32_t hdr_len;
	int ordered;
};
GNIO_DEV struct gnio_txq_extra gnio_txq_plain(void)
{
	struct gnio_txq_extra x = {NULL, 0, 1};
	return x;
}
GNIO_DEV struct gnio_txq_extra gnio_txq_with_hdr(const uint8_t *hdr, uint32_t hdr_len)
{
	struct gnio_txq_extra x = {hdr, hdr_len, 0};
	return x;
}
#define GNIO_TXQ_PLAIN gnio_txq_plain()

/* Fill and publish the descriptor of a reserved ticket; b is the frame's
 * buffer entry (gnio_txq_locate's copy). */
GNIO_DEV void gnio_txq_post(const struct gnio_gpu_eth_txq *q, uint64_t ticket, uint32_t buf, const struct gnio_tx_buf *b,
			    uint64_t off, uint64_t size, uint32_t flags, uint64_t send_at_ns, struct gnio_txq_extra x)
{
	uint32_t f = (flags & GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY) ? GNIO_TX_F_NOTIFY : 0u;
	if (send_at_ns)
		f |= GNIO_TX_F_TIMED;
	gnio_tx_ring_write_held(q, ticket, gnio_tx_buf_hold_word(b, off), buf, off, (uint32_t)size, f, send_at_ns, x.hdr,
				x.hdr_len, x.ordered);
	if (f & GNIO_TX_F_NOTIFY)
		gnio_fetch_max_dev_u64(&q->lc->notify_end, ticket + 1);
}

/* A member's frame, checked: located in a registered buffer, and its header
 * (if any) no longer than the descriptor holds or the frame. */
GNIO_DEV gnio_error_t gnio_txq_locate_x(const struct gnio_gpu_eth_txq *q, uint64_t addr, uint32_t mkey, uint64_t size,
					struct gnio_txq_extra x, uint32_t *buf, uint64_t *off, struct gnio_tx_buf *b)
{
	gnio_error_t err = gnio_txq_locate(q, addr, mkey, size, buf, off, b);
	if (err == GNIO_SUCCESS &&
	    GNIO_UNLIKELY(x.hdr_len > GNIO_TX_HDR_BYTES || x.hdr_len > size || (x.hdr_len && !x.hdr)))
		err = GNIO_ERROR_INVALID_VALUE;
	return err;
}

GNIO_DEV gnio_error_t gnio_txq_send_thread_impl(const struct gnio_gpu_eth_txq *q, int sharing, uint64_t addr,
						uint32_t mkey, uint64_t size, uint32_t flags, uint64_t send_at_ns,
						struct gnio_txq_extra x, gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	uint32_t buf;
	uint64_t off, t;
	struct gnio_tx_buf b;
	gnio_error_t err = gnio_txq_locate_x(q, addr, mkey, size, x, &buf, &off, &b);
#if GNIO_ON_GPU
	if (sharing != GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE) {
		/* Threads of one warp that arrive together reserve together:
		 * one CAS for all of them instead of one each. With a block's
		 * threads all sending at thread scope, per-thread CASes on one
		 * counter retried each other into a tenth of the warp-scope
		 * rate. The group takes consecutive tickets in rank order; a
		 * reservation that finds no room is AGAIN for every member. */
		cooperative_groups::coalesced_group g = cooperative_groups::coalesced_threads();
		/* Members on the same queue (and mode) reserve together; q is
		 * 8-byte aligned, so the mode fits in its low bits. */
		const uint32_t same = g.match_any((unsigned long long)(uintptr_t)q ^ (unsigned long long)sharing);
		const uint32_t leader = __ffs(same) - 1u;
		const uint32_t senders = g.ballot(err == GNIO_SUCCESS) & same;
		const uint32_t n = __popc(senders);
		/* A ring smaller than the group: each member on its own. */
		if (g.any(n > q->size))
			goto alone;
		unsigned long long base = 0;
		uint32_t rerr = GNIO_SUCCESS;
		if (g.thread_rank() == leader && n) {
			rerr = (uint32_t)gnio_txq_reserve_mode(q, n, &t, sharing);
			base = t;
		}
		rerr = g.shfl(rerr, leader);
		base = g.shfl(base, leader);
		if (err != GNIO_SUCCESS)
			return err;
		if (rerr != GNIO_SUCCESS)
			return (gnio_error_t)rerr;
		t = base + __popc(senders & ((1u << g.thread_rank()) - 1u));
		gnio_txq_post(q, t, buf, &b, off, size, flags, send_at_ns, x);
		if (out_ticket)
			*out_ticket = t;
		return GNIO_SUCCESS;
	}
alone:
#endif
	if (err == GNIO_SUCCESS)
		err = gnio_txq_reserve_mode(q, 1, &t, sharing);
	if (err != GNIO_SUCCESS)
		return err;
	gnio_txq_post(q, t, buf, &b, off, size, flags, send_at_ns, x);
	if (out_ticket)
		*out_ticket = t;
	return GNIO_SUCCESS;
}

#if GNIO_ON_GPU
/* A group member once the group has reserved (or not): the group's AGAIN
 * first (every member gets it, nothing was queued, so a retry loop stays
 * uniform), then the member's own error, then its frame at ticket t. */
GNIO_DEV gnio_error_t gnio_txq_member_post(const struct gnio_gpu_eth_txq *q, gnio_error_t group_err, gnio_error_t mine,
					   uint64_t size, uint64_t t, uint32_t buf, const struct gnio_tx_buf *b,
					   uint64_t off, uint32_t flags, uint64_t send_at_ns, struct gnio_txq_extra x,
					   gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	if (group_err == GNIO_ERROR_AGAIN)
		return GNIO_ERROR_AGAIN;
	if (mine != GNIO_SUCCESS)
		return mine;
	if (!size)
		return GNIO_SUCCESS;
	if (group_err != GNIO_SUCCESS)
		return group_err;
	gnio_txq_post(q, t, buf, b, off, size, flags, send_at_ns, x);
	if (out_ticket)
		*out_ticket = t;
	return GNIO_SUCCESS;
}

/* WARP scope on a queue the warp owns (EXCLUSIVE): the ticket counter is
 * the warp's, so every lane reads it and the cached completion count itself
 * (one broadcast load each, issued before the locate so the two overlap)
 * instead of waiting for lane 0's reservation and two shuffles. */
GNIO_DEV gnio_error_t gnio_txq_send_warp_owned(const struct gnio_gpu_eth_txq *q, uint64_t addr, uint32_t mkey,
					       uint64_t size, uint32_t flags, uint64_t send_at_ns,
					       struct gnio_txq_extra x, gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	const uint32_t lane = threadIdx.x & 31u;
	const uint64_t t0 = q->lc->tail;
	uint64_t done = q->lc->cached_done;
	const uint32_t ring = q->size;
	uint32_t buf = 0;
	uint64_t off = 0;
	struct gnio_tx_buf b = {};
	const gnio_error_t mine = size ? gnio_txq_locate_x(q, addr, mkey, size, x, &buf, &off, &b) : GNIO_SUCCESS;
	const uint32_t senders = __ballot_sync(0xffffffffu, size && mine == GNIO_SUCCESS);
	const uint32_t n = __popc(senders);
	gnio_error_t err = GNIO_SUCCESS;
	int refreshed = 0;
	if (n > ring) {
		err = GNIO_ERROR_INVALID_VALUE;
	} else if (n && !gnio_tx_ring_fits(q, t0, n, done)) {
		/* As gnio_tx_ring_room(), but every lane loads; lane 0 stores. */
		done = gnio_tx_ring_done(q);
		refreshed = 1;
		if (!gnio_tx_ring_fits(q, t0, n, done))
			err = GNIO_ERROR_AGAIN;
	}
	/* Every lane has read both counters before lane 0 moves them, and
	 * sees the moves at its next send. */
	__syncwarp();
	if (lane == 0) {
		if (refreshed) /* RELEASE(tx.cached_done), as gnio_tx_ring_room() */
			gnio_store_release_dev_u64(&q->lc->cached_done, done);
		if (n && err == GNIO_SUCCESS)
			q->lc->tail = t0 + n;
	}
	__syncwarp();
	return gnio_txq_member_post(q, err, mine, size, t0 + __popc(senders & ((1u << lane) - 1u)), buf, &b, off, flags,
				    send_at_ns, x, out_ticket);
}

/* All 32 lanes call; lane 0 reserves for the lanes that send. */
GNIO_DEV gnio_error_t gnio_txq_send_warp_impl(const struct gnio_gpu_eth_txq *q, int sharing, uint64_t addr,
					      uint32_t mkey, uint64_t size, uint32_t flags, uint64_t send_at_ns,
					      struct gnio_txq_extra x, gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	if (sharing == GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE)
		return gnio_txq_send_warp_owned(q, addr, mkey, size, flags, send_at_ns, x, out_ticket);
	const uint32_t lane = threadIdx.x & 31u;
	uint32_t buf = 0;
	uint64_t off = 0;
	struct gnio_tx_buf b = {};
	gnio_error_t mine = size ? gnio_txq_locate_x(q, addr, mkey, size, x, &buf, &off, &b) : GNIO_SUCCESS;
	const uint32_t senders = __ballot_sync(0xffffffffu, size && mine == GNIO_SUCCESS);
	const uint32_t n = __popc(senders);
	unsigned long long base = 0;
	uint32_t err = GNIO_SUCCESS;
	if (lane == 0 && n) {
		uint64_t t;
		err = (uint32_t)gnio_txq_reserve_mode(q, n, &t, sharing);
		base = t;
	}
	err = __shfl_sync(0xffffffffu, err, 0);
	base = __shfl_sync(0xffffffffu, base, 0);
	return gnio_txq_member_post(q, (gnio_error_t)err, mine, size, base + __popc(senders & ((1u << lane) - 1u)), buf,
				    &b, off, flags, send_at_ns, x, out_ticket);
}

/* Every thread of a 1-D block calls; thread 0 reserves for the block's
 * senders, which take consecutive tickets in thread order. */
GNIO_DEV gnio_error_t gnio_txq_send_block_impl(const struct gnio_gpu_eth_txq *q, int sharing, uint64_t addr,
					       uint32_t mkey, uint64_t size, uint32_t flags, uint64_t send_at_ns,
					       struct gnio_txq_extra x, gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	__shared__ uint32_t s_warp_start[33]; /* per warp: first rank; [nwarps] = total */
	__shared__ uint64_t s_base;
	__shared__ uint32_t s_err;
	const uint32_t tid = threadIdx.x;
	const uint32_t lane = tid & 31u, warp = tid >> 5;
	const uint32_t nwarps = (blockDim.x + 31u) >> 5;
	const uint32_t in_warp = blockDim.x - (warp << 5) < 32u ? blockDim.x - (warp << 5) : 32u;
	const uint32_t live = in_warp == 32u ? 0xffffffffu : ((1u << in_warp) - 1u);
	uint32_t buf = 0;
	uint64_t off = 0;
	struct gnio_tx_buf b = {};
	gnio_error_t mine = size ? gnio_txq_locate_x(q, addr, mkey, size, x, &buf, &off, &b) : GNIO_SUCCESS;
	const uint32_t senders = __ballot_sync(live, size && mine == GNIO_SUCCESS);
	__syncthreads(); /* the previous call has finished with s_* */
	if (lane == 0)
		s_warp_start[warp] = __popc(senders);
	__syncthreads();
	if (tid == 0) {
		uint32_t total = 0;
		for (uint32_t w = 0; w < nwarps; w++) {
			uint32_t c = s_warp_start[w];
			s_warp_start[w] = total;
			total += c;
		}
		s_warp_start[nwarps] = total;
		uint64_t t = 0;
		s_err = total ? (uint32_t)gnio_txq_reserve_mode(q, total, &t, sharing) : (uint32_t)GNIO_SUCCESS;
		s_base = t;
	}
	__syncthreads();
	return gnio_txq_member_post(q, (gnio_error_t)s_err, mine, size,
				    s_base + s_warp_start[warp] + __popc(senders & ((1u << lane) - 1u)), buf, &b, off, flags,
				    send_at_ns, x, out_ticket);
}
#else
#define gnio_txq_send_warp_impl gnio_txq_send_thread_impl
#define gnio_txq_send_block_impl gnio_txq_send_thread_impl
#endif

GNIO_DEV gnio_error_t gnio_txq_send_scope(int scope, const struct gnio_gpu_eth_txq *q, int sharing, uint64_t addr,
					  uint32_t mkey, uint64_t size, uint32_t flags, uint64_t send_at_ns,
					  struct gnio_txq_extra x, gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	if (scope == GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
		return gnio_txq_send_block_impl(q, sharing, addr, mkey, size, flags, send_at_ns, x, out_ticket);
	if (scope == GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP)
		return gnio_txq_send_warp_impl(q, sharing, addr, mkey, size, flags, send_at_ns, x, out_ticket);
	return gnio_txq_send_thread_impl(q, sharing, addr, mkey, size, flags, send_at_ns, x, out_ticket);
}

/* ---------------------------------------------------------------- send -- */

#if defined(__cplusplus)
#define GNIO_TXQ_TEMPLATE_ARGS                                                                              \
	enum gnio_gpu_dev_eth_resource_sharing_mode SHARING = GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU,  \
		 enum gnio_gpu_dev_eth_sync_scope SYNC = GNIO_GPUNETIO_ETH_SYNC_SCOPE_GPU,                  \
		 enum gnio_gpu_dev_eth_nic_handler NIC = GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO

/* @since 0.2 dev_txq_send: Device-side send of any registered buffer, thread/warp/block scope, exclusive/CTA/GPU sharing */
template <GNIO_TXQ_TEMPLATE_ARGS,
	  enum gnio_gpu_dev_eth_exec_scope SCOPE = GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_send(const struct gnio_gpu_eth_txq *txq, uint64_t addr, uint32_t mkey,
						size_t size, enum gnio_gpu_eth_send_flags flags,
						gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_scope(SCOPE, txq, SHARING, addr, mkey, size, flags, 0, GNIO_TXQ_PLAIN, out_ticket);
}
template <GNIO_TXQ_TEMPLATE_ARGS>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_send_thread(const struct gnio_gpu_eth_txq *txq, uint64_t addr,
						       uint32_t mkey, size_t size, enum gnio_gpu_eth_send_flags flags,
						       gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_thread_impl(txq, SHARING, addr, mkey, size, flags, 0, GNIO_TXQ_PLAIN, out_ticket);
}
template <GNIO_TXQ_TEMPLATE_ARGS>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_send_warp(const struct gnio_gpu_eth_txq *txq, uint64_t addr, uint32_t mkey,
						     size_t size, enum gnio_gpu_eth_send_flags flags,
						     gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_warp_impl(txq, SHARING, addr, mkey, size, flags, 0, GNIO_TXQ_PLAIN, out_ticket);
}
template <GNIO_TXQ_TEMPLATE_ARGS>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_send_block(const struct gnio_gpu_eth_txq *txq, uint64_t addr,
						      uint32_t mkey, size_t size, enum gnio_gpu_eth_send_flags flags,
						      gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_block_impl(txq, SHARING, addr, mkey, size, flags, 0, GNIO_TXQ_PLAIN, out_ticket);
}

/* Timed send (DOCA: wait on time): the frame leaves no earlier than
 * wait_on_time_ts, a value from gnio_gpu_dev_eth_txq_calculate_timestamp (or
 * the host's gnio_eth_txq_calculate_timestamp). Frames queue in order: a
 * timed frame holds the ones behind it. */
/* @since 0.2 dev_txq_wait_send: Timed send (wait on time) at thread, warp or block scope */
template <GNIO_TXQ_TEMPLATE_ARGS,
	  enum gnio_gpu_dev_eth_exec_scope SCOPE = GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_wait_send(const struct gnio_gpu_eth_txq *txq, uint64_t wait_on_time_ts,
						     uint64_t addr, uint32_t mkey, size_t size,
						     enum gnio_gpu_eth_send_flags flags,
						     gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_scope(SCOPE, txq, SHARING, addr, mkey, size, flags, wait_on_time_ts, GNIO_TXQ_PLAIN, out_ticket);
}
template <GNIO_TXQ_TEMPLATE_ARGS>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_wait_send_thread(const struct gnio_gpu_eth_txq *txq,
							    uint64_t wait_on_time_ts, uint64_t addr, uint32_t mkey,
							    size_t size, enum gnio_gpu_eth_send_flags flags,
							    gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_thread_impl(txq, SHARING, addr, mkey, size, flags, wait_on_time_ts, GNIO_TXQ_PLAIN, out_ticket);
}
template <GNIO_TXQ_TEMPLATE_ARGS>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_wait_send_warp(const struct gnio_gpu_eth_txq *txq,
							  uint64_t wait_on_time_ts, uint64_t addr, uint32_t mkey,
							  size_t size, enum gnio_gpu_eth_send_flags flags,
							  gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_warp_impl(txq, SHARING, addr, mkey, size, flags, wait_on_time_ts, GNIO_TXQ_PLAIN, out_ticket);
}
template <GNIO_TXQ_TEMPLATE_ARGS>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_wait_send_block(const struct gnio_gpu_eth_txq *txq,
							   uint64_t wait_on_time_ts, uint64_t addr, uint32_t mkey,
							   size_t size, enum gnio_gpu_eth_send_flags flags,
							   gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_block_impl(txq, SHARING, addr, mkey, size, flags, wait_on_time_ts, GNIO_TXQ_PLAIN, out_ticket);
}

/* gnio: send a frame with its first hdr_len bytes (at most
 * GNIO_GPUNETIO_ETH_TX_HDR_MAX, and no more than size) replaced by hdr. The
 * bytes travel in the descriptor and the proxy writes them over the frame
 * (where it lies) just before it leaves, so the kernel writes nothing to
 * the frame and the send needs no system-scope fence: on the H200 that fence
 * is 0.5 us of a send, and about 4 us while other warps of the GPU poll host
 * memory (docs/PERFORMANCE.md, "Echo without fences"). The frame's buffer
 * holds the new bytes once the send completes. hdr_len 0 sends the frame
 * unchanged, also without a fence: for a kernel that wrote nothing to it.
 * A kernel that did write to the frame must use gnio_gpu_dev_eth_txq_send. */
/* @since 0.2 dev_txq_send_hdr: Device-side send with the frame's first bytes carried in the descriptor, no system fence */
template <GNIO_TXQ_TEMPLATE_ARGS,
	  enum gnio_gpu_dev_eth_exec_scope SCOPE = GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_send_hdr(const struct gnio_gpu_eth_txq *txq, uint64_t addr, uint32_t mkey,
						    size_t size, const uint8_t *hdr, uint32_t hdr_len,
						    enum gnio_gpu_eth_send_flags flags,
						    gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_scope(SCOPE, txq, SHARING, addr, mkey, size, flags, 0, gnio_txq_with_hdr(hdr, hdr_len),
				   out_ticket);
}
#undef GNIO_TXQ_TEMPLATE_ARGS
#else
/* C (the CPU device): the queue is shared at device scope. */
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_send_thread(const struct gnio_gpu_eth_txq *txq, uint64_t addr,
						       uint32_t mkey, size_t size, enum gnio_gpu_eth_send_flags flags,
						       gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_thread_impl(txq, GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU, addr, mkey, size, flags, 0,
					 GNIO_TXQ_PLAIN, out_ticket);
}
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_wait_send_thread(const struct gnio_gpu_eth_txq *txq,
							    uint64_t wait_on_time_ts, uint64_t addr, uint32_t mkey,
							    size_t size, enum gnio_gpu_eth_send_flags flags,
							    gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_thread_impl(txq, GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU, addr, mkey, size, flags,
					 wait_on_time_ts, GNIO_TXQ_PLAIN, out_ticket);
}
/* C (the CPU device): the thread form of gnio_gpu_dev_eth_txq_send_hdr. */
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_send_hdr_thread(const struct gnio_gpu_eth_txq *txq, uint64_t addr,
							   uint32_t mkey, size_t size, const uint8_t *hdr,
							   uint32_t hdr_len, enum gnio_gpu_eth_send_flags flags,
							   gnio_gpu_dev_eth_ticket_t *out_ticket)
{
	return gnio_txq_send_thread_impl(txq, GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU, addr, mkey, size, flags, 0,
					 gnio_txq_with_hdr(hdr, hdr_len), out_ticket);
}
#define gnio_gpu_dev_eth_txq_send_warp gnio_gpu_dev_eth_txq_send_thread
#define gnio_gpu_dev_eth_txq_send_block gnio_gpu_dev_eth_txq_send_thread
#define gnio_gpu_dev_eth_txq_wait_send_warp gnio_gpu_dev_eth_txq_wait_send_thread
#define gnio_gpu_dev_eth_txq_wait_send_block gnio_gpu_dev_eth_txq_wait_send_thread
#endif

/* The value a timed send takes for a CLOCK_REALTIME time in ns. gnio's
 * proxies hold frames against that clock, so the value is the time itself. */
/* @since 0.2 dev_txq_calc_ts: Timed-send value from a time in ns */
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_calculate_timestamp(const struct gnio_gpu_eth_txq *txq,
							       uint64_t timestamp_ns, uint64_t *value)
{
	(void)txq;
	*value = timestamp_ns;
	return GNIO_SUCCESS;
}

/* ---------------------------------------------------------- completions -- */

/* Descriptors the proxy has completed (a free-running index): every ticket
 * below it has left the queue and its bytes may be reused. */
GNIO_DEV uint64_t gnio_gpu_dev_eth_txq_completed(const struct gnio_gpu_eth_txq *txq) { return gnio_tx_ring_done(txq); }

/* @since 0.2 dev_txq_completed_seen: Device-side completion index a full-ring reservation saw, from device memory */
/* gnio: after a send or reserve returned AGAIN, the completion index that reservation read from the proxy, kept in
 * device memory (no PCIe read). Completions must pass it before there is room,
 * and they will: a full ring has sends in flight. So a kernel reads the
 * host-side index only while it waits, never before each send:
 *   while (send(...) == AGAIN) {
 *       uint64_t seen = gnio_gpu_dev_eth_txq_completed_seen(txq);
 *       while (gnio_gpu_dev_eth_txq_completed(txq) == seen) ...nap...
 *   } */
GNIO_DEV uint64_t gnio_gpu_dev_eth_txq_completed_seen(const struct gnio_gpu_eth_txq *txq)
{
	return gnio_tx_ring_seen_done(txq);
}

/* gnio: the ring's number of entries (the most sends in flight). */
GNIO_DEV uint32_t gnio_gpu_dev_eth_txq_get_size(const struct gnio_gpu_eth_txq *txq) { return txq->size; }

/* Descriptors the proxy failed to send so far (details: progress engine). */
GNIO_DEV uint64_t gnio_gpu_dev_eth_txq_errors(const struct gnio_gpu_eth_txq *txq)
{
	/* ACQUIRE(tx.errors): pairs with the proxy's RELEASE store of it. */
	return gnio_load_acquire_u64(&txq->sh->errors);
}

/* Wait for (WAIT_FLAG_B) or look at (NB) the completion of every send made
 * so far with GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY. *num_completed is num_cqe
 * when they have all completed, else 0. gnio keeps one completion index, so
 * ALL and LAST poll modes mean the same. */
/* @since 0.2 dev_txq_poll_completion: Device-side wait for notified sends */
GNIO_DEV gnio_error_t gnio_txq_poll_completion_impl(const struct gnio_gpu_eth_txq *txq, uint32_t num_cqe, int blocking,
						    uint32_t *num_completed)
{
	const uint64_t end = gnio_load_acquire_dev_u64(&txq->lc->notify_end);
	uint32_t naps = 0;
	*num_completed = 0;
	while (gnio_tx_ring_done(txq) < end) {
		if (!blocking)
			return GNIO_SUCCESS;
#if GNIO_ON_GPU
		__nanosleep(naps < 8 ? 128u << naps : 32768u);
#else
		gnio_cpu_relax();
#endif
		naps++;
	}
	if (gnio_gpu_dev_eth_txq_errors(txq))
		return GNIO_ERROR_UNEXPECTED; /* a send failed: see the progress engine */
	*num_completed = num_cqe;
	return GNIO_SUCCESS;
}

#if defined(__cplusplus)
template <enum gnio_gpu_dev_eth_cq_poll_mode MODE = GNIO_GPUNETIO_ETH_CQ_POLL_ALL,
	  enum gnio_gpu_dev_eth_resource_sharing_mode SHARING = GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU,
	  enum gnio_gpu_dev_eth_sync_scope SYNC = GNIO_GPUNETIO_ETH_SYNC_SCOPE_GPU>
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_poll_completion(const struct gnio_gpu_eth_txq *txq, uint32_t num_cqe,
							   enum gnio_gpu_dev_eth_wait_flags mode,
							   uint32_t *num_completed)
{
	return gnio_txq_poll_completion_impl(txq, num_cqe, mode == GNIO_GPUNETIO_ETH_WAIT_FLAG_B, num_completed);
}
#else
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_poll_completion(const struct gnio_gpu_eth_txq *txq, uint32_t num_cqe,
							   enum gnio_gpu_dev_eth_wait_flags mode,
							   uint32_t *num_completed)
{
	return gnio_txq_poll_completion_impl(txq, num_cqe, mode == GNIO_GPUNETIO_ETH_WAIT_FLAG_B, num_completed);
}
#endif

/* ---------------------------------- gnio: the send's state in shared memory -- */

/* The send's own state (the ticket counter, the cached completion index, the
 * notify mark) lives in device memory, and every reservation reads it: after
 * a system-scope acquire has emptied L1, an L2 round trip (bench/pcie_probe:
 * the exclusive reservation costs 256 ns, most of it that read). A kernel
 * whose one block is the queue's only sender (EXCLUSIVE or CTA sharing) may
 * keep it in shared memory for its run, as gnio_gpu_dev_eth_rxq_state_to_shared
 * shows for receive; it must go back (gnio_gpu_dev_eth_txq_state_back) before
 * the kernel ends. Not for GPU sharing: other blocks would not see it. */
typedef struct gnio_tx_ring_local gnio_gpu_dev_eth_txq_state;

/* @since 0.2 dev_txq_state_shared: Device-side send state kept in shared memory for one kernel */
GNIO_DEV void gnio_gpu_dev_eth_txq_state_to_shared(struct gnio_gpu_eth_txq *copy, gnio_gpu_dev_eth_txq_state *shared)
{
	*shared = *copy->lc;
	copy->lc = shared;
}

GNIO_DEV void gnio_gpu_dev_eth_txq_state_back(const struct gnio_gpu_eth_txq *txq, const struct gnio_gpu_eth_txq *copy)
{
	if (copy->lc != txq->lc)
		*txq->lc = *copy->lc;
}

/* ------------------------------------------------- gnio: slot-style send -- */

/* The queue's own TX pool (gnio_eth_txq_set_pkt_buf), one slot per ring
 * entry: reserve tickets, write each frame into slot_addr(ticket), commit. A
 * reserved ticket's slot is free, because reserve only hands out entries the
 * proxy has completed. Shared at device scope. */
/* @since 0.1 dev_txq_slot_send: Device-side slot send (reserve, write, commit) */
GNIO_DEV gnio_error_t gnio_gpu_dev_eth_txq_reserve(const struct gnio_gpu_eth_txq *txq, uint32_t n, uint64_t *ticket)
{
	if (GNIO_UNLIKELY(txq->slot_buf < 0))
		return GNIO_ERROR_BAD_STATE;
	return gnio_tx_ring_reserve(txq, n, ticket);
}

GNIO_DEV uint8_t *gnio_gpu_dev_eth_txq_slot_addr(const struct gnio_gpu_eth_txq *txq, uint64_t ticket)
{
	const struct gnio_tx_buf *b = &txq->bufs[txq->slot_buf];
	return b->base + (uint64_t)(ticket & txq->mask) * b->elem_size;
}

/* Bytes a slot holds. */
GNIO_DEV uint32_t gnio_gpu_dev_eth_txq_slot_size(const struct gnio_gpu_eth_txq *txq)
{
	return txq->bufs[txq->slot_buf].elem_size;
}

/* Commit the frame in ticket's slot; send_at_ns 0 = now. */
GNIO_DEV void gnio_gpu_dev_eth_txq_commit(const struct gnio_gpu_eth_txq *txq, uint64_t ticket, uint32_t len,
					  enum gnio_gpu_eth_send_flags flags, uint64_t send_at_ns)
{
	const uint32_t b = (uint32_t)txq->slot_buf;
	gnio_txq_post(txq, ticket, b, &txq->bufs[b], (uint64_t)(ticket & txq->mask) * txq->bufs[b].elem_size, len,
		      flags, send_at_ns, GNIO_TXQ_PLAIN);
}

#endif /* GNIO_DEVICE_ETH_TXQ_H */
