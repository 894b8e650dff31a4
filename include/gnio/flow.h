/* SPDX-License-Identifier: MIT */
/*
 * gnio/flow.h - steering rules on a wire (DOCA: a subset of doca_flow pipes:
 * match -> forward to a queue, an RSS set, the host stack, or drop).
 *
 * A gnio_flow is an ordered list of rules plus a default action, bound to one
 * wire (or to none, for classification only). The first rule that matches a
 * frame decides; frames no rule matches take the default action. Every rule
 * and the default count their hits.
 *
 * Rules can be added and removed while proxy threads classify: each proxy
 * owns a gnio_flow_reader, and the classify call takes no lock (the rule
 * table is copied on write and published with one atomic pointer; the old
 * table is freed after every reader has left it). docs/flow.md describes the
 * design, the rules file grammar and what each wire can express.
 *
 * Threading: create/destroy, rule add/remove, load, stats and reader
 * create/destroy may be called from any thread (they serialise on a mutex).
 * gnio_flow_classify on one reader runs on one thread at a time; different
 * readers run concurrently with each other and with the control calls.
 */
#ifndef GNIO_FLOW_H
#define GNIO_FLOW_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_dev;
struct gnio_devinfo;
struct gnio_flow;
struct gnio_flow_reader;

#define GNIO_FLOW_MAX_RULES 256      /* rules in one flow */
#define GNIO_FLOW_MAX_RSS_QUEUES 64  /* queues in one rss set */
#define GNIO_FLOW_RULE_DEFAULT 0xffffffffu /* rule id of the default action */

/* What happens to a matching frame. */
enum gnio_flow_action_type {
	GNIO_FLOW_ACTION_GNIO = 0, /* to gnio, on the queue the frame arrived on (the default default) */
	GNIO_FLOW_ACTION_QUEUE,    /* to gnio queue `queue` */
	GNIO_FLOW_ACTION_RSS,      /* to one of `queues`, by a Toeplitz hash of the 5-tuple */
	GNIO_FLOW_ACTION_CPU,      /* to host-datapath queue `queue` */
	GNIO_FLOW_ACTION_KERNEL,   /* to the host's own network stack */
	GNIO_FLOW_ACTION_DROP,     /* dropped and counted */
	GNIO_FLOW_ACTION_COUNT_    /* not an action: number of actions */
};

/* IP version narrowing. An L4 match such as UDP covers both unless narrowed. */
enum gnio_flow_ip {
	GNIO_FLOW_IP_ANY = 0,
	GNIO_FLOW_IP_V4,
	GNIO_FLOW_IP_V6,
};

/* Protocol match. UDP/TCP: IPv4 protocol or IPv6 next header (after
 * extension headers) 17/6. ICMP: IPv4 protocol 1. ICMP6: IPv6 next header 58.
 * ARP: an Ethernet/IPv4 ARP packet (EtherType 0x0806). */
enum gnio_flow_l4 {
	GNIO_FLOW_L4_ANY = 0,
	GNIO_FLOW_L4_UDP,
	GNIO_FLOW_L4_TCP,
	GNIO_FLOW_L4_ICMP,
	GNIO_FLOW_L4_ICMP6,
	GNIO_FLOW_L4_ARP,
};

/* Bits of gnio_flow_match.fields: which optional fields are set. */
#define GNIO_FLOW_MATCH_ETHERTYPE (1u << 0)
#define GNIO_FLOW_MATCH_VLAN      (1u << 1)
#define GNIO_FLOW_MATCH_SRC       (1u << 2)
#define GNIO_FLOW_MATCH_DST       (1u << 3)
#define GNIO_FLOW_MATCH_SPORT     (1u << 4)
#define GNIO_FLOW_MATCH_DPORT     (1u << 5)

/* An address prefix: IPv4 (family 4, addr[0..3]) or IPv6 (family 6). Bits
 * past `len` must be zero. For ARP, src is the sender and dst the target
 * protocol address. */
struct gnio_flow_prefix {
	uint8_t family;    /* 4 or 6 */
	uint8_t len;       /* prefix length in bits: 0..32 or 0..128 */
	uint8_t addr[16];  /* network byte order */
};

/* Everything set must match. A match with nothing set matches every frame. */
struct gnio_flow_match {
	uint32_t fields;           /* GNIO_FLOW_MATCH_* */
	enum gnio_flow_ip ip;
	enum gnio_flow_l4 l4;
	uint16_t ethertype;        /* EtherType after any VLAN tags */
	uint16_t vlan_id;          /* VID of the outer VLAN tag, 0..4095 */
	struct gnio_flow_prefix src, dst;
	uint16_t sport_min, sport_max; /* inclusive; UDP or TCP only */
	uint16_t dport_min, dport_max;
};

struct gnio_flow_action {
	enum gnio_flow_action_type type;
	uint16_t queue;            /* QUEUE, CPU */
	uint16_t num_queues;       /* RSS: 1..GNIO_FLOW_MAX_RSS_QUEUES */
	uint16_t queues[GNIO_FLOW_MAX_RSS_QUEUES]; /* RSS */
};

