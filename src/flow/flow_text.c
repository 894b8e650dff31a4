/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow_text.c - the rules file: one rule per line, parsed into
 * struct gnio_flow_rule, and the canonical text of a rule. The grammar is
 * in docs/flow.md; every error says where (line and column) and what was
 * expected there.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "core/errmsg.h"
#include "gnio/dev.h"
#include "flow/flow_priv.h"

#define COMP "flow"
#define MAX_FILE (4u << 20)

/* ----------------------------------------------------------- tokenizer -- */

enum tok_kind { T_END, T_WORD, T_ARROW, T_COMMA };

struct tok {
	enum tok_kind kind;
	const char *s; /* T_WORD: text (not NUL-terminated) */
	size_t len;
	unsigned col;  /* 1-based byte column */
};

struct lexer {
	const char *line; /* start of the line */
	const char *p;
	const char *end;  /* end of the line (before '\n') */
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static struct tok next_tok(struct lexer *lx)
{
	struct tok t = {T_END, NULL, 0, 0};

	while (lx->p < lx->end && is_space(*lx->p))
		lx->p++;
	t.col = (unsigned)(lx->p - lx->line) + 1;
	if (lx->p >= lx->end || *lx->p == '#') {
		lx->p = lx->end;
		return t;
	}
	if (*lx->p == '-' && lx->p + 1 < lx->end && lx->p[1] == '>') {
		t.kind = T_ARROW;
		t.s = lx->p;
		t.len = 2;
		lx->p += 2;
		return t;
	}
	if (*lx->p == ',') {
		t.kind = T_COMMA;
		t.s = lx->p++;
		t.len = 1;
		return t;
	}
	t.kind = T_WORD;
	t.s = lx->p;
	while (lx->p < lx->end && !is_space(*lx->p) && *lx->p != '#' && *lx->p != ',' &&
	       !(*lx->p == '-' && lx->p + 1 < lx->end && lx->p[1] == '>'))
		lx->p++;
	t.len = (size_t)(lx->p - t.s);
	return t;
}

static struct tok peek_tok(struct lexer *lx)
{
	struct lexer save = *lx;
	struct tok t = next_tok(lx);

