/* SPDX-License-Identifier: MIT */
/* src/eth/wire_registry.c - the wires built into this library. A new wire is
 * one ops table in src/eth/wire/<kind>.c plus one line here.
 *
 * Each wire also names the options it understands (gnio_wire_<kind>_options,
 * defined next to its parser). gnio_dev_open checks a spec's options against
 * that list before the wire sees them, so a typo such as `mdoe=skb` is refused
 * with the valid names instead of being ignored. */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/errmsg.h"
#include "eth/wire.h"
#include "eth/wire_opts.h"

extern const struct gnio_wire_ops gnio_wire_sw_ops;
extern const char gnio_wire_sw_options[];
extern const struct gnio_wire_ops gnio_wire_null_ops;
extern const char gnio_wire_null_options[];
#ifdef GNIO_HAVE_AFXDP
extern const struct gnio_wire_ops gnio_wire_afxdp_ops;
extern const char gnio_wire_afxdp_options[];
#endif
#ifdef GNIO_HAVE_AFPACKET
extern const struct gnio_wire_ops gnio_wire_afpacket_ops;
extern const char gnio_wire_afpacket_options[];
#endif
#ifdef GNIO_HAVE_PCAP
extern const struct gnio_wire_ops gnio_wire_pcap_ops;
extern const char gnio_wire_pcap_options[];
#endif

static const struct wire_entry {
	const struct gnio_wire_ops *ops;
	const char *options; /* comma-separated option names the wire parses */
} wires[] = {
	{&gnio_wire_sw_ops, gnio_wire_sw_options},
	{&gnio_wire_null_ops, gnio_wire_null_options},
#ifdef GNIO_HAVE_AFXDP
	{&gnio_wire_afxdp_ops, gnio_wire_afxdp_options},
#endif
#ifdef GNIO_HAVE_AFPACKET
	{&gnio_wire_afpacket_ops, gnio_wire_afpacket_options},
#endif
#ifdef GNIO_HAVE_PCAP
	{&gnio_wire_pcap_ops, gnio_wire_pcap_options},
#endif
};

#define NUM_WIRES (sizeof(wires) / sizeof(wires[0]))

static const struct wire_entry *find_entry(const char *kind)
{
	for (size_t i = 0; i < NUM_WIRES; i++)
		if (!strcmp(wires[i].ops->kind, kind))
			return &wires[i];
	return NULL;
}

const struct gnio_wire_ops *gnio_wire_find(const char *kind)
{
	const struct wire_entry *e = find_entry(kind);
	return e ? e->ops : NULL;
}

/* Is the key (klen bytes at key) one of the names in the comma list? */
static int in_list(const char *list, const char *key, size_t klen)
{
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == klen && !strncmp(p, key, klen))
			return 1;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

/* How many items of the option string have this key. */
static unsigned count_key(const char *opts, const char *key, size_t klen)
{
	unsigned n = 0;
	for (const char *p = opts; *p;) {
		size_t tok = strcspn(p, ",");
		if (strcspn(p, "=,") == klen && !strncmp(p, key, klen))
			n++;
		p += tok;
		if (*p)
			p++;
	}
	return n;
}

gnio_error_t gnio_wire_check_opts(const char *kind, const char *opts)
{
	const struct wire_entry *e = find_entry(kind);
	if (!e)
		return gnio_fail(GNIO_ERROR_NOT_FOUND, "dev", "unknown wire kind '%s'", kind);
	for (const char *p = opts ? opts : ""; *p;) {
		size_t tok = strcspn(p, ",");  /* one item: key or key=value */
		size_t key = strcspn(p, "=,");
		if (tok && !key)
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "%s: option '%.*s' has no name (valid: %s)",
					 kind, (int)tok, p, e->options);
		if (key && !in_list(e->options, p, key))
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "%s: unknown option '%.*s' (valid: %s)", kind,
					 (int)key, p, e->options);
		if (key && count_key(opts, p, key) > 1) /* which one would win? */
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, "dev", "%s: option '%.*s' is given more than once",
					 kind, (int)key, p);
		p += tok;
		if (*p)
			p++;
	}
	return GNIO_SUCCESS;
}

const char *gnio_wire_list(void)
{
	static char list[128];
	if (!list[0]) {
		size_t off = 0;
		for (size_t i = 0; i < NUM_WIRES; i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? "," : "",
						wires[i].ops->kind);
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

int gnio_wire_opt_flag(const char *opts, const char *key, int *on)
{
	char val[8];
	if (!gnio_wire_opt(opts, key, val, sizeof(val)))
		return 0;
	/* gnio_wire_opt gives "1" for a bare key; anything long is cut to 7
	 * characters, which then matches neither value */
	if (!strcmp(val, "1") || !strcmp(val, "0")) {
		*on = val[0] == '1';
		return 1;
	}
	return -1;
}

int gnio_wire_opt_u32(const char *opts, const char *key, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char val[16], *end;
	if (!gnio_wire_opt(opts, key, val, sizeof(val)))
		return 0;
	if (val[0] < '0' || val[0] > '9' || strlen(val) > 10) /* also a value cut to fit val */
		return -1;
	errno = 0;
	unsigned long v = strtoul(val, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 1;
}

void gnio_wire_wait_fd(int fd, uint64_t timeout_ns)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	struct timespec ts = gnio_timespec_ns(timeout_ns);
	(void)ppoll(&pfd, 1, &ts, NULL);
}

gnio_error_t gnio_wire_check_link(const char *ifname, int ifindex, char *msg, size_t msg_len)
{
	if ((int)if_nametoindex(ifname) != ifindex) {
		snprintf(msg, msg_len, "interface %s is gone (deleted or renamed while gnio used it)", ifname);
		return GNIO_ERROR_NOT_FOUND;
	}
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return GNIO_SUCCESS; /* cannot tell: say nothing rather than guess */
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	int rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
	close(fd);
	if (rc == 0 && !(ifr.ifr_flags & IFF_UP)) {
		snprintf(msg, msg_len, "interface %s is down (ip link set %s up)", ifname, ifname);
		return GNIO_ERROR_NOT_CONNECTED;
	}
	return GNIO_SUCCESS;
}

unsigned gnio_wire_sysfs_queues(const char *ifname, const char *prefix)
{
	char path[128];
	unsigned n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}
