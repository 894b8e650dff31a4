/* SPDX-License-Identifier: MIT */
/*
 * RX end to end on CUDA over the sw wire: one packet, then a burst of 1000,
 * at thread, warp and block receive scope in turn, every payload verified
 * byte for byte against the generator. The three kernels run one after the
 * other on the same queues (stop, then start a new kernel). With GT_RX_GPUMEM
 * (test_gpu_rx_gpumem.cu) or GNIO_TEST_RX_MEM=gpu the payload pool is in GPU
 * memory and the proxy stages each batch with asynchronous copies.
 */
#include "gpu_test.h"

#ifndef GT_RX_GPUMEM
#define GT_RX_GPUMEM 0
#endif

#define CAP_MAX 1001u
#define CAP_SLOT 2048u

struct cap {
	GNIO_ALIGNED(GNIO_LINE) uint64_t count; /* frames captured, released by the kernel */
	uint32_t err;
	uint32_t lens[CAP_MAX];
	uint64_t ts[CAP_MAX];
	uint8_t frames[CAP_MAX][CAP_SLOT];
};

struct cap_args {
	struct gnio_gpu_eth_rxq *rxq;
	struct cap *cap; /* device view */
};

template <int SCOPE> __global__ void cap_kernel(struct gnio_gpu_eth_rxq *q, struct gnio_kernel_ctl *ctl, struct cap *c)
{
	const uint32_t tid = threadIdx.x;
	const uint32_t nthr = SCOPE == GT_SCOPE_THREAD ? 1 : SCOPE == GT_SCOPE_WARP ? 32 : blockDim.x;
	uint64_t hb = 0, n = 0;

	if (tid >= nthr)
		return;
	for (;;) {
		if (gt_group_stop<SCOPE>(ctl, &hb))
			break;
		uint64_t first;
		uint32_t count;
		gnio_error_t err = gt_recv<SCOPE>(q, 64, 100000, &first, &count);
		if (err != GNIO_SUCCESS) {
			if (tid == 0)
				c->err = (uint32_t)err;
			break;
		}
		for (uint32_t i = 0; i < count; i++) {
			if (n + i >= CAP_MAX)
				break;
			uint8_t *p;
			uint32_t len;
			uint64_t ts;
			gnio_gpu_dev_eth_rxq_get_pkt(q, first + i, &p, &len, &ts);
			uint32_t cl = len < CAP_SLOT ? len : CAP_SLOT;
			for (uint32_t k = tid; k < cl; k += nthr)
				c->frames[n + i][k] = p[k];
			if (tid == 0) {
				c->lens[n + i] = len;
				c->ts[n + i] = ts;
			}
		}
		/* Every thread's copies before thread 0 publishes the count. */
		gt_group_sync<SCOPE>();
		n += count;
		if (tid == 0 && count)
			gnio_store_release_u64(&c->count, n);
	}
}

template <int SCOPE> static gnio_error_t cap_launch(const struct gnio_runner_launch *l)
{
	const struct cap_args *a = (const struct cap_args *)l->user;
	unsigned threads = SCOPE == GT_SCOPE_THREAD ? 1 : SCOPE == GT_SCOPE_WARP ? 32 : 256;
	cap_kernel<SCOPE><<<1, threads, 0, (cudaStream_t)l->stream>>>(a->rxq, l->ctl, a->cap);
	GT_LAUNCH_CHECK();
	return GNIO_SUCCESS;
}

static void verify(const struct cap *c, const struct gnio_gen_cfg *cfg, uint64_t from, uint64_t to, uint64_t seq0,
		   uint64_t t0, uint64_t t1)
{
	for (uint64_t i = from; i < to; i++) {
		uint64_t seq = ~0ull;
		gnio_error_t e = gnio_gen_verify(cfg, c->frames[i], c->lens[i], &seq);
		GT_CHECK(e == GNIO_SUCCESS, "frame %llu: verify %s (len %u)", (unsigned long long)i,
			 gnio_error_get_name(e), c->lens[i]);
		GT_CHECK(seq == seq0 + i, "frame %llu has seq %llu, want %llu", (unsigned long long)i,
			 (unsigned long long)seq, (unsigned long long)(seq0 + i));
		GT_CHECK(c->lens[i] == cfg->frame_size, "len %u", c->lens[i]);
		GT_CHECK(c->ts[i] + 1000000000ull >= t0 && c->ts[i] <= t1 + 1000000000ull,
			 "timestamp %llu outside [%llu, %llu]", (unsigned long long)c->ts[i],
			 (unsigned long long)t0, (unsigned long long)t1);
	}
}