struct gnio_flow_rule {
	uint32_t struct_size;      /* sizeof(struct gnio_flow_rule), set by gnio_flow_rule_init */
	struct gnio_flow_match match;
	struct gnio_flow_action action;
};

/* Per-flow counters. frames == the sum of every current rule's hits +
 * default_hits + removed_hits, exactly, once the readers are idle. */
struct gnio_flow_stats {
	uint32_t struct_size;      /* set by the caller */
	uint64_t frames;           /* frames classified (by readers and by the wire's program) */
	uint64_t default_hits;     /* frames that took the default action */
	uint64_t removed_hits;     /* hits of rules removed or replaced so far */
	uint64_t xdp_frames;       /* of frames, those the wire's program classified in the kernel
				    * (afxdp: the XDP program; afpacket: the socket filter) */
	uint64_t xdp_no_socket;    /* XDP said gnio but no socket was bound to the queue: XDP_PASS */
	uint64_t reloads;          /* rule sets replaced (gnio_flow_replace_*) */
};

/* One frame to classify, and what to do with it. */
struct gnio_flow_frame {
	const uint8_t *data;
	uint32_t len;
};

struct gnio_flow_result {
	uint32_t rule_id;          /* matching rule, or GNIO_FLOW_RULE_DEFAULT */
	uint32_t hash;             /* Toeplitz hash (RSS only; 0 otherwise) */
	uint16_t queue;            /* QUEUE/RSS/GNIO: gnio queue; CPU: host queue; else 0 */
	uint8_t action;            /* enum gnio_flow_action_type */
	uint8_t reserved;
};

/* ------------------------------------------------------------ lifecycle -- */

/* Create an empty flow (no rules, default action GNIO) on dev, or on no wire
 * when dev is NULL (classification only; every action is accepted). One flow
 * per wire; the wire cannot be closed while its flow exists. On afxdp with
 * the XDP flow program built in, the rules are also installed in the
 * interface's XDP program, which then decides kernel/drop/gnio and counts.
 * Errors: INVALID_VALUE, IN_USE (the wire has a flow), NO_MEMORY. */
/* @since 0.1 flow_steering: Steering rules: match -> queue, rss, cpu, kernel, drop */
gnio_error_t gnio_flow_create(struct gnio_dev *dev, struct gnio_flow **flow);
/* Errors: INVALID_VALUE, BAD_STATE (readers still exist). */
gnio_error_t gnio_flow_destroy(struct gnio_flow *flow);

/* ---------------------------------------------------------------- rules -- */

/* Zero a rule, set struct_size, action GNIO. */
void gnio_flow_rule_init(struct gnio_flow_rule *rule);
/* Append a rule (it matches after every existing one). *rule_id names it
 * from then on; ids are never reused. Errors: INVALID_VALUE (a field is
 * wrong; gnio_last_error_msg() names it, e.g. "match.dport: range 90-80 is
 * reversed"), NOT_SUPPORTED (the wire cannot carry out the action; the
 * message says why), FULL (GNIO_FLOW_MAX_RULES rules). */
gnio_error_t gnio_flow_rule_add(struct gnio_flow *flow, const struct gnio_flow_rule *rule, uint32_t *rule_id);
/* Insert before the rule at position index (0 = first; the rule count =
 * append). Errors: as rule_add. */
gnio_error_t gnio_flow_rule_insert(struct gnio_flow *flow, uint32_t index, const struct gnio_flow_rule *rule,
				   uint32_t *rule_id);
/* Remove a rule. Returns once no reader can still match it; *final_hits
 * (optional) is its exact hit count, which moves to removed_hits.
 * Errors: INVALID_VALUE, NOT_FOUND. */
gnio_error_t gnio_flow_rule_remove(struct gnio_flow *flow, uint32_t rule_id, uint64_t *final_hits);
/* Set the action of frames no rule matches. Errors: INVALID_VALUE, NOT_SUPPORTED. */
gnio_error_t gnio_flow_set_default(struct gnio_flow *flow, const struct gnio_flow_action *action);
/* Errors: INVALID_VALUE. */
gnio_error_t gnio_flow_get_default(struct gnio_flow *flow, struct gnio_flow_action *action);

/* Number of rules. Errors: INVALID_VALUE. */
gnio_error_t gnio_flow_get_rule_count(struct gnio_flow *flow, uint32_t *count);
/* The rule at position index: its id and (optional) contents.
 * Errors: INVALID_VALUE, NOT_FOUND (index past the end). */
gnio_error_t gnio_flow_get_rule(struct gnio_flow *flow, uint32_t index, uint32_t *rule_id,
				struct gnio_flow_rule *rule);
/* Hits of a current rule, or of the default (GNIO_FLOW_RULE_DEFAULT).
 * Errors: INVALID_VALUE, NOT_FOUND. */
gnio_error_t gnio_flow_get_rule_hits(struct gnio_flow *flow, uint32_t rule_id, uint64_t *hits);
/* Errors: INVALID_VALUE. */
gnio_error_t gnio_flow_get_stats(struct gnio_flow *flow, struct gnio_flow_stats *stats);

