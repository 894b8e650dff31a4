/* SPDX-License-Identifier: MIT */
/*
 * src/apps/apps_cuda.cu - the CUDA bodies of the built-in apps as persistent
 * kernels, written against the device API only (gnio/device/).
 *
 * One block owns one RX queue. The queue is received at the scope args->
 * recv_scope asks for: the whole block (default), warp 0, or thread 0; the
 * other threads of a narrower scope leave at once. Counters live in registers
 * and shared memory; thread 0 stores running totals into args->stats (pinned
 * host memory) with plain relaxed stores once per batch: the host only reads
 * them, so no read-modify-write ever crosses PCIe.
 *
 * The sending apps: echo and fwd swap the MACs of each frame where it lies
 * and send it in place, at args->send_scope (thread, warp or block: one
 * reservation per group); echo-copy copies each frame into the TX pool
 * (slot-style send). echo looks once per receive (answers at once); fwd and
 * the others wait up to the timeout for a full batch.
 *
 * Per-packet logic is the GNIO_HD code in include/gnio/apps/, shared with the
 * CPU device (apps_cpu.c).
 */
#include <cuda_runtime.h>

extern "C" {
#include "core/errmsg.h"
}
#include "apps_priv.h"
#include "batch_tuner.h"
#include "gnio/apps/frame.h"
#include "gnio/apps/verify.h"
#include "gnio/device/gnio_dev.h"

#define SCOPE_THREAD GNIO_APP_SCOPE_THREAD
#define SCOPE_WARP GNIO_APP_SCOPE_WARP
#define SCOPE_BLOCK GNIO_APP_SCOPE_BLOCK

#define APP_COUNT 0
#define APP_CLASSIFY 1
#define APP_ECHO 2
#define APP_TOUCH 3
#define APP_ECHO_COPY 4
#define APP_FWD 5
#define APP_VERIFY 6

#define CTL_EVERY 16u /* busy batches between control passes */

/* Batches of at most this many frames send their swapped addresses in the
 * TX descriptors (send_hdr) instead of writing them into the frames: such a
 * send needs no system fence (0.5 us of a lone frame's round trip), and the
 * TX proxy's write of each header, a line another host core wrote last,
 * costs it about 20 ns a frame, which only a big batch's one fence outweighs
 * (docs/PERFORMANCE.md, "The echo's header in the descriptor"). */
#define HDR_SEND_MAX_BATCH 16u

/* What every member of the consumer group learns after a recv. */
struct batch {
	uint64_t first;
	uint32_t count;
	gnio_error_t err;
};

template <int SCOPE> __device__ __forceinline__ constexpr enum gnio_gpu_dev_eth_exec_scope exec_scope(void)
{
	return SCOPE == SCOPE_BLOCK ? GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK
	       : SCOPE == SCOPE_WARP ? GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP
				     : GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD;
}

/* Receive at the kernel's scope. Every thread of the group must call it. */
template <int SCOPE>
__device__ __forceinline__ struct batch app_recv(const struct gnio_gpu_eth_rxq *q, uint32_t max, uint64_t timeout_ns)
{
	struct batch b;
	b.err = gnio_gpu_dev_eth_rxq_recv<exec_scope<SCOPE>()>(q, max, timeout_ns, &b.first, &b.count, nullptr);
	return b;
}

/* Barrier over the consumer group. */
template <int SCOPE> __device__ __forceinline__ void group_sync(void)
{
	if (SCOPE == SCOPE_BLOCK)
		__syncthreads();
	else if (SCOPE == SCOPE_WARP)
		__syncwarp();
}

/* Does any member of the group say so? Also a barrier. */
template <int SCOPE> __device__ __forceinline__ int group_any(int pred)
{
	if (SCOPE == SCOPE_BLOCK)
		return __syncthreads_or(pred);
	if (SCOPE == SCOPE_WARP)
		return __any_sync(0xffffffffu, pred);
	return pred;
}

/* Thread 0 decides whether to go on; the group learns it. The stop flag
 * read and the heartbeat cross PCIe, so thread 0 does them at most every
 * CTL_CYCLES: an idle poll loop then spends its round trips on the ring
 * alone, and a frame arriving is not queued behind control traffic. They
 * also wait until the queue has been quiet for CTL_QUIET_CYCLES after the
 * last batch (or CTL_MAX_CYCLES passed): in a ping-pong the next frame
 * comes soon after a reply, and a control pass there made it wait (echo
 * p50 -0.5 us at block scope, p90 -1 us, docs/PERFORMANCE.md, "Inline
 * header"). *did_ctl (thread 0's) says whether this pass did them. */
#define CTL_CYCLES 20000ll        /* about 10 us */
#define CTL_QUIET_CYCLES 20000ll  /* about 10 us */
#define CTL_MAX_CYCLES 2000000ll  /* about 1 ms: the stop flag's latency under load */
template <int SCOPE>
__device__ __forceinline__ int group_should_stop(struct gnio_kernel_ctl *ctl, uint64_t *hb, int *s_flag,
						 long long *last_ctl, long long last_batch, int *did_ctl)
{
	int stop = 0;

	if (threadIdx.x == 0) {
		const long long now = clock64();
		*did_ctl = now - *last_ctl >= CTL_CYCLES &&
			   (now - last_batch >= CTL_QUIET_CYCLES || now - *last_ctl >= CTL_MAX_CYCLES);
		if (*did_ctl) {
			*last_ctl = now;
			stop = gnio_gpu_dev_kernel_should_stop(ctl);
			gnio_gpu_dev_kernel_heartbeat(ctl, ++*hb);
		}
	}
	if (SCOPE == SCOPE_BLOCK) {
		if (threadIdx.x == 0)
			*s_flag = stop;
		__syncthreads();
		stop = *s_flag;
		/* Nobody rewrites s_flag before every thread has read it: the
		 * next write comes after the recv's own barriers. */
	} else if (SCOPE == SCOPE_WARP) {
		stop = __shfl_sync(0xffffffffu, stop, 0);
	}
	return stop;
}

