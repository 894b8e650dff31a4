/* SPDX-License-Identifier: MIT */
/*
 * src/gpu/cuda/gdrcopy.c - GDRCopy through dlopen, for GPU_CPU memory (device
 * memory the CPU maps). Loaded once per process; absent library, absent
 * driver (gdr_open fails) or GNIO_DISABLE_GDRCOPY=1 all mean "not available",
 * and the caller serves CPU_GPU memory instead (gpu.c, one WARNING).
 *
 * The prototypes follow GDRCopy 2.x's gdrapi.h, declared here so the build
 * needs neither its headers nor its library.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/cuda/gdrcopy.h"

typedef struct gdr *gdr_t;
typedef struct gdr_mh_s {
	unsigned long h;
} gdr_mh_t;
struct gdr_info {
	uint64_t va;
	uint64_t mapped_size;
	uint32_t page_size;
	uint64_t tm_cycles;
	uint32_t cycles_per_ms;
	unsigned mapped : 1;
	unsigned wc_mapping : 1;
	int mapping_type;
};

static struct {
	pthread_once_t once;
	void *lib;
	gdr_t g;
	char why[160];
	gdr_t (*open)(void);
	int (*pin)(gdr_t, unsigned long, size_t, uint64_t, uint32_t, gdr_mh_t *);
	int (*unpin)(gdr_t, gdr_mh_t);
	int (*map)(gdr_t, gdr_mh_t, void **, size_t);
	int (*unmap)(gdr_t, gdr_mh_t, void *, size_t);
	int (*info)(gdr_t, gdr_mh_t, struct gdr_info *);
} gdr = {.once = PTHREAD_ONCE_INIT};

static void gdr_load(void)
{
	const char *off = getenv("GNIO_DISABLE_GDRCOPY");
	if (off && *off && strcmp(off, "0")) {
		snprintf(gdr.why, sizeof(gdr.why), "GDRCopy disabled by GNIO_DISABLE_GDRCOPY=%s", off);
		return;
	}
	gdr.lib = dlopen("libgdrapi.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!gdr.lib) {
		snprintf(gdr.why, sizeof(gdr.why), "GDRCopy library libgdrapi.so.2 not found");
		return;
	}
	gdr.open = (gdr_t(*)(void))dlsym(gdr.lib, "gdr_open");
	*(void **)&gdr.pin = dlsym(gdr.lib, "gdr_pin_buffer");
	*(void **)&gdr.unpin = dlsym(gdr.lib, "gdr_unpin_buffer");
	*(void **)&gdr.map = dlsym(gdr.lib, "gdr_map");
	*(void **)&gdr.unmap = dlsym(gdr.lib, "gdr_unmap");
	*(void **)&gdr.info = dlsym(gdr.lib, "gdr_get_info");
	if (!gdr.open || !gdr.pin || !gdr.unpin || !gdr.map || !gdr.unmap || !gdr.info) {
		snprintf(gdr.why, sizeof(gdr.why), "libgdrapi.so.2 lacks the GDRCopy 2 calls");
		return;
	}
	gdr.g = gdr.open();
	if (!gdr.g)
		snprintf(gdr.why, sizeof(gdr.why), "gdr_open failed: the gdrdrv kernel module is not loaded");
}

int gnio_gdr_available(char *why, size_t why_len)
{
	pthread_once(&gdr.once, gdr_load);
	if (why)
		snprintf(why, why_len, "%s", gdr.g ? "GDRCopy is available" : gdr.why);
	return gdr.g != NULL;
}

int gnio_gdr_map(void *dev, size_t size, struct gnio_gdr_mapping *m)
{
	gdr_mh_t mh;
	struct gdr_info info;
	void *va = NULL;
	if (!gnio_gdr_available(NULL, 0))
		return -1;
	if (gdr.pin(gdr.g, (unsigned long)(uintptr_t)dev, size, 0, 0, &mh))
		return -1;
	if (gdr.map(gdr.g, mh, &va, size)) {
		gdr.unpin(gdr.g, mh);
		return -1;
	}
	memset(&info, 0, sizeof(info));
	if (gdr.info(gdr.g, mh, &info)) {
		gdr.unmap(gdr.g, mh, va, size);
		gdr.unpin(gdr.g, mh);
		return -1;
	}
	m->handle = mh.h;
	m->map = va;
	m->size = size;
	/* The mapping starts at the pinned GPU page, which may lie below dev. */
	m->cpu = (uint8_t *)va + ((uintptr_t)dev - (uintptr_t)info.va);
	return 0;
}

void gnio_gdr_unmap(struct gnio_gdr_mapping *m)
{
	gdr_mh_t mh = {m->handle};
	if (!gdr.g)
		return;
	gdr.unmap(gdr.g, mh, m->map, m->size);
	gdr.unpin(gdr.g, mh);
}
