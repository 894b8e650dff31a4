/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_version_matrix.c - `gnio version-matrix [NAME]`: which
 * version of which library introduced a capability. The matrix is generated
 * at build time from @since tags in the public headers; this verb only reads
 * it.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands.h"
#include "json.h"
#include "jsonr.h"
#include "probe.h"

/* Candidate locations, most specific first. Returns the first readable one. */
static const char *find_matrix(char *buf, size_t len, char *tried, size_t tried_len)
{
	char exe[PATH_MAX], dir[PATH_MAX];
	const char *cands[6];
	int n = 0;
	static char c_exe1[PATH_MAX + 64], c_exe2[PATH_MAX + 64];

	/* An explicit override is the only place looked at. */
	const char *env = getenv("GNIO_VERSION_MATRIX");
	if (env)
		cands[n++] = env;
	else {
#ifdef GNIO_BUILD_SHARE_DIR
	cands[n++] = GNIO_BUILD_SHARE_DIR "/version-matrix.json";
#endif
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (k > 0) {
		exe[k] = 0;
		strfmt(dir, sizeof(dir), "%s", exe);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		/* build tree: <build>/gnio next to <build>/share; install: <prefix>/bin */
		strfmt(c_exe1, sizeof(c_exe1), "%s/share/gnio/version-matrix.json", dir);
		strfmt(c_exe2, sizeof(c_exe2), "%s/../share/gnio/version-matrix.json", dir);
		cands[n++] = c_exe1;
		cands[n++] = c_exe2;
	}
#ifdef GNIO_SHARE_DIR
	cands[n++] = GNIO_SHARE_DIR "/version-matrix.json";
#endif
	}
	tried[0] = 0;
	for (int i = 0; i < n; i++) {
		if (access(cands[i], R_OK) == 0) {
			strfmt(buf, len, "%s", cands[i]);
			return buf;
		}
		size_t t = strlen(tried);
		strfmt(tried + t, tried_len - t, "%s%s", t ? ", " : "", cands[i]);
	}
	return NULL;
}

static int matches(const struct jv *e, const char *name, int exact)
{
	const char *cap = jv_get_str(e, "capability"), *sym = jv_get_str(e, "symbol");
	const char *disp = jv_get_str(e, "display_name");
	if (exact)
		return (cap && !strcmp(cap, name)) || (sym && !strcmp(sym, name));
	return (cap && strcasestr(cap, name)) || (disp && strcasestr(disp, name)) || (sym && strcasestr(sym, name));
}

static void entry_json(struct json *j, const struct jv *e)
{
	static const char *const keys[] = {"library", "capability", "display_name", "min_version", "max_version",
					   "source", "symbol", "kind"};
	json_obj_begin(j, NULL);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		json_str(j, keys[i], jv_get_str(e, keys[i]));
	json_obj_end(j);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio version-matrix [NAME] [--json]\n\n"
		   "Look up which version introduced a capability. NAME matches a capability or\n"
		   "symbol exactly, else any capability, display name or symbol containing it\n"
		   "(case-insensitive). Without NAME, lists every entry.\n"
		   "  --json   {matrix, gnio_version, generated_at, entries[...]}\n"
		   "The matrix is share/gnio/version-matrix.json, generated at build time from\n"
		   "the @since tags in include/gnio (GNIO_VERSION_MATRIX=FILE overrides).\n"
		   "Exit: 0 found, 1 no entry matches, 2 usage error, 3 matrix file missing.\n");
}

int gnio_cmd_version_matrix(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int as_json = 0, c;
	const char *name = NULL;
	char path[PATH_MAX], tried[2048], err[256];

	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': as_json = 1; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		default: usage(stderr); return GNIO_EXIT_USAGE;
		}
	}
	if (optind < argc)
		name = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "gnio version-matrix: one NAME at most ('%s' is extra)\n", argv[optind]);
		return GNIO_EXIT_USAGE;
	}
	if (!find_matrix(path, sizeof(path), tried, sizeof(tried))) {
		fprintf(stderr, "gnio version-matrix: version-matrix.json not found (looked in %s); it is generated "
				"at build time by scripts/gen-version-matrix.py\n", tried);
		return GNIO_EXIT_ENV;
	}
	struct jv *doc = jv_parse_file(path, err, sizeof(err));
	if (!doc) {
		fprintf(stderr, "gnio version-matrix: %s: %s\n", path, err);
		return GNIO_EXIT_FAIL;
	}
	const struct jv *entries = jv_get(doc, "entries");
	if (!entries || entries->type != JV_ARR) {
		fprintf(stderr, "gnio version-matrix: %s has no entries array\n", path);
		jv_free(doc);
		return GNIO_EXIT_FAIL;
	}

	/* Exact matches win; otherwise substring matches. */
	int exact = 0, found = 0;
	if (name)
		for (const struct jv *e = entries->child; e; e = e->next)
			exact |= matches(e, name, 1);

	struct json j;
	if (as_json) {
		json_init(&j, stdout, 1);
		json_obj_begin(&j, NULL);
		json_str(&j, "matrix", path);
		json_str(&j, "gnio_version", jv_get_str(doc, "gnio_version"));
		json_str(&j, "generated_at", jv_get_str(doc, "generated_at"));
		json_str(&j, "query", name);
		json_arr_begin(&j, "entries");
	}
	for (const struct jv *e = entries->child; e; e = e->next) {
		if (name && !matches(e, name, exact))
			continue;
		found++;
		if (as_json) {
			entry_json(&j, e);
		} else {
			if (found == 1)
				printf("%-8s %-22s %-6s %-6s %-40s %s\n", "library", "capability", "since", "until",
				       "display name", "source");
			const char *mx = jv_get_str(e, "max_version");
			printf("%-8s %-22s %-6s %-6s %-40s %s (%s)\n", jv_get_str(e, "library"),
			       jv_get_str(e, "capability"), jv_get_str(e, "min_version"), mx ? mx : "-",
			       jv_get_str(e, "display_name"), jv_get_str(e, "source"), jv_get_str(e, "symbol"));
		}
	}
	if (as_json) {
		json_arr_end(&j);
		json_obj_end(&j);
		json_finish(&j);
	}
	jv_free(doc);
	if (!found) {
		fprintf(stderr, "gnio version-matrix: no capability matches '%s' (run `gnio version-matrix` to list all)\n",
			name);
		return GNIO_EXIT_FAIL;
	}
	return GNIO_EXIT_OK;
}
