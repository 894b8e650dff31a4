/* SPDX-License-Identifier: MIT */
/*
 * gnio/apps/classify.h - per-packet protocol classification, written once and
 * run by the CUDA kernel and the CPU device alike. Reads only the headers and
 * never past len, so hostile frames classify as MALFORMED instead of faulting.
 */
#ifndef GNIO_APPS_CLASSIFY_H
#define GNIO_APPS_CLASSIFY_H

#include "../impl/hd.h"

enum gnio_proto {
	GNIO_PROTO_ARP = 0,
	GNIO_PROTO_ICMP,
	GNIO_PROTO_DNS,       /* UDP with port 53 on either side */
	GNIO_PROTO_UDP,       /* other UDP */
	GNIO_PROTO_HTTP,      /* TCP port 80/8080 with payload */
	GNIO_PROTO_TCP,       /* other TCP */
	GNIO_PROTO_IPV4_OTHER,
	GNIO_PROTO_IPV6,
	GNIO_PROTO_OTHER,     /* other ethertype */
	GNIO_PROTO_MALFORMED, /* truncated or inconsistent headers */
	GNIO_PROTO_COUNT
};

GNIO_HD const char *gnio_proto_name(int p)
{
	switch (p) {
	case GNIO_PROTO_ARP: return "arp";
	case GNIO_PROTO_ICMP: return "icmp";
	case GNIO_PROTO_DNS: return "dns";
	case GNIO_PROTO_UDP: return "udp";
	case GNIO_PROTO_HTTP: return "http";
	case GNIO_PROTO_TCP: return "tcp";
	case GNIO_PROTO_IPV4_OTHER: return "ipv4_other";
	case GNIO_PROTO_IPV6: return "ipv6";
	case GNIO_PROTO_OTHER: return "other";
	default: return "malformed";
	}
}

GNIO_HD uint16_t gnio_rd16be(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

GNIO_HD int gnio_classify(const uint8_t *f, uint32_t len)
{
	if (len < 14)
		return GNIO_PROTO_MALFORMED;
	uint16_t et = gnio_rd16be(f + 12);
	uint32_t off = 14;
	if (et == 0x8100 || et == 0x88a8) { /* one VLAN tag */
		if (len < 18)
			return GNIO_PROTO_MALFORMED;
		et = gnio_rd16be(f + 16);
		off = 18;
	}
	if (et == 0x0806)
		return len >= off + 28 ? GNIO_PROTO_ARP : GNIO_PROTO_MALFORMED;
	if (et == 0x86dd)
		return GNIO_PROTO_IPV6;
	if (et != 0x0800)
		return GNIO_PROTO_OTHER;
	if (len < off + 20)
		return GNIO_PROTO_MALFORMED;
	const uint8_t *ip = f + off;
	uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	uint32_t tot = gnio_rd16be(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl || off + tot > len)
		return GNIO_PROTO_MALFORMED;
	uint8_t proto = ip[9];
	const uint8_t *l4 = ip + ihl;
	uint32_t l4len = tot - ihl;
	int first_frag = (gnio_rd16be(ip + 6) & 0x1fff) == 0;
	if (proto == 1)
		return GNIO_PROTO_ICMP;
	if (proto == 17) {
		if (!first_frag)
			return GNIO_PROTO_UDP;
		if (l4len < 8)
			return GNIO_PROTO_MALFORMED;
		uint16_t sp = gnio_rd16be(l4), dp = gnio_rd16be(l4 + 2);
		return (sp == 53 || dp == 53) ? GNIO_PROTO_DNS : GNIO_PROTO_UDP;
	}
	if (proto == 6) {
		if (!first_frag)
			return GNIO_PROTO_TCP;
		if (l4len < 20)
			return GNIO_PROTO_MALFORMED;
		uint32_t doff = (uint32_t)(l4[12] >> 4) * 4;
		if (doff < 20 || doff > l4len)
			return GNIO_PROTO_MALFORMED;
		uint16_t sp = gnio_rd16be(l4), dp = gnio_rd16be(l4 + 2);
		int web = sp == 80 || dp == 80 || sp == 8080 || dp == 8080;
		return (web && l4len > doff) ? GNIO_PROTO_HTTP : GNIO_PROTO_TCP;
	}
	return GNIO_PROTO_IPV4_OTHER;
}

#endif /* GNIO_APPS_CLASSIFY_H */
