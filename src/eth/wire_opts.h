/* SPDX-License-Identifier: MIT */
/*
 * src/eth/wire_opts.h - checking the options of a wire spec (private; in
 * src/eth/wire_registry.c, beside gnio_wire_split_args and gnio_wire_opt).
 */
#ifndef GNIO_SRC_ETH_WIRE_OPTS_H
#define GNIO_SRC_ETH_WIRE_OPTS_H

#include <stdint.h>
#include "gnio/error.h"

/* Refuse options the wire of this kind does not know (a typo would otherwise
 * be ignored), naming the option and the valid ones, options given twice,
 * and options without a name. opts: the part of a spec after "KIND:NAME,".
 * gnio_dev_open calls it before the wire's open. Errors: INVALID_VALUE,
 * NOT_FOUND (unknown kind). */
gnio_error_t gnio_wire_check_opts(const char *kind, const char *opts);

/* An on/off option: `key` alone or `key=1` is on, `key=0` off. Returns 0 when
 * absent (*on unchanged), 1 when given, -1 for any other value (the wire
 * refuses the spec, naming it). */
int gnio_wire_opt_flag(const char *opts, const char *key, int *on);
/* A decimal number in lo..hi (digits only: no sign, no hex, nothing after).
 * Returns 0 when absent (*out unchanged), 1 when given, -1 otherwise. */
int gnio_wire_opt_u32(const char *opts, const char *key, uint32_t lo, uint32_t hi, uint32_t *out);

#endif
