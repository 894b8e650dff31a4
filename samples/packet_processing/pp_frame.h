/* SPDX-License-Identifier: MIT */
/*
 * samples/packet_processing/pp_frame.h - the frame work of packet_processing,
 * written once as GNIO_HD functions: the CUDA kernel, the CPU-device body
 * and the host's TCP path all call them.
 *
 *   pp_parse            classify a frame into the --json keys, never reading
 *                       past its length (malformed frames are "other");
 *   pp_arp_reply_in_place  an ARP request for our address becomes the reply;
 *   pp_tcp_reply        a TCP segment answering another (handshake, teardown,
 *                       or an HTTP response), checksums computed;
 *   pp_flow_*           the table of TCP flows the host's TCP path opened.
 * ICMP echo replies come from gnio/apps/icmp.h (gnio_icmp_echo_reply_in_place).
 */
#ifndef GNIO_SAMPLE_PP_FRAME_H
#define GNIO_SAMPLE_PP_FRAME_H

#include <gnio/apps/icmp.h>
#include <gnio/impl/atomics.h>

/* What a frame is: one --json key each. */
enum pp_kind {
	PP_ARP = 0,
	PP_ICMP,
	PP_DNS,       /* UDP with port 53 on either side */
	PP_UDP_OTHER,
	PP_TCP_SYN,   /* SYN set */
	PP_TCP_FIN,   /* FIN set, SYN not */
	PP_TCP_OTHER, /* any other TCP (ACKs, RSTs, data) */
	PP_HTTP_GET,  /* TCP payload starting "GET " (no SYN or FIN) */
	PP_HTTP_POST,
	PP_HTTP_HEAD,
	PP_OTHER,     /* not IPv4 or ARP, other IP protocols, fragments, anything malformed */
	PP_KINDS
};

GNIO_HD const char *pp_kind_name(int k)
{
	switch (k) {
	case PP_ARP: return "arp";
	case PP_ICMP: return "icmp";
	case PP_DNS: return "dns";
	case PP_UDP_OTHER: return "udp_other";
	case PP_TCP_SYN: return "tcp_syn";
	case PP_TCP_FIN: return "tcp_fin";
	case PP_TCP_OTHER: return "tcp_other";
	case PP_HTTP_GET: return "http_get";
	case PP_HTTP_POST: return "http_post";
	case PP_HTTP_HEAD: return "http_head";
	default: return "other";
	}
}

#define PP_TCP_FIN_FLAG 0x01u
#define PP_TCP_SYN_FLAG 0x02u
#define PP_TCP_RST_FLAG 0x04u
#define PP_TCP_PSH_FLAG 0x08u
#define PP_TCP_ACK_FLAG 0x10u

/* Where the headers of a frame are (offsets from its start). */
struct pp_pkt {
	uint32_t l3;          /* IPv4 or ARP header (after the Ethernet header and up to one VLAN tag) */
	uint32_t l4;          /* TCP/UDP/ICMP header; 0 when not parsed */
	uint32_t payload;     /* TCP/UDP payload */
	uint32_t payload_len;
	uint32_t seq, ack;    /* TCP */
	uint16_t sport, dport;
	uint8_t proto;        /* IPv4 protocol */
	uint8_t tcp_flags;
	int kind;             /* enum pp_kind */
};

GNIO_HD uint32_t pp_rd16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
GNIO_HD uint32_t pp_rd32(const uint8_t *p) { return pp_rd16(p) << 16 | pp_rd16(p + 2); }
GNIO_HD void pp_wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
GNIO_HD void pp_wr32(uint8_t *p, uint32_t v)
{
	pp_wr16(p, v >> 16);
	pp_wr16(p + 2, v);
}

/* Does the payload start with the method and a space? */
GNIO_HD int pp_method(const uint8_t *p, uint32_t n, const char *m)
{
	uint32_t i = 0;
	for (; m[i]; i++)
		if (i >= n || p[i] != (uint8_t)m[i])
			return 0;
	return i < n && p[i] == ' ';
}

