/* SPDX-License-Identifier: MIT */
/* tests/unit/test_metrics.c - the Prometheus endpoint module
 * (tools/gnio/metrics.c): the text the writer produces, byte for byte,
 * including escaping; every writer misuse refused with a reason; the server
 * on loopback scraped with curl and checked by `promtool check metrics`; the
 * collector called once per scrape; 404/405/500; one-line errors for bad
 * addresses and a port in use; nothing left open after stop. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>
#include "testutil.h"
#include "metrics.h"

/* ------------------------------------------------------- collectors -- */

/* Written by the server's thread, read by the test's: atomics (the curl in
 * between orders them in fact, but through a socket ThreadSanitizer cannot
 * see). */
struct fake {
	unsigned calls;   /* collect callbacks so far */
	uint64_t rx;      /* what the "pipeline" has counted */
};

static unsigned calls_of(struct fake *f) { return __atomic_load_n(&f->calls, __ATOMIC_ACQUIRE); }

/* What gnio run will expose, with made-up values, one of each shape. */
static void fake_collect(struct metrics_writer *w, void *user)
{
	struct fake *f = user;
	__atomic_add_fetch(&f->calls, 1, __ATOMIC_RELEASE);
	uint64_t rx = __atomic_load_n(&f->rx, __ATOMIC_ACQUIRE);
	metrics_family(w, "gnio_rx_packets_total", METRICS_COUNTER, "Frames handed to the kernel.");
	metrics_u64(w, rx, METRICS_LABELS({"queue", "0"}, {"wire", "sw:demo"}));
	metrics_u64(w, rx / 2, METRICS_LABELS({"queue", "1"}, {"wire", "sw:demo"}));
	/* promtool must accept the escaped quote, backslash and newline */
	metrics_u64(w, 5, METRICS_LABELS({"queue", "2"}, {"wire", "pcap:/tmp/we\"ird\\name\nx"}));
	metrics_family(w, "gnio_rx_dropped_total", METRICS_COUNTER, "Frames dropped, by reason.");
	metrics_u64(w, 3, METRICS_LABELS({"queue", "0"}, {"reason", "ring_full"}));
	metrics_u64(w, 0, METRICS_LABELS({"queue", "0"}, {"reason", "runt"}));
	metrics_family(w, "gnio_kernel_heartbeat_age_seconds", METRICS_GAUGE, "Seconds since the kernel's last beat.");
	metrics_dbl(w, 0.25, METRICS_LABELS({"queue", "0"}));
	metrics_family(w, "gnio_gpu_utilization_ratio", METRICS_GAUGE, "GPU busy fraction (NVML), 0..1.");
	metrics_dbl(w, 0.5, METRICS_LABELS({"gpu", "0000:17:00.0"}));
	metrics_family(w, "gnio_build_info", METRICS_GAUGE, "Build facts; the value is always 1.");
	metrics_u64(w, 1, METRICS_LABELS({"version", "0.1.0"}, {"cuda", "no"}));
}

static void collect_escapes(struct metrics_writer *w, void *user)
{
	(void)user;
	metrics_family(w, "x_total", METRICS_COUNTER, "help with \\ and\nnewline");
	metrics_u64(w, 7, METRICS_LABELS({"wire", "pcap:/tmp/a\"b\\c\nd"}));
	metrics_family(w, "g", METRICS_GAUGE, "");
	metrics_dbl(w, -1.5, METRICS_NO_LABELS);
	metrics_dbl(w, 1.0 / 0.0, METRICS_LABELS({"k", "inf"}));
	metrics_dbl(w, 0.0 / 0.0, METRICS_LABELS({"k", "nan"}));
}

static void test_render_exact_text(void **state)
{
	(void)state;
	char *body, err[256];
	size_t len;
	assert_int_equal(metrics_render(collect_escapes, NULL, &body, &len, err, sizeof(err)), 0);
	const char *want = "# HELP x_total help with \\\\ and\\nnewline\n"
			   "# TYPE x_total counter\n"
			   "x_total{wire=\"pcap:/tmp/a\\\"b\\\\c\\nd\"} 7\n"
			   "# HELP g \n"
			   "# TYPE g gauge\n"
			   "g -1.5\n"
			   "g{k=\"inf\"} +Inf\n"
			   "g{k=\"nan\"} NaN\n";
	assert_string_equal(body, want);
	assert_int_equal(len, strlen(want));
	free(body);
}

/* ----------------------------------------------------- writer misuse -- */

struct misuse {
	const char *why; /* expected in the error */
	void (*fn)(struct metrics_writer *w);
};

