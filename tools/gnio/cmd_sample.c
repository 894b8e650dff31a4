/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_sample.c - `gnio sample`: the modify step's starting point.
 *
 *   gnio sample list [--json]   the samples and what each shows
 *   gnio sample new NAME DIR    copy sample NAME, with the common/ files it
 *                               shares, into DIR (which must not exist): a
 *                               folder that builds on its own against the
 *                               installed gnio (CMake or pkg-config)
 *
 * The samples are found in $GNIO_SAMPLES_DIR, else next to this program
 * (<prefix>/share/gnio/samples when installed), else in the source tree it
 * was built from.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "json.h"
#include "probe.h" /* strfmt */

#define MAX_SAMPLES 64

struct sample_info {
	char name[64];
	char summary[200];
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio sample list [--json]\n"
		   "       gnio sample new NAME DIR\n\n"
		   "The samples are small programs to start your own from: a persistent kernel\n"
		   "(CUDA, and a CPU-device body for -g cpu) with the host code around it.\n"
		   "  list          the samples and what each shows\n"
		   "  new NAME DIR  copy sample NAME (and the common/ files it uses) into DIR,\n"
		   "                which must not exist; it builds on its own against the\n"
		   "                installed gnio (cmake or make: see DIR/README.md)\n"
		   "  --json        list: one JSON object {dir, samples[{name, summary}]}\n"
		   "Samples are read from $GNIO_SAMPLES_DIR, else <prefix>/share/gnio/samples.\n"
		   "Exit: 0 done, 1 a copy failed, 2 usage (no such sample, DIR exists),\n"
		   "      3 no samples found.\n");
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* <prefix> when this program runs from <prefix>/bin, else "". */
static void install_prefix(char *out, size_t len)
{
	char exe[PATH_MAX];
	out[0] = 0;
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (k <= 0)
		return;
	exe[k] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = 0;
	slash = strrchr(exe, '/');
	if (!slash || strcmp(slash, "/bin"))
		return;
	*slash = 0;
	strfmt(out, len, "%s", exe[0] ? exe : "/");
}

static int samples_dir(char *out, size_t len)
{
	char prefix[PATH_MAX];
	const char *env = getenv("GNIO_SAMPLES_DIR");
	if (env && *env) {
		strfmt(out, len, "%s", env);
		return is_dir(out) ? 0 : -1;
	}
	install_prefix(prefix, sizeof(prefix));
	if (prefix[0]) {
		strfmt(out, len, "%s/share/gnio/samples", prefix);
		if (is_dir(out))
			return 0;
	}
#ifdef GNIO_SOURCE_SAMPLES_DIR
	strfmt(out, len, "%s", GNIO_SOURCE_SAMPLES_DIR);
	if (is_dir(out))
		return 0;
#endif
	return -1;
}

/* A sample is a folder with a README.md whose title reads "# NAME: summary"
 * and a CMakeLists.txt. */
static int read_sample(const char *dir, const char *name, struct sample_info *s)
{
	char p[PATH_MAX + 64], line[512];
	strfmt(p, sizeof(p), "%s/%s/CMakeLists.txt", dir, name);
	if (access(p, R_OK))
		return -1;
	strfmt(p, sizeof(p), "%s/%s/README.md", dir, name);
	FILE *f = fopen(p, "r");
	if (!f)
		return -1;
	int ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!ok || strncmp(line, "# ", 2))
		return -1;
	line[strcspn(line, "\r\n")] = 0;
	const char *colon = strstr(line, ": ");
	strfmt(s->name, sizeof(s->name), "%s", name);
	strfmt(s->summary, sizeof(s->summary), "%s", colon ? colon + 2 : "");
	return 0;
}

static int cmp_info(const void *a, const void *b)
{
	return strcmp(((const struct sample_info *)a)->name, ((const struct sample_info *)b)->name);
}

static int list_samples(const char *dir, struct sample_info *out, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "common"))
			continue;
		if (read_sample(dir, e->d_name, &out[n]) == 0)
			n++;
	}
	closedir(d);
	qsort(out, (size_t)n, sizeof(*out), cmp_info);
	return n;
}

