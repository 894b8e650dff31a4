/* SPDX-License-Identifier: MIT */
/*
 * src/gpu/backend.h - the device ops table (private). Two backends implement
 * it: cpu (src/gpu/cpu_backend.c, always built) and cuda
 * (src/gpu/cuda/cuda_backend.c, built when CUDA is enabled). gpu.c, buf_arr.c,
 * runner.c and the proxy call only these entry points.
 */
#ifndef GNIO_SRC_GPU_BACKEND_H
#define GNIO_SRC_GPU_BACKEND_H

#include <stddef.h>
#include "gnio/gpu.h"
#include "gnio/runner.h"

struct gnio_gpu;
struct gnio_runner;

struct gnio_gpu_ops {
	const char *name; /* "cpu", "cuda" */

	/* Open the device named by a canonical bus id ("cpu" for the CPU
	 * backend). Fill gpu->name; keep private state in gpu->priv. On failure
	 * record a reason with gnio_set_error_msg() (CUDA error text included). */
	gnio_error_t (*open)(struct gnio_gpu *gpu, const char *bus_id);
	void (*close)(struct gnio_gpu *gpu);

	gnio_error_t (*mem_alloc)(struct gnio_gpu *gpu, size_t size, size_t align,
				  enum gnio_gpu_mem_type type, void **gpu_ptr, void **cpu_ptr);
	gnio_error_t (*mem_free)(struct gnio_gpu *gpu, enum gnio_gpu_mem_type type, void *gpu_ptr,
				 void *cpu_ptr);
	/* Can mem_alloc serve GPU_CPU (device memory the CPU maps)? CUDA needs
	 * GDRCopy for it; when it cannot, gpu.c serves CPU_GPU instead. */
	int (*gpu_cpu_supported)(struct gnio_gpu *gpu, char *why, size_t why_len);
	/* Make memory the application allocated usable as a device allocation:
	 * its device view, host view (NULL for device memory) and type. *token
	 * is the backend's note for unregister (e.g. "registered by us"). On
	 * failure record a reason. */
	gnio_error_t (*mem_register)(struct gnio_gpu *gpu, void *addr, size_t size, void **gpu_ptr, void **cpu_ptr,
				     enum gnio_gpu_mem_type *type, int *token);
	gnio_error_t (*mem_unregister)(struct gnio_gpu *gpu, void *addr, int token);
	/* Synchronous control-path copies and fills on device memory. */
	gnio_error_t (*copy_to_dev)(struct gnio_gpu *gpu, void *dst_gpu, const void *src, size_t n);
	gnio_error_t (*copy_from_dev)(struct gnio_gpu *gpu, void *dst, const void *src_gpu, size_t n);
	gnio_error_t (*memset_dev)(struct gnio_gpu *gpu, void *dst_gpu, int value, size_t n);

	/* Persistent kernels. launch fills l->stream (CUDA) and calls fn, or
	 * starts a host thread that calls fn (CPU). poll never blocks: returns 1
	 * when the kernel has finished (with its status), 0 while it runs. reap
	 * frees the stream or joins the thread after poll said finished. */
	gnio_error_t (*kernel_launch)(struct gnio_runner *r, gnio_runner_launch_fn fn,
				      struct gnio_runner_launch *l);
	int (*kernel_poll)(struct gnio_runner *r, gnio_error_t *status);
	void (*kernel_reap)(struct gnio_runner *r);

	/* Optional (NULL on cpu): copy n bytes from host memory into device
	 * memory asynchronously on the backend's copy stream, then record a fence.
	 * fence_done: 1 when every copy issued before the fence has landed, 0 while
 * pending, -1 when a copy failed (those bytes must not be published).
	 * The proxy uses them to place RX payloads in GPU-memory pools. */
	gnio_error_t (*copy_async)(struct gnio_gpu *gpu, void *stream, void *dst_gpu, const void *src,
				   size_t n);
	/* rows x width bytes, source and destination rows pitch bytes apart:
	 * copies only the bytes of each frame, not whole pool slots. */
	gnio_error_t (*copy2d_async)(struct gnio_gpu *gpu, void *stream, void *dst_gpu, const void *src,
				     size_t pitch, size_t width, size_t rows);
	gnio_error_t (*stream_create)(struct gnio_gpu *gpu, void **stream);
	void (*stream_destroy)(struct gnio_gpu *gpu, void *stream);
	gnio_error_t (*fence_record)(struct gnio_gpu *gpu, void *stream, void **fence);
	int (*fence_done)(struct gnio_gpu *gpu, void *fence);
	void (*fence_destroy)(struct gnio_gpu *gpu, void *fence);
	/* Optional, the cheaper fence: behind the work queued on stream so far,
	 * store value into the 8-byte pinned host word whose device view is
	 * word_dev, after a barrier that makes the work's writes visible first.
	 * Polling the word is a load; a fence costs a driver call per look.
	 * NOT_SUPPORTED where the driver has no stream memory operations.
	 * stream_done: 1 when all work queued on stream has completed, 0 while
	 * not, -1 when some of it failed (a copy behind a word that never moves). */
	gnio_error_t (*stream_write_u64)(struct gnio_gpu *gpu, void *stream, void *word_dev, uint64_t value);
	int (*stream_done)(struct gnio_gpu *gpu, void *stream);
};

extern const struct gnio_gpu_ops gnio_gpu_cpu_ops;
#ifdef GNIO_HAVE_CUDA
extern const struct gnio_gpu_ops gnio_gpu_cuda_ops;
/* Best CUDA device: 0 and its canonical bus id + why, or -1 with why. */
int gnio_cuda_pick_best(char *bus_id, size_t len, char *why, size_t why_len);
#endif

#endif /* GNIO_SRC_GPU_BACKEND_H */
