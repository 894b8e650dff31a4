/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow_rule.c - check a rule field by field (each refusal names the
 * field) and compile it into the numbers fk_match compares.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/errmsg.h"
#include "flow/flow_priv.h"

#define COMP "flow"

void gnio_flow_rule_init(struct gnio_flow_rule *rule)
{
	if (!rule)
		return;
	memset(rule, 0, sizeof(*rule));
	rule->struct_size = sizeof(*rule);
	rule->action.type = GNIO_FLOW_ACTION_GNIO;
}

gnio_error_t flow_rule_import(const struct gnio_flow_rule *in, struct gnio_flow_rule *out)
{
	if (in->struct_size < sizeof(*out))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP,
				 "rule.struct_size: %u is smaller than this library's rule (%zu bytes); set it with "
				 "gnio_flow_rule_init", in->struct_size, sizeof(*out));
	/* A newer caller's larger struct is fine as long as it asks for
	 * nothing this library does not know. */
	for (size_t i = sizeof(*out); i < in->struct_size; i++)
		if (((const uint8_t *)in)[i])
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP,
					 "rule.struct_size: %u bytes with fields set past the %zu this library knows",
					 in->struct_size, sizeof(*out));
	memcpy(out, in, sizeof(*out));
	out->struct_size = sizeof(*out);
	return GNIO_SUCCESS;
}

static gnio_error_t bad(const char **field, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static gnio_error_t bad(const char **field, const char *name, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (field)
		*field = name;
	return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "%s: %s", name, msg);
}

gnio_error_t flow_action_check(const struct gnio_flow_action *a, const char **field)
{
	switch (a->type) {
	case GNIO_FLOW_ACTION_GNIO:
	case GNIO_FLOW_ACTION_QUEUE:
	case GNIO_FLOW_ACTION_CPU:
	case GNIO_FLOW_ACTION_KERNEL:
	case GNIO_FLOW_ACTION_DROP:
		return GNIO_SUCCESS;
	case GNIO_FLOW_ACTION_RSS:
		if (a->num_queues < 1 || a->num_queues > GNIO_FLOW_MAX_RSS_QUEUES)
			return bad(field, "action.num_queues", "rss needs 1..%d queues, got %u",
				   GNIO_FLOW_MAX_RSS_QUEUES, a->num_queues);
		for (unsigned i = 0; i < a->num_queues; i++)
			for (unsigned j = 0; j < i; j++)
				if (a->queues[i] == a->queues[j])
					return bad(field, "action.queues", "queue %u is listed twice", a->queues[i]);
		return GNIO_SUCCESS;
	default:
		return bad(field, "action.type", "unknown action %d", (int)a->type);
	}
}

static const char *l4_name(enum gnio_flow_l4 l4)
{
	static const char *const n[] = {"any", "udp", "tcp", "icmp", "icmp6", "arp"};

	return (unsigned)l4 < sizeof(n) / sizeof(n[0]) ? n[l4] : "?";
}

/* The IP family a rule is limited to by its other fields: 4, 6, 0 (either)
 * or -1 (not IP: arp). */
static int family_of(const struct gnio_flow_match *m)
{
	if (m->l4 == GNIO_FLOW_L4_ARP)
		return -1;
	if (m->l4 == GNIO_FLOW_L4_ICMP || m->ip == GNIO_FLOW_IP_V4)
		return 4;
	if (m->l4 == GNIO_FLOW_L4_ICMP6 || m->ip == GNIO_FLOW_IP_V6)
		return 6;
	return 0;
}

static gnio_error_t check_prefix(const struct gnio_flow_prefix *p, const char *name, int fam, const char **field)
{
	unsigned bits;

	if (p->family != 4 && p->family != 6)
		return bad(field, name, "family %u is neither 4 nor 6", p->family);
	bits = p->family == 4 ? 32 : 128;
	if (p->len > bits)
		return bad(field, name, "prefix length %u is longer than %u for IPv%u", p->len, bits, p->family);
	for (unsigned b = p->len; b < 128; b++)
		if (p->addr[b / 8] & (0x80 >> (b % 8))) {
			if (b >= bits)
				return bad(field, name, "bytes past the IPv4 address are not zero");
			return bad(field, name, "address has bits set past the /%u prefix", p->len);
		}
	if (fam == -1 && p->family != 4)
		return bad(field, name, "arp carries IPv4 addresses, not IPv6");
	if (fam > 0 && fam != p->family)
		return bad(field, name, "an IPv%u prefix contradicts the rule's IPv%d match", p->family, fam);
	return GNIO_SUCCESS;
}