	*lx = save;
	return t;
}

static int tok_is(const struct tok *t, const char *w)
{
	return t->kind == T_WORD && t->len == strlen(w) && !memcmp(t->s, w, t->len);
}

/* "found 'x'" / "found end of line" for messages */
static const char *found(const struct tok *t, char *buf, size_t len)
{
	if (t->kind == T_END)
		return "end of line";
	snprintf(buf, len, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s);
	return buf;
}

/* ------------------------------------------------------------- parsing -- */

struct perr {
	unsigned col;
	gnio_error_t err;
	char msg[256];
};

static int fail_at(struct perr *e, unsigned col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(struct perr *e, unsigned col, const char *fmt, ...)
{
	va_list ap;

	e->col = col;
	e->err = GNIO_ERROR_INVALID_VALUE;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Unsigned number: decimal, or hex with 0x. Whole text, at most max. */
static int parse_num(const char *s, size_t len, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	size_t i = 0;
	int base = 10;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i >= len)
		return -1;
	for (; i < len; i++) {
		int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -1;
		v = v * (unsigned long)base + (unsigned long)d;
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

/* N or N-M */
static int parse_range(const struct tok *t, uint16_t *lo, uint16_t *hi)
{
	const char *dash;
	unsigned long a, b;

	if (t->kind != T_WORD)
		return -1;
	dash = memchr(t->s, '-', t->len);
	if (!dash) {
		if (parse_num(t->s, t->len, 65535, &a))
			return -1;
		*lo = *hi = (uint16_t)a;
		return 0;
	}
	if (parse_num(t->s, (size_t)(dash - t->s), 65535, &a) ||
	    parse_num(dash + 1, t->len - (size_t)(dash - t->s) - 1, 65535, &b))
		return -1;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

/* ADDR[/LEN], IPv4 or IPv6 */
static int parse_prefix(const struct tok *t, struct gnio_flow_prefix *p)
{
	char buf[64];
	char *slash;
	unsigned long len;

	if (t->kind != T_WORD || t->len >= sizeof(buf))
		return -1;
	memcpy(buf, t->s, t->len);
	buf[t->len] = 0;
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, buf, p->addr) == 1)
		p->family = 4;
	else if (inet_pton(AF_INET6, buf, p->addr) == 1)
		p->family = 6;
	else
		return -1;
	len = p->family == 4 ? 32 : 128;
	if (slash && parse_num(slash + 1, strlen(slash + 1), 255, &len))
		return -1;
	p->len = (uint8_t)len;
	return 0;
}

/* Columns of the terms that set each field, for semantic errors. */
struct cols {
	unsigned ip, l4, ethertype, vlan, src, dst, sport, dport, action;
};

static int parse_action(struct lexer *lx, const struct tok *first, struct gnio_flow_action *a, struct perr *e)
{
	char fb[64];
	struct tok t;
	unsigned long v, w;

	memset(a, 0, sizeof(*a));
	if (tok_is(first, "gnio")) {
		a->type = GNIO_FLOW_ACTION_GNIO;
	} else if (tok_is(first, "kernel")) {
		a->type = GNIO_FLOW_ACTION_KERNEL;
	} else if (tok_is(first, "drop")) {
		a->type = GNIO_FLOW_ACTION_DROP;
	} else if (tok_is(first, "queue") || tok_is(first, "cpu")) {
		a->type = tok_is(first, "queue") ? GNIO_FLOW_ACTION_QUEUE : GNIO_FLOW_ACTION_CPU;
		t = next_tok(lx);
		if (t.kind != T_WORD || parse_num(t.s, t.len, 65535, &v))
			return fail_at(e, t.col, "expected a queue number 0..65535 after '%.*s', found %s",
				       (int)first->len, first->s, found(&t, fb, sizeof(fb)));
		a->queue = (uint16_t)v;
	} else if (tok_is(first, "rss")) {
		a->type = GNIO_FLOW_ACTION_RSS;
		for (;;) {
			const char *dash;

			t = next_tok(lx);
			dash = t.kind == T_WORD ? memchr(t.s, '-', t.len) : NULL;
			if (t.kind != T_WORD ||
			    (dash ? parse_num(t.s, (size_t)(dash - t.s), 65535, &v) ||
					    parse_num(dash + 1, t.len - (size_t)(dash - t.s) - 1, 65535, &w)
				  : parse_num(t.s, t.len, 65535, &v)))
				return fail_at(e, t.col,
					       "expected a queue or queue range (N or N-M, 0..65535) in the rss list, "
					       "found %s", found(&t, fb, sizeof(fb)));
			if (!dash)
				w = v;
			if (v > w)
				return fail_at(e, t.col, "queue range %lu-%lu is reversed", v, w);
			for (unsigned long q = v; q <= w; q++) {
				for (unsigned i = 0; i < a->num_queues; i++)
					if (a->queues[i] == q)
						return fail_at(e, t.col, "queue %lu is listed twice in the rss list", q);
				if (a->num_queues == GNIO_FLOW_MAX_RSS_QUEUES)
					return fail_at(e, t.col, "an rss list holds at most %d queues",
						       GNIO_FLOW_MAX_RSS_QUEUES);
				a->queues[a->num_queues++] = (uint16_t)q;
			}
			if (peek_tok(lx).kind != T_COMMA)
				break;
			next_tok(lx);
		}
	} else {
		return fail_at(e, first->col,
			       "expected an action (gnio, queue N, rss Q1,Q2,..., cpu N, kernel, drop) after '->', "
			       "found %s", found(first, fb, sizeof(fb)));
	}
	t = next_tok(lx);
	if (t.kind != T_END)
		return fail_at(e, t.col, "expected end of line or '#' after the action, found %s",
			       found(&t, fb, sizeof(fb)));
	return 0;
}

/* Where a field named by flow_rule_check's message was written. */
static unsigned field_col(const char *field, const struct cols *c)
{
	if (!field)
		return 1;
	if (!strncmp(field, "action", 6))
		return c->action;
	if (!strcmp(field, "match.ip"))
		return c->ip ? c->ip : c->l4;
	if (!strcmp(field, "match.l4"))
		return c->l4;
	if (!strcmp(field, "match.ethertype"))
		return c->ethertype;
	if (!strcmp(field, "match.vlan_id"))
		return c->vlan;
	if (!strncmp(field, "match.src", 9))
		return c->src;
	if (!strncmp(field, "match.dst", 9))
		return c->dst;
	if (!strcmp(field, "match.sport"))
		return c->sport;
	if (!strcmp(field, "match.dport"))
		return c->dport;
	return 1;
}

/* Parse one line. Returns 1 for a rule, 0 for an empty or comment line,
 * -1 with e filled. *action_col gets the action's column. */
static int parse_line(const char *line, const char *end, struct gnio_flow_rule *rule, int *is_default,
		      unsigned *action_col, struct perr *e)
{
	static const struct {
		const char *word;
		int is_ip;
		int val;
	} kw[] = {
		{"ipv4", 1, GNIO_FLOW_IP_V4},	 {"ipv6", 1, GNIO_FLOW_IP_V6},	   {"udp", 0, GNIO_FLOW_L4_UDP},
		{"tcp", 0, GNIO_FLOW_L4_TCP},	 {"icmp", 0, GNIO_FLOW_L4_ICMP}, {"icmp6", 0, GNIO_FLOW_L4_ICMP6},
		{"arp", 0, GNIO_FLOW_L4_ARP},
	};
	struct lexer lx = {line, line, end};
	struct gnio_flow_match *m = &rule->match;
	struct cols c;
	struct tok t, first_ip = {0}, first_l4 = {0};
	char fb[64];
	int nterms = 0;
	unsigned any_col = 0;
	const char *field = NULL;

	memset(&c, 0, sizeof(c));
	gnio_flow_rule_init(rule);
	*is_default = 0;
	t = next_tok(&lx);
	if (t.kind == T_END)
		return 0;
	if (tok_is(&t, "default")) {
		*is_default = 1;
		t = next_tok(&lx);
		if (t.kind != T_ARROW)
			return fail_at(e, t.col, "expected '->' after 'default' (default takes no match), found %s",
				       found(&t, fb, sizeof(fb)));
		t = next_tok(&lx);
		c.action = t.col;
		*action_col = t.col;
		if (parse_action(&lx, &t, &rule->action, e))
			return -1;
		if (flow_action_check(&rule->action, &field))
			return fail_at(e, c.action, "%s", gnio_last_error_msg());
		return 1;
	}
	for (;; t = next_tok(&lx)) {
		unsigned long v;
		size_t k;

		if (t.kind == T_ARROW)
			break;
		if (t.kind != T_WORD)
			return fail_at(e, t.col, "expected %s, found %s",
				       nterms ? "another match or '->' and an action" : "a match or 'default'",
				       found(&t, fb, sizeof(fb)));
		for (k = 0; k < sizeof(kw) / sizeof(kw[0]); k++)
			if (tok_is(&t, kw[k].word))
				break;
		if (k < sizeof(kw) / sizeof(kw[0])) {
			struct tok *prev = kw[k].is_ip ? &first_ip : &first_l4;

			if (prev->kind == T_WORD)
				return fail_at(e, t.col, "'%.*s' conflicts with '%.*s' at column %u", (int)t.len, t.s,
					       (int)prev->len, prev->s, prev->col);
			*prev = t;
			if (kw[k].is_ip) {
				m->ip = (enum gnio_flow_ip)kw[k].val;
				c.ip = t.col;
			} else {
				m->l4 = (enum gnio_flow_l4)kw[k].val;
				c.l4 = t.col;
			}
		} else if (tok_is(&t, "any")) {
			any_col = t.col;
		} else if (tok_is(&t, "ethertype") || tok_is(&t, "vlan") || tok_is(&t, "src") || tok_is(&t, "dst") ||
			   tok_is(&t, "sport") || tok_is(&t, "dport")) {
			struct tok kwt = t;
			uint32_t bit;
			unsigned *col;

			if (tok_is(&kwt, "ethertype"))
				bit = GNIO_FLOW_MATCH_ETHERTYPE, col = &c.ethertype;
			else if (tok_is(&kwt, "vlan"))
				bit = GNIO_FLOW_MATCH_VLAN, col = &c.vlan;
			else if (tok_is(&kwt, "src"))
				bit = GNIO_FLOW_MATCH_SRC, col = &c.src;
			else if (tok_is(&kwt, "dst"))
				bit = GNIO_FLOW_MATCH_DST, col = &c.dst;
			else if (tok_is(&kwt, "sport"))
				bit = GNIO_FLOW_MATCH_SPORT, col = &c.sport;
			else
				bit = GNIO_FLOW_MATCH_DPORT, col = &c.dport;
			if (m->fields & bit)
				return fail_at(e, kwt.col, "'%.*s' given twice (first at column %u)", (int)kwt.len,
					       kwt.s, *col);
			*col = kwt.col;
			m->fields |= bit;
			t = next_tok(&lx);
			if (bit == GNIO_FLOW_MATCH_ETHERTYPE) {
				if (t.kind != T_WORD || parse_num(t.s, t.len, 0xffff, &v))
					return fail_at(e, t.col, "expected an EtherType (0x0000..0xffff) after "
								 "'ethertype', found %s", found(&t, fb, sizeof(fb)));
				m->ethertype = (uint16_t)v;
			} else if (bit == GNIO_FLOW_MATCH_VLAN) {
				if (t.kind != T_WORD || parse_num(t.s, t.len, 4095, &v))
					return fail_at(e, t.col, "expected a VLAN id 0..4095 after 'vlan', found %s",
						       found(&t, fb, sizeof(fb)));
				m->vlan_id = (uint16_t)v;
			} else if (bit == GNIO_FLOW_MATCH_SRC || bit == GNIO_FLOW_MATCH_DST) {
				if (parse_prefix(&t, bit == GNIO_FLOW_MATCH_SRC ? &m->src : &m->dst))
					return fail_at(e, t.col, "expected an IPv4 or IPv6 address with an optional "
								 "/prefix after '%.*s', found %s", (int)kwt.len, kwt.s,
						       found(&t, fb, sizeof(fb)));
			} else {
				uint16_t *lo = bit == GNIO_FLOW_MATCH_SPORT ? &m->sport_min : &m->dport_min;
				uint16_t *hi = bit == GNIO_FLOW_MATCH_SPORT ? &m->sport_max : &m->dport_max;

				if (parse_range(&t, lo, hi))
					return fail_at(e, t.col, "expected a port or port range (N or N-M, 0..65535) "
								 "after '%.*s', found %s", (int)kwt.len, kwt.s,
						       found(&t, fb, sizeof(fb)));
			}
		} else if (tok_is(&t, "default")) {
			return fail_at(e, t.col, "'default' stands alone: default -> ACTION");
		} else {
			return fail_at(e, t.col,
				       "expected a match (ipv4, ipv6, udp, tcp, icmp, icmp6, arp, ethertype N, vlan N, "
				       "src A/L, dst A/L, sport P, dport P, any)%s, found %s",
				       nterms ? " or '->'" : "", found(&t, fb, sizeof(fb)));
		}
		nterms++;
	}
	if (!nterms)
		return fail_at(e, t.col, "expected a match (or 'default') before '->'");
	if (any_col && nterms > 1)
		return fail_at(e, any_col, "'any' stands alone: any -> ACTION");
	t = next_tok(&lx);
	c.action = t.col;
	*action_col = t.col;
	if (parse_action(&lx, &t, &rule->action, e))
		return -1;
	if (flow_rule_check(rule, &field))
		return fail_at(e, field_col(field, &c), "%s", gnio_last_error_msg());
	return 1;
}

gnio_error_t gnio_flow_rule_parse(const char *line, struct gnio_flow_rule *rule, int *is_default)
{
	struct perr e;
	unsigned acol;
	int dflt = 0, r;
	const char *end;

	if (!line || !rule)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "rule_parse: NULL argument");
	end = strchr(line, '\n');
	if (!end)
		end = line + strlen(line);
	r = parse_line(line, end, rule, &dflt, &acol, &e);
	if (r < 0)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "column %u: %s", e.col, e.msg);
	if (r == 0)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "column %u: expected a rule, found an empty line",
				 (unsigned)(end - line) + 1);
	if (is_default)
		*is_default = dflt;
	else if (dflt)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "column 1: a default line, but is_default is NULL");
	return GNIO_SUCCESS;
}