int main(void)
{
	struct gt_rig rig;
	struct gt_rig_cfg rc;
	const char *mem = getenv("GNIO_TEST_RX_MEM");
	int gpumem = GT_RX_GPUMEM || (mem && !strcmp(mem, "gpu"));
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);

	gt_rig_cfg_init(&rc, gpumem ? "gt_rx_gpumem" : "gt_rx");
	rc.rx_mem_type = gpumem ? GNIO_GPU_MEM_TYPE_GPU : GNIO_GPU_MEM_TYPE_CPU_GPU;
	gnio_error_t e = gt_rig_open(&rig, g, &rc);
	if (gpumem && e == GNIO_ERROR_NOT_SUPPORTED) {
		char why[300];
		snprintf(why, sizeof(why), "RX pools in GPU memory not supported by this build: %s",
			 gnio_last_error_msg());
		gt_skip(why);
	}
	GT_CHECK(e == GNIO_SUCCESS, "rig open: %s", gnio_error_get_name(e));
	printf("RX pool in %s memory\n", gpumem ? "GPU" : "CPU_GPU (pinned, mapped)");

	void *cg, *cc;
	GT_OK(gnio_gpu_mem_alloc(g, sizeof(struct cap), 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &cg, &cc));
	struct cap *c = (struct cap *)cc;
	struct cap_args args = {rig.rxh, (struct cap *)cg};
	struct gnio_runner *r;
	GT_OK(gnio_runner_create(g, &r));

	const uint32_t sizes[3] = {64, 512, 1500};
	const char *names[3] = {"thread", "warp", "block"};
	gnio_runner_launch_fn fns[3] = {cap_launch<GT_SCOPE_THREAD>, cap_launch<GT_SCOPE_WARP>,
					cap_launch<GT_SCOPE_BLOCK>};
	uint64_t seq = 0, total = 0;
	for (int s = 0; s < 3; s++) {
		struct gnio_gen_cfg cfg = gt_gen_cfg(GNIO_GEN_UDP, sizes[s]);
		memset(c, 0, sizeof(*c));
		GT_OK(gnio_runner_start(r, fns[s], &args));
		GT_CHECK(gnio_runner_get_state(r) == GNIO_RUNNER_RUNNING, "not running");

		/* Alive and polling an empty queue: the heartbeat moves. */
		GT_CHECK(gt_heartbeat_moves(r, 5000), "heartbeat stuck at %llu",
			 (unsigned long long)gnio_runner_get_heartbeat(r));

		/* One packet. */
		uint64_t t0 = gt_now_ns();
		gt_send_gen(&rig, &cfg, seq, 1);
		GT_CHECK(gt_wait_u64(&c->count, 1, 3000), "%s scope: single frame not received", names[s]);
		verify(c, &cfg, 0, 1, seq, t0, gt_now_ns());

		/* Burst of 1000. */
		gt_send_gen(&rig, &cfg, seq + 1, 1000);
		GT_CHECK(gt_wait_u64(&c->count, CAP_MAX, 10000), "%s scope: %llu of %u frames", names[s],
			 (unsigned long long)c->count, CAP_MAX);
		verify(c, &cfg, 1, CAP_MAX, seq, t0, gt_now_ns());
		gt_sleep_us(2000);
		GT_CHECK(__atomic_load_n(&c->count, __ATOMIC_ACQUIRE) == CAP_MAX, "extra frames");

		GT_OK(gnio_runner_stop(r, 2000));
		GT_CHECK(c->err == 0, "kernel recv error %s", gnio_error_get_name((gnio_error_t)c->err));
		GT_CHECK(gnio_runner_get_state(r) == GNIO_RUNNER_IDLE, "state %s",
			 gnio_runner_state_name(gnio_runner_get_state(r)));
		printf("%s scope: 1 + 1000 frames of %u bytes verified\n", names[s], sizes[s]);
		seq += CAP_MAX;
		total += CAP_MAX;
	}

	/* The books balance: every frame offered reached the kernel. */
	struct gnio_eth_rxq_stats st;
	struct gnio_sw_peer_stats ps;
	GT_OK(gnio_eth_rxq_get_stats(rig.rxq, &st));
	GT_OK(gnio_sw_peer_get_stats(rig.peer, 0, &ps));
	GT_CHECK(st.rx_packets == total && st.dropped_total == 0 && ps.offered == total,
		 "rx %llu dropped %llu offered %llu, want %llu", (unsigned long long)st.rx_packets,
		 (unsigned long long)st.dropped_total, (unsigned long long)ps.offered, (unsigned long long)total);

	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_gpu_mem_free(g, cg));
	return gt_rig_pass(&rig);
}
