/* SPDX-License-Identifier: MIT */
/* tools/gnio/wireopt.c - options and wire opening shared by gen and sink
 * (see wireopt.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "wireopt.h"

volatile sig_atomic_t wireopt_stop;

static void on_sig(int s)
{
	(void)s;
	wireopt_stop = 1;
}

void wireopt_catch_signals(void)
{
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
}

uint64_t wireopt_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int gnio_cli_env_exit(gnio_error_t e)
{
	switch (e) {
	case GNIO_ERROR_INVALID_VALUE:
		return GNIO_EXIT_USAGE;
	case GNIO_ERROR_NOT_FOUND:
	case GNIO_ERROR_NOT_PERMITTED:
	case GNIO_ERROR_BAD_STATE:
	case GNIO_ERROR_NOT_SUPPORTED:
	case GNIO_ERROR_NO_MEMORY:
	case GNIO_ERROR_IN_USE:
		return GNIO_EXIT_ENV;
	default:
		return GNIO_EXIT_FAIL;
	}
}

/* One of the shared options: 1 taken, 0 not one of them, -1 usage error. */
static int take(struct wireopt *w, int opt, const char *arg, char **end)
{
	switch (opt) {
	case 'w': w->spec = arg; return 1;
	case 'p':
		if (gnio_gen_proto_parse(arg, &w->gen->proto)) {
			fprintf(stderr, "%s: unknown protocol '%s'%s\n", w->cmd, arg, w->proto_hint);
			return -1;
		}
		return 1;
	case 's': w->gen->frame_size = (uint32_t)strtoul(arg, end, 0); return 1;
	case 'f': w->gen->flows = (uint32_t)strtoul(arg, end, 0); return 1;
	case 'S': w->gen->first_seq = strtoull(arg, end, 0); return 1;
	case 'q': w->queue = (unsigned)strtoul(arg, end, 0); return 1;
	default: return 0;
	}
}

int wireopt_bad_number(const struct wireopt *w, const char *end, const char *arg)
{
	if (!end || !*end)
		return 0;
	fprintf(stderr, "%s: bad number '%s'\n", w->cmd, arg);
	return 1;
}

int wireopt_getopt(struct wireopt *w, int argc, char **argv, const struct option *lo)
{
	int opt;

	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char *end = NULL;
		int took;

		if (opt == 'h') {
			w->usage(stdout);
			w->exit = GNIO_EXIT_OK;
			return -1;
		}
		if (opt == '?') {
			w->usage(stderr);
			w->exit = GNIO_EXIT_USAGE;
			return -1;
		}
		took = take(w, opt, optarg, &end);
		if (!took)
			return opt; /* the command's own */
		if (took < 0 || wireopt_bad_number(w, end, optarg)) {
			w->exit = GNIO_EXIT_USAGE;
			return -1;
		}
	}
	if (optind < argc || !w->spec) {
		fprintf(stderr, "%s: %s\n", w->cmd, w->spec ? "unexpected argument" : "--wire SPEC is required");
		w->exit = GNIO_EXIT_USAGE;
	}
	return -1;
}

int wireopt_dev_open(const struct wireopt *w, struct gnio_dev **dev, struct gnio_wire_caps *caps)
{
	gnio_error_t err = gnio_dev_open(w->spec, dev);

	if (err) {
		fprintf(stderr, "%s: %s\n", w->cmd, gnio_last_error_msg());
		return gnio_cli_env_exit(err);
	}
	memset(caps, 0, sizeof(*caps));
	caps->struct_size = sizeof(*caps);
	(*dev)->ops->caps((*dev)->wire, caps);
	return GNIO_EXIT_OK;
}

int wireopt_queue_open(const struct wireopt *w, struct gnio_dev *dev, int tx, uint32_t max_frame,
		       uint32_t ring_size, unsigned burst, void **q, struct gnio_wire_caps *caps)
{
	struct gnio_wire_queue_cfg qc;
	gnio_error_t err;

	memset(&qc, 0, sizeof(qc));
	qc.queue_id = (uint16_t)w->queue;
	qc.max_frame = max_frame;
	qc.ring_size = ring_size;
	qc.burst = burst;
	err = tx ? dev->ops->txq_open(dev->wire, &qc, q) : dev->ops->rxq_open(dev->wire, &qc, q);
	if (err) {
		fprintf(stderr, "%s: %s\n", w->cmd, gnio_last_error_msg());
		return gnio_cli_env_exit(err);
	}
	dev->ops->caps(dev->wire, caps);
	return GNIO_EXIT_OK;
}