/* Parse the whole text, then add its rules (replace 0) or put them in place
 * of the flow's rules (replace 1): one publication either way. */
static gnio_error_t load_text(struct gnio_flow *flow, const char *text, const char *name, int replace)
{
	struct gnio_flow_rule *rules;
	struct gnio_flow_action dflt;
	unsigned *lines, *cols, dflt_line = 0, dflt_col = 0;
	uint32_t n = 0, bad;
	const char *p;
	unsigned lineno = 0;
	gnio_error_t err;

	if (!flow || !text)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "load: NULL argument");
	if (!name)
		name = "<string>";
	rules = malloc(sizeof(*rules) * (FK_MAX_RULES + 1));
	lines = malloc(sizeof(*lines) * (FK_MAX_RULES + 1));
	cols = malloc(sizeof(*cols) * (FK_MAX_RULES + 1));
	if (!rules || !lines || !cols) {
		err = gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
		goto out;
	}
	for (p = text; *p || p == text; lineno++) {
		const char *eol = strchr(p, '\n');
		struct perr e;
		unsigned acol = 1;
		int is_dflt, r;

		if (!eol)
			eol = p + strlen(p);
		r = parse_line(p, eol, &rules[n], &is_dflt, &acol, &e);
		if (r < 0) {
			err = gnio_fail(e.err, COMP, "%s:%u:%u: %s", name, lineno + 1, e.col, e.msg);
			goto out;
		}
		if (r > 0 && is_dflt) {
			if (dflt_line) {
				err = gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP,
						"%s:%u:1: a second 'default' line (the first is line %u)", name,
						lineno + 1, dflt_line);
				goto out;
			}
			dflt = rules[n].action;
			dflt_line = lineno + 1;
			dflt_col = acol;
		} else if (r > 0) {
			if (n == FK_MAX_RULES) {
				err = gnio_fail(GNIO_ERROR_FULL, COMP, "%s:%u:1: more than %d rules", name, lineno + 1,
						FK_MAX_RULES);
				goto out;
			}
			lines[n] = lineno + 1;
			cols[n] = acol;
			n++;
		}
		if (!*eol)
			break;
		p = eol + 1;
	}
	err = replace ? flow_replace_batch(flow, rules, n, dflt_line ? &dflt : NULL, &bad)
		      : flow_add_batch(flow, rules, n, dflt_line ? &dflt : NULL, &bad);
	if (err) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", gnio_last_error_msg());
		if (bad < n)
			gnio_fail(err, COMP, "%s:%u:%u: %s", name, lines[bad], cols[bad], msg);
		else if (dflt_line)
			gnio_fail(err, COMP, "%s:%u:%u: %s", name, dflt_line, dflt_col, msg);
	}
