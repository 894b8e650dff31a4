/* SPDX-License-Identifier: MIT */
/* tests/unit/test_error_log.c - error names/descriptions and the logging
 * front end: level parsing, GNIO_LOG_LEVEL read once, replaceable sink,
 * component prefix, level filtering, DISABLE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testutil.h"

/* ------------------------------------------------------------ errors -- */

static void test_error_names_distinct(void **state)
{
	(void)state;
	for (int i = 0; i < GNIO_ERROR_COUNT_; i++) {
		const char *n = gnio_error_get_name((gnio_error_t)i);
		const char *d = gnio_error_get_descr((gnio_error_t)i);
		assert_non_null(n);
		assert_non_null(d);
		assert_true(strlen(n) > 0);
		assert_true(strlen(d) > 0);
		assert_true(strncmp(n, "GNIO_", 5) == 0);
		assert_string_not_equal(n, "GNIO_ERROR_UNRECOGNIZED");
		for (int j = 0; j < i; j++) {
			if (!strcmp(n, gnio_error_get_name((gnio_error_t)j)))
				fail_msg("codes %d and %d share the name %s", i, j, n);
			if (!strcmp(d, gnio_error_get_descr((gnio_error_t)j)))
				fail_msg("codes %d and %d share the description '%s'", i, j, d);
		}
	}
}

static void test_error_names_doca(void **state)
{
	(void)state;
	/* The DOCA names that ported code relies on. */
	static const struct {
		gnio_error_t e;
		const char *name;
	} tab[] = {
		{GNIO_SUCCESS, "GNIO_SUCCESS"},
		{GNIO_ERROR_UNKNOWN, "GNIO_ERROR_UNKNOWN"},
		{GNIO_ERROR_NOT_PERMITTED, "GNIO_ERROR_NOT_PERMITTED"},
		{GNIO_ERROR_IN_USE, "GNIO_ERROR_IN_USE"},
		{GNIO_ERROR_NOT_SUPPORTED, "GNIO_ERROR_NOT_SUPPORTED"},
		{GNIO_ERROR_AGAIN, "GNIO_ERROR_AGAIN"},
		{GNIO_ERROR_INVALID_VALUE, "GNIO_ERROR_INVALID_VALUE"},
		{GNIO_ERROR_NO_MEMORY, "GNIO_ERROR_NO_MEMORY"},
		{GNIO_ERROR_INITIALIZATION, "GNIO_ERROR_INITIALIZATION"},
		{GNIO_ERROR_TIME_OUT, "GNIO_ERROR_TIME_OUT"},
		{GNIO_ERROR_SHUTDOWN, "GNIO_ERROR_SHUTDOWN"},
		{GNIO_ERROR_NOT_FOUND, "GNIO_ERROR_NOT_FOUND"},
		{GNIO_ERROR_BAD_STATE, "GNIO_ERROR_BAD_STATE"},
		{GNIO_ERROR_DRIVER, "GNIO_ERROR_DRIVER"},
		{GNIO_ERROR_FULL, "GNIO_ERROR_FULL"},
		{GNIO_ERROR_EMPTY, "GNIO_ERROR_EMPTY"},
		{GNIO_ERROR_TOO_BIG, "GNIO_ERROR_TOO_BIG"},
		{GNIO_ERROR_DEVICE_FATAL_ERROR, "GNIO_ERROR_DEVICE_FATAL_ERROR"},
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		assert_string_equal(gnio_error_get_name(tab[i].e), tab[i].name);
}

static void test_error_unknown_codes(void **state)
{
	(void)state;
	gnio_error_t bad[] = {GNIO_ERROR_COUNT_, (gnio_error_t)(GNIO_ERROR_COUNT_ + 1), (gnio_error_t)1000,
			      (gnio_error_t)-1};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *n = gnio_error_get_name(bad[i]);
		const char *d = gnio_error_get_descr(bad[i]);
		assert_non_null(n);
		assert_non_null(d);
		assert_true(strlen(n) > 0 && strlen(d) > 0);
		/* Must not alias a real code's name. */
		for (int j = 0; j < GNIO_ERROR_COUNT_; j++)
			assert_string_not_equal(n, gnio_error_get_name((gnio_error_t)j));
	}
}

/* ----------------------------------------------------- level parsing -- */

