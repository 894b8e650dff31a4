/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow_xdp.c - load, attach and feed a flow's program in the kernel
 * (xdp_flow.bpf.c, embedded at build time) through libbpf and libxdp: the
 * XDP program of the afxdp wire, or the socket filter of the afpacket wire.
 *
 * Rule tables are installed copy-on-write: each change creates a new
 * one-entry array map holding the whole struct fk_table and swaps it into
 * the program's array-of-maps slot. The kernel waits for running programs
 * (an RCU grace period) before that update returns, so afterwards no
 * program still reads the old table, and the old map is freed with its last
 * reference. The per-CPU counters live outside the tables and keep their
 * slots across changes.
 */
#ifdef GNIO_HAVE_XDP_FLOW

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "core/errmsg.h"
#include "flow/flow_xdp.h"

#define COMP "flow_xdp"
#define PROG_NAME "gnio_xsk"
#define SOCK_PROG_NAME "gnio_sock"

/* The object file, embedded by cmake/xdp_flow.cmake. */
extern const unsigned char gnio_xdp_flow_obj[];
extern const unsigned int gnio_xdp_flow_obj_len;

struct flow_xdp {
	enum flow_prog_kind kind;
	struct bpf_object *obj;
	struct xdp_program *prog;
	struct bpf_map *xsks, *tables, *hits;
	int loaded;
	int prog_fd, xsks_fd, tables_fd, hits_fd;
	struct fk_table *table; /* the current table, NULL for none */
	int ncpus;
};

/* libbpf and libxdp print warnings (verifier logs, "no bpffs found" before
 * the dispatcher fallback) to stderr by default: route them to the gnio log
 * at DEBUG while we call them. */
static int print_bpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)level;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[n - 1] = 0;
	GNIO_LOG_DBG(COMP, "libbpf: %s", line);
	return 0;
}

static int print_xdp(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)level;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[n - 1] = 0;
	GNIO_LOG_DBG(COMP, "libxdp: %s", line);
	return 0;
}

struct quiet {
	libbpf_print_fn_t bpf;
	libxdp_print_fn_t xdp;
};

static struct quiet quiet_on(void)
{
	struct quiet q = {libbpf_set_print(print_bpf), libxdp_set_print(print_xdp)};

	return q;
}

static void quiet_off(struct quiet q)
{
	libbpf_set_print(q.bpf);
	libxdp_set_print(q.xdp);
}

static const char *prog_name(enum flow_prog_kind kind)
{
	return kind == FLOW_PROG_SOCKET ? SOCK_PROG_NAME : PROG_NAME;
}

gnio_error_t flow_xdp_open(enum flow_prog_kind kind, uint32_t xsk_entries, struct flow_xdp **out)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "gnio_xdp_flow");
	struct flow_xdp *x = calloc(1, sizeof(*x));
	struct bpf_program *xsk_prog, *sock_prog;
	struct bpf_map *inner, *sock_buf;
	struct quiet q;

	if (!x)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	x->kind = kind;
	x->prog_fd = x->xsks_fd = x->tables_fd = x->hits_fd = -1;
	q = quiet_on();
	x->obj = bpf_object__open_mem(gnio_xdp_flow_obj, gnio_xdp_flow_obj_len, &oo);
	quiet_off(q);
	if (!x->obj || libbpf_get_error(x->obj)) {
		x->obj = NULL;
		flow_xdp_close(x);
		return gnio_fail(GNIO_ERROR_UNEXPECTED, COMP, "the embedded XDP flow program does not open: %s",
				 strerror(errno));
	}
	x->xsks = bpf_object__find_map_by_name(x->obj, "gnio_xsks");
	x->tables = bpf_object__find_map_by_name(x->obj, "gnio_flow_tables");
	x->hits = bpf_object__find_map_by_name(x->obj, "gnio_flow_hits");
	sock_buf = bpf_object__find_map_by_name(x->obj, "gnio_sock_buf");
	inner = x->tables ? bpf_map__inner_map(x->tables) : NULL;
	xsk_prog = bpf_object__find_program_by_name(x->obj, PROG_NAME);
	sock_prog = bpf_object__find_program_by_name(x->obj, SOCK_PROG_NAME);
	if (!x->xsks || !x->hits || !sock_buf || !inner || bpf_map__value_size(inner) != sizeof(struct fk_table) ||
	    !xsk_prog || !sock_prog) {
		flow_xdp_close(x);
		return gnio_fail(GNIO_ERROR_UNEXPECTED, COMP,
				 "the embedded XDP flow program does not have the programs and maps gnio expects "
				 "(rebuild it)");
	}
	/* Only the kind's program goes into the kernel, with the maps it uses:
	 * an XSKMAP is of no use to a socket filter (and wants CAP_NET_ADMIN),
	 * the per-CPU frame copy of none to XDP. */
	if (kind == FLOW_PROG_SOCKET) {
		bpf_program__set_autoload(xsk_prog, false);
		bpf_map__set_autocreate(x->xsks, false);
		x->xsks = NULL;
	} else {
		bpf_program__set_autoload(sock_prog, false);
		bpf_map__set_autocreate(sock_buf, false);
		if (xsk_entries)
			bpf_map__set_max_entries(x->xsks, xsk_entries);
	}
	x->ncpus = libbpf_num_possible_cpus();
	if (x->ncpus <= 0)
		x->ncpus = 1;
	*out = x;
	return GNIO_SUCCESS;
}