static void m_counter_no_total(struct metrics_writer *w) { metrics_family(w, "gnio_rx_packets", METRICS_COUNTER, "h"); }
static void m_gauge_total(struct metrics_writer *w) { metrics_family(w, "gnio_x_total", METRICS_GAUGE, "h"); }
static void m_bad_name(struct metrics_writer *w) { metrics_family(w, "9lives", METRICS_GAUGE, "h"); }
static void m_dash_name(struct metrics_writer *w) { metrics_family(w, "rx-packets", METRICS_GAUGE, "h"); }
static void m_no_family(struct metrics_writer *w) { metrics_u64(w, 1, METRICS_NO_LABELS); }
static void m_twice(struct metrics_writer *w)
{
	metrics_family(w, "a", METRICS_GAUGE, "h");
	metrics_family(w, "a", METRICS_GAUGE, "h");
}
static void m_bad_label(struct metrics_writer *w)
{
	metrics_family(w, "a", METRICS_GAUGE, "h");
	metrics_u64(w, 1, METRICS_LABELS({"bad-label", "x"}));
}
static void m_reserved_label(struct metrics_writer *w)
{
	metrics_family(w, "a", METRICS_GAUGE, "h");
	metrics_u64(w, 1, METRICS_LABELS({"__name__", "x"}));
}
static void m_dup_label(struct metrics_writer *w)
{
	metrics_family(w, "a", METRICS_GAUGE, "h");
	metrics_u64(w, 1, METRICS_LABELS({"queue", "0"}, {"queue", "1"}));
}
static void m_null_value(struct metrics_writer *w)
{
	metrics_family(w, "a", METRICS_GAUGE, "h");
	metrics_u64(w, 1, METRICS_LABELS({"queue", NULL}));
}
static void m_negative_counter(struct metrics_writer *w)
{
	metrics_family(w, "a_total", METRICS_COUNTER, "h");
	metrics_dbl(w, -1, METRICS_NO_LABELS);
}
static void m_nan_counter(struct metrics_writer *w)
{
	metrics_family(w, "a_total", METRICS_COUNTER, "h");
	metrics_dbl(w, 0.0 / 0.0, METRICS_NO_LABELS);
}

static void run_misuse(struct metrics_writer *w, void *user)
{
	((const struct misuse *)user)->fn(w);
	/* whatever follows a mistake is not written */
	metrics_family(w, "after_total", METRICS_COUNTER, "h");
	metrics_u64(w, 1, METRICS_NO_LABELS);
}

static void test_writer_refuses_misuse(void **state)
{
	(void)state;
	static const struct misuse cases[] = {
		{"must end in _total", m_counter_no_total}, {"marks counters", m_gauge_total},
		{"'9lives' is not", m_bad_name},            {"'rx-packets' is not", m_dash_name},
		{"before any metrics_family", m_no_family}, {"written twice", m_twice},
		{"'bad-label'", m_bad_label},               {"starts with __", m_reserved_label},
		{"'queue' given twice", m_dup_label},       {"has no value", m_null_value},
		{"never negative", m_negative_counter},     {"never negative or NaN", m_nan_counter},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *body = (char *)1, err[256] = "";
		size_t len = 99;
		int rc = metrics_render(run_misuse, (void *)&cases[i], &body, &len, err, sizeof(err));
		if (rc != -1 || body || len || !strstr(err, cases[i].why))
			fail_msg("case %zu: rc %d, err '%s', expected '%s'", i, rc, err, cases[i].why);
	}
}

/* ----------------------------------------------------------- server -- */