static void test_level_parse_names(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		enum gnio_log_level level;
	} ok[] = {
		{"disable", GNIO_LOG_LEVEL_DISABLE}, {"DISABLE", GNIO_LOG_LEVEL_DISABLE},
		{"crit", GNIO_LOG_LEVEL_CRIT},       {"CRIT", GNIO_LOG_LEVEL_CRIT},
		{"error", GNIO_LOG_LEVEL_ERROR},     {"Error", GNIO_LOG_LEVEL_ERROR},
		{"warning", GNIO_LOG_LEVEL_WARNING}, {"WARN", GNIO_LOG_LEVEL_WARNING},
		{"info", GNIO_LOG_LEVEL_INFO},       {"iNfO", GNIO_LOG_LEVEL_INFO},
		{"debug", GNIO_LOG_LEVEL_DEBUG},     {"DEBUG", GNIO_LOG_LEVEL_DEBUG},
		{"trace", GNIO_LOG_LEVEL_TRACE},     {"TRACE", GNIO_LOG_LEVEL_TRACE},
		{"10", GNIO_LOG_LEVEL_DISABLE},      {"20", GNIO_LOG_LEVEL_CRIT},
		{"30", GNIO_LOG_LEVEL_ERROR},        {"40", GNIO_LOG_LEVEL_WARNING},
		{"50", GNIO_LOG_LEVEL_INFO},         {"60", GNIO_LOG_LEVEL_DEBUG},
		{"70", GNIO_LOG_LEVEL_TRACE},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		enum gnio_log_level l = (enum gnio_log_level)0;
		if (gnio_log_level_parse(ok[i].text, &l) != 0)
			fail_msg("'%s' was rejected", ok[i].text);
		if (l != ok[i].level)
			fail_msg("'%s' parsed as %d, expected %d", ok[i].text, (int)l, (int)ok[i].level);
	}
	/* Level names round-trip through the parser. */
	for (int v = GNIO_LOG_LEVEL_DISABLE; v <= GNIO_LOG_LEVEL_TRACE; v += 10) {
		enum gnio_log_level l;
		const char *name = gnio_log_level_name((enum gnio_log_level)v);
		assert_int_equal(gnio_log_level_parse(name, &l), 0);
		assert_int_equal(l, v);
	}
}

static void test_level_parse_junk(void **state)
{
	(void)state;
	const char *junk[] = {"", "  ", "verbose", "9", "71", "0", "-30", "100", "30x", "x30", "debug ",
			      "deb", "3 0", "0x1e", "info,debug"};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		enum gnio_log_level l = GNIO_LOG_LEVEL_INFO;
		if (gnio_log_level_parse(junk[i], &l) == 0)
			fail_msg("junk '%s' was accepted as %d", junk[i], (int)l);
		assert_int_equal(l, GNIO_LOG_LEVEL_INFO); /* untouched on failure */
	}
	enum gnio_log_level l;
	assert_int_not_equal(gnio_log_level_parse(NULL, &l), 0);
	assert_int_not_equal(gnio_log_level_parse("info", NULL), 0);
}

/* GNIO_LOG_LEVEL is read once, on first use: check it in a fresh child. */
static int level_in_child(const char *env)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (env)
			setenv("GNIO_LOG_LEVEL", env, 1);
		else
			unsetenv("GNIO_LOG_LEVEL");
		int l = (int)gnio_log_get_level();
		/* Read once: a later change of the variable is not seen. */
		setenv("GNIO_LOG_LEVEL", "trace", 1);
		if ((int)gnio_log_get_level() != l)
			_exit(1);
		_exit(l);
	}
	int st = 0;
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_level_from_env(void **state)
{
	(void)state;
	assert_int_equal(level_in_child(NULL), GNIO_LOG_LEVEL_ERROR); /* default */
	assert_int_equal(level_in_child("debug"), GNIO_LOG_LEVEL_DEBUG);
	assert_int_equal(level_in_child("WARNING"), GNIO_LOG_LEVEL_WARNING);
	assert_int_equal(level_in_child("70"), GNIO_LOG_LEVEL_TRACE);
	assert_int_equal(level_in_child("disable"), GNIO_LOG_LEVEL_DISABLE);
	assert_int_equal(level_in_child("garbage"), GNIO_LOG_LEVEL_ERROR); /* ignored */
}

/* ------------------------------------------------------------- sink -- */

#define MAX_LINES 64
struct sink_rec {
	int n;
	enum gnio_log_level level[MAX_LINES];
	char comp[MAX_LINES][32];
	char line[MAX_LINES][160];
};

static void sink(void *user, enum gnio_log_level level, const char *component, const char *line)
{
	struct sink_rec *r = user;
	if (r->n >= MAX_LINES)
		return;
	r->level[r->n] = level;
	snprintf(r->comp[r->n], sizeof(r->comp[0]), "%s", component ? component : "(null)");
	snprintf(r->line[r->n], sizeof(r->line[0]), "%s", line ? line : "(null)");
	r->n++;
}

static void write_all_levels(void)
{
	for (int v = GNIO_LOG_LEVEL_CRIT; v <= GNIO_LOG_LEVEL_TRACE; v += 10)
		gnio_log_write((enum gnio_log_level)v, "unit", "line at %d", v);
}

