/* SPDX-License-Identifier: MIT */
/* src/gpu/gpu.c - device contexts, memory bookkeeping and the rules that keep
 * teardown safe: nothing in use is freed, nothing a hung kernel may touch is
 * freed. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "gpu/gpu_priv.h"
#include "gnio/impl/hd.h"

/* One hex field of a bus id: 1..8 digits (nvidia-smi writes the domain with
 * 8), at most max, ended by `end` (a separator, or 0 for the end of the
 * string). Advances *p past it. */
static int hex_field(const char **p, char end, unsigned max, unsigned *v)
{
	unsigned n = 0, val = 0;
	for (; isxdigit((unsigned char)**p) && n < 9; (*p)++, n++)
		val = val * 16 + (unsigned)(isdigit((unsigned char)**p) ? **p - '0' : (tolower((unsigned char)**p) - 'a' + 10));
	if (!n || n > 8 || val > max || **p != end)
		return -1;
	if (end)
		(*p)++;
	*v = val;
	return 0;
}

gnio_error_t gnio_gpu_bus_id_canonical(const char *in, char *out, size_t out_len)
{
	gnio_api_enter();
	unsigned dom = 0, bus, devn, fn;
	if (!in || !out || out_len < 13)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "bus id: NULL or short buffer");
	const char *p = in;
	/* DDDD:BB:DD.F, or BB:DD.F with domain 0 */
	int colons = 0;
	for (const char *c = in; *c; c++)
		colons += *c == ':';
	if ((colons == 2 && hex_field(&p, ':', 0xffff, &dom)) || (colons != 1 && colons != 2) ||
	    hex_field(&p, ':', 0xff, &bus) || hex_field(&p, '.', 0x1f, &devn) || hex_field(&p, 0, 7, &fn))
		goto bad;
	snprintf(out, out_len, "%04x:%02x:%02x.%x", dom, bus, devn, fn);
	return GNIO_SUCCESS;
bad:
	return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu",
			 "'%s' is not a PCIe bus id (expected DDDD:BB:DD.F such as 0000:17:00.0, or \"cpu\")", in);
}

gnio_error_t gnio_gpu_create(const char *bus_id, struct gnio_gpu **gpu)
{
	gnio_clear_error_msg();
	if (!bus_id || !gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "create: NULL argument");
	const struct gnio_gpu_ops *ops;
	char canon[32];
	if (!strcmp(bus_id, "cpu")) {
		ops = &gnio_gpu_cpu_ops;
		snprintf(canon, sizeof(canon), "cpu");
	} else {
		GNIO_CHECK(gnio_gpu_bus_id_canonical(bus_id, canon, sizeof(canon)));
#ifdef GNIO_HAVE_CUDA
		ops = &gnio_gpu_cuda_ops;
#else
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, "gpu",
				 "GPU %s: this gnio was built without CUDA (rebuild with -DGNIO_WITH_CUDA=ON, or use --gpu cpu)",
				 canon);
#endif
	}
	struct gnio_gpu *g = calloc(1, sizeof(*g));
	if (!g)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "gpu", "out of memory");
	g->ops = ops;
	g->cuda_ordinal = -1;
	snprintf(g->bus_id, sizeof(g->bus_id), "%s", canon);
	pthread_mutex_init(&g->lock, NULL);
	gnio_error_t err = ops->open(g, canon);
	if (err != GNIO_SUCCESS) {
		pthread_mutex_destroy(&g->lock);
		free(g);
		return err;
	}
	GNIO_LOG_INFO("gpu", "created %s context for %s (%s)", ops->name, canon, g->name);
	*gpu = g;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_destroy(struct gnio_gpu *gpu)
{
	gnio_api_enter();
	if (!gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "destroy: NULL");
	pthread_mutex_lock(&gpu->lock);
	unsigned q = gpu->num_ctx, r = gpu->num_runners, m = gpu->num_user_allocs, s = gpu->num_sems;
	int arrays = gpu->arr_top != NULL;
	int internal = 0;
	for (struct gnio_gpu_alloc *a = gpu->allocs; a; a = a->next)
		internal += a->internal;
	pthread_mutex_unlock(&gpu->lock);
	if (q || r || m || s || arrays || internal)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "gpu",
				 "device %s still in use: %u queue(s), %u runner(s), %u allocation(s), %u semaphore(s)%s; "
				 "tear those down first",
				 gpu->bus_id, q, r, m, s, arrays ? ", buffer arrays" : "");
	gpu->ops->close(gpu);
	pthread_mutex_destroy(&gpu->lock);
	free(gpu);
	return GNIO_SUCCESS;
}

