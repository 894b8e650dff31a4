/* SPDX-License-Identifier: MIT */
/*
 * Timed send accuracy: a kernel asks for N frames at base + i * stride
 * (CLOCK_REALTIME ns, the clock gnio_gpu_dev_time_ns follows); the peer records
 * when each left. Reports the distribution of (actual - requested) and fails
 * if frames leave early or grossly late, or out of order.
 */
#include <dirent.h>

#include "gpu_test.h"

/* 2000 frames: the p99 is then the 20th latest, not the second (one
 * descheduled proxy thread decided the p99 of 200). */
#define N 2000u
#define STRIDE_NS 100000ull /* 100 us */
#define SLOT 2048u

__global__ void timed_kernel(struct gnio_gpu_eth_txq *q, const uint8_t *__restrict__ frame, uint32_t len,
			     uint64_t base, uint32_t *sent)
{
	for (uint32_t i = 0; i < N; i++) {
		uint64_t t;
		if (gnio_gpu_dev_eth_txq_reserve(q, 1, &t) != GNIO_SUCCESS)
			return;
		uint8_t *__restrict__ dst = gnio_gpu_dev_eth_txq_slot_addr(q, t);
		/* 4 bytes per load (slots are aligned): a byte loop reading host
		 * memory one round trip per byte took longer than the stride */
		const uint8_t *src = frame + (size_t)i * SLOT;
		uint32_t k = 0;
		for (; k + 4 <= len; k += 4)
			*(uint32_t *)(dst + k) = *(const uint32_t *)(src + k);
		for (; k < len; k++)
			dst[k] = src[k];
		gnio_gpu_dev_eth_txq_commit(q, t, len, GNIO_GPUNETIO_ETH_SEND_FLAG_NONE, base + i * STRIDE_NS);
	}
	gnio_store_release_u32(sent, N);
}

/* Why a frame was late, when it was: time the hypervisor ran someone else
 * on this guest's CPUs (steal, all CPUs, /proc/stat), and how often the
 * guest's scheduler took the TX proxy's CPU from it (its thread's
 * nonvoluntary context switches). Both -1 when unreadable. */
static long long steal_ms(void)
{
	FILE *f = fopen("/proc/stat", "r");
	unsigned long long v[8] = {0};
	int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6], &v[7])
		  : 0;
	if (f)
		fclose(f);
	long hz = sysconf(_SC_CLK_TCK);
	return n == 8 && hz > 0 ? (long long)(v[7] * 1000ull / (unsigned long long)hz) : -1;
}

static long long tx_proxy_preemptions(void)
{
	DIR *d = opendir("/proc/self/task");
	long long total = -1;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[288], line[128];
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		int is_tx = f && fgets(line, sizeof(line), f) && !strncmp(line, "gnio-tx", 7);
		if (f)
			fclose(f);
		if (!is_tx)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		f = fopen(path, "r");
		long long v;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1)
				total = (total < 0 ? 0 : total) + v;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return total;
}

struct targs {
	struct gnio_gpu_eth_txq *q;
	const uint8_t *frames;
	uint32_t len;
	uint64_t base;
	uint32_t *sent;
};

