/* SPDX-License-Identifier: MIT */
/*
 * gnio/error.h - one error type for the whole library, host and device side.
 * Names and meanings follow DOCA's doca_error_t so that ported code reads the
 * same. Usable from C, C++ and CUDA device code.
 */
#ifndef GNIO_ERROR_H
#define GNIO_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gnio_error {
	GNIO_SUCCESS = 0,                     /* Success */
	GNIO_ERROR_UNKNOWN = 1,               /* Unknown error */
	GNIO_ERROR_NOT_PERMITTED = 2,         /* Operation not permitted (privilege) */
	GNIO_ERROR_IN_USE = 3,                /* Resource in use by another object */
	GNIO_ERROR_NOT_SUPPORTED = 4,         /* Feature not supported by wire or device */
	GNIO_ERROR_AGAIN = 5,                 /* Resource temporarily unavailable: retry */
	GNIO_ERROR_INVALID_VALUE = 6,         /* Invalid argument */
	GNIO_ERROR_NO_MEMORY = 7,             /* Out of memory */
	GNIO_ERROR_INITIALIZATION = 8,        /* Initialization failed */
	GNIO_ERROR_TIME_OUT = 9,              /* Timed out */
	GNIO_ERROR_SHUTDOWN = 10,             /* Shut down in progress or done */
	GNIO_ERROR_CONNECTION_RESET = 11,     /* Peer reset the connection */
	GNIO_ERROR_CONNECTION_ABORTED = 12,   /* Connection aborted */
	GNIO_ERROR_CONNECTION_INPROGRESS = 13,/* Connection in progress */
	GNIO_ERROR_NOT_CONNECTED = 14,        /* Not connected (peer gone) */
	GNIO_ERROR_NO_LOCK = 15,              /* Could not take a lock */
	GNIO_ERROR_NOT_FOUND = 16,            /* Object or device not found */
	GNIO_ERROR_IO_FAILED = 17,            /* Input/output failed */
	GNIO_ERROR_BAD_STATE = 18,            /* Call not valid in the object's state */
	GNIO_ERROR_UNSUPPORTED_VERSION = 19,  /* Version not supported */
	GNIO_ERROR_OPERATING_SYSTEM = 20,     /* An operating-system call failed */
	GNIO_ERROR_DRIVER = 21,               /* Driver (CUDA, NIC) reported a failure */
	GNIO_ERROR_UNEXPECTED = 22,           /* Unexpected internal condition */
	GNIO_ERROR_ALREADY_EXIST = 23,        /* Already exists */
	GNIO_ERROR_FULL = 24,                 /* No room left */
	GNIO_ERROR_EMPTY = 25,                /* Nothing to take */
	GNIO_ERROR_IN_PROGRESS = 26,          /* Operation in progress */
	GNIO_ERROR_TOO_BIG = 27,              /* Value or frame too big */
	GNIO_ERROR_AUTHENTICATION = 28,       /* Authentication failed */
	GNIO_ERROR_BAD_CONFIG = 29,           /* Configuration is inconsistent */
	GNIO_ERROR_SKIPPED = 30,              /* Step skipped */
	GNIO_ERROR_DEVICE_FATAL_ERROR = 31,   /* Device hit a fatal error */
	GNIO_ERROR_COUNT_ /* not an error: number of codes */
} gnio_error_t;

/* Short name, e.g. "GNIO_ERROR_BAD_STATE"; never NULL. */
/* @since 0.1 error_names: Error names and descriptions (DOCA error taxonomy) */
const char *gnio_error_get_name(gnio_error_t err);
/* One-line description; never NULL. */
const char *gnio_error_get_descr(gnio_error_t err);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_ERROR_H */
