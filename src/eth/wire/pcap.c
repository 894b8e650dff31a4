/* SPDX-License-Identifier: MIT */
/*
 * src/eth/wire/pcap.c - the `pcap:FILE[,out=OUT][,loop=N][,timing=recorded|fast]`
 * wire, through libpcap.
 *
 * RX replays FILE (Ethernet captures only), loop times (default 1, 0 = for
 * ever), either as fast as the proxy reads (timing=fast, the default) or at
 * the gaps recorded in the file (timing=recorded). TX appends every frame
 * sent to OUT, a classic pcap that tcpdump and Wireshark read; each burst is
 * flushed so the file is complete even if the process is killed. OUT is
 * created (truncated) when the wire's TX queue first opens; a queue that is
 * stopped and started again on the same wire appends to it.
 * `pcap:,out=OUT` (empty FILE) is TX only; `pcap:FILE` without out= is RX only.
 *
 * Damaged captures: a record libpcap cannot read (a length beyond any
 * snaplen, a truncated header or body at the end) or whose captured length
 * exceeds its original length stops the replay there. The wire reports it
 * with the record number (gnio_dev_wire_failed -> gnio_dev_get_wire_error,
 * and an ERROR log line); the records before it were delivered. Snapped
 * records (captured with a snaplen: caplen < len) are delivered with the
 * bytes the file holds (len = caplen) and counted; a WARNING names the first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <pcap/pcap.h>

#include "core/errmsg.h"
#include "eth/dev_priv.h"
#include "eth/wire.h"
#include "eth/wire_opts.h"

#define COMP "pcap"

struct pcap_wire {
	struct gnio_dev *dev; /* where record faults are reported */
	char in[512], out[512];
	uint32_t loops;      /* 0 = for ever */
	int recorded;        /* keep the capture's timing */
	uint32_t snaplen;
	int has_rx, has_tx;
	int out_written;     /* OUT was created by this wire: later TX queues append */
};

struct pcap_rxq {
	struct pcap_wire *w;
	pcap_t *p;
	uint32_t loop;       /* completed passes */
	uint64_t rec;        /* records read in this pass (the last one's number) */
	uint64_t snapped;    /* snapped records delivered short */
	int eof;
	uint64_t t0_file;    /* first record of this pass, ns */
	uint64_t t0_wall;    /* monotonic time when this pass started */
	const u_char *held;  /* a record read but not yet due (recorded timing) */
	struct pcap_pkthdr held_hdr;
};

struct pcap_txq {
	struct pcap_wire *w;
	pcap_t *dead;
	pcap_dumper_t *d;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static gnio_error_t open_in(const char *file, pcap_t **out)
{
	char eb[PCAP_ERRBUF_SIZE];
	pcap_t *p;

	p = pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, eb);
	if (!p) {
		if (errno == ENOENT || strstr(eb, "No such file"))
			return gnio_fail(GNIO_ERROR_NOT_FOUND, COMP, "capture file %s not found", file);
		if (errno == EACCES)
			return gnio_fail(GNIO_ERROR_NOT_PERMITTED, COMP, "capture file %s: permission denied", file);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "capture file %s: %s", file, eb);
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		int dl = pcap_datalink(p);

		pcap_close(p);
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "capture file %s has link type %s, not Ethernet",
				 file, pcap_datalink_val_to_name(dl) ? pcap_datalink_val_to_name(dl) : "?");
	}
	*out = p;
	return GNIO_SUCCESS;
}

/* The options pw_open parses (gnio_dev_open refuses any other). */
const char gnio_wire_pcap_options[] = "out,loop,timing";

static gnio_error_t pw_open(struct gnio_dev *dev, const char *args, void **wire)
{
	struct pcap_wire *w;
	char val[32];
	const char *opts;

	w = calloc(1, sizeof(*w));
	if (!w)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	w->dev = dev;
	opts = gnio_wire_split_args(args, w->in, sizeof(w->in));
	gnio_wire_opt(opts, "out", w->out, sizeof(w->out));
	w->loops = 1;
	if (gnio_wire_opt_u32(opts, "loop", 0, UINT32_MAX, &w->loops) < 0) {
		free(w);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "pcap: loop takes a number of passes (0 = for ever)");
	}
	if (gnio_wire_opt(opts, "timing", val, sizeof(val))) {
		if (!strcmp(val, "recorded"))
			w->recorded = 1;
		else if (strcmp(val, "fast")) {
			free(w);
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "pcap: timing=%s (recorded|fast)", val);
		}
	}
	if (!w->in[0] && !w->out[0]) {
		free(w);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "pcap: give an input file, out=FILE, or both");
	}
	w->snaplen = 65535;
	if (w->in[0]) {
		pcap_t *p;
		gnio_error_t err = open_in(w->in, &p);

		if (err) {
			free(w);
			return err;
		}
		if (pcap_snapshot(p) > 0 && (uint32_t)pcap_snapshot(p) < w->snaplen)
			w->snaplen = (uint32_t)pcap_snapshot(p);
		pcap_close(p);
	}
	*wire = w;
	return GNIO_SUCCESS;
}

