/* SPDX-License-Identifier: MIT */
/* tools/gnio/config.c - the YAML config file of `gnio run` (see config.h):
 * one table of keys, read with libyaml's document loader (each node carries
 * its line) and written with libyaml's emitter. Values are not checked here:
 * they go to run_opt_set() in run_opts.c, the one place options are checked. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "commands.h"

enum key_kind {
	KEY_VERSION, /* the format's version: 1 */
	KEY_SECTION, /* a mapping of the keys below it */
	KEY_OPT,     /* one value: an option of the run */
	KEY_WIRE,    /* a wire spec, or a mapping that spells one out */
	KEY_FLOW,    /* a list of flow rules */
};

struct cfg_key {
	const char *path; /* "queues.ring"; a section's keys follow it */
	enum key_kind kind;
	enum run_opt opt;
};

/* Every key, in the order a written file has them (docs/config.md). */
static const struct cfg_key keys[] = {
	{"version", KEY_VERSION, 0},
	{"wire", KEY_WIRE, RUN_OPT_WIRE},
	{"gpu", KEY_OPT, RUN_OPT_GPU},
	{"queues", KEY_SECTION, 0},
	{"queues.count", KEY_OPT, RUN_OPT_QUEUES},
	{"queues.ring", KEY_OPT, RUN_OPT_RING},
	{"queues.burst", KEY_OPT, RUN_OPT_BURST},
	{"queues.batch", KEY_OPT, RUN_OPT_BATCH},
	{"queues.flow_control", KEY_OPT, RUN_OPT_FLOW_CONTROL},
	{"queues.rss", KEY_OPT, RUN_OPT_RSS},
	{"queues.inline_header", KEY_OPT, RUN_OPT_INLINE_HEADER},
	{"queues.cpus", KEY_OPT, RUN_OPT_CPUS},
	{"memory", KEY_SECTION, 0},
	{"memory.rx", KEY_OPT, RUN_OPT_MEM},
	{"app", KEY_SECTION, 0},
	{"app.name", KEY_OPT, RUN_OPT_APP},
	{"app.recv_scope", KEY_OPT, RUN_OPT_RECV_SCOPE},
	{"app.send_scope", KEY_OPT, RUN_OPT_SEND_SCOPE},
	{"app.threads", KEY_OPT, RUN_OPT_THREADS},
	{"app.watchers", KEY_OPT, RUN_OPT_WATCHERS},
	{"app.hold_us", KEY_OPT, RUN_OPT_HOLD_US},
	{"generator", KEY_SECTION, 0},
	{"generator.proto", KEY_OPT, RUN_OPT_PROTO},
	{"generator.size", KEY_OPT, RUN_OPT_SIZE},
	{"limits", KEY_SECTION, 0},
	{"limits.duration", KEY_OPT, RUN_OPT_DURATION},
	{"limits.count", KEY_OPT, RUN_OPT_COUNT},
	{"limits.rate", KEY_OPT, RUN_OPT_RATE},
	{"poll", KEY_OPT, RUN_OPT_POLL},
	{"user", KEY_OPT, RUN_OPT_USER},
	{"flow_file", KEY_OPT, RUN_OPT_FLOW_FILE},
	{"flow", KEY_FLOW, RUN_OPT_FLOW},
	{"metrics", KEY_SECTION, 0},
	{"metrics.listen", KEY_OPT, RUN_OPT_METRICS},
	{"metrics.hold", KEY_OPT, RUN_OPT_METRICS_HOLD},
	{"output", KEY_SECTION, 0},
	{"output.json", KEY_OPT, RUN_OPT_JSON},
	{"output.quiet", KEY_OPT, RUN_OPT_QUIET},
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* The mapping form of wire: kind:name[@queue][,key=value...]. */
static const char *const wire_keys[] = {"kind", "name", "queue", "options", NULL};
static const char *const wire_kinds[] = {"sw", "null", "afxdp", "afpacket", "pcap", NULL};

/* ------------------------------------------------------------ reading -- */

struct reader {
	const char *file;
	yaml_document_t *doc;
	struct run_opts *o;
};

static unsigned line_of(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

static const char *text_of(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static const char *type_name(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a value";
}

/* A plain ~, null or nothing: the key is there without a value. */
static int is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	const char *s = text_of(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int fail(const struct reader *r, unsigned line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(const struct reader *r, unsigned line, const char *key, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "gnio run: %s:%u: %s%s", r->file, line, key ? key : "", key ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return GNIO_EXIT_USAGE;
}

static const struct cfg_key *find_key(const char *path)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].path, path))
			return &keys[i];
	return NULL;
}

/* The keys a section (prefix "" for the top) takes, for an error message. */
static void list_keys(const char *prefix, char *buf, size_t len)
{
	size_t plen = strlen(prefix), n = 0;
	buf[0] = 0;
	for (size_t i = 0; i < NKEYS; i++) {
		const char *p = keys[i].path;
		if (plen ? strncmp(p, prefix, plen) || p[plen] != '.' : strchr(p, '.') != NULL)
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "", p + (plen ? plen + 1 : 0));
	}
}