/* Counters thread 0 keeps for the block; other threads add per batch into
 * the shared per-batch part with shared-memory atomics. */
struct app_totals {
	uint64_t packets, bytes, batches;
	uint64_t tx_packets, tx_again, errors, last_error, verify_fail;
	uint64_t proto[GNIO_PROTO_COUNT];
	uint64_t digest;
	uint64_t seq_first, seq_last, seq_gap, seq_reorder, changed_in_hold;
	uint64_t batch_now, batch_peak;
};
struct app_batch_acc {
	unsigned long long bytes;
	unsigned long long digest;
	unsigned long long tx_packets;
	unsigned long long tx_again;
	unsigned int errors;
	unsigned int last_error;
	unsigned int proto[GNIO_PROTO_COUNT];
	/* verify */
	unsigned long long seq_gap;
	unsigned int verify_fail, seq_reorder, changed_in_hold;
};

__device__ __forceinline__ void stats_store(struct gnio_app_stats *st, const struct app_totals *t, int app)
{
	/* Relaxed: counters publish nothing else; the host reads them as
	 * monotonic samples. One writer per queue. */
	gnio_store_relaxed_u64(&st->packets, t->packets);
	gnio_store_relaxed_u64(&st->bytes, t->bytes);
	gnio_store_relaxed_u64(&st->batches, t->batches);
	gnio_store_relaxed_u64(&st->errors, t->errors);
	gnio_store_relaxed_u64(&st->last_error, t->last_error);
	gnio_store_relaxed_u64(&st->verify_fail, t->verify_fail);
	gnio_store_relaxed_u64(&st->batch_now, t->batch_now);
	gnio_store_relaxed_u64(&st->batch_peak, t->batch_peak);
	if (app == APP_ECHO || app == APP_ECHO_COPY || app == APP_FWD) {
		gnio_store_relaxed_u64(&st->tx_packets, t->tx_packets);
		gnio_store_relaxed_u64(&st->tx_again, t->tx_again);
	}
	if (app == APP_CLASSIFY) {
		for (int i = 0; i < GNIO_PROTO_COUNT; i++)
			gnio_store_relaxed_u64(&st->proto[i], t->proto[i]);
	}
	if (app == APP_TOUCH)
		gnio_store_relaxed_u64(&st->digest, t->digest);
	if (app == APP_VERIFY) {
		gnio_store_relaxed_u64(&st->seq_first, t->seq_first);
		gnio_store_relaxed_u64(&st->seq_last, t->seq_last);
		gnio_store_relaxed_u64(&st->seq_gap, t->seq_gap);
		gnio_store_relaxed_u64(&st->seq_reorder, t->seq_reorder);
		gnio_store_relaxed_u64(&st->changed_in_hold, t->changed_in_hold);
	}
}

/* The TX ring is full: wait (sleeping, not spinning on reserve) until the
 * proxy completes more descriptors than the failed reservation saw, or the
 * stop flag is set. The group's leader alone polls across PCIe. Uniform
 * across the group. Returns 0 when told to stop. */
template <int SCOPE>
__device__ __forceinline__ int tx_wait(const struct gnio_gpu_eth_txq *tq, struct gnio_kernel_ctl *ctl)
{
	const int leader = SCOPE == SCOPE_THREAD || (SCOPE == SCOPE_WARP ? (threadIdx.x & 31u) == 0 : threadIdx.x == 0);
	int stop = 0;
	if (leader) {
		const uint64_t seen = gnio_tx_ring_seen_done(tq);
		uint32_t naps = 0;
		while (gnio_gpu_dev_eth_txq_completed(tq) == seen && !(stop = gnio_gpu_dev_kernel_should_stop(ctl))) {
			__nanosleep(naps < 8 ? 256u << naps : 65536u);
			naps++;
		}
	}
	return !group_any<SCOPE>(stop);
}

/*
 * In-place send of one batch (echo, fwd): a round takes up to per_round
 * frames (the group, or fewer when the TX ring is smaller), one per member
 * in rank order; each member swaps its frame's MACs where it lies and sends
 * it at SEND scope (THREAD: each thread on its own; WARP: one reservation
 * per warp; BLOCK: one per block, so the round leaves in order). Rounds are
 * uniform across the group, as the warp and block sends need.
 */