/* ----------------------------------------------------------- rules text -- */

/* Add the rules of a rules file (one per line, `#` comments, `default -> A`;
 * grammar in docs/flow.md) after the existing ones, all or nothing: on any
 * error nothing changes. Errors: INVALID_VALUE with "FILE:LINE:COL: what was
 * expected" in gnio_last_error_msg(), NOT_SUPPORTED (an action the wire
 * cannot carry out; also with line and column), FULL, NOT_FOUND (file
 * missing), IO_FAILED. */
/* @since 0.1 flow_rules_file: Rules file: one rule per line, errors with line and column */
gnio_error_t gnio_flow_load_file(struct gnio_flow *flow, const char *path);
/* The same from a string; `name` (may be NULL) stands for the file name in
 * messages. */
gnio_error_t gnio_flow_load_string(struct gnio_flow *flow, const char *text, const char *name);
/* Put the rules of a rules file in place of all the flow's rules, at once
 * (a reload): every reader and the wire's program go from the old table to
 * the new one with no moment between, so every frame is classified by one
 * or the other and counted. The old rules' hits move to
 * gnio_flow_stats.removed_hits; the default stays unless the file sets one.
 * All or nothing, with the errors and messages of gnio_flow_load_file, and
 * FULL when the old and the new rules together exceed GNIO_FLOW_MAX_RULES
 * (both hold a counter for a moment). */
/* @since 0.2 flow_reload: Replace a flow's rules from a rules file or text in one step */
gnio_error_t gnio_flow_replace_file(struct gnio_flow *flow, const char *path);
gnio_error_t gnio_flow_replace_string(struct gnio_flow *flow, const char *text, const char *name);
/* Parse one rule line ("udp dport 53 -> kernel"). A `default -> A` line sets
 * *is_default and fills only rule->action. Errors: INVALID_VALUE
 * ("COL: ..." in gnio_last_error_msg()). */
gnio_error_t gnio_flow_rule_parse(const char *line, struct gnio_flow_rule *rule, int *is_default);
/* The canonical text of a rule ("ipv4 udp dport 4791-4800 -> rss 0,1,2,3");
 * parsing it gives the same rule. Returns the length it needed (snprintf). */
int gnio_flow_rule_format(const struct gnio_flow_rule *rule, char *buf, size_t len);
/* "queue 3", "rss 0,1", "kernel", ... Returns the length it needed. */
int gnio_flow_action_format(const struct gnio_flow_action *action, char *buf, size_t len);
/* "gnio", "queue", "rss", "cpu", "kernel", "drop"; "?" if unknown. */
const char *gnio_flow_action_name(enum gnio_flow_action_type type);

/* ------------------------------------------------------------ classify -- */

/* A per-thread handle for classifying (one per proxy thread). arrival_queue:
 * the wire queue the reader's frames come from (the GNIO action's queue).
 * When the wire's XDP program already classified and counted these frames
 * (afxdp with rules installed), the reader counts nothing, so no frame is
 * counted twice. Errors: INVALID_VALUE, NO_MEMORY. */
gnio_error_t gnio_flow_reader_create(struct gnio_flow *flow, uint16_t arrival_queue,
				     struct gnio_flow_reader **reader);
/* Its counts stay in the flow. Not while it classifies.
 * Errors: INVALID_VALUE. */
gnio_error_t gnio_flow_reader_destroy(struct gnio_flow_reader *reader);
/* Classify n frames: out[i] is frames[i]'s action and queue, and each hit is
 * counted. No allocation, no system call, no lock. Frames are parsed once and
 * never read past len (runts, truncated or lying headers just match less;
 * docs/flow.md says how each case is read). */
/* @since 0.1 flow_classify: Per-burst lock-free classification with per-rule hit counts */
void gnio_flow_classify(struct gnio_flow_reader *reader, const struct gnio_flow_frame *frames, unsigned n,
			struct gnio_flow_result *out);
/* The Toeplitz hash RSS uses (key and input layout in docs/flow.md), over
 * the frame's addresses and ports. For tests and tools. */
uint32_t gnio_flow_hash(const uint8_t *frame, uint32_t len);

/* ---------------------------------------------------------- capability -- */

/* Can the wire carry out this action? SUCCESS, or NOT_SUPPORTED with the
 * reason in gnio_last_error_msg(). info NULL = no wire (all supported).
 * Errors: INVALID_VALUE (unknown action), NOT_SUPPORTED. */
/* @since 0.1 flow_cap: Per-wire flow action capability query */
gnio_error_t gnio_flow_cap_is_action_supported(const struct gnio_devinfo *info,
					       enum gnio_flow_action_type action);
/* As above, and writes how the wire carries it out (or why it cannot) into
 * buf, e.g. "in the XDP program (XDP_PASS)". */
gnio_error_t gnio_flow_cap_describe_action(const struct gnio_devinfo *info, enum gnio_flow_action_type action,
					   char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_FLOW_H */