/* A scalar value, copied into o. */
static int set_scalar(const struct reader *r, const struct cfg_key *k, const yaml_node_t *key, const yaml_node_t *v)
{
	if (v->type != YAML_SCALAR_NODE)
		return fail(r, line_of(key), k->path, "expected a single value, got %s", type_name(v));
	const char *val = is_null(v) ? "" : run_opts_keep(r->o, text_of(v));
	if (!val)
		return fail(r, line_of(key), k->path, "out of memory");
	struct run_origin from = {r->file, line_of(key), k->path};
	return run_opt_set(r->o, k->opt, val, &from);
}

/* wire: {kind, name, queue, options} -> "kind:name@queue,key=value,...". */
static int set_wire_mapping(const struct reader *r, const yaml_node_t *key, const yaml_node_t *map)
{
	char spec[512] = "";
	const char *kind = NULL, *name = "", *queue = NULL;
	unsigned kind_line = line_of(key), name_line = line_of(key), queue_line = line_of(key);
	const yaml_node_t *options = NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		const char *kn = k->type == YAML_SCALAR_NODE ? text_of(k) : "";
		size_t i;
		for (i = 0; wire_keys[i] && strcmp(wire_keys[i], kn); i++)
			;
		if (!wire_keys[i])
			return fail(r, line_of(k), "wire", "unknown key '%s' (expected kind, name, queue, options)", kn);
		if (!strcmp(kn, "options")) {
			if (v->type != YAML_MAPPING_NODE && !is_null(v))
				return fail(r, line_of(k), "wire.options", "expected a mapping of wire options "
					    "(e.g. {mode: skb}), got %s", type_name(v));
			options = v->type == YAML_MAPPING_NODE ? v : NULL;
			continue;
		}
		char path[32];
		snprintf(path, sizeof(path), "wire.%s", kn);
		if (v->type != YAML_SCALAR_NODE || is_null(v))
			return fail(r, line_of(k), path, "expected a single value, got %s",
				    v->type == YAML_SCALAR_NODE ? "nothing" : type_name(v));
		if (!strcmp(kn, "kind")) {
			kind = text_of(v);
			kind_line = line_of(k);
		} else if (!strcmp(kn, "name")) {
			name = text_of(v);
			name_line = line_of(k);
		} else {
			queue = text_of(v);
			queue_line = line_of(k);
		}
	}
	if (!kind)
		return fail(r, kind_line, "wire.kind", "missing (expected sw, null, afxdp, afpacket or pcap)");
	size_t i;
	for (i = 0; wire_kinds[i] && strcmp(wire_kinds[i], kind); i++)
		;
	if (!wire_kinds[i])
		return fail(r, kind_line, "wire.kind", "expected sw, null, afxdp, afpacket or pcap, got '%s'", kind);
	if (!*name && strcmp(kind, "pcap"))
		return fail(r, name_line, "wire.name", "missing (expected the %s's name)",
			    !strcmp(kind, "afxdp") || !strcmp(kind, "afpacket") ? "interface" : "wire");
	if (strpbrk(name, ",@") && strcmp(kind, "pcap"))
		return fail(r, name_line, "wire.name", "expected a name without ',' or '@', got '%s'", name);
	if (queue && strcmp(kind, "afxdp"))
		return fail(r, queue_line, "wire.queue", "only an afxdp wire names a queue (afxdp:IFACE@Q)");
	if (queue && strspn(queue, "0123456789") != strlen(queue))
		return fail(r, queue_line, "wire.queue", "expected a queue number, got '%s'", queue);
	size_t n = (size_t)snprintf(spec, sizeof(spec), "%s:%s%s%s", kind, name, queue ? "@" : "", queue ? queue : "");
	for (yaml_node_pair_t *p = options ? options->data.mapping.pairs.start : NULL;
	     options && p < options->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		if (k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE || is_null(v))
			return fail(r, line_of(k), "wire.options", "expected option: value pairs of single values");
		if (strpbrk(text_of(k), ",=") || strchr(text_of(v), ','))
			return fail(r, line_of(k), "wire.options", "expected an option name without ',' or '=' and a "
				    "value without ',', got '%s: %s'", text_of(k), text_of(v));
		n += (size_t)snprintf(spec + n, n < sizeof(spec) ? sizeof(spec) - n : 0, ",%s=%s", text_of(k), text_of(v));
	}
	if (n >= sizeof(spec))
		return fail(r, line_of(key), "wire", "the spec it spells is longer than %zu bytes", sizeof(spec) - 1);
	const char *kept = run_opts_keep(r->o, spec);
	if (!kept)
		return fail(r, line_of(key), "wire", "out of memory");
	struct run_origin from = {r->file, line_of(key), "wire"};
	return run_opt_set(r->o, RUN_OPT_WIRE, kept, &from);
}

