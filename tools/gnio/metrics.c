/* SPDX-License-Identifier: MIT */
/* tools/gnio/metrics.c - Prometheus text exposition over libmicrohttpd (see
 * metrics.h). The HTTP side is libmicrohttpd's; this file opens the listening
 * socket itself (so a taken port or a foreign address gets a precise
 * message) and writes the text format. */
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_MAX_FAMILIES 256

/* ----------------------------------------------------------- writer -- */

struct metrics_writer {
	FILE *f;               /* open_memstream over buf */
	char *buf;
	size_t len;
	char err[256];         /* first misuse; empty while all is well */
	int have_family;
	enum metrics_type type;
	char family[128];
	char *seen[METRICS_MAX_FAMILIES]; /* families written this scrape */
	size_t nseen;
};

static void writer_fail(struct metrics_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void writer_fail(struct metrics_writer *w, const char *fmt, ...)
{
	if (w->err[0])
		return; /* the first mistake is the one to fix */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
}

static int name_ok(const char *s, int colon_ok)
{
	if (!s || !*s)
		return 0;
	for (const char *c = s; *c; c++) {
		int alpha = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' || (colon_ok && *c == ':');
		if (!alpha && !(c > s && *c >= '0' && *c <= '9'))
			return 0;
	}
	return 1;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && !strcmp(s + n - t, tail);
}

/* HELP text escapes backslash and newline; label values also the quote. */
static void put_escaped(FILE *f, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (quote && *s == '"')
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

void metrics_family(struct metrics_writer *w, const char *name, enum metrics_type type, const char *help)
{
	if (w->err[0])
		return;
	if (!name_ok(name, 1)) {
		writer_fail(w, "metric name '%s' is not [a-zA-Z_:][a-zA-Z0-9_:]*", name ? name : "(null)");
		return;
	}
	if (type == METRICS_COUNTER && !ends_with(name, "_total")) {
		writer_fail(w, "counter '%s' must end in _total", name);
		return;
	}
	if (type != METRICS_COUNTER && ends_with(name, "_total")) {
		writer_fail(w, "gauge '%s' ends in _total, which marks counters", name);
		return;
	}
	if (strlen(name) >= sizeof(w->family)) {
		writer_fail(w, "metric name '%s' is longer than %zu characters", name, sizeof(w->family) - 1);
		return;
	}
	for (size_t i = 0; i < w->nseen; i++) {
		if (!strcmp(w->seen[i], name)) {
			writer_fail(w, "metric family '%s' written twice in one scrape", name);
			return;
		}
	}
	if (w->nseen == METRICS_MAX_FAMILIES || !(w->seen[w->nseen] = strdup(name))) {
		writer_fail(w, "too many metric families (at most %d)", METRICS_MAX_FAMILIES);
		return;
	}
	w->nseen++;
	strcpy(w->family, name);
	w->type = type;
	w->have_family = 1;
	fprintf(w->f, "# HELP %s ", name);
	put_escaped(w->f, help ? help : "", 0);
	fprintf(w->f, "\n# TYPE %s %s\n", name, type == METRICS_COUNTER ? "counter" : "gauge");
}

/* Name and label set of one sample; 0 when it may be written. */
static int sample_head(struct metrics_writer *w, const struct metrics_label *labels, size_t n)
{
	if (w->err[0])
		return -1;
	if (!w->have_family) {
		writer_fail(w, "sample written before any metrics_family()");
		return -1;
	}
	if (n && !labels) {
		writer_fail(w, "%s: %zu labels but no label array", w->family, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const char *ln = labels[i].name;
		if (!name_ok(ln, 0) || !strncmp(ln, "__", 2)) {
			writer_fail(w, "%s: label name '%s' is not [a-zA-Z_][a-zA-Z0-9_]* or starts with __", w->family,
				    ln ? ln : "(null)");
			return -1;
		}
		if (!labels[i].value) {
			writer_fail(w, "%s: label '%s' has no value", w->family, ln);
			return -1;
		}
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(labels[k].name, ln)) {
				writer_fail(w, "%s: label '%s' given twice", w->family, ln);
				return -1;
			}
		}
	}
	fputs(w->family, w->f);
	if (n) {
		fputc('{', w->f);
		for (size_t i = 0; i < n; i++) {
			fprintf(w->f, "%s%s=\"", i ? "," : "", labels[i].name);
			put_escaped(w->f, labels[i].value, 1);
			fputc('"', w->f);
		}
		fputc('}', w->f);
	}
	return 0;
}

void metrics_u64(struct metrics_writer *w, uint64_t value, const struct metrics_label *labels, size_t nlabels)
{
	if (sample_head(w, labels, nlabels) == 0)
		fprintf(w->f, " %llu\n", (unsigned long long)value);
}

void metrics_dbl(struct metrics_writer *w, double value, const struct metrics_label *labels, size_t nlabels)
{
	if (w->have_family && w->type == METRICS_COUNTER && !(value >= 0)) {
		writer_fail(w, "counter %s given %g: counters are never negative or NaN", w->family, value);
		return;
	}
	if (sample_head(w, labels, nlabels))
		return;
	if (isnan(value))
		fputs(" NaN\n", w->f);
	else if (isinf(value))
		fputs(value > 0 ? " +Inf\n" : " -Inf\n", w->f);
	else
		fprintf(w->f, " %.17g\n", value);
}

const char *metrics_writer_error(const struct metrics_writer *w)
{
	return w->err[0] ? w->err : NULL;
}

int metrics_render(metrics_collect_fn fn, void *user, char **body, size_t *len, char *err, size_t err_len)
{
	struct metrics_writer w;
	memset(&w, 0, sizeof(w));
	*body = NULL;
	*len = 0;
	w.f = open_memstream(&w.buf, &w.len);
	if (!w.f) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	fn(&w, user);
	int bad = fclose(w.f) != 0;
	for (size_t i = 0; i < w.nseen; i++)
		free(w.seen[i]);
	if (bad && !w.err[0])
		snprintf(w.err, sizeof(w.err), "out of memory");
	if (w.err[0]) {
		snprintf(err, err_len, "%s", w.err);
		free(w.buf);
		return -1;
	}
	*body = w.buf;
	*len = w.len;
	return 0;
}

/* ----------------------------------------------------------- server -- */

struct metrics_server {
	struct MHD_Daemon *daemon;
	metrics_collect_fn fn;
	void *user;
	uint64_t requests;
	char address[INET6_ADDRSTRLEN + 8];
};

static _Thread_local char last_error[256];

static gnio_error_t start_fail(gnio_error_t e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static gnio_error_t start_fail(gnio_error_t e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return e;
}

const char *metrics_last_error(void)
{
	return last_error;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, char *text, size_t len, int owned)
{
	struct MHD_Response *r = owned ? MHD_create_response_from_buffer_with_free_callback(len, text, free)
				       : MHD_create_response_from_buffer(len, text, MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK && owned ? METRICS_CONTENT_TYPE : "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct metrics_server *s = cls;
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	__atomic_add_fetch(&s->requests, 1, __ATOMIC_RELAXED);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		static char msg[] = "only GET and HEAD\n";
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, msg, sizeof(msg) - 1, 0);
	}
	if (!strcmp(url, "/")) {
		static char msg[] = "gnio: metrics are at /metrics\n";
		return answer(c, MHD_HTTP_OK, msg, sizeof(msg) - 1, 0);
	}
	if (strcmp(url, "/metrics")) {
		static char msg[] = "not found: gnio serves /metrics\n";
		return answer(c, MHD_HTTP_NOT_FOUND, msg, sizeof(msg) - 1, 0);
	}
	char *body, err[256];
	size_t len;
	if (metrics_render(s->fn, s->user, &body, &len, err, sizeof(err))) {
		char *msg = NULL;
		int n = asprintf(&msg, "gnio metrics: %s\n", err);
		if (n < 0)
			return MHD_NO;
		return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, msg, (size_t)n, 1);
	}
	return answer(c, MHD_HTTP_OK, body, len, 1);
}

