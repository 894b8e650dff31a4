/* SPDX-License-Identifier: MIT */
/*
 * src/eth/gen.c - frame generator.
 *
 * Every frame is a pure function of (cfg, seq). Its last 8 bytes are always
 * the sequence stamp: a 16-bit magic and the low 48 bits of seq, big endian.
 * Where the protocol has a free payload (UDP, TCP ACK data, ICMP echo data)
 * the stamp ends that payload and is covered by the L4 checksum. Where it
 * has none (TCP SYN/FIN, ARP) or the payload has a grammar (DNS, HTTP) the IP
 * packet is built shorter and the stamp sits in the Ethernet trailer, after
 * the IPv4 total length, where receivers ignore it.
 *
 * Layout of the frames (offsets in bytes):
 *   0  Ethernet: dst, src, ethertype
 *   14 IPv4, 20 bytes, DF, TTL 64, id = seq & 0xffff
 *   34 UDP / TCP (20 bytes, no options) / ICMP echo
 *   ARP: 14 + 28 bytes, then trailer
 * DNS pads with an EDNS(0) Padding option (RFC 7830), HTTP with an "X-Pad"
 * header, so that the IP packet fills the frame up to the stamp; when the
 * room left is too small for those, the rest is zero trailer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "eth/gen_priv.h"
#include "gnio/gen.h"

#define ETH_HLEN 14u
#define IP_HLEN 20u
#define L4_OFF (ETH_HLEN + IP_HLEN)
#define UDP_HLEN 8u
#define TCP_HLEN 20u
#define ICMP_HLEN 8u
#define ARP_LEN 28u
#define STAMP_LEN GNIO_GEN_STAMP_LEN
#define STAMP_MAGIC GNIO_GEN_STAMP_MAGIC
#define STAMP_SEQ_MASK ((1ull << 48) - 1)

#define IP_ID_OFF (ETH_HLEN + 4)
#define IP_CSUM_OFF (ETH_HLEN + 10)

#define TCP_ISN 0x4e490000u  /* our initial sequence number */
#define TCP_PEER_SEQ 0x10000001u /* what we acknowledge */
#define TCP_WINDOW 64240u
#define TCP_FIN 0x01u
#define TCP_SYN 0x02u
#define TCP_PSH 0x08u
#define TCP_ACK 0x10u

#define DNS_HLEN 12u
#define DNS_OPT_RR_LEN 11u  /* root name, type, class, ttl, rdlen */
#define DNS_PAD_OPT_HLEN 4u /* option code, option length */
#define DNS_ID 0x676eu

#define NPROTO ((unsigned)GNIO_GEN_MIX) /* concrete protocols MIX cycles through */

/* QNAME gnio.test, QTYPE A, QCLASS IN */
static const uint8_t dns_question[] = { 4, 'g', 'n', 'i', 'o', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1 };
#define DNS_MSG_LEN (DNS_HLEN + sizeof(dns_question))

static const char http_head[] = "GET / HTTP/1.1\r\nHost: gnio.test\r\n";
#define HTTP_HEAD_LEN (sizeof(http_head) - 1)
#define HTTP_REQ_LEN (HTTP_HEAD_LEN + 2) /* + the empty line */
static const char http_pad_name[] = "X-Pad: ";
#define HTTP_PAD_FIXED (sizeof(http_pad_name) - 1 + 2) /* name and its CRLF */

enum l4_kind { L4_NONE = 0, L4_UDP, L4_TCP, L4_ICMP };

struct gen_tpl {
	const uint8_t *bytes;   /* frame with seq fields and checksums zero */
	enum gnio_gen_proto proto;
	uint8_t is_ip;
	uint8_t l4;
	uint16_t csum_off;      /* L4 checksum offset, 0 if none */
	uint16_t ip_len;        /* IPv4 total length */
	uint32_t tcp_step;      /* sequence space one frame consumes */
	uint32_t ip_base;       /* partial sums with the seq fields zero */
	uint32_t l4_base;
	uint8_t stamp_in_l4;    /* the stamp lies inside the L4 checksum */
	uint8_t stamp_odd;      /* ... an odd number of bytes off its word grid */
};

struct gnio_gen {
	struct gnio_gen_cfg cfg;
	uint32_t size;
	uint32_t flows;
	uint32_t flows_mask;    /* flows - 1 when flows is a power of two, else 0 */
	unsigned ntpl;          /* 1, or NPROTO for MIX */
	struct gen_tpl tpl[NPROTO];
	uint8_t data[];         /* the templates' bytes */
};

