/* SPDX-License-Identifier: MIT */
/*
 * gnio/apps/frame.h - per-frame operations of the built-in apps and samples,
 * written once and run by CUDA kernels and the CPU device alike.
 */
#ifndef GNIO_APPS_FRAME_H
#define GNIO_APPS_FRAME_H

#include "../impl/hd.h"

/* Swap the Ethernet destination and source addresses in place. Frames
 * shorter than 12 bytes are left alone. When the frame is 4-byte aligned the
 * header moves as three 32-bit words, so a frame in pinned host memory costs
 * one read and one write across PCIe. */
/* Write into frame its addresses swapped, read from hdr: the frame's first
 * 12 bytes or a copy of them (gnio_gpu_dev_eth_rxq_get_pkt_hdr). Every byte
 * is read before any is written, so hdr may be the frame itself; when it is
 * a device-memory copy, the frame is only written (no read across PCIe). */
GNIO_HD void gnio_frame_swap_macs_from(uint8_t *frame, const uint8_t *hdr, uint32_t len)
{
	if (len < 12)
		return;
	if ((((uintptr_t)frame | (uintptr_t)hdr) & 3u) == 0) {
		const uint32_t *r = (const uint32_t *)hdr;
		uint32_t *w = (uint32_t *)frame;
		const uint32_t h0 = r[0], h1 = r[1], h2 = r[2];
		/* Little-endian bytes b0..b11 = destination, source. */
		w[0] = (h1 >> 16) | (h2 << 16); /* b6 b7 b8 b9 */
		w[1] = (h2 >> 16) | (h0 << 16); /* b10 b11 b0 b1 */
		w[2] = (h0 >> 16) | (h1 << 16); /* b2 b3 b4 b5 */
		return;
	}
	uint8_t t[12];
	for (int i = 0; i < 12; i++)
		t[i] = hdr[i];
	for (int i = 0; i < 6; i++) {
		frame[i] = t[i + 6];
		frame[i + 6] = t[i];
	}
}

GNIO_HD void gnio_frame_swap_macs(uint8_t *frame, uint32_t len) { gnio_frame_swap_macs_from(frame, frame, len); }

/* The first 12 bytes a frame of len bytes, whose first bytes are at hdr,
 * leaves with when its MACs are swapped, into out (4-byte aligned), for a
 * send that carries them in its descriptor (gnio_gpu_dev_eth_txq_send_hdr):
 * returns how many replace the frame's (12, or 0 for a runt, left as it is). */
GNIO_HD uint32_t gnio_frame_swapped_macs(uint32_t out[3], const uint8_t *hdr, uint32_t len)
{
	if (len < 12)
		return 0;
	gnio_frame_swap_macs_from((uint8_t *)out, hdr, len);
	return 12;
}

/* XOR of the frame's 32-bit little-endian words, the tail bytes
 * zero-extended: what the touch app computes, so a test can check that every
 * byte was read. lane/step split the words among cooperating threads (0/1 for
 * one thread); the XOR of all lanes' results is the frame's digest. */
GNIO_HD uint32_t gnio_frame_digest_part(const uint8_t *p, uint32_t len, uint32_t lane, uint32_t step)
{
	uint32_t x = 0;
	const uint32_t nw = len / 4u;
	if (((uintptr_t)p & 3u) == 0) {
		const uint32_t *w = (const uint32_t *)p;
		for (uint32_t k = lane; k < nw; k += step)
			x ^= w[k];
	} else {
		for (uint32_t k = lane; k < nw; k += step)
			x ^= (uint32_t)p[4 * k] | (uint32_t)p[4 * k + 1] << 8 | (uint32_t)p[4 * k + 2] << 16 |
			     (uint32_t)p[4 * k + 3] << 24;
	}
	if (lane == 0)
		for (uint32_t i = nw * 4u, sh = 0; i < len; i++, sh += 8)
			x ^= (uint32_t)p[i] << sh;
	return x;
}

GNIO_HD uint32_t gnio_frame_digest(const uint8_t *p, uint32_t len) { return gnio_frame_digest_part(p, len, 0, 1); }

#endif /* GNIO_APPS_FRAME_H */