static int install(struct flow_xdp *x, const struct fk_table *t)
{
	uint32_t key = 0;
	int inner, err = 0;

	if (!t) {
		if (bpf_map_delete_elem(x->tables_fd, &key) && errno != ENOENT)
			return -errno;
		return 0;
	}
	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "gnio_flow_tbl", sizeof(uint32_t), sizeof(*t), 1, NULL);
	if (inner < 0)
		return -errno;
	if (bpf_map_update_elem(inner, &key, t, BPF_ANY) || bpf_map_update_elem(x->tables_fd, &key, &inner, BPF_ANY))
		err = -errno;
	close(inner); /* the program's slot holds its own reference */
	return err;
}

gnio_error_t flow_xdp_load(struct flow_xdp *x)
{
	struct quiet q;
	int err;

	if (x->loaded)
		return GNIO_SUCCESS;
	q = quiet_on();
	err = bpf_object__load(x->obj);
	quiet_off(q);
	if (err) {
		err = -err;
		if (err == EPERM)
			return gnio_fail(GNIO_ERROR_NOT_PERMITTED, COMP,
					 x->kind == FLOW_PROG_SOCKET
						 ? "loading the flow's socket filter was refused (needs CAP_BPF)"
						 : "loading the XDP flow program was refused (needs CAP_BPF and "
						   "CAP_NET_ADMIN)");
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP,
				 "the kernel refused the flow's %s program: %s (GNIO_LOG_LEVEL=debug shows the "
				 "verifier log)", x->kind == FLOW_PROG_SOCKET ? "socket filter" : "XDP", strerror(err));
	}
	x->loaded = 1;
	x->prog_fd = bpf_program__fd(bpf_object__find_program_by_name(x->obj, prog_name(x->kind)));
	x->xsks_fd = x->xsks ? bpf_map__fd(x->xsks) : -1;
	x->tables_fd = bpf_map__fd(x->tables);
	x->hits_fd = bpf_map__fd(x->hits);
	err = install(x, x->table);
	if (err)
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "cannot install the flow's rule table: %s",
				 strerror(-err));
	return GNIO_SUCCESS;
}

int flow_xdp_attach(struct flow_xdp *x, int ifindex, uint32_t xdp_flags, int *dispatcher)
{
	enum xdp_attach_mode mode = xdp_flags == XDP_FLAGS_SKB_MODE ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	struct xdp_multiprog *mp;
	struct quiet q;
	int err;

	*dispatcher = 0;
	if (!x->loaded || x->kind != FLOW_PROG_XDP)
		return -EINVAL; /* flow_xdp_load first: it says why it fails */
	q = quiet_on();
	if (!x->prog) {
		DECLARE_LIBXDP_OPTS(xdp_program_opts, po, .obj = x->obj, .prog_name = PROG_NAME);

		x->prog = xdp_program__create(&po);
		if (libxdp_get_error(x->prog)) {
			err = (int)libxdp_get_error(x->prog);
			x->prog = NULL;
			quiet_off(q);
			return err;
		}
	}
	err = xdp_program__attach(x->prog, ifindex, mode, 0);
	if (err == -ENOENT) {
		/* libxdp found no dispatcher object (xdp-dispatcher.o in its
		 * package's BPF folder or LIBXDP_OBJECT_PATH): the library is
		 * there without its files, as on a machine it was carried to.
		 * libxdp falls back to the lone program only for EOPNOTSUPP;
		 * the lone program is all the wire needs. */
		err = bpf_xdp_attach(ifindex, x->prog_fd, xdp_flags | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL) ? -errno : 0;
		if (!err)
			GNIO_LOG_INFO(COMP, "libxdp has no dispatcher object here: the XDP program went in on its own");
	}
	if (!err) {
		mp = xdp_multiprog__get_from_ifindex(ifindex);
		if (!libxdp_get_error(mp) && mp) {
			*dispatcher = !xdp_multiprog__is_legacy(mp);
			xdp_multiprog__close(mp);
		}
	}
	quiet_off(q);
	return err;
}

