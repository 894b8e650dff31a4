/* SPDX-License-Identifier: MIT */
/* tools/gnio/flowreport.c - rules[] and default of a gnio_flow, in JSON and as text. */
#include <stdlib.h>
#include <string.h>

#include "flowreport.h"

void flowreport_take(struct flowreport *fr, struct gnio_flow *flow)
{
	struct gnio_flow_action dflt;
	uint32_t n = 0;

	memset(fr, 0, sizeof(*fr));
	gnio_flow_get_rule_count(flow, &n);
	for (uint32_t i = 0; i < n && fr->nrules < GNIO_FLOW_MAX_RULES; i++) {
		struct flowreport_rule *o = &fr->rules[fr->nrules];
		struct gnio_flow_rule r;

		if (gnio_flow_get_rule(flow, i, &o->id, &r) || gnio_flow_get_rule_hits(flow, o->id, &o->hits))
			continue;
		gnio_flow_rule_format(&r, o->text, sizeof(o->text));
		o->action = gnio_flow_action_name(r.action.type);
		fr->nrules++;
	}
	gnio_flow_get_default(flow, &dflt);
	memcpy(fr->dflt.text, "default -> ", 11);
	gnio_flow_action_format(&dflt, fr->dflt.text + 11, sizeof(fr->dflt.text) - 11);
	fr->dflt.action = gnio_flow_action_name(dflt.type);
	fr->dflt.id = GNIO_FLOW_RULE_DEFAULT;
	gnio_flow_get_rule_hits(flow, GNIO_FLOW_RULE_DEFAULT, &fr->dflt.hits);
	fr->stats.struct_size = sizeof(fr->stats);
	gnio_flow_get_stats(flow, &fr->stats);
}

void flowreport_json_of(struct json *j, const struct flowreport *fr)
{
	json_arr_begin(j, "rules");
	for (uint32_t i = 0; i < fr->nrules; i++) {
		const struct flowreport_rule *r = &fr->rules[i];
		json_obj_begin(j, NULL);
		json_u64(j, "index", i);
		json_u64(j, "id", r->id);
		json_str(j, "rule", r->text);
		json_str(j, "action", r->action);
		json_u64(j, "hits", r->hits);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_begin(j, "default");
	json_str(j, "rule", fr->dflt.text);
	json_str(j, "action", fr->dflt.action);
	json_u64(j, "hits", fr->dflt.hits);
	json_obj_end(j);
}

void flowreport_json(struct json *j, struct gnio_flow *flow)
{
	struct flowreport *fr = malloc(sizeof(*fr));
	if (!fr)
		return;
	flowreport_take(fr, flow);
	flowreport_json_of(j, fr);
	free(fr);
}

void flowreport_print(FILE *f, struct gnio_flow *flow, int with_hits)
{
	struct flowreport *fr = malloc(sizeof(*fr));
	if (!fr)
		return;
	flowreport_take(fr, flow);
	for (uint32_t i = 0; i < fr->nrules; i++) {
		if (with_hits)
			fprintf(f, "  %4u  %12llu  %s\n", i, (unsigned long long)fr->rules[i].hits, fr->rules[i].text);
		else
			fprintf(f, "  %4u  %s\n", i, fr->rules[i].text);
	}
	if (with_hits)
		fprintf(f, "  %4s  %12llu  %s\n", "-", (unsigned long long)fr->dflt.hits, fr->dflt.text);
	else
		fprintf(f, "  %4s  %s\n", "-", fr->dflt.text);
	free(fr);
}
