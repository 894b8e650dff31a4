/* SPDX-License-Identifier: MIT */
/*
 * Semaphores: a persistent kernel hands per-batch stats (batch number,
 * frames, bytes) to a CPU thread through a ring of semaphore items; the CPU
 * thread's sums must equal what the wire offered, with no batch lost or seen
 * twice. The kernel waits for FREE before reusing an item.
 */
#include <pthread.h>
#include "gpu_test.h"

#define ITEMS 8u

struct binfo {
	uint64_t batch, packets, bytes;
};

__global__ void sem_kernel(struct gnio_gpu_eth_rxq *q, struct gnio_kernel_ctl *ctl, struct gnio_gpu_semaphore_gpu *sem)
{
	__shared__ unsigned long long s_bytes;
	__shared__ int s_quit;
	uint64_t hb = 0, batch = 0;

	for (;;) {
		if (gt_group_stop<GT_SCOPE_BLOCK>(ctl, &hb))
			break;
		uint64_t first;
		uint32_t count;
		if (threadIdx.x == 0)
			s_bytes = 0;
		if (gnio_gpu_dev_eth_rxq_recv_block(q, 128, 100000, &first, &count, NULL) != GNIO_SUCCESS)
			break;
		if (count == 0)
			continue;
		unsigned long long b = 0;
		for (uint32_t i = threadIdx.x; i < count; i += blockDim.x)
			b += gnio_gpu_dev_eth_rxq_get_pkt_bytes(q, first + i);
		atomicAdd(&s_bytes, b);
		__syncthreads();
		if (threadIdx.x == 0) {
			uint32_t idx = (uint32_t)(batch % ITEMS);
			enum gnio_gpu_semaphore_status st = GNIO_GPU_SEMAPHORE_STATUS_READY;
			s_quit = 0;
			/* Wait for the CPU to hand the item back. */
			while (gnio_gpu_dev_semaphore_get_status(sem, idx, &st) == GNIO_SUCCESS &&
			       st != GNIO_GPU_SEMAPHORE_STATUS_FREE) {
				if (gnio_gpu_dev_kernel_should_stop(ctl)) {
					s_quit = 1;
					break;
				}
				__nanosleep(1000);
			}
			if (!s_quit) {
				void *info = NULL;
				gnio_gpu_dev_semaphore_get_custom_info_addr(sem, idx, &info);
				struct binfo *bi = (struct binfo *)info;
				bi->batch = batch;
				bi->packets = count;
				bi->bytes = s_bytes;
				gnio_gpu_dev_semaphore_set_status(sem, idx, GNIO_GPU_SEMAPHORE_STATUS_READY);
			}
		}
		__syncthreads();
		if (s_quit)
			break;
		batch++;
	}
}

struct sargs {
	struct gnio_gpu_eth_rxq *q;
	struct gnio_gpu_semaphore_gpu *sem;
};

static gnio_error_t sem_launch(const struct gnio_runner_launch *l)
{
	const struct sargs *a = (const struct sargs *)l->user;
	sem_kernel<<<1, 256, 0, (cudaStream_t)l->stream>>>(a->q, l->ctl, a->sem);
	GT_LAUNCH_CHECK();
	return GNIO_SUCCESS;
}

struct reader {
	struct gnio_gpu_semaphore *sem;
	uint64_t want_packets;
	uint64_t packets, bytes, batches;
	int order_ok, timed_out;
};

