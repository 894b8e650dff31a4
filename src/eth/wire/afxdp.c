/* SPDX-License-Identifier: MIT */
/*
 * src/eth/wire/afxdp.c - the `afxdp:IFACE[@Q][,opts]` wire: AF_XDP sockets
 * through libxdp's xsk API.
 *
 * Options: mode=native|skb (default: native, falling back to skb),
 *          copy=1 | zc=1     (default: let the kernel pick, zero-copy first),
 *          umem=internal     (never use the registered pool as the UMEM),
 *          force=1           (remove a foreign XDP program found on IFACE),
 *          frames=N          (internal UMEM chunks per socket, default 4096).
 *
 * One socket per queue id, shared by that id's RX and TX queues. Its UMEM is
 * the registered RX payload pool when that pool is CPU-visible, page aligned
 * and has 2048..4096-byte power-of-two slots: then frames land where the GPU
 * reads them and rx_burst_zc hands out pool offsets. Otherwise the UMEM is
 * internal and rx_burst copies each frame out. TX always copies the frame
 * into a UMEM chunk (the TX pool is a different allocation than the UMEM).
 *
 * XDP program "gnio_xsk": with GNIO_HAVE_XDP_FLOW (clang found at configure
 * time) it is the flow program (src/flow/xdp_flow.bpf.c): without rules it
 * redirects every frame to the socket of its queue (XDP_PASS when the queue
 * has none); with a gnio_flow bound to the wire it decides gnio / kernel /
 * drop per rule and counts hits. It is loaded with libbpf from the object
 * embedded in the library and attached through libxdp, which first tries its
 * multi-program dispatcher and, where the kernel refuses it (no freplace, no
 * bpffs: these kernels), attaches the program on its own. Without clang we
 * load a six-instruction redirect program with libbpf instead. Either way
 * the socket is created with XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD (libxdp's
 * own default program is never used). An flock on
 * /run/gnio/afxdp-<netns>-<ifindex>.lock marks a live owner of the program,
 * taken with the first RX queue, so an attached "gnio_xsk" program whose
 * lock is free was left by a killed run and is removed then. A wire that
 * only sends attaches nothing and takes no lock: senders on other queues of
 * the interface may run beside its receiver.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "core/errmsg.h"
#include "core/lockfile.h"
#include "eth/wire.h"
#include "eth/wire_opts.h"
#include "flow/flow_priv.h"
#ifdef GNIO_HAVE_XDP_FLOW
#include "flow/flow_xdp.h"
#endif

#define COMP "afxdp"
#define PROG_NAME "gnio_xsk"
#define MAX_QUEUES 64
#define XDP_HEADROOM 256 /* XDP_PACKET_HEADROOM: kernel headroom in each chunk */
#define INT_CHUNK 4096u
#define DEF_FRAMES 4096u
#define TX_POOL_MAX 256u  /* TX chunks taken from a pool UMEM */
#define FILL_RESERVE 512u /* fill buffers to keep while the GPU ring is full */
#define TX_RING_MIN 2048u /* TX/completion ring entries, at least */

struct afxdp_wire;

struct xq {
	struct afxdp_wire *w;
	uint16_t qid;
	int refs;           /* rxq and/or txq on this socket */
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq, rx;
	uint8_t *area;      /* UMEM base */
	uint64_t area_size;
	int area_owned;     /* internal UMEM: munmap on close */
	int zc_pool;        /* UMEM is the registered RX pool */
	int kernel_zc;      /* bound with XDP_ZEROCOPY */
	int fd;
	uint32_t chunk;
	uint32_t rx_cap;    /* largest frame a chunk takes */
	uint64_t *tx_free;  /* stack of free TX chunk addresses */
	uint32_t tx_nfree, tx_total;
	uint64_t tx_chunk_base; /* TX chunks start here; lower addresses are RX chunks */
	uint32_t tx_ring_size;  /* TX and completion ring entries */
	uint32_t tx_inflight; /* in TX ring or completion ring */
	uint32_t tx_done;     /* completions reaped by tx_burst, not yet reported */
	int has_rx, has_tx;
	/* internal UMEM with a CPU-visible pool: rx_burst_zc copies each frame
	 * into a free pool slot; released slots come back through this FIFO */
	uint8_t *pool;
	uint32_t pool_slot;
	uint64_t *slots;
	uint32_t slots_mask, slots_head, slots_tail;
};

struct afxdp_wire {
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint16_t qid;      /* @Q */
	int force_mode;    /* 0 auto, XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE */
	int force_copy;    /* 0 auto, 1 copy, 2 zero-copy */
	uint32_t frames;
	int umem_internal; /* umem=internal: never use the pool as UMEM */
	int force;         /* force=1: remove a foreign XDP program */
	uint32_t attach_flags;
	int prog_fd, map_fd;
	struct gnio_lockfile lock; /* held while the wire is open; removed on close */
	uint32_t prog_id;
	/* the flow program (GNIO_HAVE_XDP_FLOW): loaded while attached; owns
	 * prog_fd and map_fd then. flow_table is the bound flow's current rule
	 * table (NULL: no flow), installed whenever the program is loaded. */
	struct flow_xdp *xdp;
	struct fk_table *flow_table;
	int xdp_dispatcher; /* attached through libxdp's dispatcher */
	uint32_t mtu;
	uint32_t nrxq, ntxq;
	char mode[32];
	struct xq *q[MAX_QUEUES];
};

/* ----------------------------------------------------------------- env -- */

static int has_cap(int cap)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return 1; /* cannot tell: let the kernel decide */
	return !!(d[cap / 32].effective & (1u << (cap % 32)));
}

static gnio_error_t need_caps(const char *ifname)
{
	static const struct { int cap; const char *name; } caps[] = {
		{CAP_NET_RAW, "CAP_NET_RAW"},
		{CAP_NET_ADMIN, "CAP_NET_ADMIN"},
		{39 /* CAP_BPF */, "CAP_BPF"},
	};
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		/* CAP_SYS_ADMIN covers CAP_BPF on kernels that predate it */
		if (caps[i].cap == 39 && has_cap(CAP_SYS_ADMIN))
			continue;
		if (!has_cap(caps[i].cap))
			return gnio_fail(GNIO_ERROR_NOT_PERMITTED, COMP,
					 "afxdp:%s needs %s (run as root or grant it with setcap)",
					 ifname, caps[i].name);
	}
	return GNIO_SUCCESS;
}

