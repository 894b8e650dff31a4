/* SPDX-License-Identifier: MIT */
/* src/core/errmsg.c - per-thread last error message. */
#include "core/errmsg.h"
#include "gnio/dev.h"
#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_msg[256];

void gnio_set_error_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
}

void gnio_clear_error_msg(void) { last_msg[0] = 0; }

const char *gnio_last_error_msg(void) { return last_msg; }

void gnio_fail_msg(gnio_error_t err, const char *component, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	GNIO_LOG_DBG(component, "%s: %s", gnio_error_get_name(err), last_msg);
}
