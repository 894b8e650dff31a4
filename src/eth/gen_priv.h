/* SPDX-License-Identifier: MIT */
/*
 * src/eth/gen_priv.h - the generator's fast path (private).
 *
 * gnio_gen_build() rebuilds a frame from scratch and sums every checksum over
 * the whole frame: simple and the reference. The sw wire needs tens of Mpps,
 * so gnio_gen_init() builds one template per protocol once and
 * gnio_gen_fill() copies it, patches only the bytes that depend on seq (IP id,
 * source port, TCP sequence, ICMP id/seq, stamp) and finishes the checksums
 * from precomputed partial sums. Both produce identical bytes.
 */
#ifndef GNIO_SRC_ETH_GEN_PRIV_H
#define GNIO_SRC_ETH_GEN_PRIV_H

#include <stdint.h>
#include "gnio/gen.h"

struct gnio_gen;

/* Errors: INVALID_VALUE (cfg fails gnio_gen_cfg_check; reason recorded with
 * gnio_set_error_msg), NO_MEMORY. */
gnio_error_t gnio_gen_init(const struct gnio_gen_cfg *cfg, struct gnio_gen **gen);
void gnio_gen_free(struct gnio_gen *gen);
/* The cfg the generator was built from (a copy). */
const struct gnio_gen_cfg *gnio_gen_get_cfg(const struct gnio_gen *gen);
/* Same bytes as gnio_gen_build(cfg, seq, ...); returns the frame length, 0 if
 * cap is too small. Thread-safe: gen is read-only after init. */
uint32_t gnio_gen_fill(const struct gnio_gen *gen, uint64_t seq, uint8_t *buf, uint32_t cap);

#endif /* GNIO_SRC_ETH_GEN_PRIV_H */