/* Interface exists and is up; returns its MTU. */
static gnio_error_t iface_check(const char *ifname, int *ifindex, uint32_t *mtu)
{
	struct ifreq ifr;
	int fd;

	if (!ifname[0])
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afxdp: no interface given (afxdp:IFACE[@Q])");
	*ifindex = (int)if_nametoindex(ifname);
	if (!*ifindex)
		return gnio_fail(GNIO_ERROR_NOT_FOUND, COMP, "interface %s not found", ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "socket: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		close(fd);
		return gnio_fail(GNIO_ERROR_BAD_STATE, COMP,
				 "interface %s is down (ip link set %s up)", ifname, ifname);
	}
	*mtu = 1500;
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
		*mtu = (uint32_t)ifr.ifr_mtu;
	close(fd);
	return GNIO_SUCCESS;
}

/* ------------------------------------------------------ XDP program -- */

#ifndef GNIO_HAVE_XDP_FLOW
/* Without the flow program: r2 = ctx->rx_queue_index; r1 = xsks map; r3 =
 * XDP_PASS (action when the slot is empty); return bpf_redirect_map(r1, r2,
 * r3). */
static int load_prog(int map_fd)
{
	struct bpf_insn insns[] = {
		{.code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = 2, .src_reg = 1,
		 .off = offsetof(struct xdp_md, rx_queue_index)},
		{.code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1, .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd},
		{0},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 3, .imm = XDP_PASS},
		{.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect_map},
		{.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o);

	return bpf_prog_load(BPF_PROG_TYPE_XDP, PROG_NAME, "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &o);
}
#endif

static int prog_name_by_id(uint32_t id, char *name, size_t len)
{
	struct bpf_prog_info info;
	uint32_t ilen = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	name[0] = 0;
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) == 0)
		snprintf(name, len, "%s", info.name);
	close(fd);
	return 0;
}

/* The lock file proves a live owner of our program on this interface.
 * GNIO_LOCKFILE_BUSY: another gnio process owns it. */
static enum gnio_lockfile_result take_lock(struct gnio_lockfile *lf, int ifindex)
{
	char path[128];
	struct stat st;
	enum gnio_lockfile_result r;

	if (stat("/proc/self/ns/net", &st))
		st.st_ino = 0;
	mkdir("/run/gnio", 0755);
	/* Owners killed on other interfaces and in other namespaces leave
	 * theirs: the next taker clears them, so the directory stays small. */
	gnio_lockfile_sweep("/run/gnio", "afxdp-");
	snprintf(path, sizeof(path), "/run/gnio/afxdp-%lu-%d.lock", (unsigned long)st.st_ino, ifindex);
	r = gnio_lockfile_take(lf, path);
	if (r == GNIO_LOCKFILE_NO_FILE) {
		snprintf(path, sizeof(path), "/tmp/gnio-afxdp-%lu-%d.lock", (unsigned long)st.st_ino, ifindex);
		r = gnio_lockfile_take(lf, path);
	}
	return r;
}

/* Remove a program left on the interface: ours when the lock was free,
 * anybody's with force=1. */
static gnio_error_t clear_stale(struct afxdp_wire *w, int force)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, qo);
	struct { uint32_t id, flag; } att[2];
	char name[32];
	int n = 0;

	if (bpf_xdp_query(w->ifindex, 0, &qo))
		return GNIO_SUCCESS; /* no query support: attach will tell */
	if (qo.drv_prog_id)
		att[n].id = qo.drv_prog_id, att[n++].flag = XDP_FLAGS_DRV_MODE;
	if (qo.skb_prog_id)
		att[n].id = qo.skb_prog_id, att[n++].flag = XDP_FLAGS_SKB_MODE;
	for (int i = 0; i < n; i++) {
		prog_name_by_id(att[i].id, name, sizeof(name));
		if (strcmp(name, PROG_NAME) && !force)
			return gnio_fail(GNIO_ERROR_IN_USE, COMP,
					 "interface %s has XDP program '%s' (id %u) attached; remove it with "
					 "`xdp-loader unload %s --all` or open with force=1",
					 w->ifname, name, att[i].id, w->ifname);
		if (bpf_xdp_detach(w->ifindex, att[i].flag, NULL))
			return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP,
					 "cannot remove XDP program %u from %s: %s", att[i].id,
					 w->ifname, strerror(errno));
		GNIO_LOG_WARN(COMP, "removed XDP program '%s' (id %u, %s mode) left on %s by %s", name,
			      att[i].id, att[i].flag == XDP_FLAGS_DRV_MODE ? "native" : "skb", w->ifname,
			      strcmp(name, PROG_NAME) ? "another program (force=1)" : "a killed gnio run");
	}
	return GNIO_SUCCESS;
}

/* Before the first RX queue: take the interface's lock (another live gnio
 * receiver is IN_USE), and with it free, remove what a killed run left. */
static gnio_error_t own_interface(struct afxdp_wire *w)
{
	if (w->lock.fd >= 0)
		return GNIO_SUCCESS;
	if (take_lock(&w->lock, w->ifindex) == GNIO_LOCKFILE_BUSY)
		return gnio_fail(GNIO_ERROR_IN_USE, COMP, "afxdp:%s is in use by another gnio process that receives on it",
				 w->ifname);
	if (w->lock.fd >= 0) /* the lock was free: a gnio_xsk program still attached was left by a killed run */
		return clear_stale(w, w->force);
	return GNIO_SUCCESS;
}

#define XSK_ENTRIES(w) ((w)->nrxq > MAX_QUEUES ? (w)->nrxq : MAX_QUEUES)

/* Load the program the wire attaches: the flow program when built in, else
 * the raw redirect program. Sets prog_fd and map_fd (the XSKMAP). */
