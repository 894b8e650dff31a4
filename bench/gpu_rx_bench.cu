/* SPDX-License-Identifier: MIT */
/*
 * bench/gpu_rx_bench.cu - packets per second into a persistent CUDA kernel.
 *
 * The sw wire's generator feeds queue 0 as fast as the proxy takes frames;
 * the proxy publishes them into the GPU-visible RX ring; the built-in count
 * app (block scope, 256 threads) receives them. The rate is the kernel's own
 * count (stats.packets), sampled over timed windows after a warm-up; the
 * median window is reported. Configurations: 64 and 1500 byte frames, payload
 * pool in pinned mapped host memory (CPU_GPU, read in place) or in GPU memory
 * (the proxy stages batches with async copies).
 *
 * Output: one "RESULT ..." line per configuration, then "BENCH DONE".
 * Env: GNIO_BENCH_WINDOWS (default 7), GNIO_BENCH_WINDOW_MS (default 300),
 * GNIO_BENCH_WARMUP_MS (default 500). Exit 77 without a usable GPU.
 */
#include "gpu_test.h"

static unsigned env_u(const char *n, unsigned def)
{
	const char *v = getenv(n);
	return v && *v ? (unsigned)strtoul(v, NULL, 10) : def;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int bench_one(struct gnio_gpu *g, uint32_t size, enum gnio_gpu_mem_type mt, unsigned windows,
		     unsigned window_ms, unsigned warmup_ms)
{
	const char *place = mt == GNIO_GPU_MEM_TYPE_GPU ? "gpu" : "cpu_gpu";
	struct gt_rig rig;
	struct gt_rig_cfg rc;
	char name[32];

	snprintf(name, sizeof(name), "bench_%u_%s", size, place);
	gt_rig_cfg_init(&rc, name);
	rc.rx_entries = 4096;
	rc.rx_mem_type = mt;
	gnio_error_t e = gt_rig_open(&rig, g, &rc);
	if (e != GNIO_SUCCESS) {
		printf("RESULT size=%u placement=%s status=skipped reason=\"%s: %s\"\n", size, place,
		       gnio_error_get_name(e), gnio_last_error_msg());
		return 0;
	}
	void *sg;
	struct gnio_app_args a;
	struct gnio_app_stats *sc = gt_app_setup(&rig, 256, &a, &sg);
	volatile struct gnio_app_stats *st = sc;
	struct gnio_runner *r;
	GT_OK(gnio_runner_create(g, &r));
	gt_app_start(r, gnio_app_find("count"), &a, sc, 2);

	struct gnio_gen_cfg cfg = gt_gen_cfg(GNIO_GEN_UDP, size);
	cfg.rate_pps = 0; /* as fast as the proxy takes frames */
	GT_OK(gnio_sw_peer_gen_attach(rig.peer, 0, &cfg));

	gt_sleep_us(warmup_ms * 1000u);
	double *pps = (double *)calloc(windows, sizeof(double));
	for (unsigned w = 0; w < windows; w++) {
		uint64_t p0 = st->packets, t0 = gt_mono_ns();
		gt_sleep_us(window_ms * 1000u);
		uint64_t p1 = st->packets, t1 = gt_mono_ns();
		pps[w] = (double)(p1 - p0) * 1e9 / (double)(t1 - t0);
	}
	GT_OK(gnio_sw_peer_gen_detach(rig.peer, 0));
	gt_sleep_us(50000);
	GT_OK(gnio_runner_stop(r, 2000));

	struct gnio_eth_rxq_stats rs;
	struct gnio_sw_peer_stats ps;
	GT_OK(gnio_eth_rxq_get_stats(rig.rxq, &rs));
	GT_OK(gnio_sw_peer_get_stats(rig.peer, 0, &ps));
	qsort(pps, windows, sizeof(double), cmp_d);
	double med = pps[windows / 2];
	printf("RESULT size=%u placement=%s status=ok mpps_median=%.3f mpps_min=%.3f mpps_max=%.3f "
	       "gbps_median=%.2f windows=%u window_ms=%u kernel_packets=%llu rx_packets=%llu "
	       "dropped_total=%llu offered=%llu errors=%llu\n",
	       size, place, med / 1e6, pps[0] / 1e6, pps[windows - 1] / 1e6, med * size * 8 / 1e9, windows,
	       window_ms, (unsigned long long)st->packets, (unsigned long long)rs.rx_packets,
	       (unsigned long long)rs.dropped_total, (unsigned long long)ps.offered,
	       (unsigned long long)st->errors);
	fflush(stdout);
	free(pps);
	int bad = st->errors != 0 || st->packets > rs.rx_packets;
	if (bad)
		printf("ERROR: kernel counted %llu frames, queue published %llu, errors %llu\n",
		       (unsigned long long)st->packets, (unsigned long long)rs.rx_packets,
		       (unsigned long long)st->errors);
	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_gpu_mem_free(g, sg));
	gt_rig_close(&rig);
	return bad;
}

int main(void)
{
	char bus[32];
	unsigned windows = env_u("GNIO_BENCH_WINDOWS", 7);
	unsigned window_ms = env_u("GNIO_BENCH_WINDOW_MS", 300);
	unsigned warmup_ms = env_u("GNIO_BENCH_WARMUP_MS", 500);
	int bad = 0;

	if (windows == 0)
		windows = 1;
	struct gnio_gpu *g = gt_gpu_open(bus, sizeof(bus));
	printf("gpu_rx_bench: %s (%s), count app, block scope, 256 threads, sw wire generator\n", bus,
	       gnio_gpu_get_name(g));
	const uint32_t sizes[2] = {64, 1500};
	const enum gnio_gpu_mem_type mts[2] = {GNIO_GPU_MEM_TYPE_CPU_GPU, GNIO_GPU_MEM_TYPE_GPU};
	for (int s = 0; s < 2; s++)
		for (int m = 0; m < 2; m++)
			bad |= bench_one(g, sizes[s], mts[m], windows, window_ms, warmup_ms);
	GT_OK(gnio_gpu_destroy(g));
	printf("BENCH DONE\n");
	return bad;
}
