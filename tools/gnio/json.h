/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/json.h - the CLI's JSON writer: call-by-call building of one
 * document (objects, arrays, values in order) on top of jansson, which owns
 * all encoding. The document is held in memory and written by json_finish()
 * in one piece: compact (one line) or indented by two spaces.
 */
#ifndef GNIO_TOOLS_JSON_H
#define GNIO_TOOLS_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json_t; /* jansson's value; only json.c includes <jansson.h> */

struct json {
	FILE *f;
	int pretty;
	int depth;                           /* open containers on the stack */
	int too_deep;                        /* containers beyond the stack, left out */
	struct json_t *open[JSON_MAX_DEPTH]; /* innermost last */
	struct json_t *root;                 /* the document being built */
};

void json_init(struct json *j, FILE *f, int pretty);
void json_obj_begin(struct json *j, const char *key); /* key NULL inside arrays / at top */
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val); /* val NULL -> null */
/* Above INT64_MAX (jansson integers are signed 64-bit) a real is written. */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
/* Six significant digits; NaN and infinities are written as null. */
void json_dbl(struct json *j, const char *key, double val);
void json_bool(struct json *j, const char *key, int val);
/* jansson itself exports json_null(void), so the writer's null member is
 * json_put_null(); the macro keeps the short name at call sites (files that
 * include <jansson.h> must not include this header, or must #undef it). */
void json_put_null(struct json *j, const char *key);
#define json_null(j, key) json_put_null((j), (key))
/* Writes the document followed by a newline, flushes, frees it. */
void json_finish(struct json *j);

#endif
