/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow_key.h - frame parsing and rule matching shared, word for
 * word, by the library (gcc, host) and the XDP program (clang -target bpf),
 * so a rule means the same in the proxy and in the kernel.
 *
 * A frame is parsed once into a key of plain numbers (struct fk_key); a rule
 * is compiled into numbers to compare (struct fk_rule); matching touches no
 * packet memory. Parsing never reads past `end`: every read is preceded by
 * fk_room(p, end, n). On the host that is an integer compare that never forms
 * a pointer past the frame; in BPF it is the pointer compare the verifier
 * needs to allow the access.
 *
 * How hostile frames are read (docs/flow.md, "Parsing"):
 *   shorter than 14 bytes         -> l3 NONE, ethertype 0: matches only rules with no field set
 *   VLAN 0x8100 / 0x88a8 tags     -> up to two are skipped; vlan = outer VID; a third tag stays the ethertype
 *   IPv4 with version != 4, IHL < 5, header past the frame, or total length < IHL*4 -> l3 NONE
 *   IPv6 with version != 6 or a header past the frame -> l3 NONE
 *   ports                         -> only UDP/TCP, only when 4 bytes of L4 header lie inside both the frame
 *                                    and the IP length, never for a non-first fragment
 *   IPv6 extension headers        -> hop-by-hop, routing, fragment, destination options and AH are walked,
 *                                    at most FK_MAX_EXT of them; a chain that is longer or truncated leaves
 *                                    proto at the header where the walk stopped and no ports
 */
#ifndef GNIO_SRC_FLOW_FLOW_KEY_H
#define GNIO_SRC_FLOW_FLOW_KEY_H

#ifdef __bpf__
#include <linux/types.h>
typedef __u8 fk_u8;
typedef __u16 fk_u16;
typedef __u32 fk_u32;
#define FK_INLINE static __attribute__((always_inline)) inline
#define fk_room(p, end, n) ((const fk_u8 *)(p) + (n) <= (const fk_u8 *)(end))
#else
#include <stddef.h>
#include <stdint.h>
typedef uint8_t fk_u8;
typedef uint16_t fk_u16;
typedef uint32_t fk_u32;
#define FK_INLINE static inline
#define fk_room(p, end, n) ((size_t)((const fk_u8 *)(end) - (const fk_u8 *)(p)) >= (size_t)(n))
#endif

#define FK_MAX_RULES 256 /* = GNIO_FLOW_MAX_RULES */
#define FK_MAX_EXT 8     /* IPv6 extension headers walked */
#define FK_MAX_VLAN 2    /* VLAN tags skipped */
/* The furthest byte the parser can read: two tags, the IPv6 header, eight
 * extension headers of at most 2048 bytes, 4 bytes of ports. */
#define FK_MAX_READ (14 + 4 * FK_MAX_VLAN + 40 + FK_MAX_EXT * 2048 + 4)

/* key.l3: one bit; rule.l3_mask: the set it accepts */
#define FK_L3_NONE 0x01
#define FK_L3_IPV4 0x02
#define FK_L3_IPV6 0x04
#define FK_L3_ARP 0x08
#define FK_L3_ANY 0x0f

/* key.flags */
#define FK_F_VLAN 0x01  /* a VLAN tag was present; vlan holds the outer VID */
#define FK_F_PORTS 0x02 /* sport/dport are valid */
#define FK_F_FRAG 0x04  /* an IP fragment (first or not) */
#define FK_F_EXT 0x08   /* IPv6 extension headers were walked (the socket filter
			 * then reads the frame up to FK_MAX_READ, not a prefix) */

/* rule.checks: optional comparisons */
#define FK_C_ETHERTYPE 0x01
#define FK_C_VLAN 0x02
#define FK_C_SRC 0x04
#define FK_C_DST 0x08
#define FK_C_SPORT 0x10
#define FK_C_DPORT 0x20

/* rule.action: enum gnio_flow_action_type (kept numeric here for BPF) */
#define FK_ACT_GNIO 0
#define FK_ACT_QUEUE 1
#define FK_ACT_RSS 2
#define FK_ACT_CPU 3
#define FK_ACT_KERNEL 4
#define FK_ACT_DROP 5

/* Counter slots: 0..FK_MAX_RULES-1 rules, then these. */
#define FK_SLOT_DEFAULT FK_MAX_RULES
#define FK_SLOT_FRAMES (FK_MAX_RULES + 1)   /* XDP: frames classified */
#define FK_SLOT_NO_SOCKET (FK_MAX_RULES + 2) /* XDP: gnio decision, no socket on the queue */
#define FK_NUM_SLOTS (FK_MAX_RULES + 3)

