/* SPDX-License-Identifier: MIT */
/* src/core/log.c - level from GNIO_LOG_LEVEL read once, replaceable sink. */
#include "gnio/log.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const struct {
	const char *name;
	enum gnio_log_level level;
} level_names[] = {
	{"disable", GNIO_LOG_LEVEL_DISABLE}, {"off", GNIO_LOG_LEVEL_DISABLE},
	{"none", GNIO_LOG_LEVEL_DISABLE},    {"crit", GNIO_LOG_LEVEL_CRIT},
	{"critical", GNIO_LOG_LEVEL_CRIT},   {"error", GNIO_LOG_LEVEL_ERROR},
	{"err", GNIO_LOG_LEVEL_ERROR},       {"warning", GNIO_LOG_LEVEL_WARNING},
	{"warn", GNIO_LOG_LEVEL_WARNING},    {"info", GNIO_LOG_LEVEL_INFO},
	{"debug", GNIO_LOG_LEVEL_DEBUG},     {"trace", GNIO_LOG_LEVEL_TRACE},
};

static enum gnio_log_level cur_level = GNIO_LOG_LEVEL_ERROR;
static gnio_log_sink_fn cur_sink;
static void *cur_user;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

int gnio_log_level_parse(const char *text, enum gnio_log_level *out)
{
	if (!text || !*text || !out)
		return -1;
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (!strcasecmp(text, level_names[i].name)) {
			*out = level_names[i].level;
			return 0;
		}
	}
	char *end;
	long v = strtol(text, &end, 10);
	if (*end || v < GNIO_LOG_LEVEL_DISABLE || v > GNIO_LOG_LEVEL_TRACE)
		return -1;
	/* Numbers between the named steps round down to the step below. */
	*out = (enum gnio_log_level)(v - v % 10);
	return 0;
}

const char *gnio_log_level_name(enum gnio_log_level level)
{
	switch (level) {
	case GNIO_LOG_LEVEL_DISABLE: return "DISABLE";
	case GNIO_LOG_LEVEL_CRIT: return "CRIT";
	case GNIO_LOG_LEVEL_ERROR: return "ERROR";
	case GNIO_LOG_LEVEL_WARNING: return "WARNING";
	case GNIO_LOG_LEVEL_INFO: return "INFO";
	case GNIO_LOG_LEVEL_DEBUG: return "DEBUG";
	case GNIO_LOG_LEVEL_TRACE: return "TRACE";
	}
	return "?";
}

static void read_env(void)
{
	const char *v = getenv("GNIO_LOG_LEVEL");
	enum gnio_log_level l;
	if (v && gnio_log_level_parse(v, &l) == 0)
		__atomic_store_n(&cur_level, l, __ATOMIC_RELAXED);
	else if (v)
		fprintf(stderr, "gnio: ignoring GNIO_LOG_LEVEL=%s (use disable..trace or 10..70)\n", v);
}

void gnio_log_set_level(enum gnio_log_level level)
{
	pthread_once(&env_once, read_env);
	__atomic_store_n(&cur_level, level, __ATOMIC_RELAXED);
}

enum gnio_log_level gnio_log_get_level(void)
{
	pthread_once(&env_once, read_env);
	return __atomic_load_n(&cur_level, __ATOMIC_RELAXED);
}

void gnio_log_set_sink(gnio_log_sink_fn fn, void *user)
{
	cur_sink = fn;
	cur_user = user;
}

void gnio_log_write(enum gnio_log_level level, const char *component, const char *fmt, ...)
{
	if (level > gnio_log_get_level() || level <= GNIO_LOG_LEVEL_DISABLE)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (cur_sink) {
		cur_sink(cur_user, level, component ? component : "gnio", line);
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "[%lld.%06ld] gnio %-7s %s: %s\n", (long long)ts.tv_sec, ts.tv_nsec / 1000,
		gnio_log_level_name(level), component ? component : "gnio", line);
}