static gnio_error_t load_any_prog(struct afxdp_wire *w)
{
#ifdef GNIO_HAVE_XDP_FLOW
	gnio_error_t e = flow_xdp_open(FLOW_PROG_XDP, XSK_ENTRIES(w), &w->xdp);

	if (!e)
		e = flow_xdp_publish(w->xdp, w->flow_table);
	if (!e)
		e = flow_xdp_load(w->xdp);
	if (e)
		return e;
	w->prog_fd = flow_xdp_prog_fd(w->xdp);
	w->map_fd = flow_xdp_xsks_fd(w->xdp);
	return GNIO_SUCCESS;
#else
	w->map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "gnio_xsks", 4, 4, XSK_ENTRIES(w), NULL);
	if (w->map_fd < 0) {
		int err = errno;

		if (err == EPERM)
			return gnio_fail(GNIO_ERROR_NOT_PERMITTED, COMP,
					 "creating an XSKMAP was refused (needs CAP_BPF and CAP_NET_ADMIN)");
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "cannot create XSKMAP: %s", strerror(err));
	}
	w->prog_fd = load_prog(w->map_fd);
	if (w->prog_fd < 0)
		return gnio_fail(errno == EPERM ? GNIO_ERROR_NOT_PERMITTED : GNIO_ERROR_OPERATING_SYSTEM, COMP,
				 "cannot load the XDP redirect program: %s", strerror(errno));
	return GNIO_SUCCESS;
#endif
}

/* 0 or an errno; only if the interface has no XDP program in that mode. */
static int attach_mode(struct afxdp_wire *w, uint32_t mode)
{
#ifdef GNIO_HAVE_XDP_FLOW
	int ret = flow_xdp_attach(w->xdp, w->ifindex, mode, &w->xdp_dispatcher);

	return ret < 0 ? -ret : ret;
#else
	return bpf_xdp_attach(w->ifindex, w->prog_fd, mode | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL) ? errno : 0;
#endif
}

static gnio_error_t attach_prog(struct afxdp_wire *w)
{
	uint32_t try[2];
	int ntry = 0, err = 0;

	GNIO_CHECK(load_any_prog(w));
	if (w->force_mode)
		try[ntry++] = (uint32_t)w->force_mode;
	else
		try[ntry++] = XDP_FLAGS_DRV_MODE, try[ntry++] = XDP_FLAGS_SKB_MODE;
	for (int i = 0; i < ntry; i++) {
		err = attach_mode(w, try[i]);
		if (!err) {
			w->attach_flags = try[i];
			break;
		}
		GNIO_LOG_DBG(COMP, "attach in %s mode on %s: %s", try[i] == XDP_FLAGS_DRV_MODE ? "native" : "skb",
			     w->ifname, strerror(err));
	}
	if (!w->attach_flags) {
		if (err == EEXIST || err == EBUSY)
			return gnio_fail(GNIO_ERROR_IN_USE, COMP, "interface %s already has an XDP program", w->ifname);
		if (err == EPERM)
			return gnio_fail(GNIO_ERROR_NOT_PERMITTED, COMP,
					 "attaching XDP to %s was refused (needs CAP_NET_ADMIN)", w->ifname);
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "afxdp: cannot attach XDP to %s in %s mode: %s",
				 w->ifname,
				 !w->force_mode ? "native or skb" : w->force_mode == XDP_FLAGS_SKB_MODE ? "skb" : "native",
				 strerror(err));
	}
	if (w->xdp_dispatcher)
		GNIO_LOG_INFO(COMP, "%s: the XDP program went in through libxdp's multi-program dispatcher", w->ifname);
	{
		struct bpf_prog_info info;
		uint32_t ilen = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(w->prog_fd, &info, &ilen) == 0)
			w->prog_id = info.id;
	}
	return GNIO_SUCCESS;
}

static void detach_prog(struct afxdp_wire *w)
{
	if (w->attach_flags) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, ao, .old_prog_fd = w->prog_fd);
		int err = 0;

#ifdef GNIO_HAVE_XDP_FLOW
		if (w->xdp_dispatcher)
			err = flow_xdp_detach_dispatcher(w->xdp, w->ifindex, w->attach_flags);
		else
#endif
		/* old_prog_fd: only remove the program if it is still ours */
		if (bpf_xdp_detach(w->ifindex, w->attach_flags, &ao))
			err = errno;
		if (err)
			GNIO_LOG_WARN(COMP, "detaching XDP from %s: %s", w->ifname, strerror(err < 0 ? -err : err));
		w->attach_flags = 0;
		w->xdp_dispatcher = 0;
	}
#ifdef GNIO_HAVE_XDP_FLOW
	if (w->xdp) {
		/* the object owns the program and map fds */
		flow_xdp_close(w->xdp);
		w->xdp = NULL;
		w->prog_fd = w->map_fd = -1;
	}
#endif
	if (w->prog_fd >= 0)
		close(w->prog_fd);
	if (w->map_fd >= 0)
		close(w->map_fd);
	w->prog_fd = w->map_fd = -1;
}

/* ------------------------------------------------------ flow binding -- */

/* A gnio_flow bound to this wire hands its rule tables here (src/flow/flow.c
 * through gnio_afxdp_flow_hooks). Control calls: not concurrent with RX
 * queue open/close on the same wire. */
#ifdef GNIO_HAVE_XDP_FLOW
static gnio_error_t afxdp_flow_publish(void *wire, const struct fk_table *t)
{
	struct afxdp_wire *w = wire;
	struct fk_table *copy = NULL;

	if (t) {
		copy = malloc(sizeof(*copy));
		if (!copy)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
		memcpy(copy, t, sizeof(*copy));
	}
	if (w->xdp) { /* loaded: install now; returns once the old table is unused */
		gnio_error_t err = flow_xdp_publish(w->xdp, t);

		if (err) {
			free(copy);
			return err;
		}
	}
	free(w->flow_table);
	w->flow_table = copy; /* installed at the next load */
	return GNIO_SUCCESS;
}

static gnio_error_t afxdp_flow_read_hits(void *wire, uint64_t *slots)
{
	const struct afxdp_wire *w = wire;

	return flow_xdp_read_hits(w->xdp, slots); /* zeros before the program is opened */
}

static const struct flow_wire_hooks afxdp_flow_hooks = {
	.publish = afxdp_flow_publish,
	.read_hits = afxdp_flow_read_hits,
};

const struct flow_wire_hooks *gnio_afxdp_flow_hooks(void)
{
	return &afxdp_flow_hooks;
}
#else
const struct flow_wire_hooks *gnio_afxdp_flow_hooks(void)
{
	return NULL; /* no XDP flow program: the proxies do it all */
}
#endif