static void pw_close(void *wire)
{
	free(wire);
}

static gnio_error_t pw_caps(void *wire, struct gnio_wire_caps *c)
{
	struct pcap_wire *w = wire;

	c->flags = (w->in[0] ? GNIO_WIRE_CAP_RX | GNIO_WIRE_CAP_SW_TIMESTAMP : 0) | (w->out[0] ? GNIO_WIRE_CAP_TX : 0);
	c->max_frame_size = w->snaplen;
	c->num_rx_queues = w->in[0] ? 1 : 0;
	c->num_tx_queues = w->out[0] ? 1 : 0;
	snprintf(c->mode, sizeof(c->mode), "%s%s", w->in[0] ? (w->recorded ? "replay,recorded" : "replay,fast") : "",
		 w->out[0] ? (w->in[0] ? ",write" : "write") : "");
	if (w->out[0])
		snprintf(c->tx_path, sizeof(c->tx_path), "libpcap writes each frame from the buffer into the file");
	return GNIO_SUCCESS;
}

static gnio_error_t pw_rxq_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **out)
{
	struct pcap_wire *w = wire;
	struct pcap_rxq *q;
	gnio_error_t err;

	if (!w->in[0])
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "pcap:,out=%s is TX only (no input file)", w->out);
	if (cfg->queue_id)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "pcap wire has one RX queue (id 0)");
	if (w->has_rx)
		return gnio_fail(GNIO_ERROR_IN_USE, COMP, "pcap:%s: RX queue already open", w->in);
	q = calloc(1, sizeof(*q));
	if (!q)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	err = open_in(w->in, &q->p);
	if (err) {
		free(q);
		return err;
	}
	q->w = w;
	q->t0_file = UINT64_MAX;
	w->has_rx = 1;
	*out = q;
	return GNIO_SUCCESS;
}

static void pw_rxq_close(void *qv)
{
	struct pcap_rxq *q = qv;

	if (q->snapped)
		GNIO_LOG_INFO(COMP, "pcap:%s: %llu snapped record(s) were delivered with their captured bytes only",
			      q->w->in, (unsigned long long)q->snapped);
	if (q->p)
		pcap_close(q->p);
	q->w->has_rx = 0;
	free(q);
}

/* A record the replay cannot go past: report it with its number and stop. */
static int bad_rec(struct pcap_rxq *q, gnio_error_t err, const char *why)
{
	gnio_dev_wire_failed(q->w->dev, err, "pcap:%s: record %llu: %s; replay stopped there",
			     q->w->in, (unsigned long long)q->rec + 1, why);
	q->eof = 1;
	return 0;
}

/* Next record; rewinds for the next pass. 0 at the end of the last pass, and
 * after a damaged record (reported, the replay ends there). */
static int next_rec(struct pcap_rxq *q, struct pcap_pkthdr **h, const u_char **d)
{
	for (;;) {
		int r = pcap_next_ex(q->p, h, d);
		char why[PCAP_ERRBUF_SIZE + 64];

		if (r == 1 && (*h)->caplen > (*h)->len) {
			snprintf(why, sizeof(why), "captured length %u is larger than the frame's length %u",
				 (*h)->caplen, (*h)->len);
			return bad_rec(q, GNIO_ERROR_INVALID_VALUE, why);
		}
		if (r == 1) {
			q->rec++;
			return 1;
		}
		if (r != PCAP_ERROR_BREAK) {
			/* libpcap: a length beyond any snaplen, a truncated header
			 * or body ("truncated dump file; ..."), a read error */
			snprintf(why, sizeof(why), "%s", pcap_geterr(q->p));
			return bad_rec(q, GNIO_ERROR_INVALID_VALUE, why);
		}
		/* a clean end of file: this pass is done */
		q->loop++;
		if (!q->rec || (q->w->loops && q->loop >= q->w->loops))
			break; /* the last pass, or a capture with no records */
		pcap_close(q->p);
		q->p = NULL;
		q->rec = 0;
		if (open_in(q->w->in, &q->p)) {
			gnio_dev_wire_failed(q->w->dev, GNIO_ERROR_NOT_FOUND, "pcap:%s: cannot reopen for pass %u: %s",
					     q->w->in, q->loop + 1, gnio_last_error_msg());
			break;
		}
		q->t0_file = UINT64_MAX;
	}
	q->eof = 1;
	return 0;
}

