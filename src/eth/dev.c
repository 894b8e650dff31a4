/* SPDX-License-Identifier: MIT */
/* src/eth/dev.c - open a wire from its spec string; the wire's fault report. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"
#include "eth/dev_priv.h"
#include "eth/wire_opts.h"

gnio_error_t gnio_dev_open(const char *spec, struct gnio_dev **dev)
{
	gnio_clear_error_msg();
	if (!spec || !dev)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "open: NULL argument");
	const char *colon = strchr(spec, ':');
	size_t klen = colon ? (size_t)(colon - spec) : 0;
	if (!colon || klen == 0 || klen >= sizeof(((struct gnio_dev *)0)->kind))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev",
				 "wire spec '%s' is not KIND:NAME (kinds built in: %s)", spec, gnio_wire_list());
	if (strlen(spec) >= sizeof(((struct gnio_dev *)0)->spec))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "wire spec is longer than 255 characters");
	char kind[16];
	memcpy(kind, spec, klen);
	kind[klen] = 0;
	const struct gnio_wire_ops *ops = gnio_wire_find(kind);
	if (!ops)
		return gnio_fail(GNIO_ERROR_NOT_FOUND, "dev", "unknown wire kind '%s' in '%s' (kinds built in: %s)",
				 kind, spec, gnio_wire_list());
	GNIO_CHECK(gnio_wire_check_opts(kind, gnio_wire_split_args(colon + 1, NULL, 0)));
	struct gnio_dev *d = calloc(1, sizeof(*d));
	if (!d)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "dev", "out of memory");
	snprintf(d->spec, sizeof(d->spec), "%s", spec); /* lengths checked above */
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	gnio_wire_split_args(colon + 1, d->name, sizeof(d->name));
	d->ops = ops;
	pthread_mutex_init(&d->lock, NULL);
	gnio_error_t err = ops->open(d, colon + 1, &d->wire);
	if (err != GNIO_SUCCESS) {
		if (!gnio_last_error_msg()[0])
			gnio_set_error_msg("cannot open wire '%s': %s", spec, gnio_error_get_descr(err));
		pthread_mutex_destroy(&d->lock);
		free(d);
		return err;
	}
	GNIO_LOG_INFO("dev", "opened wire %s", spec);
	*dev = d;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_dev_close(struct gnio_dev *dev)
{
	gnio_api_enter();
	if (!dev)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "close: NULL");
	if (dev->num_queues)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "dev", "wire %s still has %u queue(s); destroy them first",
				 dev->spec, dev->num_queues);
	if (dev->flow)
		return gnio_fail(GNIO_ERROR_BAD_STATE, "dev", "wire %s still has a flow; destroy it first", dev->spec);
	dev->ops->close(dev->wire);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	return GNIO_SUCCESS;
}