static int have(const char *tool)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* Run a shell command, return its exit status and its stdout (malloc'd). */
static int sh(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	assert_non_null(p);
	assert_non_null(m);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(m);
	int st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_scrape_promtool(void **state)
{
	(void)state;
	if (!have("curl") || !have("promtool"))
		fail_msg("curl and promtool are needed (Debian packages curl and prometheus; scripts/bootstrap)");
	struct fake f = {.rx = 1000};
	struct metrics_server *s;
	int fds = open_fds();
	assert_ok(metrics_server_start("127.0.0.1:0", fake_collect, &f, &s));
	char addr[64]; /* kept past metrics_server_stop() */
	snprintf(addr, sizeof(addr), "%s", metrics_server_address(s));
	assert_true(strncmp(addr, "127.0.0.1:", 10) == 0);
	assert_true(atoi(addr + 10) > 0);

	char cmd[512], *out;
	snprintf(cmd, sizeof(cmd), "curl -sfS http://%s/metrics | promtool check metrics 2>&1", addr);
	int rc = sh(cmd, &out);
	if (rc != 0)
		fail_msg("promtool check metrics failed (%d): %s", rc, out);
	free(out);
	assert_int_equal(calls_of(&f), 1);

	/* Each scrape calls the collector once and sees the current value. */
	__atomic_store_n(&f.rx, 4242, __ATOMIC_RELEASE);
	snprintf(cmd, sizeof(cmd), "curl -sfS -D /dev/stderr http://%s/metrics 2>&1", addr);
	assert_int_equal(sh(cmd, &out), 0);
	assert_int_equal(calls_of(&f), 2);
	assert_non_null(strstr(out, "gnio_rx_packets_total{queue=\"0\",wire=\"sw:demo\"} 4242\n"));
	assert_non_null(strstr(out, "gnio_rx_packets_total{queue=\"1\",wire=\"sw:demo\"} 2121\n"));
	assert_non_null(strstr(out, "gnio_rx_packets_total{queue=\"2\",wire=\"pcap:/tmp/we\\\"ird\\\\name\\nx\"} 5\n"));
	assert_non_null(strstr(out, "# TYPE gnio_rx_dropped_total counter\n"));
	assert_non_null(strstr(out, "Content-Type: text/plain; version=0.0.4; charset=utf-8"));
	free(out);

	/* Other paths and methods; neither calls the collector. */
	snprintf(cmd, sizeof(cmd), "curl -s -o /dev/null -w '%%{http_code}' http://%s/nope", addr);
	assert_int_equal(sh(cmd, &out), 0);
	assert_string_equal(out, "404");
	free(out);
	snprintf(cmd, sizeof(cmd), "curl -s -o /dev/null -w '%%{http_code}' -X POST -d x=1 http://%s/metrics", addr);
	assert_int_equal(sh(cmd, &out), 0);
	assert_string_equal(out, "405");
	free(out);
	snprintf(cmd, sizeof(cmd), "curl -sfS -I http://%s/metrics", addr);
	assert_int_equal(sh(cmd, &out), 0);
	assert_non_null(strstr(out, "200 OK"));
	free(out);
	assert_int_equal(calls_of(&f), 3); /* the HEAD ran the collector, not the 404/405 */
	assert_int_equal(metrics_server_requests(s), 5);

	metrics_server_stop(s);
	assert_int_equal(open_fds(), fds);
	/* the port is closed */
	snprintf(cmd, sizeof(cmd), "curl -s -o /dev/null http://%s/metrics", addr);
	assert_int_not_equal(sh(cmd, NULL), 0);
}

/* The process's threads now (tids), at most max; returns how many. */
static int thread_ids(long *ids, int max)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	assert_non_null(d);
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.')
			ids[n++] = atol(e->d_name);
	closedir(d);
	return n;
}

/* Context switches of the threads that are not in old[] (those the server
 * started: not the caller, nor a sanitizer runtime's own thread, which
 * wakes on its own schedule). */
static long new_threads_switches(const long *old, int nold)
{
	char path[300], line[128];
	long ids[64], sum = 0;
	int n = thread_ids(ids, 64);
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < nold; j++)
			seen |= ids[i] == old[j];
		if (seen)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%ld/status", ids[i]);
		FILE *f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, "ctxt_switches:"))
				sum += atol(strchr(line, ':') + 1);
		if (f)
			fclose(f);
	}
	return sum;
}

/* Between scrapes the server thread sleeps in the kernel: it does not wake
 * up at all, so it takes nothing from the cores the pipeline runs on. */
static void test_idle_server_sleeps(void **state)
{
	(void)state;
	struct fake f = {0};
	struct metrics_server *s;
	long old[64];
	int nold = thread_ids(old, 64);
	assert_ok(metrics_server_start("127.0.0.1:0", fake_collect, &f, &s));
	struct timespec settle = {0, 200 * 1000000L}, idle = {1, 0};
	nanosleep(&settle, NULL);
	long before = new_threads_switches(old, nold);
	nanosleep(&idle, NULL);
	long after = new_threads_switches(old, nold);
	metrics_server_stop(s);
	if (after != before)
		fail_msg("the idle server thread was switched %ld times in 1 s", after - before);
	assert_int_equal(calls_of(&f), 0);
}

static void bad_collect(struct metrics_writer *w, void *user)
{
	(void)user;
	metrics_family(w, "gnio_rx_packets", METRICS_COUNTER, "no _total");
}

