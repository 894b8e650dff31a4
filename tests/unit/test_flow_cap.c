/* SPDX-License-Identifier: MIT */
/*
 * test_flow_cap.c - which steering actions each wire kind can carry out:
 * sw, null and pcap do everything in the proxy but `kernel` (no host stack
 * behind them); no wire accepts everything; afpacket on lo (when this
 * process may open it) accepts kernel and drop with the AF_PACKET caveat in
 * the reason; a flow refuses a rule its wire cannot carry out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"
#include "gnio/flow.h"

static void expect_caps(const char *spec, int kernel_ok)
{
	struct gnio_dev *dev;
	struct gnio_devinfo *info;
	char how[256];

	assert_ok(gnio_dev_open(spec, &dev));
	info = gnio_dev_as_devinfo(dev);
	for (int a = 0; a < GNIO_FLOW_ACTION_COUNT_; a++) {
		gnio_error_t e = gnio_flow_cap_describe_action(info, (enum gnio_flow_action_type)a, how, sizeof(how));
		int want_ok = a != GNIO_FLOW_ACTION_KERNEL || kernel_ok;

		if ((e == GNIO_SUCCESS) != want_ok)
			fail_msg("%s: %s is %s (%s)", spec, gnio_flow_action_name((enum gnio_flow_action_type)a),
				 gnio_error_get_name(e), how);
		assert_true(strlen(how) > 5); /* always says how or why */
		assert_gnio(gnio_flow_cap_is_action_supported(info, (enum gnio_flow_action_type)a), e);
		if (e)
			assert_non_null(strstr(gnio_last_error_msg(), how));
	}
	assert_gnio(gnio_flow_cap_is_action_supported(info, GNIO_FLOW_ACTION_COUNT_), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_dev_close(dev));
}

static void test_software_wires(void **state)
{
	char path[] = "/tmp/gnio-flowcap-XXXXXX.pcap";

	(void)state;
	expect_caps("sw:flowcap", 0);
	expect_caps("null:flowcap", 0);
	{
		char spec[64];

		snprintf(spec, sizeof(spec), "pcap:,out=%s", path);
		expect_caps(spec, 0);
		remove(path);
	}
	for (int a = 0; a < GNIO_FLOW_ACTION_COUNT_; a++)
		assert_ok(gnio_flow_cap_is_action_supported(NULL, (enum gnio_flow_action_type)a));
}

static void test_afpacket(void **state)
{
	struct gnio_dev *dev;
	char how[256];

	(void)state;
	if (gnio_dev_open("afpacket:lo", &dev) != GNIO_SUCCESS) {
		print_message("skipped: afpacket:lo does not open here (%s)\n", gnio_last_error_msg());
		skip();
	}
	assert_ok(gnio_dev_close(dev));
	expect_caps("afpacket:lo", 1);
	assert_ok(gnio_dev_open("afpacket:lo", &dev));
	assert_ok(gnio_flow_cap_describe_action(gnio_dev_as_devinfo(dev), GNIO_FLOW_ACTION_DROP, how, sizeof(how)));
	assert_non_null(strstr(how, "cannot keep a frame from the host stack"));
	assert_ok(gnio_dev_close(dev));
}

static void test_flow_refuses(void **state)
{
	struct gnio_dev *dev;
	struct gnio_flow *f;
	struct gnio_flow_rule r;
	struct gnio_flow_action a = {.type = GNIO_FLOW_ACTION_KERNEL};
	uint32_t id, n;

	(void)state;
	assert_ok(gnio_dev_open("null:flowcap2", &dev));
	assert_ok(gnio_flow_create(dev, &f));
	gnio_flow_rule_init(&r);
	r.match.l4 = GNIO_FLOW_L4_ICMP;
	r.action.type = GNIO_FLOW_ACTION_KERNEL;
	assert_gnio(gnio_flow_rule_add(f, &r, &id), GNIO_ERROR_NOT_SUPPORTED);
	assert_string_equal(gnio_last_error_msg(), "kernel on null:flowcap2: a null wire has no host network stack behind it");
	assert_gnio(gnio_flow_set_default(f, &a), GNIO_ERROR_NOT_SUPPORTED);
	r.action.type = GNIO_FLOW_ACTION_DROP;
	assert_ok(gnio_flow_rule_add(f, &r, &id));
	assert_ok(gnio_flow_get_rule_count(f, &n));
	assert_int_equal(n, 1);
	{
		struct gnio_flow *second;

		assert_gnio(gnio_flow_create(dev, &second), GNIO_ERROR_IN_USE); /* one flow per wire */
	}
	assert_ok(gnio_flow_destroy(f));
	assert_ok(gnio_dev_close(dev));
}

/* The NIC's own steering: nothing behind an in-process wire; lo (a netdev
 * with one RX queue, no RSS table, no ntuple rules) through afpacket; an
 * older caller's shorter struct gets only what it holds. */
static void test_nic_steering(void **state)
{
	struct gnio_wire_steering st = {.struct_size = sizeof(st)};
	struct gnio_dev *dev;

	(void)state;
	assert_ok(gnio_dev_open("sw:steer_caps", &dev));
	assert_gnio(gnio_devinfo_get_steering(gnio_dev_as_devinfo(dev), NULL), GNIO_ERROR_INVALID_VALUE);
	assert_gnio(gnio_devinfo_get_steering(NULL, &st), GNIO_ERROR_INVALID_VALUE);
	assert_ok(gnio_devinfo_get_steering(gnio_dev_as_devinfo(dev), &st));
	assert_int_equal(st.hw_rx_queues, 0);
	assert_int_equal(st.rss_table_size, 0);
	assert_int_equal(st.ntuple, 0);
	assert_string_equal(st.rss_how, "no NIC behind a sw wire");
	{
		/* a caller built when the struct ended after hw_rx_queues */
		struct {
			struct gnio_wire_steering st;
			uint8_t guard[8];
		} old;
		memset(&old, 0xa5, sizeof(old));
		old.st.struct_size = offsetof(struct gnio_wire_steering, rss_table_size);
		assert_ok(gnio_devinfo_get_steering(gnio_dev_as_devinfo(dev), &old.st));
		assert_int_equal(old.st.struct_size, offsetof(struct gnio_wire_steering, rss_table_size));
		assert_int_equal(old.st.hw_rx_queues, 0);
		assert_int_equal(old.st.rss_table_size, 0xa5a5a5a5u); /* not written */
	}
	assert_ok(gnio_dev_close(dev));

	if (gnio_dev_open("afpacket:lo", &dev) != GNIO_SUCCESS) {
		print_message("skipped: afpacket:lo does not open here (%s)\n", gnio_last_error_msg());
		skip();
	}
	memset(&st, 0, sizeof(st));
	st.struct_size = sizeof(st);
	assert_ok(gnio_devinfo_get_steering(gnio_dev_as_devinfo(dev), &st));
	assert_int_equal(st.hw_rx_queues, 1);
	assert_int_equal(st.rss_table_size, 0);
	assert_int_equal(st.ntuple, 0);
	assert_non_null(strstr(st.rss_how, "no RSS indirection table"));
	assert_non_null(strstr(st.ntuple_how, "no ntuple rules"));
	assert_ok(gnio_dev_close(dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software_wires),
		cmocka_unit_test(test_afpacket),
		cmocka_unit_test(test_flow_refuses),
		cmocka_unit_test(test_nic_steering),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
