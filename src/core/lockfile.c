/* SPDX-License-Identifier: MIT */
/* src/core/lockfile.c - exclusive lock files removed by their owner (see
 * lockfile.h for the unlink/flock race this guards against). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/lockfile.h"

/* Starting over needs another owner to unlink the file between our open and
 * our flock each time; a bound keeps a pathological case from spinning. */
#define TAKE_TRIES 1000

enum gnio_lockfile_result gnio_lockfile_take(struct gnio_lockfile *lf, const char *path)
{
	lf->fd = -1;
	snprintf(lf->path, sizeof(lf->path), "%s", path);
	for (int i = 0; i < TAKE_TRIES; i++) {
		struct stat held, named;
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return GNIO_LOCKFILE_NO_FILE;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;
			close(fd);
			if (e == EWOULDBLOCK)
				return GNIO_LOCKFILE_BUSY;
			errno = e;
			return GNIO_LOCKFILE_NO_FILE;
		}
		/* Locked; but is it still the file under this name? */
		if (fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
		    held.st_ino == named.st_ino) {
			lf->fd = fd;
			return GNIO_LOCKFILE_TAKEN;
		}
		close(fd); /* its owner removed it after we opened it: try the new one */
	}
	errno = EAGAIN;
	return GNIO_LOCKFILE_NO_FILE;
}

void gnio_lockfile_release(struct gnio_lockfile *lf)
{
	if (lf->fd < 0)
		return;
	/* Unlink while still holding the lock: whoever opens the path from now
	 * on gets a new file, and whoever opened the old one finds the name gone
	 * once it gets the lock, and starts over. */
	unlink(lf->path);
	close(lf->fd);
	lf->fd = -1;
}
