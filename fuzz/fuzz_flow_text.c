/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_flow_text.c - libFuzzer target: the rules-file parser
 * (src/flow/flow_text.c). The input is a text (cut at its first NUL byte,
 * as a C string would be). Each of its lines goes to gnio_flow_rule_parse;
 * then the whole text goes to gnio_flow_load_string on a flow with no wire
 * that already holds two rules and a default. Checks:
 *  - a refused line gives INVALID_VALUE and "column C: ..." with C inside
 *    the line (1 .. its length + 1) and not on a space or tab (blank and
 *    comment lines are refused too, as empty: they are what a file skips);
 *  - a parsed rule formats to text with no newline or comment that parses
 *    to the same rule and formats to the same text (round trip); the action
 *    part is gnio_flow_action_format's text, and "default -> " before it
 *    parses to the same action; a short buffer gets a NUL-terminated prefix
 *    and nothing past its end, and the length needed is returned every time;
 *  - a parsed rule (or default) is taken by gnio_flow_rule_add (or
 *    gnio_flow_set_default) and read back unchanged;
 *  - load_string is all or nothing: it fails with INVALID_VALUE (naming as
 *    "f.rules:LINE:COL:" a line that is refused on its own at that column
 *    with the same message, or a second default line) or FULL (more than 256
 *    rules in all), and then the rules, their ids and the default are as
 *    before; or it succeeds when and only when no line is refused, there is
 *    at most one default line and the rules fit, and then the old rules are
 *    kept with their ids, one new rule per rule line (so no more rules than
 *    lines), each equal to its line parsed alone, with new ids, and the
 *    default is the default line's (or unchanged);
 *  - the canonical text of the loaded flow (each rule formatted, then
 *    "default -> " and the default) loads into a fresh flow as the same
 *    rules and default;
 *  - gnio_flow_replace_string of the text, in place of the two rules,
 *    returns what the load returned; on success the flow holds exactly the
 *    text's rules with ids none of the replaced ones had, one reload
 *    counted; on failure nothing changed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnio/dev.h"
#include "gnio/flow.h"
#include "gnio/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_TEXT 8192
#define MAX_ADD 8 /* parsed rules also added one by one to a scratch flow */
#define PRE_TEXT "tcp dport 22 -> kernel\nudp -> rss 0,1\ndefault -> queue 1\n"
#define PRE_RULES 2

enum kind { L_BLANK, L_RULE, L_DEFAULT, L_BAD };

struct line {
	const char *p;  /* start of the line in the text */
	unsigned len;   /* bytes before its '\n' or the end */
	enum kind kind;
	unsigned col;   /* L_BAD: the column rule_parse named */
};

/* rules of the rule lines in order, one past the limit */
static struct gnio_flow_rule parsed[GNIO_FLOW_MAX_RULES + 1];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	gnio_log_set_level(GNIO_LOG_LEVEL_DISABLE);
	return 0;
}

/* "column C: " at the start of msg: C, and *rest after it; 0 if not there */
static unsigned msg_column(const char *msg, const char **rest)
{
	unsigned col = 0;
	int n = 0;

	if (sscanf(msg, "column %u: %n", &col, &n) != 1 || n == 0)
		return 0;
	*rest = msg + n;
	return col;
}

/* Same message text, up to where the shorter of the two (each cut to the
 * 255 characters of gnio_last_error_msg) ends. */
static int same_text(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return la && lb && !memcmp(a, b, la < lb ? la : lb);
}

