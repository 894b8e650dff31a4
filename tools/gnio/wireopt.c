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
		return gnio_cli_exit(err);
	}
	memset(caps, 0, sizeof(*caps));
	caps->struct_size = sizeof(*caps);
	gnio_devinfo_get_caps(gnio_dev_as_devinfo(*dev), caps);
	return GNIO_EXIT_OK;
}

static int open_fail(const struct wireopt *w, gnio_error_t err)
{
	fprintf(stderr, "%s: %s\n", w->cmd, gnio_last_error_msg());
	return gnio_cli_exit(err);
}

int wireopt_rxq_open(const struct wireopt *w, struct gnio_dev *dev, uint32_t max_frame, unsigned burst,
		     struct gnio_eth_rxq **rxq, struct gnio_wire_caps *caps)
{
	gnio_error_t err;

	*rxq = NULL;
	if ((err = gnio_eth_rxq_create(dev, burst, max_frame, rxq)) ||
	    (err = gnio_eth_rxq_set_queue_id(*rxq, (uint16_t)w->queue)) ||
	    (err = gnio_ctx_start(gnio_eth_rxq_as_ctx(*rxq))))
		return open_fail(w, err);
	gnio_devinfo_get_caps(gnio_dev_as_devinfo(dev), caps);
	return GNIO_EXIT_OK;
}

int wireopt_txq_open(const struct wireopt *w, struct gnio_dev *dev, uint32_t ring_size, unsigned burst,
		     struct gnio_eth_txq **txq, struct gnio_wire_caps *caps)
{
	gnio_error_t err;

	*txq = NULL;
	if ((err = gnio_eth_txq_create(dev, burst, txq)) ||
	    (err = gnio_eth_txq_set_queue_id(*txq, (uint16_t)w->queue)) ||
	    (err = gnio_eth_txq_set_num_packets(*txq, ring_size)) ||
	    (err = gnio_ctx_start(gnio_eth_txq_as_ctx(*txq))))
		return open_fail(w, err);
	gnio_devinfo_get_caps(gnio_dev_as_devinfo(dev), caps);
	return GNIO_EXIT_OK;
}

void wireopt_rxq_close(struct gnio_eth_rxq *rxq)
{
	enum gnio_ctx_state st;
	if (!rxq)
		return;
	if (gnio_ctx_get_state(gnio_eth_rxq_as_ctx(rxq), &st) == GNIO_SUCCESS && st == GNIO_CTX_STATE_STARTED)
		gnio_ctx_stop(gnio_eth_rxq_as_ctx(rxq));
	gnio_eth_rxq_destroy(rxq);
}

void wireopt_txq_close(struct gnio_eth_txq *txq)
{
	enum gnio_ctx_state st;
	if (!txq)
		return;
	if (gnio_ctx_get_state(gnio_eth_txq_as_ctx(txq), &st) == GNIO_SUCCESS && st == GNIO_CTX_STATE_STARTED)
		gnio_ctx_stop(gnio_eth_txq_as_ctx(txq));
	gnio_eth_txq_destroy(txq);
}
