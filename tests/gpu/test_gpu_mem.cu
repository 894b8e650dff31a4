/* SPDX-License-Identifier: MIT */
/*
 * Memory types on CUDA: GPU (device memory, no CPU pointer), CPU_GPU (pinned
 * host memory mapped into the GPU: both views see the same bytes, also for
 * the huge-page path of 2 MiB and more), GPU_CPU
 * (device memory through GDRCopy, or CPU_GPU memory when GDRCopy is absent:
 * both views either way, and a kernel's write is seen by the host). The
 * application's own memory (its cudaMalloc, cudaHostAlloc and malloc) is
 * registered and becomes a buffer array; managed memory is refused.
 * Alignment is honoured; bad frees and frees under a live buffer array are
 * refused.
 */
#include "gpu_test.h"

/* dev[i] = i * 3 + 1 in device memory, then out[i] = dev[i] + in[i] through
 * mapped host memory both ways. */
__global__ void mem_kernel(uint32_t *dev, const uint32_t *in, uint32_t *out, uint32_t n)
{
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		dev[i] = i * 3u + 1u;
		out[i] = dev[i] + in[i];
	}
}

/* The kernel's view of the last two bytes of p[0..len), into out; then it
 * writes the last one. */
__global__ void tail_kernel(uint8_t *p, size_t len, uint32_t *out)
{
	out[0] = p[len - 2];
	out[1] = p[len - 1];
	p[len - 1] = 0x11;
	__threadfence_system();
}