static unsigned pw_rx_burst(void *qv, struct gnio_wire_frame *f, unsigned n)
{
	struct pcap_rxq *q = qv;
	unsigned got = 0;
	uint64_t now = q->w->recorded ? now_ns() : 0;

	while (got < n && !q->eof) {
		struct pcap_pkthdr *h;
		const u_char *d;

		if (q->held) {
			h = &q->held_hdr;
			d = q->held;
		} else if (!next_rec(q, &h, &d)) {
			break;
		}
		/* nanosecond precision: tv_usec holds nanoseconds */
		uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;

		if (q->t0_file == UINT64_MAX) {
			q->t0_file = ts;
			q->t0_wall = now ? now : now_ns();
		}
		if (q->w->recorded && ts > q->t0_file && ts - q->t0_file > now - q->t0_wall) {
			/* not due yet: keep it for the next burst (libpcap's buffer
			 * stays valid until the next pcap_next_ex) */
			q->held_hdr = *h;
			q->held = d;
			break;
		}
		q->held = NULL;
		if (h->caplen < h->len && !q->snapped++)
			GNIO_LOG_WARN(COMP, "pcap:%s: record %llu is snapped (%u of %u bytes captured): snapped records "
				      "are delivered with their captured bytes only", q->w->in,
				      (unsigned long long)q->rec, h->caplen, h->len);
		/* What the file holds is the frame gnio has: a snapped record is
		 * delivered short, never counted as too_big for its lost tail. */
		f[got].len = h->caplen;
		f[got].ts_ns = ts;
		f[got].buf_off = 0;
		if (h->caplen <= f[got].cap)
			memcpy(f[got].data, d, h->caplen);
		got++;
	}
	return got;
}

static gnio_error_t pw_txq_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **out)
{
	struct pcap_wire *w = wire;
	struct pcap_txq *q;

	if (!w->out[0])
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "pcap:%s has no out=FILE to send to", w->in);
	if (cfg->queue_id)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "pcap wire has one TX queue (id 0)");
	if (w->has_tx)
		return gnio_fail(GNIO_ERROR_IN_USE, COMP, "pcap: TX queue already open");
	q = calloc(1, sizeof(*q));
	if (!q)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	q->dead = pcap_open_dead(DLT_EN10MB, 65535);
	/* A restart of the queue (a rollback's trial restart, stop + start)
	 * continues the file this wire began instead of truncating it. */
	if (q->dead)
		q->d = w->out_written ? pcap_dump_open_append(q->dead, w->out) : pcap_dump_open(q->dead, w->out);
	if (!q->d) {
		gnio_error_t e = gnio_fail(errno == EACCES ? GNIO_ERROR_NOT_PERMITTED : GNIO_ERROR_OPERATING_SYSTEM,
					   COMP, "pcap: cannot write %s: %s", w->out,
					   q->dead ? pcap_geterr(q->dead) : "pcap_open_dead failed");
		if (q->dead)
			pcap_close(q->dead);
		free(q);
		return e;
	}
	q->w = w;
	w->has_tx = 1;
	w->out_written = 1;
	*out = q;
	return GNIO_SUCCESS;
}

static void pw_txq_close(void *qv)
{
	struct pcap_txq *q = qv;

	pcap_dump_close(q->d);
	pcap_close(q->dead);
	q->w->has_tx = 0;
	free(q);
}

static unsigned pw_tx_burst(void *qv, struct gnio_wire_frame *f, unsigned n)
{
	struct pcap_txq *q = qv;
	struct pcap_pkthdr h;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned i = 0; i < n; i++) {
		h.ts.tv_sec = ts.tv_sec;
		h.ts.tv_usec = ts.tv_nsec / 1000;
		h.caplen = h.len = f[i].len;
		pcap_dump((u_char *)q->d, &h, f[i].data);
	}
	pcap_dump_flush(q->d);
	return n;
}

static void pw_rxq_stats(void *qv, struct gnio_wire_rxq_stats *st)
{
	(void)qv;
	st->overflow = 0; /* a file never overflows */
}

const struct gnio_wire_ops gnio_wire_pcap_ops = {
	.kind = "pcap",
	.open = pw_open,
	.close = pw_close,
	.caps = pw_caps,
	.rxq_open = pw_rxq_open,
	.rxq_close = pw_rxq_close,
	.txq_open = pw_txq_open,
	.txq_close = pw_txq_close,
	.rx_burst = pw_rx_burst,
	.tx_burst = pw_tx_burst,
	.rxq_stats = pw_rxq_stats,
};
