/* SPDX-License-Identifier: MIT */
/*
 * test_pcap_wire.c - damaged and snapped captures on the pcap wire, and its
 * TX file across a queue restart. Each capture is written here byte by byte:
 *   - a record whose length is beyond any snaplen, in the middle of the file;
 *   - a record whose captured length exceeds its frame length;
 *   - a truncated last record (body, then header);
 * each stops the replay after the good records before it, and the wire
 * reports it with the record number (gnio_dev_get_wire_error), also end to
 * end through the CPU device. Snapped records (caplen < len) are delivered
 * with their captured bytes, never counted as too_big. A TX queue stopped
 * and started again appends to its output file instead of truncating it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"
#include "eth/dev_priv.h"

static char dir[64];

/* ------------------------------------------------ writing captures -- */

struct rec {
	uint32_t caplen, len; /* as written in the record header */
	uint32_t body;        /* bytes of frame actually written (truncation) */
	int header_bytes;     /* < 16: only this much of the header is written */
};

static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }

/* Frame k of the capture: a generated UDP frame, 100 bytes. */
static uint32_t frame(uint64_t k, uint8_t *buf, uint32_t cap)
{
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	g.frame_size = 100;
	return gnio_gen_build(&g, k, buf, cap);
}

static void write_pcap(const char *path, const struct rec *r, unsigned n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	put32(f, 0xa1b2c3d4); /* microsecond pcap, little endian */
	uint16_t ver[2] = {2, 4};
	fwrite(ver, 2, 2, f);
	put32(f, 0);
	put32(f, 0);
	put32(f, 65535);
	put32(f, 1); /* Ethernet */
	for (unsigned i = 0; i < n; i++) {
		uint32_t hdr[4] = {1700000000u + i, i, r[i].caplen, r[i].len};
		fwrite(hdr, 1, r[i].header_bytes ? (size_t)r[i].header_bytes : sizeof(hdr), f);
		if (r[i].header_bytes)
			break;
		uint8_t buf[2048] = {0};
		frame(i, buf, sizeof(buf));
		fwrite(buf, 1, r[i].body, f);
	}
	fclose(f);
}

static const struct rec GOOD = {100, 100, 100, 0};

static void path_of(char *out, size_t len, const char *name) { snprintf(out, len, "%s/%s", dir, name); }

/* ------------------------------------------- reading through the wire -- */

struct replay {
	unsigned frames;     /* frames the wire handed over */
	uint32_t len[16];
	int content_ok;      /* every delivered frame is frame(i) up to its length */
	gnio_error_t err;    /* gnio_dev_get_wire_error afterwards */
	char msg[256];
};

/* Open pcap:path, drain its RX queue through the ops table, then ask the dev. */
static void replay(const char *spec, struct replay *out)
{
	struct gnio_dev *dev;
	memset(out, 0, sizeof(*out));
	assert_ok(gnio_dev_open(spec, &dev));
	struct gnio_wire_queue_cfg cfg = {.max_frame = 2048, .ring_size = 64, .burst = 8};
	void *q;
	assert_ok(dev->ops->rxq_open(dev->wire, &cfg, &q));
	static uint8_t bufs[8][2048];
	struct gnio_wire_frame f[8];
	out->content_ok = 1;
	for (int idle = 0; idle < 3;) {
		for (int i = 0; i < 8; i++)
			f[i] = (struct gnio_wire_frame){.data = bufs[i], .cap = sizeof(bufs[i])};
		unsigned got = dev->ops->rx_burst(q, f, 8);
		idle = got ? 0 : idle + 1;
		for (unsigned i = 0; i < got; i++, out->frames++) {
			uint8_t want[2048];
			uint32_t wl = frame(out->frames, want, sizeof(want));
			if (out->frames < 16)
				out->len[out->frames] = f[i].len;
			if (f[i].len > f[i].cap || f[i].len > wl || memcmp(f[i].data, want, f[i].len))
				out->content_ok = 0;
		}
	}
	dev->ops->rxq_close(q);
	assert_ok(gnio_dev_get_wire_error(dev, &out->err, out->msg, sizeof(out->msg)));
	assert_ok(gnio_dev_close(dev));
}