static gnio_error_t alloc_common(struct gnio_gpu *gpu, size_t size, size_t align, enum gnio_gpu_mem_type type,
				 void **gpu_ptr, void **cpu_ptr, int internal)
{
	if (type != GNIO_GPU_MEM_TYPE_GPU && type != GNIO_GPU_MEM_TYPE_GPU_CPU && type != GNIO_GPU_MEM_TYPE_CPU_GPU)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "unknown memory type %d", (int)type);
	if (align == 0)
		align = 256;
	if (align & (align - 1))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "alignment %zu is not a power of two", align);
	if (size == 0)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "cannot allocate 0 bytes");
	if (type == GNIO_GPU_MEM_TYPE_GPU_CPU && gpu->ops->gpu_cpu_supported) {
		char why[160];
		if (!gpu->ops->gpu_cpu_supported(gpu, why, sizeof(why))) {
			/* As DOCA does without GDRCopy: pinned host memory mapped
			 * into the device, which both sides see as well. */
			static int warned;
			if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
				GNIO_LOG_WARN("gpu", "GPU_CPU memory needs GDRCopy (%s): serving CPU_GPU memory instead",
					      why);
			type = GNIO_GPU_MEM_TYPE_CPU_GPU;
		}
	}
	struct gnio_gpu_alloc *a = calloc(1, sizeof(*a));
	if (!a)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "gpu", "out of memory");
	void *g = NULL, *c = NULL;
	gnio_error_t err = gpu->ops->mem_alloc(gpu, size, align, type, &g, &c);
	if (err != GNIO_SUCCESS) {
		free(a);
		return err;
	}
	a->type = type;
	a->gpu_ptr = g;
	a->cpu_ptr = c;
	a->size = size;
	a->internal = internal;
	pthread_mutex_lock(&gpu->lock);
	a->next = gpu->allocs;
	gpu->allocs = a;
	if (!internal)
		gpu->num_user_allocs++;
	pthread_mutex_unlock(&gpu->lock);
	*gpu_ptr = g;
	if (cpu_ptr)
		*cpu_ptr = c;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_mem_alloc(struct gnio_gpu *gpu, size_t size, size_t align, enum gnio_gpu_mem_type type,
				void **memptr_gpu, void **memptr_cpu)
{
	gnio_api_enter();
	if (!gpu || !memptr_gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "mem_alloc: NULL argument");
	if (memptr_cpu)
		*memptr_cpu = NULL;
	return alloc_common(gpu, size, align, type, memptr_gpu, memptr_cpu, 0);
}

gnio_error_t gnio_gpu_alloc_internal(struct gnio_gpu *gpu, size_t size, enum gnio_gpu_mem_type type,
				     void **gpu_ptr, void **cpu_ptr)
{
	return alloc_common(gpu, size, GNIO_LINE, type, gpu_ptr, cpu_ptr, 1);
}

struct gnio_gpu_alloc *gnio_gpu_find_alloc(struct gnio_gpu *gpu, const void *gpu_ptr, size_t len)
{
	const uint8_t *p = gpu_ptr;
	for (struct gnio_gpu_alloc *a = gpu->allocs; a; a = a->next) {
		const uint8_t *b = a->gpu_ptr;
		if (p >= b && p < b + a->size && len <= (size_t)(b + a->size - p))
			return a;
	}
	return NULL;
}

static gnio_error_t free_common(struct gnio_gpu *gpu, void *gpu_ptr, int internal, int external)
{
	pthread_mutex_lock(&gpu->lock);
	struct gnio_gpu_alloc **pp = &gpu->allocs, *a = NULL;
	for (; *pp; pp = &(*pp)->next) {
		if ((*pp)->gpu_ptr == gpu_ptr && (*pp)->internal == internal) {
			a = *pp;
			break;
		}
	}
	if (!a) {
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "%p is not %s of device %s", gpu_ptr,
				 external ? "memory registered with" : "an allocation", gpu->bus_id);
	}
	if (a->external != external) {
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu",
				 external ? "%p was allocated by gnio_gpu_mem_alloc: free it with gnio_gpu_mem_free"
					  : "%p is the application's memory: unregister it with gnio_gpu_mem_unregister",
				 gpu_ptr);
	}
	if (gpu->num_hung) {
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_BAD_STATE, "gpu",
				 "a kernel on %s missed its stop deadline and may still touch this memory; not freeing it",
				 gpu->bus_id);
	}
	if (gpu->num_running) {
		/* A kernel may hold this memory, and on CUDA a free waits for every
		 * kernel on the device: a persistent one never ends by itself. */
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_BAD_STATE, "gpu",
				 "%u kernel(s) still run on %s; stop them before freeing memory", gpu->num_running,
				 gpu->bus_id);
	}
	if (a->arr_refs) {
		pthread_mutex_unlock(&gpu->lock);
		return gnio_fail(GNIO_ERROR_BAD_STATE, "gpu",
				 "memory is registered in %u buffer array(s) or used by started queues; destroy/stop them first",
				 a->arr_refs);
	}
	*pp = a->next;
	if (!internal)
		gpu->num_user_allocs--;
	pthread_mutex_unlock(&gpu->lock);
	gnio_error_t err = a->external ? gpu->ops->mem_unregister(gpu, a->user_addr, a->token)
				       : gpu->ops->mem_free(gpu, a->type, a->gpu_ptr, a->cpu_ptr);
	free(a);
	return err;
}

gnio_error_t gnio_gpu_mem_free(struct gnio_gpu *gpu, void *memptr_gpu)
{
	gnio_api_enter();
	if (!gpu || !memptr_gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "mem_free: NULL argument");
	return free_common(gpu, memptr_gpu, 0, 0);
}

