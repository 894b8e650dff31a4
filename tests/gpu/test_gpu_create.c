/* SPDX-License-Identifier: MIT */
/*
 * GPU context create/destroy on CUDA: good bus ids in both forms, malformed
 * and absent ones, the device name and backend, pick_best, and destroy refused
 * while memory is still allocated.
 */
#include <ctype.h>
#include "gpu_test.h"

int main(void)
{
	char bus[32], shortid[32], upper[32];
	struct gnio_gpu *g = NULL, *g2 = NULL;

	gt_find_gpu(bus, sizeof(bus));
	printf("testing CUDA device at %s\n", bus);

	/* Long form. */
	GT_OK(gnio_gpu_create(bus, &g));
	GT_CHECK(!strcmp(gnio_gpu_get_bus_id(g), bus), "bus id %s", gnio_gpu_get_bus_id(g));
	GT_CHECK(!strcmp(gnio_gpu_get_backend(g), "cuda"), "backend %s", gnio_gpu_get_backend(g));
	GT_CHECK(!gnio_gpu_is_cpu(g), "is_cpu");
	GT_CHECK(gnio_gpu_get_name(g)[0] != '\0', "empty name");
	printf("name: %s\n", gnio_gpu_get_name(g));

	/* Short form "BB:DD.F" names the same device; upper case too. */
	snprintf(shortid, sizeof(shortid), "%s", bus + 5);
	GT_OK(gnio_gpu_create(shortid, &g2));
	GT_CHECK(!strcmp(gnio_gpu_get_bus_id(g2), bus), "short form became %s", gnio_gpu_get_bus_id(g2));
	GT_OK(gnio_gpu_destroy(g2));
	for (size_t i = 0; i <= strlen(bus); i++)
		upper[i] = (char)toupper((unsigned char)bus[i]);
	GT_OK(gnio_gpu_create(upper, &g2));
	GT_OK(gnio_gpu_destroy(g2));

	/* Malformed. */
	const char *bad[] = {"", "zz:00.0", "0000:17:00", "0000:17:00.8", "17-00.0", "0000:117:00.0",
			     "0000:17:00.0x", "gpu0"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		g2 = NULL;
		gnio_error_t e = gnio_gpu_create(bad[i], &g2);
		GT_CHECK(e == GNIO_ERROR_INVALID_VALUE, "'%s' gave %s", bad[i], gnio_error_get_name(e));
		GT_CHECK(g2 == NULL, "handle written on failure");
	}
	GT_EXPECT(gnio_gpu_create(NULL, &g2), GNIO_ERROR_INVALID_VALUE);

	/* Well formed but absent: the reason names the id. */
	const char *absent = strcmp(bus, "0000:ff:1f.7") ? "0000:ff:1f.7" : "0000:fe:1f.7";
	GT_EXPECT(gnio_gpu_create(absent, &g2), GNIO_ERROR_NOT_FOUND);
	GT_CHECK(strstr(gnio_last_error_msg(), "ff:1f.7") || strstr(gnio_last_error_msg(), "fe:1f.7"),
		 "reason does not name the id");
	printf("absent: %s\n", gnio_last_error_msg());

	/* pick_best finds this (or another) CUDA device, not the CPU. */
	char best[32], why[256];
	GT_OK(gnio_gpu_pick_best(best, sizeof(best), why, sizeof(why)));
	GT_CHECK(strcmp(best, "cpu") != 0, "pick_best chose cpu: %s", why);
	printf("pick_best: %s (%s)\n", best, why);

	/* Destroy refused while memory is allocated, then allowed. */
	void *p = NULL, *pc = NULL;
	GT_OK(gnio_gpu_mem_alloc(g, 4096, 0, GNIO_GPU_MEM_TYPE_GPU, &p, &pc));
	GT_EXPECT(gnio_gpu_destroy(g), GNIO_ERROR_BAD_STATE);
	GT_OK(gnio_gpu_mem_free(g, p));
	GT_OK(gnio_gpu_destroy(g));

	/* Create/destroy repeatedly: nothing leaks into the next context. */
	for (int i = 0; i < 20; i++) {
		GT_OK(gnio_gpu_create(bus, &g));
		GT_OK(gnio_gpu_mem_alloc(g, 1 << 20, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &p, &pc));
		GT_OK(gnio_gpu_mem_free(g, p));
		GT_OK(gnio_gpu_destroy(g));
	}
	printf("PASS\n");
	return 0;
}
