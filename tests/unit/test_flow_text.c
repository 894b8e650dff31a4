/* SPDX-License-Identifier: MIT */
/*
 * test_flow_text.c - the rules file: what each line parses into, every
 * error path with its line, column and expectation, all-or-nothing loading,
 * defaults, comments, files, and format -> parse round trips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"
#include "gnio/flow.h"

/* Load text into a fresh flow; returns the error, leaves the message. */
static gnio_error_t load(const char *text, uint32_t *nrules)
{
	struct gnio_flow *f;
	gnio_error_t err;

	assert_ok(gnio_flow_create(NULL, &f));
	err = gnio_flow_load_string(f, text, "t.rules");
	if (nrules)
		assert_ok(gnio_flow_get_rule_count(f, nrules));
	assert_ok(gnio_flow_destroy(f));
	return err;
}

/* The load fails with INVALID_VALUE and the message starts with where and
 * contains what. */
static void expect_error(const char *text, const char *where, const char *what)
{
	gnio_error_t err = load(text, NULL);
	const char *msg = gnio_last_error_msg();

	if (err != GNIO_ERROR_INVALID_VALUE)
		fail_msg("'%s': got %s (%s), expected INVALID_VALUE", text, gnio_error_get_name(err), msg);
	if (strncmp(msg, where, strlen(where)) || !strstr(msg, what))
		fail_msg("'%s':\n  message  %s\n  expected %s ... %s", text, msg, where, what);
}

static void test_error_paths(void **state)
{
	(void)state;
	/* default */
	expect_error("default drop", "t.rules:1:9: ", "expected '->' after 'default'");
	expect_error("default -> ", "t.rules:1:12: ", "expected an action");
	expect_error("default -> teleport", "t.rules:1:12: ", "found 'teleport'");
	/* actions */
	expect_error("udp -> queue", "t.rules:1:13: ", "expected a queue number 0..65535 after 'queue', found end of line");
	expect_error("udp -> queue 70000", "t.rules:1:14: ", "expected a queue number");
	expect_error("udp -> cpu x", "t.rules:1:12: ", "expected a queue number 0..65535 after 'cpu', found 'x'");
	expect_error("udp -> rss", "t.rules:1:11: ", "expected a queue or queue range");
	expect_error("udp -> rss 0,", "t.rules:1:14: ", "in the rss list, found end of line");
	expect_error("udp -> rss 0,,1", "t.rules:1:14: ", "found ','");
	expect_error("udp -> rss 3-1", "t.rules:1:12: ", "queue range 3-1 is reversed");
	expect_error("udp -> rss 0,1,1", "t.rules:1:16: ", "queue 1 is listed twice");
	expect_error("udp -> rss 0-64", "t.rules:1:12: ", "at most 64 queues");
	expect_error("udp -> drop now", "t.rules:1:13: ", "expected end of line or '#' after the action, found 'now'");
	expect_error("udp -> drop -> kernel", "t.rules:1:13: ", "found '->'");
	/* match terms */
	expect_error("udpp -> drop", "t.rules:1:1: ", "expected a match (ipv4, ipv6, udp");
	expect_error("udp bogus -> drop", "t.rules:1:5: ", "or '->', found 'bogus'");
	expect_error(", -> drop", "t.rules:1:1: ", "expected a match or 'default', found ','");
	expect_error("udp , -> drop", "t.rules:1:5: ", "expected another match or '->' and an action, found ','");
	expect_error("udp dport 53", "t.rules:1:13: ", "expected another match or '->' and an action, found end of line");
	expect_error("-> drop", "t.rules:1:1: ", "expected a match (or 'default') before '->'");
	expect_error("udp tcp -> drop", "t.rules:1:5: ", "'tcp' conflicts with 'udp' at column 1");
	expect_error("ipv4 udp ipv6 -> drop", "t.rules:1:10: ", "'ipv6' conflicts with 'ipv4' at column 1");
	expect_error("udp dport 1 dport 2 -> drop", "t.rules:1:13: ", "'dport' given twice (first at column 5)");
	expect_error("udp default -> drop", "t.rules:1:5: ", "'default' stands alone");
	expect_error("any udp -> drop", "t.rules:1:1: ", "'any' stands alone");
	expect_error("ethertype -> drop", "t.rules:1:11: ", "expected an EtherType (0x0000..0xffff) after 'ethertype', found '->'");
	expect_error("ethertype 0x10000 -> drop", "t.rules:1:11: ", "expected an EtherType");
	expect_error("vlan 4096 -> drop", "t.rules:1:6: ", "expected a VLAN id 0..4095 after 'vlan', found '4096'");
	expect_error("src 10.0.0.300 -> drop", "t.rules:1:5: ", "expected an IPv4 or IPv6 address with an optional /prefix after 'src'");
	expect_error("dst 10.0.0.0/x -> drop", "t.rules:1:5: ", "after 'dst', found '10.0.0.0/x'");
	expect_error("dst fe80::1::2 -> drop", "t.rules:1:5: ", "after 'dst'");
	expect_error("udp sport 65536 -> drop", "t.rules:1:11: ", "expected a port or port range (N or N-M, 0..65535) after 'sport'");
	expect_error("udp dport 1-x -> drop", "t.rules:1:11: ", "after 'dport', found '1-x'");
	expect_error("udp dport -5 -> drop", "t.rules:1:11: ", "after 'dport'");
	/* checks on the whole rule name the field, at the column that set it */
	expect_error("icmp ipv6 -> drop", "t.rules:1:6: ", "match.ip: icmp is IPv4 only");
	expect_error("ipv4 icmp6 -> drop", "t.rules:1:1: ", "match.ip: icmp6 is IPv6 only");
	expect_error("ipv4 arp -> drop", "t.rules:1:1: ", "match.ip: arp is not IP");
	expect_error("dport 53 -> drop", "t.rules:1:1: ", "match.dport: ports need udp or tcp");
	expect_error("icmp sport 1 -> drop", "t.rules:1:6: ", "match.sport: ports need udp or tcp (the rule matches icmp)");
	expect_error("udp dport 90-80 -> drop", "t.rules:1:5: ", "match.dport: range 90-80 is reversed");
	expect_error("src 10.0.0.1/8 -> drop", "t.rules:1:1: ", "match.src: address has bits set past the /8 prefix");
	expect_error("src 10.0.0.0/33 -> drop", "t.rules:1:1: ", "match.src: prefix length 33 is longer than 32");
	expect_error("dst ::/129 -> drop", "t.rules:1:1: ", "match.dst: prefix length 129 is longer than 128");
	expect_error("ipv6 udp src 10.0.0.0/8 -> drop", "t.rules:1:10: ", "match.src: an IPv4 prefix contradicts the rule's IPv6 match");
	expect_error("src 10.0.0.0/8 dst ::1 -> drop", "t.rules:1:16: ", "match.dst: an IPv6 prefix, but match.src is IPv4");
	expect_error("arp src ::1 -> drop", "t.rules:1:5: ", "match.src: arp carries IPv4 addresses");
	expect_error("ipv4 ethertype 0x86dd -> drop", "t.rules:1:6: ", "match.ethertype: 0x86dd contradicts the rule's IPv4 match");
	expect_error("udp ethertype 0x0806 -> drop", "t.rules:1:5: ", "match.ethertype: 0x0806 is not IP, but the rule matches udp");
	expect_error("ethertype 0x86dd src 10.0.0.0/8 -> drop", "t.rules:1:1: ", "match.ethertype: 0x86dd contradicts the rule's IPv4 prefix");
	/* file level: the line number counts comments and blank lines */
	expect_error("# header\n\nudp -> drop\ndefault -> drop\ntcp ->\ndefault -> kernel\n", "t.rules:5:7: ",
		     "expected an action");
	expect_error("udp -> drop\ndefault -> drop\ndefault -> kernel\n", "t.rules:3:1: ",
		     "a second 'default' line (the first is line 2)");
}