template <int SCOPE, int SEND>
__device__ __forceinline__ void send_batch_in_place(const struct gnio_app_args &a, struct gnio_kernel_ctl *ctl,
						    const struct batch &b, struct app_batch_acc *acc)
{
	const struct gnio_gpu_eth_txq *tq = a.txq;
	const uint32_t tid = threadIdx.x;
	const uint32_t nthr = SCOPE == SCOPE_THREAD ? 1u : SCOPE == SCOPE_WARP ? 32u : blockDim.x;
	const uint32_t mkey = gnio_gpu_dev_eth_rxq_get_pkt_mkey(a.rxq);
	/* One block sends on the queue: block-scope atomics do, and a group
	 * that is the only sender owns it outright (a whole block sending as
	 * one, or the receiving group sending at its own scope: at warp scope
	 * only warp 0 runs). Owning it saves the CAS on the ticket counter. */
	constexpr enum gnio_gpu_dev_eth_resource_sharing_mode SHARING =
		(SEND == SCOPE_BLOCK || SEND == SCOPE) ? GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE
						       : GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_CTA;
	constexpr enum gnio_gpu_dev_eth_exec_scope XS = exec_scope<SEND>();
	uint32_t sent = 0, again = 0, errors = 0, last_err = 0;
	/* Uniform over the group (b.count is): every member sends the same way.
	 * Watched queues always do: a fence while the watchers poll host memory
	 * costs about 4 us. */
	const bool hdr_send = a.watchers || b.count <= HDR_SEND_MAX_BATCH;
	/* One reservation per round: never more than the ring holds. */
	const uint32_t ring = gnio_gpu_dev_eth_txq_get_size(tq);
	const uint32_t per_round = SEND == SCOPE_THREAD ? nthr : (nthr < ring ? nthr : ring);

	for (uint32_t base = 0; base < b.count; base += per_round) {
		const uint32_t i = base + tid;
		uint8_t *pkt = nullptr;
		uint32_t len = 0, hdr_len = 0;
		uint32_t hdr[3];
		if (tid < per_round && i < b.count) {
			gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, b.first + i, &pkt, &len, nullptr);
			/* With an inline header the addresses are read from device
			 * (or shared) memory: no PCIe round trip. */
			const uint8_t *src = gnio_gpu_dev_eth_rxq_get_pkt_hdr(a.rxq, b.first + i, nullptr);
			/* A small batch (or a watched queue) carries the swapped
			 * addresses in the descriptor: the frame is not written and
			 * the send needs no system fence. A big one writes them
			 * here, so that the TX proxy need not: a cache line moved
			 * between host cores per frame cost fwd a third of its rate
			 * (docs/PERFORMANCE.md, "Echo without fences"). */
			if (hdr_send)
				hdr_len = gnio_frame_swapped_macs(hdr, src, len);
			else
				gnio_frame_swap_macs_from(pkt, src, len);
			if (a.trace && tid == 0)
				gnio_store_relaxed_u64(&a.trace[GNIO_APP_TRACE_CLK_HEADER], (uint64_t)clock64());
		}
		for (;;) {
			gnio_error_t e;
			if (hdr_send)
				e = gnio_gpu_dev_eth_txq_send_hdr<SHARING, GNIO_GPUNETIO_ETH_SYNC_SCOPE_SYS,
								  GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO, XS>(
					tq, (uint64_t)(uintptr_t)pkt, mkey, len, (const uint8_t *)hdr, hdr_len,
					GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, nullptr);
			else
				e = gnio_gpu_dev_eth_txq_send<SHARING, GNIO_GPUNETIO_ETH_SYNC_SCOPE_SYS,
							      GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO, XS>(
					tq, (uint64_t)(uintptr_t)pkt, mkey, len, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, nullptr);
			if (len && e == GNIO_SUCCESS) {
				sent++;
				len = 0;
			} else if (len && e != GNIO_ERROR_AGAIN) {
				errors++;
				last_err = (uint32_t)e;
				len = 0;
			}
			/* Every member retries while any member's frame found the
			 * ring full; the others join with nothing to send. */
			const int retry = group_any<SEND>(len != 0);
			if (!retry)
				break;
			again++;
			if (!tx_wait<SEND>(tq, ctl))
				goto done;
		}
	}
done:
	if (sent)
		atomicAdd(&acc->tx_packets, (unsigned long long)sent);
	/* A retry is one event of the sending group: count it once. */
	const int counts_again = SEND == SCOPE_THREAD || (SEND == SCOPE_WARP && (tid & 31u) == 0) || tid == 0;
	if (again && counts_again)
		atomicAdd(&acc->tx_again, (unsigned long long)again);
	if (errors) {
		atomicAdd(&acc->errors, errors);
		acc->last_error = last_err;
	}
}

/*
 * echo-copy: copy frame src (len bytes) into dst with the Ethernet addresses
 * swapped. `width` threads (lane 0..width-1) copy one frame together.
 *
 * src sits in pinned host memory (a PCIe round trip per dependent read), so
 * every load of a round is issued before any store: a 64-byte frame costs one
 * round trip. Every lane reads the three header words (one broadcast
 * transaction) and lane 0 writes them back swapped from registers.
 */
__device__ __forceinline__ void echo_copy(uint8_t *dst, const uint8_t *src, uint32_t len, uint32_t lane,
					  uint32_t width)
{
	if (len >= 12 && (((uintptr_t)src | (uintptr_t)dst) & 3) == 0) {
		const uint32_t *s4 = (const uint32_t *)src;
		uint32_t *d4 = (uint32_t *)dst;
		const uint32_t nw = len / 4;
		const uint32_t h0 = s4[0], h1 = s4[1], h2 = s4[2];
		for (uint32_t base = 3; base < nw; base += 4 * width) {
			uint32_t w[4];
#pragma unroll
			for (uint32_t r = 0; r < 4; r++) {
				uint32_t k = base + lane + r * width;
				w[r] = k < nw ? s4[k] : 0u;
			}
#pragma unroll
			for (uint32_t r = 0; r < 4; r++) {
				uint32_t k = base + lane + r * width;
				if (k < nw)
					d4[k] = w[r];
			}
		}
		uint8_t tail[3];
		uint32_t ntail = len - nw * 4;
		if (lane == 0) {
			for (uint32_t i = 0; i < ntail; i++)
				tail[i] = src[nw * 4 + i];
			d4[0] = h0;
			d4[1] = h1;
			d4[2] = h2;
			gnio_frame_swap_macs(dst, len); /* registers were stored: swap in the slot */
			for (uint32_t i = 0; i < ntail; i++)
				dst[nw * 4 + i] = tail[i];
		}
		return;
	}
	/* Unaligned or runt frames: byte by byte. */
	for (uint32_t i = lane; i < len; i += width)
		dst[i] = i < 12 ? src[i < 6 ? i + 6 : i - 6] : src[i];
}

/* echo-copy of one batch: reserve tickets for the batch (in chunks no larger
 * than the TX ring), copy each frame into its ticket's slot, commit. On AGAIN
 * the group waits for the proxy to complete descriptors, never re-trying
 * reserve in a tight loop. */