/* ---------------------------------------------------------------- wire -- */

static void afxdp_close(void *wire);

static void set_mode(struct afxdp_wire *w, const struct xq *q)
{
	const char *m = w->attach_flags == XDP_FLAGS_SKB_MODE ? "skb" : w->attach_flags ? "native" : "tx-only";
	const char *c = !q ? (w->force_copy == 1 ? "copy" : w->force_copy == 2 ? "zc" : "auto")
			   : q->kernel_zc ? "zc" : "copy";

	snprintf(w->mode, sizeof(w->mode), "%s,%s%s", m, c, !q ? "" : q->zc_pool ? ",umem=pool" : ",umem=int");
}

/* The options afxdp_open parses (gnio_dev_open refuses any other). */
const char gnio_wire_afxdp_options[] = "mode,copy,zc,umem,frames,force";

static gnio_error_t afxdp_open(struct gnio_dev *dev, const char *args, void **wire)
{
	struct afxdp_wire *w;
	char name[IF_NAMESIZE + 8], val[32];
	const char *opts;
	gnio_error_t err;
	char *at;

	(void)dev;
	opts = gnio_wire_split_args(args, name, sizeof(name));
	w = calloc(1, sizeof(*w));
	if (!w)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	w->prog_fd = w->map_fd = w->lock.fd = -1;
	w->frames = DEF_FRAMES;
	at = strchr(name, '@');
	if (at) {
		char *end;
		unsigned long q = strtoul(at + 1, &end, 10);

		if (*end || end == at + 1 || q >= MAX_QUEUES) {
			free(w);
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afxdp: bad queue '%s' (0..%d)", at + 1,
					 MAX_QUEUES - 1);
		}
		w->qid = (uint16_t)q;
		*at = 0;
	}
	if (strlen(name) >= IF_NAMESIZE) {
		free(w);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afxdp: interface name '%s' too long", name);
	}
	memcpy(w->ifname, name, strlen(name) + 1);
	if (gnio_wire_opt(opts, "mode", val, sizeof(val))) {
		if (!strcmp(val, "native") || !strcmp(val, "drv"))
			w->force_mode = XDP_FLAGS_DRV_MODE;
		else if (!strcmp(val, "skb") || !strcmp(val, "generic"))
			w->force_mode = XDP_FLAGS_SKB_MODE;
		else if (strcmp(val, "auto")) {
			free(w);
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afxdp: mode=%s (native|skb|auto)", val);
		}
	}
	{
		int copy = 0, zc = 0;

		if (gnio_wire_opt_flag(opts, "copy", &copy) < 0 || gnio_wire_opt_flag(opts, "zc", &zc) < 0 ||
		    gnio_wire_opt_flag(opts, "force", &w->force) < 0 || (copy && zc)) {
			free(w);
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP,
					 "afxdp: copy, zc and force take 0 or 1, and copy=1 excludes zc=1");
		}
		w->force_copy = copy ? 1 : zc ? 2 : 0;
	}
	if (gnio_wire_opt(opts, "umem", val, sizeof(val))) {
		if (!strcmp(val, "internal"))
			w->umem_internal = 1;
		else if (strcmp(val, "pool")) {
			free(w);
			return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afxdp: umem=%s (pool|internal)", val);
		}
	}
	if (gnio_wire_opt_u32(opts, "frames", 64, 1u << 20, &w->frames) < 0 || (w->frames & (w->frames - 1))) {
		free(w);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afxdp: frames takes a power of two, 64..1048576");
	}

	err = iface_check(w->ifname, &w->ifindex, &w->mtu);
	if (err)
		goto fail;
	err = need_caps(w->ifname);
	if (err)
		goto fail;
	/* a netdev always has one of each, even where sysfs does not say */
	w->nrxq = gnio_wire_sysfs_queues(w->ifname, "rx-");
	w->ntxq = gnio_wire_sysfs_queues(w->ifname, "tx-");
	w->nrxq = w->nrxq ? w->nrxq : 1;
	w->ntxq = w->ntxq ? w->ntxq : 1;
	if (w->qid >= w->nrxq) {
		err = gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afxdp:%s@%u: interface has %u RX queue(s)",
				w->ifname, w->qid, w->nrxq);
		goto fail;
	}
	set_mode(w, NULL);
	*wire = w;
	return GNIO_SUCCESS;
fail:
	afxdp_close(w);
	return err;
}

static void afxdp_close(void *wire)
{
	struct afxdp_wire *w = wire;

	if (!w)
		return;
	detach_prog(w);
	gnio_lockfile_release(&w->lock); /* after the detach: the program was ours until here */
	free(w);
}

static gnio_error_t afxdp_caps(void *wire, struct gnio_wire_caps *c)
{
	struct afxdp_wire *w = wire;
	uint32_t mf = w->mtu + 14;

	if (mf > INT_CHUNK - XDP_HEADROOM)
		mf = INT_CHUNK - XDP_HEADROOM;
	c->flags = GNIO_WIRE_CAP_RX | GNIO_WIRE_CAP_TX | GNIO_WIRE_CAP_SKB_MODE;
	if (w->attach_flags == XDP_FLAGS_DRV_MODE)
		c->flags |= GNIO_WIRE_CAP_NATIVE_MODE;
	if (w->nrxq > 1)
		c->flags |= GNIO_WIRE_CAP_MULTI_QUEUE;
	/* "frames land in the pool without a copy" by gnio: true when the UMEM
	 * is the pool; before any queue exists, it is what an aligned pool gets */
	c->flags |= GNIO_WIRE_CAP_ZERO_COPY;
	for (int i = 0; i < MAX_QUEUES; i++)
		if (w->q[i] && !w->q[i]->zc_pool)
			c->flags &= ~GNIO_WIRE_CAP_ZERO_COPY;
	c->max_frame_size = mf;
	c->num_rx_queues = w->nrxq;
	c->num_tx_queues = w->ntxq;
	snprintf(c->mode, sizeof(c->mode), "%s", w->mode);
	/* the bind mode decides whether the kernel copies a UMEM frame out */
	snprintf(c->tx_path, sizeof(c->tx_path), "%s",
		 strstr(w->mode, ",zc") ? "UMEM frames by address (zero copy); others copied into the UMEM by gnio"
					: "UMEM frames by address; the kernel copies them (copy mode); others copied into the UMEM by gnio");
	return GNIO_SUCCESS;
}

