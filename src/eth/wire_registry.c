/* SPDX-License-Identifier: MIT */
/* src/eth/wire_registry.c - the wires built into this library. A new wire is
 * one ops table in src/eth/wire/<kind>.c plus one line here. */
#include <stdio.h>
#include <string.h>
#include "eth/wire.h"

extern const struct gnio_wire_ops gnio_wire_sw_ops;
extern const struct gnio_wire_ops gnio_wire_null_ops;
#ifdef GNIO_HAVE_AFXDP
extern const struct gnio_wire_ops gnio_wire_afxdp_ops;
#endif
#ifdef GNIO_HAVE_AFPACKET
extern const struct gnio_wire_ops gnio_wire_afpacket_ops;
#endif
#ifdef GNIO_HAVE_PCAP
extern const struct gnio_wire_ops gnio_wire_pcap_ops;
#endif

static const struct gnio_wire_ops *const wires[] = {
	&gnio_wire_sw_ops,
	&gnio_wire_null_ops,
#ifdef GNIO_HAVE_AFXDP
	&gnio_wire_afxdp_ops,
#endif
#ifdef GNIO_HAVE_AFPACKET
	&gnio_wire_afpacket_ops,
#endif
#ifdef GNIO_HAVE_PCAP
	&gnio_wire_pcap_ops,
#endif
};

const struct gnio_wire_ops *gnio_wire_find(const char *kind)
{
	for (size_t i = 0; i < sizeof(wires) / sizeof(wires[0]); i++)
		if (!strcmp(wires[i]->kind, kind))
			return wires[i];
	return NULL;
}

const char *gnio_wire_list(void)
{
	static char list[128];
	if (!list[0]) {
		size_t off = 0;
		for (size_t i = 0; i < sizeof(wires) / sizeof(wires[0]); i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? "," : "",
						wires[i]->kind);
	}
	return list;
}

const char *gnio_wire_split_args(const char *args, char *name, size_t name_len)
{
	const char *comma = strchr(args, ',');
	size_t n = comma ? (size_t)(comma - args) : strlen(args);
	if (name_len) {
		if (n >= name_len)
			n = name_len - 1;
		memcpy(name, args, n);
		name[n] = 0;
	}
	return comma ? comma + 1 : "";
}

int gnio_wire_opt(const char *opts, const char *key, char *val, size_t val_len)
{
	size_t klen = strlen(key);
	const char *p = opts;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= klen && !strncmp(p, key, klen) && (len == klen || p[klen] == '=')) {
			const char *v = len == klen ? "1" : p + klen + 1;
			size_t vlen = len == klen ? 1 : len - klen - 1;
			if (val_len) {
				if (vlen >= val_len)
					vlen = val_len - 1;
				memcpy(val, v, vlen);
				val[vlen] = 0;
			}
			return 1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}
