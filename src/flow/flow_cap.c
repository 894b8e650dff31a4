/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow_cap.c - which actions each wire kind can carry out, and
 * where (docs/flow.md, "What each wire can express").
 */
#include <stdio.h>
#include <string.h>

#include "core/errmsg.h"
#include "eth/dev_priv.h"
#include "flow/flow_priv.h"

#define COMP "flow"

#ifdef GNIO_HAVE_XDP_FLOW
#define XDP_FLOW_BUILT 1
#else
#define XDP_FLOW_BUILT 0
#endif

/* Returns 1 (supported) or 0, and the how or why in buf. */
static int describe(const char *kind, enum gnio_flow_action_type a, char *buf, size_t len)
{
	if (!kind) {
		snprintf(buf, len, "no wire: the caller acts on the verdict");
		return 1;
	}
	if (!strcmp(kind, "afxdp")) {
		if (a == GNIO_FLOW_ACTION_KERNEL) {
			if (!XDP_FLOW_BUILT) {
				snprintf(buf, len, "gnio was built without the XDP flow program (no clang at configure "
						   "time), and only an XDP program can pass a frame to the host stack");
				return 0;
			}
			snprintf(buf, len, "in the XDP program (XDP_PASS to the host stack)");
			return 1;
		}
		if (a == GNIO_FLOW_ACTION_DROP) {
			snprintf(buf, len, XDP_FLOW_BUILT ? "in the XDP program (XDP_DROP)"
							  : "in the proxy (gnio was built without the XDP flow program)");
			return 1;
		}
		if (a == GNIO_FLOW_ACTION_GNIO) {
			snprintf(buf, len, "the XDP program redirects to the AF_XDP socket of the arrival queue");
			return 1;
		}
		snprintf(buf, len, "the XDP program redirects to the socket of the arrival queue (AF_XDP reaches no "
				   "other), then the proxy fans out to the %s", a == GNIO_FLOW_ACTION_CPU ? "host queue"
										       : "target ring");
		return 1;
	}
	if (!strcmp(kind, "afpacket")) {
		/* where gnio's socket is kept from taking a copy */
		const char *where = XDP_FLOW_BUILT ? "the flow's socket filter keeps gnio's socket from taking a copy "
						     "(the proxy does, when the filter cannot be loaded: needs CAP_BPF)"
						   : "the proxy skips gnio's copy (gnio was built without the socket filter)";
		if (a == GNIO_FLOW_ACTION_KERNEL) {
			snprintf(buf, len, "the host stack gets every frame on AF_PACKET; %s", where);
			return 1;
		}
		if (a == GNIO_FLOW_ACTION_DROP) {
			snprintf(buf, len, "for gnio's copy only (AF_PACKET cannot keep a frame from the host stack): %s",
				 where);
			return 1;
		}
		snprintf(buf, len, XDP_FLOW_BUILT ? "the socket filter lets the frame in, then the proxy picks the ring"
						  : "in the proxy");
		return 1;
	}
	if (a == GNIO_FLOW_ACTION_KERNEL) {
		snprintf(buf, len, "a %s wire has no host network stack behind it", kind);
		return 0;
	}
	snprintf(buf, len, "in the proxy");
	return 1;
}

gnio_error_t gnio_flow_cap_describe_action(const struct gnio_devinfo *info, enum gnio_flow_action_type action,
					   char *buf, size_t len)
{
	const struct gnio_dev *d = (const struct gnio_dev *)info;
	char tmp[256];

	if ((unsigned)action >= GNIO_FLOW_ACTION_COUNT_)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "action %d is not a gnio_flow_action_type", (int)action);
	if (!buf || !len) {
		buf = tmp;
		len = sizeof(tmp);
	}
	if (describe(d ? d->kind : NULL, action, buf, len))
		return GNIO_SUCCESS;
	return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "%s on %s: %s", gnio_flow_action_name(action),
			 d ? d->spec : "(no wire)", buf);
}

gnio_error_t gnio_flow_cap_is_action_supported(const struct gnio_devinfo *info, enum gnio_flow_action_type action)
{
	return gnio_flow_cap_describe_action(info, action, NULL, 0);
}

gnio_error_t flow_cap_check(const struct gnio_dev *dev, enum gnio_flow_action_type type)
{
	return gnio_flow_cap_is_action_supported((const struct gnio_devinfo *)dev, type);
}
