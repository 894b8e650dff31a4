/* SPDX-License-Identifier: MIT */
/* tests/util/testutil.h - helpers shared by the tests: a whole CPU-device
 * pipeline over an sw wire in one struct, and waiting with a deadline. */
#ifndef GNIO_TESTS_TESTUTIL_H
#define GNIO_TESTS_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "gnio/gnio.h"
#include "gnio/device/gnio_dev.h"
#include "gnio/apps/apps.h"

#define GNIO_TEST_SKIP 77

/* assert_int_equal with the error name on failure. */
#define assert_gnio(expr, expected)                                                                   \
	do {                                                                                          \
		gnio_error_t e_ = (expr);                                                             \
		if (e_ != (expected))                                                                 \
			fail_msg("%s returned %s, expected %s (%s)", #expr, gnio_error_get_name(e_),  \
				 gnio_error_get_name(expected), gnio_last_error_msg());               \
	} while (0)
#define assert_ok(expr) assert_gnio(expr, GNIO_SUCCESS)

/* A test's pipeline: what gnio_pipeline_create builds (gnio/pipeline.h),
 * with the sw peer and the app arguments, and its objects in named fields. */
struct tpipe_cfg {
	const char *gpu;       /* "cpu" or a bus id */
	const char *wire;      /* full spec, e.g. "sw:t1" (a peer is opened for sw wires) */
	uint32_t ring;         /* RX ring entries */
	uint32_t slot;         /* pool element size */
	uint32_t max_packet;
	uint32_t burst;
	int with_tx;           /* a TX queue with its own pool and the RX pool registered */
	uint32_t tx_ring;
	int flow_control;
	int register_rx_pool;  /* 0 to test the never-registered rule */
	enum gnio_gpu_mem_type rx_mem;
	int poll_mode;         /* enum gnio_poll_mode (0: adaptive, the default) */
	int inline_header;     /* completions carry the frame's first 56 bytes */
};

struct tpipe {
	struct tpipe_cfg cfg;
	struct gnio_pipeline *pl;
	struct gnio_gpu *gpu;
	struct gnio_dev *dev;
	struct gnio_sw_peer *peer;
	void *rx_mem, *tx_mem, *stats_mem;
	struct gnio_buf_arr *rx_pool, *tx_pool;
	struct gnio_eth_rxq *rxq;
	struct gnio_eth_txq *txq;
	struct gnio_gpu_eth_rxq *rxh;
	struct gnio_gpu_eth_txq *txh;
	struct gnio_app_stats *stats_gpu, *stats_cpu;
	struct gnio_app_args args;
	struct gnio_runner *runner;
};

void tpipe_cfg_default(struct tpipe_cfg *c, const char *wire);
/* Build and start everything but the kernel (gnio_pipeline_create). */
gnio_error_t tpipe_up(struct tpipe *p, const struct tpipe_cfg *cfg);
/* Launch an app (by name) on the pipeline's device. */
gnio_error_t tpipe_launch(struct tpipe *p, const char *app);
/* Rollback and teardown (gnio_pipeline_destroy); asserts it worked. */
void tpipe_down(struct tpipe *p);
/* Wait until the kernel counted `packets` frames, or timeout_ms. */
int tpipe_wait_packets(struct tpipe *p, uint64_t packets, unsigned timeout_ms);
/* Wait until fn(arg) is true or timeout_ms passes. */
int wait_until(int (*fn)(void *), void *arg, unsigned timeout_ms);
uint64_t test_now_ns(void);
/* Zeroed memory, whole cache lines (GNIO_LINE) aligned: a ring's words as
 * the library lays them out. Fails the test when out of memory. */
void *test_zalloc_line(size_t size);

#endif