/* --------------------------------------------------------------- socket -- */

static int pool_fits(const struct gnio_wire_queue_cfg *cfg)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint32_t s = cfg->slot_size;

	return cfg->pool_cpu && ((uintptr_t)cfg->pool_cpu % (uintptr_t)pg) == 0 && s >= 2048 &&
	       s <= (uint32_t)pg && !(s & (s - 1)) && cfg->num_slots >= 64 &&
	       cfg->pool_size >= (uint64_t)s * cfg->num_slots;
}

static uint32_t pow2_floor(uint32_t v)
{
	uint32_t p = 1;

	while (p * 2 <= v && p < (1u << 30))
		p *= 2;
	return p;
}

static uint32_t pow2_ceil(uint32_t v)
{
	uint32_t p = 1;

	while (p < v && p < (1u << 30))
		p *= 2;
	return p;
}

static void xq_free(struct xq *q)
{
	if (q->xsk)
		xsk_socket__delete(q->xsk);
	if (q->umem)
		xsk_umem__delete(q->umem);
	if (q->area_owned && q->area)
		munmap(q->area, q->area_size);
	free(q->tx_free);
	free(q->slots);
	free(q);
}

static gnio_error_t umem_error(struct afxdp_wire *w, int e, uint64_t size)
{
	struct rlimit rl;

	if (e == ENOMEM || e == EPERM || e == ENOBUFS) {
		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < size)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP,
					 "afxdp:%s: UMEM of %llu KiB exceeds RLIMIT_MEMLOCK (%llu KiB); raise it "
					 "with `ulimit -l unlimited` or grant CAP_IPC_LOCK",
					 w->ifname, (unsigned long long)(size >> 10),
					 (unsigned long long)(rl.rlim_cur >> 10));
	}
	return gnio_fail(e == ENOMEM ? GNIO_ERROR_NO_MEMORY : GNIO_ERROR_OPERATING_SYSTEM, COMP,
			 "afxdp:%s: cannot register UMEM: %s", w->ifname, strerror(e));
}

/* Bind the socket: zero-copy first unless told, then copy.
 *
 * EBUSY right after another process closed its socket on this queue is not a
 * live owner: the kernel detaches a closed socket's buffer pool from the
 * queue in deferred work (xp_put_pool -> xp_release_deferred, which takes
 * rtnl_lock), so a new bind can race it, for tens of milliseconds and much
 * longer while namespaces are being torn down elsewhere (cleanup_net holds
 * rtnl). A second gnio receiver never gets here (the interface's flock
 * stops it first), so retry EBUSY for up to BIND_BUSY_MS before reporting
 * IN_USE: then the queue has a live socket, a foreign AF_XDP user's or a
 * gnio process's that uses the same queue id (a sender takes no lock). */
#define BIND_BUSY_MS 5000
static int xsk_bind(struct afxdp_wire *w, struct xq *q, uint16_t qid, struct xsk_socket_config *sc)
{
	const uint32_t first = sc->bind_flags;
	int ret, waited_ms = 0;

	for (;;) {
		sc->bind_flags = first;
		ret = xsk_socket__create(&q->xsk, w->ifname, qid, q->umem, &q->rx, &q->tx, sc);
		if (ret && !w->force_copy) {
			sc->bind_flags = XDP_USE_NEED_WAKEUP | XDP_COPY;
			ret = xsk_socket__create(&q->xsk, w->ifname, qid, q->umem, &q->rx, &q->tx, sc);
		}
		if (ret != -EBUSY || waited_ms >= BIND_BUSY_MS)
			break;
		if (!waited_ms)
			GNIO_LOG_INFO(COMP, "%s@%u: queue busy; a socket closed just now is released by the "
				      "kernel asynchronously: retrying for up to %d s", w->ifname, qid,
				      BIND_BUSY_MS / 1000);
		usleep(10000);
		waited_ms += 10;
	}
	if (waited_ms && !ret)
		GNIO_LOG_INFO(COMP, "%s@%u: queue released after %d ms", w->ifname, qid, waited_ms);
	return ret;
}

/* Create the socket of queue id qid. rx_cfg: the RX queue's config (pool as
 * UMEM candidate) or NULL when the TX side comes first. */
static gnio_error_t xq_get(struct afxdp_wire *w, const struct gnio_wire_queue_cfg *cfg, int is_rx,
			   struct xq **out)
{
	uint16_t qid = cfg->queue_id ? cfg->queue_id : w->qid;
	struct xsk_umem_config uc;
	struct xsk_socket_config sc;
	uint32_t nchunks, nrx, ntx, ring, chunk, rx_cap;
	int use_pool = is_rx && pool_fits(cfg) && !w->umem_internal;
	struct xq *q;
	int ret;