static int set_flow(const struct reader *r, const struct cfg_key *k, const yaml_node_t *key, const yaml_node_t *v)
{
	if (is_null(v))
		return 0;
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(r, line_of(key), k->path, "expected a list of rule strings (flow: [] for none), got %s",
			    type_name(v));
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		const yaml_node_t *rule = yaml_document_get_node(r->doc, *it);
		if (rule->type != YAML_SCALAR_NODE || is_null(rule))
			return fail(r, line_of(rule), k->path, "expected a rule string, got %s",
				    rule->type == YAML_SCALAR_NODE ? "nothing" : type_name(rule));
		const char *kept = run_opts_keep(r->o, text_of(rule));
		struct run_origin from = {r->file, line_of(rule), k->path};
		int rc = kept ? run_opt_add_flow(r->o, kept, &from) : fail(r, line_of(rule), k->path, "out of memory");
		if (rc)
			return rc;
	}
	return 0;
}

static int read_mapping(const struct reader *r, const yaml_node_t *map, const char *prefix)
{
	yaml_node_pair_t *start = map->data.mapping.pairs.start;
	for (yaml_node_pair_t *p = start; p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		char path[96], sibs[256];
		if (k->type != YAML_SCALAR_NODE)
			return fail(r, line_of(k), *prefix ? prefix : NULL, "expected a key name, got %s", type_name(k));
		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", text_of(k));
		for (yaml_node_pair_t *q = start; q < p; q++) {
			const yaml_node_t *qk = yaml_document_get_node(r->doc, q->key);
			if (qk->type == YAML_SCALAR_NODE && !strcmp(text_of(qk), text_of(k)))
				return fail(r, line_of(k), path, "given twice (first on line %u)", line_of(qk));
		}
		const struct cfg_key *def = find_key(path);
		if (!def) {
			list_keys(prefix, sibs, sizeof(sibs));
			return fail(r, line_of(k), path, "unknown key (%s%s%s takes: %s; see docs/config.md)",
				    *prefix ? "'" : "", *prefix ? prefix : "the top level", *prefix ? "'" : "", sibs);
		}
		int rc = 0;
		switch (def->kind) {
		case KEY_VERSION:
			if (v->type != YAML_SCALAR_NODE || strcmp(text_of(v), "1"))
				rc = fail(r, line_of(k), path, "expected 1 (the only config format there is), got %s%s%s",
					  v->type == YAML_SCALAR_NODE ? "'" : "",
					  v->type == YAML_SCALAR_NODE ? text_of(v) : type_name(v),
					  v->type == YAML_SCALAR_NODE ? "'" : "");
			break;
		case KEY_SECTION:
			if (v->type == YAML_MAPPING_NODE) {
				rc = read_mapping(r, v, path);
			} else if (!is_null(v)) {
				list_keys(path, sibs, sizeof(sibs));
				rc = fail(r, line_of(k), path, "expected a mapping of %s, got %s", sibs, type_name(v));
			}
			break;
		case KEY_OPT:
			rc = set_scalar(r, def, k, v);
			break;
		case KEY_WIRE:
			rc = v->type == YAML_MAPPING_NODE ? set_wire_mapping(r, k, v) : set_scalar(r, def, k, v);
			break;
		case KEY_FLOW:
			rc = set_flow(r, def, k, v);
			break;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* After a syntax error: the key the parser was in, found by parsing the
 * file again as events up to the error, so the message can name it. */
static void key_near_error(FILE *f, char *out, size_t len)
{
	struct level {
		int mapping, want_key;
		char key[64];
	} st[32];
	int depth = -1;
	yaml_parser_t p;
	yaml_event_t ev;
	out[0] = 0;
	rewind(f);
	if (!yaml_parser_initialize(&p))
		return;
	yaml_parser_set_input_file(&p, f);
	while (yaml_parser_parse(&p, &ev)) {
		yaml_event_type_t t = ev.type;
		/* A value (scalar or collection) in a mapping flips it back to
		 * wanting a key; a scalar where a key is wanted is the key. */
		if (depth >= 0 && st[depth].mapping && (t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT ||
							t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT)) {
			if (st[depth].want_key && t == YAML_SCALAR_EVENT)
				snprintf(st[depth].key, sizeof(st[depth].key), "%s", (const char *)ev.data.scalar.value);
			st[depth].want_key = !st[depth].want_key;
		}
		if ((t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) && depth + 1 < 32) {
			depth++;
			st[depth] = (struct level){t == YAML_MAPPING_START_EVENT, 1, ""};
		} else if ((t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) && depth >= 0) {
			depth--;
		}
		int end = t == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	yaml_parser_delete(&p);
	size_t n = 0;
	for (int i = 0; i <= depth; i++)
		if (st[i].mapping && st[i].key[0])
			n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "." : "", st[i].key);
}

static int syntax_error(const char *file, FILE *f, const yaml_parser_t *p)
{
	char near[256];
	const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->context_mark;
	key_near_error(f, near, sizeof(near));
	fprintf(stderr, "gnio run: %s:%zu:%zu: %s%s%snot valid YAML: %s%s%s\n", file, m->line + 1, m->column + 1,
		near[0] ? "in " : "", near, near[0] ? ": " : "", p->problem ? p->problem : "unknown error",
		p->context ? " " : "", p->context ? p->context : "");
	return GNIO_EXIT_USAGE;
}

int config_load(const char *path, struct run_opts *o)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "gnio run: --config %s: cannot read it: %s\n", path, strerror(errno));
		return GNIO_EXIT_ENV;
	}
	yaml_parser_t p;
	yaml_document_t doc, extra;
	int rc = -1;
	if (!yaml_parser_initialize(&p)) {
		fclose(f);
		fprintf(stderr, "gnio run: --config %s: out of memory\n", path);
		return GNIO_EXIT_FAIL;
	}
	yaml_parser_set_input_file(&p, f);
	if (!yaml_parser_load(&p, &doc)) {
		rc = syntax_error(path, f, &p);
		yaml_parser_delete(&p);
		fclose(f);
		return rc;
	}
	struct reader r = {path, &doc, o};
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		fprintf(stderr, "gnio run: %s: empty: expected a mapping of keys (docs/config.md)\n", path);
		rc = GNIO_EXIT_USAGE;
	} else if (root->type != YAML_MAPPING_NODE) {
		rc = fail(&r, line_of(root), NULL, "expected a mapping of keys (docs/config.md), got %s", type_name(root));
	} else if (!yaml_parser_load(&p, &extra)) {
		rc = syntax_error(path, f, &p);
	} else {
		yaml_node_t *second = yaml_document_get_root_node(&extra);
		if (second)
			rc = fail(&r, line_of(second), NULL, "a second YAML document: a config file holds one");
		yaml_document_delete(&extra);
		if (rc < 0) {
			rc = read_mapping(&r, root, "");
			rc = rc ? rc : -1;
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	fclose(f);
	return rc;
}

/* ------------------------------------------------------------ writing -- */

struct writer {
	yaml_emitter_t em;
	int failed;
};

/* The emitter frees each event it is given; one not given is freed here. */
static void emit(struct writer *w, yaml_event_t *ev, int ok)
{
	if (!ok)
		w->failed = 1;
	else if (w->failed)
		yaml_event_delete(ev);
	else if (!yaml_emitter_emit(&w->em, ev))
		w->failed = 1;
}

/* Words a YAML 1.1 reader would take for something other than text, and
 * anything that is not a plain word or number, are written quoted; boolean
 * options are written plain (true/false, on/off). */
static int needs_quotes(const char *s, int boolean)
{
	static const char *const special[] = {"y", "n", "yes", "no", "true", "false", "on", "off", "null", "~", NULL};
	if (!*s)
		return 1;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
		      *c == '-' || *c == '.'))
			return 1;
	for (size_t i = 0; special[i] && !boolean; i++)
		if (!strcasecmp(s, special[i]))
			return 1;
	return 0;
}

