/* SPDX-License-Identifier: MIT */
#include "json.h"
#include <math.h>
#include <string.h>

void json_init(struct json *j, FILE *f, int pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void put_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

static void key(struct json *j, const char *k)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = 1;
	if (j->depth > 0)
		indent(j);
	if (k) {
		put_escaped(j->f, k);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

void json_obj_begin(struct json *j, const char *k)
{
	key(j, k);
	fputc('{', j->f);
	if (j->depth < 31)
		j->depth++;
	j->need_comma[j->depth] = 0;
}

void json_obj_end(struct json *j)
{
	int had = j->need_comma[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc('}', j->f);
}

void json_arr_begin(struct json *j, const char *k)
{
	key(j, k);
	fputc('[', j->f);
	if (j->depth < 31)
		j->depth++;
	j->need_comma[j->depth] = 0;
}

void json_arr_end(struct json *j)
{
	int had = j->need_comma[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(']', j->f);
}

void json_str(struct json *j, const char *k, const char *v)
{
	key(j, k);
	if (v)
		put_escaped(j->f, v);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *k, uint64_t v)
{
	key(j, k);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *k, int64_t v)
{
	key(j, k);
	fprintf(j->f, "%lld", (long long)v);
}

void json_dbl(struct json *j, const char *k, double v)
{
	key(j, k);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *k, int v)
{
	key(j, k);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *k)
{
	key(j, k);
	fputs("null", j->f);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
