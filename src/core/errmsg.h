/* SPDX-License-Identifier: MIT */
/* src/core/errmsg.h - per-thread "last error message" behind gnio_last_error_msg(),
 * and the logging macros used inside the library. */
#ifndef GNIO_SRC_CORE_ERRMSG_H
#define GNIO_SRC_CORE_ERRMSG_H

#include "gnio/error.h"
#include "gnio/log.h"

/* Record a one-line reason for the caller (also logged at DEBUG). */
void gnio_fail_msg(gnio_error_t err, const char *component, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, and the value err, so it can be used as
 * `return gnio_fail(GNIO_ERROR_X, "comp", "...", ...)`. A macro (err is
 * evaluated once) so that the value is visible where it is used: static
 * analysis then knows an error path returns an error and does not follow it
 * as a success (it does not look inside variadic functions). */
#define gnio_fail(err, component, ...)                                                             \
	__extension__({                                                                            \
		gnio_error_t gnio_fail_err_ = (err);                                               \
		gnio_fail_msg(gnio_fail_err_, (component), __VA_ARGS__);                           \
		gnio_fail_err_;                                                                    \
	})
void gnio_set_error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gnio_clear_error_msg(void);
/* First thing in every public call: a failure sets its own reason, so an
 * earlier call's reason is never mistaken for this one's. */
#define gnio_api_enter() gnio_clear_error_msg()

/* Cheap level check first: no formatting cost when the level is off. */
#define GNIO_LOG(level, comp, ...)                                                                 \
	do {                                                                                       \
		if (gnio_log_get_level() >= (level))                                               \
			gnio_log_write((level), (comp), __VA_ARGS__);                              \
	} while (0)
#define GNIO_LOG_ERR(comp, ...) GNIO_LOG(GNIO_LOG_LEVEL_ERROR, comp, __VA_ARGS__)
#define GNIO_LOG_WARN(comp, ...) GNIO_LOG(GNIO_LOG_LEVEL_WARNING, comp, __VA_ARGS__)
#define GNIO_LOG_INFO(comp, ...) GNIO_LOG(GNIO_LOG_LEVEL_INFO, comp, __VA_ARGS__)
#define GNIO_LOG_DBG(comp, ...) GNIO_LOG(GNIO_LOG_LEVEL_DEBUG, comp, __VA_ARGS__)
#define GNIO_LOG_TRACE(comp, ...) GNIO_LOG(GNIO_LOG_LEVEL_TRACE, comp, __VA_ARGS__)

/* CHECK helpers: propagate or jump to cleanup. */
#define GNIO_CHECK(expr)                                                                           \
	do {                                                                                       \
		gnio_error_t gnio_check_err_ = (expr);                                             \
		if (gnio_check_err_ != GNIO_SUCCESS)                                               \
			return gnio_check_err_;                                                    \
	} while (0)
#define GNIO_CHECK_GOTO(expr, errvar, label)                                                       \
	do {                                                                                       \
		(errvar) = (expr);                                                                 \
		if ((errvar) != GNIO_SUCCESS)                                                      \
			goto label;                                                                \
	} while (0)

#endif
