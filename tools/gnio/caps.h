/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/caps.h - the dual capability snapshot (wire axis x device axis),
 * collected by `gnio caps` and reused by configure, test and debug.
 */
#ifndef GNIO_TOOLS_CAPS_H
#define GNIO_TOOLS_CAPS_H

#include "gnio/gnio.h"
#include "json.h"
#include "probe.h"

#define CAPS_MAX_FEATURES 24

enum caps_verdict { CAPS_NOT_SUPPORTED = 0, CAPS_SUPPORTED = 1 };

struct caps_axis {
	int ok;
	char why[200];
};

struct caps_feature {
	const char *name;          /* "gpu_visible_rx" */
	const char *display;       /* "GPU-visible RX queue" */
	struct caps_axis nic, gpu;
};

struct caps_snapshot {
	char snapshot_at[40];
	/* wire axis */
	char spec[256], wire_kind[32], wire_name[128];
	struct gnio_wire_caps wcaps;
	gnio_error_t q_rxq_cyclic, q_txq_regular, q_timed_send, q_rx_burst, q_rx_pkt, q_tx_burst;
	uint32_t rx_max_burst, rx_max_pkt, tx_max_burst;
	gnio_error_t q_flow[GNIO_FLOW_ACTION_COUNT_]; /* gnio_flow_cap_describe_action per action */
	char flow_how[GNIO_FLOW_ACTION_COUNT_][200];
	struct gnio_wire_steering steer; /* the NIC's own RSS and ntuple steering */
	/* device axis */
	char gpu_id[64], bus_id[32], backend[16], gpu_name[128], gpu_pick_why[256];
	int have_props;            /* CUDA properties read through the driver API */
	struct probe_gpu props;
	gnio_error_t mem[3];       /* alloc probe per enum gnio_gpu_mem_type */
	/* verdicts */
	int nfeatures;
	struct caps_feature features[CAPS_MAX_FEATURES];
};

/* Oldest compute capability (times ten) whose PTX has ld.acquire.sys /
 * st.release.sys, which the ring protocol's ordering edges are written with.
 * A build may require more: gnio_cuda_min_compute_capability(). */
#define CAPS_MIN_CC 70

/* Collect a snapshot. spec NULL -> "sw:caps"; gpu_id NULL -> best present.
 * On failure returns the error, *stage says which axis ("wire" or "gpu") and
 * msg holds a one-line reason. */
gnio_error_t caps_collect(const char *spec, const char *gpu_id, struct caps_snapshot *s, const char **stage,
			  char *msg, size_t msg_len);
/* Collect against an already-open wire and device (configure/test reuse). */
void caps_collect_open(struct gnio_dev *dev, struct gnio_gpu *gpu, struct caps_snapshot *s);
const struct caps_feature *caps_find(const struct caps_snapshot *s, const char *name);
int caps_feature_ok(const struct caps_feature *f);
/* "nic", "gpu", "both" or NULL when supported. */
const char *caps_axis_said_no(const struct caps_feature *f);
void caps_json(struct json *j, const char *key, const struct caps_snapshot *s);
void caps_print(FILE *f, const struct caps_snapshot *s);

#endif