template <int SCOPE>
__device__ __forceinline__ void echo_copy_batch(const struct gnio_app_args &a, struct gnio_kernel_ctl *ctl,
						const struct batch &b, struct app_totals *tot, uint64_t *s_ticket,
						int *s_res)
{
	const struct gnio_gpu_eth_txq *tq = a.txq;
	const uint32_t tid = threadIdx.x;
	const uint32_t width = SCOPE == SCOPE_THREAD ? 1u : 32u;
	const uint32_t lane = SCOPE == SCOPE_THREAD ? 0u : (tid & 31u);
	const uint32_t group = SCOPE == SCOPE_BLOCK ? tid / 32u : 0u;
	const uint32_t ngroups = SCOPE == SCOPE_BLOCK ? blockDim.x / 32u : 1u;
	const uint32_t ring = gnio_gpu_dev_eth_txq_get_size(tq);
	const uint32_t room = gnio_gpu_dev_eth_txq_slot_size(tq);

	/* Each group's first frame: start reading its completion entry (a PCIe
	 * round trip) now, so it overlaps the ticket reservation and barriers
	 * below instead of following them. */
	uint8_t *pf_src = NULL;
	uint32_t pf_len = 0;
	if (group < b.count)
		gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, b.first + group, &pf_src, &pf_len, NULL);

	for (uint32_t done = 0; done < b.count;) {
		uint32_t n = b.count - done < ring ? b.count - done : ring;
		uint64_t ticket = 0;
		int res = 0; /* 1 reserved, 0 stop, -1 error */

		if (tid == 0) {
			gnio_error_t err;
			uint32_t naps = 0;
			while ((err = gnio_gpu_dev_eth_txq_reserve(tq, n, &ticket)) == GNIO_ERROR_AGAIN) {
				/* what the failed reservation saw: no PCIe read */
				const uint64_t seen = gnio_tx_ring_seen_done(tq);
				tot->tx_again++;
				/* Drain: wait until the proxy has completed more
				 * descriptors, or we are told to stop. */
				uint64_t now_done;
				while ((now_done = gnio_gpu_dev_eth_txq_completed(tq)) == seen) {
					if (gnio_gpu_dev_kernel_should_stop(ctl))
						goto out;
					__nanosleep(naps < 8 ? 256u << naps : 65536u);
					naps++;
				}
			}
			if (err == GNIO_SUCCESS) {
				res = 1;
			} else {
				tot->errors++;
				tot->last_error = (uint64_t)err;
				res = -1;
			}
out:
			;
		}
		if (SCOPE == SCOPE_BLOCK) {
			if (tid == 0) {
				*s_ticket = ticket;
				*s_res = res;
			}
			__syncthreads();
			ticket = *s_ticket;
			res = *s_res;
			__syncthreads(); /* everyone read before thread 0 may rewrite */
		} else if (SCOPE == SCOPE_WARP) {
			unsigned long long t64 = ticket;
			t64 = __shfl_sync(0xffffffffu, t64, 0);
			ticket = t64;
			res = __shfl_sync(0xffffffffu, res, 0);
		}
		if (res != 1)
			return; /* stop requested or a hard error: the batch is not echoed */

		for (uint32_t f = group; f < n; f += ngroups) {
			uint8_t *src;
			uint32_t len;
			if (done == 0 && f == group) {
				src = pf_src;
				len = pf_len;
			} else {
				gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, b.first + done + f, &src, &len, NULL);
			}
			uint64_t t = ticket + f;
			uint32_t clen = len <= room ? len : room;
			echo_copy(gnio_gpu_dev_eth_txq_slot_addr(tq, t), src, clen, lane, width);
			/* The lanes' payload stores happen before lane 0's release
			 * of the tag (ring.h: ordered by the caller). */
			if (width > 1)
				__syncwarp();
			if (lane == 0)
				gnio_gpu_dev_eth_txq_commit(tq, t, clen, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, 0);
		}
		if (tid == 0)
			tot->tx_packets += n;
		done += n;
	}
}

/* touch: every payload word, a warp per frame. Each lane issues its 16-byte
 * loads four at a time before using any, so a frame costs about one PCIe
 * round trip (pinned pools) instead of one per 128 bytes. Same digest as
 * gnio_frame_digest(). */
__device__ __forceinline__ uint32_t touch_frame(const uint8_t *p, uint32_t len, uint32_t lane, uint32_t step)
{
	uint32_t x = 0, done_bytes = 0;
	if (((uintptr_t)p & 15u) == 0) {
		const uint4 *v = (const uint4 *)p;
		const uint32_t nv = len / 16u;
		uint32_t k = lane;
		for (; k + 3u * step < nv; k += 4u * step) {
			uint4 q0 = v[k], q1 = v[k + step], q2 = v[k + 2u * step], q3 = v[k + 3u * step];
			x ^= q0.x ^ q0.y ^ q0.z ^ q0.w ^ q1.x ^ q1.y ^ q1.z ^ q1.w;
			x ^= q2.x ^ q2.y ^ q2.z ^ q2.w ^ q3.x ^ q3.y ^ q3.z ^ q3.w;
		}
		for (; k < nv; k += step) {
			uint4 q0 = v[k];
			x ^= q0.x ^ q0.y ^ q0.z ^ q0.w;
		}
		done_bytes = nv * 16u;
	}
	/* Unaligned frames (some zero-copy wires) and the tail: the shared
	 * per-word digest over what is left. */
	return x ^ gnio_frame_digest_part(p + done_bytes, len - done_bytes, lane, step);
}

/*
 * verify: frame i of the batch, by the thread that owns it. Its stamp is
 * chained to frame i-1's (read here: 8 bytes) or, for frame 0, to the last
 * stamp of the previous batch (prev0). Returns the frame's sequence number,
 * -1 when it is not intact; the owner of the last frame leaves its stamp and
 * sequence number in *last_stamp / *last_seq.
 */
