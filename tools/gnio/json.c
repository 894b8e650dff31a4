/* SPDX-License-Identifier: MIT */
/* tools/gnio/json.c - the CLI's JSON writer over jansson (see json.h). */
#include <jansson.h>

#include "json.h"
#undef json_null /* below, json_null() is jansson's constructor */

#include <math.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json *j, FILE *f, int pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

/* Attach v (a new reference, consumed) under key in the innermost open
 * container, or make it the document. Keys keep their insertion order. */
static void put(struct json *j, const char *key, json_t *v)
{
	if (!v)
		return; /* out of memory: the member is left out */
	if (j->too_deep) {
		json_decref(v);
		return;
	}
	if (j->depth == 0) {
		json_decref(j->root);
		j->root = v;
		return;
	}
	json_t *parent = j->open[j->depth - 1];
	if (json_is_object(parent))
		json_object_set_new(parent, key ? key : "", v); /* decrefs v on failure */
	else
		json_array_append_new(parent, v);
}

/* The open stack holds a reference of its own to each container, so a
 * container that could not be attached is still safe to write into. */
static void begin(struct json *j, const char *key, json_t *c)
{
	if (j->too_deep || j->depth == JSON_MAX_DEPTH || !c) {
		json_decref(c);
		j->too_deep++; /* everything until the matching end is left out */
		return;
	}
	put(j, key, json_incref(c));
	j->open[j->depth++] = c;
}

static void end(struct json *j)
{
	if (j->too_deep)
		j->too_deep--;
	else if (j->depth > 0)
		json_decref(j->open[--j->depth]);
}

void json_obj_begin(struct json *j, const char *key) { begin(j, key, json_object()); }
void json_obj_end(struct json *j) { end(j); }
void json_arr_begin(struct json *j, const char *key) { begin(j, key, json_array()); }
void json_arr_end(struct json *j) { end(j); }

/* jansson takes UTF-8 only. Text that is not (a path or a driver string in
 * another encoding) keeps its ASCII and shows '?' for every other byte,
 * rather than losing the member. */
static json_t *string_value(const char *val)
{
	json_t *v = json_string(val);
	if (v)
		return v;
	char *ascii = strdup(val);
	if (!ascii)
		return NULL;
	for (char *c = ascii; *c; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	v = json_string(ascii);
	free(ascii);
	return v;
}

void json_str(struct json *j, const char *key, const char *val)
{
	put(j, key, val ? string_value(val) : json_null());
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	put(j, key, val <= INT64_MAX ? json_integer((json_int_t)val) : json_real((double)val));
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	put(j, key, json_integer((json_int_t)val));
}

void json_dbl(struct json *j, const char *key, double val)
{
	put(j, key, isfinite(val) ? json_real(val) : json_null());
}

void json_bool(struct json *j, const char *key, int val)
{
	put(j, key, json_boolean(val));
}

void json_put_null(struct json *j, const char *key)
{
	put(j, key, json_null());
}

void json_finish(struct json *j)
{
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6) |
		       (j->pretty ? JSON_INDENT(2) : JSON_COMPACT);
	if (j->root)
		json_dumpf(j->root, j->f, flags);
	fputc('\n', j->f);
	fflush(j->f);
	while (j->depth > 0) /* containers left open by the caller */
		json_decref(j->open[--j->depth]);
	json_decref(j->root);
	j->root = NULL;
	j->too_deep = 0;
}