/* Split "PORT", "HOST:PORT" or "[V6]:PORT"; host NULL for loopback. */
static gnio_error_t split_addr(const char *in, char *host, size_t host_len, unsigned *port)
{
	const char *p;
	if (!in || !*in)
		return start_fail(GNIO_ERROR_INVALID_VALUE, "metrics address is empty (give PORT or ADDR:PORT)");
	if (in[0] == '[') {
		const char *close = strchr(in, ']');
		if (!close || close[1] != ':')
			return start_fail(GNIO_ERROR_INVALID_VALUE,
					  "metrics address '%s': an IPv6 address is written [ADDR]:PORT", in);
		if ((size_t)(close - in - 1) >= host_len || close == in + 1)
			return start_fail(GNIO_ERROR_INVALID_VALUE, "metrics address '%s': bad IPv6 address", in);
		memcpy(host, in + 1, (size_t)(close - in - 1));
		host[close - in - 1] = 0;
		p = close + 2;
	} else if ((p = strrchr(in, ':'))) {
		if (p == in)
			return start_fail(GNIO_ERROR_INVALID_VALUE,
					  "metrics address '%s' has no host: give 127.0.0.1%s (this host only) or "
					  "0.0.0.0%s (every interface), or just the port", in, in, in);
		if (memchr(in, ':', (size_t)(p - in)))
			return start_fail(GNIO_ERROR_INVALID_VALUE,
					  "metrics address '%s': write an IPv6 address as [ADDR]:PORT", in);
		if ((size_t)(p - in) >= host_len)
			return start_fail(GNIO_ERROR_INVALID_VALUE, "metrics address '%s': host too long", in);
		memcpy(host, in, (size_t)(p - in));
		host[p - in] = 0;
		p++;
	} else {
		strcpy(host, "127.0.0.1");
		p = in;
	}
	char *end;
	errno = 0;
	unsigned long v = strtoul(p, &end, 10);
	if (!*p || *end || errno || v > 65535 || *p == '-' || *p == '+' || *p == ' ')
		return start_fail(GNIO_ERROR_INVALID_VALUE, "metrics address '%s': port '%s' is not a number 0..65535",
				  in, p);
	*port = (unsigned)v;
	return GNIO_SUCCESS;
}

