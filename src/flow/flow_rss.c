/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow_rss.c - the Toeplitz hash RSS spreads flows with.
 *
 * Key: the 40-byte key most NICs ship as their default (Microsoft's RSS
 * verification key), so a hash here equals the one such a NIC computes for
 * the same input. Input (docs/flow.md, "RSS"): source address, destination
 * address, then source and destination port for UDP/TCP that is not a
 * fragment; addresses only for other IP and all fragments (so every fragment
 * of a datagram lands in one queue); ARP sender and target addresses; other
 * frames the source then destination MAC.
 *
 * The hash is linear in the input bits, so it is computed with one table per
 * input byte position: tbl[i][b] is the hash contribution of byte value b at
 * position i. 36 positions (the longest input) x 256 x 4 bytes = 36 KiB,
 * built once.
 */
#include <pthread.h>
#include <string.h>

#include "flow/flow_priv.h"

static const uint8_t rss_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

#define MAX_IN 36 /* 40-byte key - 4: the 32-bit window must fit */

static uint32_t tbl[MAX_IN][256];
static pthread_once_t tbl_once = PTHREAD_ONCE_INIT;

/* The 32 key bits starting at bit position `bit`. */
static uint32_t key_window(unsigned bit)
{
	uint64_t w = 0;

	for (unsigned i = 0; i < 8; i++) {
		unsigned byte = bit / 8 + i;

		w = w << 8 | (byte < sizeof(rss_key) ? rss_key[byte] : 0);
	}
	return (uint32_t)(w >> (32 - bit % 8));
}

static void tbl_build(void)
{
	for (unsigned i = 0; i < MAX_IN; i++)
		for (unsigned b = 0; b < 256; b++) {
			uint32_t h = 0;

			for (unsigned j = 0; j < 8; j++)
				if (b & (0x80u >> j))
					h ^= key_window(i * 8 + j);
			tbl[i][b] = h;
		}
}

void flow_rss_init(void)
{
	pthread_once(&tbl_once, tbl_build);
}

uint32_t flow_toeplitz(const uint8_t *in, unsigned len)
{
	uint32_t h = 0;

	if (len > MAX_IN)
		len = MAX_IN;
	for (unsigned i = 0; i < len; i++)
		h ^= tbl[i][in[i]];
	return h;
}

uint32_t flow_key_hash(const struct fk_key *k, const uint8_t *frame, uint32_t len)
{
	uint8_t in[MAX_IN];
	unsigned n = 0;

	if (k->l3 == FK_L3_IPV4 || k->l3 == FK_L3_ARP) {
		memcpy(in, &k->src[0], 4);
		memcpy(in + 4, &k->dst[0], 4);
		n = 8;
	} else if (k->l3 == FK_L3_IPV6) {
		memcpy(in, k->src, 16);
		memcpy(in + 16, k->dst, 16);
		n = 32;
	} else if (len >= 12) {
		memcpy(in, frame + 6, 6); /* source MAC */
		memcpy(in + 6, frame, 6); /* destination MAC */
		return flow_toeplitz(in, 12);
	} else {
		return 0;
	}
	if ((k->flags & (FK_F_PORTS | FK_F_FRAG)) == FK_F_PORTS) {
		in[n++] = (uint8_t)(k->sport >> 8);
		in[n++] = (uint8_t)k->sport;
		in[n++] = (uint8_t)(k->dport >> 8);
		in[n++] = (uint8_t)k->dport;
	}
	return flow_toeplitz(in, n);
}

uint32_t gnio_flow_hash(const uint8_t *frame, uint32_t len)
{
	struct fk_key k;

	if (!frame)
		return 0;
	flow_rss_init();
	fk_parse(frame, frame + len, &k);
	return flow_key_hash(&k, frame, len);
}
