/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/probe.h - environment probes shared by env, caps, configure,
 * test and debug. Nothing here links against CUDA, NVML, libxdp, libbpf or
 * libpcap: each is loaded with dlopen so the probe works (and says why) on a
 * machine without them. A probe that cannot tell leaves its value "unknown"
 * (tri-state -1, NULL string) and writes the reason next to it.
 */
#ifndef GNIO_TOOLS_PROBE_H
#define GNIO_TOOLS_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include "gnio/error.h"
#include "json.h"

#define PROBE_MAX_GPUS 16
#define PROBE_MAX_NETDEVS 64
#define PROBE_REASON 256

/* Tri-state for facts a probe may not be able to see: 1 yes, 0 no, -1 unknown. */
typedef int tristate;

struct probe_gpu {
	int ordinal;
	char bus_id[32];     /* canonical "0000:17:00.0" */
	char name[128];
	int cc_major, cc_minor;
	uint64_t memory_bytes;
	tristate can_map_host_memory;
	int sm_count;
	tristate unified_addressing;
	tristate gpudirect_rdma;  /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
	tristate dmabuf;          /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
};

struct probe_cuda {
	/* CUDA runtime (libcudart, loaded by dlopen). */
	int rt_found;
	char rt_path[256];
	int rt_version;          /* 13000 for 13.0; 0 when unknown */
	/* CUDA driver (libcuda.so.1). */
	int drv_found;
	char drv_path[256];
	int drv_version;         /* highest CUDA version the driver supports; 0 unknown */
	int init_rc;             /* cuInit result, -1 when not called */
	/* nvcc */
	int nvcc_found;
	char nvcc_path[256];
	char nvcc_version[32];   /* "13.0" */
	/* Devices; when ngpus == 0, gpus_reason says why. */
	int ngpus;
	struct probe_gpu gpus[PROBE_MAX_GPUS];
	char gpus_reason[PROBE_REASON];
	/* Versions consistent: runtime <= driver and nvcc major == runtime major.
	 * -1 when a side is missing; consistency_note says which check decided. */
	tristate consistent;
	char consistency_note[PROBE_REASON];
};

struct probe_netdev {
	char name[32];
	char driver[64];         /* "" unknown */
	char state[16];          /* operstate */
	int mtu;
	int rx_queues, tx_queues;
	/* XDP modes: skb always (generic XDP); native/zerocopy/offload from the
	 * kernel's netdev xdp-features when it exposes them. */
	int xdp_known;           /* 1 when the kernel told us its xdp-features */
	uint64_t xdp_features;
	char xdp_note[96];
};

struct probe_lib {
	const char *name;        /* "libxdp" */
	int found;
	char path[256];
	char version[64];        /* "" unknown */
	char version_source[32]; /* "symbol:libbpf_version_string", "file name", "" */
	char why[PROBE_REASON];  /* why not found or why version unknown */
};

enum { PROBE_LIB_XDP, PROBE_LIB_BPF, PROBE_LIB_PCAP, PROBE_LIB_CUDART, PROBE_LIB_NVML, PROBE_LIB_COUNT };

struct probe_drivers {
	tristate nvidia, nvidia_uvm, nvidia_peermem;
	char modules_source[64]; /* "/proc/modules", "/sys/module", "" */
	char modules_note[PROBE_REASON];
	tristate dmabuf;
	char dmabuf_note[PROBE_REASON];
	char kernel_version[128];
};

struct probe_hugepages {
	int64_t free_2m, free_1g;   /* -1 unknown */
	int64_t total_2m, total_1g;
	char mount_point[256];      /* "" none */
};

struct probe_env {
	struct probe_cuda cuda;
	int nnetdevs;
	struct probe_netdev netdevs[PROBE_MAX_NETDEVS];
	char netdevs_note[PROBE_REASON];
	struct probe_lib libs[PROBE_LIB_COUNT];
	struct probe_drivers drivers;
	struct probe_hugepages huge;
	char host_kind[24];         /* bare_metal, vm, container, container_in_vm, unknown */
	char host_kind_evidence[PROBE_REASON];
	char nvml_driver_version[64];
};

void probe_cuda(struct probe_cuda *c);
void probe_netdevs(struct probe_env *e);
void probe_libs(struct probe_env *e);
void probe_drivers(struct probe_drivers *d);
void probe_hugepages(struct probe_hugepages *h);
void probe_host_kind(struct probe_env *e);
void probe_all(struct probe_env *e);

/* GPU utilization through NVML (dlopen), by canonical bus id. Returns 0 and
 * the percentage, or -1 and a reason. */
int probe_nvml_utilization(const char *bus_id, unsigned *gpu_pct, char *why, size_t why_len);

/* "13.0" from 13000; "unknown" for 0. */
const char *probe_cuda_ver_str(int v, char *buf, size_t len);
/* Names of the xdp modes implied by a netdev's probe, comma-separated. */
void probe_xdp_modes(const struct probe_netdev *n, const char **modes, int *nmodes);

/* Helpers used by several verbs. */
int strfmt(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void iso8601_utc_now(char *buf, size_t len);
int read_file_str(const char *path, char *buf, size_t len); /* 0 ok; strips trailing newline */
/* Exit code for a gnio error from opening a wire or device. */
int exit_code_for(gnio_error_t err);
void json_tristate(struct json *j, const char *key, tristate v);
const char *tristate_str(tristate v);
/* Write a whole env probe as a JSON object under key (NULL at top level). */
void probe_env_json(struct json *j, const char *key, const struct probe_env *e);

#endif
