/* SPDX-License-Identifier: MIT */
/* src/core/lockfile.c - exclusive lock files removed by their owner (see
 * lockfile.h for the unlink/flock race this guards against). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/lockfile.h"

/* Starting over needs another owner to unlink the file between our open and
 * our flock each time; a bound keeps a pathological case from spinning. */
#define TAKE_TRIES 1000

/* Does path still name the file open at fd (nobody unlinked or replaced it)? */
static int still_named(int fd, const char *path)
{
	struct stat held, named;
	return fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
	       held.st_ino == named.st_ino;
}

enum gnio_lockfile_result gnio_lockfile_take(struct gnio_lockfile *lf, const char *path)
{
	lf->fd = -1;
	snprintf(lf->path, sizeof(lf->path), "%s", path);
	for (int i = 0; i < TAKE_TRIES; i++) {
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
		if (still_named(fd, path)) {
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

unsigned gnio_lockfile_sweep(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	unsigned removed = 0;
	const size_t plen = strlen(prefix);
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (strncmp(e->d_name, prefix, plen) || n < 5 || strcmp(e->d_name + n - 5, ".lock"))
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		/* Locked by us: nobody owns it (a live owner keeps its flock), so
		 * remove it as its owner would have, under the lock, if the name
		 * still names what we locked. */
		if (!flock(fd, LOCK_EX | LOCK_NB) && still_named(fd, path) && !unlink(path))
			removed++;
		close(fd);
	}
	closedir(d);
	return removed;
}