static void test_writer_error_is_http_500(void **state)
{
	(void)state;
	struct metrics_server *s;
	char cmd[256], *out;
	assert_ok(metrics_server_start("0", bad_collect, NULL, &s)); /* just a port: loopback */
	assert_true(strncmp(metrics_server_address(s), "127.0.0.1:", 10) == 0);
	snprintf(cmd, sizeof(cmd), "curl -s -w ' %%{http_code}' http://%s/metrics", metrics_server_address(s));
	assert_int_equal(sh(cmd, &out), 0);
	assert_string_equal(out, "gnio metrics: counter 'gnio_rx_packets' must end in _total\n 500");
	free(out);
	metrics_server_stop(s);
}

static void test_ipv6_loopback(void **state)
{
	(void)state;
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	int v6 = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	if (!v6) {
		printf("# no IPv6 loopback here: [::1] not checked\n");
		return;
	}
	struct fake f = {0};
	struct metrics_server *s;
	char cmd[256];
	assert_ok(metrics_server_start("[::1]:0", fake_collect, &f, &s));
	assert_true(strncmp(metrics_server_address(s), "[::1]:", 6) == 0);
	snprintf(cmd, sizeof(cmd), "curl -sfS -g -o /dev/null http://%s/metrics", metrics_server_address(s));
	assert_int_equal(sh(cmd, NULL), 0);
	assert_int_equal(calls_of(&f), 1);
	metrics_server_stop(s);
}

static void test_bad_addresses(void **state)
{
	(void)state;
	static const struct {
		const char *addr;
		gnio_error_t e;
		const char *why;
	} cases[] = {
		{"", GNIO_ERROR_INVALID_VALUE, "empty"},
		{"abc", GNIO_ERROR_INVALID_VALUE, "port 'abc' is not a number 0..65535"},
		{"127.0.0.1:", GNIO_ERROR_INVALID_VALUE, "port '' is not a number"},
		{"127.0.0.1:65536", GNIO_ERROR_INVALID_VALUE, "port '65536' is not a number 0..65535"},
		{"127.0.0.1:-1", GNIO_ERROR_INVALID_VALUE, "port '-1'"},
		{":9100", GNIO_ERROR_INVALID_VALUE, "has no host: give 127.0.0.1:9100"},
		{"::1:9100", GNIO_ERROR_INVALID_VALUE, "[ADDR]:PORT"},
		{"[::1:9100", GNIO_ERROR_INVALID_VALUE, "[ADDR]:PORT"},
		{"no-such-host.invalid:9100", GNIO_ERROR_NOT_FOUND, "cannot resolve 'no-such-host.invalid'"},
		{"192.0.2.1:9100", GNIO_ERROR_NOT_FOUND, "no interface of this host has that address"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct metrics_server *s = (struct metrics_server *)1;
		gnio_error_t e = metrics_server_start(cases[i].addr, fake_collect, NULL, &s);
		const char *msg = metrics_last_error();
		if (e != cases[i].e || s || !strstr(msg, cases[i].why) || strchr(msg, '\n'))
			fail_msg("'%s': %s '%s', expected %s '%s'", cases[i].addr, gnio_error_get_name(e), msg,
				 gnio_error_get_name(cases[i].e), cases[i].why);
	}
}

static void test_port_in_use(void **state)
{
	(void)state;
	struct metrics_server *a, *b = (struct metrics_server *)1;
	assert_ok(metrics_server_start("127.0.0.1:0", fake_collect, NULL, &a));
	char addr[64]; /* kept past metrics_server_stop() */
	snprintf(addr, sizeof(addr), "%s", metrics_server_address(a));
	assert_gnio(metrics_server_start(addr, fake_collect, NULL, &b), GNIO_ERROR_IN_USE);
	assert_null(b);
	assert_non_null(strstr(metrics_last_error(), "already in use"));
	assert_non_null(strstr(metrics_last_error(), addr));
	metrics_server_stop(a);
	/* and free again once the first one stopped */
	assert_ok(metrics_server_start(addr, fake_collect, NULL, &b));
	metrics_server_stop(b);
	metrics_server_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_exact_text),
		cmocka_unit_test(test_writer_refuses_misuse),
		cmocka_unit_test(test_scrape_promtool),
		cmocka_unit_test(test_writer_error_is_http_500),
		cmocka_unit_test(test_idle_server_sleeps),
		cmocka_unit_test(test_ipv6_loopback),
		cmocka_unit_test(test_bad_addresses),
		cmocka_unit_test(test_port_in_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
