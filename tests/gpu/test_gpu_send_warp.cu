/* SPDX-License-Identifier: MIT */
/*
 * A warp sending at WARP scope on a queue it owns (EXCLUSIVE sharing, the
 * path the built-in echo and fwd take), over the sw wire:
 *  A. lanes with a frame, lanes with size 0 and a lane with a frame outside
 *     every registered array: the good frames take consecutive tickets in
 *     lane order and leave in that order, the bad lane gets INVALID_VALUE,
 *     the idle lanes SUCCESS;
 *  B. more senders than the ring holds: INVALID_VALUE, nothing queued;
 *  C. a ring with too little room: every lane gets AGAIN and nothing is
 *     queued; once the proxy has drained it, the same send takes the next
 *     tickets.
 * The frames sit in the TX pool, built by the host; the peer checks each
 * one byte for byte, in order.
 */
#include "gpu_test.h"

#define RING 16u
#define SLOT 2048u
#define HELD (RING - 4u) /* C: tickets reserved ahead of the warp's send */

struct warp_res {
	uint32_t a_err[32], c_again_err[32], c_err[32], b_err[32];
	uint64_t a_ticket[32], c_ticket[32];
	uint64_t c_first_held;
	uint32_t a_done, c_done, finished;
};

__device__ static gnio_error_t warp_send(const struct gnio_gpu_eth_txq *q, uint64_t addr, uint32_t mkey, uint32_t size,
					 uint64_t *ticket)
{
	return gnio_gpu_dev_eth_txq_send<GNIO_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
					 GNIO_GPUNETIO_ETH_SYNC_SCOPE_GPU, GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
					 GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP>(q, addr, mkey, size,
									   GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, ticket);
}

/* One warp. lens[k]: the length of the frame the host built in slot k. */
__global__ void warp_kernel(struct gnio_gpu_eth_txq *q, uint32_t mkey, const uint32_t *lens, struct warp_res *res)
{
	const uint32_t lane = threadIdx.x;
	const uint64_t base = (uint64_t)(uintptr_t)gnio_gpu_dev_eth_txq_slot_addr(q, 0);
	uint64_t t = ~0ull;

	/* A: lanes 0-9 send slot `lane`, except lane 3 (size 0) and lane 5 (an
	 * address no array holds); every other lane sits out. Lanes 6 and 7
	 * name the array by address (key 0). */
	uint64_t addr = base + (uint64_t)lane * SLOT;
	uint32_t size = lane < 10u && lane != 3u ? lens[lane] : 0u;
	if (lane == 5u)
		addr = 64u; /* no registered array starts this low */
	gnio_error_t e = warp_send(q, addr, lane == 6u || lane == 7u ? 0u : mkey, size, &t);
	res->a_err[lane] = (uint32_t)e;
	res->a_ticket[lane] = e == GNIO_SUCCESS && size ? t : ~0ull;
	if (lane == 0)
		res->a_done = gt_wait_completed(q, 8); /* 8 good frames: tickets 0-7 */
	__syncwarp();

	/* B: 17 senders on a ring of 16. */
	size = lane <= RING ? lens[lane % RING] : 0u;
	e = warp_send(q, base + (uint64_t)(lane % RING) * SLOT, mkey, size, &t);
	res->b_err[lane] = (uint32_t)e;
	__syncwarp();

	/* C: lane 0 holds HELD tickets uncommitted, so the proxy stops at the
	 * first of them and 8 more do not fit; then it commits them (slot
	 * style: ticket t sends slot t % RING) and the 8 go after them. */
	uint64_t held = 0;
	if (lane == 0 && gnio_gpu_dev_eth_txq_reserve(q, HELD, &held) != GNIO_SUCCESS)
		held = ~0ull;
	held = __shfl_sync(0xffffffffu, held, 0);
	__syncwarp(); /* lane 0's reservation moved the counter the send reads */
	if (lane == 0)
		res->c_first_held = held;
	size = lane < 8u ? lens[8u + lane] : 0u;
	addr = base + (uint64_t)(8u + lane) * SLOT;
	e = warp_send(q, addr, mkey, size, &t);
	res->c_again_err[lane] = (uint32_t)e;
	__syncwarp();
	if (lane == 0 && held != ~0ull) {
		for (uint32_t i = 0; i < HELD; i++)
			gnio_gpu_dev_eth_txq_commit(q, held + i, lens[(held + i) % RING], GNIO_GPUNETIO_ETH_SEND_FLAG_NONE,
						    0);
		gt_wait_completed(q, held + HELD);
	}
	__syncwarp();
	e = warp_send(q, addr, mkey, size, &t);
	res->c_err[lane] = (uint32_t)e;
	res->c_ticket[lane] = e == GNIO_SUCCESS && size ? t : ~0ull;
	if (lane == 0)
		res->c_done = held != ~0ull && gt_wait_completed(q, held + HELD + 8u);
	__syncwarp();
	if (lane == 0)
		gnio_store_release_u32(&res->finished, 1);
}