gnio_error_t gnio_gpu_mem_register(struct gnio_gpu *gpu, void *addr, size_t size, void **memptr_gpu,
				   void **memptr_cpu)
{
	gnio_api_enter();
	if (!gpu || !addr || !memptr_gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "mem_register: NULL argument");
	if (!size)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "mem_register: 0 bytes");
	if (memptr_cpu)
		*memptr_cpu = NULL;
	pthread_mutex_lock(&gpu->lock);
	for (struct gnio_gpu_alloc *a = gpu->allocs; a; a = a->next) {
		const uint8_t *lo = a->external ? a->user_addr : (a->cpu_ptr ? a->cpu_ptr : a->gpu_ptr);
		if ((const uint8_t *)addr < lo + a->size && lo < (const uint8_t *)addr + size) {
			pthread_mutex_unlock(&gpu->lock);
			return gnio_fail(GNIO_ERROR_ALREADY_EXIST, "gpu",
					 "%zu bytes at %p overlap memory %s already knows", size, addr, gpu->bus_id);
		}
	}
	pthread_mutex_unlock(&gpu->lock);
	struct gnio_gpu_alloc *a = calloc(1, sizeof(*a));
	if (!a)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "gpu", "out of memory");
	void *g = NULL, *c = NULL;
	enum gnio_gpu_mem_type type;
	int token = 0;
	gnio_error_t err = gpu->ops->mem_register(gpu, addr, size, &g, &c, &type, &token);
	if (err != GNIO_SUCCESS) {
		free(a);
		return err;
	}
	a->type = type;
	a->gpu_ptr = g;
	a->cpu_ptr = c;
	a->size = size;
	a->external = 1;
	a->user_addr = addr;
	a->token = token;
	pthread_mutex_lock(&gpu->lock);
	a->next = gpu->allocs;
	gpu->allocs = a;
	gpu->num_user_allocs++;
	pthread_mutex_unlock(&gpu->lock);
	*memptr_gpu = g;
	if (memptr_cpu)
		*memptr_cpu = c;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gpu_release_user_mem(struct gnio_gpu *gpu, void *gpu_ptr)
{
	pthread_mutex_lock(&gpu->lock);
	struct gnio_gpu_alloc *a = gnio_gpu_find_alloc(gpu, gpu_ptr, 1);
	int external = a && a->gpu_ptr == gpu_ptr && a->external;
	pthread_mutex_unlock(&gpu->lock);
	return external ? gnio_gpu_mem_unregister(gpu, gpu_ptr) : gnio_gpu_mem_free(gpu, gpu_ptr);
}

gnio_error_t gnio_gpu_mem_unregister(struct gnio_gpu *gpu, void *memptr_gpu)
{
	gnio_api_enter();
	if (!gpu || !memptr_gpu)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "mem_unregister: NULL argument");
	return free_common(gpu, memptr_gpu, 0, 1);
}

gnio_error_t gnio_gpu_free_internal(struct gnio_gpu *gpu, void *gpu_ptr)
{
	if (!gpu_ptr)
		return GNIO_SUCCESS;
	return free_common(gpu, gpu_ptr, 1, 0);
}

gnio_error_t gnio_gpu_put_handle(struct gnio_gpu *gpu, const void *src, size_t size, void **dev_handle)
{
	void *g;
	GNIO_CHECK(gnio_gpu_alloc_internal(gpu, size, GNIO_GPU_MEM_TYPE_GPU, &g, NULL));
	gnio_error_t err = gpu->ops->copy_to_dev(gpu, g, src, size);
	if (err != GNIO_SUCCESS) {
		gnio_gpu_free_internal(gpu, g);
		return err;
	}
	*dev_handle = g;
	return GNIO_SUCCESS;
}

const char *gnio_gpu_get_bus_id(const struct gnio_gpu *gpu) { return gpu ? gpu->bus_id : ""; }
const char *gnio_gpu_get_name(const struct gnio_gpu *gpu) { return gpu ? gpu->name : ""; }
const char *gnio_gpu_get_backend(const struct gnio_gpu *gpu) { return gpu ? gpu->ops->name : ""; }
int gnio_gpu_is_cpu(const struct gnio_gpu *gpu) { return gpu && gpu->ops == &gnio_gpu_cpu_ops; }

gnio_error_t gnio_gpu_pick_best(char *bus_id, size_t bus_id_len, char *why, size_t why_len)
{
	gnio_api_enter();
	if (!bus_id || bus_id_len < 13)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gpu", "pick_best: buffer too small");
	char reason[256] = "";
#ifdef GNIO_HAVE_CUDA
	if (gnio_cuda_pick_best(bus_id, bus_id_len, reason, sizeof(reason)) == 0) {
		if (why)
			snprintf(why, why_len, "%s", reason);
		return GNIO_SUCCESS;
	}
#else
	snprintf(reason, sizeof(reason), "this gnio was built without CUDA");
#endif
	snprintf(bus_id, bus_id_len, "cpu");
	if (why)
		snprintf(why, why_len, "using the CPU device: %s", reason);
	return GNIO_SUCCESS;
}
