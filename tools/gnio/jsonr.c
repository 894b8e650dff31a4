/* SPDX-License-Identifier: MIT */
/* tools/gnio/jsonr.c - JSON reading over jansson (see jsonr.h): jansson
 * parses, this file only hands its values over as a jv tree. */
#include "jsonr.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Decode flags: any top-level value; a repeated member name is an error
 * rather than a silent "last one wins". */
#define JV_DECODE (JSON_DECODE_ANY | JSON_REJECT_DUPLICATES)

static struct jv *from_jansson(const json_t *in, const char *key)
{
	struct jv *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	if (key && !(v->key = strdup(key)))
		goto fail;
	switch (json_typeof(in)) {
	case JSON_OBJECT: {
		const char *k;
		json_t *m;
		struct jv **tail = &v->child;
		v->type = JV_OBJ;
		json_object_foreach((json_t *)in, k, m) {
			if (!(*tail = from_jansson(m, k)))
				goto fail;
			tail = &(*tail)->next;
		}
		break;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *m;
		struct jv **tail = &v->child;
		v->type = JV_ARR;
		json_array_foreach(in, i, m) {
			if (!(*tail = from_jansson(m, NULL)))
				goto fail;
			tail = &(*tail)->next;
		}
		break;
	}
	case JSON_STRING:
		v->type = JV_STR;
		if (!(v->str = strdup(json_string_value(in))))
			goto fail;
		break;
	case JSON_INTEGER:
	case JSON_REAL:
		v->type = JV_NUM;
		v->num = json_number_value(in);
		/* 15 digits give back what a decimal of up to 15 digits said */
		if (!(v->str = json_dumps(in, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15))))
			goto fail;
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		v->type = JV_BOOL;
		v->b = json_is_true(in);
		break;
	case JSON_NULL:
		v->type = JV_NULL;
		break;
	}
	return v;
fail:
	jv_free(v);
	return NULL;
}

static struct jv *hand_over(json_t *doc, const json_error_t *e, char *err, size_t err_len)
{
	if (!doc) {
		if (err)
			snprintf(err, err_len, "%s at line %d, column %d", e->text, e->line, e->column);
		return NULL;
	}
	struct jv *v = from_jansson(doc, NULL);
	json_decref(doc);
	if (!v && err)
		snprintf(err, err_len, "out of memory");
	return v;
}

struct jv *jv_parse(const char *text, char *err, size_t err_len)
{
	json_error_t e;
	return hand_over(json_loads(text, JV_DECODE, &e), &e, err, err_len);
}

struct jv *jv_parse_file(const char *path, char *err, size_t err_len)
{
	json_error_t e;
	json_t *doc = json_load_file(path, JV_DECODE, &e);
	if (!doc && e.line < 0) { /* not a parse error: the file itself */
		snprintf(err, err_len, "%s", e.text);
		return NULL;
	}
	return hand_over(doc, &e, err, err_len);
}

void jv_free(struct jv *v)
{
	while (v) {
		struct jv *n = v->next;
		jv_free(v->child);
		free(v->key);
		free(v->str);
		free(v);
		v = n;
	}
}

const struct jv *jv_get(const struct jv *obj, const char *key)
{
	if (!obj || obj->type != JV_OBJ)
		return NULL;
	for (const struct jv *c = obj->child; c; c = c->next)
		if (c->key && !strcmp(c->key, key))
			return c;
	return NULL;
}

const char *jv_get_str(const struct jv *obj, const char *key)
{
	const struct jv *v = jv_get(obj, key);
	return v && v->type == JV_STR ? v->str : NULL;
}

void jv_flatten(const struct jv *v, const char *prefix, FILE *out)
{
	char path[512];
	int i = 0;
	switch (v->type) {
	case JV_OBJ:
	case JV_ARR:
		for (const struct jv *c = v->child; c; c = c->next, i++) {
			if (v->type == JV_OBJ)
				snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", c->key);
			else
				snprintf(path, sizeof(path), "%s[%d]", prefix, i);
			jv_flatten(c, path, out);
		}
		if (!v->child)
			fprintf(out, "%s = %s\n", prefix, v->type == JV_OBJ ? "{}" : "[]");
		break;
	case JV_NULL: fprintf(out, "%s = null\n", prefix); break;
	case JV_BOOL: fprintf(out, "%s = %s\n", prefix, v->b ? "true" : "false"); break;
	case JV_NUM: fprintf(out, "%s = %s\n", prefix, v->str); break;
	case JV_STR: fprintf(out, "%s = \"%s\"\n", prefix, v->str); break;
	}
}
