/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/probe.c - environment probes (see probe.h). Every library that
 * may be missing is reached through dlopen, and every fact that cannot be
 * read is reported as unknown with the reason, never guessed.
 */
#include "probe.h"

#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "gnio/gpu.h"

/* ------------------------------------------------------------- helpers -- */

/* snprintf that may truncate on purpose: reasons and paths are cut to
 * their buffers rather than failing. */
int strfmt(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(dst, len, fmt, ap);
	va_end(ap);
	return n;
}

int read_file_str(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		buf[0] = 0;
		return -1;
	}
	fclose(f);
	size_t n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = 0;
	return 0;
}

static int path_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

void iso8601_utc_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int exit_code_for(gnio_error_t err)
{
	switch (err) {
	case GNIO_SUCCESS:
		return GNIO_EXIT_OK;
	case GNIO_ERROR_INVALID_VALUE:
		return GNIO_EXIT_USAGE; /* the spec or id itself is malformed */
	case GNIO_ERROR_NOT_FOUND:
	case GNIO_ERROR_NOT_PERMITTED:
	case GNIO_ERROR_NOT_SUPPORTED:
	case GNIO_ERROR_DRIVER:
		return GNIO_EXIT_ENV; /* the machine lacks it */
	default:
		return GNIO_EXIT_FAIL;
	}
}

const char *tristate_str(tristate v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

void json_tristate(struct json *j, const char *key, tristate v)
{
	if (v < 0)
		json_null(j, key);
	else
		json_bool(j, key, v);
}

const char *probe_cuda_ver_str(int v, char *buf, size_t len)
{
	if (v <= 0)
		strfmt(buf, len, "unknown");
	else
		strfmt(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
	return buf;
}

/* dlopen the first name that loads; records its real path. */
static void *open_first(const char *const *names, char *path, size_t path_len, char *why, size_t why_len)
{
	why[0] = 0;
	for (int i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			if (!why[0])
				strfmt(why, why_len, "%s", dlerror());
			continue;
		}
		struct link_map *lm = NULL;
		path[0] = 0;
		if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) {
			char *rp = realpath(lm->l_name, NULL);
			strfmt(path, path_len, "%s", rp ? rp : lm->l_name);
			free(rp);
		}
		return h;
	}
	return NULL;
}

/* "libxdp.so.1.3.0" -> "1.3.0": the version the file name carries. */
static int version_from_path(const char *path, char *out, size_t len)
{
	const char *s = strstr(path, ".so.");
	if (!s)
		return -1;
	s += 4;
	if (!isdigit((unsigned char)*s) || !strchr(s, '.'))
		return -1; /* a bare soname major says too little */
	strfmt(out, len, "%s", s);
	return 0;
}

/* --------------------------------------------------------------- CUDA -- */

/* Driver API values (cuda.h), fixed by NVIDIA's ABI. */
enum {
	CU_ATTR_SM_COUNT = 16,
	CU_ATTR_CAN_MAP_HOST_MEMORY = 19,
	CU_ATTR_UNIFIED_ADDRESSING = 41,
	CU_ATTR_CC_MAJOR = 75,
	CU_ATTR_CC_MINOR = 76,
	CU_ATTR_GPU_DIRECT_RDMA = 116,
	CU_ATTR_DMA_BUF = 124,
};

typedef int (*cu_int_fn)(int *);
typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_mem_fn)(size_t *, int);
typedef int (*cu_attr_fn)(int *, int, int);
typedef int (*cu_errname_fn)(int, const char **);

static void canon_bus_id(const char *in, char *out, size_t len)
{
	if (gnio_gpu_bus_id_canonical(in, out, len) != GNIO_SUCCESS)
		strfmt(out, len, "%s", in);
}