void gnio_dev_wire_failed(struct gnio_dev *dev, gnio_error_t err, const char *fmt, ...)
{
	char msg[sizeof(dev->wire_err_msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	GNIO_LOG_ERR("dev", "%s (%s)", msg, gnio_error_get_name(err));
	if (!dev)
		return;
	pthread_mutex_lock(&dev->lock);
	if (dev->wire_err == GNIO_SUCCESS) {
		dev->wire_err = err;
		memcpy(dev->wire_err_msg, msg, sizeof(msg));
	}
	pthread_mutex_unlock(&dev->lock);
}

gnio_error_t gnio_dev_get_wire_error(struct gnio_dev *dev, gnio_error_t *err, char *msg, size_t msg_len)
{
	if (!dev || !err)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "get_wire_error: NULL argument");
	/* Interface wires look at their link now (two syscalls): a deleted or
	 * downed interface shows here even though its queues just go quiet. */
	pthread_mutex_lock(&dev->lock);
	const int healthy = dev->wire_err == GNIO_SUCCESS;
	pthread_mutex_unlock(&dev->lock);
	if (dev->ops->check && healthy) {
		char why[256];
		gnio_error_t e = dev->ops->check(dev->wire, why, sizeof(why));
		if (e != GNIO_SUCCESS)
			gnio_dev_wire_failed(dev, e, "%s:%s", dev->kind, why);
	}
	pthread_mutex_lock(&dev->lock);
	*err = dev->wire_err;
	if (msg && msg_len)
		snprintf(msg, msg_len, "%s", dev->wire_err_msg);
	pthread_mutex_unlock(&dev->lock);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_dev_set_poll_mode(struct gnio_dev *dev, enum gnio_poll_mode mode)
{
	gnio_api_enter();
	if (!dev)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "set_poll_mode: NULL device");
	if (mode != GNIO_POLL_ADAPTIVE && mode != GNIO_POLL_BUSY)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "set_poll_mode: unknown mode %d (adaptive or busy)",
				 (int)mode);
	__atomic_store_n(&dev->poll_mode, (int)mode, __ATOMIC_RELAXED);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_dev_get_poll_mode(const struct gnio_dev *dev, enum gnio_poll_mode *mode)
{
	gnio_api_enter();
	if (!dev || !mode)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "get_poll_mode: NULL argument");
	*mode = (enum gnio_poll_mode)__atomic_load_n(&dev->poll_mode, __ATOMIC_RELAXED);
	return GNIO_SUCCESS;
}

struct gnio_devinfo *gnio_dev_as_devinfo(struct gnio_dev *dev) { return (struct gnio_devinfo *)dev; }

const char *gnio_devinfo_get_spec(const struct gnio_devinfo *info)
{
	return info ? ((const struct gnio_dev *)info)->spec : "";
}
const char *gnio_devinfo_get_wire(const struct gnio_devinfo *info)
{
	return info ? ((const struct gnio_dev *)info)->kind : "";
}
const char *gnio_devinfo_get_name(const struct gnio_devinfo *info)
{
	return info ? ((const struct gnio_dev *)info)->name : "";
}

/* Copy a filled struct of size bytes to the caller's, no more than its
 * struct_size (*dst_size) holds (older callers; 0: all of it), and set
 * struct_size to what was copied. */
static void copy_sized(void *dst, uint32_t *dst_size, const void *src, uint32_t size)
{
	uint32_t n = *dst_size && *dst_size < size ? *dst_size : size;

	memcpy(dst, src, n);
	*dst_size = n;
}

gnio_error_t gnio_devinfo_get_caps(const struct gnio_devinfo *info, struct gnio_wire_caps *caps)
{
	gnio_api_enter();
	if (!info || !caps)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "get_caps: NULL argument");
	const struct gnio_dev *d = (const struct gnio_dev *)info;
	struct gnio_wire_caps c;
	memset(&c, 0, sizeof(c));
	c.struct_size = sizeof(c);
	GNIO_CHECK(d->ops->caps(d->wire, &c));
	copy_sized(caps, &caps->struct_size, &c, sizeof(c));
	return GNIO_SUCCESS;
}

gnio_error_t gnio_devinfo_get_steering(const struct gnio_devinfo *info, struct gnio_wire_steering *steering)
{
	gnio_api_enter();
	if (!info || !steering)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "get_steering: NULL argument");
	const struct gnio_dev *d = (const struct gnio_dev *)info;
	struct gnio_wire_steering st;
	memset(&st, 0, sizeof(st));
	st.struct_size = sizeof(st);
	if (d->ops->steering) {
		GNIO_CHECK(d->ops->steering(d->wire, &st));
	} else {
		snprintf(st.rss_how, sizeof(st.rss_how), "no NIC behind a %s wire", d->kind);
		snprintf(st.ntuple_how, sizeof(st.ntuple_how), "no NIC behind a %s wire", d->kind);
	}
	copy_sized(steering, &steering->struct_size, &st, sizeof(st));
	return GNIO_SUCCESS;
}
