/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_env.c - `gnio env`: one-shot environment probe (versions,
 * GPUs, netdevs, libraries, kernel modules, hugepages, host kind). Works on a
 * machine without a GPU and says why the GPU list is empty.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gnio/version.h"
#include "json.h"
#include "probe.h"

#define ENV_SCHEMA_VERSION 1

static void json_str_or_null(struct json *j, const char *key, const char *s)
{
	json_str(j, key, s && *s ? s : NULL);
}

static void json_i64_or_null(struct json *j, const char *key, int64_t v)
{
	if (v < 0)
		json_null(j, key);
	else
		json_i64(j, key, v);
}

void probe_env_json(struct json *j, const char *key, const struct probe_env *e)
{
	const struct probe_cuda *c = &e->cuda;
	char b[32], now[40];

	iso8601_utc_now(now, sizeof(now));
	json_obj_begin(j, key);
	json_i64(j, "schema_version", ENV_SCHEMA_VERSION);
	json_str(j, "generated_at", now);

	json_obj_begin(j, "version");
	json_str(j, "gnio", gnio_version());
	json_bool(j, "gnio_built_with_cuda", gnio_built_with_cuda());
	json_str(j, "gnio_cuda_architectures", gnio_cuda_architectures());
	json_str(j, "cuda_runtime", c->rt_version ? probe_cuda_ver_str(c->rt_version, b, sizeof(b)) : NULL);
	json_str(j, "cuda_driver", c->drv_version ? probe_cuda_ver_str(c->drv_version, b, sizeof(b)) : NULL);
	json_str_or_null(j, "nvcc", c->nvcc_version);
	json_tristate(j, "consistent", c->consistent);
	json_str(j, "consistency_note", c->consistency_note);
	json_obj_end(j);

	json_arr_begin(j, "gpus");
	for (int i = 0; i < c->ngpus; i++) {
		const struct probe_gpu *g = &c->gpus[i];
		char cc[32];
		json_obj_begin(j, NULL);
		json_i64(j, "ordinal", g->ordinal);
		json_str(j, "bus_id", g->bus_id);
		json_str(j, "name", g->name);
		if (g->cc_major >= 0 && g->cc_minor >= 0) {
			strfmt(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
			json_str(j, "compute_capability", cc);
		} else {
			json_null(j, "compute_capability");
		}
		json_u64(j, "memory_bytes", g->memory_bytes);
		json_tristate(j, "can_map_host_memory", g->can_map_host_memory);
		json_i64_or_null(j, "sm_count", g->sm_count);
		json_tristate(j, "unified_addressing", g->unified_addressing);
		json_tristate(j, "gpudirect_rdma", g->gpudirect_rdma);
		json_tristate(j, "dmabuf", g->dmabuf);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_str(j, "gpus_reason", c->ngpus ? NULL : c->gpus_reason);

	json_arr_begin(j, "netdevs");
	for (int i = 0; i < e->nnetdevs; i++) {
		const struct probe_netdev *n = &e->netdevs[i];
		const char *modes[4];
		int nm;
		json_obj_begin(j, NULL);
		json_str(j, "name", n->name);
		json_str_or_null(j, "driver", n->driver);
		json_str(j, "state", n->state);
		json_i64_or_null(j, "mtu", n->mtu);
		json_i64_or_null(j, "rx_queues", n->rx_queues);
		json_i64_or_null(j, "tx_queues", n->tx_queues);
		probe_xdp_modes(n, modes, &nm);
		json_arr_begin(j, "xdp_modes");
		for (int k = 0; k < nm; k++)
			json_str(j, NULL, modes[k]);
		json_arr_end(j);
		json_str(j, "xdp_source", n->xdp_note);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_str_or_null(j, "netdevs_note", e->netdevs_note);

	json_arr_begin(j, "libraries");
	for (int i = 0; i < PROBE_LIB_COUNT; i++) {
		const struct probe_lib *l = &e->libs[i];
		json_obj_begin(j, NULL);
		json_str(j, "name", l->name);
		json_bool(j, "found", l->found);
		json_str_or_null(j, "version", l->version);
		json_str_or_null(j, "version_source", l->version_source);
		json_str_or_null(j, "path", l->path);
		json_str_or_null(j, "reason", l->why);
		json_obj_end(j);
	}
	json_arr_end(j);

	const struct probe_drivers *d = &e->drivers;
	json_obj_begin(j, "drivers");
	json_tristate(j, "nvidia_loaded", d->nvidia);
	json_tristate(j, "nvidia_uvm_loaded", d->nvidia_uvm);
	json_tristate(j, "nvidia_peermem_loaded", d->nvidia_peermem);
	json_str_or_null(j, "modules_source", d->modules_source);
	json_str_or_null(j, "modules_note", d->modules_note);
	json_str_or_null(j, "nvidia_driver_version", e->nvml_driver_version);
	json_tristate(j, "dmabuf_supported", d->dmabuf);
	json_str(j, "dmabuf_note", d->dmabuf_note);
	json_str(j, "kernel_version", d->kernel_version);
	json_obj_end(j);

	const struct probe_hugepages *h = &e->huge;
	json_obj_begin(j, "hugepages");
	json_i64_or_null(j, "available_2m", h->free_2m);
	json_i64_or_null(j, "available_1g", h->free_1g);
	json_i64_or_null(j, "total_2m", h->total_2m);
	json_i64_or_null(j, "total_1g", h->total_1g);
	json_str_or_null(j, "mount_point", h->mount_point);
	json_obj_end(j);

	json_str(j, "host_kind", e->host_kind);
	json_str(j, "host_kind_evidence", e->host_kind_evidence);
	json_obj_end(j);
}

static void print_human(const struct probe_env *e)
{
	const struct probe_cuda *c = &e->cuda;
	char a[16], b[16];

	printf("gnio %s (%s)\n", gnio_version(), gnio_built_with_cuda() ? "built with CUDA" : "built without CUDA");
	printf("host        %s (%s)\n", e->host_kind, e->host_kind_evidence);
	printf("kernel      %s\n\n", e->drivers.kernel_version);

	printf("CUDA\n");
	printf("  runtime   %s%s%s\n", c->rt_found ? probe_cuda_ver_str(c->rt_version, a, sizeof(a)) : "not found",
	       c->rt_found ? "  " : "", c->rt_path);
	printf("  driver    %s%s%s\n", c->drv_found ? probe_cuda_ver_str(c->drv_version, b, sizeof(b)) : "not found",
	       c->drv_found ? "  " : "", c->drv_path);
	printf("  nvcc      %s%s%s\n", c->nvcc_found ? (c->nvcc_version[0] ? c->nvcc_version : "unknown") : "not found",
	       c->nvcc_found ? "  " : "", c->nvcc_path);
	printf("  versions  %s: %s\n\n",
	       c->consistent < 0 ? "unknown" : c->consistent ? "consistent" : "INCONSISTENT", c->consistency_note);

	printf("GPUs\n");
	if (!c->ngpus)
		printf("  none: %s\n", c->gpus_reason);
	for (int i = 0; i < c->ngpus; i++) {
		const struct probe_gpu *g = &c->gpus[i];
		printf("  [%d] %s  %s  cc %d.%d  %.1f GiB  %d SMs  map-host-memory %s\n", g->ordinal, g->bus_id, g->name,
		       g->cc_major, g->cc_minor, (double)g->memory_bytes / (1024.0 * 1024 * 1024), g->sm_count,
		       tristate_str(g->can_map_host_memory));
	}

	printf("\nnetwork interfaces\n");
	for (int i = 0; i < e->nnetdevs; i++) {
		const struct probe_netdev *n = &e->netdevs[i];
		const char *modes[4];
		int nm;
		char m[64] = "";
		probe_xdp_modes(n, modes, &nm);
		for (int k = 0; k < nm; k++)
			snprintf(m + strlen(m), sizeof(m) - strlen(m), "%s%s", k ? "," : "", modes[k]);
		printf("  %-12s %-12s %-8s mtu %-5d rxq %d txq %d  xdp %s\n", n->name,
		       n->driver[0] ? n->driver : "unknown", n->state, n->mtu, n->rx_queues, n->tx_queues, m);
	}
	if (e->netdevs_note[0])
		printf("  (%s)\n", e->netdevs_note);

	printf("\nlibraries\n");
	for (int i = 0; i < PROBE_LIB_COUNT; i++) {
		const struct probe_lib *l = &e->libs[i];
		if (l->found)
			printf("  %-8s %-10s %s%s%s\n", l->name, l->version[0] ? l->version : "unknown", l->path,
			       l->why[0] ? "  " : "", l->why);
		else
			printf("  %-8s not found (%s)\n", l->name, l->why[0] ? l->why : "no candidate loaded");
	}

	const struct probe_drivers *d = &e->drivers;
	printf("\nkernel modules (%s)\n", d->modules_source[0] ? d->modules_source : "unknown source");
	printf("  nvidia %s, nvidia_uvm %s, nvidia_peermem %s\n", tristate_str(d->nvidia), tristate_str(d->nvidia_uvm),
	       tristate_str(d->nvidia_peermem));
	if (d->modules_note[0])
		printf("  (%s)\n", d->modules_note);
	printf("  dma-buf %s (%s)\n", tristate_str(d->dmabuf), d->dmabuf_note);
	if (e->nvml_driver_version[0])
		printf("  NVIDIA driver %s (NVML)\n", e->nvml_driver_version);

	const struct probe_hugepages *h = &e->huge;
	printf("\nhugepages\n  2M free %lld of %lld, 1G free %lld of %lld, hugetlbfs %s\n", (long long)h->free_2m,
	       (long long)h->total_2m, (long long)h->free_1g, (long long)h->total_1g,
	       h->mount_point[0] ? h->mount_point : "not mounted");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio env [--json]\n\n"
		   "One-shot environment probe: gnio and CUDA versions, GPUs, network interfaces,\n"
		   "libraries (libxdp, libbpf, libpcap, cudart, NVML), kernel modules, hugepages.\n"
		   "  --json   one JSON object (schema: share/gnio/schemas/env.schema.json)\n"
		   "Exit: 0 probe done (even with no GPU), 2 usage error.\n");
}

int gnio_cmd_env(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int as_json = 0, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = 1;
			break;
		case 'h':
			usage(stdout);
			return GNIO_EXIT_OK;
		default:
			usage(stderr);
			return GNIO_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gnio env: unexpected argument '%s'\n", argv[optind]);
		return GNIO_EXIT_USAGE;
	}

	static struct probe_env e; /* large: keep it off the stack */
	probe_all(&e);
	if (as_json) {
		struct json j;
		json_init(&j, stdout, 1);
		probe_env_json(&j, NULL, &e);
		json_finish(&j);
	} else {
		print_human(&e);
	}
	return GNIO_EXIT_OK;
}
