/* SPDX-License-Identifier: MIT */
/* src/core/error.c - names and descriptions of gnio_error_t. */
#include "gnio/error.h"

struct err_desc {
	const char *name;
	const char *descr;
};

static const struct err_desc err_table[GNIO_ERROR_COUNT_] = {
	[GNIO_SUCCESS] = {"GNIO_SUCCESS", "Success"},
	[GNIO_ERROR_UNKNOWN] = {"GNIO_ERROR_UNKNOWN", "Unknown error"},
	[GNIO_ERROR_NOT_PERMITTED] = {"GNIO_ERROR_NOT_PERMITTED", "Operation not permitted"},
	[GNIO_ERROR_IN_USE] = {"GNIO_ERROR_IN_USE", "Resource already in use"},
	[GNIO_ERROR_NOT_SUPPORTED] = {"GNIO_ERROR_NOT_SUPPORTED", "Operation not supported"},
	[GNIO_ERROR_AGAIN] = {"GNIO_ERROR_AGAIN", "Resource temporarily unavailable, try again"},
	[GNIO_ERROR_INVALID_VALUE] = {"GNIO_ERROR_INVALID_VALUE", "Invalid input"},
	[GNIO_ERROR_NO_MEMORY] = {"GNIO_ERROR_NO_MEMORY", "Memory allocation failure"},
	[GNIO_ERROR_INITIALIZATION] = {"GNIO_ERROR_INITIALIZATION", "Resource initialization failure"},
	[GNIO_ERROR_TIME_OUT] = {"GNIO_ERROR_TIME_OUT", "Timer expired waiting for resource"},
	[GNIO_ERROR_SHUTDOWN] = {"GNIO_ERROR_SHUTDOWN", "Shut down in process or completed"},
	[GNIO_ERROR_CONNECTION_RESET] = {"GNIO_ERROR_CONNECTION_RESET", "Connection reset by peer"},
	[GNIO_ERROR_CONNECTION_ABORTED] = {"GNIO_ERROR_CONNECTION_ABORTED", "Connection aborted"},
	[GNIO_ERROR_CONNECTION_INPROGRESS] = {"GNIO_ERROR_CONNECTION_INPROGRESS", "Connection in progress"},
	[GNIO_ERROR_NOT_CONNECTED] = {"GNIO_ERROR_NOT_CONNECTED", "Not connected"},
	[GNIO_ERROR_NO_LOCK] = {"GNIO_ERROR_NO_LOCK", "Unable to acquire required lock"},
	[GNIO_ERROR_NOT_FOUND] = {"GNIO_ERROR_NOT_FOUND", "Resource not found"},
	[GNIO_ERROR_IO_FAILED] = {"GNIO_ERROR_IO_FAILED", "Input/output operation failed"},
	[GNIO_ERROR_BAD_STATE] = {"GNIO_ERROR_BAD_STATE", "Bad state: call not valid in the object's current state"},
	[GNIO_ERROR_UNSUPPORTED_VERSION] = {"GNIO_ERROR_UNSUPPORTED_VERSION", "Unsupported version"},
	[GNIO_ERROR_OPERATING_SYSTEM] = {"GNIO_ERROR_OPERATING_SYSTEM", "Operating system call failure"},
	[GNIO_ERROR_DRIVER] = {"GNIO_ERROR_DRIVER", "Driver (CUDA or NIC) call failure"},
	[GNIO_ERROR_UNEXPECTED] = {"GNIO_ERROR_UNEXPECTED", "Unexpected event or result"},
	[GNIO_ERROR_ALREADY_EXIST] = {"GNIO_ERROR_ALREADY_EXIST", "Resource already exists"},
	[GNIO_ERROR_FULL] = {"GNIO_ERROR_FULL", "No available space"},
	[GNIO_ERROR_EMPTY] = {"GNIO_ERROR_EMPTY", "No available entries"},
	[GNIO_ERROR_IN_PROGRESS] = {"GNIO_ERROR_IN_PROGRESS", "Operation in progress"},
	[GNIO_ERROR_TOO_BIG] = {"GNIO_ERROR_TOO_BIG", "Value or frame too big"},
	[GNIO_ERROR_AUTHENTICATION] = {"GNIO_ERROR_AUTHENTICATION", "Authentication failure"},
	[GNIO_ERROR_BAD_CONFIG] = {"GNIO_ERROR_BAD_CONFIG", "Configuration is not valid"},
	[GNIO_ERROR_SKIPPED] = {"GNIO_ERROR_SKIPPED", "Step skipped"},
	[GNIO_ERROR_DEVICE_FATAL_ERROR] = {"GNIO_ERROR_DEVICE_FATAL_ERROR", "Device encountered a fatal error"},
};

const char *gnio_error_get_name(gnio_error_t err)
{
	if ((unsigned)err >= GNIO_ERROR_COUNT_)
		return "GNIO_ERROR_UNRECOGNIZED";
	return err_table[err].name;
}

const char *gnio_error_get_descr(gnio_error_t err)
{
	if ((unsigned)err >= GNIO_ERROR_COUNT_)
		return "Unrecognized error code";
	return err_table[err].descr;
}