out:
	free(rules);
	free(lines);
	free(cols);
	return err;
}

gnio_error_t gnio_flow_load_string(struct gnio_flow *flow, const char *text, const char *name)
{
	return load_text(flow, text, name, 0);
}

gnio_error_t gnio_flow_replace_string(struct gnio_flow *flow, const char *text, const char *name)
{
	return load_text(flow, text, name, 1);
}

static gnio_error_t load_path(struct gnio_flow *flow, const char *path, int replace)
{
	FILE *fp;
	char *buf;
	size_t got;
	gnio_error_t err;

	if (!flow || !path)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "load_file: NULL argument");
	fp = fopen(path, "r");
	if (!fp) {
		int e = errno;

		return gnio_fail(e == ENOENT ? GNIO_ERROR_NOT_FOUND
					     : e == EACCES ? GNIO_ERROR_NOT_PERMITTED : GNIO_ERROR_IO_FAILED,
				 COMP, "rules file %s: %s", path, strerror(e));
	}
	buf = malloc(MAX_FILE + 1);
	if (!buf) {
		fclose(fp);
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	}
	got = fread(buf, 1, MAX_FILE + 1, fp);
	if (ferror(fp)) {
		err = gnio_fail(GNIO_ERROR_IO_FAILED, COMP, "rules file %s: read error", path);
	} else if (got > MAX_FILE) {
		err = gnio_fail(GNIO_ERROR_TOO_BIG, COMP, "rules file %s is larger than %u MiB", path, MAX_FILE >> 20);
	} else if (memchr(buf, 0, got)) {
		err = gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "rules file %s contains a NUL byte (not text)", path);
	} else {
		buf[got] = 0;
		err = load_text(flow, buf, path, replace);
	}
	fclose(fp);
	free(buf);
	return err;
}