static int cmd_list(const char *dir, int json)
{
	static struct sample_info s[MAX_SAMPLES];
	int n = list_samples(dir, s, MAX_SAMPLES);
	if (json) {
		struct json j;
		json_init(&j, stdout, 0);
		json_obj_begin(&j, NULL);
		json_str(&j, "dir", dir);
		json_arr_begin(&j, "samples");
		for (int i = 0; i < n; i++) {
			json_obj_begin(&j, NULL);
			json_str(&j, "name", s[i].name);
			json_str(&j, "summary", s[i].summary);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
		json_finish(&j);
	} else {
		printf("samples in %s (gnio sample new NAME DIR copies one):\n", dir);
		for (int i = 0; i < n; i++)
			printf("  %-20s %s\n", s[i].name, s[i].summary);
	}
	return n ? GNIO_EXIT_OK : GNIO_EXIT_ENV;
}

/* Build outputs a sample folder may hold once built in place: not copied. */
static int skip_entry(const char *name)
{
	return name[0] == '.' || !strcmp(name, "obj") || !strcmp(name, "build") || !strncmp(name, "gnio_", 5);
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
	if (out < 0) {
		close(in);
		return -1;
	}
	ssize_t r;
	int err = 0;
	while ((r = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t done = 0; done < r;) {
			ssize_t w = write(out, buf + done, (size_t)(r - done));
			if (w <= 0) {
				err = 1;
				break;
			}
			done += w;
		}
		if (err)
			break;
	}
	if (r < 0)
		err = 1;
	close(in);
	if (close(out))
		err = 1;
	return err ? -1 : 0;
}

/* Copy the regular files of folder from (not its subfolders) into to,
 * which is created. Returns the number copied, or -1 (errno set). */
static int copy_dir_files(const char *from, const char *to)
{
	if (mkdir(to, 0755))
		return -1;
	DIR *d = opendir(from);
	if (!d)
		return -1;
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		char src[PATH_MAX + 256], dst[PATH_MAX + 256];
		struct stat st;
		if (skip_entry(e->d_name))
			continue;
		strfmt(src, sizeof(src), "%s/%s", from, e->d_name);
		strfmt(dst, sizeof(dst), "%s/%s", to, e->d_name);
		if (stat(src, &st) || !S_ISREG(st.st_mode))
			continue;
		if (copy_file(src, dst, st.st_mode)) {
			int saved = errno;
			closedir(d);
			errno = saved;
			return -1;
		}
		n++;
	}
	closedir(d);
	return n;
}

static int mkdir_parents(const char *path)
{
	char p[PATH_MAX];
	strfmt(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return 0;
}

static int cmd_new(const char *dir, const char *name, const char *to)
{
	struct sample_info s;
	struct stat st;
	char from[PATH_MAX + 64], common_from[PATH_MAX + 64], common_to[PATH_MAX + 64], prefix[PATH_MAX];
	if (strchr(name, '/') || !strcmp(name, "common") || read_sample(dir, name, &s)) {
		fprintf(stderr, "gnio sample new: no sample '%s' in %s (gnio sample list)\n", name, dir);
		return GNIO_EXIT_USAGE;
	}
	if (strlen(to) > PATH_MAX - 300 || strlen(dir) > PATH_MAX - 300) {
		fprintf(stderr, "gnio sample new: path too long\n");
		return GNIO_EXIT_USAGE;
	}
	if (lstat(to, &st) == 0) {
		fprintf(stderr, "gnio sample new: %s exists; not overwriting it (give a new directory)\n", to);
		return GNIO_EXIT_USAGE;
	}
	strfmt(from, sizeof(from), "%s/%s", dir, name);
	strfmt(common_from, sizeof(common_from), "%s/common", dir);
	strfmt(common_to, sizeof(common_to), "%s/common", to);
	int n1, n2 = 0;
	if (mkdir_parents(to) || (n1 = copy_dir_files(from, to)) < 0 ||
	    (n2 = copy_dir_files(common_from, common_to)) < 0) {
		fprintf(stderr, "gnio sample new: copying %s into %s: %s\n", name, to, strerror(errno));
		return GNIO_EXIT_FAIL;
	}
	install_prefix(prefix, sizeof(prefix));
	printf("gnio sample new: %s copied into %s (%d files, and %d in common/)\n", name, to, n1, n2);
	printf("build it against the installed gnio:\n");
	printf("  cmake -S %s -B %s/build%s%s && cmake --build %s/build\n", to, to,
	       prefix[0] ? " -DCMAKE_PREFIX_PATH=" : "", prefix, to);
	printf("  %s/build/gnio_%s -g cpu -d 5      (on sw, with its built-in generator)\n", to, name);
#ifdef GNIO_INSTALL_LIBDIR
	const char *libdir = GNIO_INSTALL_LIBDIR;
#else
	const char *libdir = "lib";
#endif
	if (prefix[0])
		printf("or with pkg-config: cd %s && PKG_CONFIG_PATH=%s/%s/pkgconfig make\n", to, prefix, libdir);
	else
		printf("or with pkg-config: cd %s && PKG_CONFIG_PATH=<gnio prefix>/%s/pkgconfig make\n", to, libdir);
	return GNIO_EXIT_OK;
}

int gnio_cmd_sample(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	int json = 0, c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return GNIO_EXIT_OK;
		default:
			fprintf(stderr, "gnio sample: unknown option '%s' (try gnio sample --help)\n", argv[optind - 1]);
			return GNIO_EXIT_USAGE;
		}
	}
	/* Options may also follow the subcommand (gnio sample list --json). */
	int rest = argc - optind;
	char **args = argv + optind;
	if (rest >= 1 && !strcmp(args[rest - 1], "--json")) {
		json = 1;
		rest--;
	}
	if (rest < 1) {
		usage(stderr);
		return GNIO_EXIT_USAGE;
	}
	char dir[PATH_MAX + 64];
	if (samples_dir(dir, sizeof(dir))) {
		fprintf(stderr, "gnio sample: no samples found (set GNIO_SAMPLES_DIR, or install gnio: they go to "
			"<prefix>/share/gnio/samples)\n");
		return GNIO_EXIT_ENV;
	}
	if (!strcmp(args[0], "list") && rest == 1)
		return cmd_list(dir, json);
	if (!strcmp(args[0], "new") && rest == 3 && !json)
		return cmd_new(dir, args[1], args[2]);
	fprintf(stderr, "gnio sample: expected 'list' or 'new NAME DIR' (try gnio sample --help)\n");
	return GNIO_EXIT_USAGE;
}
