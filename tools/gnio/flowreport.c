/* SPDX-License-Identifier: MIT */
/* tools/gnio/flowreport.c - rules[] and default of a gnio_flow, in JSON and as text. */
#include <string.h>

#include "flowreport.h"

void flowreport_json(struct json *j, struct gnio_flow *flow)
{
	struct gnio_flow_action dflt;
	uint32_t n = 0;
	uint64_t hits;
	char text[512];

	gnio_flow_get_rule_count(flow, &n);
	json_arr_begin(j, "rules");
	for (uint32_t i = 0; i < n; i++) {
		struct gnio_flow_rule r;
		uint32_t id;

		if (gnio_flow_get_rule(flow, i, &id, &r) || gnio_flow_get_rule_hits(flow, id, &hits))
			continue;
		gnio_flow_rule_format(&r, text, sizeof(text));
		json_obj_begin(j, NULL);
		json_u64(j, "index", i);
		json_u64(j, "id", id);
		json_str(j, "rule", text);
		json_str(j, "action", gnio_flow_action_name(r.action.type));
		json_u64(j, "hits", hits);
		json_obj_end(j);
	}
	json_arr_end(j);
	gnio_flow_get_default(flow, &dflt);
	memcpy(text, "default -> ", 11);
	gnio_flow_action_format(&dflt, text + 11, sizeof(text) - 11);
	gnio_flow_get_rule_hits(flow, GNIO_FLOW_RULE_DEFAULT, &hits);
	json_obj_begin(j, "default");
	json_str(j, "rule", text);
	json_str(j, "action", gnio_flow_action_name(dflt.type));
	json_u64(j, "hits", hits);
	json_obj_end(j);
}

void flowreport_print(FILE *f, struct gnio_flow *flow, int with_hits)
{
	struct gnio_flow_action dflt;
	uint32_t n = 0;
	uint64_t hits = 0;
	char text[512];

	gnio_flow_get_rule_count(flow, &n);
	for (uint32_t i = 0; i < n; i++) {
		struct gnio_flow_rule r;
		uint32_t id;

		if (gnio_flow_get_rule(flow, i, &id, &r))
			continue;
		gnio_flow_rule_format(&r, text, sizeof(text));
		if (with_hits) {
			gnio_flow_get_rule_hits(flow, id, &hits);
			fprintf(f, "  %4u  %12llu  %s\n", i, (unsigned long long)hits, text);
		} else {
			fprintf(f, "  %4u  %s\n", i, text);
		}
	}
	gnio_flow_get_default(flow, &dflt);
	gnio_flow_action_format(&dflt, text, sizeof(text));
	if (with_hits) {
		gnio_flow_get_rule_hits(flow, GNIO_FLOW_RULE_DEFAULT, &hits);
		fprintf(f, "  %4s  %12llu  default -> %s\n", "-", (unsigned long long)hits, text);
	} else {
		fprintf(f, "  %4s  default -> %s\n", "-", text);
	}
}
