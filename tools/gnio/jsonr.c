/* SPDX-License-Identifier: MIT */
/* tools/gnio/jsonr.c - recursive-descent JSON reader (see jsonr.h). */
#include "jsonr.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	const char *s;
	const char *err;
	int depth;
};

static void ws(struct jp *p)
{
	while (*p->s && isspace((unsigned char)*p->s))
		p->s++;
}

static struct jv *node(enum jv_type t)
{
	struct jv *v = calloc(1, sizeof(*v));
	if (v)
		v->type = t;
	return v;
}

static char *pstring(struct jp *p)
{
	/* p->s at the opening quote */
	const char *q = ++p->s;
	size_t cap = 16, n = 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	while (*q && *q != '"') {
		char c = *q++;
		if (c == '\\') {
			c = *q++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				unsigned u = 0;
				if (sscanf(q, "%4x", &u) != 1) {
					free(out);
					p->err = "bad \\u escape";
					return NULL;
				}
				q += 4;
				c = u < 0x80 ? (char)u : '?';
				break;
			}
			case 0:
				free(out);
				p->err = "unterminated string";
				return NULL;
			default: break; /* \" \\ \/ */
			}
		}
		if (n + 2 > cap) {
			char *t = realloc(out, cap *= 2);
			if (!t) {
				free(out);
				return NULL;
			}
			out = t;
		}
		out[n++] = c;
	}
	if (*q != '"') {
		free(out);
		p->err = "unterminated string";
		return NULL;
	}
	out[n] = 0;
	p->s = q + 1;
	return out;
}

static struct jv *pvalue(struct jp *p);

static struct jv *pcontainer(struct jp *p, int obj)
{
	struct jv *v = node(obj ? JV_OBJ : JV_ARR), **tail;
	if (!v)
		return NULL;
	tail = &v->child;
	p->s++;
	ws(p);
	if (*p->s == (obj ? '}' : ']')) {
		p->s++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		ws(p);
		if (obj) {
			if (*p->s != '"') {
				p->err = "expected a member name";
				goto fail;
			}
			key = pstring(p);
			if (!key)
				goto fail;
			ws(p);
			if (*p->s != ':') {
				free(key);
				p->err = "expected ':'";
				goto fail;
			}
			p->s++;
		}
		struct jv *c = pvalue(p);
		if (!c) {
			free(key);
			goto fail;
		}
		c->key = key;
		*tail = c;
		tail = &c->next;
		ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == (obj ? '}' : ']')) {
			p->s++;
			return v;
		}
		p->err = obj ? "expected ',' or '}'" : "expected ',' or ']'";
		goto fail;
	}
fail:
	jv_free(v);
	return NULL;
}

static struct jv *pvalue(struct jp *p)
{
	struct jv *v;
	ws(p);
	if (++p->depth > 64) {
		p->err = "nested too deep";
		return NULL;
	}
	switch (*p->s) {
	case '{':
	case '[':
		v = pcontainer(p, *p->s == '{');
		break;
	case '"':
		v = node(JV_STR);
		if (v && !(v->str = pstring(p))) {
			free(v);
			v = NULL;
		}
		break;
	case 't':
	case 'f':
	case 'n': {
		const char *w = *p->s == 't' ? "true" : *p->s == 'f' ? "false" : "null";
		if (strncmp(p->s, w, strlen(w))) {
			p->err = "bad literal";
			return NULL;
		}
		v = node(*w == 'n' ? JV_NULL : JV_BOOL);
		if (v)
			v->b = *w == 't';
		p->s += strlen(w);
		break;
	}
	default: {
		char *end;
		double d = strtod(p->s, &end);
		if (end == p->s) {
			p->err = "unexpected character";
			return NULL;
		}
		v = node(JV_NUM);
		if (v) {
			v->num = d;
			v->str = strndup(p->s, (size_t)(end - p->s));
		}
		p->s = end;
	}
	}
	p->depth--;
	return v;
}

struct jv *jv_parse(const char *text, char *err, size_t err_len)
{
	struct jp p = {.s = text};
	struct jv *v = pvalue(&p);
	if (v) {
		ws(&p);
		if (*p.s) {
			p.err = "trailing characters";
			jv_free(v);
			v = NULL;
		}
	}
	if (!v && err)
		snprintf(err, err_len, "%s at offset %ld", p.err ? p.err : "out of memory", (long)(p.s - text));
	return v;
}

struct jv *jv_parse_file(const char *path, char *err, size_t err_len)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, err_len, "cannot open %s", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		snprintf(err, err_len, "cannot read %s", path);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	struct jv *v = jv_parse(buf, err, err_len);
	free(buf);
	return v;
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
	case JV_NUM: fprintf(out, "%s = %s\n", prefix, v->str ? v->str : "?"); break;
	case JV_STR: fprintf(out, "%s = \"%s\"\n", prefix, v->str); break;
	}
}