gnio_error_t gnio_flow_load_file(struct gnio_flow *flow, const char *path)
{
	return load_path(flow, path, 0);
}

gnio_error_t gnio_flow_replace_file(struct gnio_flow *flow, const char *path)
{
	return load_path(flow, path, 1);
}

/* ---------------------------------------------------------- formatting -- */

struct out {
	char *buf;
	size_t len, need;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->need < o->len ? o->buf + o->need : NULL, o->need < o->len ? o->len - o->need : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->need += (size_t)n;
}

static void put_prefix(struct out *o, const char *kw, const struct gnio_flow_prefix *p)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->family == 6 ? AF_INET6 : AF_INET, p->addr, a, sizeof(a));
	if (p->len == (p->family == 6 ? 128 : 32))
		put(o, "%s %s ", kw, a);
	else
		put(o, "%s %s/%u ", kw, a, p->len);
}

static void put_range(struct out *o, const char *kw, uint16_t lo, uint16_t hi)
{
	if (lo == hi)
		put(o, "%s %u ", kw, lo);
	else
		put(o, "%s %u-%u ", kw, lo, hi);
}

static void put_action(struct out *o, const struct gnio_flow_action *a)
{
	switch (a->type) {
	case GNIO_FLOW_ACTION_QUEUE:
	case GNIO_FLOW_ACTION_CPU:
		put(o, "%s %u", gnio_flow_action_name(a->type), a->queue);
		break;
	case GNIO_FLOW_ACTION_RSS:
		put(o, "rss ");
		for (unsigned i = 0; i < a->num_queues && i < GNIO_FLOW_MAX_RSS_QUEUES; i++)
			put(o, "%s%u", i ? "," : "", a->queues[i]);
		break;
	default:
		put(o, "%s", gnio_flow_action_name(a->type));
	}
}

