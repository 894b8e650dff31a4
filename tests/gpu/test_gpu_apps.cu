/* SPDX-License-Identifier: MIT */
/*
 * The built-in apps' CUDA kernels (src/apps/apps_cuda.cu) through the runner,
 * and kernels stopped then restarted on the same queues:
 *   count (block scope) -> classify (warp scope, protocol mix) -> count
 *   (thread scope) -> touch (block scope, odd frame length) -> touch and count
 *   with 1024 threads, each a new kernel
 *   on the same RX queue, each with exact frame and byte counts; touch's XOR
 *   digest of every payload word equals the one computed on the host; the
 *   queue's books balance at the end.
 */
#include "gpu_test.h"

static void run_app(struct gt_rig *rig, struct gnio_runner *r, const struct gnio_app *app, int scope,
		    struct gnio_app_args *a, struct gnio_app_stats *st, enum gnio_gen_proto proto, uint32_t size,
		    uint64_t first, uint64_t n)
{
	GT_CHECK(app && app->cuda, "app has no CUDA body");
	gt_app_start(r, app, a, st, scope);
	GT_CHECK(gt_heartbeat_moves(r, 5000), "%s: heartbeat stuck", app->name);

	struct gnio_gen_cfg cfg = gt_gen_cfg(proto, size);
	uint64_t bytes = gt_send_gen(rig, &cfg, first, n);
	GT_CHECK(gt_wait_u64(&st->packets, n, 10000), "%s scope %d: %llu of %llu frames", app->name, scope,
		 (unsigned long long)st->packets, (unsigned long long)n);
	GT_CHECK(gt_wait_u64(&st->bytes, bytes, 2000), "%s: bytes %llu of %llu", app->name,
		 (unsigned long long)st->bytes, (unsigned long long)bytes);
	gt_sleep_us(5000);
	GT_OK(gnio_runner_stop(r, 2000));
	GT_CHECK(st->packets == n && st->bytes == bytes, "%s: %llu frames %llu bytes, want %llu / %llu", app->name,
		 (unsigned long long)st->packets, (unsigned long long)st->bytes, (unsigned long long)n,
		 (unsigned long long)bytes);
	GT_CHECK(st->errors == 0, "%s: %llu errors (last %s)", app->name, (unsigned long long)st->errors,
		 gnio_error_get_name((gnio_error_t)st->last_error));
	GT_CHECK(st->batches > 0 && st->batches <= n, "batches %llu", (unsigned long long)st->batches);
	printf("%s, scope %d: %llu frames, %llu bytes in %llu batches\n", app->name, scope,
	       (unsigned long long)st->packets, (unsigned long long)st->bytes, (unsigned long long)st->batches);
}

/* The touch app's digest: XOR of each frame's 32-bit words, tail bytes
 * zero-extended, over all frames. */
