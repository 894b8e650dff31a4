/* SPDX-License-Identifier: MIT */
/*
 * tests/gpu/test_gpu_recv_semantics.cu - the receive semantics of the device
 * API on the GPU, at thread, warp and block scope (block scope with the
 * receive's copies in shared memory), and at thread and warp scope with
 * watcher warps polling for the consumer, the copies in device and in
 * shared memory (where the watchers write them with atomics): the checks of
 * tests/util/recv_semantics.h (also run on the CPU device by
 * tests/unit/test_recv_semantics.c), each receive made by a CUDA kernel.
 */
#include "gpu_test.h"
#include "recv_semantics.h"

#define RS_LOCAL_ENTRIES 64u /* the rig's ring (rc.rx_entries) */

/* WATCHERS > 0: that many warps after the first poll for a thread or warp
 * consumer (gnio_gpu_dev_eth_rxq_watch_*), which receives on a shared copy
 * of the handle; shared_copies: with the receive's copies in shared memory
 * too. */
template <int SCOPE, int WATCHERS>
__global__ void rs_kernel(const struct gnio_gpu_eth_rxq *rxq_in, struct rs_ctl *c, struct gnio_kernel_ctl *ctl,
			  int shared_copies)
{
	__shared__ struct gnio_gpu_dev_eth_rxq_attr attr[RS_MAX_ATTR];
	__shared__ uint32_t s_go, s_max, s_release, s_attrs;
	__shared__ uint64_t s_timeout;
	__shared__ int s_stop;
	__shared__ struct gnio_gpu_eth_rxq s_q;
	__shared__ gnio_gpu_dev_eth_rxq_state s_state;
	__shared__ gnio_gpu_dev_eth_rxq_watch s_watch;
	uint32_t seen = 0;
	const uint32_t tid = threadIdx.x;
	const struct gnio_gpu_eth_rxq *rxq = rxq_in;
	/* Block scope: the receive's copies of the completions (and headers)
	 * in shared memory, gnio_gpu_dev_eth_rxq_local_to_shared; the same
	 * checks must hold. */
	__shared__ uint64_t s_meta[RS_LOCAL_ENTRIES], s_hdr[RS_LOCAL_ENTRIES * GNIO_RX_HDR_LOCAL_WORDS];
	__shared__ int s_local;
	if (SCOPE == GT_SCOPE_BLOCK) {
		if (tid == 0) {
			s_q = *rxq_in;
			s_local = gnio_gpu_dev_eth_rxq_local_to_shared(&s_q, s_meta, s_hdr, RS_LOCAL_ENTRIES);
		}
		__syncthreads();
		if (!s_local) {
			if (tid == 0)
				gnio_gpu_dev_kernel_set_exit_code(ctl, 1); /* the ring outgrew the arrays */
			return;
		}
		rxq = &s_q;
	}
	if (WATCHERS) {
		if (tid == 0) {
			s_q = *rxq_in;
			gnio_gpu_dev_eth_rxq_state_to_shared(&s_q, &s_state);
			s_local = !shared_copies || gnio_gpu_dev_eth_rxq_local_to_shared(&s_q, s_meta, s_hdr,
											 RS_LOCAL_ENTRIES);
			gnio_gpu_dev_eth_rxq_watch_attach(&s_q, &s_watch, WATCHERS);
		}
		__syncthreads();
		if (!s_local) {
			if (tid == 0)
				gnio_gpu_dev_kernel_set_exit_code(ctl, 1); /* the ring outgrew the arrays */
			return;
		}
		if (tid >= 32) {
			gnio_gpu_dev_eth_rxq_watch_run(&s_q, tid / 32u - 1u);
			return;
		}
		rxq = &s_q;
	}
	if ((SCOPE == GT_SCOPE_THREAD && tid != 0) || (SCOPE == GT_SCOPE_WARP && tid >= 32))
		return;
	for (;;) {
		gt_group_sync<SCOPE>(); /* everyone read the last request */
		if (tid == 0) {
			s_stop = gnio_gpu_dev_kernel_should_stop(ctl);
			/* ACQUIRE(go): pairs with the host's RELEASE in rs_post(). */
			s_go = gnio_load_acquire_u32(&c->go);
			s_max = c->max;
			s_timeout = c->timeout_ns;
			s_release = c->release;
			s_attrs = c->attrs;
		}
		gt_group_sync<SCOPE>();
		if (s_stop)
			break;
		const uint32_t go = s_go;
		if (go == seen) {
			if (tid == 0)
				__nanosleep(2000);
			continue;
		}
		seen = go;
		struct gnio_gpu_dev_eth_rxq_attr *at = s_attrs ? attr : nullptr;
		uint64_t first = 0, t0 = gnio_gpu_dev_time_ns();
		uint32_t n = 0;
		gnio_error_t err;
		if (SCOPE == GT_SCOPE_BLOCK)
			err = gnio_gpu_dev_eth_rxq_recv_block<GNIO_GPUNETIO_ETH_MCST_DISABLED,
							      GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
							      GNIO_GPUNETIO_ETH_RX_ATTR_ALL>(rxq, s_max, s_timeout, &first,
											     &n, at);
		else if (SCOPE == GT_SCOPE_WARP)
			err = gnio_gpu_dev_eth_rxq_recv_warp<GNIO_GPUNETIO_ETH_MCST_DISABLED,
							     GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
							     GNIO_GPUNETIO_ETH_RX_ATTR_ALL>(rxq, s_max, s_timeout, &first,
											    &n, at);
		else
			err = gnio_gpu_dev_eth_rxq_recv_thread<GNIO_GPUNETIO_ETH_MCST_DISABLED,
							       GNIO_GPUNETIO_ETH_NIC_HANDLER_AUTO,
							       GNIO_GPUNETIO_ETH_RX_ATTR_ALL>(rxq, s_max, s_timeout, &first,
											      &n, at);
		const uint64_t elapsed = gnio_gpu_dev_time_ns() - t0;
		if (s_release)
			gnio_gpu_dev_eth_rxq_release<(SCOPE == GT_SCOPE_BLOCK ? GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK
						      : SCOPE == GT_SCOPE_WARP ? GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP
									       : GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD)>(rxq);
		if (tid == 0)
			rs_publish(c, go, err, first, n, elapsed, rxq, at);
	}
	if (WATCHERS && tid == 0)
		gnio_gpu_dev_eth_rxq_watch_stop(rxq);
	gnio_gpu_dev_eth_rxq_release<(SCOPE == GT_SCOPE_BLOCK ? GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK
				      : SCOPE == GT_SCOPE_WARP ? GNIO_GPUNETIO_ETH_EXEC_SCOPE_WARP
							       : GNIO_GPUNETIO_ETH_EXEC_SCOPE_THREAD)>(rxq);
	if (WATCHERS && tid == 0)
		gnio_gpu_dev_eth_rxq_state_back(rxq_in, rxq);
	/* the block-scope copy of the handle kept the queue's own state: nothing to put back */
}

