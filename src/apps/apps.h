/* SPDX-License-Identifier: MIT */
/*
 * src/apps/apps.h - the built-in apps `gnio run --app NAME` launches. An app
 * is a persistent kernel with a CPU-device body (apps_cpu.c) and a CUDA body
 * (apps_cuda.cu); its per-packet logic is a GNIO_HD function in
 * include/gnio/apps/ shared by both.
 */
#ifndef GNIO_SRC_APPS_APPS_H
#define GNIO_SRC_APPS_APPS_H

#include "gnio/gnio.h"
#include "gnio/device/gnio_dev.h"
#include "gnio/apps/classify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counters the kernel keeps, in CPU_GPU memory. Each queue's kernel is the only
 * writer; it stores running totals (never read-modify-write over PCIe). */
struct gnio_app_stats {
	GNIO_ALIGNED(GNIO_LINE) uint64_t packets;
	uint64_t bytes;
	uint64_t batches;
	uint64_t tx_packets;   /* frames the kernel sent (echo/reply apps) */
	uint64_t tx_again;     /* sends that found the TX ring full */
	uint64_t errors;       /* recv/send errors other than AGAIN */
	uint64_t last_error;   /* gnio_error_t of the last error */
	uint64_t verify_fail;  /* frames whose content did not check out */
	uint64_t digest;       /* touch app: XOR of every 32-bit payload word read */
	uint64_t proto[GNIO_PROTO_COUNT];
};

struct gnio_app_args {
	struct gnio_gpu_eth_rxq *rxq; /* GPU handle (device view) */
	struct gnio_gpu_eth_txq *txq; /* NULL unless the app sends */
	struct gnio_app_stats *stats; /* device view */
	uint32_t max_batch;           /* frames per recv */
	uint64_t timeout_ns;          /* recv wait before re-checking the stop flag */
	uint32_t blocks;              /* CUDA: blocks (one queue each; 1 today) */
	uint32_t threads;             /* CUDA: threads per block */
	int recv_scope;               /* 0 thread, 1 warp, 2 block */
};

struct gnio_app {
	const char *name;
	const char *summary;
	int needs_tx;
	/* CPU device: the kernel body; l->user is a struct gnio_app_args *. */
	gnio_error_t (*cpu)(const struct gnio_runner_launch *l);
	/* CUDA: enqueues the kernel on l->stream; NULL if built without CUDA. */
	gnio_error_t (*cuda)(const struct gnio_runner_launch *l);
};

const struct gnio_app *gnio_app_find(const char *name);
/* NULL-terminated list of all apps. */
const struct gnio_app *const *gnio_app_list(void);

/* CPU bodies (apps_cpu.c) */
gnio_error_t gnio_app_count_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_classify_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_echo_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_touch_cpu(const struct gnio_runner_launch *l);
#ifdef GNIO_HAVE_CUDA
/* CUDA launchers (apps_cuda.cu) */
gnio_error_t gnio_app_count_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_classify_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_echo_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_touch_cuda(const struct gnio_runner_launch *l);
#endif

#ifdef __cplusplus
}
#endif

#endif