/* Big-endian stores, one store each where the host is little-endian. */
static inline void put16(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint16_t be = __builtin_bswap16((uint16_t)v);

	memcpy(p, &be, 2);
#else
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
#endif
}

static inline void put32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t be = __builtin_bswap32(v);

	memcpy(p, &be, 4);
#else
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
#endif
}

static inline uint32_t get16(const uint8_t *p)
{
	return ((uint32_t)p[0] << 8) | p[1];
}

/* One's-complement sum of big-endian 16-bit words, not yet folded. */
static uint64_t sum16(const uint8_t *p, uint32_t len)
{
	uint64_t acc = 0;
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += get16(p + i);
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	return acc;
}

static inline uint32_t fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

static uint32_t proto_min(enum gnio_gen_proto proto)
{
	switch (proto) {
	case GNIO_GEN_UDP:
		return L4_OFF + UDP_HLEN + STAMP_LEN;
	case GNIO_GEN_DNS:
		return L4_OFF + UDP_HLEN + DNS_MSG_LEN + STAMP_LEN;
	case GNIO_GEN_TCP_SYN:
	case GNIO_GEN_TCP_ACK:
	case GNIO_GEN_TCP_FIN:
		return L4_OFF + TCP_HLEN + STAMP_LEN;
	case GNIO_GEN_HTTP:
		return L4_OFF + TCP_HLEN + HTTP_REQ_LEN + STAMP_LEN;
	case GNIO_GEN_ICMP_ECHO:
		return L4_OFF + ICMP_HLEN + STAMP_LEN;
	case GNIO_GEN_ARP:
		return ETH_HLEN + ARP_LEN + STAMP_LEN;
	default:
		return 0;
	}
}

uint32_t gnio_gen_min_frame(enum gnio_gen_proto proto)
{
	uint32_t m = 0;
	unsigned p;

	if ((unsigned)proto == GNIO_GEN_MIX) {
		for (p = 0; p < NPROTO; p++)
			if (proto_min((enum gnio_gen_proto)p) > m)
				m = proto_min((enum gnio_gen_proto)p);
	} else if ((unsigned)proto < NPROTO) {
		m = proto_min(proto);
	} else {
		return 0;
	}
	return m < GNIO_GEN_MIN_FRAME ? GNIO_GEN_MIN_FRAME : m;
}

static const char *const proto_names[GNIO_GEN_PROTO_COUNT] = {
	[GNIO_GEN_UDP] = "udp",	      [GNIO_GEN_DNS] = "dns",	[GNIO_GEN_TCP_SYN] = "tcp-syn",
	[GNIO_GEN_TCP_ACK] = "tcp-ack", [GNIO_GEN_TCP_FIN] = "tcp-fin", [GNIO_GEN_HTTP] = "http",
	[GNIO_GEN_ICMP_ECHO] = "icmp",  [GNIO_GEN_ARP] = "arp",	[GNIO_GEN_MIX] = "mix",
};

const char *gnio_gen_proto_name(enum gnio_gen_proto proto)
{
	if ((unsigned)proto >= GNIO_GEN_PROTO_COUNT)
		return "unknown";
	return proto_names[proto];
}

gnio_error_t gnio_gen_proto_parse(const char *name, enum gnio_gen_proto *proto)
{
	gnio_api_enter();
	unsigned p;

	if (!name || !proto)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gen", "proto_parse: NULL argument");
	if (!strcmp(name, "tcp")) {
		*proto = GNIO_GEN_TCP_SYN;
		return GNIO_SUCCESS;
	}
	for (p = 0; p < GNIO_GEN_PROTO_COUNT; p++) {
		if (!strcmp(name, proto_names[p])) {
			*proto = (enum gnio_gen_proto)p;
			return GNIO_SUCCESS;
		}
	}
	return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gen", "unknown protocol '%s'", name);
}

