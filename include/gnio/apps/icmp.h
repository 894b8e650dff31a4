/* SPDX-License-Identifier: MIT */
/*
 * gnio/apps/icmp.h - answer an ICMP echo request where it lies: the frame
 * becomes the reply (MACs and IPv4 addresses swapped, type 0, checksum
 * updated), ready to be sent in place. Written once, run by CUDA kernels and
 * the CPU device alike; reads nothing past len.
 */
#ifndef GNIO_APPS_ICMP_H
#define GNIO_APPS_ICMP_H

#include "../impl/hd.h"

/* Ones'-complement sum of 16-bit big-endian words, folded. */
GNIO_HD uint32_t gnio_csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

GNIO_HD uint16_t gnio_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Where the IPv4 header of an Ethernet frame starts (after up to one VLAN
 * tag), or 0 when it is not IPv4. */
GNIO_HD uint32_t gnio_ipv4_offset(const uint8_t *f, uint32_t len)
{
	if (len < 14)
		return 0;
	uint32_t off = 12;
	uint16_t et = (uint16_t)(f[off] << 8 | f[off + 1]);
	if (et == 0x8100 || et == 0x88a8) {
		if (len < 18)
			return 0;
		off = 16;
		et = (uint16_t)(f[off] << 8 | f[off + 1]);
	}
	return et == 0x0800 ? off + 2 : 0;
}

/* Is this an ICMP echo request (for `ip`, network byte order as in the
 * header; 0 = any address)? Then turn it into the reply and return the
 * reply's length (the frame up to the end of the IP packet); else 0 and the
 * frame is untouched. */
GNIO_HD uint32_t gnio_icmp_echo_reply_in_place(uint8_t *f, uint32_t len, uint32_t ip_be)
{
	const uint32_t l3 = gnio_ipv4_offset(f, len);
	if (!l3 || len < l3 + 20)
		return 0;
	uint8_t *ip = f + l3;
	const uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	const uint32_t tot = (uint32_t)(ip[2] << 8 | ip[3]);
	if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl + 8 || l3 + tot > len || ip[9] != 1)
		return 0;
	if ((ip[6] & 0x3f) || ip[7]) /* a fragment: not answered */
		return 0;
	uint8_t *icmp = ip + ihl;
	if (icmp[0] != 8 || icmp[1] != 0)
		return 0;
	const uint32_t dst = (uint32_t)ip[16] | (uint32_t)ip[17] << 8 | (uint32_t)ip[18] << 16 | (uint32_t)ip[19] << 24;
	if (ip_be && dst != ip_be)
		return 0;
	for (int i = 0; i < 6; i++) { /* MACs */
		uint8_t t = f[i];
		f[i] = f[i + 6];
		f[i + 6] = t;
	}
	for (int i = 0; i < 4; i++) { /* addresses: the IP checksum does not change */
		uint8_t t = ip[12 + i];
		ip[12 + i] = ip[16 + i];
		ip[16 + i] = t;
	}
	/* Type 8 -> 0: update the checksum by the change of its word
	 * (RFC 1624: HC' = ~(~HC + ~m + m')). */
	uint32_t hc = (uint32_t)(icmp[2] << 8 | icmp[3]);
	uint32_t sum = (~hc & 0xffffu) + (~0x0800u & 0xffffu) + 0x0000u;
	uint16_t nc = gnio_csum_fold(sum);
	icmp[0] = 0;
	icmp[2] = (uint8_t)(nc >> 8);
	icmp[3] = (uint8_t)nc;
	return l3 + tot;
}

#endif /* GNIO_APPS_ICMP_H */
