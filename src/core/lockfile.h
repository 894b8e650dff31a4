/* SPDX-License-Identifier: MIT */
/*
 * src/core/lockfile.h - an exclusive lock held through a file, which its owner
 * removes when it lets go (private).
 *
 * flock() marks a live owner and the kernel drops it when the owner dies, so
 * a lock left by a killed process is free. Removing the file on release keeps
 * lock directories such as /run/gnio from filling up, but opens a race: a
 * second process may open the file, the owner then unlinks and releases it,
 * and the second process locks an inode that no longer has the name while a
 * third creates and locks a new file under it: two owners. So a taker checks,
 * after its flock succeeds, that the path still names the inode it locked,
 * and starts over if not.
 */
#ifndef GNIO_SRC_CORE_LOCKFILE_H
#define GNIO_SRC_CORE_LOCKFILE_H

struct gnio_lockfile {
	int fd;          /* -1 when not held */
	char path[256];
};

enum gnio_lockfile_result {
	GNIO_LOCKFILE_TAKEN = 0,
	GNIO_LOCKFILE_BUSY = -1,     /* a live owner holds it */
	GNIO_LOCKFILE_NO_FILE = -2,  /* cannot create the file (errno says why) */
};

/* Take the lock at path without waiting, creating the file (mode 0644). */
enum gnio_lockfile_result gnio_lockfile_take(struct gnio_lockfile *lf, const char *path);
/* Remove the file and release the lock. Harmless on a lock not held. */
void gnio_lockfile_release(struct gnio_lockfile *lf);

/* Remove the lock files in dir named prefix*.lock that no live process
 * holds: those a killed owner left behind (a SIGKILL cannot run the
 * release). Returns how many went. */
unsigned gnio_lockfile_sweep(const char *dir, const char *prefix);

#endif