static void format_addr(const struct sockaddr_storage *sa, char *out, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;
	if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)sa;
		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		port = ntohs(a->sin6_port);
		snprintf(out, len, "[%s]:%u", ip, port);
	} else {
		const struct sockaddr_in *a = (const void *)sa;
		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		port = ntohs(a->sin_port);
		snprintf(out, len, "%s:%u", ip, port);
	}
}

static gnio_error_t bind_error(int err, const char *in)
{
	switch (err) {
	case EADDRINUSE:
		return start_fail(GNIO_ERROR_IN_USE, "metrics address %s is already in use (another exporter, or a "
						     "second gnio run?)", in);
	case EACCES:
		return start_fail(GNIO_ERROR_NOT_PERMITTED, "metrics address %s: ports below 1024 need root or "
							    "CAP_NET_BIND_SERVICE", in);
	case EADDRNOTAVAIL:
		return start_fail(GNIO_ERROR_NOT_FOUND, "metrics address %s: no interface of this host has that "
							"address", in);
	default:
		return start_fail(GNIO_ERROR_OPERATING_SYSTEM, "metrics address %s: bind: %s", in, strerror(err));
	}
}

/* A listening TCP socket on the first address of host that binds. */
static gnio_error_t open_listener(const char *in, const char *host, unsigned port, int *fd_out)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | AI_PASSIVE};
	struct addrinfo *res = NULL;
	char serv[8];
	snprintf(serv, sizeof(serv), "%u", port);
	int rc = getaddrinfo(host, serv, &hints, &res);
	if (rc)
		return start_fail(rc == EAI_MEMORY ? GNIO_ERROR_NO_MEMORY : GNIO_ERROR_NOT_FOUND,
				  "metrics address '%s': cannot resolve '%s': %s", in, host, gai_strerror(rc));
	gnio_error_t e = GNIO_ERROR_NOT_FOUND;
	int first_err = 0;
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0) {
			first_err = first_err ? first_err : errno;
			continue;
		}
		int one = 1;
		/* a restarted gnio gets its port back while old connections linger */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (a->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 16) == 0) {
			*fd_out = fd;
			freeaddrinfo(res);
			return GNIO_SUCCESS;
		}
		first_err = first_err ? first_err : errno;
		close(fd);
	}
	freeaddrinfo(res);
	if (first_err)
		e = bind_error(first_err, in);
	else
		e = start_fail(e, "metrics address '%s': no usable address for '%s'", in, host);
	return e;
}

gnio_error_t metrics_server_start(const char *addr_port, metrics_collect_fn fn, void *user,
				  struct metrics_server **out)
{
	char host[256];
	unsigned port = 0;
	int fd = -1;
	gnio_error_t e;

	last_error[0] = 0;
	if (!fn || !out)
		return start_fail(GNIO_ERROR_INVALID_VALUE, "metrics: no collect callback or no result pointer");
	*out = NULL;
	if ((e = split_addr(addr_port, host, sizeof(host), &port)))
		return e;
	if ((e = open_listener(addr_port, host, port, &fd)))
		return e;

	struct metrics_server *s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return start_fail(GNIO_ERROR_NO_MEMORY, "metrics: out of memory");
	}
	s->fn = fn;
	s->user = user;
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
		format_addr(&sa, s->address, sizeof(s->address));
	/* One internal thread answers every request in turn, so the collect
	 * callback never runs twice at once. A stuck client is dropped after
	 * 10 s; a few connections at a time is plenty for scrapers. */
	s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL, on_request, s,
				     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, 16u,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!s->daemon) {
		close(fd);
		free(s);
		return start_fail(GNIO_ERROR_OPERATING_SYSTEM, "metrics: libmicrohttpd could not start its thread on %s",
				  addr_port);
	}
	*out = s;
	return GNIO_SUCCESS;
}

const char *metrics_server_address(const struct metrics_server *s)
{
	return s->address;
}

uint64_t metrics_server_requests(const struct metrics_server *s)
{
	return __atomic_load_n(&s->requests, __ATOMIC_RELAXED);
}

void metrics_server_stop(struct metrics_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon); /* joins its thread and closes the listening socket */
	free(s);
}