static gnio_error_t check_range(uint16_t lo, uint16_t hi, enum gnio_flow_l4 l4, const char *name,
				const char **field)
{
	if (l4 != GNIO_FLOW_L4_UDP && l4 != GNIO_FLOW_L4_TCP)
		return bad(field, name, "ports need udp or tcp (the rule matches %s)", l4_name(l4));
	if (lo > hi)
		return bad(field, name, "range %u-%u is reversed", lo, hi);
	return GNIO_SUCCESS;
}

gnio_error_t flow_rule_check(const struct gnio_flow_rule *rule, const char **field)
{
	const struct gnio_flow_match *m = &rule->match;
	const uint32_t known = GNIO_FLOW_MATCH_ETHERTYPE | GNIO_FLOW_MATCH_VLAN | GNIO_FLOW_MATCH_SRC |
			       GNIO_FLOW_MATCH_DST | GNIO_FLOW_MATCH_SPORT | GNIO_FLOW_MATCH_DPORT;
	int fam;

	if (m->fields & ~known)
		return bad(field, "match.fields", "unknown bits 0x%x", m->fields & ~known);
	if ((unsigned)m->ip > GNIO_FLOW_IP_V6)
		return bad(field, "match.ip", "unknown value %d", (int)m->ip);
	if ((unsigned)m->l4 > GNIO_FLOW_L4_ARP)
		return bad(field, "match.l4", "unknown value %d", (int)m->l4);
	if (m->l4 == GNIO_FLOW_L4_ICMP && m->ip == GNIO_FLOW_IP_V6)
		return bad(field, "match.ip", "icmp is IPv4 only (icmp6 is its IPv6 counterpart)");
	if (m->l4 == GNIO_FLOW_L4_ICMP6 && m->ip == GNIO_FLOW_IP_V4)
		return bad(field, "match.ip", "icmp6 is IPv6 only (icmp is its IPv4 counterpart)");
	if (m->l4 == GNIO_FLOW_L4_ARP && m->ip != GNIO_FLOW_IP_ANY)
		return bad(field, "match.ip", "arp is not IP; it cannot be narrowed to ipv4 or ipv6");
	fam = family_of(m);
	if (m->fields & GNIO_FLOW_MATCH_ETHERTYPE) {
		uint16_t want = fam == 4 ? 0x0800 : fam == 6 ? 0x86dd : fam == -1 ? 0x0806 : 0;

		if (want && m->ethertype != want)
			return bad(field, "match.ethertype", "0x%04x contradicts the rule's %s match (0x%04x)",
				   m->ethertype, fam == -1 ? "arp" : fam == 4 ? "IPv4" : "IPv6", want);
		if (!want && m->l4 != GNIO_FLOW_L4_ANY && m->ethertype != 0x0800 && m->ethertype != 0x86dd)
			return bad(field, "match.ethertype", "0x%04x is not IP, but the rule matches %s", m->ethertype,
				   l4_name(m->l4));
		if (!want && (m->fields & (GNIO_FLOW_MATCH_SRC | GNIO_FLOW_MATCH_DST))) {
			uint8_t f = (m->fields & GNIO_FLOW_MATCH_SRC) ? m->src.family : m->dst.family;

			if (m->ethertype != (f == 6 ? 0x86dd : 0x0800))
				return bad(field, "match.ethertype", "0x%04x contradicts the rule's IPv%u prefix",
					   m->ethertype, f);
		}
	}
	if ((m->fields & GNIO_FLOW_MATCH_VLAN) && m->vlan_id > 4095)
		return bad(field, "match.vlan_id", "%u is above 4095", m->vlan_id);
	if (m->fields & GNIO_FLOW_MATCH_SRC)
		GNIO_CHECK(check_prefix(&m->src, "match.src", fam, field));
	if (m->fields & GNIO_FLOW_MATCH_DST) {
		GNIO_CHECK(check_prefix(&m->dst, "match.dst", fam, field));
		if ((m->fields & GNIO_FLOW_MATCH_SRC) && m->src.family != m->dst.family)
			return bad(field, "match.dst", "an IPv%u prefix, but match.src is IPv%u", m->dst.family,
				   m->src.family);
	}
	if (m->fields & GNIO_FLOW_MATCH_SPORT)
		GNIO_CHECK(check_range(m->sport_min, m->sport_max, m->l4, "match.sport", field));
	if (m->fields & GNIO_FLOW_MATCH_DPORT)
		GNIO_CHECK(check_range(m->dport_min, m->dport_max, m->l4, "match.dport", field));
	return flow_action_check(&rule->action, field);
}

