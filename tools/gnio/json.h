/* SPDX-License-Identifier: MIT */
/* tools/gnio/json.h - a small streaming JSON writer for the CLI's --json
 * output. Tracks commas and nesting; escapes strings. */
#ifndef GNIO_TOOLS_JSON_H
#define GNIO_TOOLS_JSON_H

#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *f;
	int depth;
	int need_comma[32];
	int pretty;
};

void json_init(struct json *j, FILE *f, int pretty);
void json_obj_begin(struct json *j, const char *key); /* key NULL inside arrays / at top */
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val); /* val NULL -> null */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_dbl(struct json *j, const char *key, double val);
void json_bool(struct json *j, const char *key, int val);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json *j);

#endif