static void expect_stop(const char *name, const struct rec *r, unsigned n, unsigned good, const char *words)
{
	char path[128], spec[160], want[64];
	struct replay rp;
	path_of(path, sizeof(path), name);
	write_pcap(path, r, n);
	snprintf(spec, sizeof(spec), "pcap:%s", path);
	replay(spec, &rp);
	assert_int_equal(rp.frames, good);
	assert_true(rp.content_ok);
	if (rp.err != GNIO_ERROR_INVALID_VALUE)
		fail_msg("%s: wire error %s (%s), expected INVALID_VALUE", name, gnio_error_get_name(rp.err), rp.msg);
	snprintf(want, sizeof(want), "record %u: ", good + 1);
	if (!strstr(rp.msg, want) || !strstr(rp.msg, words) || !strstr(rp.msg, path))
		fail_msg("%s: message '%s' lacks '%s', '%s' or the file name", name, rp.msg, want, words);
}

static void test_impossible_length_mid_file(void **state)
{
	(void)state;
	struct rec r[5] = {GOOD, GOOD, {0x7fffffffu, 0x7fffffffu, 100, 0}, GOOD, GOOD};
	expect_stop("huge.pcap", r, 5, 2, "capture length");
}

static void test_caplen_above_len(void **state)
{
	(void)state;
	struct rec r[4] = {GOOD, {100, 60, 100, 0}, GOOD, GOOD};
	expect_stop("caplen.pcap", r, 4, 1, "captured length 100 is larger than the frame's length 60");
}

static void test_truncated_last_record(void **state)
{
	(void)state;
	struct rec body[4] = {GOOD, GOOD, GOOD, {100, 100, 37, 0}};
	expect_stop("tail_body.pcap", body, 4, 3, "truncated");
	struct rec head[3] = {GOOD, GOOD, {100, 100, 0, 9}};
	expect_stop("tail_head.pcap", head, 3, 2, "truncated");
}

static void test_loop_stops_at_damage(void **state)
{
	(void)state;
	/* loop=0 (for ever) must not replay a damaged file for ever. */
	char path[128], spec[160];
	struct rec r[3] = {GOOD, GOOD, {100, 100, 10, 0}};
	path_of(path, sizeof(path), "loop.pcap");
	write_pcap(path, r, 3);
	snprintf(spec, sizeof(spec), "pcap:%s,loop=0", path);
	struct replay rp;
	replay(spec, &rp);
	assert_int_equal(rp.frames, 2);
	assert_int_equal(rp.err, GNIO_ERROR_INVALID_VALUE);
	/* A clean file replays loop times and reports nothing. */
	struct rec ok[2] = {GOOD, GOOD};
	write_pcap(path, ok, 2);
	snprintf(spec, sizeof(spec), "pcap:%s,loop=3", path);
	replay(spec, &rp);
	assert_int_equal(rp.frames, 6);
	assert_int_equal(rp.err, GNIO_SUCCESS);
	assert_string_equal(rp.msg, "");
}

static void test_snapped_records_delivered(void **state)
{
	(void)state;
	char path[128], spec[160];
	struct rec r[4] = {GOOD, {64, 100, 64, 0}, {14, 1514, 14, 0}, GOOD};
	path_of(path, sizeof(path), "snap.pcap");
	write_pcap(path, r, 4);
	snprintf(spec, sizeof(spec), "pcap:%s", path);
	struct replay rp;
	replay(spec, &rp);
	assert_int_equal(rp.frames, 4);
	assert_true(rp.content_ok);
	assert_int_equal(rp.len[0], 100);
	assert_int_equal(rp.len[1], 64);
	assert_int_equal(rp.len[2], 14);
	assert_int_equal(rp.len[3], 100);
	assert_int_equal(rp.err, GNIO_SUCCESS);
}