struct warp_args {
	struct gnio_gpu_eth_txq *txq;
	uint32_t mkey;
	uint32_t *lens;
	struct warp_res *res;
};

static gnio_error_t warp_launch(const struct gnio_runner_launch *l)
{
	const struct warp_args *a = (const struct warp_args *)l->user;
	warp_kernel<<<1, 32, 0, (cudaStream_t)l->stream>>>(a->txq, a->mkey, a->lens, a->res);
	GT_LAUNCH_CHECK();
	return GNIO_SUCCESS;
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	struct gt_rig rig;
	struct gt_rig_cfg rc;

	gt_rig_cfg_init_tx(&rc, "gt_sendw", RING);
	rc.slot = SLOT;
	GT_OK(gt_rig_open(&rig, g, &rc));

	/* Frame k (seq k, three sizes in turn) in TX pool slot k. */
	void *lg, *lc, *rg, *rcp;
	GT_OK(gnio_gpu_mem_alloc(g, RING * sizeof(uint32_t), 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &lg, &lc));
	GT_OK(gnio_gpu_mem_alloc(g, sizeof(struct warp_res), 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &rg, &rcp));
	struct gnio_gen_cfg cfgs[3];
	for (int i = 0; i < 3; i++) {
		gnio_gen_cfg_init(&cfgs[i]);
		cfgs[i].frame_size = i == 0 ? 64 : i == 1 ? 333 : 1514;
	}
	GT_CHECK(rig.tx_mem_cpu != NULL, "TX pool has no host view");
	uint8_t *pool = (uint8_t *)rig.tx_mem_cpu;
	uint32_t *lens = (uint32_t *)lc;
	for (uint32_t k = 0; k < RING; k++) {
		lens[k] = gnio_gen_build(&cfgs[k % 3], k, pool + (size_t)k * SLOT, SLOT);
		GT_CHECK(lens[k] > 0, "build");
	}
	struct warp_res *res = (struct warp_res *)rcp;
	memset(res, 0, sizeof(*res));

	struct gnio_runner *r;
	uint32_t mkey = 0;
	GT_OK(gnio_buf_arr_get_mkey(rig.tx_arr, &mkey));
	GT_CHECK(mkey != 0, "the TX pool has no key");
	struct warp_args args = {rig.txh, mkey, (uint32_t *)lg, (struct warp_res *)rg};
	GT_OK(gnio_runner_create(g, &r));
	GT_OK(gnio_runner_start(r, warp_launch, &args));

	/* What the peer must see, in order: A's good lanes, C's held tickets
	 * (slot style, slot = ticket % RING), then C's 8 lanes. */
	uint32_t expect[8 + HELD + 8], n_expect = 0;
	const uint32_t a_slots[8] = {0, 1, 2, 4, 6, 7, 8, 9};
	for (uint32_t i = 0; i < 8; i++)
		expect[n_expect++] = a_slots[i];
	for (uint32_t i = 0; i < HELD; i++)
		expect[n_expect++] = (8u + i) % RING; /* A took tickets 0-7, B none */
	for (uint32_t i = 0; i < 8; i++)
		expect[n_expect++] = 8u + i;

	static uint8_t buf[9216];
	for (uint32_t n = 0; n < n_expect; n++) {
		uint32_t len = 0;
		gnio_error_t e = gt_peer_recv(rig.peer, buf, sizeof(buf), &len, NULL, 5000);
		GT_CHECK(e == GNIO_SUCCESS, "frame %u of %u: %s (kernel: a %u c %u)", n, n_expect, gnio_error_get_name(e),
			 res->a_done, res->c_done);
		uint64_t seq = ~0ull;
		GT_OK(gnio_gen_stamp_read(buf, len, &seq));
		GT_CHECK(seq == expect[n], "frame %u carries seq %llu, expected %u", n, (unsigned long long)seq,
			 expect[n]);
		GT_CHECK(len == lens[seq] && !memcmp(buf, pool + seq * SLOT, len), "frame %u (seq %llu) differs", n,
			 (unsigned long long)seq);
	}
	uint32_t len;
	GT_EXPECT(gt_peer_recv(rig.peer, buf, sizeof(buf), &len, NULL, 100), GNIO_ERROR_EMPTY);

	uint64_t end = gt_deadline_ms(5000);
	while (gnio_runner_get_state(r) == GNIO_RUNNER_RUNNING && gt_mono_ns() < end)
		gt_sleep_us(1000);
	GT_CHECK(gnio_runner_get_state(r) == GNIO_RUNNER_EXITED, "state %s",
		 gnio_runner_state_name(gnio_runner_get_state(r)));
	GT_OK(gnio_runner_stop(r, 1000));
	GT_CHECK(res->finished && res->a_done && res->c_done, "kernel: finished %u a %u c %u", res->finished,
		 res->a_done, res->c_done);

	uint64_t next = 0;
	for (uint32_t l = 0; l < 32; l++) {
		const int good = l < 10 && l != 3 && l != 5;
		const gnio_error_t want = l == 5 ? GNIO_ERROR_INVALID_VALUE : GNIO_SUCCESS;
		GT_CHECK(res->a_err[l] == (uint32_t)want, "A: lane %u got %s", l,
			 gnio_error_get_name((gnio_error_t)res->a_err[l]));
		if (good) {
			GT_CHECK(res->a_ticket[l] == next, "A: lane %u ticket %llu, expected %llu", l,
				 (unsigned long long)res->a_ticket[l], (unsigned long long)next);
			next++;
		}
		const gnio_error_t bwant = l <= RING ? GNIO_ERROR_INVALID_VALUE : GNIO_SUCCESS;
		GT_CHECK(res->b_err[l] == (uint32_t)bwant, "B: lane %u got %s", l,
			 gnio_error_get_name((gnio_error_t)res->b_err[l]));
		GT_CHECK(res->c_again_err[l] == (uint32_t)GNIO_ERROR_AGAIN, "C: lane %u got %s on a full ring", l,
			 gnio_error_get_name((gnio_error_t)res->c_again_err[l]));
		GT_CHECK(res->c_err[l] == (uint32_t)GNIO_SUCCESS, "C: lane %u got %s after the drain", l,
			 gnio_error_get_name((gnio_error_t)res->c_err[l]));
		if (l < 8)
			GT_CHECK(res->c_ticket[l] == 8u + HELD + l, "C: lane %u ticket %llu, expected %u", l,
				 (unsigned long long)res->c_ticket[l], 8u + HELD + l);
	}
	GT_CHECK(res->c_first_held == 8, "C: held tickets start at %llu", (unsigned long long)res->c_first_held);
	printf("A: 8 frames from 10 lanes in lane order, the bad address INVALID_VALUE, idle lanes SUCCESS\n");
	printf("B: 17 senders on a ring of %u: INVALID_VALUE, nothing queued\n", RING);
	printf("C: AGAIN on every lane with %u tickets held, then tickets %u-%u after the drain\n", HELD, 8u + HELD,
	       8u + HELD + 7u);

	struct gnio_eth_txq_stats ts;
	GT_OK(gnio_eth_txq_get_stats(rig.txq, &ts));
	GT_CHECK(ts.tx_packets == n_expect && ts.tx_errors == 0, "txq stats: %llu sent %llu errors",
		 (unsigned long long)ts.tx_packets, (unsigned long long)ts.tx_errors);

	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_gpu_mem_free(g, lg));
	GT_OK(gnio_gpu_mem_free(g, rg));
	return gt_rig_pass(&rig);
}
