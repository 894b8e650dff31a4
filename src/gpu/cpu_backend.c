/* SPDX-License-Identifier: MIT */
/* src/gpu/cpu_backend.c - the CPU device: every memory type is host memory and
 * a persistent kernel is a host thread running the same device-API code. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/errmsg.h"
#include "gpu/gpu_priv.h"
#include "gpu/runner_priv.h"

struct cpu_kernel {
	pthread_t thread;
	gnio_runner_launch_fn fn;
	struct gnio_runner_launch launch;
	gnio_error_t status;
	int done; /* set with release when fn returned */
};

static gnio_error_t cpu_open(struct gnio_gpu *gpu, const char *bus_id)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(gpu->name, sizeof(gpu->name), "CPU device (%ld cores)", n);
	return GNIO_SUCCESS;
}

static void cpu_close(struct gnio_gpu *gpu) {}

static gnio_error_t cpu_mem_alloc(struct gnio_gpu *gpu, size_t size, size_t align, enum gnio_gpu_mem_type type,
				  void **gpu_ptr, void **cpu_ptr)
{
	void *p = NULL;
	if (align < sizeof(void *))
		align = sizeof(void *);
	if (posix_memalign(&p, align, size))
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "cpu", "cannot allocate %zu bytes", size);
	memset(p, 0, size);
	*gpu_ptr = p;
	/* GPU memory of the CPU device is still host memory, but callers of the
	 * GPU type must not rely on a CPU pointer, as on CUDA. */
	*cpu_ptr = type == GNIO_GPU_MEM_TYPE_GPU ? NULL : p;
	return GNIO_SUCCESS;
}

static gnio_error_t cpu_mem_free(struct gnio_gpu *gpu, enum gnio_gpu_mem_type type, void *gpu_ptr, void *cpu_ptr)
{
	free(gpu_ptr);
	return GNIO_SUCCESS;
}

static int cpu_gpu_cpu_supported(struct gnio_gpu *gpu, char *why, size_t why_len)
{
	(void)gpu;
	snprintf(why, why_len, "the CPU device's memory is host memory");
	return 1;
}

/* Any host memory is the CPU device's memory as it is. */
static gnio_error_t cpu_mem_register(struct gnio_gpu *gpu, void *addr, size_t size, void **gpu_ptr, void **cpu_ptr,
				     enum gnio_gpu_mem_type *type, int *token)
{
	(void)gpu;
	(void)size;
	*gpu_ptr = addr;
	*cpu_ptr = addr;
	*type = GNIO_GPU_MEM_TYPE_CPU_GPU;
	*token = 0;
	return GNIO_SUCCESS;
}

static gnio_error_t cpu_mem_unregister(struct gnio_gpu *gpu, void *addr, int token)
{
	(void)gpu;
	(void)addr;
	(void)token;
	return GNIO_SUCCESS;
}

static gnio_error_t cpu_copy_to_dev(struct gnio_gpu *gpu, void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
	return GNIO_SUCCESS;
}

static gnio_error_t cpu_copy_from_dev(struct gnio_gpu *gpu, void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
	return GNIO_SUCCESS;
}

static gnio_error_t cpu_memset_dev(struct gnio_gpu *gpu, void *dst, int v, size_t n)
{
	memset(dst, v, n);
	return GNIO_SUCCESS;
}

static void *cpu_kernel_main(void *arg)
{
	struct cpu_kernel *k = arg;
	gnio_error_t st = k->fn(&k->launch);
	k->status = st;
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static gnio_error_t cpu_kernel_launch(struct gnio_runner *r, gnio_runner_launch_fn fn, struct gnio_runner_launch *l)
{
	struct cpu_kernel *k = calloc(1, sizeof(*k));
	if (!k)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "cpu", "out of memory");
	k->fn = fn;
	l->stream = NULL;
	k->launch = *l;
	int rc = pthread_create(&k->thread, NULL, cpu_kernel_main, k);
	if (rc) {
		free(k);
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, "cpu", "cannot start kernel thread: %s", strerror(rc));
	}
	pthread_setname_np(k->thread, "gnio-kernel");
	r->backend = k;
	return GNIO_SUCCESS;
}

static int cpu_kernel_poll(struct gnio_runner *r, gnio_error_t *status)
{
	struct cpu_kernel *k = r->backend;
	if (!__atomic_load_n(&k->done, __ATOMIC_ACQUIRE))
		return 0;
	*status = k->status;
	return 1;
}

static void cpu_kernel_reap(struct gnio_runner *r)
{
	struct cpu_kernel *k = r->backend;
	pthread_join(k->thread, NULL);
	free(k);
	r->backend = NULL;
}

const struct gnio_gpu_ops gnio_gpu_cpu_ops = {
	.name = "cpu",
	.open = cpu_open,
	.close = cpu_close,
	.mem_alloc = cpu_mem_alloc,
	.mem_free = cpu_mem_free,
	.gpu_cpu_supported = cpu_gpu_cpu_supported,
	.mem_register = cpu_mem_register,
	.mem_unregister = cpu_mem_unregister,
	.copy_to_dev = cpu_copy_to_dev,
	.copy_from_dev = cpu_copy_from_dev,
	.memset_dev = cpu_memset_dev,
	.kernel_launch = cpu_kernel_launch,
	.kernel_poll = cpu_kernel_poll,
	.kernel_reap = cpu_kernel_reap,
};