__device__ __forceinline__ int64_t verify_frame_at(const struct gnio_gpu_eth_rxq *q, const struct batch &b,
						   uint32_t i, int64_t prev0, struct app_batch_acc *acc,
						   int64_t *last_stamp, int64_t *last_seq)
{
	uint8_t *p;
	uint32_t len;
	gnio_gpu_dev_eth_rxq_get_pkt(q, b.first + i, &p, &len, nullptr);
	const int64_t seq = gnio_verify_frame(p, len), stamp = gnio_verify_stamp(p, len);
	int64_t prev = prev0;
	if (i > 0) {
		uint8_t *pp;
		uint32_t plen;
		gnio_gpu_dev_eth_rxq_get_pkt(q, b.first + i - 1, &pp, &plen, nullptr);
		prev = gnio_verify_stamp(pp, plen);
	}
	if (seq < 0)
		atomicAdd(&acc->verify_fail, 1u);
	if (stamp >= 0 && prev >= 0 && stamp > prev + 1)
		atomicAdd(&acc->seq_gap, (unsigned long long)(stamp - prev - 1));
	else if (stamp >= 0 && prev >= 0 && stamp <= prev)
		atomicAdd(&acc->seq_reorder, 1u);
	if (i + 1 == b.count) {
		*last_stamp = stamp;
		*last_seq = seq;
	}
	return seq;
}

/* verify with a hold: the group keeps the batch hold_ns, then every thread
 * reads its frames again; the proxy must not have refilled a slot of a batch
 * not yet released, so each must still be intact with the same stamps. */
template <int SCOPE>
__device__ __forceinline__ void verify_hold(const struct gnio_app_args &a, const struct batch &b, uint32_t nthr,
					    uint64_t stamp_sum, struct app_batch_acc *acc)
{
	if (threadIdx.x == 0) {
		const uint64_t until = gnio_gpu_dev_time_ns() + a.hold_ns;
		while (gnio_gpu_dev_time_ns() < until)
			__nanosleep(1000);
	}
	group_sync<SCOPE>();
	uint64_t again = 0;
	for (uint32_t i = threadIdx.x; i < b.count; i += nthr) {
		uint8_t *p;
		uint32_t len;
		gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, b.first + i, &p, &len, nullptr);
		const int64_t seq = gnio_verify_frame(p, len);
		if (seq < 0)
			atomicAdd(&acc->verify_fail, 1u);
		again += (uint64_t)(seq + 1) * (i + 1);
	}
	if (again != stamp_sum)
		atomicAdd(&acc->changed_in_hold, 1u);
}

/* Benchmarks' trace (gnio_app_args.trace), thread 0: a receive got frames.
 * Clock stamps are the SM's cycles; the global timer beside the last one
 * lets the reader convert them. */
__device__ __forceinline__ void trace_received(uint64_t *tr, uint64_t end, long long recv_clk, uint64_t *idle_recvs)
{
	gnio_store_relaxed_u64(&tr[GNIO_APP_TRACE_CLK_RECV_CALL], (uint64_t)recv_clk);
	gnio_store_relaxed_u64(&tr[GNIO_APP_TRACE_CLK_RECEIVED], (uint64_t)clock64());
	gnio_store_relaxed_u64(&tr[GNIO_APP_TRACE_GLOBAL_NS], gnio_gpu_dev_time_ns());
	gnio_store_relaxed_u64(&tr[GNIO_APP_TRACE_IDLE_RECVS], *idle_recvs);
	*idle_recvs = 0;
	gnio_store_relaxed_u64(&tr[GNIO_APP_TRACE_RECV], end);
}

/* One thread, before the kernel ends: the queues' state goes back to device
 * memory, where the next kernel on them starts. */
__device__ __forceinline__ void put_state_back(const struct gnio_app_args &args, const struct gnio_app_args &a)
{
	gnio_gpu_dev_eth_rxq_state_back(args.rxq, a.rxq);
	if (args.txq)
		gnio_gpu_dev_eth_txq_state_back(args.txq, a.txq);
}

/* The bytes of dynamic shared memory the launch gave this block. */
__device__ __forceinline__ uint32_t dynamic_shared_bytes(void)
{
	uint32_t n;
	asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
	return n;
}

