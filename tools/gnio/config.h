/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/config.h - `gnio run`'s pipeline config file: YAML, read and
 * written with libyaml. The file's keys map onto the options of a run
 * (struct run_opts, run.h): each value goes through run_opt_set(), the same
 * checks a flag gets, and an error names the file, the line, the key and
 * what was expected. docs/config.md lists every key.
 *
 *	version: 1
 *	wire: sw:demo
 *	queues: {count: 2, ring: 4096}
 *	app: {name: classify}
 */
#ifndef GNIO_TOOLS_CONFIG_H
#define GNIO_TOOLS_CONFIG_H

#include <stddef.h>
#include <stdio.h>
#include "run.h"

/* Read path's keys into o. Returns -1 on success, else the exit code after
 * one line on stderr: GNIO_EXIT_ENV when the file cannot be read,
 * GNIO_EXIT_USAGE for what it says (not YAML, an unknown key, a bad value,
 * a key given twice, ...). Strings are copied into o (run_opts_free). */
int config_load(const char *path, struct run_opts *o);

/* Write o as a config file that config_load() takes back: every key, in the
 * order docs/config.md lists them, after a comment (lines without "# ";
 * NULL for none). Options that are unset (run_opt_text() NULL) are left out.
 * Returns 0, or -1 with the reason in why. */
int config_write(FILE *f, const struct run_opts *o, const char *comment, char *why, size_t why_len);

#endif
