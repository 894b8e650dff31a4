/* SPDX-License-Identifier: MIT */
/*
 * src/flow/flow_xdp.h - a flow's program in the kernel (private): the XDP
 * program of one interface (the afxdp wire owns one), or the socket filter
 * of the afpacket wire's RX sockets. Built only with GNIO_HAVE_XDP_FLOW
 * (clang found at configure time): the object compiled from xdp_flow.bpf.c
 * is embedded in the library and opened from memory; each opens the one
 * program it runs, over the same rule tables and counters.
 */
#ifndef GNIO_SRC_FLOW_FLOW_XDP_H
#define GNIO_SRC_FLOW_FLOW_XDP_H

#include <stdint.h>
#include "flow/flow_key.h"
#include "gnio/error.h"

struct flow_xdp;

enum flow_prog_kind {
	FLOW_PROG_XDP,    /* gnio_xsk: XDP, redirects to AF_XDP sockets */
	FLOW_PROG_SOCKET, /* gnio_sock: an AF_PACKET socket's filter (SO_ATTACH_BPF) */
};

/* Open the embedded object for one program; for XDP the XSKMAP gets
 * xsk_entries slots. Nothing is loaded into the kernel yet.
 * Errors: NO_MEMORY, UNEXPECTED (bad object). */
gnio_error_t flow_xdp_open(enum flow_prog_kind kind, uint32_t xsk_entries, struct flow_xdp **out);
/* Load the program and its maps into the kernel (verifier). Attach does it
 * too; tests call it to run the program with BPF_PROG_TEST_RUN.
 * Errors: NOT_PERMITTED, OPERATING_SYSTEM. */
gnio_error_t flow_xdp_load(struct flow_xdp *x);
/* Attach the loaded program through libxdp in native (XDP_FLAGS_DRV_MODE) or generic
 * (XDP_FLAGS_SKB_MODE) mode, only if the interface has no program. libxdp
 * first tries its multi-program dispatcher; where the kernel refuses it
 * (freplace), it attaches the program on its own. Returns 0 or -errno (the
 * caller turns it into a message); *dispatcher says which way it went. */
int flow_xdp_attach(struct flow_xdp *x, int ifindex, uint32_t xdp_flags, int *dispatcher);
/* Undo flow_xdp_attach when it went through the dispatcher. */
int flow_xdp_detach_dispatcher(struct flow_xdp *x, int ifindex, uint32_t xdp_flags);
int flow_xdp_prog_fd(const struct flow_xdp *x);
int flow_xdp_xsks_fd(const struct flow_xdp *x);
/* Install a copy of t (NULL: none). Before the program is loaded the copy
 * waits and is installed at load. Returns once no running program can
 * still see the previous table. Errors: NO_MEMORY, OPERATING_SYSTEM. */
gnio_error_t flow_xdp_publish(struct flow_xdp *x, const struct fk_table *t);
/* Per-slot sums over CPUs (FK_NUM_SLOTS values); zeros before load, or for
 * no program (x NULL). */
gnio_error_t flow_xdp_read_hits(struct flow_xdp *x, uint64_t *slots);
/* Run the loaded program on one frame (BPF_PROG_TEST_RUN); *verdict is what
 * it returned: the XDP action, or for the socket filter the bytes it keeps
 * (0: the socket does not get the frame). For tests. */
gnio_error_t flow_xdp_test_run(struct flow_xdp *x, const uint8_t *frame, uint32_t len, uint32_t *verdict);
void flow_xdp_close(struct flow_xdp *x);

#endif