/* Classify f (len bytes) and find its headers. */
GNIO_HD int pp_parse(const uint8_t *f, uint32_t len, struct pp_pkt *p)
{
	p->l3 = p->l4 = p->payload = p->payload_len = 0;
	p->seq = p->ack = 0;
	p->sport = p->dport = 0;
	p->proto = p->tcp_flags = 0;
	p->kind = PP_OTHER;
	if (len < 14)
		return p->kind;
	uint32_t off = 14, et = pp_rd16(f + 12);
	if (et == 0x8100 || et == 0x88a8) { /* one VLAN tag */
		if (len < 18)
			return p->kind;
		et = pp_rd16(f + 16);
		off = 18;
	}
	p->l3 = off;
	if (et == 0x0806)
		return p->kind = len >= off + 28 ? PP_ARP : PP_OTHER;
	if (et != 0x0800 || len < off + 20)
		return p->kind;
	const uint8_t *ip = f + off;
	const uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4, tot = pp_rd16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl || off + tot > len)
		return p->kind;
	if (pp_rd16(ip + 6) & 0x1fff) /* a later fragment: no L4 header */
		return p->kind;
	p->proto = ip[9];
	p->l4 = off + ihl;
	const uint32_t l4len = tot - ihl;
	const uint8_t *l4 = f + p->l4;
	if (p->proto == 1)
		return p->kind = PP_ICMP;
	if (p->proto == 17) {
		if (l4len < 8)
			return p->kind;
		p->sport = (uint16_t)pp_rd16(l4);
		p->dport = (uint16_t)pp_rd16(l4 + 2);
		p->payload = p->l4 + 8;
		p->payload_len = l4len - 8;
		return p->kind = (p->sport == 53 || p->dport == 53) ? PP_DNS : PP_UDP_OTHER;
	}
	if (p->proto == 6) {
		if (l4len < 20)
			return p->kind;
		const uint32_t doff = (uint32_t)(l4[12] >> 4) * 4;
		if (doff < 20 || doff > l4len)
			return p->kind;
		p->sport = (uint16_t)pp_rd16(l4);
		p->dport = (uint16_t)pp_rd16(l4 + 2);
		p->seq = pp_rd32(l4 + 4);
		p->ack = pp_rd32(l4 + 8);
		p->tcp_flags = l4[13];
		p->payload = p->l4 + doff;
		p->payload_len = l4len - doff;
		if (p->tcp_flags & PP_TCP_SYN_FLAG)
			return p->kind = PP_TCP_SYN;
		if (p->tcp_flags & PP_TCP_FIN_FLAG)
			return p->kind = PP_TCP_FIN;
		const uint8_t *pl = f + p->payload;
		if (pp_method(pl, p->payload_len, "GET"))
			return p->kind = PP_HTTP_GET;
		if (pp_method(pl, p->payload_len, "POST"))
			return p->kind = PP_HTTP_POST;
		if (pp_method(pl, p->payload_len, "HEAD"))
			return p->kind = PP_HTTP_HEAD;
		return p->kind = PP_TCP_OTHER;
	}
	return p->kind;
}

/* The destination IPv4 address of a parsed IPv4 frame, as stored in memory
 * (compare with an address from inet_pton). */
GNIO_HD uint32_t pp_ip_dst(const uint8_t *f, const struct pp_pkt *p)
{
	const uint8_t *a = f + p->l3 + 16;
	return (uint32_t)a[0] | (uint32_t)a[1] << 8 | (uint32_t)a[2] << 16 | (uint32_t)a[3] << 24;
}

/* An ARP request (Ethernet, IPv4) for ip (as stored in memory) becomes, in
 * place, the reply from mac. Returns the length to send, or 0 (the frame is
 * untouched) when it is not such a request. */
GNIO_HD uint32_t pp_arp_reply_in_place(uint8_t *f, uint32_t len, uint32_t ip, const uint8_t mac[6])
{
	struct pp_pkt p;
	if (pp_parse(f, len, &p) != PP_ARP)
		return 0;
	uint8_t *a = f + p.l3;
	if (pp_rd16(a) != 1 || pp_rd16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4 || pp_rd16(a + 6) != 1)
		return 0;
	for (int i = 0; i < 4; i++)
		if (a[24 + i] != (uint8_t)(ip >> (8 * i)))
			return 0;
	uint8_t sha[6], spa[4];
	for (int i = 0; i < 6; i++)
		sha[i] = a[8 + i];
	for (int i = 0; i < 4; i++)
		spa[i] = a[14 + i];
	for (int i = 0; i < 6; i++) {
		f[i] = sha[i];       /* to the asker */
		f[6 + i] = mac[i];   /* from us */
		a[18 + i] = sha[i];  /* target hardware address */
		a[8 + i] = mac[i];   /* sender hardware address */
	}
	for (int i = 0; i < 4; i++) {
		a[24 + i] = spa[i];             /* target protocol address */
		a[14 + i] = (uint8_t)(ip >> (8 * i)); /* sender protocol address */
	}
	pp_wr16(a + 6, 2); /* reply */
	return len;
}