static uint64_t host_digest(enum gnio_gen_proto proto, uint32_t size, uint64_t first, uint64_t n)
{
	struct gnio_gen_cfg cfg = gt_gen_cfg(proto, size);
	uint8_t buf[GNIO_GEN_MAX_FRAME];
	uint64_t d = 0;
	for (uint64_t seq = first; seq < first + n; seq++) {
		uint32_t len = gnio_gen_build(&cfg, seq, buf, sizeof(buf)), x = 0, w, i = 0;
		for (; i + 4 <= len; i += 4) {
			memcpy(&w, buf + i, 4);
			x ^= w;
		}
		for (uint32_t k = 0; i < len; i++, k++)
			x ^= (uint32_t)buf[i] << (8 * k);
		d ^= x;
	}
	return d;
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	struct gt_rig rig;
	struct gt_rig_cfg rc;

	gt_rig_cfg_init(&rc, "gt_apps");
	GT_OK(gt_rig_open(&rig, g, &rc));

	void *sg;
	struct gnio_app_args a;
	struct gnio_app_stats *st = gt_app_setup(&rig, 128, &a, &sg);

	struct gnio_runner *r;
	GT_OK(gnio_runner_create(g, &r));
	const struct gnio_app *count = gnio_app_find("count");
	const struct gnio_app *classify = gnio_app_find("classify");
	GT_CHECK(count && classify, "apps not found");

	run_app(&rig, r, count, 2, &a, st, GNIO_GEN_UDP, 64, 0, 2000);

	/* A new kernel on the same queues: protocol classes add up. */
	const uint64_t nmix = 9 * 100;
	run_app(&rig, r, classify, 1, &a, st, GNIO_GEN_MIX, 256, 2000, nmix);
	uint64_t sum = 0;
	for (int p = 0; p < GNIO_PROTO_COUNT; p++) {
		sum += st->proto[p];
		if (st->proto[p])
			printf("  %-10s %llu\n", gnio_proto_name(p), (unsigned long long)st->proto[p]);
	}
	GT_CHECK(sum == nmix, "protocol counts sum to %llu, want %llu", (unsigned long long)sum,
		 (unsigned long long)nmix);
	GT_CHECK(st->proto[GNIO_PROTO_MALFORMED] == 0, "malformed %llu",
		 (unsigned long long)st->proto[GNIO_PROTO_MALFORMED]);
	const int must[] = {GNIO_PROTO_ARP, GNIO_PROTO_ICMP, GNIO_PROTO_DNS, GNIO_PROTO_UDP, GNIO_PROTO_HTTP,
			    GNIO_PROTO_TCP};
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		GT_CHECK(st->proto[must[i]] > 0, "no %s frames classified", gnio_proto_name(must[i]));

	run_app(&rig, r, count, 0, &a, st, GNIO_GEN_UDP, 1500, 2000 + nmix, 500);

	/* touch reads every payload word; an odd length exercises the tail. */
	const struct gnio_app *touch = gnio_app_find("touch");
	GT_CHECK(touch != NULL, "touch app not found");
	const uint64_t ntouch = 700, tfirst = 2000 + nmix + 500;
	run_app(&rig, r, touch, 2, &a, st, GNIO_GEN_UDP, 333, tfirst, ntouch);
	uint64_t want = host_digest(GNIO_GEN_UDP, 333, tfirst, ntouch);
	GT_CHECK(st->digest == want, "touch digest %llx, host %llx", (unsigned long long)st->digest,
		 (unsigned long long)want);
	printf("touch digest %llx matches the host\n", (unsigned long long)want);

	/* A whole block of 1024 threads: touch's kernel is built to fit them;
	 * count's is not (more registers a thread), so it runs with what fits
	 * instead of failing the launch. */
	const uint64_t nwide = 600, wfirst = tfirst + ntouch;
	a.threads = 1024;
	run_app(&rig, r, touch, 2, &a, st, GNIO_GEN_UDP, 333, wfirst, nwide);
	want = host_digest(GNIO_GEN_UDP, 333, wfirst, nwide);
	GT_CHECK(st->digest == want, "touch with 1024 threads: digest %llx, host %llx",
		 (unsigned long long)st->digest, (unsigned long long)want);
	run_app(&rig, r, count, 2, &a, st, GNIO_GEN_UDP, 64, wfirst + nwide, nwide);
	a.threads = 256;

	struct gnio_eth_rxq_stats rs;
	GT_OK(gnio_eth_rxq_get_stats(rig.rxq, &rs));
	uint64_t total = 2000 + nmix + 500 + ntouch + 2 * nwide;
	GT_CHECK(rs.rx_packets == total && rs.dropped_total == 0, "rxq: rx %llu dropped %llu, want %llu",
		 (unsigned long long)rs.rx_packets, (unsigned long long)rs.dropped_total, (unsigned long long)total);

	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_gpu_mem_free(g, sg));
	return gt_rig_pass(&rig);
}