template <int APP, int SCOPE, int SEND>
__device__ __forceinline__ void app_main(struct gnio_app_args args, struct gnio_kernel_ctl *ctl)
{
	extern __shared__ uint64_t s_copies[]; /* the receive's copies, when sized */
	/* The queue handles, copied into shared memory once: every receive and
	 * send reads a dozen of their fields one after another, and each system
	 * fence empties L1, so from global memory each read would go to L2
	 * (about 1 us per receive and send together on the H200). */
	__shared__ struct gnio_gpu_eth_rxq s_rxq;
	__shared__ struct gnio_gpu_eth_txq s_txq;
	__shared__ gnio_gpu_dev_eth_rxq_state s_rx_state;
	__shared__ gnio_gpu_dev_eth_rxq_watch s_watch;
	__shared__ gnio_gpu_dev_eth_txq_state s_tx_state;
	__shared__ struct app_totals s_tot;
	__shared__ struct app_batch_acc s_acc;
	__shared__ int s_flag;
	__shared__ uint64_t s_ticket;
	__shared__ int s_res;
	__shared__ uint64_t s_stored; /* batches covered by the last stats store */
	__shared__ int64_t s_prev_stamp; /* verify: the last stamp of the previous batch */
	__shared__ int64_t s_last_stamp, s_last_seq; /* ... and of this one */
	const uint32_t tid = threadIdx.x;
	uint64_t hb = 0;
	long long last_ctl = 0; /* thread 0's */
	long long last_batch = 0; /* thread 0's: clock at the end of the last batch */
	int did_ctl = 0;        /* thread 0's */
	/* Control traffic (stop flag read, heartbeat, stats) crosses PCIe; while
	 * frames flow, do it every CTL_EVERY batches, and on every idle pass.
	 * Both conditions are uniform across the group, as the barriers need. */
	uint32_t iter = 0, last_count = 0;
	uint64_t idle_recvs = 0; /* thread 0's, for the trace: receives that found nothing */

	/* Warps beyond the first poll for it (args.watchers); a thread or warp
	 * consumer leaves the rest of the block nothing to do. */
	const bool watched = SCOPE != SCOPE_BLOCK && args.watchers > 0;
	if (!watched && ((SCOPE == SCOPE_THREAD && tid != 0) || (SCOPE == SCOPE_WARP && tid >= 32)))
		return;
	const uint32_t nthr = SCOPE == SCOPE_THREAD ? 1u : SCOPE == SCOPE_WARP ? 32u : blockDim.x;
	/* Each thread's own copy, fed the same inputs: the group agrees. */
	struct gnio_batch_tuner tuner;
	gnio_batch_tuner_init(&tuner, args.max_batch, gnio_gpu_dev_eth_rxq_get_num_packets(args.rxq));

	if (tid == 0) {
		/* The queues' own state in shared memory for the run: this block
		 * is each queue's only consumer and sender, and a receive or a
		 * reservation then reads no device memory before it polls. */
		s_rxq = *args.rxq;
		gnio_gpu_dev_eth_rxq_state_to_shared(&s_rxq, &s_rx_state);
		/* The receive's copies of the completions (meta and inline
		 * header) go in the launch's dynamic shared memory when the
		 * host sized it for the ring (launch_one): each frame's meta
		 * and header are then read from there, not from L2
		 * (docs/PERFORMANCE.md, "Shared copies for watched queues"). */
		const uint32_t per_entry = 8u * (1u + (s_rxq.hdr_local ? GNIO_RX_HDR_LOCAL_WORDS : 0u));
		const uint32_t entries = dynamic_shared_bytes() / per_entry;
		if (entries)
			gnio_gpu_dev_eth_rxq_local_to_shared(&s_rxq, s_copies, s_rxq.hdr_local ? s_copies + entries : nullptr,
							     entries);
		if (watched)
			gnio_gpu_dev_eth_rxq_watch_attach(&s_rxq, &s_watch, args.watchers);
		if (args.txq) {
			s_txq = *args.txq;
			gnio_gpu_dev_eth_txq_state_to_shared(&s_txq, &s_tx_state);
		}
		memset(&s_tot, 0, sizeof(s_tot));
		memset(&s_acc, 0, sizeof(s_acc));
		s_stored = 0;
		s_prev_stamp = -1;
		s_tot.batch_now = s_tot.batch_peak = tuner.batch;
	}
	if (watched) {
		__syncthreads();
		if (tid >= 32) {
			gnio_gpu_dev_eth_rxq_watch_run(&s_rxq, tid / 32u - 1u);
			return;
		}
		if (SCOPE == SCOPE_THREAD && tid != 0)
			return;
	} else {
		group_sync<SCOPE>();
	}
	struct gnio_app_args a = args;
	a.rxq = &s_rxq;
	a.txq = args.txq ? &s_txq : nullptr;

	for (;; iter++) {
		int ctl_pass = last_count == 0 || (iter % CTL_EVERY) == 0;
		if (ctl_pass && group_should_stop<SCOPE>(ctl, &hb, &s_flag, &last_ctl, last_batch, &did_ctl))
			break;
		const long long recv_clk = a.trace ? clock64() : 0;
		struct batch b = app_recv<SCOPE>(a.rxq, tuner.batch, a.timeout_ns);
		last_count = b.count;
		if (b.err == GNIO_SUCCESS)
			gnio_batch_tuner_next(&tuner, b.count, gnio_gpu_dev_eth_rxq_last_recv_full_at_once(a.rxq));
		if (b.err != GNIO_SUCCESS) {
			/* BAD_STATE (no pool registered) and the like do not heal:
			 * report and leave, the host sees the exit code. */
			if (tid == 0) {
				s_tot.errors++;
				s_tot.last_error = (uint64_t)b.err;
				stats_store(a.stats, &s_tot, APP);
				if (watched)
					gnio_gpu_dev_eth_rxq_watch_stop(&s_rxq);
				put_state_back(args, a);
				gnio_gpu_dev_kernel_set_exit_code(ctl, (uint32_t)b.err);
			}
			return;
		}
		if (b.count == 0) {
			idle_recvs++;
			/* idle: make the totals exact, with the control traffic */
			if (tid == 0 && did_ctl && s_tot.batches != s_stored) {
				stats_store(a.stats, &s_tot, APP);
				s_stored = s_tot.batches;
			}
			continue;
		}

		if (a.trace && tid == 0)
			trace_received(a.trace, b.first + b.count, recv_clk, &idle_recvs);
		if (APP == APP_ECHO_COPY)
			echo_copy_batch<SCOPE>(a, ctl, b, &s_tot, &s_ticket, &s_res);
		if (APP == APP_ECHO || APP == APP_FWD)
			send_batch_in_place<SCOPE, SEND>(a, ctl, b, &s_acc);
		if (a.trace && tid == 0) {
			gnio_store_relaxed_u64(&a.trace[GNIO_APP_TRACE_CLK_SENT], (uint64_t)clock64());
			gnio_store_relaxed_u64(&a.trace[GNIO_APP_TRACE_SENT], b.first + b.count);
		}
		/* Per-batch byte and protocol counts, one frame per thread. */
		unsigned long long bytes = 0;
		uint64_t stamp_sum = 0; /* verify: what the hold compares */
		for (uint32_t i = tid; i < b.count; i += nthr) {
			uint8_t *p;
			uint32_t len;
			gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, b.first + i, &p, &len, NULL);
			bytes += len;
			if (APP == APP_CLASSIFY)
				atomicAdd(&s_acc.proto[gnio_classify(p, len)], 1u);
			if (APP == APP_VERIFY) {
				const int64_t seq =
					verify_frame_at(a.rxq, b, i, s_prev_stamp, &s_acc, &s_last_stamp, &s_last_seq);
				if (i == 0 && s_tot.packets == 0 && seq >= 0)
					s_tot.seq_first = (uint64_t)seq; /* thread 0 owns frame 0 and s_tot */
				stamp_sum += (uint64_t)(seq + 1) * (i + 1);
			}
		}
		if (APP == APP_VERIFY && a.hold_ns) {
			group_sync<SCOPE>(); /* every first look done before the hold starts */
			verify_hold<SCOPE>(a, b, nthr, stamp_sum, &s_acc);
		}
		if (APP == APP_TOUCH) {
			const uint32_t lane = nthr >= 32 ? (tid & 31u) : 0u;
			const uint32_t step = nthr >= 32 ? 32u : 1u;
			const uint32_t warp = nthr >= 32 ? tid / 32u : 0u;
			const uint32_t nwarps = nthr >= 32 ? nthr / 32u : 1u;
			uint32_t x = 0;
			for (uint32_t f = warp; f < b.count; f += nwarps) {
				uint8_t *p;
				uint32_t len;
				gnio_gpu_dev_eth_rxq_get_pkt(a.rxq, b.first + f, &p, &len, NULL);
				x ^= touch_frame(p, len, lane, step);
			}
			if (nthr > 1) {
				if (x)
					atomicXor(&s_acc.digest, (unsigned long long)x);
			} else {
				s_acc.digest ^= x;
			}
		}
		if (nthr > 1) {
			if (bytes)
				atomicAdd(&s_acc.bytes, bytes);
			group_sync<SCOPE>();
		} else {
			s_acc.bytes = bytes;
		}
		if (tid == 0) {
			s_tot.packets += b.count;
			s_tot.bytes += s_acc.bytes;
			s_tot.batches++;
			s_tot.batch_now = tuner.batch;
			s_tot.batch_peak = tuner.peak;
			s_acc.bytes = 0;
			if (APP == APP_TOUCH) {
				s_tot.digest ^= s_acc.digest;
				s_acc.digest = 0;
			}
			if (APP == APP_VERIFY) {
				s_tot.verify_fail += s_acc.verify_fail;
				s_tot.seq_gap += s_acc.seq_gap;
				s_tot.seq_reorder += s_acc.seq_reorder;
				s_tot.changed_in_hold += s_acc.changed_in_hold;
				if (s_last_seq >= 0)
					s_tot.seq_last = (uint64_t)s_last_seq;
				s_prev_stamp = s_last_stamp;
				s_acc.verify_fail = s_acc.seq_reorder = s_acc.changed_in_hold = 0;
				s_acc.seq_gap = 0;
			}
			if (APP == APP_CLASSIFY) {
				for (int k = 0; k < GNIO_PROTO_COUNT; k++) {
					s_tot.proto[k] += s_acc.proto[k];
					s_acc.proto[k] = 0;
				}
			}
			if (APP == APP_ECHO || APP == APP_FWD) {
				s_tot.tx_packets += s_acc.tx_packets;
				s_tot.tx_again += s_acc.tx_again;
				s_tot.errors += s_acc.errors;
				if (s_acc.errors)
					s_tot.last_error = s_acc.last_error;
				s_acc.tx_packets = s_acc.tx_again = 0;
				s_acc.errors = 0;
			}
			if (ctl_pass && did_ctl) {
				stats_store(a.stats, &s_tot, APP);
				s_stored = s_tot.batches;
			}
			last_batch = clock64();
		}
		/* The next loop's barrier (group_should_stop / recv) orders thread
		 * 0's resets before anyone adds again. Warp and thread scope: the
		 * shfl in group_should_stop is not a memory barrier, so sync. */
		if (SCOPE == SCOPE_WARP)
			__syncwarp();
	}
	/* Hand back the last batch, so the proxy sees everything consumed: the
	 * watchers leave first, and the release is then stored here. */
	if (watched && tid == 0)
		gnio_gpu_dev_eth_rxq_watch_stop(&s_rxq);
	gnio_gpu_dev_eth_rxq_release<exec_scope<SCOPE>()>(a.rxq);
	if (tid == 0) {
		stats_store(a.stats, &s_tot, APP);
		put_state_back(args, a);
		gnio_gpu_dev_kernel_set_exit_code(ctl, 0);
	}
}