	if (qid >= w->nrxq || qid >= MAX_QUEUES)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afxdp:%s: queue %u out of range (%u queues)",
				 w->ifname, qid, w->nrxq);
	q = w->q[qid];
	if (q) {
		if ((is_rx && q->has_rx) || (!is_rx && q->has_tx))
			return gnio_fail(GNIO_ERROR_IN_USE, COMP, "afxdp:%s@%u: %s queue already open", w->ifname,
					 qid, is_rx ? "RX" : "TX");
		*out = q;
		return GNIO_SUCCESS;
	}
	/* Refuse what cannot work before allocating anything, so no error
	 * path reads a queue it has just freed. */
	chunk = use_pool ? cfg->slot_size : INT_CHUNK;
	rx_cap = chunk - XDP_HEADROOM;
	/* A frame longer than a chunk is dropped by the kernel before gnio
	 * sees it (no multi-buffer AF_XDP here): refuse an RX queue on an
	 * interface whose MTU allows such frames rather than lose them. The MTU
	 * comes first: it is the cause when both checks fail. */
	if (is_rx && w->mtu + 14 > rx_cap)
		return gnio_fail(GNIO_ERROR_BAD_STATE, COMP,
				 "afxdp:%s: MTU %u (frames up to %u bytes) is larger than the AF_XDP frame size %u "
				 "(chunk %u - %u headroom); lower it with `ip link set %s mtu %u`%s",
				 w->ifname, w->mtu, w->mtu + 14, rx_cap, chunk, XDP_HEADROOM, w->ifname, rx_cap - 14,
				 use_pool && w->mtu + 14 <= INT_CHUNK - XDP_HEADROOM
					 ? " or open the wire with umem=internal (4096-byte chunks)" : "");
	if (is_rx && cfg->max_frame > rx_cap)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP,
				 "afxdp:%s: max packet size %u is larger than the AF_XDP frame size %u "
				 "(chunk %u - %u headroom)", w->ifname, cfg->max_frame, rx_cap, chunk, XDP_HEADROOM);
	q = calloc(1, sizeof(*q));
	if (!q)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	q->w = w;
	q->qid = qid;
	q->fd = -1;
	q->chunk = chunk;
	q->rx_cap = rx_cap;
	if (use_pool) {
		/* UMEM = the pool. Every RX chunk a frame sits in while the GPU
		 * ring holds it is missing from the fill ring, so RX gets all
		 * the pool but a small TX share (1/16, at most TX_POOL_MAX
		 * chunks: copy-mode TX completes inside sendto, few are in
		 * flight), and the fill and RX rings are sized to hold every
		 * RX chunk (see "Sizing the pool" in docs/wires.md). */
		q->zc_pool = 1;
		q->area = cfg->pool_cpu;
		nchunks = cfg->num_slots;
		q->area_size = (uint64_t)nchunks * q->chunk;
		ntx = nchunks / 16 < TX_POOL_MAX ? nchunks / 16 : TX_POOL_MAX;
	} else {
		nchunks = w->frames * 2;
		q->area_size = (uint64_t)nchunks * q->chunk;
		q->area = mmap(NULL, q->area_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q->area == MAP_FAILED) {
			uint64_t sz = q->area_size;

			free(q);
			return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "afxdp: cannot map %llu bytes of UMEM",
					 (unsigned long long)sz);
		}
		q->area_owned = 1;
		ntx = nchunks / 2;
	}
	nrx = nchunks - ntx;

	/* fill and RX rings hold every RX chunk: a smaller ring would leave
	 * chunks that are never handed to the kernel */
	ring = pow2_ceil(nrx);
	if (q->zc_pool && cfg->ring_size && nrx < cfg->ring_size + FILL_RESERVE)
		GNIO_LOG_WARN(COMP, "%s@%u: the pool (UMEM) has %u RX chunks for a ring of %u entries; once the "
			      "ring holds more than %u frames the kernel has no fill buffer and drops (wire_overflow). "
			      "A pool of %u slots avoids it", w->ifname, qid, nrx, cfg->ring_size,
			      nrx > FILL_RESERVE ? nrx - FILL_RESERVE : 0, cfg->ring_size + FILL_RESERVE + ntx);
	memset(&uc, 0, sizeof(uc));
	uc.fill_size = ring;
	/* The TX and completion rings also carry in-place forwards, which take
	 * no TX chunk: size them for a burst of those, not for the chunks. */
	q->tx_ring_size = pow2_floor(ntx) > TX_RING_MIN ? pow2_floor(ntx) : TX_RING_MIN;
	uc.comp_size = q->tx_ring_size;
	uc.frame_size = q->chunk;
	uc.frame_headroom = 0;
	ret = xsk_umem__create(&q->umem, q->area, q->area_size, &q->fq, &q->cq, &uc);
	if (ret) {
		gnio_error_t e = umem_error(w, -ret, q->area_size);

		q->umem = NULL;
		xq_free(q);
		return e;
	}
	memset(&sc, 0, sizeof(sc));
	sc.rx_size = ring;
	sc.tx_size = q->tx_ring_size;
	sc.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
	sc.xdp_flags = w->attach_flags;
	sc.bind_flags = XDP_USE_NEED_WAKEUP;
	if (w->force_copy == 1)
		sc.bind_flags |= XDP_COPY;
	else /* zc=1 demands zero-copy; by default try it first, then copy */
		sc.bind_flags |= XDP_ZEROCOPY;
	ret = xsk_bind(w, q, qid, &sc);
	if (ret) {
		int e = -ret;

		q->xsk = NULL;
		xq_free(q);
		if (e == EPERM)
			return gnio_fail(GNIO_ERROR_NOT_PERMITTED, COMP, "afxdp:%s: AF_XDP socket refused (needs CAP_NET_RAW)",
					 w->ifname);
		if (e == EOPNOTSUPP && w->force_copy == 2)
			return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP,
					 "afxdp:%s: zero-copy (zc=1) is not supported by this driver", w->ifname);
		if (e == EBUSY)
			return gnio_fail(GNIO_ERROR_IN_USE, COMP,
					 "afxdp:%s@%u: queue already has an AF_XDP socket (still bound after %d s)",
					 w->ifname, qid, BIND_BUSY_MS / 1000);
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "afxdp:%s@%u: socket bind failed: %s",
				 w->ifname, qid, strerror(e));
	}
	q->fd = xsk_socket__fd(q->xsk);
	{
		struct xdp_options xo;
		socklen_t ol = sizeof(xo);

		if (getsockopt(q->fd, SOL_XDP, XDP_OPTIONS, &xo, &ol) == 0)
			q->kernel_zc = !!(xo.flags & XDP_OPTIONS_ZEROCOPY);
	}

	/* RX chunks [0, nrx) go to the fill ring; TX chunks [nrx, nchunks) to
	 * the free stack. */
	{
		uint32_t idx, nfill = ring < nrx ? ring : nrx;

		if (xsk_ring_prod__reserve(&q->fq, nfill, &idx) != nfill) {
			xq_free(q);
			return gnio_fail(GNIO_ERROR_UNEXPECTED, COMP, "afxdp: fill ring reserve failed");
		}
		for (uint32_t i = 0; i < nfill; i++)
			*xsk_ring_prod__fill_addr(&q->fq, idx + i) = (uint64_t)i * q->chunk;
		xsk_ring_prod__submit(&q->fq, nfill);
	}
	q->tx_total = sc.tx_size < ntx ? sc.tx_size : ntx;
	q->tx_chunk_base = (uint64_t)nrx * q->chunk;
	q->tx_free = malloc(sizeof(uint64_t) * q->tx_total);
	if (!q->tx_free) {
		xq_free(q);
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	}
	for (uint32_t i = 0; i < q->tx_total; i++)
		q->tx_free[i] = (uint64_t)(nrx + i) * q->chunk;
	q->tx_nfree = q->tx_total;
	w->q[qid] = q;
	set_mode(w, q);
	GNIO_LOG_INFO(COMP, "%s@%u: socket bound (%s), %u RX + %u TX chunks of %u bytes", w->ifname, qid,
		      w->mode, nrx, q->tx_total, q->chunk);
	*out = q;
	return GNIO_SUCCESS;
}