/* ------------------------------------- end to end on the CPU device -- */

struct quiet {
	struct tpipe *p;
	uint64_t last;
	int same;
};

/* The queue's books stopped moving for a while: the replay is over. */
static int books_still(void *arg)
{
	struct quiet *w = arg;
	struct gnio_eth_rxq_stats st;
	gnio_eth_rxq_get_stats(w->p->rxq, &st);
	uint64_t n = st.rx_packets + st.dropped_total;
	w->same = n == w->last && n ? w->same + 1 : 0;
	w->last = n;
	return w->same > 200;
}

static void run_e2e(const char *spec, uint64_t *kernel, struct gnio_eth_rxq_stats *st, gnio_error_t *werr,
		    char *msg, size_t msg_len)
{
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, spec);
	assert_ok(tpipe_up(&p, &c));
	assert_ok(tpipe_launch(&p, "classify"));
	struct quiet w = {&p, 0, 0};
	assert_true(wait_until(books_still, &w, 10000));
	assert_ok(gnio_eth_rxq_quiesce(p.rxq));
	assert_ok(gnio_eth_rxq_get_stats(p.rxq, st));
	assert_true(tpipe_wait_packets(&p, st->rx_packets, 5000));
	assert_ok(gnio_runner_stop(p.runner, 5000));
	*kernel = gnio_load_acquire_u64(&p.stats_cpu->packets);
	assert_ok(gnio_dev_get_wire_error(p.dev, werr, msg, msg_len));
	tpipe_down(&p);
}

static void test_e2e_damaged_and_snapped(void **state)
{
	(void)state;
	char path[128], spec[160], msg[256];
	uint64_t kernel;
	struct gnio_eth_rxq_stats st;
	gnio_error_t werr;

	/* 3 good, 2 snapped, then an impossible record, then 2 never seen. */
	struct rec r[8] = {GOOD, GOOD, GOOD, {60, 100, 60, 0}, {20, 100, 20, 0}, {0x7fffffffu, 100, 100, 0}, GOOD, GOOD};
	path_of(path, sizeof(path), "e2e.pcap");
	write_pcap(path, r, 8);
	snprintf(spec, sizeof(spec), "pcap:%s", path);
	run_e2e(spec, &kernel, &st, &werr, msg, sizeof(msg));
	assert_int_equal(st.rx_packets, 5);
	assert_int_equal(st.dropped_total, 0); /* snapped frames are not too_big */
	assert_int_equal(kernel, 5);
	assert_int_equal(werr, GNIO_ERROR_INVALID_VALUE);
	assert_non_null(strstr(msg, "record 6: "));
}

/* -------------------------------------------- TX file across a restart -- */

static unsigned count_records(const char *path)
{
	struct gnio_dev *dev;
	char spec[160];
	struct replay rp;
	snprintf(spec, sizeof(spec), "pcap:%s", path);
	assert_ok(gnio_dev_open(spec, &dev)); /* the file is a valid capture */
	assert_ok(gnio_dev_close(dev));
	replay(spec, &rp);
	assert_int_equal(rp.err, GNIO_SUCCESS);
	assert_true(rp.content_ok);
	return rp.frames;
}

static void send_frames(struct gnio_dev *dev, uint64_t first, unsigned n)
{
	struct gnio_wire_queue_cfg cfg = {.max_frame = 2048, .ring_size = 64, .burst = 8};
	void *q;
	assert_ok(dev->ops->txq_open(dev->wire, &cfg, &q));
	for (unsigned i = 0; i < n; i++) {
		uint8_t buf[2048];
		struct gnio_wire_frame f = {.data = buf};
		f.len = frame(first + i, buf, sizeof(buf));
		assert_int_equal(dev->ops->tx_burst(q, &f, 1), 1);
	}
	dev->ops->txq_close(q);
}