/* Per-word masks of a prefix, in network order like the key's words. */
static void compile_prefix(const struct gnio_flow_prefix *p, uint32_t *addr, uint32_t *mask)
{
	uint8_t m[16] = {0}, a[16] = {0};

	for (unsigned b = 0; b < p->len; b++)
		m[b / 8] |= (uint8_t)(0x80 >> (b % 8));
	for (int i = 0; i < 16; i++)
		a[i] = p->addr[i] & m[i];
	memcpy(addr, a, 16);
	memcpy(mask, m, 16);
}

void flow_rule_compile(const struct gnio_flow_rule *rule, uint16_t slot, struct fk_rule *out)
{
	const struct gnio_flow_match *m = &rule->match;
	static const uint8_t proto[] = {0, FK_PROTO_UDP, FK_PROTO_TCP, FK_PROTO_ICMP, FK_PROTO_ICMP6, 0};
	int fam = family_of(m);

	memset(out, 0, sizeof(*out));
	out->slot = slot;
	out->action = (uint8_t)rule->action.type;
	out->queue = rule->action.queue;
	out->proto = proto[m->l4];
	if (fam == -1)
		out->l3_mask = FK_L3_ARP;
	else if (fam == 4)
		out->l3_mask = FK_L3_IPV4;
	else if (fam == 6)
		out->l3_mask = FK_L3_IPV6;
	else if (m->l4 != GNIO_FLOW_L4_ANY)
		out->l3_mask = FK_L3_IPV4 | FK_L3_IPV6;
	else if (m->fields & (GNIO_FLOW_MATCH_SRC | GNIO_FLOW_MATCH_DST))
		out->l3_mask = ((m->fields & GNIO_FLOW_MATCH_SRC) ? m->src.family : m->dst.family) == 6 ? FK_L3_IPV6
													: FK_L3_IPV4;
	else
		out->l3_mask = FK_L3_ANY;
	if (m->fields & GNIO_FLOW_MATCH_ETHERTYPE) {
		out->checks |= FK_C_ETHERTYPE;
		out->ethertype = m->ethertype;
	}
	if (m->fields & GNIO_FLOW_MATCH_VLAN) {
		out->checks |= FK_C_VLAN;
		out->vlan = m->vlan_id;
	}
	if (m->fields & GNIO_FLOW_MATCH_SRC) {
		out->checks |= FK_C_SRC;
		compile_prefix(&m->src, out->src, out->src_mask);
	}
	if (m->fields & GNIO_FLOW_MATCH_DST) {
		out->checks |= FK_C_DST;
		compile_prefix(&m->dst, out->dst, out->dst_mask);
	}
	if (m->fields & GNIO_FLOW_MATCH_SPORT) {
		out->checks |= FK_C_SPORT;
		out->sport_min = m->sport_min;
		out->sport_max = m->sport_max;
	}
	if (m->fields & GNIO_FLOW_MATCH_DPORT) {
		out->checks |= FK_C_DPORT;
		out->dport_min = m->dport_min;
		out->dport_max = m->dport_max;
	}
}

const char *gnio_flow_action_name(enum gnio_flow_action_type type)
{
	static const char *const n[] = {"gnio", "queue", "rss", "cpu", "kernel", "drop"};

	return (unsigned)type < sizeof(n) / sizeof(n[0]) ? n[type] : "?";
}
