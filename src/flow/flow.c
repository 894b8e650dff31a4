/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow.c - the gnio_flow object: rules, readers, publication and
 * counting.
 *
 * Publication (copy on write): a change builds a whole new table, stores its
 * pointer (seq_cst), bumps the generation, then waits for every reader that
 * may still hold the old table before freeing it. A reader entering classify
 * stores the generation it saw (seq_cst) and then loads the table pointer;
 * seq_cst on both sides means a reader the writer does not wait for is sure
 * to load the new pointer (docs/flow.md has the argument).
 *
 * Counting: a reader counts hits per counter slot in its own array, with no
 * atomic read-modify-write. A rule owns one slot while it exists; a slot is
 * reused only after the rule that held it is gone from every table, and a new
 * rule records the slot's count at its birth (entry.base), so its hits are
 * count(slot) - base. Destroyed readers fold their counts into `retired`.
 * On afxdp with the XDP flow program, and on afpacket with the socket
 * filter, the program counts into a per-CPU map with the same slots, and the
 * proxy readers count nothing.
 */
#include <sched.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "eth/dev_priv.h"
#include "flow/flow_priv.h"

#define COMP "flow"

/* ------------------------------------------------------------ counting -- */

static uint64_t ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Refresh the XDP program's counters (control side, under the lock). */
static void xdp_refresh(struct gnio_flow *f)
{
	uint64_t now[FK_NUM_SLOTS];

	if (f->hooks && f->hooks->read_hits(f->wire, now) == GNIO_SUCCESS)
		memcpy(f->xdp, now, sizeof(now));
}

/* Everything ever counted in slot s by this flow (readers, retired readers,
 * the XDP program since the flow was created). */
static uint64_t slot_count(struct gnio_flow *f, unsigned s)
{
	uint64_t n = f->retired[s] + (f->xdp[s] - f->xdp_base[s]);

	for (struct gnio_flow_reader *r = f->readers; r; r = r->next)
		n += ld(&r->hits[s]);
	return n;
}

static uint64_t frames_count(struct gnio_flow *f)
{
	uint64_t n = f->retired_frames + (f->xdp[FK_SLOT_FRAMES] - f->xdp_base[FK_SLOT_FRAMES]);

	for (struct gnio_flow_reader *r = f->readers; r; r = r->next)
		n += ld(&r->frames);
	return n;
}

/* --------------------------------------------------------- publication -- */

static struct flow_table *table_build(const struct gnio_flow *f)
{
	struct flow_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kt.count = f->nentries;
	for (uint32_t i = 0; i < f->nentries; i++) {
		const struct flow_entry *e = &f->entries[i];

		flow_rule_compile(&e->rule, e->slot, &t->kt.rules[i]);
		t->ids[i] = e->id;
		if (e->rule.action.type == GNIO_FLOW_ACTION_RSS) {
			t->nrss[i] = e->rule.action.num_queues;
			memcpy(t->rss[i], e->rule.action.queues, sizeof(uint16_t) * t->nrss[i]);
		}
	}
	t->kt.default_action = (uint8_t)f->default_action.type;
	t->default_queue = f->default_action.queue;
	if (f->default_action.type == GNIO_FLOW_ACTION_RSS) {
		t->default_nrss = f->default_action.num_queues;
		memcpy(t->default_rss, f->default_action.queues, sizeof(uint16_t) * t->default_nrss);
	}
	return t;
}

/* Wait until no reader can still be reading a table older than generation
 * g. A reader leaves within one burst unless its thread was preempted in
 * the middle of it; then sleeping (rather than spinning) lets it run. */
static void wait_readers(struct gnio_flow *f, uint64_t g)
{
	for (struct gnio_flow_reader *r = f->readers; r; r = r->next) {
		unsigned spins = 0;
		uint64_t a;

		/* pairs with the reader's seq_cst store on entry and its
		 * release store of 0 on exit */
		while ((a = __atomic_load_n(&r->active, __ATOMIC_SEQ_CST)) != 0 && a < g) {
			if (++spins < 64) {
				sched_yield();
			} else {
				struct timespec ts = {0, 20000};

				nanosleep(&ts, NULL);
			}
		}
	}
}

/* Build and publish the table of the current entries; on failure nothing
 * changed for the readers. Under the lock. */