struct rs_launch {
	const struct gnio_gpu_eth_rxq *rxq;
	struct rs_ctl *ctl;
	int scope;
	int watched; /* two watcher warps */
	int shared_copies; /* watched: the receive's copies in shared memory */
};

static gnio_error_t rs_launch_fn(const struct gnio_runner_launch *l)
{
	const struct rs_launch *a = (const struct rs_launch *)l->user;
	cudaStream_t s = (cudaStream_t)l->stream;
	if (a->scope == GT_SCOPE_BLOCK)
		rs_kernel<GT_SCOPE_BLOCK, 0><<<1, 128, 0, s>>>(a->rxq, a->ctl, l->ctl, a->shared_copies);
	else if (a->scope == GT_SCOPE_WARP && a->watched)
		rs_kernel<GT_SCOPE_WARP, 2><<<1, 96, 0, s>>>(a->rxq, a->ctl, l->ctl, a->shared_copies);
	else if (a->scope == GT_SCOPE_WARP)
		rs_kernel<GT_SCOPE_WARP, 0><<<1, 32, 0, s>>>(a->rxq, a->ctl, l->ctl, a->shared_copies);
	else if (a->watched)
		rs_kernel<GT_SCOPE_THREAD, 2><<<1, 96, 0, s>>>(a->rxq, a->ctl, l->ctl, a->shared_copies);
	else
		rs_kernel<GT_SCOPE_THREAD, 0><<<1, 1, 0, s>>>(a->rxq, a->ctl, l->ctl, a->shared_copies);
	GT_LAUNCH_CHECK();
	return GNIO_SUCCESS;
}

