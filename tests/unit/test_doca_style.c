/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_doca_style.c - the DOCA-style ICMP echo kernel of
 * tests/gpu/test_gpu_doca_style.cu on the CPU device: the same device calls
 * in C, at thread scope (on the CPU device the warp and block forms are the
 * thread form), run by a gnio_runner; the same host half (tests/util/
 * doca_style.h): explicit bring-up, echo requests and other frames over sw,
 * every reply checked on the far side, the semaphore's per-batch stats, the
 * notifications and the queues' counters all equal to what was sent.
 */
#include <sched.h>
#include "testutil.h"
#include "doca_style.h"

/* The kernel body: what the CUDA kernel does, one thread doing it all. */
static gnio_error_t icmp_echo_body(const struct gnio_runner_launch *l)
{
	const struct ds_kargs *a = l->user;
	uint32_t *exit_cond = a->exit_cond;
	struct gnio_gpu_eth_rxq *rxq = a->rxq;
	struct gnio_gpu_eth_txq *txq = a->txq;
	struct gnio_gpu_semaphore_gpu *sem = a->sem;
	uint64_t out_first_pkt_idx;
	uint32_t out_pkt_num;
	struct gnio_gpu_dev_eth_rxq_attr out_attr[DS_MAX_RX];
	const uint32_t rx_mkey = gnio_gpu_dev_eth_rxq_get_pkt_mkey(rxq);
	uint32_t sem_idx = 0;
	uint64_t batch = 0;
	gnio_error_t ret;

	/* The runner's own stop flag too: a failed test must not leave this
	 * thread behind. */
	while (GNIO_GPUNETIO_VOLATILE(*exit_cond) == DS_EXIT_RUN && !gnio_gpu_dev_kernel_should_stop(l->ctl)) {
		struct ds_info st;
		memset(&st, 0, sizeof(st));
		ret = gnio_gpu_dev_eth_rxq_recv_block(rxq, DS_MAX_RX, DS_TIMEOUT_NS, &out_first_pkt_idx, &out_pkt_num,
						      out_attr);
		if (ret != GNIO_SUCCESS) {
			GNIO_GPUNETIO_VOLATILE(*exit_cond) = DS_EXIT_ERROR;
			break;
		}
		if (out_pkt_num == 0)
			continue;
		for (uint32_t i = 0; i < out_pkt_num; i++) {
			const uint64_t addr = gnio_gpu_dev_eth_rxq_get_pkt_addr(rxq, out_first_pkt_idx + i);
			const uint32_t bytes = out_attr[i].bytes;
			if (bytes != gnio_gpu_dev_eth_rxq_get_pkt_bytes(rxq, out_first_pkt_idx + i))
				st.attr_mismatch++;
			st.bytes += bytes;
			const uint32_t nbytes = gnio_icmp_echo_reply_in_place((uint8_t *)(uintptr_t)addr, bytes, 0);
			if (nbytes == 0) {
				st.ignored++;
				continue;
			}
			gnio_gpu_dev_eth_ticket_t ticket;
			while ((ret = gnio_gpu_dev_eth_txq_send_thread(txq, addr, rx_mkey, nbytes,
								       GNIO_GPUNETIO_ETH_SEND_FLAG_NOTIFY, &ticket)) ==
				       GNIO_ERROR_AGAIN &&
			       GNIO_GPUNETIO_VOLATILE(*exit_cond) == DS_EXIT_RUN) {
				st.again++; /* gnio: retry a full ring */
				sched_yield();
			}
			if (ret == GNIO_SUCCESS) {
				st.replies++;
				st.reply_bytes += nbytes;
			} else {
				st.send_errors++;
			}
		}
		enum gnio_gpu_semaphore_status status = GNIO_GPU_SEMAPHORE_STATUS_READY;
		while (gnio_gpu_dev_semaphore_get_status(sem, sem_idx, &status) == GNIO_SUCCESS &&
		       status != GNIO_GPU_SEMAPHORE_STATUS_FREE && GNIO_GPUNETIO_VOLATILE(*exit_cond) == DS_EXIT_RUN)
			sched_yield();
		if (status != GNIO_GPU_SEMAPHORE_STATUS_FREE)
			break;
		struct ds_info *info = NULL;
		if (gnio_gpu_dev_semaphore_get_custom_info_addr(sem, sem_idx, (void **)&info) != GNIO_SUCCESS) {
			GNIO_GPUNETIO_VOLATILE(*exit_cond) = DS_EXIT_ERROR;
			break;
		}
		st.batch = batch++;
		st.pkts = out_pkt_num;
		*info = st;
		gnio_gpu_dev_semaphore_set_status(sem, sem_idx, GNIO_GPU_SEMAPHORE_STATUS_READY);
		sem_idx = (sem_idx + 1) % DS_SEM_ITEMS;
	}
	gnio_gpu_dev_eth_rxq_release_block(rxq); /* gnio: hand the last batch back */
	return GNIO_SUCCESS;
}

static int runner_alive(void *user)
{
	return gnio_runner_get_state(user) == GNIO_RUNNER_RUNNING;
}

static void test_doca_style_icmp_echo_cpu(void **state)
{
	(void)state;
	static struct ds_env e;
	struct gnio_gpu *gpu;
	struct gnio_runner *r;

	assert_ok(gnio_gpu_create("cpu", &gpu));
	if (ds_up(&e, gpu, "doca_style", 6000))
		fail_msg("bring-up: %s", e.why);
	assert_ok(gnio_runner_create(gpu, &r));
	e.alive = runner_alive;
	e.alive_user = r;
	assert_ok(gnio_runner_start(r, icmp_echo_body, &e.kargs));
	int bad = ds_run(&e);
	ds_stop(&e);
	assert_ok(gnio_runner_stop(r, 5000));
	if (bad)
		fail_msg("%s", e.why);
	if (ds_check_books(&e))
		fail_msg("%s", e.why);
	ds_report(&e, "CPU device, thread-scope send");
	assert_ok(gnio_runner_destroy(r));
	if (ds_down(&e))
		fail_msg("teardown: %s", e.why);
	assert_ok(gnio_gpu_destroy(gpu));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doca_style_icmp_echo_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