static void test_too_many_rules(void **state)
{
	char *text = malloc(64 * (GNIO_FLOW_MAX_RULES + 2));
	size_t off = 0;
	uint32_t n = 7;

	(void)state;
	for (int i = 0; i <= GNIO_FLOW_MAX_RULES; i++)
		off += (size_t)sprintf(text + off, "udp dport %d -> drop\n", i);
	assert_gnio(load(text, &n), GNIO_ERROR_FULL);
	assert_non_null(strstr(gnio_last_error_msg(), "t.rules:257:1: more than 256 rules"));
	assert_int_equal(n, 0);
	/* exactly the limit loads */
	text[off - strlen("udp dport 256 -> drop\n")] = 0;
	assert_ok(load(text, &n));
	assert_int_equal(n, GNIO_FLOW_MAX_RULES);
	free(text);
}

/* A file with an error changes nothing: no rule, no default. */
static void test_all_or_nothing(void **state)
{
	struct gnio_flow *f;
	struct gnio_flow_action a;
	uint32_t n;

	(void)state;
	assert_ok(gnio_flow_create(NULL, &f));
	assert_ok(gnio_flow_load_string(f, "tcp -> drop\n", NULL));
	assert_gnio(gnio_flow_load_string(f, "udp -> kernel\ndefault -> drop\nicmp -> nowhere\n", NULL),
		    GNIO_ERROR_INVALID_VALUE);
	assert_string_equal(gnio_last_error_msg(),
			    "<string>:3:9: expected an action (gnio, queue N, rss Q1,Q2,..., cpu N, kernel, drop) "
			    "after '->', found 'nowhere'");
	assert_ok(gnio_flow_get_rule_count(f, &n));
	assert_int_equal(n, 1);
	assert_ok(gnio_flow_get_default(f, &a));
	assert_int_equal(a.type, GNIO_FLOW_ACTION_GNIO);
	assert_ok(gnio_flow_destroy(f));
}