static void scalar(struct writer *w, const char *s, int boolean)
{
	yaml_event_t ev;
	yaml_scalar_style_t style = needs_quotes(s, boolean) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE;
	emit(w, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, style));
}

static void mapping_start(struct writer *w)
{
	yaml_event_t ev;
	emit(w, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
}

static void mapping_end(struct writer *w)
{
	yaml_event_t ev;
	emit(w, &ev, yaml_mapping_end_event_initialize(&ev));
}

static int boolean_opt(enum run_opt id)
{
	return id == RUN_OPT_JSON || id == RUN_OPT_QUIET || id == RUN_OPT_FLOW_CONTROL || id == RUN_OPT_RSS ||
	       id == RUN_OPT_INLINE_HEADER;
}

static void write_key(struct writer *w, const struct cfg_key *k, const struct run_opts *o)
{
	const char *name = strrchr(k->path, '.') ? strrchr(k->path, '.') + 1 : k->path;
	char buf[64];
	const char *val;
	yaml_event_t ev;
	switch (k->kind) {
	case KEY_VERSION:
		scalar(w, name, 0);
		scalar(w, "1", 0);
		break;
	case KEY_OPT:
	case KEY_WIRE:
		if (!(val = run_opt_text(o, k->opt, buf, sizeof(buf))))
			break;
		scalar(w, name, 0);
		scalar(w, val, boolean_opt(k->opt));
		break;
	case KEY_FLOW:
		scalar(w, name, 0);
		emit(w, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_FLOW_SEQUENCE_STYLE));
		for (unsigned i = 0; i < o->nflow; i++)
			scalar(w, o->flow[i], 0);
		emit(w, &ev, yaml_sequence_end_event_initialize(&ev));
		break;
	case KEY_SECTION: {
		size_t plen = strlen(k->path), present = 0;
		for (size_t i = 0; i < NKEYS; i++)
			if (!strncmp(keys[i].path, k->path, plen) && keys[i].path[plen] == '.')
				present += run_opt_text(o, keys[i].opt, buf, sizeof(buf)) != NULL;
		if (!present)
			break; /* e.g. metrics without an address */
		scalar(w, name, 0);
		mapping_start(w);
		for (size_t i = 0; i < NKEYS; i++)
			if (!strncmp(keys[i].path, k->path, plen) && keys[i].path[plen] == '.')
				write_key(w, &keys[i], o);
		mapping_end(w);
		break;
	}
	}
}