static void xq_put(struct xq *q, int is_rx)
{
	if (is_rx)
		q->has_rx = 0;
	else
		q->has_tx = 0;
	if (--q->refs == 0) {
		q->w->q[q->qid] = NULL;
		xq_free(q);
	}
}

static gnio_error_t afxdp_rxq_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **out)
{
	struct afxdp_wire *w = wire;
	struct xq *q;
	gnio_error_t err;
	int ret;

	/* The XDP program exists only while RX queues do: a TX-only socket
	 * needs none, and an idle one would swallow the interface's traffic.
	 * Its owner holds the interface's lock from here to the wire's close. */
	if (!w->attach_flags) {
		err = own_interface(w);
		if (err)
			return err;
		err = attach_prog(w);
		if (err) {
			detach_prog(w);
			return err;
		}
		GNIO_LOG_INFO(COMP, "%s: XDP program %u attached in %s mode", w->ifname, w->prog_id,
			      w->attach_flags == XDP_FLAGS_SKB_MODE ? "skb" : "native");
	}
	err = xq_get(wire, cfg, 1, &q);
	if (err)
		return err;
	ret = xsk_socket__update_xskmap(q->xsk, w->map_fd);
	if (ret) {
		if (!q->refs) {
			w->q[q->qid] = NULL;
			xq_free(q);
		}
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "afxdp: cannot insert socket into XSKMAP: %s",
				 strerror(-ret));
	}
	if (!q->zc_pool && cfg->pool_cpu && cfg->num_slots && cfg->slot_size) {
		uint32_t sz = 1;

		while (sz < cfg->num_slots)
			sz <<= 1;
		free(q->slots);
		q->slots = malloc(sizeof(uint64_t) * sz);
		if (!q->slots)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
		for (uint32_t i = 0; i < cfg->num_slots; i++)
			q->slots[i] = (uint64_t)i * cfg->slot_size;
		q->slots_mask = sz - 1;
		q->slots_head = 0;
		q->slots_tail = cfg->num_slots;
		q->pool = cfg->pool_cpu;
		q->pool_slot = cfg->slot_size;
	}
	q->has_rx = 1;
	q->refs++;
	set_mode(w, q);
	*out = q;
	return GNIO_SUCCESS;
}

static gnio_error_t afxdp_txq_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **out)
{
	struct xq *q;
	gnio_error_t err = xq_get(wire, cfg, 0, &q);

	if (err)
		return err;
	q->has_tx = 1;
	q->refs++;
	*out = q;
	return GNIO_SUCCESS;
}

static void afxdp_rxq_close(void *q) { xq_put(q, 1); }
static void afxdp_txq_close(void *q) { xq_put(q, 0); }

/* ------------------------------------------------------------ hot path -- */

static inline void fill_kick(struct xq *q)
{
	/* need_wakeup: the driver stopped polling the fill ring */
	if (xsk_ring_prod__needs_wakeup(&q->fq))
		recvfrom(q->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

static gnio_error_t afxdp_check(void *wv, char *msg, size_t msg_len)
{
	const struct afxdp_wire *w = wv;
	return gnio_wire_check_link(w->ifname, w->ifindex, msg, msg_len);
}

/* Adaptive polling: poll() on the socket wakes when the RX ring has frames
 * (and, with need_wakeup, lets the driver refill from the fill ring). */
static void afxdp_rx_wait(void *qv, uint64_t timeout_ns)
{
	struct xq *q = qv;
	gnio_wire_wait_fd(q->fd, timeout_ns);
}

static unsigned afxdp_rx_burst(void *qv, struct gnio_wire_frame *f, unsigned n)
{
	struct xq *q = qv;
	uint32_t idx_rx, idx_fq;
	unsigned got = xsk_ring_cons__peek(&q->rx, n, &idx_rx);

	if (!got) {
		fill_kick(q);
		return 0;
	}
	/* recycled chunks always fit: the fill ring holds every RX chunk */
	while (xsk_ring_prod__reserve(&q->fq, got, &idx_fq) != got)
		;
	for (unsigned i = 0; i < got; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx_rx + i);
		uint64_t a = xsk_umem__extract_addr(d->addr) + xsk_umem__extract_offset(d->addr);

		f[i].len = d->len;
		f[i].ts_ns = 0;
		f[i].buf_off = 0;
		if (d->len <= f[i].cap)
			memcpy(f[i].data, q->area + a, d->len);
		*xsk_ring_prod__fill_addr(&q->fq, idx_fq + i) = a - a % q->chunk;
	}
	xsk_ring_cons__release(&q->rx, got);
	xsk_ring_prod__submit(&q->fq, got);
	return got;
}

static unsigned afxdp_rx_burst_zc(void *qv, struct gnio_wire_frame *f, unsigned n)
{
	struct xq *q = qv;
	uint32_t idx;
	unsigned got;

	if (!q->zc_pool) {
		/* internal UMEM: copy into free pool slots, one per frame */
		uint32_t idx_fq, avail = q->slots_tail - q->slots_head;

		if (!q->pool)
			return 0;
		if (n > avail)
			n = avail;
		got = n ? xsk_ring_cons__peek(&q->rx, n, &idx) : 0;
		if (!got) {
			fill_kick(q);
			return 0;
		}
		while (xsk_ring_prod__reserve(&q->fq, got, &idx_fq) != got)
			;
		for (unsigned i = 0; i < got; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx + i);
			uint64_t a = xsk_umem__extract_addr(d->addr) + xsk_umem__extract_offset(d->addr);
			uint64_t off = q->slots[q->slots_head++ & q->slots_mask];

			f[i].data = q->pool + off;
			f[i].buf_off = off;
			f[i].len = d->len;
			f[i].cap = q->pool_slot;
			f[i].ts_ns = 0;
			if (d->len <= q->pool_slot)
				memcpy(q->pool + off, q->area + a, d->len);
			*xsk_ring_prod__fill_addr(&q->fq, idx_fq + i) = a - a % q->chunk;
		}
		xsk_ring_cons__release(&q->rx, got);
		xsk_ring_prod__submit(&q->fq, got);
		return got;
	}
	got = xsk_ring_cons__peek(&q->rx, n, &idx);
	if (!got) {
		fill_kick(q);
		return 0;
	}
	for (unsigned i = 0; i < got; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx + i);
		uint64_t a = xsk_umem__extract_addr(d->addr) + xsk_umem__extract_offset(d->addr);

		f[i].data = q->area + a;
		f[i].buf_off = a;
		f[i].len = d->len;
		f[i].cap = q->rx_cap;
		f[i].ts_ns = 0;
	}
	xsk_ring_cons__release(&q->rx, got);
	return got;
}