/* Build in out (room bytes) a TCP segment answering req (parsed as p): its
 * link header with the MACs swapped, IPv4 and TCP with addresses and ports
 * swapped, the given seq, ack and flags, window 65535, an MSS option when
 * mss is nonzero, then plen bytes of payload. IPv4 and TCP checksums are
 * computed. Frames are padded to the Ethernet minimum of 60 bytes. Returns
 * the frame's length, or 0 when it does not fit. */
GNIO_HD uint32_t pp_tcp_reply(uint8_t *out, uint32_t room, const uint8_t *req, const struct pp_pkt *p, uint32_t flags,
			      uint32_t seq, uint32_t ack, uint32_t mss, const uint8_t *payload, uint32_t plen)
{
	const uint32_t thl = mss ? 24u : 20u, l3 = p->l3, tot = 20 + thl + plen;
	uint32_t len = l3 + tot;
	if (len < 60)
		len = 60;
	if (len > room)
		return 0;
	for (uint32_t i = 0; i < l3; i++)
		out[i] = req[i];
	for (int i = 0; i < 6; i++) {
		out[i] = req[6 + i];
		out[6 + i] = req[i];
	}
	uint8_t *ip = out + l3, *tcp = ip + 20;
	const uint8_t *rip = req + l3;
	ip[0] = 0x45;
	ip[1] = 0;
	pp_wr16(ip + 2, tot);
	pp_wr16(ip + 4, 0);
	pp_wr16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 6;
	pp_wr16(ip + 10, 0);
	for (int i = 0; i < 4; i++) {
		ip[12 + i] = rip[16 + i];
		ip[16 + i] = rip[12 + i];
	}
	pp_wr16(ip + 10, gnio_csum_fold(gnio_csum_add(0, ip, 20)));
	pp_wr16(tcp, p->dport);
	pp_wr16(tcp + 2, p->sport);
	pp_wr32(tcp + 4, seq);
	pp_wr32(tcp + 8, ack);
	tcp[12] = (uint8_t)((thl / 4) << 4);
	tcp[13] = (uint8_t)flags;
	pp_wr16(tcp + 14, 65535);
	pp_wr16(tcp + 16, 0);
	pp_wr16(tcp + 18, 0);
	if (mss) {
		tcp[20] = 2; /* MSS */
		tcp[21] = 4;
		pp_wr16(tcp + 22, mss);
	}
	for (uint32_t i = 0; i < plen; i++)
		tcp[thl + i] = payload[i];
	/* The pseudo-header: addresses, protocol, TCP length. */
	uint32_t sum = gnio_csum_add(0, ip + 12, 8);
	sum += 6 + thl + plen;
	sum = gnio_csum_add(sum, tcp, thl + plen);
	pp_wr16(tcp + 16, gnio_csum_fold(sum));
	for (uint32_t i = l3 + tot; i < len; i++)
		out[i] = 0;
	return len;
}

/* ------------------------------------------------------ the flow table -- */

/* Flows to our HTTP port the host's TCP path has opened (a SYN answered)
 * and not yet closed: open addressing over PP_FLOWS 64-bit words in host
 * memory both sides see. The host is the only writer; a word is a whole key
 * (client address and port, and a bit that is never 0), so a reader sees a
 * key or not, never half of one. */
#define PP_FLOWS 1024u
#define PP_FLOW_PROBES 32u
#define PP_FLOW_EMPTY 0ull
#define PP_FLOW_GONE 1ull /* a removed key: probing goes on past it */

GNIO_HD uint64_t pp_flow_key(uint32_t client_ip, uint16_t client_port)
{
	return 1ull << 63 | (uint64_t)client_ip << 16 | client_port;
}

GNIO_HD uint32_t pp_flow_hash(uint64_t key)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 32;
	return (uint32_t)key & (PP_FLOWS - 1);
}

/* Is key an open flow? ACQUIRE on each word pairs with the host's RELEASE
 * store of it (pp_flow.c). */
GNIO_HD int pp_flow_open(const uint64_t *flows, uint64_t key)
{
	const uint32_t h = pp_flow_hash(key);
	for (uint32_t i = 0; i < PP_FLOW_PROBES; i++) {
		const uint64_t v = gnio_load_acquire_u64(&flows[(h + i) & (PP_FLOWS - 1)]);
		if (v == key)
			return 1;
		if (v == PP_FLOW_EMPTY)
			return 0;
	}
	return 0;
}

#endif /* GNIO_SAMPLE_PP_FRAME_H */