int gnio_flow_action_format(const struct gnio_flow_action *action, char *buf, size_t len)
{
	struct out o = {buf, buf ? len : 0, 0};

	if (buf && len)
		buf[0] = 0;
	if (action)
		put_action(&o, action);
	return (int)o.need;
}

int gnio_flow_rule_format(const struct gnio_flow_rule *rule, char *buf, size_t len)
{
	static const char *const l4[] = {"", "udp", "tcp", "icmp", "icmp6", "arp"};
	struct out o = {buf, buf ? len : 0, 0};
	const struct gnio_flow_match *m;

	if (buf && len)
		buf[0] = 0;
	if (!rule)
		return 0;
	m = &rule->match;
	/* terms in a fixed order, each followed by a space */
	if (m->ip == GNIO_FLOW_IP_V4 || m->ip == GNIO_FLOW_IP_V6)
		put(&o, "%s ", m->ip == GNIO_FLOW_IP_V4 ? "ipv4" : "ipv6");
	if ((unsigned)m->l4 > GNIO_FLOW_L4_ANY && (unsigned)m->l4 <= GNIO_FLOW_L4_ARP)
		put(&o, "%s ", l4[m->l4]);
	if (m->fields & GNIO_FLOW_MATCH_ETHERTYPE)
		put(&o, "ethertype 0x%04x ", m->ethertype);
	if (m->fields & GNIO_FLOW_MATCH_VLAN)
		put(&o, "vlan %u ", m->vlan_id);
	if (m->fields & GNIO_FLOW_MATCH_SRC)
		put_prefix(&o, "src", &m->src);
	if (m->fields & GNIO_FLOW_MATCH_DST)
		put_prefix(&o, "dst", &m->dst);
	if (m->fields & GNIO_FLOW_MATCH_SPORT)
		put_range(&o, "sport", m->sport_min, m->sport_max);
	if (m->fields & GNIO_FLOW_MATCH_DPORT)
		put_range(&o, "dport", m->dport_min, m->dport_max);
	if (o.need == 0)
		put(&o, "any ");
	put(&o, "-> ");
	put_action(&o, &rule->action);
	return (int)o.need;
}