static void afxdp_rx_release_zc(void *qv, const uint64_t *off, unsigned n)
{
	struct xq *q = qv;
	uint32_t idx;

	if (!q->zc_pool) {
		for (unsigned i = 0; i < n; i++)
			q->slots[q->slots_tail++ & q->slots_mask] = off[i];
		return;
	}
	while (xsk_ring_prod__reserve(&q->fq, n, &idx) != n)
		;
	for (unsigned i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&q->fq, idx + i) = off[i] - off[i] % q->chunk;
	xsk_ring_prod__submit(&q->fq, n);
}

static inline void tx_kick(struct xq *q)
{
	/* copy mode always asks for a kick; the kernel sends a batch per call */
	if (xsk_ring_prod__needs_wakeup(&q->tx))
		sendto(q->fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
}

/* Completed sends: TX chunks go back on the free stack; frames that were sent
 * from the pool (in-place forwards) are not chunks of ours and are only
 * counted: the RX side gets them back through the hold words. */
static unsigned cq_reap(struct xq *q)
{
	uint32_t idx;
	unsigned got = xsk_ring_cons__peek(&q->cq, q->tx_ring_size, &idx);

	for (unsigned i = 0; i < got; i++) {
		uint64_t a = *xsk_ring_cons__comp_addr(&q->cq, idx + i);
		if (a >= q->tx_chunk_base)
			q->tx_free[q->tx_nfree++] = a;
	}
	xsk_ring_cons__release(&q->cq, got);
	q->tx_inflight -= got;
	return got;
}

/* A frame inside this socket's UMEM (a received frame sent back out) is put
 * on the TX ring by address: true zero copy. Any other frame is copied into a
 * free TX chunk. */
static int in_umem(const struct xq *q, const struct gnio_wire_frame *f)
{
	return f->data >= q->area && f->data < q->area + q->area_size && f->len <= q->area + q->area_size - f->data;
}

static unsigned afxdp_tx_burst(void *qv, struct gnio_wire_frame *f, unsigned n)
{
	struct xq *q = qv;
	uint32_t idx;
	unsigned i, take, need = 0;

	/* How many frames, in order, we can take: forwards need no chunk. */
	int reaped = 0;
	for (take = 0; take < n; take++) {
		if (in_umem(q, &f[take]))
			continue;
		if (need == q->tx_nfree && !reaped) {
			q->tx_done += cq_reap(q); /* recycle chunks; tx_reap reports them */
			reaped = 1;
		}
		if (need == q->tx_nfree)
			break;
		need++;
	}
	if (!take) {
		tx_kick(q);
		return 0;
	}
	take = xsk_ring_prod__reserve(&q->tx, take, &idx);
	for (i = 0; i < take; i++) {
		struct xdp_desc *d = xsk_ring_prod__tx_desc(&q->tx, idx + i);
		uint32_t len = f[i].len < q->chunk ? f[i].len : q->chunk;

		if (in_umem(q, &f[i])) {
			d->addr = (uint64_t)(f[i].data - q->area);
			f[i].copied = 0;
		} else {
			uint64_t a = q->tx_free[--q->tx_nfree];
			memcpy(q->area + a, f[i].data, len);
			d->addr = a;
			f[i].copied = 1;
		}
		d->len = len;
		d->options = 0;
	}
	if (take) {
		xsk_ring_prod__submit(&q->tx, take);
		q->tx_inflight += take;
		tx_kick(q);
	}
	return take;
}

static unsigned afxdp_tx_reap(void *qv)
{
	struct xq *q = qv;
	unsigned done = q->tx_done;

	q->tx_done = 0;
	if (!q->tx_inflight)
		return done;
	/* the kernel may have stopped mid-ring (batch limit): kick again */
	tx_kick(q);
	return done + cq_reap(q);
}

static void afxdp_rxq_stats(void *qv, struct gnio_wire_rxq_stats *st)
{
	struct xq *q = qv;
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	st->overflow = 0;
	memset(&xs, 0, sizeof(xs));
	/* rx_dropped: no fill buffer or frame larger than a chunk; rx_ring_full:
	 * the RX ring had no room. Fill-ring-empty events are already inside
	 * rx_dropped in copy mode, so they are not added again. */
	if (getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, &xs, &len) == 0)
		st->overflow = xs.rx_dropped + xs.rx_ring_full;
}

/* The NIC's own RSS and ntuple steering (gnio_devinfo_get_steering). */
static gnio_error_t afxdp_steering(void *wire, struct gnio_wire_steering *st)
{
	const struct afxdp_wire *w = wire;
	return gnio_wire_nic_steering(w->ifname, st);
}

const struct gnio_wire_ops gnio_wire_afxdp_ops = {
	.kind = "afxdp",
	.open = afxdp_open,
	.close = afxdp_close,
	.caps = afxdp_caps,
	.rxq_open = afxdp_rxq_open,
	.rxq_close = afxdp_rxq_close,
	.txq_open = afxdp_txq_open,
	.txq_close = afxdp_txq_close,
	.rx_burst = afxdp_rx_burst,
	.rx_burst_zc = afxdp_rx_burst_zc,
	.check = afxdp_check,
	.rx_wait = afxdp_rx_wait,
	.rx_release_zc = afxdp_rx_release_zc,
	.tx_burst = afxdp_tx_burst,
	.tx_reap = afxdp_tx_reap,
	.rxq_stats = afxdp_rxq_stats,
	.steering = afxdp_steering,
};