#define FK_PROTO_ICMP 1
#define FK_PROTO_TCP 6
#define FK_PROTO_UDP 17
#define FK_PROTO_ICMP6 58

struct fk_key {
	fk_u32 src[4], dst[4]; /* network order; IPv4 and ARP use word 0 */
	fk_u16 ethertype;      /* after VLAN tags */
	fk_u16 vlan;           /* outer VID when FK_F_VLAN */
	fk_u16 sport, dport;   /* host order when FK_F_PORTS */
	fk_u8 l3;              /* FK_L3_* */
	fk_u8 proto;           /* IP protocol / final IPv6 next header; 0 when not IP */
	fk_u8 flags;           /* FK_F_* */
	fk_u8 pad;
};

/* A compiled rule: what to compare, and what to do. */
struct fk_rule {
	fk_u32 src[4], src_mask[4]; /* src already masked */
	fk_u32 dst[4], dst_mask[4];
	fk_u16 ethertype, vlan;
	fk_u16 sport_min, sport_max, dport_min, dport_max;
	fk_u16 slot;   /* hit counter slot */
	fk_u16 queue;  /* QUEUE, CPU */
	fk_u8 l3_mask; /* FK_L3_* the rule accepts */
	fk_u8 proto;   /* 0 = any */
	fk_u8 checks;  /* FK_C_* */
	fk_u8 action;  /* FK_ACT_* */
};

/* The table the XDP program reads (one map value) and the core of the
 * host table. */
struct fk_table {
	fk_u32 count;
	fk_u8 default_action;
	fk_u8 pad[3];
	struct fk_rule rules[FK_MAX_RULES];
};

FK_INLINE fk_u16 fk_rd16(const fk_u8 *p)
{
	return (fk_u16)((fk_u16)p[0] << 8 | p[1]);
}

FK_INLINE fk_u32 fk_rd32(const fk_u8 *p)
{
	/* network order kept: the bytes as they are, read as one word */
	fk_u32 v;

	__builtin_memcpy(&v, p, 4);
	return v;
}

FK_INLINE void fk_ports(const fk_u8 *l4, const fk_u8 *end, fk_u32 room, struct fk_key *k)
{
	if ((k->proto == FK_PROTO_UDP || k->proto == FK_PROTO_TCP) && room >= 4 && fk_room(l4, end, 4)) {
		k->sport = fk_rd16(l4);
		k->dport = fk_rd16(l4 + 2);
		k->flags |= FK_F_PORTS;
	}
}

FK_INLINE void fk_parse_ipv4(const fk_u8 *q, const fk_u8 *end, struct fk_key *k)
{
	fk_u32 ihl, tot;
	fk_u16 frag;

	if (!fk_room(q, end, 20) || (q[0] >> 4) != 4)
		return;
	ihl = (fk_u32)(q[0] & 0x0f) * 4;
	tot = fk_rd16(q + 2);
	if (ihl < 20 || tot < ihl || !fk_room(q, end, ihl))
		return;
	k->l3 = FK_L3_IPV4;
	k->proto = q[9];
	k->src[0] = fk_rd32(q + 12);
	k->dst[0] = fk_rd32(q + 16);
	frag = fk_rd16(q + 6);
	if (frag & 0x3fff) { /* MF or an offset */
		k->flags |= FK_F_FRAG;
		if (frag & 0x1fff)
			return; /* not the first fragment: no L4 header */
	}
	fk_ports(q + ihl, end, tot - ihl, k);
}

FK_INLINE int fk_is_ext(fk_u8 nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 60 || nh == 51;
}

FK_INLINE void fk_parse_ipv6(const fk_u8 *q, const fk_u8 *end, struct fk_key *k)
{
	const fk_u8 *h;
	fk_u32 room, hl;
	fk_u8 nh;
	int i;

	if (!fk_room(q, end, 40) || (q[0] >> 4) != 6)
		return;
	k->l3 = FK_L3_IPV6;
	for (i = 0; i < 4; i++) {
		k->src[i] = fk_rd32(q + 8 + 4 * i);
		k->dst[i] = fk_rd32(q + 24 + 4 * i);
	}
	room = fk_rd16(q + 4);
	nh = q[6];
	h = q + 40;
	for (i = 0; i < FK_MAX_EXT; i++) {
		if (!fk_is_ext(nh))
			break;
		k->flags |= FK_F_EXT;
		if (room < 8 || !fk_room(h, end, 8)) {
			k->proto = nh; /* truncated chain */
			return;
		}
		if (nh == 44) { /* fragment header: 8 bytes */
			k->flags |= FK_F_FRAG;
			if (fk_rd16(h + 2) & 0xfff8) {
				k->proto = h[0]; /* not the first fragment: no L4 header */
				return;
			}
			hl = 8;
		} else if (nh == 51) {
			hl = ((fk_u32)h[1] + 2) * 4; /* AH counts 4-byte words */
		} else {
			hl = ((fk_u32)h[1] + 1) * 8;
		}
		if (room < hl || !fk_room(h, end, hl)) {
			k->proto = nh;
			return;
		}
		nh = h[0];
		h += hl;
		room -= hl;
	}
	k->proto = nh;
	if (fk_is_ext(nh))
		return; /* chain longer than we walk: no ports */
	fk_ports(h, end, room, k);
}

