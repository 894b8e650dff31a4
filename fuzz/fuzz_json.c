/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_json.c - libFuzzer target: the CLI's JSON reader
 * (tools/gnio/jsonr.c: jansson parses, the reader builds its tree) on the
 * input as a document, then what `gnio debug --compare` and `gnio
 * version-matrix` do with one: flatten it to "path = value" lines and look
 * members up. jansson itself is Debian's library (not instrumented); the
 * conversion and the walks are gnio's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char err[160];
	struct jv *v = jv_parse(text, err, sizeof(err));
	if (!v) {
		if (!err[0])
			abort(); /* a refusal says why */
	} else {
		char *flat = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&flat, &len);
		if (f) {
			jv_flatten(v, "", f);
			fclose(f);
		}
		free(flat);
		static const char *const keys[] = {"version", "entries", "schema", "", "a"};
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const struct jv *m = jv_get(v, keys[i]);
			const char *s = jv_get_str(v, keys[i]);
			if (s && (!m || m->type != JV_STR))
				abort(); /* a string member is a member, of type string */
		}
		jv_free(v);
	}
	free(text);
	return 0;
}