static void check_format(const struct gnio_flow_rule *r, int dflt)
{
	char text[1024], again[1024], act[512], line[600];
	struct gnio_flow_rule back, back2;
	int d = -1;
	int n = gnio_flow_rule_format(r, text, sizeof(text));

	if (n <= 0 || (size_t)n >= sizeof(text) || strlen(text) != (size_t)n ||
	    gnio_flow_rule_format(r, NULL, 0) != n || strpbrk(text, "\n#"))
		abort();
	/* round trip: the canonical text parses to the same rule (a default
	 * line's rule has an empty match: "any -> A") and formats the same */
	if (gnio_flow_rule_parse(text, &back, &d) != GNIO_SUCCESS || d != 0 || memcmp(r, &back, sizeof(back)))
		abort();
	if (gnio_flow_rule_format(&back, again, sizeof(again)) != n || strcmp(text, again))
		abort();
	/* the action part is action_format's, and it reads as a default */
	int an = gnio_flow_action_format(&r->action, act, sizeof(act));
	if (an <= 0 || (size_t)an >= sizeof(act) || strlen(act) != (size_t)an || an + 3 > n ||
	    strcmp(text + n - an, act) || memcmp(text + n - an - 3, "-> ", 3))
		abort();
	snprintf(line, sizeof(line), "default -> %s", act);
	d = 0;
	if (gnio_flow_rule_parse(line, &back2, &d) != GNIO_SUCCESS || d != 1 ||
	    memcmp(&back2.action, &r->action, sizeof(r->action)))
		abort();
	if (dflt && memcmp(&back2, r, sizeof(back2)))
		abort();
	/* short buffers, each allocated to exactly its length (a byte written
	 * past it is an ASan error): snprintf's contract */
	size_t lens[] = {1, (size_t)an / 2 + 1, (size_t)n / 2 + 1, (size_t)n, (size_t)n + 1};
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t k = lens[i];
		char *small = malloc(k);

		if (!small)
			abort();
		size_t keep = k - 1 < (size_t)n ? k - 1 : (size_t)n;
		if (gnio_flow_rule_format(r, small, k) != n || strlen(small) != keep || memcmp(small, text, keep))
			abort();
		keep = k - 1 < (size_t)an ? k - 1 : (size_t)an;
		if (gnio_flow_action_format(&r->action, small, k) != an || strlen(small) != keep ||
		    memcmp(small, act, keep))
			abort();
		free(small);
	}
}

/* rules, ids and default of a flow, to compare before and after a load */
struct snap {
	uint32_t n;
	uint32_t ids[GNIO_FLOW_MAX_RULES];
	struct gnio_flow_rule rules[GNIO_FLOW_MAX_RULES];
	struct gnio_flow_action dflt;
};