static gnio_error_t publish(struct gnio_flow *f)
{
	struct flow_table *t = table_build(f), *old;
	uint64_t g;

	if (!t)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory for a rule table");
	if (f->hooks) {
		gnio_error_t err = f->hooks->publish(f->wire, &t->kt);

		if (err) {
			free(t);
			return err;
		}
	}
	old = f->table;
	__atomic_store_n(&f->table, t, __ATOMIC_SEQ_CST);
	g = f->gen + 1;
	__atomic_store_n(&f->gen, g, __ATOMIC_SEQ_CST);
	wait_readers(f, g);
	free(old);
	return GNIO_SUCCESS;
}

/* ------------------------------------------------------------ lifecycle -- */

gnio_error_t gnio_flow_create(struct gnio_dev *dev, struct gnio_flow **flow)
{
	struct gnio_flow *f;
	gnio_error_t err;

	if (!flow)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "create: NULL flow pointer");
	flow_rss_init();
	f = calloc(1, sizeof(*f));
	if (!f)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	pthread_mutex_init(&f->lock, NULL);
	f->dev = dev;
	f->gen = 1;
	f->next_id = 1;
	f->default_action.type = GNIO_FLOW_ACTION_GNIO;
	if (dev) {
		pthread_mutex_lock(&dev->lock);
		if (dev->flow) {
			pthread_mutex_unlock(&dev->lock);
			pthread_mutex_destroy(&f->lock);
			free(f);
			return gnio_fail(GNIO_ERROR_IN_USE, COMP, "wire %s already has a flow", dev->spec);
		}
		if (dev->rx_started) {
			unsigned n = dev->rx_started;
			pthread_mutex_unlock(&dev->lock);
			pthread_mutex_destroy(&f->lock);
			free(f);
			return gnio_fail(GNIO_ERROR_BAD_STATE, COMP,
					 "wire %s has %u started GPU RX queue(s); create the flow before starting them "
					 "(their proxies take it up at start)", dev->spec, n);
		}
		dev->flow = f;
		pthread_mutex_unlock(&dev->lock);
#ifdef GNIO_HAVE_AFXDP
		if (!strcmp(dev->kind, "afxdp")) {
			f->hooks = gnio_afxdp_flow_hooks();
			f->wire = dev->wire;
		}
#endif
#ifdef GNIO_HAVE_AFPACKET
		if (!strcmp(dev->kind, "afpacket")) {
			f->hooks = gnio_afpacket_flow_hooks();
			f->wire = dev->wire;
		}
#endif
	}
	xdp_refresh(f);
	memcpy(f->xdp_base, f->xdp, sizeof(f->xdp));
	pthread_mutex_lock(&f->lock);
	err = publish(f);
	pthread_mutex_unlock(&f->lock);
	if (err) {
		gnio_flow_destroy(f);
		return err;
	}
	*flow = f;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_flow_destroy(struct gnio_flow *flow)
{
	if (!flow)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "destroy: NULL flow");
	pthread_mutex_lock(&flow->lock);
	if (flow->readers) {
		pthread_mutex_unlock(&flow->lock);
		return gnio_fail(GNIO_ERROR_BAD_STATE, COMP, "destroy: the flow still has readers; destroy them first");
	}
	if (flow->hooks)
		flow->hooks->publish(flow->wire, NULL); /* back to the plain redirect */
	pthread_mutex_unlock(&flow->lock);
	if (flow->dev) {
		pthread_mutex_lock(&flow->dev->lock);
		flow->dev->flow = NULL;
		pthread_mutex_unlock(&flow->dev->lock);
	}
	pthread_mutex_destroy(&flow->lock);
	free(flow->table);
	free(flow);
	return GNIO_SUCCESS;
}

/* ---------------------------------------------------------------- rules -- */

static int find_entry(const struct gnio_flow *f, uint32_t id)
{
	for (uint32_t i = 0; i < f->nentries; i++)
		if (f->entries[i].id == id)
			return (int)i;
	return -1;
}

static int free_slot(const struct gnio_flow *f)
{
	for (int s = 0; s < FK_MAX_RULES; s++)
		if (!f->slot_used[s])
			return s;
	return -1;
}