void gnio_gen_cfg_init(struct gnio_gen_cfg *cfg)
{
	/* Locally administered unicast MACs, so they never clash with real NICs. */
	static const uint8_t src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t dst_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->struct_size = sizeof(*cfg);
	cfg->proto = GNIO_GEN_UDP;
	cfg->frame_size = 64;
	cfg->flows = 1;
	memcpy(cfg->src_mac, src_mac, 6);
	memcpy(cfg->dst_mac, dst_mac, 6);
	cfg->src_ip = 0x0a000001; /* 10.0.0.1 */
	cfg->dst_ip = 0x0a000002; /* 10.0.0.2 */
	cfg->src_port = 1024;
	cfg->dst_port = 9000;
}

static gnio_error_t check_fail(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static gnio_error_t check_fail(char *why, size_t why_len, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (why && why_len)
		snprintf(why, why_len, "%s", line);
	gnio_set_error_msg("%s", line);
	return GNIO_ERROR_INVALID_VALUE;
}

gnio_error_t gnio_gen_cfg_check(const struct gnio_gen_cfg *cfg, char *why, size_t why_len)
{
	gnio_api_enter();
	uint32_t min;

	if (why && why_len)
		why[0] = '\0';
	if (!cfg)
		return check_fail(why, why_len, "generator config is NULL");
	if (cfg->struct_size < sizeof(*cfg))
		return check_fail(why, why_len,
				  "generator config struct_size %u is below %zu (call gnio_gen_cfg_init first)",
				  cfg->struct_size, sizeof(*cfg));
	if ((unsigned)cfg->proto >= GNIO_GEN_PROTO_COUNT)
		return check_fail(why, why_len, "protocol %u is not a generator protocol",
				  (unsigned)cfg->proto);
	if (cfg->frame_size < GNIO_GEN_MIN_FRAME)
		return check_fail(why, why_len, "size %u is below the Ethernet minimum of %u bytes",
				  cfg->frame_size, GNIO_GEN_MIN_FRAME);
	if (cfg->frame_size > GNIO_GEN_MAX_FRAME)
		return check_fail(why, why_len, "size %u exceeds the maximum frame size of %u bytes",
				  cfg->frame_size, GNIO_GEN_MAX_FRAME);
	min = gnio_gen_min_frame(cfg->proto);
	if (cfg->frame_size < min)
		return check_fail(why, why_len, "size %u is below the minimum of %u bytes for %s frames",
				  cfg->frame_size, min, gnio_gen_proto_name(cfg->proto));
	if (cfg->flows > 65536)
		return check_fail(why, why_len, "flows %u exceeds the 65536 source ports", cfg->flows);
	return GNIO_SUCCESS;
}

/* Cheap validity test for the build paths (no message). */
static int cfg_ok(const struct gnio_gen_cfg *cfg)
{
	return cfg && cfg->struct_size >= sizeof(*cfg) &&
	       (unsigned)cfg->proto < GNIO_GEN_PROTO_COUNT &&
	       cfg->frame_size >= gnio_gen_min_frame(cfg->proto) &&
	       cfg->frame_size <= GNIO_GEN_MAX_FRAME && cfg->flows <= 65536;
}

static inline enum gnio_gen_proto proto_of(const struct gnio_gen_cfg *cfg, uint64_t seq)
{
	return cfg->proto == GNIO_GEN_MIX ? (enum gnio_gen_proto)(seq % NPROTO) : cfg->proto;
}

/* Payload filler: depends only on the offset, so it lives in the template. */
static void fill_pattern(uint8_t *f, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		f[i] = (uint8_t)(i * 7u + 0x2bu);
}

static void put_ipv4(const struct gnio_gen_cfg *cfg, uint8_t *f, uint32_t ip_len, uint8_t proto)
{
	uint8_t *ip = f + ETH_HLEN;

	ip[0] = 0x45;
	ip[1] = 0;
	put16(ip + 2, ip_len);
	put16(ip + 4, 0);      /* id: per seq */
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = proto;
	put16(ip + 10, 0);     /* checksum: last */
	put32(ip + 12, cfg->src_ip);
	put32(ip + 16, cfg->dst_ip);
}

static void put_tcp(uint8_t *f, uint16_t dport, uint8_t flags)
{
	uint8_t *t = f + L4_OFF;

	put16(t + 0, 0);  /* source port: per seq */
	put16(t + 2, dport);
	put32(t + 4, 0);  /* sequence: per seq */
	put32(t + 8, (flags & TCP_ACK) ? TCP_PEER_SEQ : 0);
	t[12] = (TCP_HLEN / 4) << 4;
	t[13] = flags;
	put16(t + 14, TCP_WINDOW);
	put16(t + 16, 0);
	put16(t + 18, 0);
}

/* DNS query for gnio.test A, padded to `room` bytes of UDP payload when an
 * EDNS(0) OPT record with a Padding option fits. Returns the message length. */
static uint32_t put_dns(uint8_t *d, uint32_t room)
{
	uint32_t len = DNS_MSG_LEN;
	int edns = room >= DNS_MSG_LEN + DNS_OPT_RR_LEN + DNS_PAD_OPT_HLEN;

	put16(d + 0, DNS_ID);
	put16(d + 2, 0x0100); /* standard query, recursion desired */
	put16(d + 4, 1);      /* QDCOUNT */
	put16(d + 6, 0);
	put16(d + 8, 0);
	put16(d + 10, edns ? 1 : 0); /* ARCOUNT */
	memcpy(d + DNS_HLEN, dns_question, sizeof(dns_question));
	if (edns) {
		uint8_t *o = d + len;
		uint32_t pad = room - len - DNS_OPT_RR_LEN - DNS_PAD_OPT_HLEN;

		o[0] = 0;            /* root name */
		put16(o + 1, 41);    /* TYPE OPT */
		put16(o + 3, 1232);  /* UDP payload size we accept */
		put32(o + 5, 0);     /* extended rcode, version 0, no flags */
		put16(o + 9, DNS_PAD_OPT_HLEN + pad);
		put16(o + 11, 12);   /* option Padding */
		put16(o + 13, pad);
		memset(o + 15, 0, pad); /* RFC 7830: padding octets are zero */
		len = room;
	}
	return len;
}

/* HTTP GET, padded with an X-Pad header to `room` bytes when it fits. */
static uint32_t put_http(uint8_t *h, uint32_t room)
{
	uint32_t len = HTTP_HEAD_LEN;

	memcpy(h, http_head, HTTP_HEAD_LEN);
	if (room >= HTTP_REQ_LEN + HTTP_PAD_FIXED) {
		uint32_t n = room - HTTP_REQ_LEN - HTTP_PAD_FIXED;

		memcpy(h + len, http_pad_name, sizeof(http_pad_name) - 1);
		len += sizeof(http_pad_name) - 1;
		memset(h + len, 'x', n);
		len += n;
		/* frame bytes, not a C string: no terminating NUL wanted */
		memcpy(h + len, "\r\n", 2); // NOLINT(bugprone-not-null-terminated-result)
		len += 2;
	}
	memcpy(h + len, "\r\n", 2); // NOLINT(bugprone-not-null-terminated-result): frame bytes, as above
	return len + 2;
}

/*
 * Write every byte of a `proto` frame that does not depend on seq; seq
 * fields and checksums are left zero. Fills in the template's layout.
 */
static void build_const(const struct gnio_gen_cfg *cfg, enum gnio_gen_proto proto, uint8_t *f,
			struct gen_tpl *t)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t size = cfg->frame_size;
	uint32_t room = size - STAMP_LEN - L4_OFF; /* bytes for L4 before the stamp */
	uint32_t ip_len = 0, l4_len;

	memset(f, 0, size);
	memset(t, 0, sizeof(*t));
	t->proto = proto;
	memcpy(f, proto == GNIO_GEN_ARP ? bcast : cfg->dst_mac, 6);
	memcpy(f + 6, cfg->src_mac, 6);
	put16(f + 12, proto == GNIO_GEN_ARP ? 0x0806 : 0x0800);

	switch (proto) {
	case GNIO_GEN_UDP:
	case GNIO_GEN_DNS:
		t->l4 = L4_UDP;
		if (proto == GNIO_GEN_UDP) {
			l4_len = size - L4_OFF; /* the stamp ends the payload */
			fill_pattern(f, L4_OFF + UDP_HLEN, size - STAMP_LEN);
			put16(f + L4_OFF + 2, cfg->dst_port);
		} else {
			l4_len = UDP_HLEN + put_dns(f + L4_OFF + UDP_HLEN, room - UDP_HLEN);
			put16(f + L4_OFF + 2, 53);
		}
		put16(f + L4_OFF + 4, l4_len);
		ip_len = IP_HLEN + l4_len;
		put_ipv4(cfg, f, ip_len, 17);
		t->csum_off = L4_OFF + 6;
		break;
	case GNIO_GEN_TCP_SYN:
		t->l4 = L4_TCP;
		ip_len = IP_HLEN + TCP_HLEN;
		put_tcp(f, cfg->dst_port, TCP_SYN);
		t->tcp_step = 1; /* a SYN consumes one sequence number */
		break;
	case GNIO_GEN_TCP_FIN:
		t->l4 = L4_TCP;
		ip_len = IP_HLEN + TCP_HLEN;
		put_tcp(f, cfg->dst_port, TCP_FIN | TCP_ACK);
		t->tcp_step = 1;
		break;
	case GNIO_GEN_TCP_ACK:
		t->l4 = L4_TCP;
		ip_len = size - ETH_HLEN; /* a data segment; the stamp ends it */
		put_tcp(f, cfg->dst_port, TCP_ACK);
		fill_pattern(f, L4_OFF + TCP_HLEN, size - STAMP_LEN);
		t->tcp_step = ip_len - IP_HLEN - TCP_HLEN;
		break;
	case GNIO_GEN_HTTP:
		t->l4 = L4_TCP;
		l4_len = TCP_HLEN + put_http(f + L4_OFF + TCP_HLEN, room - TCP_HLEN);
		ip_len = IP_HLEN + l4_len;
		put_tcp(f, 80, TCP_PSH | TCP_ACK);
		t->tcp_step = l4_len - TCP_HLEN;
		break;
	case GNIO_GEN_ICMP_ECHO:
		t->l4 = L4_ICMP;
		ip_len = size - ETH_HLEN;
		f[L4_OFF] = 8; /* echo request, code 0 */
		fill_pattern(f, L4_OFF + ICMP_HLEN, size - STAMP_LEN);
		put_ipv4(cfg, f, ip_len, 1);
		t->csum_off = L4_OFF + 2;
		break;
	case GNIO_GEN_ARP: {
		uint8_t *a = f + ETH_HLEN;

		put16(a + 0, 1);      /* Ethernet */
		put16(a + 2, 0x0800); /* IPv4 */
		a[4] = 6;
		a[5] = 4;
		put16(a + 6, 1);      /* request */
		memcpy(a + 8, cfg->src_mac, 6);
		put32(a + 14, cfg->src_ip);
		/* target MAC unknown: zero */
		put32(a + 24, cfg->dst_ip);
		break;
	}
	default:
		break;
	}

	if (t->l4 == L4_TCP) {
		put_ipv4(cfg, f, ip_len, 6);
		t->csum_off = L4_OFF + 16;
	}
	t->is_ip = proto != GNIO_GEN_ARP;
	t->ip_len = (uint16_t)ip_len;

	/* The L4 fields that change with seq are the source port, the TCP
	 * sequence or ICMP id/seq, and the stamp when it lies inside the L4
	 * checksum; gnio_gen_fill() adds them to l4_base. */
	if (t->is_ip && ETH_HLEN + ip_len == size) {
		t->stamp_in_l4 = 1;
		t->stamp_odd = (uint8_t)((size - STAMP_LEN - L4_OFF) & 1u);
	}
}

