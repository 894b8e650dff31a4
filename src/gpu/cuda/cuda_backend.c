/* SPDX-License-Identifier: MIT */
/*
 * src/gpu/cuda/cuda_backend.c - the CUDA device ops (src/gpu/backend.h).
 *
 * Plain C over the CUDA runtime API. Every entry point selects the context's
 * device first, because the proxy, the runner and the application may call in
 * from different host threads, and the current device is per thread.
 *
 * Things that shape this file:
 *  - cudaFree/cudaFreeHost synchronise the whole device. gpu.c must not free
 *    while a persistent kernel runs, or the free waits for that kernel.
 *  - Persistent kernels run on their own non-blocking stream, so synchronous
 *    control-path copies (legacy default stream) never wait behind them.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cuda.h> /* the driver API's types, for cuStreamWriteValue64 (found at run time) */
#include <cuda_runtime_api.h>

#include "gnio/dev.h"
#include "gnio/version.h"
#include "core/errmsg.h"
#include "gpu/backend.h"
#include "gpu/gpu_priv.h"
#include "gpu/runner_priv.h"
#include "gpu/cuda/gdrcopy.h"

#define COMP "cuda"

/* cudaMalloc and cudaHostAlloc give at least this alignment. */
#define CUDA_NATIVE_ALIGN 256u

/* An allocation whose returned pointer is not the one CUDA gave us (an
 * alignment above what CUDA guarantees): remember the base to free it. */
struct cuda_shift {
	struct cuda_shift *next;
	void *user_gpu;
	void *base; /* device base (GPU, GPU_CPU) or host base (CPU_GPU) */
	int gdr;    /* GPU_CPU: the GDRCopy mapping below is live */
	size_t huge_len; /* CPU_GPU from host_alloc_huge: the mapping's length */
	struct gnio_gdr_mapping map;
};

struct cuda_priv {
	int ordinal;
	pthread_mutex_t lock; /* guards shifts */
	struct cuda_shift *shifts;
};

/* Whether this build carries machine code or PTX the device can run: the
 * lowest listed architecture bounds it (PTX JITs forward only). */
static int cc_has_code(const struct cudaDeviceProp *prop)
{
	int min = gnio_cuda_min_compute_capability();

	return !min || prop->major * 10 + prop->minor >= min;
}

static struct cuda_priv *priv_of(struct gnio_gpu *gpu)
{
	return (struct cuda_priv *)gpu->priv;
}

