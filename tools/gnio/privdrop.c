/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/privdrop.c - `gnio run --user NAME` (privdrop.h).
 *
 * Capabilities are per thread in Linux, and the proxies, the CPU device's
 * kernels and CUDA's helpers are threads by the time a run is set up. So the
 * calling (main) thread alone sets "keep capabilities" before the user
 * switch; glibc switches every thread's ids, and a thread leaving uid 0
 * without that flag loses all its capabilities. The main thread then trims
 * its own to what the teardown needs: it is the thread that runs the
 * rollback. The bounding set and no-new-privileges are per thread too, and
 * only glibc's id switch reaches every thread, so those two are set before
 * any thread exists (privdrop_prepare), and every thread inherits them.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "privdrop.h"

int privdrop_resolve(const char *name, struct privdrop *pd, char *why, size_t why_len)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	char *end;
	errno = 0;
	unsigned long n = strtoul(name, &end, 10);
	int numeric = *name && !*end;
	int rc = numeric ? getpwuid_r((uid_t)n, &pw, buf, sizeof(buf), &res)
			 : getpwnam_r(name, &pw, buf, sizeof(buf), &res);
	if (rc || !res) {
		if (numeric && n < 65536 * 65536ul && !rc) { /* a uid without a passwd entry */
			pd->uid = (uid_t)n;
			pd->gid = (gid_t)n;
			snprintf(pd->name, sizeof(pd->name), "%lu", n);
			return 0;
		}
		snprintf(why, why_len, "no user '%s'%s%s", name, rc ? ": " : "", rc ? strerror(rc) : "");
		return -1;
	}
	if (res->pw_uid == 0) {
		snprintf(why, why_len, "'%s' is root: nothing would be dropped", name);
		return -1;
	}
	pd->uid = res->pw_uid;
	pd->gid = res->pw_gid;
	snprintf(pd->name, sizeof(pd->name), "%s", res->pw_name);
	return 0;
}

int privdrop_possible(void)
{
	if (geteuid() == 0)
		return 1;
	cap_t c = cap_get_proc();
	cap_flag_value_t su = CAP_CLEAR, sg = CAP_CLEAR;
	if (c) {
		cap_get_flag(c, CAP_SETUID, CAP_EFFECTIVE, &su);
		cap_get_flag(c, CAP_SETGID, CAP_EFFECTIVE, &sg);
		cap_free(c);
	}
	return su == CAP_SET && sg == CAP_SET;
}

const char *privdrop_teardown_caps(const char *wire_kind)
{
	/* afxdp: detaching the XDP program (netlink: CAP_NET_ADMIN) and
	 * removing the owner lock from /run/gnio, root's directory
	 * (CAP_DAC_OVERRIDE). Found by trying smaller sets on a veth, with and
	 * without a flow program and bpffs mounted (docs/wires.md). The other
	 * wires close what they opened; that needs nothing. */
	if (!strcmp(wire_kind, "afxdp"))
		return "cap_net_admin,cap_dac_override";
	return "";
}

/* "cap_a,cap_b" as a capability set with those permitted and effective. */
static cap_t caps_of(const char *keep, char *why, size_t why_len)
{
	char text[256];
	snprintf(text, sizeof(text), "%s%s", keep, *keep ? "=ep" : "=");
	cap_t c = cap_from_text(text);
	if (!c)
		snprintf(why, why_len, "bad capability list '%s'", keep);
	return c;
}

int privdrop_prepare(const char *keep, char *why, size_t why_len)
{
	cap_t want = caps_of(keep, why, why_len);
	if (!want)
		return -1;
	int rc = 0;
	for (cap_value_t c = 0; c < (cap_value_t)cap_max_bits(); c++) {
		cap_flag_value_t v = CAP_CLEAR;
		cap_get_flag(want, c, CAP_PERMITTED, &v);
		if (v != CAP_SET && CAP_IS_SUPPORTED(c) && cap_drop_bound(c) != 0) {
			snprintf(why, why_len, "cannot drop %s from the bounding set: %s", cap_to_name(c),
				 strerror(errno));
			rc = -1;
			break;
		}
	}
	if (!rc && prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
		snprintf(why, why_len, "cannot set no-new-privileges: %s", strerror(errno));
		rc = -1;
	}
	cap_free(want);
	return rc;
}

int privdrop_apply(const struct privdrop *pd, const char *keep, char *why, size_t why_len)
{
	cap_t want = caps_of(keep, why, why_len);
	if (!want)
		return -1;
	int rc = -1;
	const char *step = "clear the ambient set";
	if (CAP_AMBIENT_SUPPORTED() && cap_reset_ambient() != 0)
		goto out;
	step = "keep capabilities across the user switch";
	if (prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L) != 0)
		goto out;
	/* glibc applies these to every thread of the process */
	step = "drop supplementary groups";
	if (setgroups(0, NULL) != 0)
		goto out;
	step = "set the group";
	if (setresgid(pd->gid, pd->gid, pd->gid) != 0)
		goto out;
	step = "set the user";
	if (setresuid(pd->uid, pd->uid, pd->uid) != 0)
		goto out;
	step = "set the capabilities";
	if (cap_set_proc(want) != 0)
		goto out;
	step = "clear keep-capabilities";
	if (prctl(PR_SET_KEEPCAPS, 0L, 0L, 0L, 0L) != 0)
		goto out;
	/* The switch must hold: root must be out of reach. */
	step = "check the switch";
	if (setuid(0) == 0 || getuid() != pd->uid || geteuid() != pd->uid) {
		errno = EPERM;
		goto out;
	}
	rc = 0;
out:
	if (rc)
		snprintf(why, why_len, "cannot %s for user %s: %s", step, pd->name, strerror(errno));
	cap_free(want);
	return rc;
}