static inline uint32_t flow_of(uint64_t seq, uint32_t flows, uint32_t flows_mask)
{
	if (flows <= 1)
		return 0;
	return flows_mask ? (uint32_t)(seq & flows_mask) : (uint32_t)(seq % flows);
}

/* A 16-bit value placed `odd` bytes off the checksum's word grid: shifting
 * by one byte multiplies by 256, which in one's complement is a rotation of
 * the folded 16-bit sum. */
static inline uint32_t on_grid(uint32_t v, int odd)
{
	return odd ? (((v << 8) | (v >> 8)) & 0xffff) : v;
}

/* Write the bytes that depend on seq (checksums excepted); returns what
 * they add to the L4 checksum, for gnio_gen_fill() (none of them overlap). */
static inline uint64_t put_vars(const struct gnio_gen_cfg *cfg, const struct gen_tpl *t, uint32_t flow,
				uint64_t seq, uint8_t *f, uint32_t size)
{
	uint32_t port = (cfg->src_port + flow) & 0xffff, tcp_seq;
	uint8_t *s = f + size - STAMP_LEN;
	uint64_t sum = 0;

	if (t->is_ip)
		put16(f + IP_ID_OFF, (uint32_t)seq & 0xffff);
	if (t->l4 == L4_UDP || t->l4 == L4_TCP) {
		put16(f + L4_OFF, port);
		sum += port;
	}
	if (t->l4 == L4_TCP) {
		tcp_seq = TCP_ISN + (uint32_t)seq * t->tcp_step;
		put32(f + L4_OFF + 4, tcp_seq);
		sum += (tcp_seq >> 16) + (tcp_seq & 0xffff);
	}
	if (t->l4 == L4_ICMP) {
		put16(f + L4_OFF + 4, port); /* echo identifier: per flow */
		put16(f + L4_OFF + 6, (uint32_t)seq & 0xffff);
		sum += port + ((uint32_t)seq & 0xffff);
	}
	put16(s, STAMP_MAGIC);
	put16(s + 2, (uint32_t)(seq >> 32) & 0xffff);
	put32(s + 4, (uint32_t)seq);
	if (t->stamp_in_l4)
		sum += on_grid(fold((uint64_t)STAMP_MAGIC + ((seq >> 32) & 0xffff) + ((seq >> 16) & 0xffff) +
				    (seq & 0xffff)),
			       t->stamp_odd);
	return sum;
}