/* A new entry for rule: a fresh id, and a free counter slot whose count at
 * this moment is the rule's base (slots are reused). Under the lock, with
 * xdp_refresh done. */
static void entry_init(struct gnio_flow *f, struct flow_entry *e, const struct gnio_flow_rule *rule)
{
	int s = free_slot(f);

	e->id = f->next_id++;
	e->slot = (uint16_t)s;
	e->base = slot_count(f, (unsigned)s);
	e->rule = *rule;
	f->slot_used[s] = 1;
}

/* Check one rule against the fields and the wire. */
static gnio_error_t check_rule(struct gnio_flow *f, const struct gnio_flow_rule *in, struct gnio_flow_rule *out)
{
	GNIO_CHECK(flow_rule_import(in, out));
	GNIO_CHECK(flow_rule_check(out, NULL));
	return flow_cap_check(f->dev, out->action.type);
}

static gnio_error_t check_default(struct gnio_flow *f, const struct gnio_flow_action *a)
{
	GNIO_CHECK(flow_action_check(a, NULL));
	return flow_cap_check(f->dev, a->type);
}

/* Insert n checked rules at index, then publish; undone on failure. Under
 * the lock. */
static gnio_error_t insert_and_publish(struct gnio_flow *f, uint32_t index, const struct gnio_flow_rule *rules,
				       uint32_t n, const struct gnio_flow_action *dflt, uint32_t *ids)
{
	struct gnio_flow_action old_default = f->default_action;
	gnio_error_t err;

	if (f->nentries + n > FK_MAX_RULES)
		return gnio_fail(GNIO_ERROR_FULL, COMP, "a flow holds at most %d rules (has %u, adding %u)",
				 FK_MAX_RULES, f->nentries, n);
	xdp_refresh(f);
	memmove(&f->entries[index + n], &f->entries[index], sizeof(f->entries[0]) * (f->nentries - index));
	for (uint32_t i = 0; i < n; i++) {
		entry_init(f, &f->entries[index + i], &rules[i]);
		if (ids)
			ids[i] = f->entries[index + i].id;
	}
	f->nentries += n;
	if (dflt)
		f->default_action = *dflt;
	err = publish(f);
	if (err) {
		for (uint32_t i = 0; i < n; i++)
			f->slot_used[f->entries[index + i].slot] = 0;
		memmove(&f->entries[index], &f->entries[index + n],
			sizeof(f->entries[0]) * (f->nentries - index - n));
		f->nentries -= n;
		f->default_action = old_default;
	}
	return err;
}

gnio_error_t gnio_flow_rule_insert(struct gnio_flow *flow, uint32_t index, const struct gnio_flow_rule *rule,
				   uint32_t *rule_id)
{
	struct gnio_flow_rule r;
	gnio_error_t err;

	if (!flow || !rule)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "rule add: NULL argument");
	GNIO_CHECK(check_rule(flow, rule, &r));
	pthread_mutex_lock(&flow->lock);
	if (index > flow->nentries) {
		uint32_t n = flow->nentries;

		pthread_mutex_unlock(&flow->lock);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "rule insert: index %u is past the %u rules", index, n);
	}
	err = insert_and_publish(flow, index, &r, 1, NULL, rule_id);
	pthread_mutex_unlock(&flow->lock);
	return err;
}

gnio_error_t gnio_flow_rule_add(struct gnio_flow *flow, const struct gnio_flow_rule *rule, uint32_t *rule_id)
{
	struct gnio_flow_rule r;
	gnio_error_t err;

	if (!flow || !rule)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "rule add: NULL argument");
	GNIO_CHECK(check_rule(flow, rule, &r));
	pthread_mutex_lock(&flow->lock);
	err = insert_and_publish(flow, flow->nentries, &r, 1, NULL, rule_id);
	pthread_mutex_unlock(&flow->lock);
	return err;
}

/* The wire can carry out every rule's action and the default's; on failure
 * *bad is the index of the rule (or n for the default). */
static gnio_error_t check_batch(struct gnio_flow *flow, const struct gnio_flow_rule *rules, uint32_t n,
				const struct gnio_flow_action *dflt, uint32_t *bad)
{
	gnio_error_t err;

	*bad = 0;
	for (uint32_t i = 0; i < n; i++) {
		/* rules come from the parser: already full-size and checked */
		err = flow_cap_check(flow->dev, rules[i].action.type);
		if (err) {
			*bad = i;
			return err;
		}
	}
	if (dflt) {
		err = check_default(flow, dflt);
		if (err) {
			*bad = n;
			return err;
		}
	}
	return GNIO_SUCCESS;
}