static void parse_nvcc(struct probe_cuda *c)
{
	char cand[3][256];
	int n = 0;
	const char *home = getenv("CUDA_HOME");
	if (home && *home)
		strfmt(cand[n++], sizeof(cand[0]), "%s/bin/nvcc", home);
	/* Search PATH, then the usual install location. */
	const char *p = getenv("PATH");
	cand[n][0] = 0;
	if (p) {
		char tmp[4096];
		strfmt(tmp, sizeof(tmp), "%s", p);
		char *save = NULL;
		for (char *d = strtok_r(tmp, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char full[512];
			strfmt(full, sizeof(full), "%s/nvcc", d);
			if (access(full, X_OK) == 0) {
				strfmt(cand[n], sizeof(cand[0]), "%s", full);
				break;
			}
		}
		if (cand[n][0])
			n++;
	}
	strfmt(cand[n++], sizeof(cand[0]), "/usr/local/cuda/bin/nvcc");

	for (int i = 0; i < n; i++) {
		if (access(cand[i], X_OK) != 0)
			continue;
		char cmd[600];
		strfmt(cmd, sizeof(cmd), "'%s' --version 2>/dev/null", cand[i]);
		FILE *f = popen(cmd, "r");
		if (!f)
			continue;
		char line[256];
		while (fgets(line, sizeof(line), f)) {
			char *r = strstr(line, "release ");
			if (r) {
				int maj = 0, min = 0;
				/* nvcc's own output, not user input: a failed match leaves it unknown */
				if (sscanf(r, "release %d.%d", &maj, &min) == 2) // NOLINT(cert-err34-c)
					strfmt(c->nvcc_version, sizeof(c->nvcc_version), "%d.%d", maj, min);
			}
		}
		pclose(f);
		c->nvcc_found = 1;
		strfmt(c->nvcc_path, sizeof(c->nvcc_path), "%s", cand[i]);
		return;
	}
}

void probe_cuda(struct probe_cuda *c)
{
	static const char *const rt_names[] = {
		"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
		"/usr/local/cuda/lib64/libcudart.so", "/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so",
		NULL};
	static const char *const drv_names[] = {"libcuda.so.1", "libcuda.so", NULL};
	char why[PROBE_REASON];

	memset(c, 0, sizeof(*c));
	c->init_rc = -1;
	c->consistent = -1;

	void *rt = open_first(rt_names, c->rt_path, sizeof(c->rt_path), why, sizeof(why));
	if (rt) {
		c->rt_found = 1;
		cu_int_fn rtv = (cu_int_fn)dlsym(rt, "cudaRuntimeGetVersion");
		int v = 0;
		if (rtv && rtv(&v) == 0)
			c->rt_version = v;
		/* The runtime stays loaded: unloading cudart at exit can race its
		 * own destructors. */
	}

	parse_nvcc(c);

	void *drv = open_first(drv_names, c->drv_path, sizeof(c->drv_path), why, sizeof(why));
	if (!drv) {
		strfmt(c->gpus_reason, sizeof(c->gpus_reason),
			 "no NVIDIA driver: libcuda.so.1 cannot be loaded (%s)", why);
		goto versions;
	}
	c->drv_found = 1;
	cu_int_fn dver = (cu_int_fn)dlsym(drv, "cuDriverGetVersion");
	cu_init_fn init = (cu_init_fn)dlsym(drv, "cuInit");
	cu_int_fn count = (cu_int_fn)dlsym(drv, "cuDeviceGetCount");
	cu_get_fn get = (cu_get_fn)dlsym(drv, "cuDeviceGet");
	cu_name_fn name = (cu_name_fn)dlsym(drv, "cuDeviceGetName");
	cu_name_fn busid = (cu_name_fn)dlsym(drv, "cuDeviceGetPCIBusId");
	cu_mem_fn mem = (cu_mem_fn)dlsym(drv, "cuDeviceTotalMem_v2");
	cu_attr_fn attr = (cu_attr_fn)dlsym(drv, "cuDeviceGetAttribute");
	cu_errname_fn errname = (cu_errname_fn)dlsym(drv, "cuGetErrorName");
	int v = 0;
	if (dver && dver(&v) == 0)
		c->drv_version = v;
	if (!init || !count || !get || !name || !busid || !mem || !attr) {
		strfmt(c->gpus_reason, sizeof(c->gpus_reason), "%s lacks driver API entry points", c->drv_path);
		goto versions;
	}
	c->init_rc = init(0);
	if (c->init_rc != 0) {
		const char *en = NULL;
		if (errname)
			errname(c->init_rc, &en);
		strfmt(c->gpus_reason, sizeof(c->gpus_reason), "cuInit failed: %s (%d)", en ? en : "?",
			 c->init_rc);
		goto versions;
	}
	int n = 0;
	if (count(&n) != 0 || n == 0) {
		strfmt(c->gpus_reason, sizeof(c->gpus_reason), "the CUDA driver reports no devices");
		goto versions;
	}
	for (int i = 0; i < n && c->ngpus < PROBE_MAX_GPUS; i++) {
		struct probe_gpu *g = &c->gpus[c->ngpus];
		int dev, a;
		size_t bytes = 0;
		char raw[64];
		if (get(&dev, i) != 0)
			continue;
		memset(g, 0, sizeof(*g));
		g->ordinal = i;
		if (name(g->name, sizeof(g->name), dev) != 0)
			strfmt(g->name, sizeof(g->name), "unknown");
		if (busid(raw, sizeof(raw), dev) == 0)
			canon_bus_id(raw, g->bus_id, sizeof(g->bus_id));
		if (mem(&bytes, dev) == 0)
			g->memory_bytes = bytes;
		g->cc_major = attr(&a, CU_ATTR_CC_MAJOR, dev) == 0 ? a : -1;
		g->cc_minor = attr(&a, CU_ATTR_CC_MINOR, dev) == 0 ? a : -1;
		g->sm_count = attr(&a, CU_ATTR_SM_COUNT, dev) == 0 ? a : -1;
		g->can_map_host_memory = attr(&a, CU_ATTR_CAN_MAP_HOST_MEMORY, dev) == 0 ? !!a : -1;
		g->unified_addressing = attr(&a, CU_ATTR_UNIFIED_ADDRESSING, dev) == 0 ? !!a : -1;
		g->gpudirect_rdma = attr(&a, CU_ATTR_GPU_DIRECT_RDMA, dev) == 0 ? !!a : -1;
		g->dmabuf = attr(&a, CU_ATTR_DMA_BUF, dev) == 0 ? !!a : -1;
		c->ngpus++;
	}
	if (!c->ngpus)
		strfmt(c->gpus_reason, sizeof(c->gpus_reason), "cuDeviceGet failed for every device");

versions:
	/* Consistency: the runtime must not be newer than the driver, and code
	 * built by nvcc targets the runtime of the same major version. */
	{
		char a[16], b[16];
		int nv_major = 0, nv_minor = 0;
		if (c->nvcc_version[0]) /* written above as "%d.%d" */
			sscanf(c->nvcc_version, "%d.%d", &nv_major, &nv_minor); // NOLINT(cert-err34-c)
		if (!c->rt_version || !c->drv_version) {
			c->consistent = -1;
			strfmt(c->consistency_note, sizeof(c->consistency_note),
				 "cannot compare: %s missing", !c->drv_version ? "CUDA driver" : "CUDA runtime");
		} else if (c->rt_version > c->drv_version) {
			c->consistent = 0;
			strfmt(c->consistency_note, sizeof(c->consistency_note),
				 "runtime %s is newer than the driver's CUDA %s: update the driver",
				 probe_cuda_ver_str(c->rt_version, a, sizeof(a)),
				 probe_cuda_ver_str(c->drv_version, b, sizeof(b)));
		} else if (nv_major && nv_major != c->rt_version / 1000) {
			c->consistent = 0;
			strfmt(c->consistency_note, sizeof(c->consistency_note),
				 "nvcc %s and runtime %s differ in major version", c->nvcc_version,
				 probe_cuda_ver_str(c->rt_version, a, sizeof(a)));
		} else {
			c->consistent = 1;
			strfmt(c->consistency_note, sizeof(c->consistency_note),
				 "runtime %s <= driver CUDA %s%s", probe_cuda_ver_str(c->rt_version, a, sizeof(a)),
				 probe_cuda_ver_str(c->drv_version, b, sizeof(b)),
				 nv_major ? ", nvcc major matches" : " (no nvcc to compare)");
		}
	}
}

/* NVML: only the handful of calls the CLI needs. */
typedef int (*nvml_void_fn)(void);
typedef int (*nvml_str_fn)(char *, unsigned);
typedef int (*nvml_bybus_fn)(const char *, void **);
struct nvml_util { unsigned gpu, memory; };
typedef int (*nvml_util_fn)(void *, struct nvml_util *);

static void *nvml_open(char *path, size_t plen, char *why, size_t wlen)
{
	static const char *const names[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL};
	return open_first(names, path, plen, why, wlen);
}

int probe_nvml_utilization(const char *bus_id, unsigned *gpu_pct, char *why, size_t why_len)
{
	char path[256], w[PROBE_REASON];
	void *h = nvml_open(path, sizeof(path), w, sizeof(w));
	if (!h) {
		strfmt(why, why_len, "NVML not available (%s)", w);
		return -1;
	}
	nvml_void_fn init = (nvml_void_fn)dlsym(h, "nvmlInit_v2");
	nvml_void_fn fini = (nvml_void_fn)dlsym(h, "nvmlShutdown");
	nvml_bybus_fn bybus = (nvml_bybus_fn)dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
	nvml_util_fn util = (nvml_util_fn)dlsym(h, "nvmlDeviceGetUtilizationRates");
	if (!init || !fini || !bybus || !util) {
		strfmt(why, why_len, "NVML lacks the utilization entry points");
		return -1;
	}
	int rc = init();
	if (rc != 0) {
		strfmt(why, why_len, "nvmlInit failed (%d)", rc);
		return -1;
	}
	void *dev = NULL;
	struct nvml_util u;
	rc = bybus(bus_id, &dev);
	if (rc == 0)
		rc = util(dev, &u);
	fini();
	if (rc != 0) {
		strfmt(why, why_len, "NVML query for %s failed (%d)", bus_id, rc);
		return -1;
	}
	*gpu_pct = u.gpu;
	return 0;
}

/* ---------------------------------------------------------- libraries -- */

typedef const char *(*str_fn)(void);

static void probe_one_lib(struct probe_lib *l, const char *const *names, const char *ver_sym)
{
	void *h = open_first(names, l->path, sizeof(l->path), l->why, sizeof(l->why));
	if (!h)
		return;
	l->found = 1;
	l->why[0] = 0;
	if (ver_sym) {
		str_fn f = (str_fn)dlsym(h, ver_sym);
		if (f) {
			const char *s = f();
			/* pcap_lib_version says "libpcap version 1.10.3 (with ...)". */
			const char *d = s;
			while (d && *d && !isdigit((unsigned char)*d))
				d++;
			if (d && *d) {
				size_t k = strcspn(d, " ");
				strfmt(l->version, sizeof(l->version), "%.*s", (int)k, d);
				strfmt(l->version_source, sizeof(l->version_source), "symbol");
				return;
			}
		}
	}
	if (version_from_path(l->path, l->version, sizeof(l->version)) == 0) {
		strfmt(l->version_source, sizeof(l->version_source), "file name");
		return;
	}
	strfmt(l->why, sizeof(l->why), "loaded from %s but it exposes no version", l->path);
}

void probe_libs(struct probe_env *e)
{
	static const char *const xdp[] = {"libxdp.so.1", "libxdp.so", NULL};
	static const char *const bpf[] = {"libbpf.so.1", "libbpf.so.0", "libbpf.so", NULL};
	static const char *const pcap[] = {"libpcap.so.0.8", "libpcap.so.1", "libpcap.so", NULL};
	static const char *const nvml[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL};
	struct probe_lib *L = e->libs;

	memset(L, 0, sizeof(e->libs));
	L[PROBE_LIB_XDP].name = "libxdp";
	L[PROBE_LIB_BPF].name = "libbpf";
	L[PROBE_LIB_PCAP].name = "libpcap";
	L[PROBE_LIB_CUDART].name = "cudart";
	L[PROBE_LIB_NVML].name = "nvml";
	probe_one_lib(&L[PROBE_LIB_XDP], xdp, NULL); /* libxdp has no version call */
	probe_one_lib(&L[PROBE_LIB_BPF], bpf, "libbpf_version_string");
	probe_one_lib(&L[PROBE_LIB_PCAP], pcap, "pcap_lib_version");

	/* cudart: probe_cuda already loaded it and asked its version. */
	struct probe_lib *c = &L[PROBE_LIB_CUDART];
	c->found = e->cuda.rt_found;
	strfmt(c->path, sizeof(c->path), "%s", e->cuda.rt_path);
	if (e->cuda.rt_version) {
		probe_cuda_ver_str(e->cuda.rt_version, c->version, sizeof(c->version));
		strfmt(c->version_source, sizeof(c->version_source), "symbol");
	} else if (!c->found) {
		strfmt(c->why, sizeof(c->why), "libcudart.so not on the loader path or in /usr/local/cuda/lib64");
	}

	struct probe_lib *n = &L[PROBE_LIB_NVML];
	void *h = open_first(nvml, n->path, sizeof(n->path), n->why, sizeof(n->why));
	if (h) {
		n->found = 1;
		n->why[0] = 0;
		nvml_void_fn init = (nvml_void_fn)dlsym(h, "nvmlInit_v2");
		nvml_void_fn fini = (nvml_void_fn)dlsym(h, "nvmlShutdown");
		nvml_str_fn ver = (nvml_str_fn)dlsym(h, "nvmlSystemGetNVMLVersion");
		nvml_str_fn dver = (nvml_str_fn)dlsym(h, "nvmlSystemGetDriverVersion");
		int rc = init ? init() : -1;
		if (rc == 0) {
			if (ver && ver(n->version, sizeof(n->version)) == 0)
				strfmt(n->version_source, sizeof(n->version_source), "symbol");
			if (dver)
				dver(e->nvml_driver_version, sizeof(e->nvml_driver_version));
			if (fini)
				fini();
		} else {
			strfmt(n->why, sizeof(n->why), "nvmlInit failed (%d)", rc);
		}
		if (!n->version[0] && version_from_path(n->path, n->version, sizeof(n->version)) == 0)
			strfmt(n->version_source, sizeof(n->version_source), "file name");
	}
}

/* ------------------------------------------------------------ netdevs -- */

/* Generic-netlink "netdev" family: ask each device's xdp-features. Values
 * from include/uapi/linux/netdev.h (absent from older libc headers). */
enum { NETDEV_CMD_DEV_GET_ = 1, NETDEV_A_DEV_IFINDEX_ = 1, NETDEV_A_DEV_XDP_FEATURES_ = 3 };
enum {
	XDP_ACT_BASIC = 1, XDP_ACT_REDIRECT = 2, XDP_ACT_NDO_XMIT = 4, XDP_ACT_XSK_ZEROCOPY = 8,
	XDP_ACT_HW_OFFLOAD = 16,
};

struct nlreq {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[256];
};

static void nl_put_attr(struct nlreq *r, int type, const void *data, int len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));
	a->nla_type = (uint16_t)type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, (size_t)len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static int genl_family(int fd, const char *name)
{
	struct nlreq r;
	memset(&r, 0, sizeof(r));
	r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.n.nlmsg_type = GENL_ID_CTRL;
	r.n.nlmsg_flags = NLM_F_REQUEST;
	r.n.nlmsg_seq = 1;
	r.g.cmd = CTRL_CMD_GETFAMILY;
	r.g.version = 1;
	nl_put_attr(&r, CTRL_ATTR_FAMILY_NAME, name, (int)strlen(name) + 1);
	if (send(fd, &r, r.n.nlmsg_len, 0) < 0)
		return -1;
	char buf[8192];
	ssize_t len = recv(fd, buf, sizeof(buf), 0);
	if (len <= 0)
		return -1;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	if (!NLMSG_OK(h, (unsigned)len) || h->nlmsg_type == NLMSG_ERROR)
		return -1;
	char *p = (char *)NLMSG_DATA(h) + GENL_HDRLEN;
	int rem = (int)h->nlmsg_len - (int)NLMSG_LENGTH(GENL_HDRLEN);
	while (rem >= NLA_HDRLEN) {
		struct nlattr *a = (struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID) {
			uint16_t id;
			memcpy(&id, p + NLA_HDRLEN, sizeof(id));
			return id;
		}
		rem -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	return -1;
}

/* Fills xdp features of every netdev the kernel lists; returns -1 with a
 * reason when the family does not exist (kernels before 6.3). */
static int probe_xdp_features(struct probe_env *e, char *why, size_t why_len)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		strfmt(why, why_len, "generic netlink socket: %s", strerror(errno));
		return -1;
	}
	struct timeval tv = {.tv_sec = 1};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	int fam = genl_family(fd, "netdev");
	if (fam < 0) {
		strfmt(why, why_len, "kernel has no netdev netlink family (xdp-features need Linux 6.3+)");
		close(fd);
		return -1;
	}
	struct nlreq r;
	memset(&r, 0, sizeof(r));
	r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.n.nlmsg_type = (uint16_t)fam;
	r.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	r.n.nlmsg_seq = 2;
	r.g.cmd = NETDEV_CMD_DEV_GET_;
	r.g.version = 1;
	if (send(fd, &r, r.n.nlmsg_len, 0) < 0) {
		strfmt(why, why_len, "netdev dump: %s", strerror(errno));
		close(fd);
		return -1;
	}
	char buf[16384];
	int done = 0;
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		if (len <= 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			char *p = (char *)NLMSG_DATA(h) + GENL_HDRLEN;
			int rem = (int)h->nlmsg_len - (int)NLMSG_LENGTH(GENL_HDRLEN);
			uint32_t ifindex = 0;
			uint64_t feat = 0;
			int have = 0;
			while (rem >= NLA_HDRLEN) {
				struct nlattr *a = (struct nlattr *)p;
				if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
					break;
				int t = a->nla_type & NLA_TYPE_MASK;
				if (t == NETDEV_A_DEV_IFINDEX_)
					memcpy(&ifindex, p + NLA_HDRLEN, 4);
				else if (t == NETDEV_A_DEV_XDP_FEATURES_) {
					memcpy(&feat, p + NLA_HDRLEN, 8);
					have = 1;
				}
				rem -= NLA_ALIGN(a->nla_len);
				p += NLA_ALIGN(a->nla_len);
			}
			char name[IF_NAMESIZE];
			if (!have || !if_indextoname(ifindex, name))
				continue;
			for (int i = 0; i < e->nnetdevs; i++) {
				if (!strcmp(e->netdevs[i].name, name)) {
					e->netdevs[i].xdp_known = 1;
					e->netdevs[i].xdp_features = feat;
				}
			}
		}
	}
	close(fd);
	return 0;
}