/* Pseudo header plus the L4 region, with whatever is in f now. */
static uint64_t l4_sum(const uint8_t *f, const struct gen_tpl *t)
{
	uint32_t l4_len = t->ip_len - IP_HLEN;
	uint64_t s = 0;

	if (t->l4 != L4_ICMP) {
		s += sum16(f + ETH_HLEN + 12, 8); /* source and destination address */
		s += f[ETH_HLEN + 9];
		s += l4_len;
	}
	return s + sum16(f + L4_OFF, l4_len);
}

static inline void put_l4_csum(uint8_t *f, const struct gen_tpl *t, uint64_t sum)
{
	uint32_t c = ~fold(sum) & 0xffff;

	if (c == 0 && t->l4 == L4_UDP)
		c = 0xffff; /* zero means "no checksum" in UDP */
	put16(f + t->csum_off, c);
}

/* The reference path: build from scratch, sum every byte. */
uint32_t gnio_gen_build(const struct gnio_gen_cfg *cfg, uint64_t seq, uint8_t *buf, uint32_t cap)
{
	struct gen_tpl t;
	uint32_t size, flows;

	if (!cfg_ok(cfg) || !buf || cap < cfg->frame_size)
		return 0;
	size = cfg->frame_size;
	flows = cfg->flows;
	build_const(cfg, proto_of(cfg, seq), buf, &t);
	(void)put_vars(cfg, &t, flow_of(seq, flows, 0), seq, buf, size); /* sums every byte below */
	if (t.is_ip) {
		put16(buf + IP_CSUM_OFF, ~fold(sum16(buf + ETH_HLEN, IP_HLEN)) & 0xffff);
		put_l4_csum(buf, &t, l4_sum(buf, &t));
	}
	return size;
}

