/* SPDX-License-Identifier: MIT */
/*
 * tests/util/flow_frames.h - build the frames the flow tests classify:
 * Ethernet with up to two VLAN tags, then IPv4/IPv6 (with extension headers
 * and fragments), UDP/TCP/ICMP, or ARP. Header-only: each test includes it.
 */
#ifndef GNIO_TESTS_FLOW_FRAMES_H
#define GNIO_TESTS_FLOW_FRAMES_H

#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

struct tf_spec {
	uint16_t tpid[2];     /* VLAN tags, 0 = none (0x8100 or 0x88a8) */
	uint16_t vid[2];
	int ipv;              /* 4, 6, or 0 */
	int arp;              /* ARP request (ipv ignored) */
	uint16_t ethertype;   /* when neither IP nor ARP */
	uint8_t proto;        /* IP protocol (17 udp, 6 tcp, 1 icmp, 58 icmp6) */
	const char *src, *dst;
	uint16_t sport, dport;
	uint16_t frag;        /* IPv4 flags+offset field / IPv6 fragment offset+M */
	int v6_frag;          /* add an IPv6 fragment header */
	uint8_t v6_ext[4];    /* IPv6 extension headers before L4 (0, 43, 60) */
	int n_ext;
	uint8_t ext_units;    /* each one's length field: (ext_units + 1) * 8 bytes */
	uint32_t payload;     /* bytes after the L4 header */
};

static inline void tf_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* b must hold 1600 bytes (all are zeroed). Returns the frame length (at
 * least 60, padded). */
static inline uint32_t tf_build(uint8_t *b, const struct tf_spec *s)
{
	static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x02}, smac[6] = {0x02, 0, 0, 0, 0, 0x01};
	uint32_t off = 12, l3, l4 = 0, i;
	uint8_t proto = s->proto;

	memset(b, 0, 1600);
	memcpy(b, dmac, 6);
	memcpy(b + 6, smac, 6);
	for (i = 0; i < 2 && s->tpid[i]; i++) {
		tf_put16(b + off, s->tpid[i]);
		tf_put16(b + off + 2, s->vid[i]);
		off += 4;
	}
	tf_put16(b + off, s->arp ? 0x0806 : s->ipv == 4 ? 0x0800 : s->ipv == 6 ? 0x86dd : s->ethertype);
	off += 2;
	l3 = off;
	if (s->arp) {
		tf_put16(b + l3, 1);
		tf_put16(b + l3 + 2, 0x0800);
		b[l3 + 4] = 6;
		b[l3 + 5] = 4;
		tf_put16(b + l3 + 6, 1);
		memcpy(b + l3 + 8, smac, 6);
		inet_pton(AF_INET, s->src, b + l3 + 14);
		inet_pton(AF_INET, s->dst, b + l3 + 24);
		off = l3 + 28;
	} else if (s->ipv == 4) {
		b[l3] = 0x45;
		b[l3 + 8] = 64;
		b[l3 + 9] = proto;
		tf_put16(b + l3 + 6, s->frag);
		inet_pton(AF_INET, s->src, b + l3 + 12);
		inet_pton(AF_INET, s->dst, b + l3 + 16);
		l4 = l3 + 20;
	} else if (s->ipv == 6) {
		uint8_t *nh = b + l3 + 6;

		b[l3] = 0x60;
		b[l3 + 7] = 64;
		inet_pton(AF_INET6, s->src, b + l3 + 8);
		inet_pton(AF_INET6, s->dst, b + l3 + 24);
		l4 = l3 + 40;
		for (int e = 0; e < s->n_ext; e++) {
			*nh = s->v6_ext[e];
			nh = b + l4;
			b[l4 + 1] = s->ext_units;
			l4 += 8u * (s->ext_units + 1u);
		}
		if (s->v6_frag) {
			*nh = 44;
			nh = b + l4;
			tf_put16(b + l4 + 2, s->frag);
			l4 += 8;
		}
		*nh = proto;
	}
	if (l4) {
		uint32_t hl = proto == 6 ? 20 : 8;

		if (!((s->ipv == 4 && (s->frag & 0x1fff)) || (s->ipv == 6 && s->v6_frag && (s->frag & 0xfff8)))) {
			if (proto == 17 || proto == 6) {
				tf_put16(b + l4, s->sport);
				tf_put16(b + l4 + 2, s->dport);
			}
			if (proto == 6)
				b[l4 + 12] = 0x50;
			if (proto == 17)
				tf_put16(b + l4 + 4, (uint16_t)(8 + s->payload));
			if (proto == 1 || proto == 58)
				b[l4] = proto == 1 ? 8 : 128; /* echo request */
		}
		off = l4 + hl + s->payload;
		if (s->ipv == 4)
			tf_put16(b + l3 + 2, (uint16_t)(off - l3));
		else
			tf_put16(b + l3 + 4, (uint16_t)(off - l3 - 40));
	} else if (!s->arp) {
		off += s->payload;
	}
	return off < 60 ? 60 : off;
}

#endif