FK_INLINE void fk_parse_arp(const fk_u8 *q, const fk_u8 *end, struct fk_key *k)
{
	/* Ethernet/IPv4 ARP only: htype 1, ptype 0x0800, hlen 6, plen 4 */
	if (!fk_room(q, end, 28) || fk_rd16(q) != 1 || fk_rd16(q + 2) != 0x0800 || q[4] != 6 || q[5] != 4)
		return;
	k->l3 = FK_L3_ARP;
	k->src[0] = fk_rd32(q + 14); /* sender protocol address */
	k->dst[0] = fk_rd32(q + 24); /* target protocol address */
}

/* Parse the frame [p, end) into k, when its outer VLAN tag has already been
 * taken out of the bytes (a socket filter sees the kernel's stripped tag
 * beside the frame): outer_tci is that tag's TCI, or -1 when there was none.
 * The key is the one fk_parse gives for the frame with the tag in place. */
FK_INLINE void fk_parse_tagged(const fk_u8 *p, const fk_u8 *end, int outer_tci, struct fk_key *k)
{
	const fk_u8 *q;
	fk_u16 et;
	int i, tags = 0;

	__builtin_memset(k, 0, sizeof(*k));
	k->l3 = FK_L3_NONE;
	if (!fk_room(p, end, 14))
		return;
	if (outer_tci >= 0) {
		k->vlan = (fk_u16)(outer_tci & 0x0fff);
		k->flags |= FK_F_VLAN;
		tags = 1;
	}
	et = fk_rd16(p + 12);
	q = p + 14;
	for (i = tags; i < FK_MAX_VLAN; i++) {
		if (et != 0x8100 && et != 0x88a8)
			break;
		if (!fk_room(q, end, 4))
			break; /* truncated tag: its TPID stays the ethertype */
		if (i == 0) {
			k->vlan = fk_rd16(q) & 0x0fff;
			k->flags |= FK_F_VLAN;
		}
		et = fk_rd16(q + 2);
		q += 4;
	}
	k->ethertype = et;
	if (et == 0x0800)
		fk_parse_ipv4(q, end, k);
	else if (et == 0x86dd)
		fk_parse_ipv6(q, end, k);
	else if (et == 0x0806)
		fk_parse_arp(q, end, k);
}

/* Parse the frame [p, end) into k. */
FK_INLINE void fk_parse(const fk_u8 *p, const fk_u8 *end, struct fk_key *k)
{
	fk_parse_tagged(p, end, -1, k);
}

FK_INLINE int fk_addr_match(const fk_u32 *a, const fk_u32 *want, const fk_u32 *mask)
{
	return (a[0] & mask[0]) == want[0] && (a[1] & mask[1]) == want[1] && (a[2] & mask[2]) == want[2] &&
	       (a[3] & mask[3]) == want[3];
}

FK_INLINE int fk_match(const struct fk_rule *r, const struct fk_key *k)
{
	if (!(r->l3_mask & k->l3))
		return 0;
	if (r->proto && r->proto != k->proto)
		return 0;
	if (!r->checks)
		return 1;
	if ((r->checks & FK_C_ETHERTYPE) && r->ethertype != k->ethertype)
		return 0;
	if ((r->checks & FK_C_VLAN) && (!(k->flags & FK_F_VLAN) || r->vlan != k->vlan))
		return 0;
	if ((r->checks & FK_C_SRC) && !fk_addr_match(k->src, r->src, r->src_mask))
		return 0;
	if ((r->checks & FK_C_DST) && !fk_addr_match(k->dst, r->dst, r->dst_mask))
		return 0;
	if (r->checks & (FK_C_SPORT | FK_C_DPORT)) {
		if (!(k->flags & FK_F_PORTS))
			return 0;
		if ((r->checks & FK_C_SPORT) && (k->sport < r->sport_min || k->sport > r->sport_max))
			return 0;
		if ((r->checks & FK_C_DPORT) && (k->dport < r->dport_min || k->dport > r->dport_max))
			return 0;
	}
	return 1;
}

#endif /* GNIO_SRC_FLOW_FLOW_KEY_H */