gnio_error_t gnio_gen_init(const struct gnio_gen_cfg *cfg, struct gnio_gen **out)
{
	gnio_api_enter();
	struct gnio_gen *gen;
	unsigned i;

	if (!out)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gen", "init: NULL output");
	*out = NULL;
	if (gnio_gen_cfg_check(cfg, NULL, 0) != GNIO_SUCCESS)
		return GNIO_ERROR_INVALID_VALUE;

	unsigned ntpl = cfg->proto == GNIO_GEN_MIX ? NPROTO : 1;

	gen = calloc(1, sizeof(*gen) + (size_t)ntpl * cfg->frame_size);
	if (!gen)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, "gen", "out of memory for %u templates", ntpl);
	gen->cfg = *cfg;
	gen->cfg.struct_size = sizeof(gen->cfg);
	gen->size = cfg->frame_size;
	gen->flows = cfg->flows;
	if (gen->flows > 1 && !(gen->flows & (gen->flows - 1)))
		gen->flows_mask = gen->flows - 1;
	gen->ntpl = ntpl;
	for (i = 0; i < ntpl; i++) {
		struct gen_tpl *t = &gen->tpl[i];
		uint8_t *f = gen->data + (size_t)i * gen->size;
		enum gnio_gen_proto p = ntpl == 1 ? cfg->proto : (enum gnio_gen_proto)i;

		/* Seq fields and checksums are zero here, so the sums are the
		 * constant part that fill() completes. */
		build_const(cfg, p, f, t);
		t->bytes = f;
		if (t->is_ip) {
			t->ip_base = fold(sum16(f + ETH_HLEN, IP_HLEN));
			t->l4_base = fold(l4_sum(f, t));
		}
	}
	*out = gen;
	return GNIO_SUCCESS;
}

