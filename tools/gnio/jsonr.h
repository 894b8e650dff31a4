/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/jsonr.h - reading JSON files the CLI itself wrote (version
 * matrix, configure snapshots, debug captures). jansson parses; the result
 * is handed over as a small tree that the callers walk (child/next) and look
 * up by key.
 */
#ifndef GNIO_TOOLS_JSONR_H
#define GNIO_TOOLS_JSONR_H

#include <stddef.h>
#include <stdio.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	char *key;          /* member name inside an object, else NULL */
	char *str;          /* JV_STR value; JV_NUM as jansson writes it */
	double num;
	int b;
	struct jv *child;   /* first element / member, in document order */
	struct jv *next;    /* next sibling */
};

/* Parse text; NULL on error with jansson's reason, line and column in err. */
struct jv *jv_parse(const char *text, char *err, size_t err_len);
struct jv *jv_parse_file(const char *path, char *err, size_t err_len);
void jv_free(struct jv *v);
/* Member of an object by name, NULL if absent or not an object. */
const struct jv *jv_get(const struct jv *obj, const char *key);
/* String member or NULL (also NULL for JSON null). */
const char *jv_get_str(const struct jv *obj, const char *key);
/* Write "path = value" lines for every leaf, in document order. */
void jv_flatten(const struct jv *v, const char *prefix, FILE *out);

#endif