/* Map a CUDA error to gnio's, recording "what: CUDA text" for the caller. */
static gnio_error_t cuda_fail(cudaError_t e, const char *what)
{
	gnio_error_t err;

	switch (e) {
	case cudaErrorMemoryAllocation:
		err = GNIO_ERROR_NO_MEMORY;
		break;
	case cudaErrorNoDevice:
	case cudaErrorInvalidDevice:
		err = GNIO_ERROR_NOT_FOUND;
		break;
	default:
		err = GNIO_ERROR_DRIVER;
		break;
	}
	gnio_set_error_msg("%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
	GNIO_LOG_ERR(COMP, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
	return err;
}

/* Is the driver there and new enough? Distinguishes "no driver" from "driver
 * too old" from "no device", all of which the runtime reports through the
 * first call that needs the driver. */
static gnio_error_t cuda_probe(int *count)
{
	int drv = 0, rt = 0;
	cudaError_t e = cudaGetDeviceCount(count);

	if (e == cudaSuccess && *count > 0)
		return GNIO_SUCCESS;
	cudaGetLastError(); /* the probe's error is not sticky; clear it */
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	if (e == cudaSuccess || e == cudaErrorNoDevice) {
		gnio_set_error_msg("no CUDA device present");
		return GNIO_ERROR_NOT_FOUND;
	}
	if (e == cudaErrorInsufficientDriver && drv == 0) {
		gnio_set_error_msg("CUDA driver not installed (libcuda.so.1 not found): %s",
				   cudaGetErrorString(e));
		return GNIO_ERROR_DRIVER;
	}
	if (e == cudaErrorInsufficientDriver) {
		gnio_set_error_msg("CUDA driver %d.%d is older than the runtime %d.%d: %s", drv / 1000,
				   (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, cudaGetErrorString(e));
		return GNIO_ERROR_DRIVER;
	}
	gnio_set_error_msg("CUDA driver unusable: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
	return GNIO_ERROR_DRIVER;
}

static gnio_error_t set_dev(struct gnio_gpu *gpu)
{
	cudaError_t e = cudaSetDevice(priv_of(gpu)->ordinal);

	return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaSetDevice");
}

static gnio_error_t cuda_open(struct gnio_gpu *gpu, const char *bus_id)
{
	struct cudaDeviceProp prop;
	struct cuda_priv *p;
	int count = 0, dev = -1;
	cudaError_t e;
	gnio_error_t err;

	err = cuda_probe(&count);
	if (err != GNIO_SUCCESS)
		return err;

	/* Match by enumeration rather than cudaDeviceGetByPCIBusId: an absent
	 * id is an ordinary answer here, not a CUDA API error (which tools such
	 * as compute-sanitizer report). */
	for (int d = 0; d < count && dev < 0; d++) {
		char raw[32], canon[32];

		e = cudaDeviceGetPCIBusId(raw, (int)sizeof(raw), d);
		if (e != cudaSuccess)
			return cuda_fail(e, "cudaDeviceGetPCIBusId");
		if (gnio_gpu_bus_id_canonical(raw, canon, sizeof(canon)) == GNIO_SUCCESS &&
		    !strcmp(canon, bus_id))
			dev = d;
	}
	if (dev < 0) {
		gnio_set_error_msg("no CUDA device at %s (%d present)", bus_id, count);
		return GNIO_ERROR_NOT_FOUND;
	}
	e = cudaGetDeviceProperties(&prop, dev);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaGetDeviceProperties");
	if (!prop.canMapHostMemory || !prop.unifiedAddressing) {
		gnio_set_error_msg("CUDA device %s (%s) cannot map host memory", bus_id, prop.name);
		return GNIO_ERROR_NOT_SUPPORTED;
	}
	if (!cc_has_code(&prop)) {
		gnio_set_error_msg("CUDA device %s (%s) has compute capability %d.%d; this build of gnio carries "
				   "code for %s only (rebuild with -DCMAKE_CUDA_ARCHITECTURES=%d%d-real)",
				   bus_id, prop.name, prop.major, prop.minor, gnio_cuda_architectures(), prop.major,
				   prop.minor);
		return GNIO_ERROR_NOT_SUPPORTED;
	}
	e = cudaSetDevice(dev);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaSetDevice");
	/* Create the primary context now, so a broken device fails here and not
	 * at the first allocation. */
	e = cudaFree(NULL);
	if (e != cudaSuccess)
		return cuda_fail(e, "creating the CUDA context");

	p = calloc(1, sizeof(*p));
	if (!p)
		return GNIO_ERROR_NO_MEMORY;
	p->ordinal = dev;
	pthread_mutex_init(&p->lock, NULL);
	gpu->priv = p;
	gpu->cuda_ordinal = dev;
	snprintf(gpu->name, sizeof(gpu->name), "%.127s", prop.name);
	GNIO_LOG_INFO(COMP, "opened %s: CUDA device %d, %s, cc %d.%d, %d SMs", bus_id, dev, prop.name,
		      prop.major, prop.minor, prop.multiProcessorCount);
	return GNIO_SUCCESS;
}

static void cuda_close(struct gnio_gpu *gpu)
{
	struct cuda_priv *p = priv_of(gpu);

	if (!p)
		return;
	while (p->shifts) {
		struct cuda_shift *s = p->shifts;
		p->shifts = s->next;
		free(s);
	}
	pthread_mutex_destroy(&p->lock);
	free(p);
	gpu->priv = NULL;
}

/* Publish a filled record: frees look it up from any thread. */
static void link_shift(struct cuda_priv *p, struct cuda_shift *rec)
{
	pthread_mutex_lock(&p->lock);
	rec->next = p->shifts;
	p->shifts = rec;
	pthread_mutex_unlock(&p->lock);
}

static gnio_error_t remember_shift(struct cuda_priv *p, void *user_gpu, void *base)
{
	struct cuda_shift *s = calloc(1, sizeof(*s));

	if (!s)
		return GNIO_ERROR_NO_MEMORY;
	s->user_gpu = user_gpu;
	s->base = base;
	link_shift(p, s);
	return GNIO_SUCCESS;
}

/* The record of user_gpu, unlinked (NULL when it was not shifted or
 * mapped); the caller frees it. */
static struct cuda_shift *take_shift_rec(struct cuda_priv *p, void *user_gpu)
{
	struct cuda_shift **pp, *s;

	pthread_mutex_lock(&p->lock);
	for (pp = &p->shifts; (s = *pp) != NULL; pp = &s->next) {
		if (s->user_gpu == user_gpu) {
			*pp = s->next;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return s;
}

/* The base CUDA returned for user_gpu (NULL when not shifted). */
static void *take_shift(struct cuda_priv *p, void *user_gpu)
{
	struct cuda_shift *s = take_shift_rec(p, user_gpu);
	void *base = s ? s->base : NULL;
	free(s);
	return base;
}

static uintptr_t align_up(uintptr_t v, size_t a)
{
	return (v + a - 1) & ~(uintptr_t)(a - 1);
}

/* Pinned host memory of 2 MiB or more comes from anonymous memory the
 * kernel may back with transparent huge pages, then registered: a proxy
 * writing frames into buffers 2 KiB apart crosses a 4 KiB page every other
 * frame, and with huge pages its TLB covers the whole pool (measured on the
 * H200's host CPU: docs/PERFORMANCE.md, "Pinned pools in huge pages").
 * Returns GNIO_ERROR_NOT_SUPPORTED (nothing allocated, no message) when
 * that cannot be done, and the caller takes cudaHostAlloc instead. */
#define HUGE_PAGE_SIZE (2u << 20)

static gnio_error_t host_alloc_huge(struct cuda_priv *p, size_t size, size_t align, void **gpu_ptr,
				    void **cpu_ptr)
{
	const size_t len = (size + HUGE_PAGE_SIZE - 1) / HUGE_PAGE_SIZE * HUGE_PAGE_SIZE + HUGE_PAGE_SIZE;
	uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return GNIO_ERROR_NOT_SUPPORTED;
	uint8_t *user = (uint8_t *)align_up((uintptr_t)map, HUGE_PAGE_SIZE);
	/* Advice only: without THP (or with it off) these stay 4 KiB pages.
	 * DONTFORK: a forked child must not share pinned pages copy-on-write
	 * (a write in the parent would then move its page away from the one
	 * the GPU reads). */
	(void)madvise(user, len - (size_t)(user - map), MADV_HUGEPAGE);
	if (madvise(map, len, MADV_DONTFORK)) {
		munmap(map, len);
		return GNIO_ERROR_NOT_SUPPORTED;
	}
	/* Fault the pages in now, as cudaHostAlloc does, so the first frames
	 * pay no page faults. */
	memset(user, 0, size);
	void *dev = NULL;
	if (cudaHostRegister(user, size, cudaHostRegisterMapped | cudaHostRegisterPortable) != cudaSuccess) {
		cudaGetLastError(); /* not sticky: clear it for the fallback */
		munmap(map, len);
		return GNIO_ERROR_NOT_SUPPORTED;
	}
	struct cuda_shift *rec = NULL;
	if (cudaHostGetDevicePointer(&dev, user, 0) != cudaSuccess || ((uintptr_t)dev & (align - 1)) ||
	    !(rec = calloc(1, sizeof(*rec)))) {
		cudaGetLastError();
		cudaHostUnregister(user);
		munmap(map, len);
		return GNIO_ERROR_NOT_SUPPORTED;
	}
	rec->user_gpu = dev;
	rec->base = map;
	rec->huge_len = len;
	link_shift(p, rec);
	*gpu_ptr = dev;
	if (cpu_ptr)
		*cpu_ptr = user;
	return GNIO_SUCCESS;
}

static gnio_error_t cuda_mem_alloc(struct gnio_gpu *gpu, size_t size, size_t align,
				   enum gnio_gpu_mem_type type, void **gpu_ptr, void **cpu_ptr)
{
	struct cuda_priv *p = priv_of(gpu);
	size_t extra = align > CUDA_NATIVE_ALIGN ? align - 1 : 0;
	void *base = NULL, *dbase = NULL;
	uintptr_t user;
	cudaError_t e;
	gnio_error_t err;

	*gpu_ptr = NULL;
	if (cpu_ptr)
		*cpu_ptr = NULL;
	if (size == 0 || (align & (align - 1)) != 0 || size + extra < size)
		return GNIO_ERROR_INVALID_VALUE;
	err = set_dev(gpu);
	if (err != GNIO_SUCCESS)
		return err;

	switch (type) {
	case GNIO_GPU_MEM_TYPE_GPU:
		e = cudaMalloc(&base, size + extra);
		if (e != cudaSuccess)
			return cuda_fail(e, "cudaMalloc");
		user = align_up((uintptr_t)base, align ? align : CUDA_NATIVE_ALIGN);
		if ((void *)user != base && remember_shift(p, (void *)user, base) != GNIO_SUCCESS) {
			cudaFree(base);
			return GNIO_ERROR_NO_MEMORY;
		}
		*gpu_ptr = (void *)user;
		return GNIO_SUCCESS;

	case GNIO_GPU_MEM_TYPE_CPU_GPU:
		if (size >= HUGE_PAGE_SIZE && align <= HUGE_PAGE_SIZE &&
		    host_alloc_huge(p, size, align ? align : CUDA_NATIVE_ALIGN, gpu_ptr, cpu_ptr) == GNIO_SUCCESS)
			return GNIO_SUCCESS;
		/* Portable: usable from every context; Mapped: the GPU reads it in
		 * place over PCIe (zero copy). */
		e = cudaHostAlloc(&base, size + extra, cudaHostAllocMapped | cudaHostAllocPortable);
		if (e != cudaSuccess)
			return cuda_fail(e, "cudaHostAlloc");
		e = cudaHostGetDevicePointer(&dbase, base, 0);
		if (e != cudaSuccess) {
			err = cuda_fail(e, "cudaHostGetDevicePointer");
			cudaFreeHost(base);
			return err;
		}
		/* Align the device view; the host view moves by the same amount
		 * (with unified addressing they are the same address). */
		user = align_up((uintptr_t)dbase, align ? align : CUDA_NATIVE_ALIGN);
		if ((void *)user != dbase && remember_shift(p, (void *)user, base) != GNIO_SUCCESS) {
			cudaFreeHost(base);
			return GNIO_ERROR_NO_MEMORY;
		}
		*gpu_ptr = (void *)user;
		if (cpu_ptr)
			*cpu_ptr = (uint8_t *)base + (user - (uintptr_t)dbase);
		return GNIO_SUCCESS;

	case GNIO_GPU_MEM_TYPE_GPU_CPU: {
		/* Device memory the CPU maps through GDRCopy: whole GPU pages. */
		size_t a = align > GNIO_GDR_PAGE ? align : GNIO_GDR_PAGE;
		size_t mapped = (size + GNIO_GDR_PAGE - 1) / GNIO_GDR_PAGE * GNIO_GDR_PAGE;
		struct cuda_shift *rec = calloc(1, sizeof(*rec));
		if (!rec)
			return GNIO_ERROR_NO_MEMORY;
		e = cudaMalloc(&base, mapped + a);
		if (e != cudaSuccess) {
			free(rec);
			return cuda_fail(e, "cudaMalloc");
		}
		user = align_up((uintptr_t)base, a);
		if (gnio_gdr_map((void *)user, mapped, &rec->map)) {
			cudaFree(base);
			free(rec);
			gnio_set_error_msg("GDRCopy could not pin and map %zu bytes of device memory", mapped);
			return GNIO_ERROR_DRIVER;
		}
		rec->user_gpu = (void *)user;
		rec->base = base;
		rec->gdr = 1;
		link_shift(p, rec);
		*gpu_ptr = (void *)user;
		if (cpu_ptr)
			*cpu_ptr = rec->map.cpu;
		return GNIO_SUCCESS;
	}
	}
	return GNIO_ERROR_INVALID_VALUE;
}

static int cuda_gpu_cpu_supported(struct gnio_gpu *gpu, char *why, size_t why_len)
{
	(void)gpu;
	return gnio_gdr_available(why, why_len);
}

/* The application's memory: its own cudaMalloc on this device, or host
 * memory (pinned and mapped already, or registered here and unregistered
 * again by mem_unregister). Managed memory is refused: the proxies copy
 * into it from host threads without the driver's page migration in mind. */
static gnio_error_t cuda_mem_register(struct gnio_gpu *gpu, void *addr, size_t size, void **gpu_ptr,
				      void **cpu_ptr, enum gnio_gpu_mem_type *type, int *token)
{
	struct cudaPointerAttributes at;
	gnio_error_t err = set_dev(gpu);
	cudaError_t e;

	if (err != GNIO_SUCCESS)
		return err;
	*token = 0;
	e = cudaPointerGetAttributes(&at, addr);
	if (e != cudaSuccess) {
		cudaGetLastError();
		at.type = cudaMemoryTypeUnregistered;
	}
	switch (at.type) {
	case cudaMemoryTypeDevice:
		if (at.device != priv_of(gpu)->ordinal) {
			gnio_set_error_msg("%p is memory of CUDA device %d, not of %s (device %d)", addr, at.device,
					   gpu->bus_id, priv_of(gpu)->ordinal);
			return GNIO_ERROR_INVALID_VALUE;
		}
		*gpu_ptr = addr;
		*cpu_ptr = NULL;
		*type = GNIO_GPU_MEM_TYPE_GPU;
		return GNIO_SUCCESS;
	case cudaMemoryTypeHost:
		if (!at.devicePointer) {
			gnio_set_error_msg("%p is pinned but not mapped into the device: allocate it with "
					   "cudaHostAllocMapped", addr);
			return GNIO_ERROR_NOT_SUPPORTED;
		}
		*gpu_ptr = at.devicePointer;
		*cpu_ptr = addr;
		*type = GNIO_GPU_MEM_TYPE_CPU_GPU;
		return GNIO_SUCCESS;
	case cudaMemoryTypeManaged:
		gnio_set_error_msg("%p is managed (unified) memory: register device memory or pinned host memory", addr);
		return GNIO_ERROR_NOT_SUPPORTED;
	default:
		break;
	}
	/* Plain host memory: pin and map it for as long as it is registered. */
	e = cudaHostRegister(addr, size, cudaHostRegisterMapped | cudaHostRegisterPortable);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaHostRegister of the application's memory");
	void *dptr = NULL;
	e = cudaHostGetDevicePointer(&dptr, addr, 0);
	if (e != cudaSuccess) {
		err = cuda_fail(e, "cudaHostGetDevicePointer");
		cudaHostUnregister(addr);
		return err;
	}
	*gpu_ptr = dptr;
	*cpu_ptr = addr;
	*type = GNIO_GPU_MEM_TYPE_CPU_GPU;
	*token = 1; /* registered here: unregister it */
	return GNIO_SUCCESS;
}

static gnio_error_t cuda_mem_unregister(struct gnio_gpu *gpu, void *addr, int token)
{
	gnio_error_t err = set_dev(gpu);
	if (err != GNIO_SUCCESS || !token)
		return err;
	cudaError_t e = cudaHostUnregister(addr);
	return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaHostUnregister");
}

static gnio_error_t cuda_mem_free(struct gnio_gpu *gpu, enum gnio_gpu_mem_type type, void *gpu_ptr,
				  void *cpu_ptr)
{
	struct cuda_priv *p = priv_of(gpu);
	cudaError_t e;
	gnio_error_t err;

	err = set_dev(gpu);
	if (err != GNIO_SUCCESS)
		return err;
	if (type == GNIO_GPU_MEM_TYPE_GPU_CPU) {
		struct cuda_shift *rec = take_shift_rec(p, gpu_ptr);
		if (!rec)
			return GNIO_ERROR_INVALID_VALUE;
		if (rec->gdr)
			gnio_gdr_unmap(&rec->map);
		e = cudaFree(rec->base);
		free(rec);
		return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaFree");
	}
	if (type == GNIO_GPU_MEM_TYPE_CPU_GPU) {
		struct cuda_shift *rec = take_shift_rec(p, gpu_ptr);
		if (rec && rec->huge_len) {
			e = cudaHostUnregister(cpu_ptr);
			munmap(rec->base, rec->huge_len);
			free(rec);
			return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaHostUnregister");
		}
		/* Unshifted: the host base is cpu_ptr (the device view may differ
		 * without unified addressing). */
		void *host_base = rec ? rec->base : cpu_ptr;
		free(rec);
		e = cudaFreeHost(host_base);
		return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaFreeHost");
	}
	void *base = take_shift(p, gpu_ptr);
	if (type == GNIO_GPU_MEM_TYPE_GPU) {
		e = cudaFree(base ? base : gpu_ptr);
		return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaFree");
	}
	return GNIO_ERROR_INVALID_VALUE;
}

static gnio_error_t cuda_copy_to_dev(struct gnio_gpu *gpu, void *dst_gpu, const void *src, size_t n)
{
	gnio_error_t err = set_dev(gpu);
	cudaError_t e;

	if (err != GNIO_SUCCESS)
		return err;
	e = cudaMemcpy(dst_gpu, src, n, cudaMemcpyDefault);
	return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaMemcpy to device");
}

static gnio_error_t cuda_copy_from_dev(struct gnio_gpu *gpu, void *dst, const void *src_gpu, size_t n)
{
	gnio_error_t err = set_dev(gpu);
	cudaError_t e;

	if (err != GNIO_SUCCESS)
		return err;
	e = cudaMemcpy(dst, src_gpu, n, cudaMemcpyDefault);
	return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaMemcpy from device");
}

static gnio_error_t cuda_memset_dev(struct gnio_gpu *gpu, void *dst_gpu, int value, size_t n)
{
	gnio_error_t err = set_dev(gpu);
	cudaError_t e;

	if (err != GNIO_SUCCESS)
		return err;
	/* cudaMemset may return before the fill lands; wait on the legacy
	 * stream only (never the device: a persistent kernel may be running). */
	e = cudaMemset(dst_gpu, value, n);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(0);
	return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaMemset");
}

/* ------------------------------------------------------------- kernels -- */

static gnio_error_t cuda_kernel_launch(struct gnio_runner *r, gnio_runner_launch_fn fn,
				       struct gnio_runner_launch *l)
{
	cudaStream_t s = NULL;
	cudaError_t e;
	gnio_error_t err;

	err = set_dev(r->gpu);
	if (err != GNIO_SUCCESS)
		return err;
	/* Non-blocking: the legacy default stream (synchronous copies, memsets)
	 * must never wait behind a kernel that runs until told to stop. */
	e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaStreamCreateWithFlags");
	cudaGetLastError(); /* start clean so the check below sees only this launch */
	l->stream = s;
	r->backend = s;
	err = fn(l);
	e = cudaGetLastError();
	if (err == GNIO_SUCCESS && e != cudaSuccess)
		err = cuda_fail(e, "kernel launch");
	if (err != GNIO_SUCCESS) {
		if (err != GNIO_ERROR_DRIVER && !gnio_last_error_msg()[0])
			gnio_set_error_msg("kernel launch function failed: %s", gnio_error_get_name(err));
		/* Nothing may be queued behind a failed launch, but a launch
		 * function may have enqueued work before failing: wait for it
		 * only if the stream says it is idle, else leave it (fail closed). */
		if (cudaStreamQuery(s) != cudaErrorNotReady) {
			cudaStreamDestroy(s);
			r->backend = NULL;
			l->stream = NULL;
		}
		cudaGetLastError();
		return err;
	}
	return GNIO_SUCCESS;
}

static int cuda_kernel_poll(struct gnio_runner *r, gnio_error_t *status)
{
	cudaStream_t s = (cudaStream_t)r->backend;
	cudaError_t e;

	*status = GNIO_SUCCESS;
	if (!s)
		return 1;
	if (set_dev(r->gpu) != GNIO_SUCCESS) {
		*status = GNIO_ERROR_DRIVER;
		return 1;
	}
	e = cudaStreamQuery(s);
	if (e == cudaErrorNotReady)
		return 0;
	if (e != cudaSuccess)
		*status = cuda_fail(e, "persistent kernel failed");
	return 1;
}

static void cuda_kernel_reap(struct gnio_runner *r)
{
	cudaStream_t s = (cudaStream_t)r->backend;

	if (!s)
		return;
	if (set_dev(r->gpu) == GNIO_SUCCESS) {
		cudaError_t e = cudaStreamDestroy(s);
		if (e != cudaSuccess)
			GNIO_LOG_WARN(COMP, "cudaStreamDestroy: %s", cudaGetErrorString(e));
	}
	r->backend = NULL;
	r->launch.stream = NULL;
}

/* ------------------------------------------------ proxy copies + fences -- */

static gnio_error_t cuda_copy_async(struct gnio_gpu *gpu, void *stream, void *dst_gpu, const void *src,
				    size_t n)
{
	/* Per batch on the proxy thread; cudaSetDevice is a thread-local
	 * check when the device is already current. */
	gnio_error_t err = set_dev(gpu);
	cudaError_t e;

	if (err != GNIO_SUCCESS)
		return err;
	e = cudaMemcpyAsync(dst_gpu, src, n, cudaMemcpyHostToDevice, (cudaStream_t)stream);

	return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaMemcpyAsync");
}

static gnio_error_t cuda_copy2d_async(struct gnio_gpu *gpu, void *stream, void *dst_gpu, const void *src,
				      size_t pitch, size_t width, size_t rows)
{
	gnio_error_t err = set_dev(gpu);
	cudaError_t e;

	if (err != GNIO_SUCCESS)
		return err;
	e = cudaMemcpy2DAsync(dst_gpu, pitch, src, pitch, width, rows, cudaMemcpyHostToDevice,
			      (cudaStream_t)stream);
	return e == cudaSuccess ? GNIO_SUCCESS : cuda_fail(e, "cudaMemcpy2DAsync");
}

static gnio_error_t cuda_stream_create(struct gnio_gpu *gpu, void **stream)
{
	cudaStream_t s = NULL;
	gnio_error_t err = set_dev(gpu);
	cudaError_t e;

	if (err != GNIO_SUCCESS)
		return err;
	e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaStreamCreateWithFlags");
	*stream = s;
	return GNIO_SUCCESS;
}

static void cuda_stream_destroy(struct gnio_gpu *gpu, void *stream)
{
	if (stream && set_dev(gpu) == GNIO_SUCCESS)
		cudaStreamDestroy((cudaStream_t)stream);
}

/* cuStreamWriteValue64 through the runtime's entry-point lookup: no link
 * against libcuda, and NULL where the driver does not have it. */
typedef CUresult (*write_u64_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
static pthread_once_t write_u64_once = PTHREAD_ONCE_INIT;
static write_u64_fn write_u64;

static void write_u64_load(void)
{
	void *fn = NULL;
	enum cudaDriverEntryPointQueryResult found;
	if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", &fn, 12000, cudaEnableDefault, &found) ==
		    cudaSuccess &&
	    found == cudaDriverEntryPointSuccess)
		write_u64 = (write_u64_fn)fn;
}

static gnio_error_t cuda_stream_write_u64(struct gnio_gpu *gpu, void *stream, void *word_dev, uint64_t value)
{
	gnio_error_t err = set_dev(gpu);
	if (err != GNIO_SUCCESS)
		return err;
	pthread_once(&write_u64_once, write_u64_load);
	if (!write_u64)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "cuda", "cuStreamWriteValue64 is not in this driver");
	CUresult r = write_u64((CUstream)stream, (CUdeviceptr)(uintptr_t)word_dev, value, CU_STREAM_WRITE_VALUE_DEFAULT);
	if (r == CUDA_ERROR_NOT_SUPPORTED)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "cuda", "stream memory operations are not supported here");
	return r == CUDA_SUCCESS ? GNIO_SUCCESS : gnio_fail(GNIO_ERROR_DRIVER, "cuda", "cuStreamWriteValue64: error %d", (int)r);
}

/* A stream or event query's answer: 1 done, 0 not yet, -1 a copy failed
 * (logged; the bytes must not be published). */
static int copy_query_result(cudaError_t e)
{
	if (e == cudaSuccess)
		return 1;
	if (e == cudaErrorNotReady)
		return 0;
	cuda_fail(e, "async payload copy");
	return -1;
}

static int cuda_stream_done(struct gnio_gpu *gpu, void *stream)
{
	return copy_query_result(cudaStreamQuery((cudaStream_t)stream));
}

static gnio_error_t cuda_fence_record(struct gnio_gpu *gpu, void *stream, void **fence)
{
	cudaEvent_t ev = NULL;
	cudaError_t e;

	e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaEventCreate");
	e = cudaEventRecord(ev, (cudaStream_t)stream);
	if (e != cudaSuccess) {
		cudaEventDestroy(ev);
		return cuda_fail(e, "cudaEventRecord");
	}
	*fence = ev;
	return GNIO_SUCCESS;
}

/* Every copy issued before the fence has landed? (copy_query_result) */
static int cuda_fence_done(struct gnio_gpu *gpu, void *fence)
{
	return copy_query_result(cudaEventQuery((cudaEvent_t)fence));
}

static void cuda_fence_destroy(struct gnio_gpu *gpu, void *fence)
{
	if (fence)
		cudaEventDestroy((cudaEvent_t)fence);
}

const struct gnio_gpu_ops gnio_gpu_cuda_ops = {
	.name = "cuda",
	.open = cuda_open,
	.close = cuda_close,
	.mem_alloc = cuda_mem_alloc,
	.mem_free = cuda_mem_free,
	.gpu_cpu_supported = cuda_gpu_cpu_supported,
	.mem_register = cuda_mem_register,
	.mem_unregister = cuda_mem_unregister,
	.copy_to_dev = cuda_copy_to_dev,
	.copy_from_dev = cuda_copy_from_dev,
	.memset_dev = cuda_memset_dev,
	.kernel_launch = cuda_kernel_launch,
	.kernel_poll = cuda_kernel_poll,
	.kernel_reap = cuda_kernel_reap,
	.copy_async = cuda_copy_async,
	.copy2d_async = cuda_copy2d_async,
	.stream_create = cuda_stream_create,
	.stream_destroy = cuda_stream_destroy,
	.fence_record = cuda_fence_record,
	.fence_done = cuda_fence_done,
	.fence_destroy = cuda_fence_destroy,
	.stream_write_u64 = cuda_stream_write_u64,
	.stream_done = cuda_stream_done,
};

/* The first CUDA device that can map host memory (what every queue needs). */
int gnio_cuda_pick_best(char *bus_id, size_t len, char *why, size_t why_len)
{
	int count = 0;
	gnio_error_t err = cuda_probe(&count);

	if (err != GNIO_SUCCESS) {
		snprintf(why, why_len, "%s", gnio_last_error_msg());
		return -1;
	}
	for (int d = 0; d < count; d++) {
		struct cudaDeviceProp prop;
		char raw[32];

		if (cudaGetDeviceProperties(&prop, d) != cudaSuccess || !prop.canMapHostMemory ||
		    !prop.unifiedAddressing || !cc_has_code(&prop))
			continue;
		if (cudaDeviceGetPCIBusId(raw, (int)sizeof(raw), d) != cudaSuccess)
			continue;
		if (gnio_gpu_bus_id_canonical(raw, bus_id, len) != GNIO_SUCCESS)
			snprintf(bus_id, len, "%s", raw);
		snprintf(why, why_len, "CUDA device %d (%s, cc %d.%d, %d SMs) at %s", d, prop.name,
			 prop.major, prop.minor, prop.multiProcessorCount, bus_id);
		return 0;
	}
	cudaGetLastError();
	snprintf(why, why_len, "%d CUDA device(s) present, none can map host memory with compute capability %d.%d or newer",
		 count, gnio_cuda_min_compute_capability() / 10, gnio_cuda_min_compute_capability() % 10);
	return -1;
}