void gnio_gen_free(struct gnio_gen *gen)
{
	free(gen);
}

const struct gnio_gen_cfg *gnio_gen_get_cfg(const struct gnio_gen *gen)
{
	return &gen->cfg;
}

/* Copy a template of size bytes: fixed-size 32-byte moves the compiler
 * inlines (the last one overlapping) for small frames, memcpy beyond. */
static inline void copy_template(uint8_t *dst, const uint8_t *src, uint32_t size)
{
	uint32_t off;

	if (size > 256u) {
		memcpy(dst, src, size);
		return;
	}
	for (off = 0; off + 32u <= size; off += 32u)
		memcpy(dst + off, src + off, 32u);
	if (off < size)
		memcpy(dst + size - 32u, src + size - 32u, 32u); /* size >= 60 */
}

/* The fast path: the checksums are completed from the values put_vars
 * wrote, not by reading them back. */
uint32_t gnio_gen_fill(const struct gnio_gen *gen, uint64_t seq, uint8_t *buf, uint32_t cap)
{
	uint32_t size = gen->size;
	uint64_t l4_vars;

	if (__builtin_expect(cap < size, 0))
		return 0;
	/* A local copy: the byte stores into buf below could alias *gen, and
	 * would make the compiler load every template field again after each. */
	const struct gen_tpl tl = gen->tpl[gen->ntpl == 1 ? 0 : (unsigned)(seq % NPROTO)];
	const struct gen_tpl *t = &tl;

	copy_template(buf, t->bytes, size);
	l4_vars = put_vars(&gen->cfg, t, flow_of(seq, gen->flows, gen->flows_mask), seq, buf, size);
	if (!t->is_ip)
		return size;
	put16(buf + IP_CSUM_OFF, ~fold(t->ip_base + ((uint32_t)seq & 0xffff)) & 0xffff);
	put_l4_csum(buf, t, t->l4_base + l4_vars);
	return size;
}

gnio_error_t gnio_gen_stamp_read(const uint8_t *frame, uint32_t len, uint64_t *seq)
{
	gnio_api_enter();
	const uint8_t *s;

	if (!frame || len < STAMP_LEN)
		return gnio_fail(GNIO_ERROR_NOT_FOUND, "gen", "frame of %u bytes is too short for a stamp", len);
	s = frame + len - STAMP_LEN;
	if (get16(s) != STAMP_MAGIC)
		return gnio_fail(GNIO_ERROR_NOT_FOUND, "gen", "frame of %u bytes carries no generator stamp", len);
	if (seq)
		*seq = ((uint64_t)get16(s + 2) << 32) | ((uint64_t)get16(s + 4) << 16) | get16(s + 6);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_gen_verify(const struct gnio_gen_cfg *cfg, const uint8_t *frame, uint32_t len,
			     uint64_t *seq)
{
	gnio_api_enter();
	uint8_t expect[GNIO_GEN_MAX_FRAME];
	uint64_t s48, full;

	if (!cfg_ok(cfg) || !frame)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, "gen", "verify: bad config or NULL frame");
	if (gnio_gen_stamp_read(frame, len, &s48) != GNIO_SUCCESS)
		return GNIO_ERROR_NOT_FOUND; /* stamp_read said why */
	/* The stamp keeps 48 bits; take the upper bits from first_seq. */
	full = (cfg->first_seq & ~STAMP_SEQ_MASK) | s48;
	if (full < cfg->first_seq && full + (1ull << 48) > full)
		full += 1ull << 48;
	if (seq)
		*seq = full;
	if (len != cfg->frame_size || gnio_gen_build(cfg, full, expect, sizeof(expect)) != len)
		return gnio_fail(GNIO_ERROR_UNEXPECTED, "gen", "frame %llu is %u bytes, %u expected",
				 (unsigned long long)full, len, cfg->frame_size);
	if (memcmp(expect, frame, len))
		return gnio_fail(GNIO_ERROR_UNEXPECTED, "gen", "frame %llu differs from what the generator built",
				 (unsigned long long)full);
	return GNIO_SUCCESS;
}
