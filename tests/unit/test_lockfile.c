/* SPDX-License-Identifier: MIT */
/*
 * test_lockfile.c - lock files (src/core/lockfile.c, used for the afxdp wire's
 * /run/gnio/afxdp-*.lock): exclusive, free again after the owner dies, and
 * removed when the owner lets go, so they do not pile up. The stress test
 * runs several processes taking and releasing one lock as fast as they can
 * and checks that no two ever hold it at once: with the unlink on release,
 * that only holds because a taker checks the path still names the inode it
 * locked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/lockfile.h"

static char dir[64];

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

static void test_exclusive_and_removed(void **state)
{
	(void)state;
	char path[128];
	struct gnio_lockfile a, b;
	snprintf(path, sizeof(path), "%s/one.lock", dir);
	assert_int_equal(gnio_lockfile_take(&a, path), GNIO_LOCKFILE_TAKEN);
	assert_true(exists(path));
	/* flock is per open file: a second take, even in this process, is busy */
	assert_int_equal(gnio_lockfile_take(&b, path), GNIO_LOCKFILE_BUSY);
	assert_int_equal(b.fd, -1);
	gnio_lockfile_release(&b); /* not held: harmless, removes nothing */
	assert_true(exists(path));
	gnio_lockfile_release(&a);
	assert_false(exists(path));
	gnio_lockfile_release(&a); /* twice: harmless */
	assert_int_equal(gnio_lockfile_take(&b, path), GNIO_LOCKFILE_TAKEN);
	gnio_lockfile_release(&b);
	assert_false(exists(path));
}

static void test_killed_owner(void **state)
{
	(void)state;
	char path[128];
	struct gnio_lockfile a;
	snprintf(path, sizeof(path), "%s/killed.lock", dir);
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct gnio_lockfile c;
		char ok = gnio_lockfile_take(&c, path) == GNIO_LOCKFILE_TAKEN;
		if (write(ready[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char ok = 0;
	assert_int_equal(read(ready[0], &ok, 1), 1);
	assert_true(ok);
	assert_int_equal(gnio_lockfile_take(&a, path), GNIO_LOCKFILE_BUSY);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* The killed owner left its file, but not its lock. */
	assert_true(exists(path));
	assert_int_equal(gnio_lockfile_take(&a, path), GNIO_LOCKFILE_TAKEN);
	gnio_lockfile_release(&a);
	assert_false(exists(path));
	close(ready[0]);
	close(ready[1]);
}

/* Files killed owners left are swept; a live owner's file and files of
 * other names stay. */
static void test_sweep(void **state)
{
	(void)state;
	char held[128], stale1[128], stale2[128], other[128];
	snprintf(held, sizeof(held), "%s/sw-held.lock", dir);
	snprintf(stale1, sizeof(stale1), "%s/sw-stale1.lock", dir);
	snprintf(stale2, sizeof(stale2), "%s/sw-stale2.lock", dir);
	snprintf(other, sizeof(other), "%s/other-stale.lock", dir);
	struct gnio_lockfile a, k1, k2, k3;
	assert_int_equal(gnio_lockfile_take(&a, held), GNIO_LOCKFILE_TAKEN);
	/* stale: taken, then the owner "dies" without its release */
	assert_int_equal(gnio_lockfile_take(&k1, stale1), GNIO_LOCKFILE_TAKEN);
	assert_int_equal(gnio_lockfile_take(&k2, stale2), GNIO_LOCKFILE_TAKEN);
	assert_int_equal(gnio_lockfile_take(&k3, other), GNIO_LOCKFILE_TAKEN);
	close(k1.fd);
	close(k2.fd);
	close(k3.fd);
	assert_int_equal(gnio_lockfile_sweep(dir, "sw-"), 2);
	assert_false(exists(stale1));
	assert_false(exists(stale2));
	assert_true(exists(held));  /* a live owner keeps it */
	assert_true(exists(other)); /* not this prefix */
	assert_int_equal(gnio_lockfile_sweep(dir, "sw-"), 0);
	/* the owner still holds a working lock */
	struct gnio_lockfile b;
	assert_int_equal(gnio_lockfile_take(&b, held), GNIO_LOCKFILE_BUSY);
	gnio_lockfile_release(&a);
	assert_false(exists(held));
	unlink(other);
	assert_int_equal(gnio_lockfile_sweep("/nonexistent-gnio-dir", "sw-"), 0);
}

static void test_missing_dir(void **state)
{
	(void)state;
	struct gnio_lockfile a;
	assert_int_equal(gnio_lockfile_take(&a, "/nonexistent-gnio-dir/x.lock"), GNIO_LOCKFILE_NO_FILE);
	assert_int_equal(a.fd, -1);
}

#define PROCS 4
#define ROUNDS 3000

static void test_no_two_owners_under_churn(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/churn.lock", dir);
	/* sh[0]: owners right now; sh[1]: times a taker found another owner
	 * inside; sh[2]: rounds done */
	uint64_t *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);
	memset(sh, 0, 4096);
	pid_t pids[PROCS];
	for (int i = 0; i < PROCS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i])
			continue;
		for (int r = 0; r < ROUNDS;) {
			struct gnio_lockfile lf;
			enum gnio_lockfile_result res = gnio_lockfile_take(&lf, path);
			if (res == GNIO_LOCKFILE_NO_FILE)
				_exit(2);
			if (res == GNIO_LOCKFILE_BUSY)
				continue;
			if (__atomic_add_fetch(&sh[0], 1, __ATOMIC_SEQ_CST) > 1)
				__atomic_add_fetch(&sh[1], 1, __ATOMIC_SEQ_CST); /* another owner is inside */
			for (volatile int spin = 0; spin < 200; spin++)
				;
			__atomic_sub_fetch(&sh[0], 1, __ATOMIC_SEQ_CST);
			__atomic_add_fetch(&sh[2], 1, __ATOMIC_SEQ_CST);
			gnio_lockfile_release(&lf);
			r++;
		}
		_exit(0);
	}
	for (int i = 0; i < PROCS; i++) {
		int st;
		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	assert_int_equal(sh[2], (uint64_t)PROCS * ROUNDS);
	if (sh[1])
		fail_msg("%llu times two processes held the lock at once", (unsigned long long)sh[1]);
	assert_false(exists(path));
	munmap(sh, 4096);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gnio-lockfile-test.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exclusive_and_removed),
		cmocka_unit_test(test_killed_owner),
		cmocka_unit_test(test_missing_dir),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_no_two_owners_under_churn),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
