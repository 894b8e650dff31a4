/* SPDX-License-Identifier: MIT */
/* tests/unit/test_poll_mode.c - the proxies' polling modes on the CPU device
 * over sw: gnio_dev_set_poll_mode's contract; in adaptive mode an idle
 * queue's proxies really sleep (their CPU time over an idle half second is a
 * small fraction of it), and frames that arrive while they sleep are still
 * all echoed, each one woken for, with the books exact. Rates and latencies
 * are bench/idle_cpu.sh's and gnio_latency_bench's business, not this test's. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "testutil.h"

#define ROUNDS 20u

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
	nanosleep(&ts, NULL);
}

/* utime + stime (clock ticks) of this process's thread named `name`, or -1. */
static long thread_ticks(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	long ticks = -1;
	while (d && (e = readdir(d))) {
		char path[300], comm[32] = "", buf[1024];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		if (strcmp(comm, name))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f)) {
			const char *p = strrchr(buf, ')');
			unsigned long ut = 0, st = 0;
			/* after ") ": state ppid pgrp session tty tpgid flags minflt
			 * cminflt majflt cmajflt utime stime */
			if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
				ticks = (long)(ut + st);
		}
		if (f)
			fclose(f);
		break;
	}
	if (d)
		closedir(d);
	return ticks;
}

static void test_contract(void **state)
{
	(void)state;
	struct gnio_dev *dev;
	enum gnio_poll_mode m = GNIO_POLL_BUSY;
	assert_ok(gnio_dev_open("sw:poll_contract", &dev));
	assert_ok(gnio_dev_get_poll_mode(dev, &m));
	assert_int_equal(m, GNIO_POLL_ADAPTIVE);
	assert_gnio(gnio_dev_set_poll_mode(NULL, GNIO_POLL_BUSY), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_dev_set_poll_mode(dev, (enum gnio_poll_mode)7), GNIO_ERROR_INVALID_VALUE);
	assert_true(strstr(gnio_last_error_msg(), "adaptive or busy") != NULL);
	assert_gnio(gnio_dev_get_poll_mode(dev, NULL), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_dev_set_poll_mode(dev, GNIO_POLL_BUSY));
	assert_ok(gnio_dev_get_poll_mode(dev, &m));
	assert_int_equal(m, GNIO_POLL_BUSY);
	assert_ok(gnio_dev_close(dev));
}

static void test_adaptive_sleeps_and_wakes(void **state)
{
	(void)state;
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, "sw:poll_adaptive");
	c.with_tx = 1;
	c.poll_mode = GNIO_POLL_ADAPTIVE;
	assert_ok(tpipe_up(&p, &c));
	assert_ok(tpipe_launch(&p, "echo"));

	/* Idle: past the spin and yield phases, the proxies nap. */
	sleep_ms(100);
	const long hz = sysconf(_SC_CLK_TCK);
	long rx0 = thread_ticks("gnio-rx0"), tx0 = thread_ticks("gnio-tx0");
	assert_true(rx0 >= 0 && tx0 >= 0);
	sleep_ms(500);
	long rx1 = thread_ticks("gnio-rx0"), tx1 = thread_ticks("gnio-tx0");
	/* Half a second idle: a spinning proxy would use ~50 ticks of 100. A
	 * sleeping one uses about 1; allow 10 for a loaded machine. */
	assert_true((rx1 - rx0) * 100 / hz <= 10);
	assert_true((tx1 - tx0) * 100 / hz <= 10);

	/* Frames that arrive while both proxies sleep: each is echoed. */
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	uint8_t f[2048], back[2048];
	for (uint32_t i = 0; i < ROUNDS; i++) {
		sleep_ms(30); /* long enough for the proxies to be asleep again */
		uint32_t len = gnio_gen_build(&g, i, f, sizeof(f));
		assert_ok(gnio_sw_peer_send(p.peer, 0, f, len));
		uint32_t got = 0;
		uint64_t ts, t0 = test_now_ns();
		gnio_error_t e;
		while ((e = gnio_sw_peer_recv(p.peer, 0, back, sizeof(back), &got, &ts)) == GNIO_ERROR_EMPTY &&
		       test_now_ns() - t0 < 5000000000ull)
			sleep_ms(1);
		assert_ok(e);
		assert_int_equal(got, len);
		assert_memory_equal(back, f + 6, 6); /* MACs swapped */
		assert_memory_equal(back + 6, f, 6);
		assert_memory_equal(back + 12, f + 12, len - 12);
	}
	assert_true(tpipe_wait_packets(&p, ROUNDS, 5000));
	struct gnio_eth_rxq_stats rs;
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, &rs));
	assert_int_equal(rs.rx_packets, ROUNDS);
	assert_int_equal(rs.dropped_total, 0);
	tpipe_down(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contract),
		cmocka_unit_test(test_adaptive_sleeps_and_wakes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
