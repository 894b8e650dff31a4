/* SPDX-License-Identifier: MIT */
/* samples/common/sample_opts.c - the flags every sample takes, named as
 * DOCA's samples name them, and the sample's own, in one getopt table. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long */
#endif
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnio/device/eth_def.h>
#include "sample.h"

#define MAX_FLAGS 32

static const char *const scope_names[] = {"thread", "warp", "block"};

const char *sample_scope_name(int scope)
{
	return scope >= 0 && scope <= 2 ? scope_names[scope] : "?";
}

static int parse_scope(const char *v, int *out)
{
	for (int i = 0; i < 3; i++) {
		if (!strcmp(v, scope_names[i]) || (v[0] == '0' + i && !v[1])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

static int parse_mac(const char *v, uint8_t mac[6])
{
	unsigned b[6];
	char tail;
	if (sscanf(v, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

/* Store v into the flag's destination; -1 with a reason when it is bad. */
static int set_value(const struct sample_flag *f, const char *v, char *why, size_t why_len)
{
	switch (f->type) {
	case SAMPLE_FLAG_BOOL:
		*(int *)f->dst = 1;
		return 0;
	case SAMPLE_FLAG_STR:
		*(const char **)f->dst = v;
		return 0;
	case SAMPLE_FLAG_U64: {
		char *end;
		unsigned long long n;
		if (!*v || *v == '-')
			goto bad_num;
		n = strtoull(v, &end, 10);
		if (*end || n < f->min || n > f->max)
			goto bad_num;
		*(uint64_t *)f->dst = n;
		return 0;
bad_num:
		snprintf(why, why_len, "expected a whole number from %llu to %llu", (unsigned long long)f->min,
			 (unsigned long long)f->max);
		return -1;
	}
	case SAMPLE_FLAG_IPV4: {
		struct in_addr a;
		if (inet_pton(AF_INET, v, &a) != 1) {
			snprintf(why, why_len, "expected an IPv4 address such as 10.0.0.2");
			return -1;
		}
		*(uint32_t *)f->dst = a.s_addr;
		return 0;
	}
	case SAMPLE_FLAG_MAC:
		if (parse_mac(v, f->dst)) {
			snprintf(why, why_len, "expected a MAC address such as 02:00:00:00:00:02");
			return -1;
		}
		return 0;
	case SAMPLE_FLAG_SCOPE:
		if (parse_scope(v, f->dst)) {
			snprintf(why, why_len, "expected thread, warp or block (or 0, 1, 2)");
			return -1;
		}
		return 0;
	}
	return -1;
}

static void usage(FILE *out, const char *name, const char *about, const struct sample_flag *flags, unsigned n)
{
	fprintf(out, "usage: gnio_%s [options]\n\n%s\n\noptions:\n", name, about);
	for (unsigned i = 0; i < n; i++) {
		char left[64];
		const struct sample_flag *f = &flags[i];
		if (f->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", f->short_name, f->name, f->arg ? " " : "",
				 f->arg ? f->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", f->name, f->arg ? " " : "", f->arg ? f->arg : "");
		fprintf(out, "  %-34s %s\n", left, f->help);
	}
	fprintf(out, "  %-34s %s\n", "-h, --help", "print this and exit");
	fprintf(out, "\nexit: 0 ok, 1 failed (books or kernel), 2 usage, 3 wire or device missing\n");
}

int sample_parse(int argc, char **argv, const char *name, const char *about, int scope_matters,
		 const struct sample_flag *extra, unsigned nextra, struct sample_opts *o)
{
	static char default_nic[128];
	uint64_t duration_s = 0;
	int help = 0;
	struct sample_flag flags[MAX_FLAGS];
	struct option lo[MAX_FLAGS + 1];
	char shorts[3 * MAX_FLAGS + 1];
	unsigned n = 0, ns = 0;

	memset(o, 0, sizeof(*o));
	o->scope = GNIO_GPUNETIO_ETH_EXEC_SCOPE_BLOCK;
	snprintf(default_nic, sizeof(default_nic), "sw:%s", name);
	o->nic = default_nic;

	flags[n++] = (struct sample_flag){"gpu", 'g', SAMPLE_FLAG_STR, &o->gpu, 0, 0, "BUSID|cpu",
					  "device: a GPU's PCIe bus id or cpu (default: the best present)"};
	flags[n++] = (struct sample_flag){"nic", 'n', SAMPLE_FLAG_STR, &o->nic, 0, 0, "WIRESPEC",
					  "wire: sw:NAME (built-in generator, the default), afxdp:IF, afpacket:IF, pcap:FILE"};
	if (scope_matters)
		flags[n++] = (struct sample_flag){"exec-scope", 'e', SAMPLE_FLAG_SCOPE, &o->scope, 0, 0,
						  "thread|warp|block", "who receives or sends in the kernel (default block)"};
	flags[n++] = (struct sample_flag){"duration", 'd', SAMPLE_FLAG_U64, &duration_s, 0, 86400 * 365, "S",
					  "seconds to run, 0 = until Ctrl-C (default 0)"};
	flags[n++] = (struct sample_flag){"json", 0, SAMPLE_FLAG_BOOL, &o->json, 0, 0, NULL,
					  "one JSON object as the last line of stdout"};
	for (unsigned i = 0; i < nextra && n < MAX_FLAGS - 1; i++)
		flags[n++] = extra[i];
	flags[n] = (struct sample_flag){"help", 'h', SAMPLE_FLAG_BOOL, &help, 0, 0, NULL, NULL};

	for (unsigned i = 0; i <= n; i++) {
		lo[i] = (struct option){flags[i].name, flags[i].type == SAMPLE_FLAG_BOOL ? no_argument : required_argument,
					NULL, 256 + (int)i};
		if (flags[i].short_name) {
			shorts[ns++] = flags[i].short_name;
			if (flags[i].type != SAMPLE_FLAG_BOOL)
				shorts[ns++] = ':';
		}
	}
	lo[n + 1] = (struct option){NULL, 0, NULL, 0};
	shorts[ns] = 0;

	opterr = 0;
	optind = 1;
	int c, idx;
	while ((c = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
		const struct sample_flag *f = NULL;
		if (c >= 256) {
			f = &flags[c - 256];
		} else {
			for (unsigned i = 0; i <= n; i++)
				if (flags[i].short_name && flags[i].short_name == c)
					f = &flags[i];
		}
		if (!f) {
			fprintf(stderr, "gnio_%s: unknown option, or one without its value: '%s' (try --help)\n", name,
				argv[optind - 1]);
			return SAMPLE_EXIT_USAGE;
		}
		char why[128];
		if (set_value(f, optarg, why, sizeof(why))) {
			fprintf(stderr, "gnio_%s: --%s %s: %s\n", name, f->name, optarg, why);
			return SAMPLE_EXIT_USAGE;
		}
	}
	if (help) {
		usage(stdout, name, about, flags, n);
		return SAMPLE_EXIT_OK;
	}
	if (optind < argc) {
		fprintf(stderr, "gnio_%s: unexpected argument '%s' (try --help)\n", name, argv[optind]);
		return SAMPLE_EXIT_USAGE;
	}
	o->duration = (double)duration_s;
	o->is_sw = !strncmp(o->nic, "sw:", 3);
	return -1;
}