static void take(struct gnio_flow *f, struct snap *s)
{
	if (gnio_flow_get_rule_count(f, &s->n) != GNIO_SUCCESS || s->n > GNIO_FLOW_MAX_RULES)
		abort();
	for (uint32_t i = 0; i < s->n; i++)
		if (gnio_flow_get_rule(f, i, &s->ids[i], &s->rules[i]) != GNIO_SUCCESS)
			abort();
	if (gnio_flow_get_default(f, &s->dflt) != GNIO_SUCCESS)
		abort();
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The canonical text of a flow loads into a fresh flow as the same rules. */
static void check_reload(const struct snap *s)
{
	size_t cap = (size_t)(s->n + 1) * 1100, off = 0;
	char *text = malloc(cap);
	struct gnio_flow *g = NULL;
	struct snap *t = malloc(sizeof(*t));

	if (!text || !t)
		abort();
	for (uint32_t i = 0; i < s->n; i++) {
		off += (size_t)gnio_flow_rule_format(&s->rules[i], text + off, cap - off);
		text[off++] = '\n';
	}
	off += (size_t)snprintf(text + off, cap - off, "default -> ");
	gnio_flow_action_format(&s->dflt, text + off, cap - off);
	if (gnio_flow_create(NULL, &g) != GNIO_SUCCESS || gnio_flow_load_string(g, text, "canon") != GNIO_SUCCESS)
		abort();
	take(g, t);
	if (t->n != s->n || memcmp(t->rules, s->rules, sizeof(s->rules[0]) * s->n) ||
	    memcmp(&t->dflt, &s->dflt, sizeof(t->dflt)))
		abort();
	if (gnio_flow_destroy(g) != GNIO_SUCCESS)
		abort();
	free(t);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_TEXT)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;

	/* the lines as the loader sees them: split at '\n'; a final '\n' ends
	 * the last line, an empty text is one empty line */
	unsigned nlines = 1;
	for (const char *q = text; *q; q++)
		if (*q == '\n' && q[1])
			nlines++;
	struct line *lines = calloc(nlines, sizeof(*lines));
	if (!lines)
		abort();
	unsigned nrules = 0, ndefaults = 0, nbad = 0;
	int last_default = -1;
	struct gnio_flow *scratch = NULL;
	unsigned added = 0, added_rules = 0;
	const char *p = text;

	for (unsigned i = 0; i < nlines; i++) {
		const char *eol = strchr(p, '\n');
		struct line *l = &lines[i];
		struct gnio_flow_rule r, r2;
		int d = -1;

		l->p = p;
		l->len = (unsigned)(eol ? eol - p : (ptrdiff_t)strlen(p));
		gnio_error_t e = gnio_flow_rule_parse(p, &r, &d);
		if (e != GNIO_SUCCESS) {
			const char *msg = gnio_last_error_msg(), *rest = NULL;
			char empty[64];

			if (e != GNIO_ERROR_INVALID_VALUE || !msg[0])
				abort();
			l->col = msg_column(msg, &rest);
			/* the column is inside the line, at a token, a '#' or the end */
			if (l->col < 1 || l->col > l->len + 1 || !rest[0] ||
			    (l->col <= l->len && (p[l->col - 1] == ' ' || p[l->col - 1] == '\t')))
				abort();
			snprintf(empty, sizeof(empty), "column %u: expected a rule, found an empty line", l->len + 1);
			l->kind = strcmp(msg, empty) ? L_BAD : L_BLANK;
			nbad += l->kind == L_BAD;
		} else {
			if (d != 0 && d != 1)
				abort();
			l->kind = d ? L_DEFAULT : L_RULE;
			check_format(&r, d);
			if (added < MAX_ADD) {
				if (!scratch && gnio_flow_create(NULL, &scratch) != GNIO_SUCCESS)
					abort();
				if (d) {
					struct gnio_flow_action a;

					if (gnio_flow_set_default(scratch, &r.action) != GNIO_SUCCESS ||
					    gnio_flow_get_default(scratch, &a) != GNIO_SUCCESS ||
					    memcmp(&a, &r.action, sizeof(a)))
						abort();
				} else {
					uint32_t id, id2;

					if (gnio_flow_rule_add(scratch, &r, &id) != GNIO_SUCCESS ||
					    gnio_flow_get_rule(scratch, added_rules, &id2, &r2) != GNIO_SUCCESS ||
					    id != id2 || memcmp(&r, &r2, sizeof(r)))
						abort();
					added_rules++;
				}
				added++;
			}
			if (d) {
				ndefaults++;
				last_default = (int)i;
			} else {
				if (nrules <= GNIO_FLOW_MAX_RULES)
					parsed[nrules] = r;
				nrules++;
			}
		}
		p = eol ? eol + 1 : p + l->len;
	}
	if (scratch && gnio_flow_destroy(scratch) != GNIO_SUCCESS)
		abort();

	/* the whole text, after rules that are already there */
	struct gnio_flow *f = NULL;
	struct snap *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after));
	if (!before || !after || gnio_flow_create(NULL, &f) != GNIO_SUCCESS ||
	    gnio_flow_load_string(f, PRE_TEXT, NULL) != GNIO_SUCCESS)
		abort();
	take(f, before);
	if (before->n != PRE_RULES)
		abort();
	gnio_error_t err = gnio_flow_load_string(f, text, "f.rules");
	char msg[256];
	snprintf(msg, sizeof(msg), "%s", gnio_last_error_msg());
	int fits = PRE_RULES + nrules <= GNIO_FLOW_MAX_RULES;
	take(f, after);
	if (err == GNIO_SUCCESS) {
		if (nbad || ndefaults > 1 || !fits || after->n != before->n + nrules || after->n > before->n + nlines)
			abort();
		if (memcmp(after->ids, before->ids, sizeof(before->ids[0]) * before->n) ||
		    memcmp(after->rules, before->rules, sizeof(before->rules[0]) * before->n))
			abort(); /* the rules already there are kept, in front */
		for (uint32_t i = before->n; i < after->n; i++) {
			if (memcmp(&after->rules[i], &parsed[i - before->n], sizeof(parsed[0])))
				abort(); /* each line's rule as it parses alone */
		}
		uint32_t *ids = malloc(sizeof(ids[0]) * (after->n ? after->n : 1));
		if (!ids)
			abort();
		memcpy(ids, after->ids, sizeof(ids[0]) * after->n);
		qsort(ids, after->n, sizeof(ids[0]), cmp_u32);
		for (uint32_t i = 1; i < after->n; i++)
			if (ids[i] == ids[i - 1])
				abort(); /* a rule id names one rule */
		free(ids);
		if (last_default >= 0) {
			struct gnio_flow_rule r;
			int d;

			if (gnio_flow_rule_parse(lines[last_default].p, &r, &d) != GNIO_SUCCESS ||
			    memcmp(&after->dflt, &r.action, sizeof(r.action)))
				abort();
		} else if (memcmp(&after->dflt, &before->dflt, sizeof(before->dflt))) {
			abort();
		}
		check_reload(after);
	} else {
		/* all or nothing */
		if (!msg[0] || after->n != before->n || memcmp(after->ids, before->ids, sizeof(before->ids[0]) * before->n) ||
		    memcmp(after->rules, before->rules, sizeof(before->rules[0]) * before->n) ||
		    memcmp(&after->dflt, &before->dflt, sizeof(before->dflt)))
			abort();
		if (!nbad && ndefaults <= 1 && fits)
			abort(); /* nothing wrong with the text, yet refused */
		if (err == GNIO_ERROR_FULL) {
			if (fits)
				abort();
		} else if (err == GNIO_ERROR_INVALID_VALUE) {
			/* "f.rules:LINE:COL: ..." naming a line that is wrong */
			unsigned ln = 0, col = 0;
			int n = 0;

			if (sscanf(msg, "f.rules:%u:%u: %n", &ln, &col, &n) != 2 || !n || ln < 1 || ln > nlines)
				abort();
			const struct line *l = &lines[ln - 1];
			if (col < 1 || col > l->len + 1)
				abort();
			if (l->kind == L_BAD) {
				struct gnio_flow_rule r;
				const char *rest = NULL;
				int d;
				char where[sizeof("f.rules:4294967295:4294967295: ")];

				snprintf(where, sizeof(where), "f.rules:%u:%u: ", ln, col);
				char *lmsg = strdup(msg + strlen(where));
				if (!lmsg || gnio_flow_rule_parse(l->p, &r, &d) != GNIO_ERROR_INVALID_VALUE ||
				    msg_column(gnio_last_error_msg(), &rest) != col || !same_text(lmsg, rest))
					abort(); /* the same place and reason as the line alone */
				free(lmsg);
			} else if (l->kind != L_DEFAULT || ndefaults < 2 || !strstr(msg, "a second 'default' line")) {
				abort();
			}
		} else {
			abort(); /* no wire: nothing else can refuse */
		}
	}
	if (gnio_flow_destroy(f) != GNIO_SUCCESS)
		abort();

	/* The same text as a reload, in place of the two rules: accepted
	 * exactly when the load above was (the old and the new rules must fit
	 * together, as they had to there), then the flow holds the text's
	 * rules alone, with fresh ids; refused with the load's error, changing
	 * nothing. */
	if (gnio_flow_create(NULL, &f) != GNIO_SUCCESS || gnio_flow_load_string(f, PRE_TEXT, NULL) != GNIO_SUCCESS)
		abort();
	take(f, before);
	gnio_error_t rerr = gnio_flow_replace_string(f, text, "f.rules");
	take(f, after);
	if (rerr != err)
		abort();
	if (rerr == GNIO_SUCCESS) {
		if (after->n != nrules)
			abort();
		for (uint32_t i = 0; i < after->n; i++) {
			if (memcmp(&after->rules[i], &parsed[i], sizeof(parsed[0])))
				abort();
			for (uint32_t k = 0; k < before->n; k++)
				if (after->ids[i] == before->ids[k])
					abort(); /* a replaced rule's id is not reused */
		}
		struct gnio_flow_stats st = {.struct_size = sizeof(st)};
		if (gnio_flow_get_stats(f, &st) != GNIO_SUCCESS || st.reloads != 1 || st.removed_hits != 0)
			abort();
	} else if (after->n != before->n || memcmp(after->ids, before->ids, sizeof(before->ids[0]) * before->n) ||
		   memcmp(&after->dflt, &before->dflt, sizeof(before->dflt))) {
		abort();
	}
	if (gnio_flow_destroy(f) != GNIO_SUCCESS)
		abort();
	free(before);
	free(after);
	free(lines);
	free(text);
	return 0;
}