gnio_error_t flow_add_batch(struct gnio_flow *flow, const struct gnio_flow_rule *rules, uint32_t n,
			    const struct gnio_flow_action *dflt, uint32_t *bad)
{
	gnio_error_t err;

	GNIO_CHECK(check_batch(flow, rules, n, dflt, bad));
	pthread_mutex_lock(&flow->lock);
	err = insert_and_publish(flow, flow->nentries, rules, n, dflt, NULL);
	pthread_mutex_unlock(&flow->lock);
	return err;
}

/* The rules of a reload take fresh slots beside the old rules', so that a
 * frame a reader classifies with the old table in the moment of the swap
 * still counts for the old rule: the slots of the old rules are freed once
 * publish() has waited for every reader to leave the old table. */
gnio_error_t flow_replace_batch(struct gnio_flow *flow, const struct gnio_flow_rule *rules, uint32_t n,
				const struct gnio_flow_action *dflt, uint32_t *bad)
{
	struct flow_entry *old;
	uint32_t nold;
	gnio_error_t err;

	GNIO_CHECK(check_batch(flow, rules, n, dflt, bad));
	old = malloc(sizeof(*old) * FK_MAX_RULES);
	if (!old)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	pthread_mutex_lock(&flow->lock);
	nold = flow->nentries;
	if (nold + n > FK_MAX_RULES) {
		pthread_mutex_unlock(&flow->lock);
		free(old);
		return gnio_fail(GNIO_ERROR_FULL, COMP,
				 "a reload holds the old and the new rules at once for a moment: %u + %u is more than %d",
				 nold, n, FK_MAX_RULES);
	}
	memcpy(old, flow->entries, sizeof(*old) * nold);
	/* the new rules after the old ones, their slots taken; then the old
	 * ones out of the table: one publication */
	xdp_refresh(flow);
	for (uint32_t i = 0; i < n; i++)
		entry_init(flow, &flow->entries[nold + i], &rules[i]);
	memmove(&flow->entries[0], &flow->entries[nold], sizeof(flow->entries[0]) * n);
	flow->nentries = n;
	struct gnio_flow_action old_default = flow->default_action;
	if (dflt)
		flow->default_action = *dflt;
	err = publish(flow);
	if (err) {
		for (uint32_t i = 0; i < n; i++)
			flow->slot_used[flow->entries[i].slot] = 0;
		memcpy(flow->entries, old, sizeof(*old) * nold);
		flow->nentries = nold;
		flow->default_action = old_default;
	} else {
		/* no reader and no kernel program can reach the old slots: final */
		xdp_refresh(flow);
		for (uint32_t i = 0; i < nold; i++) {
			flow->removed_hits += slot_count(flow, old[i].slot) - old[i].base;
			flow->slot_used[old[i].slot] = 0;
		}
		flow->reloads++;
	}
	pthread_mutex_unlock(&flow->lock);
	free(old);
	return err;
}

gnio_error_t gnio_flow_rule_remove(struct gnio_flow *flow, uint32_t rule_id, uint64_t *final_hits)
{
	struct flow_entry gone;
	gnio_error_t err;
	uint64_t hits;
	int i;

	if (!flow)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "rule remove: NULL flow");
	pthread_mutex_lock(&flow->lock);
	i = find_entry(flow, rule_id);
	if (i < 0) {
		pthread_mutex_unlock(&flow->lock);
		return gnio_fail(GNIO_ERROR_NOT_FOUND, COMP, "rule remove: no rule with id %u", rule_id);
	}
	gone = flow->entries[i];
	memmove(&flow->entries[i], &flow->entries[i + 1], sizeof(flow->entries[0]) * (flow->nentries - (uint32_t)i - 1));
	flow->nentries--;
	err = publish(flow);
	if (err) {
		memmove(&flow->entries[i + 1], &flow->entries[i], sizeof(flow->entries[0]) * (flow->nentries - (uint32_t)i));
		flow->entries[i] = gone;
		flow->nentries++;
		pthread_mutex_unlock(&flow->lock);
		return err;
	}
	/* no reader and no XDP program can reach the slot any more: final */
	xdp_refresh(flow);
	hits = slot_count(flow, gone.slot) - gone.base;
	flow->removed_hits += hits;
	flow->slot_used[gone.slot] = 0;
	pthread_mutex_unlock(&flow->lock);
	if (final_hits)
		*final_hits = hits;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_flow_set_default(struct gnio_flow *flow, const struct gnio_flow_action *action)
{
	struct gnio_flow_action old;
	gnio_error_t err;

	if (!flow || !action)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "set_default: NULL argument");
	GNIO_CHECK(check_default(flow, action));
	pthread_mutex_lock(&flow->lock);
	old = flow->default_action;
	flow->default_action = *action;
	err = publish(flow);
	if (err)
		flow->default_action = old;
	pthread_mutex_unlock(&flow->lock);
	return err;
}