static void test_sink_filters_by_level(void **state)
{
	(void)state;
	struct sink_rec r;
	memset(&r, 0, sizeof(r));
	enum gnio_log_level saved = gnio_log_get_level();
	gnio_log_set_sink(sink, &r);

	for (int lvl = GNIO_LOG_LEVEL_CRIT; lvl <= GNIO_LOG_LEVEL_TRACE; lvl += 10) {
		memset(&r, 0, sizeof(r));
		gnio_log_set_level((enum gnio_log_level)lvl);
		assert_int_equal(gnio_log_get_level(), lvl);
		write_all_levels();
		/* Exactly the levels at or below the set one, in order. */
		int expect = (lvl - GNIO_LOG_LEVEL_CRIT) / 10 + 1;
		assert_int_equal(r.n, expect);
		for (int i = 0; i < r.n; i++) {
			int v = GNIO_LOG_LEVEL_CRIT + 10 * i;
			char want[32];
			snprintf(want, sizeof(want), "line at %d", v);
			assert_int_equal(r.level[i], v);
			assert_string_equal(r.comp[i], "unit");
			assert_string_equal(r.line[i], want);
		}
	}

	/* A NULL component still gets a prefix. */
	memset(&r, 0, sizeof(r));
	gnio_log_set_level(GNIO_LOG_LEVEL_ERROR);
	gnio_log_write(GNIO_LOG_LEVEL_ERROR, NULL, "x");
	assert_int_equal(r.n, 1);
	assert_true(strlen(r.comp[0]) > 0);
	assert_string_not_equal(r.comp[0], "(null)");

	gnio_log_set_sink(NULL, NULL);
	gnio_log_set_level(saved);
}

