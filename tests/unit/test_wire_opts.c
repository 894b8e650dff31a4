/* SPDX-License-Identifier: MIT */
/*
 * test_wire_opts.c - wire specs with options a wire does not know (typos) are
 * refused by gnio_dev_open for every wire kind built in, with INVALID_VALUE,
 * a message that names the option and lists the valid ones; options given
 * twice or without a name are refused too; known options still pass.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"

/* The option names each wire parses, as its error message must list them. */
static const struct {
	const char *kind;
	const char *typo_spec;  /* one misspelt option */
	const char *typo;       /* the name as written */
	const char *valid;      /* what the message lists */
	const char *good_spec;  /* every option spelt right: must get past the check */
} kinds[] = {
	{"sw", "sw:wo_sw,dpeth=8", "dpeth", "depth,queues", "sw:wo_sw,depth=8,queues=2"},
	{"null", "null:wo_null,szie=64", "szie", "size", "null:wo_null,size=64"},
	{"pcap", "pcap:,out=/nonexistent/wo.pcap,lopo=2", "lopo", "out,loop,timing",
	 "pcap:/nonexistent/wo.pcap,loop=2,timing=fast"},
	{"afxdp", "afxdp:gnio_no_if0,mdoe=skb", "mdoe", "mode,copy,zc,umem,frames,force",
	 "afxdp:gnio_no_if0,mode=skb,copy=1,umem=internal,frames=64,force=1"},
	{"afpacket", "afpacket:gnio_no_if0,promsic=1", "promsic", "promisc,bypass,blocks,tov",
	 "afpacket:gnio_no_if0,promisc=1,bypass,blocks=4,tov=2"},
};

/* Is the kind built into this library? */
static int built_in(const char *kind)
{
	struct gnio_dev *dev = NULL;
	char spec[64];
	snprintf(spec, sizeof(spec), "%s:", kind);
	gnio_error_t err = gnio_dev_open(spec, &dev);
	if (err == GNIO_SUCCESS)
		gnio_dev_close(dev);
	return !(err == GNIO_ERROR_NOT_FOUND && strstr(gnio_last_error_msg(), "unknown wire kind"));
}

static void test_typo_refused_by_every_wire(void **state)
{
	(void)state;
	unsigned tried = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!built_in(kinds[i].kind)) {
			print_message("skip %s: not built into this library\n", kinds[i].kind);
			continue;
		}
		struct gnio_dev *dev = NULL;
		char want[160];
		assert_gnio(gnio_dev_open(kinds[i].typo_spec, &dev), GNIO_ERROR_INVALID_VALUE);
		assert_null(dev);
		const char *msg = gnio_last_error_msg();
		snprintf(want, sizeof(want), "unknown option '%s'", kinds[i].typo);
		if (!strstr(msg, want) || !strstr(msg, kinds[i].valid))
			fail_msg("%s: message '%s' does not name '%s' and list '%s'", kinds[i].kind, msg,
				 kinds[i].typo, kinds[i].valid);
		tried++;
	}
	assert_true(tried >= 3); /* sw, null and pcap at least */
}

static void test_known_options_pass(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!built_in(kinds[i].kind))
			continue;
		struct gnio_dev *dev = NULL;
		gnio_error_t err = gnio_dev_open(kinds[i].good_spec, &dev);
		/* The netdev and file wires then fail on the missing interface or
		 * file, which proves the option check let them through. */
		if (err == GNIO_SUCCESS)
			assert_ok(gnio_dev_close(dev));
		else if (err != GNIO_ERROR_NOT_FOUND && err != GNIO_ERROR_NOT_PERMITTED)
			fail_msg("%s: %s returned %s: %s", kinds[i].kind, kinds[i].good_spec, gnio_error_get_name(err),
				 gnio_last_error_msg());
	}
}

static void test_duplicates_and_nameless(void **state)
{
	(void)state;
	struct gnio_dev *dev = NULL;
	assert_gnio(gnio_dev_open("sw:wo_dup,depth=8,depth=16", &dev), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "'depth' is given more than once"));
	assert_gnio(gnio_dev_open("null:wo_dup,size=64,size", &dev), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_dev_open("null:wo_dup,=64", &dev), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "has no name"));
	/* A prefix of a valid name is not that name. */
	assert_gnio(gnio_dev_open("sw:wo_dup,dep=8", &dev), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_dev_open("sw:wo_dup,depths=8", &dev), GNIO_ERROR_INVALID_VALUE);
	assert_null(dev);
	/* Empty items are harmless. */
	assert_ok(gnio_dev_open("sw:wo_dup,,depth=8,", &dev));
	assert_ok(gnio_dev_close(dev));
}

/* Option values: numbers are decimal and in range, flags are 0 or 1. */
static void test_values_strict(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"pcap:,out=/nonexistent/v.pcap,loop=abc", "pcap:,out=/nonexistent/v.pcap,loop=-1",
		"pcap:,out=/nonexistent/v.pcap,loop=2x", "pcap:,out=/nonexistent/v.pcap,loop=99999999999",
		"afpacket:gnio_no_if0,promisc=yes", "afpacket:gnio_no_if0,bypass=2", "afpacket:gnio_no_if0,blocks=0x10",
		"afpacket:gnio_no_if0,tov=", "afxdp:gnio_no_if0,copy=2", "afxdp:gnio_no_if0,zc=on",
		"afxdp:gnio_no_if0,force=-1", "afxdp:gnio_no_if0,frames=100", "afxdp:gnio_no_if0,frames=+64",
		"afxdp:gnio_no_if0,copy,zc", "null:v,size=64k", "sw:v,depth=-5",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char kind[16];
		snprintf(kind, sizeof(kind), "%.*s", (int)strcspn(bad[i], ":"), bad[i]);
		if (!built_in(kind))
			continue;
		struct gnio_dev *dev = NULL;
		gnio_error_t e = gnio_dev_open(bad[i], &dev);
		if (e != GNIO_ERROR_INVALID_VALUE)
			fail_msg("%s: %s (%s), expected INVALID_VALUE", bad[i], gnio_error_get_name(e), gnio_last_error_msg());
		assert_null(dev);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_typo_refused_by_every_wire),
		cmocka_unit_test(test_known_options_pass),
		cmocka_unit_test(test_duplicates_and_nameless),
		cmocka_unit_test(test_values_strict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
