/* SPDX-License-Identifier: MIT */
/*
 * The echo app on CUDA: frames in, Ethernet addresses swapped, frames out
 * through the TX ring (slot style). A TX ring smaller than the traffic makes
 * the kernel wait out AGAIN by draining completions. Run at block, warp and
 * thread scope in turn on the same queues, then at warp and thread scope
 * with watcher warps polling for the consumer, then at each scope with one
 * frame at a time (small batches carry their addresses in the descriptor);
 * every frame comes back once, in order, byte for byte apart from the
 * swapped addresses.
 */
#include "gpu_test.h"

static void check_back(struct gt_rig *rig, const struct gnio_gen_cfg *cfg, uint64_t first, uint64_t n)
{
	static uint8_t buf[9216], sw[9216];
	for (uint64_t i = 0; i < n; i++) {
		uint32_t len = 0;
		gnio_error_t e = gt_peer_recv(rig->peer, buf, sizeof(buf), &len, NULL, 5000);
		GT_CHECK(e == GNIO_SUCCESS, "echo %llu of %llu: %s", (unsigned long long)i, (unsigned long long)n,
			 gnio_error_get_name(e));
		GT_CHECK(len >= 14, "len %u", len);
		memcpy(sw, buf + 6, 6);
		memcpy(sw + 6, buf, 6);
		memcpy(sw + 12, buf + 12, len - 12);
		GT_CHECK(memcmp(buf, cfg->src_mac, 6) == 0, "destination is not the sender's MAC");
		uint64_t seq;
		e = gnio_gen_verify(cfg, sw, len, &seq);
		GT_CHECK(e == GNIO_SUCCESS, "echo %llu: content %s", (unsigned long long)i, gnio_error_get_name(e));
		GT_CHECK(seq == first + i, "echo %llu carries seq %llu", (unsigned long long)i,
			 (unsigned long long)seq);
	}
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	struct gt_rig rig;
	struct gt_rig_cfg rc;

	gt_rig_cfg_init(&rc, "gt_echo");
	rc.tx = 1;
	rc.tx_in_place = 1; /* the echo sends from the RX buffers */
	rc.tx_entries = 64; /* smaller than a burst: AGAIN must be handled */
	GT_OK(gt_rig_open(&rig, g, &rc));

	void *sg;
	struct gnio_app_args a;
	struct gnio_app_stats *st = gt_app_setup(&rig, 128, &a, &sg);
	const struct gnio_app *echo = gnio_app_find("echo");
	GT_CHECK(echo && echo->cuda, "echo app");

	struct gnio_runner *r;
	GT_OK(gnio_runner_create(g, &r));
	/* Rounds 3 and 4 have watcher warps poll for a warp and a thread
	 * consumer (and make its releases): the same frames must come back.
	 * The last three send one frame at a time, so every batch is small and
	 * its addresses travel in the descriptor (send_hdr) without watchers
	 * too; the first three send all at once, so most batches write them
	 * into the frame. */
	enum { ROUNDS = 8 };
	const int scopes[ROUNDS] = {2, 1, 0, 1, 0, 2, 1, 0};
	const uint32_t watchers[ROUNDS] = {0, 0, 0, 3, 2, 0, 0, 0};
	const uint32_t sizes[ROUNDS] = {128, 1500, 64, 64, 1500, 64, 1500, 128};
	const uint64_t counts[ROUNDS] = {1000, 500, 200, 1000, 300, 100, 100, 100};
	const int one_by_one[ROUNDS] = {0, 0, 0, 0, 0, 1, 1, 1};
	uint64_t seq = 0, total = 0;
	for (int s = 0; s < ROUNDS; s++) {
		struct gnio_gen_cfg cfg = gt_gen_cfg(GNIO_GEN_UDP, sizes[s]);
		a.watchers = watchers[s];
		gt_app_start(r, echo, &a, st, scopes[s]);
		if (one_by_one[s]) {
			for (uint64_t i = 0; i < counts[s]; i++) {
				gt_send_gen(&rig, &cfg, seq + i, 1);
				check_back(&rig, &cfg, seq + i, 1);
			}
		} else {
			/* Send and take the echoes back concurrently would be
			 * nicer; the peer FIFO (4096) holds them all, so send
			 * first. */
			gt_send_gen(&rig, &cfg, seq, counts[s]);
			check_back(&rig, &cfg, seq, counts[s]);
		}
		GT_CHECK(gt_wait_u64(&st->tx_packets, counts[s], 2000), "tx_packets %llu",
			 (unsigned long long)st->tx_packets);
		GT_OK(gnio_runner_stop(r, 2000));
		GT_CHECK(st->packets == counts[s] && st->tx_packets == counts[s] && st->errors == 0,
			 "scope %d: rx %llu tx %llu errors %llu", scopes[s], (unsigned long long)st->packets,
			 (unsigned long long)st->tx_packets, (unsigned long long)st->errors);
		printf("echo scope %d, %u watchers: %llu frames of %u bytes%s back byte for byte, %llu AGAINs drained\n",
		       scopes[s], watchers[s], (unsigned long long)counts[s], sizes[s],
		       one_by_one[s] ? " one at a time" : "", (unsigned long long)st->tx_again);
		seq += counts[s];
		total += counts[s];
	}
	uint32_t len;
	static uint8_t buf[9216];
	GT_EXPECT(gt_peer_recv(rig.peer, buf, sizeof(buf), &len, NULL, 50), GNIO_ERROR_EMPTY);
	struct gnio_eth_txq_stats ts;
	GT_OK(gnio_eth_txq_get_stats(rig.txq, &ts));
	GT_CHECK(ts.tx_packets == total && ts.tx_errors == 0, "txq %llu sent %llu errors",
		 (unsigned long long)ts.tx_packets, (unsigned long long)ts.tx_errors);

	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_gpu_mem_free(g, sg));
	return gt_rig_pass(&rig);
}
