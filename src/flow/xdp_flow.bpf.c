/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * src/flow/xdp_flow.bpf.c - the afxdp wire's XDP program (clang -target bpf,
 * built at configure time when clang is found; embedded in libgnio).
 *
 * Per frame it decides among gnio (redirect to the AF_XDP socket bound to
 * the queue the frame arrived on), the host stack (XDP_PASS) and drop
 * (XDP_DROP), by the first rule of the flow's table that matches: the same
 * parser and matcher the proxies run (flow_key.h), so a rule means the same
 * on both sides. Rules that send a frame to a gnio queue, RSS set or host
 * queue all redirect here; the proxy does the fan-out.
 *
 * Maps:
 *   gnio_xsks         XSKMAP, queue id -> socket (filled by the wire)
 *   gnio_flow_tables  one slot holding the current rule table (an array map
 *                     of one struct fk_table). A change installs a whole new
 *                     inner map; the kernel returns from that update only
 *                     after every program that could still see the old one
 *                     finished, so counts of removed rules are final then.
 *                     An empty slot means no flow: the program is then the
 *                     plain redirect gnio always had (socket of the queue,
 *                     XDP_PASS when the queue has none) and counts nothing.
 *   gnio_flow_hits    per-CPU counters by slot: rules, default, frames,
 *                     and gnio decisions that found no socket (XDP_PASS).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "flow/flow_key.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64); /* resized by the loader to the interface's queues */
	__type(key, __u32);
	__type(value, __u32);
} gnio_xsks SEC(".maps");

/* sizes rather than types: clang leaves struct fk_table a forward
 * declaration in the inner map's BTF, which libbpf cannot size */
struct gnio_flow_table {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct fk_table));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct gnio_flow_table);
} gnio_flow_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FK_NUM_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} gnio_flow_hits SEC(".maps");

static __attribute__((always_inline)) inline void count(__u32 slot)
{
	__u64 *c = bpf_map_lookup_elem(&gnio_flow_hits, &slot);

	if (c)
		*c += 1; /* per-CPU: no other writer */
}

SEC("xdp")
int gnio_xsk(struct xdp_md *ctx)
{
	const fk_u8 *data = (const fk_u8 *)(long)ctx->data;
	const fk_u8 *end = (const fk_u8 *)(long)ctx->data_end;
	__u32 zero = 0, slot = FK_SLOT_DEFAULT, i;
	const struct fk_table *t;
	struct fk_key k;
	void *inner;
	__u8 act;
	long ret;

	inner = bpf_map_lookup_elem(&gnio_flow_tables, &zero);
	if (!inner)
		return bpf_redirect_map(&gnio_xsks, ctx->rx_queue_index, XDP_PASS);
	t = bpf_map_lookup_elem(inner, &zero);
	if (!t)
		return bpf_redirect_map(&gnio_xsks, ctx->rx_queue_index, XDP_PASS);

	fk_parse(data, end, &k);
	act = t->default_action;
	for (i = 0; i < FK_MAX_RULES; i++) {
		if (i >= t->count)
			break;
		if (fk_match(&t->rules[i], &k)) {
			slot = t->rules[i].slot;
			act = t->rules[i].action;
			break;
		}
	}
	count(slot);
	count(FK_SLOT_FRAMES);
	if (act == FK_ACT_KERNEL)
		return XDP_PASS;
	if (act == FK_ACT_DROP)
		return XDP_DROP;
	ret = bpf_redirect_map(&gnio_xsks, ctx->rx_queue_index, XDP_PASS);
	if (ret != XDP_REDIRECT)
		count(FK_SLOT_NO_SOCKET);
	return (int)ret;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