void probe_xdp_modes(const struct probe_netdev *n, const char **modes, int *nmodes)
{
	int k = 0;
	modes[k++] = "skb"; /* generic XDP runs on any netdev */
	if (n->xdp_known && (n->xdp_features & XDP_ACT_BASIC))
		modes[k++] = "native";
	if (n->xdp_known && (n->xdp_features & XDP_ACT_XSK_ZEROCOPY))
		modes[k++] = "zerocopy";
	if (n->xdp_known && (n->xdp_features & XDP_ACT_HW_OFFLOAD))
		modes[k++] = "offload";
	*nmodes = k;
}

static int count_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static void netdev_driver(const char *name, char *out, size_t len)
{
	/* ethtool first: it also names virtual drivers (veth, bridge). */
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		struct ethtool_drvinfo di;
		struct ifreq ifr;
		memset(&di, 0, sizeof(di));
		memset(&ifr, 0, sizeof(ifr));
		di.cmd = ETHTOOL_GDRVINFO;
		strfmt(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
		ifr.ifr_data = (char *)&di;
		int rc = ioctl(fd, SIOCETHTOOL, &ifr);
		close(fd);
		if (rc == 0 && di.driver[0]) {
			strfmt(out, len, "%s", di.driver);
			return;
		}
	}
	char p[300], link[300];
	strfmt(p, sizeof(p), "/sys/class/net/%s/device/driver", name);
	ssize_t n = readlink(p, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		const char *b = strrchr(link, '/');
		strfmt(out, len, "%s", b ? b + 1 : link);
		return;
	}
	out[0] = 0;
}