static int runner_alive(void *user)
{
	return gnio_runner_get_state((struct gnio_runner *)user) == GNIO_RUNNER_RUNNING;
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	static const char *const names[] = {"thread", "warp", "block"};
	/* every scope, without and with an inline header; then thread and warp
	 * scope with watcher warps, without and with one, the copies in device
	 * memory and then in shared memory */
	for (int run = 0; run < 2 * (GT_SCOPE_BLOCK + 1) + 8; run++) {
		const int plain = run < 2 * (GT_SCOPE_BLOCK + 1), w = run - 2 * (GT_SCOPE_BLOCK + 1);
		const int scope = plain ? run % (GT_SCOPE_BLOCK + 1) : w % 2;
		const int inline_header = plain ? run > GT_SCOPE_BLOCK : (w / 2) % 2;
		const int watched = !plain, shared_copies = watched && w >= 4;
		struct gt_rig rig;
		struct gt_rig_cfg rc;
		char wire[32];
		snprintf(wire, sizeof(wire), "gt_rs%d", run);
		gt_rig_cfg_init(&rc, wire);
		rc.rx_entries = 64;
		rc.inline_header = inline_header;
		GT_OK(gt_rig_open(&rig, g, &rc));
		void *ctl_gpu, *ctl_cpu;
		GT_OK(gnio_gpu_mem_alloc(g, sizeof(struct rs_ctl), GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU, &ctl_gpu,
					 &ctl_cpu));
		memset(ctl_cpu, 0, sizeof(struct rs_ctl));
		struct gnio_runner *r;
		GT_OK(gnio_runner_create(g, &r));
		struct rs_launch la = {rig.rxh, (struct rs_ctl *)ctl_gpu, scope, watched, shared_copies};
		GT_OK(gnio_runner_start(r, rs_launch_fn, &la));
		struct rs_env e;
		memset(&e, 0, sizeof(e));
		e.peer = rig.peer;
		e.rxq = rig.rxq;
		e.ctl = (struct rs_ctl *)ctl_cpu;
		e.alive = runner_alive;
		e.user = r;
		e.settle_ms = watched ? 10 : 0;
		/* compute-sanitizer slows kernels down: allow more after a timeout */
		int bad = rs_run(&e, gt_under_sanitizer() ? 2000 : 50);
		GT_OK(gnio_runner_stop(r, 5000));
		GT_CHECK(!bad, "%s scope%s%s%s: %s", names[scope], inline_header ? ", inline header" : "",
			 watched ? ", watched" : "", shared_copies ? ", shared copies" : "", e.why);
		struct gnio_eth_rxq_stats st;
		GT_OK(gnio_eth_rxq_get_stats(rig.rxq, &st));
		GT_CHECK(st.dropped_total == 0 && st.released == st.rx_packets, "%s scope: books (rx %llu released %llu "
			 "dropped %llu)", names[scope], (unsigned long long)st.rx_packets,
			 (unsigned long long)st.released, (unsigned long long)st.dropped_total);
		printf("%s scope%s%s%s: look once, fill to max, fill to timeout, max 0, both 0, attributes, release, "
		       "header: ok\n",
		       names[scope], inline_header ? ", inline header" : "", watched ? ", 2 watchers" : "",
		       shared_copies ? ", copies in shared memory" : "");
		GT_OK(gnio_runner_destroy(r));
		GT_OK(gnio_gpu_mem_free(g, ctl_gpu));
		gt_rig_close(&rig);
	}
	return gt_pass(g);
}