gnio_error_t gnio_flow_get_default(struct gnio_flow *flow, struct gnio_flow_action *action)
{
	if (!flow || !action)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "get_default: NULL argument");
	pthread_mutex_lock(&flow->lock);
	*action = flow->default_action;
	pthread_mutex_unlock(&flow->lock);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_flow_get_rule_count(struct gnio_flow *flow, uint32_t *count)
{
	if (!flow || !count)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "get_rule_count: NULL argument");
	pthread_mutex_lock(&flow->lock);
	*count = flow->nentries;
	pthread_mutex_unlock(&flow->lock);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_flow_get_rule(struct gnio_flow *flow, uint32_t index, uint32_t *rule_id,
				struct gnio_flow_rule *rule)
{
	if (!flow || !rule_id)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "get_rule: NULL argument");
	pthread_mutex_lock(&flow->lock);
	if (index >= flow->nentries) {
		uint32_t n = flow->nentries;

		pthread_mutex_unlock(&flow->lock);
		return gnio_fail(GNIO_ERROR_NOT_FOUND, COMP, "get_rule: index %u, the flow has %u rules", index, n);
	}
	*rule_id = flow->entries[index].id;
	if (rule)
		*rule = flow->entries[index].rule;
	pthread_mutex_unlock(&flow->lock);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_flow_get_rule_hits(struct gnio_flow *flow, uint32_t rule_id, uint64_t *hits)
{
	int i;

	if (!flow || !hits)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "get_rule_hits: NULL argument");
	pthread_mutex_lock(&flow->lock);
	xdp_refresh(flow);
	if (rule_id == GNIO_FLOW_RULE_DEFAULT) {
		*hits = slot_count(flow, FK_SLOT_DEFAULT);
	} else if ((i = find_entry(flow, rule_id)) >= 0) {
		*hits = slot_count(flow, flow->entries[i].slot) - flow->entries[i].base;
	} else {
		pthread_mutex_unlock(&flow->lock);
		return gnio_fail(GNIO_ERROR_NOT_FOUND, COMP, "get_rule_hits: no rule with id %u", rule_id);
	}
	pthread_mutex_unlock(&flow->lock);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_flow_get_stats(struct gnio_flow *flow, struct gnio_flow_stats *stats)
{
	struct gnio_flow_stats s;
	uint32_t n;

	if (!flow || !stats)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "get_stats: NULL argument");
	memset(&s, 0, sizeof(s));
	pthread_mutex_lock(&flow->lock);
	xdp_refresh(flow);
	s.frames = frames_count(flow);
	s.default_hits = slot_count(flow, FK_SLOT_DEFAULT);
	s.removed_hits = flow->removed_hits;
	s.xdp_frames = flow->xdp[FK_SLOT_FRAMES] - flow->xdp_base[FK_SLOT_FRAMES];
	s.xdp_no_socket = flow->xdp[FK_SLOT_NO_SOCKET] - flow->xdp_base[FK_SLOT_NO_SOCKET];
	s.reloads = flow->reloads;
	pthread_mutex_unlock(&flow->lock);
	/* copy no more than the caller's struct holds (older callers) */
	n = stats->struct_size && stats->struct_size < sizeof(s) ? stats->struct_size : (uint32_t)sizeof(s);
	s.struct_size = n;
	memcpy(stats, &s, n);
	return GNIO_SUCCESS;
}

