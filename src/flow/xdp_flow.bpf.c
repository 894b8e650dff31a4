/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * src/flow/xdp_flow.bpf.c - the kernel side of a gnio_flow on real wires
 * (clang -target bpf, built at configure time when clang is found; embedded
 * in libgnio). Two programs over the same rule tables and counters, each
 * running the parser and matcher the proxies run (flow_key.h), so a rule
 * means the same on both sides:
 *
 * gnio_xsk (XDP, the afxdp wire): per frame, by the first rule that
 * matches, gnio (redirect to the AF_XDP socket bound to the queue the frame
 * arrived on), the host stack (XDP_PASS) or drop (XDP_DROP). Rules that send
 * a frame to a gnio queue, RSS set or host queue all redirect here; the
 * proxy does the fan-out.
 *
 * gnio_sock (socket filter, the afpacket wire's RX sockets): the host stack
 * gets every frame on AF_PACKET whatever a filter says, so the choice is
 * only whether gnio's socket takes a copy: not for kernel and drop, the
 * whole frame otherwise. A frame it refuses is counted here and never copied
 * into the socket's ring.
 *
 * Maps:
 *   gnio_xsks         XSKMAP, queue id -> socket (filled by the afxdp wire;
 *                     not created for the socket filter)
 *   gnio_flow_tables  one slot holding the current rule table (an array map
 *                     of one struct fk_table). A change installs a whole new
 *                     inner map; the kernel returns from that update only
 *                     after every program that could still see the old one
 *                     finished, so counts of removed rules are final then.
 *                     An empty slot means no flow: gnio_xsk is then the
 *                     plain redirect gnio always had (socket of the queue,
 *                     XDP_PASS when the queue has none), gnio_sock takes
 *                     every frame, and neither counts.
 *   gnio_flow_hits    per-CPU counters by slot: rules, default, frames,
 *                     and gnio decisions that found no socket (XDP_PASS).
 *   gnio_sock_buf     per-CPU copy of the frame for gnio_sock (a socket
 *                     filter cannot read packet memory directly).
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

/* gnio_sock's copy of the frame: FK_MAX_READ bytes (rounded up), so every
 * offset the parser can form lies inside it. The verifier proves that from
 * the offsets' own bounds; the parser's fk_room checks, against the length
 * copied, keep it from reading what an earlier frame left there. */
struct sock_buf {
	fk_u8 b[(FK_MAX_READ + 7) & ~7];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sock_buf);
} gnio_sock_buf SEC(".maps");

/* Most frames are classified from their first bytes: IPv4, ARP and IPv6
 * without extension headers never read past byte 86. */
#define SOCK_HEAD 128u

static __attribute__((always_inline)) inline void count(__u32 slot)
{
	__u64 *c = bpf_map_lookup_elem(&gnio_flow_hits, &slot);

	if (c)
		*c += 1; /* per-CPU: no other writer */
}

/* One rule against one key, as a global function: the verifier checks it
 * once on its own. gnio_sock needs that: its key comes from a global parser
 * (below), so the verifier knows nothing of it, and with the match inlined
 * into the loop of 256 rules every branch on the key is followed again in
 * every rule, past the verifier's budget. gnio_xsk inlines the match
 * instead: a call per rule costs it 3.4-3.9 us a frame at 256 rules against
 * 0.77-0.89 us inlined (BPF_PROG_TEST_RUN, docs/flow.md). */
__attribute__((noinline)) int gnio_rule_match(const struct fk_rule *r, const struct fk_key *k)
{
	if (!r || !k)
		return 0;
	return fk_match(r, k);
}

/* The first rule of t matching k, or the default: counts its slot and the
 * frame, and returns its action. call_match (a constant at each call site)
 * picks gnio_rule_match over the inlined fk_match. */
static __attribute__((always_inline)) inline __u8 decide(const struct fk_table *t, const struct fk_key *k,
							 const int call_match)
{
	__u32 slot = FK_SLOT_DEFAULT, i;
	__u8 act = t->default_action;

	for (i = 0; i < FK_MAX_RULES; i++) {
		if (i >= t->count)
			break;
		if (call_match ? gnio_rule_match(&t->rules[i], k) : fk_match(&t->rules[i], k)) {
			slot = t->rules[i].slot;
			act = t->rules[i].action;
			break;
		}
	}
	count(slot);
	count(FK_SLOT_FRAMES);
	return act;
}

/* Parse the first n bytes of b. A global function: the verifier checks it
 * once, on its own, and then takes a call as giving some key, so the rule
 * loop after it is checked once rather than once per way through the
 * parser (inlined, the two together exceed the verifier's budget). */
__attribute__((noinline)) int gnio_sock_parse(struct sock_buf *b, __u32 n, int tci, struct fk_key *k)
{
	if (!b || !k || n > sizeof(b->b))
		return -1;
	fk_parse_tagged(b->b, b->b + n, tci, k);
	return 0;
}

SEC("xdp")
int gnio_xsk(struct xdp_md *ctx)
{
	const fk_u8 *data = (const fk_u8 *)(long)ctx->data;
	const fk_u8 *end = (const fk_u8 *)(long)ctx->data_end;
	const struct fk_table *t;
	struct fk_key k;
	__u32 zero = 0;
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
	act = decide(t, &k, 0);
	if (act == FK_ACT_KERNEL)
		return XDP_PASS;
	if (act == FK_ACT_DROP)
		return XDP_DROP;
	ret = bpf_redirect_map(&gnio_xsks, ctx->rx_queue_index, XDP_PASS);
	if (ret != XDP_REDIRECT)
		count(FK_SLOT_NO_SOCKET);
	return (int)ret;
}

SEC("socket")
int gnio_sock(struct __sk_buff *skb)
{
	/* AF_PACKET runs a RAW socket's filter with the frame from its
	 * Ethernet header; the kernel has taken the outer VLAN tag out. */
	const int keep = (int)skb->len, tci = skb->vlan_present ? (int)(skb->vlan_tci & 0xffff) : -1;
	const struct fk_table *t;
	struct sock_buf *b;
	struct fk_key k;
	__u32 zero = 0, n;
	void *inner;
	__u8 act;

	inner = bpf_map_lookup_elem(&gnio_flow_tables, &zero);
	if (!inner)
		return keep;
	t = bpf_map_lookup_elem(inner, &zero);
	b = bpf_map_lookup_elem(&gnio_sock_buf, &zero);
	if (!t || !b)
		return keep;
	__builtin_memset(&k, 0, sizeof(k));
	n = skb->len < SOCK_HEAD ? skb->len : SOCK_HEAD;
	if (n == 0 || bpf_skb_load_bytes(skb, 0, b->b, n))
		n = 0; /* nothing readable: classified as a runt */
	gnio_sock_parse(b, n, tci, &k);
	if ((k.flags & FK_F_EXT) && n < skb->len) {
		/* an IPv6 extension chain may run past the head: read the
		 * frame as far as the parser can go */
		n = skb->len < FK_MAX_READ ? skb->len : FK_MAX_READ;
		if (bpf_skb_load_bytes(skb, 0, b->b, n) == 0)
			gnio_sock_parse(b, n, tci, &k);
	}
	act = decide(t, &k, 1);
	return act == FK_ACT_KERNEL || act == FK_ACT_DROP ? 0 : keep;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