template <int APP, int SCOPE, int SEND>
__global__ void app_kernel(struct gnio_app_args args, struct gnio_kernel_ctl *ctl)
{
	app_main<APP, SCOPE, SEND>(args, ctl);
}

/* The touch app reads every payload byte, and more threads keep more loads
 * in flight: its block-scope kernel is bounded to fit 1024 threads (64
 * registers each, a few spilled). The others keep their registers (up to
 * 96: fewer would spill on the echo path) and launch with what fits. */
template <int APP, int SCOPE, int SEND>
__global__ void __launch_bounds__(1024) app_kernel_1024(struct gnio_app_args args, struct gnio_kernel_ctl *ctl)
{
	app_main<APP, SCOPE, SEND>(args, ctl);
}

/* Dynamic shared memory for the receive's copies of its completions: the
 * ring's metas (and inline headers) when they fit beside the kernel's own
 * shared memory, else 0 and they stay in device memory. */
static size_t shared_copy_bytes(const struct gnio_app_args &a, void (*kernel)(struct gnio_app_args, struct gnio_kernel_ctl *),
				const struct cudaFuncAttributes &fa)
{
	struct gnio_gpu_eth_rxq h;
	int dev, optin;
	if (cudaMemcpy(&h, a.rxq, sizeof(h), cudaMemcpyDefault) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	const size_t bytes = (size_t)h.size * 8u * (1u + (h.hdr_local ? GNIO_RX_HDR_LOCAL_WORDS : 0u));
	if (fa.sharedSizeBytes + bytes > (size_t)optin ||
	    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) != cudaSuccess) {
		(void)cudaGetLastError();
		GNIO_LOG_DBG("apps", "RX queue of %u entries: its copies stay in device memory", h.size);
		return 0;
	}
	return bytes;
}

