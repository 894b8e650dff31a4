/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/wireopt.h - what `gnio gen` and `gnio sink` share: the wire and
 * generator options (--wire --proto --size --flows --first-seq --queue), the
 * number check, opening the wire and one queue on the host datapath (public
 * API only), Ctrl-C handling and the monotonic clock.
 * Every message starts with the command's name ("gnio gen: ...").
 */
#ifndef GNIO_TOOLS_WIREOPT_H
#define GNIO_TOOLS_WIREOPT_H

#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "gnio/gnio.h"

struct wireopt {
	const char *cmd;        /* message prefix, e.g. "gnio gen" */
	const char *proto_hint; /* after "unknown protocol 'X'" ("" for none) */
	struct gnio_gen_cfg *gen;
	void (*usage)(FILE *f); /* the command's --help text */
	const char *spec;       /* --wire */
	unsigned queue;         /* --queue */
	int exit;               /* -1, or the exit code to stop with (wireopt_getopt) */
};

/* Set by SIGINT/SIGTERM once wireopt_catch_signals() ran. */
extern volatile sig_atomic_t wireopt_stop;

uint64_t wireopt_mono_ns(void);
void wireopt_catch_signals(void);

/*
 * getopt_long over argv (short options: just -h; set optind = 1 first) with
 * long options lo. Takes the shared options ('w' 'p' 's' 'f' 'S' 'q' in lo)
 * itself and returns each other option for the command to take; -1 at the
 * end. Then w->exit (set it to -1 first) is still -1 to go on, or the exit
 * code to return: after --help (printed on stdout), or a usage error
 * (printed): an unknown option (with the help text on stderr), a bad number
 * or protocol, a stray argument or no --wire.
 */
int wireopt_getopt(struct wireopt *w, int argc, char **argv, const struct option *lo);
/* After strto*(arg, end): nonzero (printed) when the number has junk. */
int wireopt_bad_number(const struct wireopt *w, const char *end, const char *arg);

/* Opens --wire and reads its caps. Returns GNIO_EXIT_OK or the exit code. */
int wireopt_dev_open(const struct wireopt *w, struct gnio_dev **dev, struct gnio_wire_caps *caps);
/* Creates and starts --queue on the CPU datapath (gnio_eth_rxq_recv_burst /
 * gnio_eth_txq_send_burst), then reads caps again (the mode may be known only
 * now). Returns GNIO_EXIT_OK or the exit code. */
int wireopt_rxq_open(const struct wireopt *w, struct gnio_dev *dev, uint32_t max_frame, unsigned burst,
		     struct gnio_eth_rxq **rxq, struct gnio_wire_caps *caps);
int wireopt_txq_open(const struct wireopt *w, struct gnio_dev *dev, uint32_t ring_size, unsigned burst,
		     struct gnio_eth_txq **txq, struct gnio_wire_caps *caps);
/* Stop (when started) and destroy. */
void wireopt_rxq_close(struct gnio_eth_rxq *rxq);
void wireopt_txq_close(struct gnio_eth_txq *txq);

#endif /* GNIO_TOOLS_WIREOPT_H */