static void test_disable_logs_nothing(void **state)
{
	(void)state;
	struct sink_rec r;
	memset(&r, 0, sizeof(r));
	enum gnio_log_level saved = gnio_log_get_level();
	gnio_log_set_sink(sink, &r);
	gnio_log_set_level(GNIO_LOG_LEVEL_DISABLE);
	write_all_levels();
	gnio_log_write(GNIO_LOG_LEVEL_DISABLE, "unit", "even at DISABLE itself");
	/* Library failures do not leak through either. */
	struct gnio_gpu *g = NULL;
	assert_gnio(gnio_gpu_create("0000:zz:00.0", &g), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(r.n, 0);
	gnio_log_set_sink(NULL, NULL);
	gnio_log_set_level(saved);
}

/* The library's own lines reach a replaced sink with their component. */
static void test_library_lines_reach_sink(void **state)
{
	(void)state;
	struct sink_rec r;
	memset(&r, 0, sizeof(r));
	enum gnio_log_level saved = gnio_log_get_level();
	gnio_log_set_sink(sink, &r);
	gnio_log_set_level(GNIO_LOG_LEVEL_DEBUG);
	struct gnio_gpu *g = NULL;
	assert_gnio(gnio_gpu_create("0000:zz:00.0", &g), GNIO_ERROR_INVALID_VALUE);
	assert_true(r.n >= 1);
	int found = 0;
	for (int i = 0; i < r.n; i++)
		if (!strcmp(r.comp[i], "gpu") && strstr(r.line[i], "0000:zz:00.0"))
			found = 1;
	assert_true(found);
	/* The same failure at ERROR level stays silent (it is reported through
	 * the return code and gnio_last_error_msg, not logged). */
	memset(&r, 0, sizeof(r));
	gnio_log_set_level(GNIO_LOG_LEVEL_ERROR);
	assert_gnio(gnio_gpu_create("0000:zz:00.0", &g), GNIO_ERROR_INVALID_VALUE);
	assert_int_equal(r.n, 0);
	assert_non_null(strstr(gnio_last_error_msg(), "0000:zz:00.0"));
	gnio_log_set_sink(NULL, NULL);
	gnio_log_set_level(saved);
}

/* Every failing public call says why, and every call starts clean: a reason
 * left by an earlier failure is never there after a call that worked. */
static void test_error_message_per_call(void **state)
{
	(void)state;
	struct gnio_gpu *gpu = NULL;
	struct gnio_dev *dev = NULL;
	struct gnio_eth_rxq *rxq = NULL;
	struct gnio_eth_txq *txq = NULL;
	struct gnio_buf_arr *arr = NULL;
	void *mem = NULL, *cpu;
	uint32_t max;
	/* Each of these fails; each must leave a one-line reason. */
	struct {
		gnio_error_t err;
		const char *what;
	} fails[] = {
		{gnio_gpu_create("zz:zz", &gpu), "gpu_create(bad id)"},
		{gnio_dev_open("nosuch:x", &dev), "dev_open(unknown wire)"},
		{gnio_eth_rxq_create(NULL, 1, 1518, &rxq), "eth_rxq_create(NULL)"},
		{gnio_eth_txq_create(NULL, 1, &txq), "eth_txq_create(NULL)"},
		{gnio_buf_arr_start(NULL), "buf_arr_start(NULL)"},
		{gnio_eth_rxq_cap_get_max_burst_size(NULL, &max), "rxq_cap(NULL)"},
		{gnio_ctx_get_state(NULL, NULL), "ctx_get_state(NULL)"},
		{gnio_gen_proto_parse("nope", NULL), "gen_proto_parse"},
		{gnio_sw_peer_close(NULL), "sw_peer_close(NULL)"},
		{gnio_pipeline_create(NULL, NULL), "pipeline_create(NULL)"},
	};
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++)
		assert_int_not_equal(fails[i].err, GNIO_SUCCESS);
	/* The reason is the last call's: check them one at a time. */
	assert_int_not_equal(gnio_gpu_create("zz:zz", &gpu), GNIO_SUCCESS);
	assert_non_null(strstr(gnio_last_error_msg(), "zz:zz"));
	assert_ok(gnio_gpu_create("cpu", &gpu));
	assert_string_equal(gnio_last_error_msg(), "");
	assert_int_not_equal(gnio_dev_open("nosuch:x", &dev), GNIO_SUCCESS);
	assert_true(gnio_last_error_msg()[0] != 0);
	assert_ok(gnio_dev_open("sw:errmsg", &dev));
	assert_string_equal(gnio_last_error_msg(), "");
	assert_gnio(gnio_eth_rxq_create(dev, 0, 1518, &rxq), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "burst"));
	assert_ok(gnio_eth_rxq_create(dev, 32, 1518, &rxq));
	assert_string_equal(gnio_last_error_msg(), "");
	assert_gnio(gnio_gpu_mem_alloc(gpu, 0, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu), GNIO_ERROR_INVALID_VALUE);
	assert_true(gnio_last_error_msg()[0] != 0);
	assert_ok(gnio_gpu_mem_alloc(gpu, 4096, 0, GNIO_GPU_MEM_TYPE_CPU_GPU, &mem, &cpu));
	assert_string_equal(gnio_last_error_msg(), "");
	assert_gnio(gnio_buf_arr_create(gpu, mem, 0, 1, &arr), GNIO_ERROR_INVALID_VALUE);
	assert_true(gnio_last_error_msg()[0] != 0);
	assert_ok(gnio_buf_arr_create(gpu, mem, 2048, 2, &arr));
	assert_string_equal(gnio_last_error_msg(), "");
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++) {
		/* Re-run each failure alone: its own reason, one line. */
		gnio_error_t e = GNIO_SUCCESS;
		switch (i) {
		case 0: e = gnio_gpu_create("zz:zz", &gpu); break;
		case 1: e = gnio_dev_open("nosuch:x", &dev); break;
		case 2: e = gnio_eth_rxq_create(NULL, 1, 1518, &rxq); break;
		case 3: e = gnio_eth_txq_create(NULL, 1, &txq); break;
		case 4: e = gnio_buf_arr_start(NULL); break;
		case 5: e = gnio_eth_rxq_cap_get_max_burst_size(NULL, &max); break;
		case 6: e = gnio_ctx_get_state(NULL, NULL); break;
		case 7: e = gnio_gen_proto_parse("nope", (enum gnio_gen_proto *)&max); break;
		case 8: e = gnio_sw_peer_close(NULL); break;
		case 9: e = gnio_pipeline_create(NULL, NULL); break;
		}
		assert_int_not_equal(e, GNIO_SUCCESS);
		if (!gnio_last_error_msg()[0] || strchr(gnio_last_error_msg(), '\n'))
			fail_msg("%s failed (%s) without a one-line reason", fails[i].what, gnio_error_get_name(e));
		/* ...and the next call that works clears it. */
		assert_ok(gnio_gen_proto_parse("udp", (enum gnio_gen_proto *)&max));
		assert_string_equal(gnio_last_error_msg(), "");
	}
	assert_ok(gnio_buf_arr_destroy(arr));
	assert_ok(gnio_gpu_mem_free(gpu, mem));
	assert_ok(gnio_eth_rxq_destroy(rxq));
	assert_ok(gnio_dev_close(dev));
	assert_ok(gnio_gpu_destroy(gpu));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_from_env),
		cmocka_unit_test(test_error_names_distinct),
		cmocka_unit_test(test_error_names_doca),
		cmocka_unit_test(test_error_unknown_codes),
		cmocka_unit_test(test_level_parse_names),
		cmocka_unit_test(test_level_parse_junk),
		cmocka_unit_test(test_sink_filters_by_level),
		cmocka_unit_test(test_disable_logs_nothing),
		cmocka_unit_test(test_library_lines_reach_sink),
		cmocka_unit_test(test_error_message_per_call),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