static int cmp_netdev(const void *a, const void *b)
{
	return strcmp(((const struct probe_netdev *)a)->name, ((const struct probe_netdev *)b)->name);
}

void probe_netdevs(struct probe_env *e)
{
	e->nnetdevs = 0;
	e->netdevs_note[0] = 0;
	DIR *d = opendir("/sys/class/net");
	if (!d) {
		strfmt(e->netdevs_note, sizeof(e->netdevs_note), "/sys/class/net: %s", strerror(errno));
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)) && e->nnetdevs < PROBE_MAX_NETDEVS) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(e->netdevs[0].name))
			continue;
		struct probe_netdev *n = &e->netdevs[e->nnetdevs++];
		char p[300], v[64];
		memset(n, 0, sizeof(*n));
		strfmt(n->name, sizeof(n->name), "%s", de->d_name);
		netdev_driver(n->name, n->driver, sizeof(n->driver));
		strfmt(p, sizeof(p), "/sys/class/net/%s/operstate", n->name);
		if (read_file_str(p, n->state, sizeof(n->state)) != 0)
			strfmt(n->state, sizeof(n->state), "unknown");
		strfmt(p, sizeof(p), "/sys/class/net/%s/mtu", n->name);
		n->mtu = read_file_str(p, v, sizeof(v)) == 0 ? (int)strtol(v, NULL, 10) : -1;
		strfmt(p, sizeof(p), "/sys/class/net/%s/queues", n->name);
		n->rx_queues = count_prefix(p, "rx-");
		n->tx_queues = count_prefix(p, "tx-");
	}
	closedir(d);
	qsort(e->netdevs, (size_t)e->nnetdevs, sizeof(e->netdevs[0]), cmp_netdev);

	char why[PROBE_REASON];
	if (probe_xdp_features(e, why, sizeof(why)) != 0)
		strfmt(e->netdevs_note, sizeof(e->netdevs_note), "xdp_modes lists skb only: %s", why);
	for (int i = 0; i < e->nnetdevs; i++) {
		struct probe_netdev *n = &e->netdevs[i];
		if (n->xdp_known)
			strfmt(n->xdp_note, sizeof(n->xdp_note), "from the kernel's xdp-features 0x%llx",
				 (unsigned long long)n->xdp_features);
		else
			strfmt(n->xdp_note, sizeof(n->xdp_note), "native support unknown: kernel gave no xdp-features");
	}
}

