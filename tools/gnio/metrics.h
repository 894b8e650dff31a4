/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/metrics.h - a Prometheus endpoint for the CLI: GET /metrics in
 * the text exposition format (version 0.0.4), served by libmicrohttpd on a
 * thread of its own.
 *
 * Nothing here runs on a packet path. Each scrape calls the collect callback
 * once, on the server thread (never two at a time); the callback reads the
 * counters the pipeline already keeps (relaxed loads) and writes them with
 * the writer below. docs/metrics.md lists the metric names gnio exposes.
 *
 *	static void collect(struct metrics_writer *w, void *user)
 *	{
 *		metrics_family(w, "gnio_rx_packets_total", METRICS_COUNTER, "Frames handed to the kernel.");
 *		metrics_u64(w, rx, METRICS_LABELS({"queue", "0"}, {"wire", "sw:demo"}));
 *	}
 *	struct metrics_server *m;
 *	if (metrics_server_start("127.0.0.1:9464", collect, &state, &m))
 *		fprintf(stderr, "gnio run: %s\n", metrics_last_error());
 *	...
 *	metrics_server_stop(m);
 */
#ifndef GNIO_TOOLS_METRICS_H
#define GNIO_TOOLS_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "gnio/error.h"

enum metrics_type { METRICS_COUNTER, METRICS_GAUGE };

struct metrics_label {
	const char *name;  /* [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" */
	const char *value; /* any UTF-8 text; escaped on output */
};

/* One scrape's body being written. */
struct metrics_writer;

typedef void (*metrics_collect_fn)(struct metrics_writer *w, void *user);

/* Labels for one sample as an array and its length:
 * metrics_u64(w, n, METRICS_LABELS({"queue", "0"}, {"reason", "runt"})). */
#define METRICS_LABELS(...)                                                                                  \
	(const struct metrics_label[]){__VA_ARGS__},                                                         \
		sizeof((const struct metrics_label[]){__VA_ARGS__}) / sizeof(struct metrics_label)
#define METRICS_NO_LABELS NULL, 0

/* Start a metric family: its # HELP and # TYPE lines. Every sample that
 * follows belongs to it until the next call. Names are
 * [a-zA-Z_:][a-zA-Z0-9_:]*; a counter's name must end in _total; a family
 * appears once per scrape. */
void metrics_family(struct metrics_writer *w, const char *name, enum metrics_type type, const char *help);
/* One sample of the current family. A counter's value must not be negative
 * or NaN. Label names must be distinct within a sample. */
void metrics_u64(struct metrics_writer *w, uint64_t value, const struct metrics_label *labels, size_t nlabels);
void metrics_dbl(struct metrics_writer *w, double value, const struct metrics_label *labels, size_t nlabels);

/* A misuse of the writer (bad name, counter without _total, sample before a
 * family, ...) stops the writer; the scrape then answers HTTP 500 with this
 * text, so a mistake shows on the first scrape. NULL while all is well. */
const char *metrics_writer_error(const struct metrics_writer *w);

/* Run fn once into a fresh writer and return the body (malloc'd, caller
 * frees) - what GET /metrics answers. On a writer error returns -1, *body
 * NULL and the reason in err. */
int metrics_render(metrics_collect_fn fn, void *user, char **body, size_t *len, char *err, size_t err_len);

struct metrics_server;

/* Listen on addr_port and serve GET /metrics (HEAD too; "/" names the path;
 * anything else 404). addr_port is PORT (loopback: 127.0.0.1), HOST:PORT or
 * [IPV6]:PORT; 0.0.0.0:PORT serves every interface. Port 0 takes a free port
 * (metrics_server_address() says which). Errors, with a one-line reason in
 * metrics_last_error(): INVALID_VALUE (malformed), NOT_FOUND (no such
 * address here / cannot resolve), IN_USE (port taken), NOT_PERMITTED (port
 * below 1024 without CAP_NET_BIND_SERVICE), NO_MEMORY, OPERATING_SYSTEM. */
gnio_error_t metrics_server_start(const char *addr_port, metrics_collect_fn fn, void *user,
				  struct metrics_server **out);
/* The address actually bound, e.g. "127.0.0.1:9464" or "[::1]:9464". */
const char *metrics_server_address(const struct metrics_server *s);
/* Requests answered so far, any path and status. */
uint64_t metrics_server_requests(const struct metrics_server *s);
/* Stop serving (waits for a scrape in progress) and free; NULL is fine. */
void metrics_server_stop(struct metrics_server *s);
/* The reason the last metrics_server_start() on this thread failed. */
const char *metrics_last_error(void);

#endif