static void test_tx_file_survives_restart(void **state)
{
	(void)state;
	char path[128], spec[160];
	struct gnio_dev *dev;
	path_of(path, sizeof(path), "out.pcap");
	snprintf(spec, sizeof(spec), "pcap:,out=%s", path);
	assert_ok(gnio_dev_open(spec, &dev));
	send_frames(dev, 0, 3);
	send_frames(dev, 3, 2); /* the same queue, stopped and started again */
	assert_ok(gnio_dev_close(dev));
	assert_int_equal(count_records(path), 5);
	/* A new wire on the same file starts it afresh. */
	assert_ok(gnio_dev_open(spec, &dev));
	send_frames(dev, 0, 1);
	assert_ok(gnio_dev_close(dev));
	assert_int_equal(count_records(path), 1);
}

/* The same through gnio_eth_txq: stop and start (what a rollback's trial
 * restart does) keep what the kernel sent. */
static void test_tx_queue_restart_e2e(void **state)
{
	(void)state;
	char in[128], out[128], spec[300], msg[256];
	struct rec r[6] = {GOOD, GOOD, GOOD, GOOD, GOOD, GOOD};
	path_of(in, sizeof(in), "echo_in.pcap");
	path_of(out, sizeof(out), "echo_out.pcap");
	write_pcap(in, r, 6);
	snprintf(spec, sizeof(spec), "pcap:%s,out=%s", in, out);
	struct tpipe p;
	struct tpipe_cfg c;
	tpipe_cfg_default(&c, spec);
	c.with_tx = 1;
	assert_ok(tpipe_up(&p, &c));
	assert_ok(tpipe_launch(&p, "echo"));
	assert_true(tpipe_wait_packets(&p, 6, 10000));
	struct gnio_eth_txq_stats ts = {0};
	for (int i = 0; i < 1000 && ts.tx_packets < 6; i++) {
		assert_ok(gnio_eth_txq_get_stats(p.txq, &ts));
		usleep(1000);
	}
	assert_int_equal(ts.tx_packets, 6);
	assert_ok(gnio_runner_stop(p.runner, 5000));
	struct gnio_ctx *tx = gnio_eth_txq_as_ctx(p.txq);
	assert_ok(gnio_ctx_stop(tx));
	assert_ok(gnio_ctx_start(tx));
	assert_ok(gnio_ctx_stop(tx));
	gnio_error_t werr;
	assert_ok(gnio_dev_get_wire_error(p.dev, &werr, msg, sizeof(msg)));
	assert_int_equal(werr, GNIO_SUCCESS);
	tpipe_down(&p);
	struct gnio_dev *dev;
	snprintf(spec, sizeof(spec), "pcap:%s", out);
	assert_ok(gnio_dev_open(spec, &dev));
	assert_ok(gnio_dev_close(dev));
	struct replay rp;
	replay(spec, &rp);
	assert_int_equal(rp.frames, 6);
}

int main(void)
{
	struct gnio_dev *dev = NULL;
	gnio_error_t e = gnio_dev_open("pcap:", &dev);
	if (e == GNIO_ERROR_NOT_FOUND && strstr(gnio_last_error_msg(), "unknown wire kind")) {
		printf("SKIP: the pcap wire is not built into this library\n");
		return GNIO_TEST_SKIP;
	}
	snprintf(dir, sizeof(dir), "/tmp/gnio-pcap-test.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_impossible_length_mid_file),
		cmocka_unit_test(test_caplen_above_len),
		cmocka_unit_test(test_truncated_last_record),
		cmocka_unit_test(test_loop_stops_at_damage),
		cmocka_unit_test(test_snapped_records_delivered),
		cmocka_unit_test(test_e2e_damaged_and_snapped),
		cmocka_unit_test(test_tx_file_survives_restart),
		cmocka_unit_test(test_tx_queue_restart_e2e),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