/* ------------------------------------------------------------ drivers -- */

static tristate module_loaded(const char *proc_modules, int have_sys, const char *name)
{
	if (proc_modules) {
		size_t n = strlen(name);
		for (const char *p = proc_modules; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (!strncmp(p, name, n) && p[n] == ' ')
				return 1;
		return 0;
	}
	if (have_sys) {
		char path[128];
		strfmt(path, sizeof(path), "/sys/module/%s", name);
		return path_exists(path);
	}
	return -1;
}

/* 1/0 when the kernel config names CONFIG_DMA_SHARED_BUFFER, -1 unreadable. */
static tristate kconfig_dmabuf(char *src, size_t len)
{
	struct utsname u;
	char path[300], cmd[400], line[256];
	FILE *f = NULL;
	int is_pipe = 0;
	uname(&u);
	strfmt(path, sizeof(path), "/boot/config-%s", u.release);
	if ((f = fopen(path, "r"))) {
		strfmt(src, len, "%s", path);
	} else if (path_exists("/proc/config.gz")) {
		strfmt(cmd, sizeof(cmd), "gzip -dc /proc/config.gz 2>/dev/null");
		f = popen(cmd, "r");
		is_pipe = 1;
		strfmt(src, len, "/proc/config.gz");
	}
	if (!f)
		return -1;
	tristate r = 0;
	int any = 0;
	while (fgets(line, sizeof(line), f)) {
		any = 1;
		if (!strncmp(line, "CONFIG_DMA_SHARED_BUFFER=y", 26))
			r = 1;
	}
	if (is_pipe)
		pclose(f);
	else
		fclose(f);
	return any ? r : -1;
}

void probe_drivers(struct probe_drivers *d)
{
	memset(d, 0, sizeof(*d));
	struct utsname u;
	if (uname(&u) == 0)
		strfmt(d->kernel_version, sizeof(d->kernel_version), "%s", u.release);

	char *mods = NULL;
	FILE *f = fopen("/proc/modules", "r");
	if (f) {
		size_t cap = 1 << 16, n = 0;
		mods = malloc(cap);
		size_t k;
		while (mods && (k = fread(mods + n, 1, cap - 1 - n, f)) > 0) {
			n += k;
			if (n + 1 >= cap) {
				char *m = realloc(mods, cap * 2);
				if (!m)
					break;
				mods = m;
				cap *= 2;
			}
		}
		if (mods)
			mods[n] = 0;
		fclose(f);
		strfmt(d->modules_source, sizeof(d->modules_source), "/proc/modules");
	}
	int have_sys = !mods && path_exists("/sys/module");
	if (have_sys) {
		strfmt(d->modules_source, sizeof(d->modules_source), "/sys/module");
		strfmt(d->modules_note, sizeof(d->modules_note),
			 "/proc/modules unreadable; a module counts as loaded when /sys/module/NAME exists");
	} else if (!mods) {
		strfmt(d->modules_note, sizeof(d->modules_note), "neither /proc/modules nor /sys/module is readable");
	}
	d->nvidia = module_loaded(mods, have_sys, "nvidia");
	d->nvidia_uvm = module_loaded(mods, have_sys, "nvidia_uvm");
	d->nvidia_peermem = module_loaded(mods, have_sys, "nvidia_peermem");
	free(mods);

	/* dma-buf: the exporter framework is there when sysfs or dma-heap show it
	 * or the kernel config says so. Whether a GPU can export is per device
	 * (see gpus[].dmabuf in caps). */
	char src[300] = "";
	if (path_exists("/sys/kernel/dmabuf")) {
		d->dmabuf = 1;
		strfmt(d->dmabuf_note, sizeof(d->dmabuf_note), "/sys/kernel/dmabuf exists");
	} else if (path_exists("/dev/dma_heap")) {
		d->dmabuf = 1;
		strfmt(d->dmabuf_note, sizeof(d->dmabuf_note), "/dev/dma_heap exists");
	} else {
		d->dmabuf = kconfig_dmabuf(src, sizeof(src));
		if (d->dmabuf < 0)
			strfmt(d->dmabuf_note, sizeof(d->dmabuf_note),
				 "no /sys/kernel/dmabuf, no /dev/dma_heap and no readable kernel config");
		else
			strfmt(d->dmabuf_note, sizeof(d->dmabuf_note), "CONFIG_DMA_SHARED_BUFFER%s in %s",
				 d->dmabuf ? "=y" : " not set", src);
	}
}

/* ---------------------------------------------------------- hugepages -- */

static int64_t read_i64(const char *path)
{
	char v[64];
	return read_file_str(path, v, sizeof(v)) == 0 ? strtoll(v, NULL, 10) : -1;
}

void probe_hugepages(struct probe_hugepages *h)
{
	memset(h, 0, sizeof(*h));
	h->free_2m = read_i64("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages");
	h->total_2m = read_i64("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages");
	h->free_1g = read_i64("/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages");
	h->total_1g = read_i64("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages");
	FILE *f = fopen("/proc/mounts", "r");
	char line[1024];
	while (f && fgets(line, sizeof(line), f)) {
		char dev[256], mnt[256], type[64];
		if (sscanf(line, "%255s %255s %63s", dev, mnt, type) == 3 && !strcmp(type, "hugetlbfs")) {
			strfmt(h->mount_point, sizeof(h->mount_point), "%s", mnt);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* ---------------------------------------------------------- host kind -- */

void probe_host_kind(struct probe_env *e)
{
	int container = 0, vm = 0;
	char ev[PROBE_REASON] = "", v[128];
	size_t o = 0;

	if (path_exists("/.dockerenv")) {
		container = 1;
		o += (size_t)strfmt(ev + o, sizeof(ev) - o, "/.dockerenv; ");
	} else if (path_exists("/run/.containerenv")) {
		container = 1;
		o += (size_t)strfmt(ev + o, sizeof(ev) - o, "/run/.containerenv; ");
	} else if (getenv("container")) {
		container = 1;
		o += (size_t)strfmt(ev + o, sizeof(ev) - o, "$container=%s; ", getenv("container"));
	}
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[2048];
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			if (strstr(line, " hypervisor")) {
				vm = 1;
				o += (size_t)strfmt(ev + o, sizeof(ev) - o, "cpu flag hypervisor; ");
			}
			break;
		}
	}
	if (f)
		fclose(f);
	if (read_file_str("/sys/class/dmi/id/sys_vendor", v, sizeof(v)) == 0 && o < sizeof(ev))
		o += (size_t)strfmt(ev + o, sizeof(ev) - o, "dmi vendor %s; ", v);

	if (container && vm)
		strfmt(e->host_kind, sizeof(e->host_kind), "container_in_vm");
	else if (container)
		strfmt(e->host_kind, sizeof(e->host_kind), "container");
	else if (vm)
		strfmt(e->host_kind, sizeof(e->host_kind), "vm");
	else if (f)
		strfmt(e->host_kind, sizeof(e->host_kind), "bare_metal");
	else
		strfmt(e->host_kind, sizeof(e->host_kind), "unknown");
	if (o >= 2 && o < sizeof(ev))
		ev[o - 2] = 0;
	else if (!o)
		strfmt(ev, sizeof(ev), "no container marker and no hypervisor cpu flag");
	strfmt(e->host_kind_evidence, sizeof(e->host_kind_evidence), "%s", ev);
}

void probe_all(struct probe_env *e)
{
	memset(e, 0, sizeof(*e));
	probe_cuda(&e->cuda);
	probe_netdevs(e);
	probe_libs(e);
	probe_drivers(&e->drivers);
	probe_hugepages(&e->huge);
	probe_host_kind(e);
}