static gnio_error_t timed_launch(const struct gnio_runner_launch *l)
{
	const struct targs *a = (const struct targs *)l->user;
	timed_kernel<<<1, 1, 0, (cudaStream_t)l->stream>>>(a->q, a->frames, a->len, a->base, a->sent);
	GT_LAUNCH_CHECK();
	return GNIO_SUCCESS;
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	struct gt_rig rig;
	struct gt_rig_cfg rc;

	gt_rig_cfg_init_tx(&rc, "gt_timed", 2048); /* room for every frame: the kernel never waits */
	/* GNIO_TEST_POLL=busy: a TX proxy that never sleeps, to tell late
	 * wakes from a thread that does not run (docs/PERFORMANCE.md). */
	const char *poll = getenv("GNIO_TEST_POLL");
	rc.poll_mode = poll && !strcmp(poll, "busy") ? GNIO_POLL_BUSY : GNIO_POLL_ADAPTIVE;
	GT_OK(gt_rig_open(&rig, g, &rc));
	enum gnio_eth_wait_on_time_type wt = GNIO_ETH_WAIT_ON_TIME_TYPE_NONE;
	gnio_error_t cap = gnio_eth_txq_cap_get_wait_on_time_offload_supported(gnio_dev_as_devinfo(rig.dev), &wt);
	GT_CHECK(cap == GNIO_SUCCESS, "timed send not supported on sw: %s", gnio_error_get_name(cap));

	struct gnio_gen_cfg cfg;
	gnio_gen_cfg_init(&cfg);
	void *fg, *fc, *sg, *sc;
	GT_OK(gnio_gpu_mem_alloc(g, (size_t)N * SLOT, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &fg, &fc));
	GT_OK(gnio_gpu_mem_alloc(g, 64, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &sg, &sc));
	uint32_t len = 0;
	for (uint32_t i = 0; i < N; i++)
		len = gnio_gen_build(&cfg, i, (uint8_t *)fc + (size_t)i * SLOT, SLOT);
	*(uint32_t *)sc = 0;

	struct gnio_runner *r;
	GT_OK(gnio_runner_create(g, &r));
	/* Far enough ahead that launch latency never makes the first one late. */
	struct targs a = {rig.txh, (const uint8_t *)fg, len, gt_now_ns() + 50000000ull, (uint32_t *)sg};
	GT_OK(gnio_runner_start(r, timed_launch, &a));

	const long long steal0 = steal_ms(), preempt0 = tx_proxy_preemptions();
	static int64_t err[N];
	static uint8_t buf[4096];
	int peer_ts = 1;
	for (uint32_t n = 0; n < N; n++) {
		uint32_t l = 0;
		uint64_t ts = 0;
		uint64_t end = gt_deadline_ms(3000);
		gnio_error_t e;
		/* Busy poll: the host clock at pickup bounds the send time when
		 * the wire gives no timestamp. */
		while ((e = gnio_sw_peer_recv(rig.peer, 0, buf, sizeof(buf), &l, &ts)) == GNIO_ERROR_EMPTY &&
		       gt_mono_ns() < end)
			;
		uint64_t now = gt_now_ns();
		GT_CHECK(e == GNIO_SUCCESS, "frame %u: %s", n, gnio_error_get_name(e));
		uint64_t seq;
		GT_OK(gnio_gen_verify(&cfg, buf, l, &seq));
		GT_CHECK(seq == n, "frame %u carries seq %llu", n, (unsigned long long)seq);
		if (!ts)
			peer_ts = 0;
		uint64_t actual = ts ? ts : now;
		err[n] = (int64_t)(actual - (a.base + n * STRIDE_NS));
	}
	const long long steal1 = steal_ms(), preempt1 = tx_proxy_preemptions();
	GT_OK(gnio_runner_stop(r, 2000));
	GT_CHECK(*(volatile uint32_t *)sc == N, "kernel sent %u", *(volatile uint32_t *)sc);

	qsort(err, N, sizeof(err[0]), gt_cmp_i64);
	int64_t mn = err[0], med = err[N / 2], p99 = err[(N * 99) / 100], mx = err[N - 1];
	printf("timed send error (actual - requested), %u frames, %llu us apart, times from %s, %s proxies:\n", N,
	       (unsigned long long)(STRIDE_NS / 1000), peer_ts ? "the wire's send timestamp" : "host pickup",
	       rc.poll_mode == GNIO_POLL_BUSY ? "busy" : "adaptive");
	printf("  min %.1f us  median %.1f us  p99 %.1f us  max %.1f us\n", mn / 1e3, med / 1e3, p99 / 1e3,
	       mx / 1e3);
	printf("  while it ran: %lld ms stolen by the hypervisor (all CPUs), TX proxy preempted %lld times%s\n",
	       steal0 >= 0 && steal1 >= 0 ? steal1 - steal0 : -1, preempt0 >= 0 && preempt1 >= 0 ? preempt1 - preempt0 : -1,
	       steal0 < 0 || preempt0 < 0 ? " (-1: not readable)" : "");
	struct gnio_eth_txq_stats st;
	GT_OK(gnio_eth_txq_get_stats(rig.txq, &st));
	GT_CHECK(st.timed_sends == N, "timed_sends %llu", (unsigned long long)st.timed_sends);
	printf("  late by more than %.0f us at the proxy: %llu (%llu not in the ring in time), the latest %.1f us\n",
	       GNIO_TX_LATE_NS / 1e3, (unsigned long long)st.timed_late, (unsigned long long)st.timed_late_unseen,
	       st.timed_late_max_ns / 1e3);
	/* The proxy's count and the peer's timestamps see the same frames. */
	uint64_t late_at_peer = 0;
	for (uint32_t i = 0; i < N; i++)
		late_at_peer += err[i] > (int64_t)GNIO_TX_LATE_NS;
	if (peer_ts)
		GT_CHECK(st.timed_late <= late_at_peer, "proxy counts %llu late, the wire's stamps %llu",
			 (unsigned long long)st.timed_late, (unsigned long long)late_at_peer);
	/* Never early (beyond the clock's microsecond ticks); not grossly late. */
	GT_CHECK(mn >= -20000, "a frame left %.1f us early", -mn / 1e3);
	if (gt_under_sanitizer()) {
		printf("under compute-sanitizer: lateness bounds not checked\n");
	} else {
		GT_CHECK(med <= 1000000, "median %.1f us late", med / 1e3);
		GT_CHECK(p99 <= 10000000, "p99 %.1f us late", p99 / 1e3);
	}

	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_gpu_mem_free(g, fg));
	GT_OK(gnio_gpu_mem_free(g, sg));
	return gt_rig_pass(&rig);
}