int flow_xdp_detach_dispatcher(struct flow_xdp *x, int ifindex, uint32_t xdp_flags)
{
	enum xdp_attach_mode mode = xdp_flags == XDP_FLAGS_SKB_MODE ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	struct quiet q = quiet_on();
	int err = xdp_program__detach(x->prog, ifindex, mode, 0);

	quiet_off(q);
	return err;
}

int flow_xdp_prog_fd(const struct flow_xdp *x)
{
	return x->prog_fd;
}

int flow_xdp_xsks_fd(const struct flow_xdp *x)
{
	return x->xsks_fd;
}

gnio_error_t flow_xdp_publish(struct flow_xdp *x, const struct fk_table *t)
{
	struct fk_table *copy = NULL;
	int err;

	if (t) {
		copy = malloc(sizeof(*copy));
		if (!copy)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
		memcpy(copy, t, sizeof(*copy));
	}
	if (x->loaded) {
		err = install(x, copy);
		if (err) {
			free(copy);
			return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP,
					 "cannot install the rule table in the XDP program: %s", strerror(-err));
		}
	}
	free(x->table);
	x->table = copy;
	return GNIO_SUCCESS;
}

gnio_error_t flow_xdp_read_hits(struct flow_xdp *x, uint64_t *slots)
{
	uint64_t *v;

	memset(slots, 0, sizeof(uint64_t) * FK_NUM_SLOTS);
	if (!x || !x->loaded)
		return GNIO_SUCCESS;
	v = calloc((size_t)x->ncpus, sizeof(uint64_t));
	if (!v)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	for (uint32_t s = 0; s < FK_NUM_SLOTS; s++) {
		if (bpf_map_lookup_elem(x->hits_fd, &s, v)) {
			int e = errno;

			free(v);
			return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "reading the XDP hit counters: %s",
					 strerror(e));
		}
		for (int c = 0; c < x->ncpus; c++)
			slots[s] += v[c];
	}
	free(v);
	return GNIO_SUCCESS;
}

gnio_error_t flow_xdp_test_run(struct flow_xdp *x, const uint8_t *frame, uint32_t len, uint32_t *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = len, .repeat = 1);
	uint8_t *skb_in = NULL;
	int err;

	GNIO_CHECK(flow_xdp_load(x));
	if (x->kind == FLOW_PROG_SOCKET) {
		/* The test run of an skb program pulls an Ethernet header and
		 * gives a socket filter what follows, where AF_PACKET gives it
		 * the whole frame: put a header of 14 zero bytes in front. */
		skb_in = calloc(1, (size_t)len + 14);
		if (!skb_in)
			return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
		memcpy(skb_in + 14, frame, len);
		o.data_in = skb_in;
		o.data_size_in = len + 14;
	}
	err = bpf_prog_test_run_opts(x->prog_fd, &o) ? errno : 0;
	free(skb_in);
	if (err)
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "BPF_PROG_TEST_RUN: %s", strerror(err));
	*verdict = o.retval;
	return GNIO_SUCCESS;
}

void flow_xdp_close(struct flow_xdp *x)
{
	if (!x)
		return;
	if (x->prog)
		xdp_program__close(x->prog); /* closes its own fds, not the object */
	if (x->obj)
		bpf_object__close(x->obj);
	free(x->table);
	free(x);
}

#endif /* GNIO_HAVE_XDP_FLOW */
