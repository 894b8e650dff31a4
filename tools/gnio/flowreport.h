/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/flowreport.h - how the CLI reports a gnio_flow: rules[] and
 * default in JSON (share/gnio/schemas/flow.schema.json), and a text table.
 * Used by `gnio flow` and `gnio sink --flow`.
 */
#ifndef GNIO_TOOLS_FLOWREPORT_H
#define GNIO_TOOLS_FLOWREPORT_H

#include <stdio.h>
#include "gnio/flow.h"
#include "json.h"

/* "rules": [{index, id, rule, action, hits}], "default": {rule, action, hits} */
void flowreport_json(struct json *j, struct gnio_flow *flow);
/* One line per rule (index, hits when with_hits, canonical text), then the default. */
void flowreport_print(FILE *f, struct gnio_flow *flow, int with_hits);

#endif
