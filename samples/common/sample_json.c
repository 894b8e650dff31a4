/* SPDX-License-Identifier: MIT */
/* samples/common/sample_json.c - the one JSON object a sample prints as the
 * last line of stdout with --json. A sample emits it once, from one thread,
 * so the writer keeps its state in a static. */
#include <math.h>
#include <stdio.h>

#include "sample.h"

static int first_key;

static void key(const char *k)
{
	printf("%s\"%s\":", first_key ? "" : ",", k);
	first_key = 0;
}

static void str(const char *v)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

void sample_json_u64(const char *k, uint64_t v)
{
	key(k);
	printf("%llu", (unsigned long long)v);
}

void sample_json_f64(const char *k, double v)
{
	key(k);
	if (isfinite(v))
		printf("%.6g", v);
	else
		printf("null");
}

void sample_json_str(const char *k, const char *v)
{
	key(k);
	str(v);
}

void sample_json_bool(const char *k, int v)
{
	key(k);
	printf(v ? "true" : "false");
}

void sample_json_begin(const struct sample *s, const struct sample_books *b)
{
	first_key = 1;
	putchar('{');
	sample_json_str("sample", s->name);
	sample_json_str("wire", s->o.nic);
	sample_json_str("device", s->dev_id);
	sample_json_str("device_name", s->dev_name);
	sample_json_str("exec_scope", sample_scope_name(s->o.scope));
	sample_json_u64("offered", b->offered);
	sample_json_u64("rx_packets", b->rx_packets);
	sample_json_u64("dropped_total", b->dropped_total);
	key("dropped");
	putchar('{');
	for (int r = 0; r < GNIO_DROP_REASON_COUNT; r++) {
		if (r)
			putchar(',');
		str(gnio_drop_reason_name((enum gnio_drop_reason)r));
		printf(":%llu", (unsigned long long)b->dropped[r]);
	}
	putchar('}');
	sample_json_bool("balanced", b->balanced);
	if (b->has_tx) {
		sample_json_u64("tx_packets", b->tx.tx_packets);
		sample_json_u64("tx_errors", b->tx.tx_errors);
		sample_json_u64("tx_in_place", b->tx.tx_in_place);
	}
}

void sample_json_end(void)
{
	printf("}\n");
	fflush(stdout);
}
