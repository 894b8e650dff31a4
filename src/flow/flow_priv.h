/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow_priv.h - the gnio_flow object (private).
 *
 * Readers never lock. The control side (rule add/remove, stats) holds
 * flow->lock, builds a new struct flow_table, publishes it with one atomic
 * store, then waits until every reader has left the old table before
 * freeing it (docs/flow.md, "Changing rules under traffic").
 */
#ifndef GNIO_SRC_FLOW_FLOW_PRIV_H
#define GNIO_SRC_FLOW_FLOW_PRIV_H

#include <pthread.h>
#include <stdint.h>
#include "flow/flow_key.h"
#include "gnio/flow.h"

_Static_assert(FK_MAX_RULES == GNIO_FLOW_MAX_RULES, "flow_key.h and flow.h disagree on the rule limit");
_Static_assert(FK_ACT_DROP == GNIO_FLOW_ACTION_DROP && FK_ACT_KERNEL == GNIO_FLOW_ACTION_KERNEL &&
		       FK_ACT_RSS == GNIO_FLOW_ACTION_RSS && FK_ACT_GNIO == GNIO_FLOW_ACTION_GNIO &&
		       FK_ACT_QUEUE == GNIO_FLOW_ACTION_QUEUE && FK_ACT_CPU == GNIO_FLOW_ACTION_CPU,
	       "flow_key.h action numbers must be enum gnio_flow_action_type's");

/* Immutable once published. */
struct flow_table {
	struct fk_table kt;      /* rules in match order + default action */
	uint16_t default_queue;  /* default QUEUE/CPU */
	uint16_t default_nrss;
	uint16_t default_rss[GNIO_FLOW_MAX_RSS_QUEUES];
	uint16_t nrss[FK_MAX_RULES];                          /* by position */
	uint16_t rss[FK_MAX_RULES][GNIO_FLOW_MAX_RSS_QUEUES]; /* by position */
	uint32_t ids[FK_MAX_RULES];                           /* rule id by position */
};

/* A reader's counters are written only by the reader (relaxed atomic stores)
 * and read by the control side (relaxed atomic loads after the grace period
 * or for a live snapshot). */
struct gnio_flow_reader {
	struct gnio_flow *flow;
	struct gnio_flow_reader *next;
	uint16_t arrival_queue;
	int counts;                     /* 0: the wire's XDP program counts these frames */
	uint64_t active;                /* generation seen on entry; 0 = not classifying */
	uint64_t frames;
	uint64_t hits[FK_SLOT_DEFAULT + 1]; /* by counter slot */
};

/* Control-side view of one rule. */
struct flow_entry {
	uint32_t id;
	uint16_t slot;
	uint64_t base;                  /* slot count when the rule was added (slots are reused) */
	struct gnio_flow_rule rule;
};

/* The wire side of a flow whose rules also run in the kernel: the afxdp
 * wire's XDP program (src/eth/wire/afxdp.c), the afpacket wire's socket
 * filter (src/eth/wire/afpacket.c). */
struct flow_wire_hooks {
	/* Install t (NULL: no rules) in the wire's program; returns once the
	 * program can no longer run with the previous table. */
	gnio_error_t (*publish)(void *wire, const struct fk_table *t);
	/* Sum over CPUs of each counter slot (FK_NUM_SLOTS values). */
	gnio_error_t (*read_hits)(void *wire, uint64_t *slots);
	/* 1: the program classifies and counts every frame, so the proxies'
	 * readers count nothing; 0: the proxies count (NULL: always 1). */
	int (*counts)(void *wire);
};

struct gnio_flow {
	struct gnio_dev *dev;           /* NULL: no wire */
	pthread_mutex_t lock;
	struct flow_table *table;       /* published (atomic pointer) */
	uint64_t gen;                   /* publication generation, starts at 1 */
	struct gnio_flow_reader *readers;
	struct flow_entry entries[FK_MAX_RULES]; /* in match order */
	uint32_t nentries;
	uint32_t next_id;
	uint8_t slot_used[FK_MAX_RULES];
	struct gnio_flow_action default_action;
	/* counts of destroyed readers, by slot */
	uint64_t retired[FK_SLOT_DEFAULT + 1];
	uint64_t retired_frames;
	uint64_t removed_hits;
	uint64_t reloads;               /* successful gnio_flow_replace_* */
	/* afxdp, afpacket: the wire's program classifies and counts */
	const struct flow_wire_hooks *hooks;
	void *wire;
	uint64_t xdp[FK_NUM_SLOTS];     /* last values read */
	uint64_t xdp_base[FK_NUM_SLOTS]; /* values when the flow was created */
};

/* flow_rule.c: check a public rule/action and compile it. On error the
 * message names the field ("match.dport: ..."); *field (optional) gets the
 * field's name for the rules-file parser. */
gnio_error_t flow_rule_check(const struct gnio_flow_rule *rule, const char **field);
gnio_error_t flow_action_check(const struct gnio_flow_action *a, const char **field);
void flow_rule_compile(const struct gnio_flow_rule *rule, uint16_t slot, struct fk_rule *out);
/* Copy a caller's rule of any struct_size the library accepts into a full one. */
gnio_error_t flow_rule_import(const struct gnio_flow_rule *in, struct gnio_flow_rule *out);

/* flow_rss.c (flow_rss_init builds the hash tables; call it before the others) */
void flow_rss_init(void);
uint32_t flow_toeplitz(const uint8_t *in, unsigned len);
uint32_t flow_key_hash(const struct fk_key *k, const uint8_t *frame, uint32_t len);

/* flow.c: add a batch of rules (all or nothing) and optionally set the
 * default, as one publication. On failure *bad is the index of the rule (or
 * n for the default) that was refused. */
gnio_error_t flow_add_batch(struct gnio_flow *flow, const struct gnio_flow_rule *rules, uint32_t n,
			    const struct gnio_flow_action *dflt, uint32_t *bad);

/* flow.c: replace every rule with these and optionally set the default, as
 * one publication; the old rules' hits go to removed_hits. */
gnio_error_t flow_replace_batch(struct gnio_flow *flow, const struct gnio_flow_rule *rules, uint32_t n,
				const struct gnio_flow_action *dflt, uint32_t *bad);

/* flow_cap.c: NOT_SUPPORTED with the reason when dev cannot carry out type. */
gnio_error_t flow_cap_check(const struct gnio_dev *dev, enum gnio_flow_action_type type);

/* afxdp wire hooks; NULL when the afxdp wire or the XDP flow program is not
 * built in. */
const struct flow_wire_hooks *gnio_afxdp_flow_hooks(void);
/* afpacket wire hooks; NULL when the socket filter is not built in. */
const struct flow_wire_hooks *gnio_afpacket_flow_hooks(void);

#endif