static void *reader_main(void *arg)
{
	struct reader *rd = (struct reader *)arg;
	uint64_t end = gt_deadline_ms(20000);
	rd->order_ok = 1;
	while (rd->packets < rd->want_packets) {
		uint32_t idx = (uint32_t)(rd->batches % ITEMS);
		enum gnio_gpu_semaphore_status st;
		GT_OK(gnio_gpu_semaphore_get_status(rd->sem, idx, &st));
		if (st != GNIO_GPU_SEMAPHORE_STATUS_READY) {
			if (gt_mono_ns() > end) {
				rd->timed_out = 1;
				break;
			}
			gt_sleep_us(10);
			continue;
		}
		void *p;
		GT_OK(gnio_gpu_semaphore_get_custom_info_addr(rd->sem, idx, &p));
		const struct binfo *bi = (const struct binfo *)p;
		if (bi->batch != rd->batches)
			rd->order_ok = 0;
		rd->packets += bi->packets;
		rd->bytes += bi->bytes;
		rd->batches++;
		GT_OK(gnio_gpu_semaphore_set_status(rd->sem, idx, GNIO_GPU_SEMAPHORE_STATUS_FREE));
	}
	return NULL;
}

int main(void)
{
	struct gnio_gpu *g = gt_gpu_open(NULL, 0);
	struct gt_rig rig;
	struct gt_rig_cfg rc;

	gt_rig_cfg_init(&rc, "gt_sem");
	GT_OK(gt_rig_open(&rig, g, &rc));

	struct gnio_gpu_semaphore *sem;
	struct gnio_gpu_semaphore_gpu *semh;
	GT_OK(gnio_gpu_semaphore_create(g, &sem));
	GT_OK(gnio_gpu_semaphore_set_memory_type(sem, GNIO_GPU_MEM_TYPE_CPU_GPU));
	GT_OK(gnio_gpu_semaphore_set_items_num(sem, ITEMS));
	GT_OK(gnio_gpu_semaphore_set_custom_info(sem, sizeof(struct binfo), GNIO_GPU_MEM_TYPE_CPU_GPU));
	GT_OK(gnio_gpu_semaphore_start(sem));
	GT_OK(gnio_gpu_semaphore_get_gpu_handle(sem, &semh));
	for (uint32_t i = 0; i < ITEMS; i++) {
		enum gnio_gpu_semaphore_status st;
		GT_OK(gnio_gpu_semaphore_get_status(sem, i, &st));
		GT_CHECK(st == GNIO_GPU_SEMAPHORE_STATUS_FREE, "item %u starts %d", i, (int)st);
	}

	struct gnio_runner *r;
	struct sargs a = {rig.rxh, semh};
	GT_OK(gnio_runner_create(g, &r));
	GT_OK(gnio_runner_start(r, sem_launch, &a));

	const uint64_t per = 1000;
	struct reader rd;
	memset(&rd, 0, sizeof(rd));
	rd.sem = sem;
	rd.want_packets = 3 * per;
	pthread_t th;
	GT_CHECK(pthread_create(&th, NULL, reader_main, &rd) == 0, "pthread_create");

	uint64_t bytes = 0;
	const uint32_t sizes[3] = {64, 700, 1400};
	for (int i = 0; i < 3; i++) {
		struct gnio_gen_cfg cfg = gt_gen_cfg(GNIO_GEN_UDP, sizes[i]);
		bytes += gt_send_gen(&rig, &cfg, i * per, per);
	}
	pthread_join(th, NULL);
	GT_OK(gnio_runner_stop(r, 2000));
	printf("CPU thread got %llu batches: %llu frames, %llu bytes (wire offered %llu frames, %llu bytes)\n",
	       (unsigned long long)rd.batches, (unsigned long long)rd.packets, (unsigned long long)rd.bytes,
	       (unsigned long long)(3 * per), (unsigned long long)bytes);
	GT_CHECK(!rd.timed_out, "reader timed out");
	GT_CHECK(rd.order_ok, "batches out of order or lost");
	GT_CHECK(rd.packets == 3 * per && rd.bytes == bytes, "sums differ");
	GT_CHECK(rd.batches > 1, "only one batch");

	/* Destroy is refused while a kernel runs; fine once stopped. */
	GT_OK(gnio_runner_destroy(r));
	GT_OK(gnio_gpu_semaphore_destroy(sem));
	return gt_rig_pass(&rig);
}