/* What the wire cannot do is refused with line and column, and nothing is
 * added. */
static void test_not_supported_on_wire(void **state)
{
	struct gnio_dev *dev;
	struct gnio_flow *f;
	uint32_t n;

	(void)state;
	assert_ok(gnio_dev_open("sw:flowtext", &dev));
	assert_ok(gnio_flow_create(dev, &f));
	assert_gnio(gnio_flow_load_string(f, "udp -> queue 0\n  icmp   ->  kernel\n", "r.txt"),
		    GNIO_ERROR_NOT_SUPPORTED);
	assert_string_equal(gnio_last_error_msg(),
			    "r.txt:2:14: kernel on sw:flowtext: a sw wire has no host network stack behind it");
	assert_gnio(gnio_flow_load_string(f, "udp -> queue 0\ndefault -> kernel\n", "r.txt"), GNIO_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(gnio_last_error_msg(), "r.txt:2:12: kernel on sw:flowtext"));
	assert_ok(gnio_flow_get_rule_count(f, &n));
	assert_int_equal(n, 0);
	/* the wire cannot close while its flow exists */
	assert_gnio(gnio_dev_close(dev), GNIO_ERROR_BAD_STATE);
	assert_ok(gnio_flow_destroy(f));
	assert_ok(gnio_dev_close(dev));
}

static void test_parse_fields(void **state)
{
	struct gnio_flow_rule r;
	int dflt;

	(void)state;
	assert_ok(gnio_flow_rule_parse("ipv4 src 10.0.0.0/8 tcp dport 80 -> queue 1", &r, &dflt));
	assert_int_equal(dflt, 0);
	assert_int_equal(r.match.ip, GNIO_FLOW_IP_V4);
	assert_int_equal(r.match.l4, GNIO_FLOW_L4_TCP);
	assert_int_equal(r.match.fields, GNIO_FLOW_MATCH_SRC | GNIO_FLOW_MATCH_DPORT);
	assert_int_equal(r.match.src.family, 4);
	assert_int_equal(r.match.src.len, 8);
	assert_int_equal(r.match.src.addr[0], 10);
	assert_int_equal(r.match.dport_min, 80);
	assert_int_equal(r.match.dport_max, 80);
	assert_int_equal(r.action.type, GNIO_FLOW_ACTION_QUEUE);
	assert_int_equal(r.action.queue, 1);

	assert_ok(gnio_flow_rule_parse("udp dport 4791-4800 -> rss 0,1,2-3 # RoCE", &r, &dflt));
	assert_int_equal(r.match.dport_min, 4791);
	assert_int_equal(r.match.dport_max, 4800);
	assert_int_equal(r.action.type, GNIO_FLOW_ACTION_RSS);
	assert_int_equal(r.action.num_queues, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(r.action.queues[i], i);

	assert_ok(gnio_flow_rule_parse("vlan 100 ethertype 0x88F7->cpu 2", &r, &dflt));
	assert_int_equal(r.match.fields, GNIO_FLOW_MATCH_VLAN | GNIO_FLOW_MATCH_ETHERTYPE);
	assert_int_equal(r.match.vlan_id, 100);
	assert_int_equal(r.match.ethertype, 0x88f7);
	assert_int_equal(r.action.type, GNIO_FLOW_ACTION_CPU);
	assert_int_equal(r.action.queue, 2);

	assert_ok(gnio_flow_rule_parse("dst 2001:db8::/32 -> drop", &r, &dflt));
	assert_int_equal(r.match.dst.family, 6);
	assert_int_equal(r.match.dst.len, 32);
	assert_int_equal(r.match.dst.addr[1], 0x01);

	assert_ok(gnio_flow_rule_parse("\tdefault\t->\tkernel\r", &r, &dflt));
	assert_int_equal(dflt, 1);
	assert_int_equal(r.action.type, GNIO_FLOW_ACTION_KERNEL);

	assert_gnio(gnio_flow_rule_parse("udp -> dropp", &r, &dflt), GNIO_ERROR_INVALID_VALUE);
	assert_string_equal(gnio_last_error_msg(),
			    "column 8: expected an action (gnio, queue N, rss Q1,Q2,..., cpu N, kernel, drop) after "
			    "'->', found 'dropp'");
	assert_gnio(gnio_flow_rule_parse("   # only a comment", &r, &dflt), GNIO_ERROR_INVALID_VALUE);
}

static void test_comments_blank_crlf(void **state)
{
	struct gnio_flow *f;
	struct gnio_flow_rule r;
	struct gnio_flow_action a;
	uint32_t n, id;

	(void)state;
	assert_ok(gnio_flow_create(NULL, &f));
	assert_ok(gnio_flow_load_string(f,
					"# steering for the demo\r\n"
					"\r\n"
					"   \t\n"
					"icmp -> kernel   # ping stays answered\r\n"
					"arp->kernel\n"
					"udp dport 4791-4800 -> rss 0,1,2,3\n"
					"default -> drop",
					NULL));
	assert_ok(gnio_flow_get_rule_count(f, &n));
	assert_int_equal(n, 3);
	assert_ok(gnio_flow_get_rule(f, 1, &id, &r));
	assert_int_equal(r.match.l4, GNIO_FLOW_L4_ARP);
	assert_int_equal(r.action.type, GNIO_FLOW_ACTION_KERNEL);
	assert_ok(gnio_flow_get_default(f, &a));
	assert_int_equal(a.type, GNIO_FLOW_ACTION_DROP);
	/* an empty text is no rules at all */
	assert_ok(gnio_flow_load_string(f, "", NULL));
	assert_ok(gnio_flow_get_rule_count(f, &n));
	assert_int_equal(n, 3);
	assert_ok(gnio_flow_destroy(f));
}

static void test_files(void **state)
{
	char path[] = "/tmp/gnio-flow-XXXXXX";
	struct gnio_flow *f;
	uint32_t n;
	int fd;

	(void)state;
	assert_ok(gnio_flow_create(NULL, &f));
	assert_gnio(gnio_flow_load_file(f, "/nonexistent/rules.txt"), GNIO_ERROR_NOT_FOUND);
	assert_non_null(strstr(gnio_last_error_msg(), "/nonexistent/rules.txt"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "udp -> drop\ntcp dport 22 -> kernel\n", 35), 35);
	close(fd);
	assert_ok(gnio_flow_load_file(f, path));
	assert_ok(gnio_flow_get_rule_count(f, &n));
	assert_int_equal(n, 2);
	/* errors name the file */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "udp -> drop\nudp dport 99999 -> drop\n", 36), 36);
	close(fd);
	assert_gnio(gnio_flow_load_file(f, path), GNIO_ERROR_INVALID_VALUE);
	{
		char want[128];

		snprintf(want, sizeof(want), "%s:2:11: expected a port", path);
		assert_non_null(strstr(gnio_last_error_msg(), want));
	}
	/* binary junk is refused as a whole */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "udp\0 -> drop\n", 13), 13);
	close(fd);
	assert_gnio(gnio_flow_load_file(f, path), GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(gnio_last_error_msg(), "NUL byte"));
	unlink(path);
	assert_ok(gnio_flow_destroy(f));
}

