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

/* gnio_gen_init, gnio_gen_fill and friends are public now (gnio/gen.h); this
 * header stays for the library's own includes. */

#endif /* GNIO_SRC_ETH_GEN_PRIV_H */
