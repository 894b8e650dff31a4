/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_caps.c - `gnio caps`: the dual capability snapshot. The wire
 * (NIC) axis comes from the wire's own cap queries; the device (GPU) axis
 * from the CUDA device properties and from asking the device for each memory
 * type. A feature is supported only when both axes say yes; otherwise the
 * snapshot names the axis that said no, and why.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "gnio/version.h"
#include "commands.h"

static const char *errname(gnio_error_t e)
{
	return gnio_error_get_name(e);
}

static void axis(struct caps_axis *a, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void axis(struct caps_axis *a, int ok, const char *fmt, ...)
{
	va_list ap;
	a->ok = ok;
	va_start(ap, fmt);
	vsnprintf(a->why, sizeof(a->why), fmt, ap);
	va_end(ap);
}

static struct caps_feature *feat(struct caps_snapshot *s, const char *name, const char *display)
{
	struct caps_feature *f = &s->features[s->nfeatures++];
	f->name = name;
	f->display = display;
	return f;
}

int caps_feature_ok(const struct caps_feature *f)
{
	return f->nic.ok && f->gpu.ok;
}

const char *caps_axis_said_no(const struct caps_feature *f)
{
	if (!f->nic.ok && !f->gpu.ok)
		return "both";
	if (!f->nic.ok)
		return "nic";
	if (!f->gpu.ok)
		return "gpu";
	return NULL;
}

const struct caps_feature *caps_find(const struct caps_snapshot *s, const char *name)
{
	for (int i = 0; i < s->nfeatures; i++)
		if (!strcmp(s->features[i].name, name))
			return &s->features[i];
	return NULL;
}

static const char *const mem_type_names[3] = {"gpu", "gpu_cpu", "cpu_gpu"};

/* Ask the device for each memory type with a small allocation: the answer
 * is what the library will do, not what a table says it should. */
static void probe_mem_types(struct gnio_gpu *gpu, struct caps_snapshot *s)
{
	for (int t = 0; t < 3; t++) {
		void *g = NULL, *c = NULL;
		s->mem[t] = gnio_gpu_mem_alloc(gpu, 4096, 0, (enum gnio_gpu_mem_type)t, &g, &c);
		if (s->mem[t] == GNIO_SUCCESS)
			gnio_gpu_mem_free(gpu, g);
	}
}

/* Device-axis basics shared by the ring features: where the rings live and
 * whether the device can order its accesses to them. */
static int gpu_ring_ok(const struct caps_snapshot *s, char *why, size_t len)
{
	if (!strcmp(s->backend, "cpu")) {
		if (s->mem[GNIO_GPU_MEM_TYPE_CPU_GPU] != GNIO_SUCCESS) {
			strfmt(why, len, "CPU device could not allocate ring memory: %s",
			       errname(s->mem[GNIO_GPU_MEM_TYPE_CPU_GPU]));
			return 0;
		}
		strfmt(why, len, "CPU device: the kernel is a host thread on host-memory rings");
		return 1;
	}
	if (!s->have_props) {
		strfmt(why, len, "CUDA device properties unreadable through the driver API");
		return 0;
	}
	const struct probe_gpu *p = &s->props;
	int cc = p->cc_major * 10 + p->cc_minor, built_min = gnio_cuda_min_compute_capability();

	if (cc < CAPS_MIN_CC) {
		strfmt(why, len, "compute capability %d.%d is below %d.%d (no system-scope acquire/release)",
		       p->cc_major, p->cc_minor, CAPS_MIN_CC / 10, CAPS_MIN_CC % 10);
		return 0;
	}
	if (built_min && cc < built_min) {
		strfmt(why, len, "compute capability %d.%d: this build of gnio carries GPU code for %s only (lowest %d.%d)",
		       p->cc_major, p->cc_minor, gnio_cuda_architectures(), built_min / 10, built_min % 10);
		return 0;
	}
	if (p->can_map_host_memory != 1) {
		strfmt(why, len, "device cannot map host memory (canMapHostMemory=%s)",
		       tristate_str(p->can_map_host_memory));
		return 0;
	}
	if (s->mem[GNIO_GPU_MEM_TYPE_CPU_GPU] != GNIO_SUCCESS) {
		strfmt(why, len, "pinned mapped host memory allocation failed: %s",
		       errname(s->mem[GNIO_GPU_MEM_TYPE_CPU_GPU]));
		return 0;
	}
	strfmt(why, len, "cc %d.%d, canMapHostMemory=1, mapped host memory allocates", p->cc_major, p->cc_minor);
	return 1;
}

static void evaluate(struct caps_snapshot *s)
{
	const struct gnio_wire_caps *w = &s->wcaps;
	char rw[200];
	int ring = gpu_ring_ok(s, rw, sizeof(rw));
	int is_cpu = !strcmp(s->backend, "cpu");
	struct caps_feature *f;

	s->nfeatures = 0;

	f = feat(s, "gpu_visible_rx", "GPU-visible RX queue");
	if (!(w->flags & GNIO_WIRE_CAP_RX))
		axis(&f->nic, 0, "wire %s does not receive", s->wire_kind);
	else if (s->q_rxq_cyclic != GNIO_SUCCESS)
		axis(&f->nic, 0, "gnio_eth_rxq_cap_is_type_supported(CYCLIC): %s", errname(s->q_rxq_cyclic));
	else
		axis(&f->nic, 1, "wire receives; cyclic RX queue supported (max burst %u, max packet %u)",
		     s->rx_max_burst, s->rx_max_pkt);
	axis(&f->gpu, ring, "%s", rw);

	f = feat(s, "gpu_visible_tx", "GPU-visible TX queue");
	if (!(w->flags & GNIO_WIRE_CAP_TX))
		axis(&f->nic, 0, "wire %s does not send", s->wire_kind);
	else if (s->q_txq_regular != GNIO_SUCCESS)
		axis(&f->nic, 0, "gnio_eth_txq_cap_is_type_supported(REGULAR): %s", errname(s->q_txq_regular));
	else
		axis(&f->nic, 1, "wire sends; regular TX queue supported (max burst %u)", s->tx_max_burst);
	axis(&f->gpu, ring, "%s", rw);

	f = feat(s, "timed_send", "timed send (send at a given time)");
	if (s->q_timed_send != GNIO_SUCCESS)
		axis(&f->nic, 0, "gnio_eth_txq_cap_get_wait_on_time_offload_supported: %s", errname(s->q_timed_send));
	else
		axis(&f->nic, 1, "%s", (w->flags & GNIO_WIRE_CAP_TXTIME) ? "the wire honours send times"
									   : "the proxy holds frames until their send time");
	axis(&f->gpu, 1, "%s", is_cpu ? "CPU device clock is CLOCK_REALTIME, the proxy's clock"
				       : "kernel reads %globaltimer, which the driver keeps near CLOCK_REALTIME (about 1 us steps)");

	f = feat(s, "zero_copy", "zero-copy RX (frames land in the GPU-visible pool)");
	if (!(w->flags & GNIO_WIRE_CAP_ZERO_COPY))
		axis(&f->nic, 0, "wire %s copies each frame into the pool (mode \"%s\")", s->wire_kind,
		     w->mode[0] ? w->mode : "n/a");
	else
		axis(&f->nic, 1, "wire places frames in the registered pool (mode \"%s\")", w->mode);
	if (s->mem[GNIO_GPU_MEM_TYPE_CPU_GPU] != GNIO_SUCCESS)
		axis(&f->gpu, 0, "pinned host memory mapped into the device: %s", errname(s->mem[GNIO_GPU_MEM_TYPE_CPU_GPU]));
	else if (!is_cpu && s->have_props && s->props.can_map_host_memory != 1)
		axis(&f->gpu, 0, "device cannot map host memory");
	else
		axis(&f->gpu, 1, "%s", is_cpu ? "host memory is the device's memory" : "pinned host memory maps into the device");

	f = feat(s, "payload_in_gpu_memory", "payload pool in device memory");
	if (!(w->flags & GNIO_WIRE_CAP_RX))
		axis(&f->nic, 0, "wire %s does not receive", s->wire_kind);
	else
		axis(&f->nic, 1, "the proxy copies frames into a device-memory pool");
	if (is_cpu)
		axis(&f->gpu, 0, "the CPU device has no device memory apart from host memory");
	else if (s->mem[GNIO_GPU_MEM_TYPE_GPU] != GNIO_SUCCESS)
		axis(&f->gpu, 0, "device memory allocation failed: %s", errname(s->mem[GNIO_GPU_MEM_TYPE_GPU]));
	else
		axis(&f->gpu, 1, "device memory allocates");

	f = feat(s, "gpu_cpu_memory", "device memory mapped for the CPU (GDRCopy)");
	axis(&f->nic, 1, "no wire requirement");
	if (s->mem[GNIO_GPU_MEM_TYPE_GPU_CPU] != GNIO_SUCCESS)
		axis(&f->gpu, 0, "gnio_gpu_mem_alloc(GPU_CPU): %s%s", errname(s->mem[GNIO_GPU_MEM_TYPE_GPU_CPU]),
		     s->mem[GNIO_GPU_MEM_TYPE_GPU_CPU] == GNIO_ERROR_NOT_SUPPORTED ? " (needs GDRCopy)" : "");
	else
		axis(&f->gpu, 1, "%s", is_cpu ? "host memory on the CPU device" : "GPU_CPU memory allocates");

	f = feat(s, "multi_queue", "several queues per wire");
	if (!(w->flags & GNIO_WIRE_CAP_MULTI_QUEUE) || w->num_rx_queues < 2)
		axis(&f->nic, 0, "wire offers %u RX queue(s)%s", w->num_rx_queues,
		     (w->flags & GNIO_WIRE_CAP_MULTI_QUEUE) ? "" : ", no multi-queue flag");
	else
		axis(&f->nic, 1, "wire offers %u RX and %u TX queues", w->num_rx_queues, w->num_tx_queues);
	axis(&f->gpu, 1, "each queue has its own ring and consumer");

	f = feat(s, "hw_timestamp", "hardware RX timestamps");
	axis(&f->nic, !!(w->flags & GNIO_WIRE_CAP_HW_TIMESTAMP), "%s",
	     (w->flags & GNIO_WIRE_CAP_HW_TIMESTAMP) ? "wire reports NIC timestamps" : "wire has no hardware timestamps");
	axis(&f->gpu, 1, "no device requirement");

	f = feat(s, "sw_timestamp", "software RX timestamps");
	axis(&f->nic, !!(w->flags & GNIO_WIRE_CAP_SW_TIMESTAMP), "%s",
	     (w->flags & GNIO_WIRE_CAP_SW_TIMESTAMP) ? "wire stamps arrival time" : "wire gives no arrival time");
	axis(&f->gpu, 1, "no device requirement");

	for (int a = 0; a < GNIO_FLOW_ACTION_COUNT_; a++) {
		static const char *const display[GNIO_FLOW_ACTION_COUNT_] = {
			"flow action gnio (the arrival queue)", "flow action queue N", "flow action rss (Toeplitz)",
			"flow action cpu N (host-datapath queue)", "flow action kernel (host stack)", "flow action drop",
		};
		static const char *const name[GNIO_FLOW_ACTION_COUNT_] = {
			"flow_gnio", "flow_queue", "flow_rss", "flow_cpu", "flow_kernel", "flow_drop",
		};

		f = feat(s, name[a], display[a]);
		axis(&f->nic, s->q_flow[a] == GNIO_SUCCESS, "%s", s->flow_how[a]);
		axis(&f->gpu, 1, "steering happens before the device; no device requirement");
	}

	f = feat(s, "nic_rss", "the NIC spreads flows over its RX queues (RSS)");
	axis(&f->nic, s->steer.rss_table_size > 0, "%s", s->steer.rss_how);
	axis(&f->gpu, 1, "steering happens before the device; no device requirement");
	f = feat(s, "nic_ntuple", "the NIC steers chosen flows to chosen RX queues (ntuple)");
	axis(&f->nic, s->steer.ntuple != 0, "%s", s->steer.ntuple_how);
	axis(&f->gpu, 1, "steering happens before the device; no device requirement");

	f = feat(s, "persistent_kernel", "persistent kernel on the device");
	axis(&f->nic, 1, "no wire requirement");
	if (is_cpu)
		axis(&f->gpu, 1, "CPU device runs the kernel body on a host thread");
	else
		axis(&f->gpu, gnio_built_with_cuda(), "%s",
		     gnio_built_with_cuda() ? "CUDA backend built in and device opened" : "gnio built without CUDA");
}

static void wire_axis(struct gnio_dev *dev, struct caps_snapshot *s)
{
	struct gnio_devinfo *info = gnio_dev_as_devinfo(dev);
	strfmt(s->spec, sizeof(s->spec), "%s", gnio_devinfo_get_spec(info));
	strfmt(s->wire_kind, sizeof(s->wire_kind), "%s", gnio_devinfo_get_wire(info));
	strfmt(s->wire_name, sizeof(s->wire_name), "%s", gnio_devinfo_get_name(info));
	memset(&s->wcaps, 0, sizeof(s->wcaps));
	s->wcaps.struct_size = sizeof(s->wcaps);
	gnio_devinfo_get_caps(info, &s->wcaps);
	enum gnio_eth_wait_on_time_type wt;
	s->q_rxq_cyclic = gnio_eth_rxq_cap_is_type_supported(info, GNIO_ETH_RXQ_TYPE_CYCLIC,
							     GNIO_ETH_RXQ_DATA_PATH_TYPE_GPU);
	s->q_txq_regular = gnio_eth_txq_cap_is_type_supported(info, GNIO_ETH_TXQ_TYPE_REGULAR,
							      GNIO_ETH_TXQ_DATA_PATH_TYPE_GPU);
	s->q_timed_send = gnio_eth_txq_cap_get_wait_on_time_offload_supported(info, &wt);
	s->q_rx_burst = gnio_eth_rxq_cap_get_max_burst_size(info, &s->rx_max_burst);
	s->q_rx_pkt = gnio_eth_rxq_cap_get_max_packet_size(info, &s->rx_max_pkt);
	s->q_tx_burst = gnio_eth_txq_cap_get_max_burst_size(info, 1, 0, &s->tx_max_burst);
	for (int a = 0; a < GNIO_FLOW_ACTION_COUNT_; a++)
		s->q_flow[a] = gnio_flow_cap_describe_action(info, (enum gnio_flow_action_type)a, s->flow_how[a],
							     sizeof(s->flow_how[a]));
	memset(&s->steer, 0, sizeof(s->steer));
	s->steer.struct_size = sizeof(s->steer);
	if (gnio_devinfo_get_steering(info, &s->steer) != GNIO_SUCCESS) {
		strfmt(s->steer.rss_how, sizeof(s->steer.rss_how), "unknown: %s", gnio_last_error_msg());
		strfmt(s->steer.ntuple_how, sizeof(s->steer.ntuple_how), "unknown: %s", gnio_last_error_msg());
	}
}

static void gpu_axis(struct gnio_gpu *gpu, struct caps_snapshot *s)
{
	strfmt(s->bus_id, sizeof(s->bus_id), "%s", gnio_gpu_get_bus_id(gpu));
	strfmt(s->backend, sizeof(s->backend), "%s", gnio_gpu_get_backend(gpu));
	strfmt(s->gpu_name, sizeof(s->gpu_name), "%s", gnio_gpu_get_name(gpu));
	s->have_props = 0;
	if (!gnio_gpu_is_cpu(gpu)) {
		static struct probe_cuda pc;
		probe_cuda(&pc);
		for (int i = 0; i < pc.ngpus; i++) {
			if (!strcmp(pc.gpus[i].bus_id, s->bus_id)) {
				s->props = pc.gpus[i];
				s->have_props = 1;
			}
		}
	}
	probe_mem_types(gpu, s);
}

void caps_collect_open(struct gnio_dev *dev, struct gnio_gpu *gpu, struct caps_snapshot *s)
{
	iso8601_utc_now(s->snapshot_at, sizeof(s->snapshot_at));
	wire_axis(dev, s);
	gpu_axis(gpu, s);
	evaluate(s);
}

gnio_error_t caps_collect(const char *spec, const char *gpu_id, struct caps_snapshot *s, const char **stage,
			  char *msg, size_t msg_len)
{
	struct gnio_dev *dev = NULL;
	struct gnio_gpu *gpu = NULL;
	gnio_error_t err;
	char best[64];

	memset(s, 0, sizeof(*s));
	if (!spec)
		spec = "sw:caps";
	*stage = "wire";
	err = gnio_dev_open(spec, &dev);
	if (err) {
		strfmt(msg, msg_len, "cannot open wire '%s': %s: %s", spec, errname(err),
		       *gnio_last_error_msg() ? gnio_last_error_msg() : gnio_error_get_descr(err));
		return err;
	}
	*stage = "gpu";
	if (!gpu_id) {
		err = gnio_gpu_pick_best(best, sizeof(best), s->gpu_pick_why, sizeof(s->gpu_pick_why));
		if (err) {
			strfmt(msg, msg_len, "cannot pick a device: %s: %s", errname(err), s->gpu_pick_why);
			gnio_dev_close(dev);
			return err;
		}
		gpu_id = best;
	} else {
		strfmt(s->gpu_pick_why, sizeof(s->gpu_pick_why), "chosen with --gpu");
	}
	strfmt(s->gpu_id, sizeof(s->gpu_id), "%s", gpu_id);
	err = gnio_gpu_create(gpu_id, &gpu);
	if (err) {
		strfmt(msg, msg_len, "cannot open device '%s': %s: %s", gpu_id, errname(err),
		       *gnio_last_error_msg() ? gnio_last_error_msg() : gnio_error_get_descr(err));
		gnio_dev_close(dev);
		return err;
	}
	caps_collect_open(dev, gpu, s);
	gnio_gpu_destroy(gpu);
	gnio_dev_close(dev);
	return GNIO_SUCCESS;
}

static const struct {
	uint32_t bit;
	const char *name;
} wire_flag_names[] = {
	{GNIO_WIRE_CAP_ZERO_COPY, "zero_copy"},       {GNIO_WIRE_CAP_SW_TIMESTAMP, "sw_timestamp"},
	{GNIO_WIRE_CAP_HW_TIMESTAMP, "hw_timestamp"}, {GNIO_WIRE_CAP_TXTIME, "txtime"},
	{GNIO_WIRE_CAP_NATIVE_MODE, "native_mode"},   {GNIO_WIRE_CAP_SKB_MODE, "skb_mode"},
	{GNIO_WIRE_CAP_MULTI_QUEUE, "multi_queue"},   {GNIO_WIRE_CAP_RX, "rx"},
	{GNIO_WIRE_CAP_TX, "tx"},
};

static void json_query(struct json *j, const char *key, gnio_error_t e)
{
	json_str(j, key, e == GNIO_SUCCESS ? "supported" : e == GNIO_ERROR_NOT_SUPPORTED ? "not_supported"
										  : errname(e));
}

void caps_json(struct json *j, const char *key, const struct caps_snapshot *s)
{
	char cc[16];
	json_obj_begin(j, key);
	json_i64(j, "schema_version", 1);
	json_str(j, "snapshot_at", s->snapshot_at);
	json_str(j, "gnio_version", gnio_version());

	json_obj_begin(j, "wire");
	json_str(j, "spec", s->spec);
	json_str(j, "kind", s->wire_kind);
	json_str(j, "name", s->wire_name);
	json_arr_begin(j, "flags");
	for (size_t i = 0; i < sizeof(wire_flag_names) / sizeof(wire_flag_names[0]); i++)
		if (s->wcaps.flags & wire_flag_names[i].bit)
			json_str(j, NULL, wire_flag_names[i].name);
	json_arr_end(j);
	json_u64(j, "max_frame_size", s->wcaps.max_frame_size);
	json_u64(j, "num_rx_queues", s->wcaps.num_rx_queues);
	json_u64(j, "num_tx_queues", s->wcaps.num_tx_queues);
	json_str(j, "mode", s->wcaps.mode);
	json_str(j, "tx_path", s->wcaps.tx_path);
	json_obj_begin(j, "queries");
	json_query(j, "rxq_type_cyclic", s->q_rxq_cyclic);
	json_query(j, "txq_type_regular", s->q_txq_regular);
	json_query(j, "txq_timed_send", s->q_timed_send);
	if (s->q_rx_burst == GNIO_SUCCESS)
		json_u64(j, "rxq_max_burst_size", s->rx_max_burst);
	else
		json_null(j, "rxq_max_burst_size");
	if (s->q_rx_pkt == GNIO_SUCCESS)
		json_u64(j, "rxq_max_packet_size", s->rx_max_pkt);
	else
		json_null(j, "rxq_max_packet_size");
	if (s->q_tx_burst == GNIO_SUCCESS)
		json_u64(j, "txq_max_burst_size", s->tx_max_burst);
	else
		json_null(j, "txq_max_burst_size");
	json_obj_begin(j, "flow_actions");
	for (int a = 0; a < GNIO_FLOW_ACTION_COUNT_; a++)
		json_query(j, gnio_flow_action_name((enum gnio_flow_action_type)a), s->q_flow[a]);
	json_obj_end(j);
	json_obj_end(j);
	json_obj_begin(j, "steering");
	json_u64(j, "hw_rx_queues", s->steer.hw_rx_queues);
	json_u64(j, "rss_table_size", s->steer.rss_table_size);
	json_bool(j, "ntuple", s->steer.ntuple != 0);
	json_u64(j, "ntuple_rules", s->steer.ntuple_rules);
	json_obj_end(j);
	json_obj_end(j);

	json_obj_begin(j, "gpu");
	json_str(j, "id", s->gpu_id);
	json_str(j, "bus_id", s->bus_id);
	json_str(j, "backend", s->backend);
	json_str(j, "name", s->gpu_name);
	json_str(j, "selected_because", s->gpu_pick_why);
	if (s->have_props) {
		const struct probe_gpu *p = &s->props;
		json_obj_begin(j, "properties");
		json_i64(j, "ordinal", p->ordinal);
		strfmt(cc, sizeof(cc), "%d.%d", p->cc_major, p->cc_minor);
		json_str(j, "compute_capability", cc);
		json_i64(j, "sm_count", p->sm_count);
		json_u64(j, "memory_bytes", p->memory_bytes);
		json_tristate(j, "can_map_host_memory", p->can_map_host_memory);
		json_tristate(j, "unified_addressing", p->unified_addressing);
		json_tristate(j, "gpudirect_rdma", p->gpudirect_rdma);
		json_tristate(j, "dmabuf", p->dmabuf);
		json_obj_end(j);
	} else {
		json_null(j, "properties");
	}
	json_obj_begin(j, "memory_types");
	for (int t = 0; t < 3; t++)
		json_query(j, mem_type_names[t], s->mem[t]);
	json_obj_end(j);
	json_obj_end(j);

	json_arr_begin(j, "features");
	for (int i = 0; i < s->nfeatures; i++) {
		const struct caps_feature *f = &s->features[i];
		json_obj_begin(j, NULL);
		json_str(j, "name", f->name);
		json_str(j, "display_name", f->display);
		json_str(j, "verdict", caps_feature_ok(f) ? "supported" : "not_supported");
		json_str(j, "axis_said_no", caps_axis_said_no(f));
		json_obj_begin(j, "nic");
		json_str(j, "verdict", f->nic.ok ? "supported" : "not_supported");
		json_str(j, "reason", f->nic.why);
		json_obj_end(j);
		json_obj_begin(j, "gpu");
		json_str(j, "verdict", f->gpu.ok ? "supported" : "not_supported");
		json_str(j, "reason", f->gpu.why);
		json_obj_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void caps_print(FILE *f, const struct caps_snapshot *s)
{
	fprintf(f, "capability snapshot at %s\n", s->snapshot_at);
	fprintf(f, "  wire    %s  (%s, max frame %u, %u rx / %u tx queues%s%s)\n", s->spec, s->wire_kind,
		s->wcaps.max_frame_size, s->wcaps.num_rx_queues, s->wcaps.num_tx_queues, s->wcaps.mode[0] ? ", mode " : "",
		s->wcaps.mode);
	fprintf(f, "  device  %s  %s (%s; %s)\n", s->bus_id, s->gpu_name, s->backend, s->gpu_pick_why);
	if (s->have_props)
		fprintf(f, "          cc %d.%d, %d SMs, canMapHostMemory %s\n", s->props.cc_major, s->props.cc_minor,
			s->props.sm_count, tristate_str(s->props.can_map_host_memory));
	fprintf(f, "\n  %-22s %-14s %s\n", "feature", "verdict", "why (axis: reason)");
	for (int i = 0; i < s->nfeatures; i++) {
		const struct caps_feature *ft = &s->features[i];
		const char *no = caps_axis_said_no(ft);
		if (!no)
			fprintf(f, "  %-22s %-14s nic: %s; gpu: %s\n", ft->name, "supported", ft->nic.why, ft->gpu.why);
		else if (!strcmp(no, "both"))
			fprintf(f, "  %-22s %-14s nic: %s; gpu: %s\n", ft->name, "not_supported", ft->nic.why, ft->gpu.why);
		else
			fprintf(f, "  %-22s %-14s %s said no: %s\n", ft->name, "not_supported", no,
				!strcmp(no, "nic") ? ft->nic.why : ft->gpu.why);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio caps [--json] [--wire SPEC] [--gpu BUSID|cpu]\n\n"
		   "Dual capability snapshot: the wire (NIC) axis from the wire's cap queries, the\n"
		   "device (GPU) axis from the CUDA device properties and memory-type probes. Each\n"
		   "feature is supported only when both axes say yes.\n"
		   "  --wire SPEC   wire to query (default sw:caps)\n"
		   "  --gpu ID      PCIe bus id or \"cpu\" (default: the best device present)\n"
		   "  --json        one JSON object (schema: share/gnio/schemas/caps.schema.json)\n"
		   "Exit: 0 snapshot taken, 1 other failure, 2 usage or malformed spec/id,\n"
		   "      3 wire or device not present / not supported here.\n");
}

int gnio_cmd_caps(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
					     {"wire", required_argument, NULL, 'w'},
					     {"gpu", required_argument, NULL, 'g'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *spec = NULL, *gpu_id = NULL, *stage = "";
	int as_json = 0, c;
	char msg[512];

	optind = 1;
	while ((c = getopt_long(argc, argv, "jw:g:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': as_json = 1; break;
		case 'w': spec = optarg; break;
		case 'g': gpu_id = optarg; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		default: usage(stderr); return GNIO_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gnio caps: unexpected argument '%s'\n", argv[optind]);
		return GNIO_EXIT_USAGE;
	}
	static struct caps_snapshot s;
	gnio_error_t err = caps_collect(spec, gpu_id, &s, &stage, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "gnio caps: %s\n", msg);
		return exit_code_for(err);
	}
	if (as_json) {
		struct json j;
		json_init(&j, stdout, 1);
		caps_json(&j, NULL, &s);
		json_finish(&j);
	} else {
		caps_print(stdout, &s);
	}
	return GNIO_EXIT_OK;
}