template <int APP, int SCOPE, int SEND>
static void launch_one(const struct gnio_app_args &a, uint32_t threads, cudaStream_t s, struct gnio_kernel_ctl *ctl)
{
	/* More threads than the kernel's registers allow would fail the
	 * launch: run with whole warps that fit, and say so. */
	constexpr bool wide = APP == APP_TOUCH && SCOPE == SCOPE_BLOCK;
	void (*kernel)(struct gnio_app_args, struct gnio_kernel_ctl *);
	if constexpr (wide)
		kernel = app_kernel_1024<APP, SCOPE, SEND>;
	else
		kernel = app_kernel<APP, SCOPE, SEND>;
	struct cudaFuncAttributes fa = {};
	if (cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && threads > (uint32_t)fa.maxThreadsPerBlock) {
		uint32_t fit = (uint32_t)fa.maxThreadsPerBlock & ~31u;
		GNIO_LOG_WARN("apps", "%u threads asked, the kernel fits %u (%d registers a thread): launching %u",
			      threads, fit, fa.numRegs, fit);
		threads = fit;
	}
	kernel<<<1, threads, shared_copy_bytes(a, kernel, fa), s>>>(a, ctl);
}

/* The send scope cannot be wider than the receiving group. */
template <int APP, int SCOPE>
static void launch_scope(const struct gnio_app_args &a, uint32_t threads, cudaStream_t s, struct gnio_kernel_ctl *ctl)
{
	const int send = a.send_scope < SCOPE ? a.send_scope : SCOPE;
	if (send == SCOPE_BLOCK)
		launch_one<APP, SCOPE, (SCOPE >= SCOPE_BLOCK ? SCOPE_BLOCK : SCOPE)>(a, threads, s, ctl);
	else if (send == SCOPE_WARP)
		launch_one<APP, SCOPE, (SCOPE >= SCOPE_WARP ? SCOPE_WARP : SCOPE)>(a, threads, s, ctl);
	else
		launch_one<APP, SCOPE, SCOPE_THREAD>(a, threads, s, ctl);
}

template <int APP> static gnio_error_t launch_app(const struct gnio_runner_launch *l)
{
	const struct gnio_app_args *in = (const struct gnio_app_args *)l->user;
	const int sends = APP == APP_ECHO || APP == APP_ECHO_COPY || APP == APP_FWD;
	if (!in || !in->rxq || !in->stats || (sends && !in->txq) || in->blocks > 1 ||
	    in->recv_scope < SCOPE_THREAD || in->recv_scope > SCOPE_BLOCK || in->send_scope < SCOPE_THREAD ||
	    in->send_scope > SCOPE_BLOCK)
		return GNIO_ERROR_INVALID_VALUE;

	struct gnio_app_args a = *in; /* max_batch 0: adaptive (batch_tuner.h) */
	if (APP == APP_ECHO || APP == APP_ECHO_COPY)
		a.timeout_ns = 1; /* look once: answer each frame at once */
	else if (a.timeout_ns == 0)
		a.timeout_ns = GNIO_APP_DEF_TIMEOUT_NS;
	if (a.watchers && (a.recv_scope == SCOPE_BLOCK || a.watchers > GNIO_APP_MAX_WATCHERS)) {
		gnio_set_error_msg("watchers (%u) need a thread or warp receive and at most %u of them", a.watchers,
				   GNIO_APP_MAX_WATCHERS);
		return GNIO_ERROR_INVALID_VALUE;
	}
	uint32_t threads = a.threads ? a.threads : GNIO_APP_DEF_THREADS;
	if (a.recv_scope == SCOPE_WARP)
		threads = 32;
	/* Whole warps: the echo copy and the warp receive work by warps. */
	threads = (threads + 31u) & ~31u;
	if (a.recv_scope == SCOPE_THREAD)
		threads = 1;
	if (a.watchers)
		threads = 32u * (1u + a.watchers); /* the consumer's warp, then the watchers */
	if (threads > 1024)
		threads = 1024;

	cudaStream_t s = (cudaStream_t)l->stream;
	switch (a.recv_scope) {
	case SCOPE_THREAD:
		launch_scope<APP, SCOPE_THREAD>(a, threads, s, l->ctl);
		break;
	case SCOPE_WARP:
		launch_scope<APP, SCOPE_WARP>(a, threads, s, l->ctl);
		break;
	default:
		launch_scope<APP, SCOPE_BLOCK>(a, threads, s, l->ctl);
		break;
	}
	cudaError_t e = cudaGetLastError();
	if (e == cudaSuccess)
		return GNIO_SUCCESS;
	gnio_set_error_msg("launching the built-in app with %u threads: %s", threads, cudaGetErrorString(e));
	return GNIO_ERROR_DRIVER;
}

extern "C" gnio_error_t gnio_app_count_cuda(const struct gnio_runner_launch *l) { return launch_app<APP_COUNT>(l); }
extern "C" gnio_error_t gnio_app_classify_cuda(const struct gnio_runner_launch *l)
{
	return launch_app<APP_CLASSIFY>(l);
}
extern "C" gnio_error_t gnio_app_touch_cuda(const struct gnio_runner_launch *l) { return launch_app<APP_TOUCH>(l); }
extern "C" gnio_error_t gnio_app_echo_cuda(const struct gnio_runner_launch *l) { return launch_app<APP_ECHO>(l); }
extern "C" gnio_error_t gnio_app_echo_copy_cuda(const struct gnio_runner_launch *l)
{
	return launch_app<APP_ECHO_COPY>(l);
}
extern "C" gnio_error_t gnio_app_fwd_cuda(const struct gnio_runner_launch *l) { return launch_app<APP_FWD>(l); }
extern "C" gnio_error_t gnio_app_verify_cuda(const struct gnio_runner_launch *l)
{
	return launch_app<APP_VERIFY>(l);
}