int config_write(FILE *f, const struct run_opts *o, const char *comment, char *why, size_t why_len)
{
	/* libyaml writes no comments: they go out before the document. */
	for (const char *line = comment; line && *line;) {
		size_t n = strcspn(line, "\n");
		fprintf(f, "# %.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
	if (comment)
		fprintf(f, "# Keys and values: docs/config.md. Run it with gnio run --config FILE.\n");
	fflush(f);

	struct writer w = {.failed = 0};
	yaml_event_t ev;
	if (!yaml_emitter_initialize(&w.em)) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	yaml_emitter_set_output_file(&w.em, f);
	yaml_emitter_set_unicode(&w.em, 1);
	yaml_emitter_set_width(&w.em, -1);
	emit(&w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(&w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
	mapping_start(&w);
	for (size_t i = 0; i < NKEYS; i++)
		if (!strchr(keys[i].path, '.'))
			write_key(&w, &keys[i], o);
	mapping_end(&w);
	emit(&w, &ev, yaml_document_end_event_initialize(&ev, 1));
	emit(&w, &ev, yaml_stream_end_event_initialize(&ev));
	if (!w.failed && !yaml_emitter_flush(&w.em))
		w.failed = 1;
	if (w.failed)
		snprintf(why, why_len, "YAML emitter: %s", w.em.problem ? w.em.problem : "write failed");
	yaml_emitter_delete(&w.em);
	if (!w.failed && (fflush(f) || ferror(f))) {
		snprintf(why, why_len, "write failed: %s", strerror(errno));
		return -1;
	}
	return w.failed ? -1 : 0;
}
