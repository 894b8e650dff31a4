/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/privdrop.h - `gnio run --user NAME`: once the wire is open and
 * the kernels run, become an ordinary user and keep only the capabilities
 * the wire's teardown needs (docs/wires.md, "Least privilege").
 */
#ifndef GNIO_TOOLS_PRIVDROP_H
#define GNIO_TOOLS_PRIVDROP_H

#include <stddef.h>
#include <sys/types.h>

struct privdrop {
	uid_t uid;
	gid_t gid;
	char name[64];
};

/* Look NAME (a user name or a numeric uid) up now, so that a typo fails
 * before anything is built. 0, or -1 with why. */
int privdrop_resolve(const char *name, struct privdrop *pd, char *why, size_t why_len);
/* May this process switch users at all (root, or CAP_SETUID and CAP_SETGID)? */
int privdrop_possible(void);
/* The capabilities the teardown of a wire of this kind needs, as text
 * ("cap_net_admin,..."; "" for none). */
const char *privdrop_teardown_caps(const char *wire_kind);
/* Before any thread starts: drop every capability but `keep` (text as
 * privdrop_teardown_caps gives it) from the bounding set, and set
 * no-new-privileges, so that no exec can gain what is dropped later. Threads
 * created afterwards inherit both. 0, or -1 with why. */
int privdrop_prepare(const char *keep, char *why, size_t why_len);
/* After setup: become pd's user with no supplementary groups; every thread
 * loses its capabilities except the calling one, which keeps exactly
 * `keep`. 0, or -1 with why. */
int privdrop_apply(const struct privdrop *pd, const char *keep, char *why, size_t why_len);

#endif
