/* SPDX-License-Identifier: MIT */
/*
 * gnio/log.h - library logging. Silent except for errors by default; the level
 * comes from GNIO_LOG_LEVEL (a name such as "debug" or a number), read once.
 * Nothing is logged on the hot path or from device code.
 */
#ifndef GNIO_LOG_H
#define GNIO_LOG_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Numbers match DOCA_LOG_LEVEL_* so scripts can share a level. */
enum gnio_log_level {
	GNIO_LOG_LEVEL_DISABLE = 10,
	GNIO_LOG_LEVEL_CRIT = 20,
	GNIO_LOG_LEVEL_ERROR = 30,
	GNIO_LOG_LEVEL_WARNING = 40,
	GNIO_LOG_LEVEL_INFO = 50,
	GNIO_LOG_LEVEL_DEBUG = 60,
	GNIO_LOG_LEVEL_TRACE = 70,
};

/* A sink receives one formatted line without trailing newline. */
typedef void (*gnio_log_sink_fn)(void *user, enum gnio_log_level level, const char *component,
				 const char *line);

/* Replace the sink (NULL restores the default: stderr). Not thread-safe with
 * concurrent logging; call at start-up. */
/* @since 0.1 log_sink: Replaceable log sink, level from GNIO_LOG_LEVEL */
void gnio_log_set_sink(gnio_log_sink_fn fn, void *user);
void gnio_log_set_level(enum gnio_log_level level);
enum gnio_log_level gnio_log_get_level(void);
/* Parse "trace", "DEBUG", "warn", "60", ...; returns 0 and sets *out, or -1. */
int gnio_log_level_parse(const char *text, enum gnio_log_level *out);
const char *gnio_log_level_name(enum gnio_log_level level);

void gnio_log_write(enum gnio_log_level level, const char *component, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif /* GNIO_LOG_H */