/* -------------------------------------------------------------- readers -- */

gnio_error_t gnio_flow_reader_create(struct gnio_flow *flow, uint16_t arrival_queue,
				     struct gnio_flow_reader **reader)
{
	struct gnio_flow_reader *r;

	if (!flow || !reader)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "reader_create: NULL argument");
	r = calloc(1, sizeof(*r));
	if (!r)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	r->flow = flow;
	r->arrival_queue = arrival_queue;
	/* the wire's program counted these frames already */
	r->counts = !(flow->hooks && (!flow->hooks->counts || flow->hooks->counts(flow->wire)));
	pthread_mutex_lock(&flow->lock);
	r->next = flow->readers;
	flow->readers = r;
	pthread_mutex_unlock(&flow->lock);
	*reader = r;
	return GNIO_SUCCESS;
}

gnio_error_t gnio_flow_reader_destroy(struct gnio_flow_reader *reader)
{
	struct gnio_flow *f;

	if (!reader)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "reader_destroy: NULL reader");
	f = reader->flow;
	pthread_mutex_lock(&f->lock);
	for (struct gnio_flow_reader **p = &f->readers; *p; p = &(*p)->next)
		if (*p == reader) {
			*p = reader->next;
			break;
		}
	for (unsigned s = 0; s <= FK_SLOT_DEFAULT; s++)
		f->retired[s] += ld(&reader->hits[s]);
	f->retired_frames += ld(&reader->frames);
	pthread_mutex_unlock(&f->lock);
	free(reader);
	return GNIO_SUCCESS;
}

/* ------------------------------------------------------------- classify -- */

static inline void bump(uint64_t *c)
{
	/* single writer: a relaxed load and store, no locked instruction */
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

void gnio_flow_classify(struct gnio_flow_reader *r, const struct gnio_flow_frame *frames, unsigned n,
			struct gnio_flow_result *out)
{
	static const uint8_t empty[1];
	struct gnio_flow *f = r->flow;
	const struct flow_table *t;
	uint64_t g;

	/* Enter: announce the generation, then read the table (both seq_cst:
	 * see wait_readers). */
	g = __atomic_load_n(&f->gen, __ATOMIC_SEQ_CST);
	__atomic_store_n(&r->active, g, __ATOMIC_SEQ_CST);
	t = __atomic_load_n(&f->table, __ATOMIC_SEQ_CST);

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *d = frames[i].data ? frames[i].data : empty;
		uint32_t len = frames[i].data ? frames[i].len : 0;
		struct gnio_flow_result *res = &out[i];
		const uint16_t *rss;
		unsigned nrss, slot, j;
		struct fk_key k;
		uint8_t act;

		fk_parse(d, d + len, &k);
		for (j = 0; j < t->kt.count; j++)
			if (fk_match(&t->kt.rules[j], &k))
				break;
		if (j < t->kt.count) {
			act = t->kt.rules[j].action;
			slot = t->kt.rules[j].slot;
			res->rule_id = t->ids[j];
			res->queue = t->kt.rules[j].queue;
			rss = t->rss[j];
			nrss = t->nrss[j];
		} else {
			act = t->kt.default_action;
			slot = FK_SLOT_DEFAULT;
			res->rule_id = GNIO_FLOW_RULE_DEFAULT;
			res->queue = t->default_queue;
			rss = t->default_rss;
			nrss = t->default_nrss;
		}
		res->action = act;
		res->reserved = 0;
		res->hash = 0;
		if (act == FK_ACT_RSS) {
			res->hash = flow_key_hash(&k, d, len);
			/* multiply-shift maps the 32-bit hash onto nrss queues */
			res->queue = rss[((uint64_t)res->hash * nrss) >> 32];
		} else if (act == FK_ACT_GNIO) {
			res->queue = r->arrival_queue;
		} else if (act == FK_ACT_KERNEL || act == FK_ACT_DROP) {
			res->queue = 0;
		}
		if (r->counts) {
			bump(&r->hits[slot]);
			bump(&r->frames);
		}
	}
	/* Leave: release, so the writer that sees 0 also sees our reads done. */
	__atomic_store_n(&r->active, 0, __ATOMIC_RELEASE);
}