/* format(rule) parses back into the same rule, and the text is canonical. */
static void test_round_trip(void **state)
{
	static const char *const lines[] = {
		"udp dport 4791-4800 -> rss 0,1,2,3",
		"icmp -> kernel",
		"arp -> kernel",
		"ipv4 tcp src 10.0.0.0/8 dport 80 -> queue 1",
		"ipv6 udp src 2001:db8::/32 dst fe80::1 sport 1-1023 dport 53 -> cpu 7",
		"icmp6 -> drop",
		"vlan 100 -> queue 3",
		"ethertype 0x88f7 -> cpu 0",
		"ipv4 -> gnio",
		"dst 192.168.1.7 -> drop",
		"arp dst 10.0.0.2 -> kernel",
		"any -> rss 5,3,1",
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct gnio_flow_rule a, b;
		int d;

		int need;

		assert_ok(gnio_flow_rule_parse(lines[i], &a, &d));
		need = gnio_flow_rule_format(&a, buf, sizeof(buf));
		assert_int_equal(need, (int)strlen(buf));
		assert_string_equal(buf, lines[i]);
		assert_ok(gnio_flow_rule_parse(buf, &b, &d));
		assert_memory_equal(&a, &b, sizeof(a));
	}
	/* a short buffer is truncated, and the length needed returned */
	{
		struct gnio_flow_rule a;
		int d;

		int need;

		assert_ok(gnio_flow_rule_parse(lines[0], &a, &d));
		need = gnio_flow_rule_format(&a, buf, 5);
		assert_int_equal(need, (int)strlen(lines[0]));
		assert_string_equal(buf, "udp ");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_paths),	    cmocka_unit_test(test_too_many_rules),
		cmocka_unit_test(test_all_or_nothing),	    cmocka_unit_test(test_not_supported_on_wire),
		cmocka_unit_test(test_parse_fields),	    cmocka_unit_test(test_comments_blank_crlf),
		cmocka_unit_test(test_files),		    cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