int main(void)
{
	const uint32_t n = 1u << 20;
	const size_t sz = n * sizeof(uint32_t);
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);

	/* GPU memory: default and large alignments; no CPU view. */
	void *dev = NULL, *devc = (void *)1;
	GT_OK(gnio_gpu_mem_alloc(g, sz, 0, GNIO_GPU_MEM_TYPE_GPU, &dev, &devc));
	GT_CHECK(dev && devc == NULL, "GPU memory: gpu %p cpu %p", dev, devc);
	GT_CHECK(((uintptr_t)dev & 255) == 0, "default alignment");
	size_t aligns[] = {512, 4096, 65536, 1u << 21};
	void *al[4];
	for (int i = 0; i < 4; i++) {
		void *c = NULL;
		GT_OK(gnio_gpu_mem_alloc(g, 1000, aligns[i], GNIO_GPU_MEM_TYPE_GPU, &al[i], &c));
		GT_CHECK(((uintptr_t)al[i] & (aligns[i] - 1)) == 0, "GPU align %zu: %p", aligns[i], al[i]);
		/* The aligned pointer is usable for its whole size. */
		GT_CUDA(cudaMemset(al[i], 0xab, 1000));
	}
	GT_CUDA(cudaDeviceSynchronize());

	/* CPU_GPU: both views, same bytes, aligned. */
	void *in_g, *in_c, *out_g, *out_c;
	GT_OK(gnio_gpu_mem_alloc(g, sz, 1u << 16, GNIO_GPU_MEM_TYPE_CPU_GPU, &in_g, &in_c));
	GT_OK(gnio_gpu_mem_alloc(g, sz, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &out_g, &out_c));
	GT_CHECK(in_g && in_c && out_g && out_c, "CPU_GPU pointers missing");
	GT_CHECK(((uintptr_t)in_g & 0xffff) == 0 && ((uintptr_t)in_c & 0xffff) == 0, "CPU_GPU align");
	for (uint32_t i = 0; i < n; i++) {
		((uint32_t *)in_c)[i] = i ^ 0x5a5a5a5au;
		((uint32_t *)out_c)[i] = 0;
	}
	mem_kernel<<<132, 256>>>((uint32_t *)dev, (const uint32_t *)in_g, (uint32_t *)out_g, n);
	GT_CUDA(cudaGetLastError());
	GT_CUDA(cudaDeviceSynchronize());
	for (uint32_t i = 0; i < n; i++) {
		uint32_t want = i * 3u + 1u + (i ^ 0x5a5a5a5au);
		GT_CHECK(((uint32_t *)out_c)[i] == want, "out[%u] = %u, want %u", i, ((uint32_t *)out_c)[i], want);
	}
	/* 2 MiB and more takes the huge-page path (mmap, then registered): an
	 * odd size at the largest alignment is usable to its last byte from
	 * both views, and frees. */
	{
		const size_t odd = (3u << 20) + 12345u;
		void *hg = NULL, *hc = NULL;
		GT_OK(gnio_gpu_mem_alloc(g, odd, 1u << 21, GNIO_GPU_MEM_TYPE_CPU_GPU, &hg, &hc));
		GT_CHECK(hg && hc && ((uintptr_t)hg & ((1u << 21) - 1)) == 0, "huge CPU_GPU: %p / %p", hg, hc);
		memset(hc, 0x3c, odd);
		((uint8_t *)hc)[odd - 1] = 0xe7;
		uint32_t tail[2] = {0, 0};
		tail_kernel<<<1, 1>>>((uint8_t *)hg, odd, (uint32_t *)dev);
		GT_CUDA(cudaGetLastError());
		GT_CUDA(cudaDeviceSynchronize());
		GT_CUDA(cudaMemcpy(tail, dev, sizeof(tail), cudaMemcpyDeviceToHost));
		GT_CHECK(tail[0] == 0x3c && tail[1] == 0xe7, "huge CPU_GPU tail through the device view: %02x %02x",
			 tail[0], tail[1]);
		GT_CHECK(((volatile uint8_t *)hc)[odd - 1] == 0x11, "device write not seen by the host view");
		GT_OK(gnio_gpu_mem_free(g, hg));
	}

	/* GPU memory reads back through a plain copy. */
	uint32_t probe[4];
	GT_CUDA(cudaMemcpy(probe, (uint32_t *)dev + 1000, sizeof(probe), cudaMemcpyDeviceToHost));
	GT_CHECK(probe[0] == 3001 && probe[3] == 3010, "device memory content");

	/* GPU_CPU: both views whether GDRCopy serves it or CPU_GPU stands in;
	 * a kernel's write reaches the host view (the exit-flag pattern). */
	void *gc = NULL, *gcc = NULL;
	GT_OK(gnio_gpu_mem_alloc(g, 65536, 0, GNIO_GPU_MEM_TYPE_GPU_CPU, &gc, &gcc));
	GT_CHECK(gc && gcc, "GPU_CPU pointers gpu %p cpu %p", gc, gcc);
	((volatile uint32_t *)gcc)[0] = 7;
	mem_kernel<<<1, 32>>>((uint32_t *)gc + 1, (const uint32_t *)gc, (uint32_t *)gc + 64, 8);
	GT_CUDA(cudaGetLastError());
	GT_CUDA(cudaDeviceSynchronize());
	GT_CHECK(((volatile uint32_t *)gcc)[64] == 1u + 7u, "GPU_CPU: kernel wrote %u through the device view",
		 ((volatile uint32_t *)gcc)[64]);
	GT_OK(gnio_gpu_mem_free(g, gc));

	/* The application's memory, registered. */
	void *ud = NULL, *uh = NULL, *um = NULL, *rg = NULL, *rc = NULL;
	GT_CUDA(cudaMalloc(&ud, 1u << 20));
	GT_OK(gnio_gpu_mem_register(g, ud, 1u << 20, &rg, &rc));
	GT_CHECK(rg == ud && rc == NULL, "registered cudaMalloc: gpu %p cpu %p", rg, rc);
	struct gnio_buf_arr *uarr;
	GT_OK(gnio_buf_arr_create(g, rg, 2048, 512, &uarr));
	GT_OK(gnio_buf_arr_start(uarr));
	GT_EXPECT(gnio_gpu_mem_free(g, rg), GNIO_ERROR_INVALID_VALUE); /* not gnio's to free */
	GT_EXPECT(gnio_gpu_mem_unregister(g, rg), GNIO_ERROR_BAD_STATE); /* the array uses it */
	GT_OK(gnio_buf_arr_destroy(uarr));
	GT_OK(gnio_gpu_mem_unregister(g, rg));
	GT_CUDA(cudaFree(ud));
	GT_CUDA(cudaHostAlloc(&uh, 1u << 16, cudaHostAllocMapped));
	GT_OK(gnio_gpu_mem_register(g, uh, 1u << 16, &rg, &rc));
	GT_CHECK(rg && rc == uh, "registered cudaHostAlloc: gpu %p cpu %p", rg, rc);
	GT_OK(gnio_gpu_mem_unregister(g, rg));
	GT_CUDA(cudaFreeHost(uh));
	uint32_t *plain = (uint32_t *)aligned_alloc(4096, 1u << 16);
	GT_CHECK(plain != NULL, "malloc");
	plain[0] = 5;
	GT_OK(gnio_gpu_mem_register(g, plain, 1u << 16, &rg, &rc));
	GT_CHECK(rg && rc == plain, "registered malloc: gpu %p cpu %p", rg, rc);
	mem_kernel<<<1, 32>>>((uint32_t *)rg + 1, (const uint32_t *)rg, (uint32_t *)rg + 64, 8);
	GT_CUDA(cudaGetLastError());
	GT_CUDA(cudaDeviceSynchronize());
	GT_CHECK(plain[64] == 1u + 5u, "registered malloc: the kernel's write reached it (%u)", plain[64]);
	GT_OK(gnio_gpu_mem_unregister(g, rg));
	free(plain);
	GT_CUDA(cudaMallocManaged(&um, 4096, cudaMemAttachGlobal));
	GT_EXPECT(gnio_gpu_mem_register(g, um, 4096, &rg, &rc), GNIO_ERROR_NOT_SUPPORTED);
	printf("managed memory refused: %s\n", gnio_last_error_msg());
	GT_CUDA(cudaFree(um));

	/* Bad arguments. */
	GT_EXPECT(gnio_gpu_mem_alloc(g, 0, 0, GNIO_GPU_MEM_TYPE_GPU, &gc, &gcc), GNIO_ERROR_INVALID_VALUE);
	GT_EXPECT(gnio_gpu_mem_alloc(g, 64, 3, GNIO_GPU_MEM_TYPE_GPU, &gc, &gcc), GNIO_ERROR_INVALID_VALUE);
	int on_stack;
	GT_EXPECT(gnio_gpu_mem_free(g, &on_stack), GNIO_ERROR_INVALID_VALUE);

	/* Memory under a buffer array cannot be freed until the array is gone. */
	struct gnio_buf_arr *arr;
	GT_OK(gnio_buf_arr_create(g, in_g, 2048, (uint32_t)(sz / 2048), &arr));
	GT_OK(gnio_buf_arr_start(arr));
	GT_EXPECT(gnio_gpu_mem_free(g, in_g), GNIO_ERROR_BAD_STATE);
	GT_EXPECT(gnio_gpu_destroy(g), GNIO_ERROR_BAD_STATE);
	GT_OK(gnio_buf_arr_destroy(arr));

	GT_OK(gnio_gpu_mem_free(g, in_g));
	GT_EXPECT(gnio_gpu_mem_free(g, in_g), GNIO_ERROR_INVALID_VALUE); /* twice */
	GT_OK(gnio_gpu_mem_free(g, out_g));
	GT_OK(gnio_gpu_mem_free(g, dev));
	for (int i = 0; i < 4; i++)
		GT_OK(gnio_gpu_mem_free(g, al[i]));
	return gt_pass(g);
}
