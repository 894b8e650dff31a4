/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/flowreport.h - how the CLI reports a gnio_flow: rules[] and
 * default in JSON (share/gnio/schemas/flow.schema.json), and a text table.
 * Used by `gnio flow`, `gnio sink --flow` and `gnio run --flow`.
 */
#ifndef GNIO_TOOLS_FLOWREPORT_H
#define GNIO_TOOLS_FLOWREPORT_H

#include <stdio.h>
#include "gnio/flow.h"
#include "json.h"

/* The rules, their hits and the default at one moment, so that a report
 * can be written after the flow is gone (gnio run reports after teardown). */
struct flowreport_rule {
	uint32_t id;
	char text[320];  /* canonical rule text; the default's is "default -> A" */
	const char *action;
	uint64_t hits;
};
struct flowreport {
	uint32_t nrules;
	struct flowreport_rule rules[GNIO_FLOW_MAX_RULES];
	struct flowreport_rule dflt;
	struct gnio_flow_stats stats; /* frames, removed_hits, reloads, ... */
};

void flowreport_take(struct flowreport *fr, struct gnio_flow *flow);
/* "rules": [{index, id, rule, action, hits}], "default": {rule, action, hits} */
void flowreport_json_of(struct json *j, const struct flowreport *fr);
void flowreport_json(struct json *j, struct gnio_flow *flow);
/* One line per rule (index, hits when with_hits, canonical text), then the default. */
void flowreport_print(FILE *f, struct gnio_flow *flow, int with_hits);

#endif
