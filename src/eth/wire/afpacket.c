/* SPDX-License-Identifier: MIT */
/*
 * src/eth/wire/afpacket.c - the `afpacket:IFACE[,opts]` wire.
 *
 * Options: promisc=1   put the interface in promiscuous mode while open
 *          bypass=1    PACKET_QDISC_BYPASS on the TX socket
 *          blocks=N    RX ring blocks of 128 KiB (default 128)
 *          tov=MS      block retire timeout in ms (default 1)
 *          queues=N    RX/TX queues 0..N-1 (default 1, at most 64): one
 *                      socket each; the RX sockets form a PACKET_FANOUT
 *                      group that spreads frames by the kernel's flow hash
 *
 * RX: a TPACKET_V3 ring (the kernel fills whole blocks, we walk them and hand
 * each block back once every frame in it was copied out). The kernel strips
 * the outer VLAN tag of a received frame before packet sockets see it and
 * passes it beside the frame (tp_vlan_tci/tp_vlan_tpid); it is put back, as
 * libpcap does, so the frame gnio delivers is the frame on the wire. TX: a second socket
 * and one sendmmsg() per burst. AF_PACKET has no hardware queues; with
 * queues=N the kernel's fanout spreads a flow always to the same socket.
 *
 * Flow rules: a gnio_flow on this wire loads the flow's socket filter
 * (gnio_sock in src/flow/xdp_flow.bpf.c) and attaches it to every RX socket
 * before it binds. The filter classifies and counts every frame, and the
 * socket takes no copy of those whose action is kernel or drop (the host
 * stack gets every frame on AF_PACKET either way). Where it cannot be loaded
 * (no CAP_BPF, gnio built without clang) the proxies classify and count, as
 * they do on the in-process wires.
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>

#include "core/errmsg.h"
#include "eth/wire.h"
#include "eth/wire_opts.h"
#include "flow/flow_priv.h"
#ifdef GNIO_HAVE_XDP_FLOW
#include "flow/flow_xdp.h"
#endif

#define COMP "afpacket"
/* Many small blocks rather than a few large ones: at a trickle each block
 * retires after tov with a handful of frames in it, so the block count is
 * how long the proxy may be kept off the CPU before the ring overflows. */
#define BLOCK_SIZE (1u << 17)
#define TX_BATCH 256
#define VLAN_TAG_LEN 4u
#define MAC_ADDRS_LEN 12u /* the tag goes after destination and source MAC */
#define AFP_MAX_QUEUES 64u
/* Older UAPI headers lack it (Linux 6.x has it): the group's sockets skip
 * frames the host sends, as PACKET_IGNORE_OUTGOING does for a lone socket. */
#ifndef PACKET_FANOUT_FLAG_IGNORE_OUTGOING
#define PACKET_FANOUT_FLAG_IGNORE_OUTGOING 0x4000
#endif

struct afp_wire {
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint32_t mtu;
	int promisc, bypass, hwts;
	uint32_t blocks, tov_ms;
	uint32_t queues;          /* queues=N */
	uint16_t fanout_id;       /* this wire's PACKET_FANOUT group (queues > 1) */
	uint64_t has_rx, has_tx;  /* open queues, one bit per id */
	struct afp_rxq *rxq[AFP_MAX_QUEUES]; /* the open RX queues */
#ifdef GNIO_HAVE_XDP_FLOW
	struct flow_xdp *filter;  /* the flow's socket filter, loaded (NULL: none) */
	int filter_refused;       /* it could not be loaded: the proxies classify */
#endif
};

struct afp_rxq {
	struct afp_wire *w;
	uint16_t id;
	int fd;
	uint8_t *ring;
	size_t ring_size;
	uint32_t nblocks, blk;   /* current block */
	struct tpacket3_hdr *pkt; /* next frame in the current block, NULL: none */
	uint32_t left;           /* frames left in the current block */
	uint64_t drops;          /* PACKET_STATISTICS resets on read: accumulate */
	int skip_outgoing;       /* the ring also gets frames the host sends: skip them */
};

struct afp_txq {
	struct afp_wire *w;
	uint16_t id;
	int fd;
	struct sockaddr_ll addr;
	struct mmsghdr msg[TX_BATCH];
	struct iovec iov[TX_BATCH];
};

static int has_cap(int cap)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return 1;
	return !!(d[cap / 32].effective & (1u << (cap % 32)));
}

static gnio_error_t iface_check(struct afp_wire *w)
{
	struct ifreq ifr;
	struct ethtool_ts_info ti;
	int fd;

	if (!w->ifname[0])
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afpacket: no interface given (afpacket:IFACE)");
	w->ifindex = (int)if_nametoindex(w->ifname);
	if (!w->ifindex)
		return gnio_fail(GNIO_ERROR_NOT_FOUND, COMP, "interface %s not found", w->ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "socket: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, w->ifname, strlen(w->ifname));
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		close(fd);
		return gnio_fail(GNIO_ERROR_BAD_STATE, COMP, "interface %s is down (ip link set %s up)",
				 w->ifname, w->ifname);
	}
	w->mtu = 1500;
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
		w->mtu = (uint32_t)ifr.ifr_mtu;
	memset(&ti, 0, sizeof(ti));
	ti.cmd = ETHTOOL_GET_TS_INFO;
	ifr.ifr_data = (void *)&ti;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		w->hwts = !!(ti.so_timestamping & SOF_TIMESTAMPING_RX_HARDWARE);
	close(fd);
	return GNIO_SUCCESS;
}

/* The options afp_open parses (gnio_dev_open refuses any other). */
const char gnio_wire_afpacket_options[] = "promisc,bypass,blocks,tov,queues";

static gnio_error_t afp_open(struct gnio_dev *dev, const char *args, void **wire)
{
	char name[64];
	const char *opts = gnio_wire_split_args(args, name, sizeof(name));
	struct afp_wire *w;
	gnio_error_t err;

	(void)dev;
	if (strlen(name) >= IF_NAMESIZE)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afpacket: interface name '%s' too long", name);
	if (strchr(name, '@'))
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP,
				 "afpacket: no per-queue binding (AF_PACKET sees the whole interface); use afxdp:%s",
				 name);
	w = calloc(1, sizeof(*w));
	if (!w)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	memcpy(w->ifname, name, strlen(name) + 1);
	w->blocks = 128;
	w->tov_ms = 1;
	w->queues = 1;
	if (gnio_wire_opt_flag(opts, "promisc", &w->promisc) < 0 || gnio_wire_opt_flag(opts, "bypass", &w->bypass) < 0) {
		free(w);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP, "afpacket: promisc and bypass take 0 or 1");
	}
	if (gnio_wire_opt_u32(opts, "blocks", 2, 1024, &w->blocks) < 0 ||
	    gnio_wire_opt_u32(opts, "tov", 1, 1000, &w->tov_ms) < 0 ||
	    gnio_wire_opt_u32(opts, "queues", 1, AFP_MAX_QUEUES, &w->queues) < 0) {
		free(w);
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, COMP,
				 "afpacket: blocks must be 2..1024, tov 1..1000 ms and queues 1..%u", AFP_MAX_QUEUES);
	}
	/* A fanout group id is per network namespace and shared by every
	 * socket that names it: one from a per-process counter and the pid
	 * keeps two wires (or two processes) apart. */
	static unsigned fanout_seq;
	w->fanout_id = (uint16_t)((unsigned)getpid() * 64u + __atomic_fetch_add(&fanout_seq, 1, __ATOMIC_RELAXED));
	err = iface_check(w);
	if (!err && !has_cap(CAP_NET_RAW))
		err = gnio_fail(GNIO_ERROR_NOT_PERMITTED, COMP,
				"afpacket:%s needs CAP_NET_RAW (run as root or grant it with setcap)", w->ifname);
	if (err) {
		free(w);
		return err;
	}
	*wire = w;
	return GNIO_SUCCESS;
}

static void afp_close(void *wire)
{
#ifdef GNIO_HAVE_XDP_FLOW
	struct afp_wire *w = wire;

	flow_xdp_close(w->filter); /* the sockets are closed: nothing holds it */
#endif
	free(wire);
}

static gnio_error_t afp_caps(void *wire, struct gnio_wire_caps *c)
{
	struct afp_wire *w = wire;
	/* Ethernet header plus one VLAN tag: a tagged frame may carry a full
	 * MTU (the kernel sends and receives those), and RX restores the tag. */
	uint32_t mf = w->mtu + 14 + VLAN_TAG_LEN;

	c->flags = GNIO_WIRE_CAP_RX | GNIO_WIRE_CAP_TX | GNIO_WIRE_CAP_SW_TIMESTAMP;
	if (w->hwts)
		c->flags |= GNIO_WIRE_CAP_HW_TIMESTAMP;
	/* a block holds the largest frame; frames never span blocks */
	if (mf > BLOCK_SIZE - 256)
		mf = BLOCK_SIZE - 256;
	c->max_frame_size = mf;
	c->num_rx_queues = w->queues;
	c->num_tx_queues = w->queues;
	/* queues=N shows as num_rx_queues (a fanout group when N > 1) */
	snprintf(c->mode, sizeof(c->mode), "tpacket_v3,sendmmsg%s", w->bypass ? ",bypass" : "");
	snprintf(c->tx_path, sizeof(c->tx_path), "sendmmsg from the buffer; the kernel copies each frame into a socket buffer");
	return GNIO_SUCCESS;
}

static gnio_error_t bind_if(int fd, struct afp_wire *w, uint16_t proto)
{
	struct sockaddr_ll sll;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = proto;
	sll.sll_ifindex = w->ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		return gnio_fail(errno == ENETDOWN ? GNIO_ERROR_BAD_STATE : GNIO_ERROR_OPERATING_SYSTEM, COMP,
				 "afpacket:%s: bind: %s", w->ifname, strerror(errno));
	return GNIO_SUCCESS;
}

/* Queue id of a direction (open: that direction's bitmask) exists and is not open yet. */
static gnio_error_t queue_free(const struct afp_wire *w, uint64_t open, uint16_t id, const char *dir)
{
	if (id >= w->queues)
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "afpacket:%s has %u %s queue(s) (queues=%u), not id %u",
				 w->ifname, w->queues, dir, w->queues, id);
	if (open & (1ull << id))
		return gnio_fail(GNIO_ERROR_IN_USE, COMP, "afpacket:%s: %s queue %u already open", w->ifname, dir, id);
	return GNIO_SUCCESS;
}

static void afp_rxq_close(void *qv)
{
	struct afp_rxq *q = qv;

	if (q->ring)
		munmap(q->ring, q->ring_size);
	if (q->fd >= 0)
		close(q->fd);
	q->w->has_rx &= ~(1ull << q->id);
	q->w->rxq[q->id] = NULL;
	free(q);
}

/* Attach the flow's socket filter, when there is one, to an RX socket. */
static gnio_error_t attach_filter(struct afp_wire *w, int fd)
{
#ifdef GNIO_HAVE_XDP_FLOW
	int prog = w->filter ? flow_xdp_prog_fd(w->filter) : -1;

	if (prog >= 0 && setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog)))
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "afpacket:%s: attaching the flow's socket filter: %s",
				 w->ifname, strerror(errno));
#else
	(void)w;
	(void)fd;
#endif
	return GNIO_SUCCESS;
}

static gnio_error_t afp_rxq_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **out)
{
	struct afp_wire *w = wire;
	struct tpacket_req3 req;
	struct afp_rxq *q;
	gnio_error_t err = GNIO_SUCCESS;
	int v = TPACKET_V3, one = 1;

	GNIO_CHECK(queue_free(w, w->has_rx, cfg->queue_id, "RX"));
	q = calloc(1, sizeof(*q));
	if (!q)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	q->w = w;
	q->id = cfg->queue_id;
	w->has_rx |= 1ull << q->id;
	w->rxq[q->id] = q;
	/* socket without a protocol first: nothing is queued before the ring
	 * and the filter exist */
	q->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (q->fd < 0) {
		err = errno == EPERM ? gnio_fail(GNIO_ERROR_NOT_PERMITTED, COMP, "afpacket:%s needs CAP_NET_RAW", w->ifname)
				     : gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "AF_PACKET socket: %s", strerror(errno));
		goto fail;
	}
	if (setsockopt(q->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v))) {
		err = gnio_fail(GNIO_ERROR_NOT_SUPPORTED, COMP, "afpacket: TPACKET_V3 not supported: %s", strerror(errno));
		goto fail;
	}
	/* our own TX socket's frames would loop back here otherwise */
	setsockopt(q->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	memset(&req, 0, sizeof(req));
	req.tp_block_size = BLOCK_SIZE;
	req.tp_block_nr = w->blocks;
	req.tp_frame_size = 2048;
	req.tp_frame_nr = (BLOCK_SIZE / 2048) * w->blocks;
	req.tp_retire_blk_tov = w->tov_ms;
	if (setsockopt(q->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req))) {
		err = gnio_fail(errno == ENOMEM ? GNIO_ERROR_NO_MEMORY : GNIO_ERROR_OPERATING_SYSTEM, COMP,
				"afpacket:%s: PACKET_RX_RING (%u MiB): %s", w->ifname, w->blocks, strerror(errno));
		goto fail;
	}
	q->nblocks = w->blocks;
	q->ring_size = (size_t)BLOCK_SIZE * w->blocks;
	q->ring = mmap(NULL, q->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, q->fd, 0);
	if (q->ring == MAP_FAILED) {
		/* MAP_LOCKED counts against RLIMIT_MEMLOCK; the ring works unlocked */
		q->ring = mmap(NULL, q->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, q->fd, 0);
		if (q->ring == MAP_FAILED) {
			q->ring = NULL;
			err = gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "afpacket:%s: mmap of the RX ring: %s",
					w->ifname, strerror(errno));
			goto fail;
		}
	}
	err = attach_filter(w, q->fd);
	if (!err)
		err = bind_if(q->fd, w, htons(ETH_P_ALL));
	if (err)
		goto fail;
	if (w->queues > 1) {
		/* hash: one flow, one socket (the kernel's flow hash; IP
		 * fragments reassembled first so they hash alike). A group
		 * delivers through its own hook, which PACKET_IGNORE_OUTGOING
		 * above does not reach: without the group's flag, every frame
		 * gnio sends would come back in (an echo would loop). */
		uint32_t type = PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_DEFRAG;
		uint32_t fo = w->fanout_id | ((type | PACKET_FANOUT_FLAG_IGNORE_OUTGOING) << 16);
		int e = setsockopt(q->fd, SOL_PACKET, PACKET_FANOUT, &fo, sizeof(fo)) ? errno : 0;
		if (e == EINVAL) {
			/* a kernel without the flag: skip outgoing frames in rx_burst */
			fo = w->fanout_id | (type << 16);
			e = setsockopt(q->fd, SOL_PACKET, PACKET_FANOUT, &fo, sizeof(fo)) ? errno : 0;
			q->skip_outgoing = 1;
		}
		if (e) {
			err = gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "afpacket:%s: PACKET_FANOUT group %u: %s",
					w->ifname, w->fanout_id, strerror(e));
			goto fail;
		}
	}
	if (w->promisc) {
		struct packet_mreq mr;

		memset(&mr, 0, sizeof(mr));
		mr.mr_ifindex = w->ifindex;
		mr.mr_type = PACKET_MR_PROMISC; /* dropped by the kernel when the socket closes */
		if (setsockopt(q->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr))) {
			err = gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "afpacket:%s: promiscuous mode: %s",
					w->ifname, strerror(errno));
			goto fail;
		}
	}
	*out = q;
	return GNIO_SUCCESS;
fail:
	afp_rxq_close(q);
	return err;
}

static gnio_error_t afp_txq_open(void *wire, const struct gnio_wire_queue_cfg *cfg, void **out)
{
	struct afp_wire *w = wire;
	struct afp_txq *q;
	gnio_error_t err = GNIO_SUCCESS;
	int one = 1;

	GNIO_CHECK(queue_free(w, w->has_tx, cfg->queue_id, "TX"));
	q = calloc(1, sizeof(*q));
	if (!q)
		return gnio_fail(GNIO_ERROR_NO_MEMORY, COMP, "out of memory");
	q->w = w;
	q->id = cfg->queue_id;
	/* protocol 0: a send-only socket receives nothing */
	q->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (q->fd < 0) {
		err = gnio_fail(errno == EPERM ? GNIO_ERROR_NOT_PERMITTED : GNIO_ERROR_OPERATING_SYSTEM, COMP,
				"afpacket:%s: %s", w->ifname, errno == EPERM ? "needs CAP_NET_RAW" : strerror(errno));
		free(q);
		return err;
	}
	err = bind_if(q->fd, w, 0);
	if (err) {
		close(q->fd);
		free(q);
		return err;
	}
	if (w->bypass && setsockopt(q->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		GNIO_LOG_WARN(COMP, "%s: PACKET_QDISC_BYPASS: %s", w->ifname, strerror(errno));
	q->addr.sll_family = AF_PACKET;
	q->addr.sll_ifindex = w->ifindex;
	q->addr.sll_halen = ETH_ALEN;
	for (int i = 0; i < TX_BATCH; i++) {
		q->msg[i].msg_hdr.msg_iov = &q->iov[i];
		q->msg[i].msg_hdr.msg_iovlen = 1;
		q->msg[i].msg_hdr.msg_name = &q->addr;
		q->msg[i].msg_hdr.msg_namelen = sizeof(q->addr);
	}
	w->has_tx |= 1ull << q->id;
	*out = q;
	return GNIO_SUCCESS;
}

static void afp_txq_close(void *qv)
{
	struct afp_txq *q = qv;

	close(q->fd);
	q->w->has_tx &= ~(1ull << q->id);
	free(q);
}

static inline struct tpacket_block_desc *blk_at(struct afp_rxq *q, uint32_t i)
{
	return (struct tpacket_block_desc *)(q->ring + (size_t)i * BLOCK_SIZE);
}

static gnio_error_t afp_check(void *wv, char *msg, size_t msg_len)
{
	const struct afp_wire *w = wv;
	return gnio_wire_check_link(w->ifname, w->ifindex, msg, msg_len);
}

/* Adaptive polling: the socket is readable once a block retires (full, or
 * after its tov). */
static void afp_rx_wait(void *qv, uint64_t timeout_ns)
{
	struct afp_rxq *q = qv;
	gnio_wire_wait_fd(q->fd, timeout_ns);
}

static unsigned afp_rx_burst(void *qv, struct gnio_wire_frame *f, unsigned n)
{
	struct afp_rxq *q = qv;
	unsigned got = 0;

	while (got < n) {
		struct tpacket_block_desc *b = blk_at(q, q->blk);

		if (!q->pkt) {
			/* ACQUIRE: pairs with the kernel's store of block_status
			 * after it filled the block */
			if (!(__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
				break;
			q->left = b->hdr.bh1.num_pkts;
			q->pkt = (struct tpacket3_hdr *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
		}
		while (q->left && got < n) {
			struct tpacket3_hdr *h = q->pkt;
			if (__builtin_expect(q->skip_outgoing, 0)) {
				/* the sockaddr_ll the kernel puts after the header */
				const struct sockaddr_ll *sll =
					(const struct sockaddr_ll *)((const uint8_t *)h +
								     TPACKET_ALIGN(sizeof(struct tpacket3_hdr)));
				if (sll->sll_pkttype == PACKET_OUTGOING) {
					q->pkt = (struct tpacket3_hdr *)((uint8_t *)h + h->tp_next_offset);
					q->left--;
					continue;
				}
			}
			struct gnio_wire_frame *fr = &f[got++];
			const uint8_t *mac = (const uint8_t *)h + h->tp_mac;
			/* libpcap's test: the flag, or a non-zero TCI from kernels
			 * that predate the flag */
			uint32_t tag = ((h->tp_status & TP_STATUS_VLAN_VALID) || h->hv1.tp_vlan_tci) &&
						       h->tp_snaplen >= MAC_ADDRS_LEN ? VLAN_TAG_LEN : 0;

			fr->len = h->tp_len + tag;
			fr->ts_ns = (uint64_t)h->tp_sec * 1000000000ull + h->tp_nsec;
			fr->buf_off = 0;
			if (fr->len <= fr->cap && h->tp_snaplen == h->tp_len) {
				if (tag) {
					uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) && h->hv1.tp_vlan_tpid
								? h->hv1.tp_vlan_tpid : ETH_P_8021Q;
					uint8_t *t = fr->data + MAC_ADDRS_LEN;

					memcpy(fr->data, mac, MAC_ADDRS_LEN);
					t[0] = (uint8_t)(tpid >> 8);
					t[1] = (uint8_t)tpid;
					t[2] = (uint8_t)(h->hv1.tp_vlan_tci >> 8);
					t[3] = (uint8_t)h->hv1.tp_vlan_tci;
					memcpy(t + VLAN_TAG_LEN, mac + MAC_ADDRS_LEN, h->tp_snaplen - MAC_ADDRS_LEN);
				} else {
					memcpy(fr->data, mac, h->tp_snaplen);
				}
			} else if (fr->len <= fr->cap) {
				fr->len = fr->cap + 1; /* truncated by the ring: too big */
			}
			q->pkt = (struct tpacket3_hdr *)((uint8_t *)h + h->tp_next_offset);
			q->left--;
		}
		if (q->left)
			break;
		/* RELEASE: our reads of the block happen before the kernel reuses it */
		__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		q->pkt = NULL;
		q->blk = (q->blk + 1) % q->nblocks;
	}
	return got;
}

static unsigned afp_tx_burst(void *qv, struct gnio_wire_frame *f, unsigned n)
{
	struct afp_txq *q = qv;
	int sent;

	if (n > TX_BATCH)
		n = TX_BATCH;
	for (unsigned i = 0; i < n; i++) {
		q->iov[i].iov_base = f[i].data;
		q->iov[i].iov_len = f[i].len;
	}
	sent = sendmmsg(q->fd, q->msg, n, MSG_DONTWAIT);
	if (sent < 0) {
		/* a frame the interface refuses (too long) would block the queue
		 * forever: count it as taken and let the peer miss it */
		if (errno == EMSGSIZE || errno == EINVAL)
			return 1;
		return 0; /* EAGAIN/ENOBUFS: offered again later */
	}
	return (unsigned)sent;
}

static void afp_rxq_stats(void *qv, struct gnio_wire_rxq_stats *st)
{
	struct afp_rxq *q = qv;
	struct tpacket_stats_v3 s;
	socklen_t len = sizeof(s);

	/* reading PACKET_STATISTICS resets it: keep the running sum */
	if (getsockopt(q->fd, SOL_PACKET, PACKET_STATISTICS, &s, &len) == 0)
		q->drops += s.tp_drops;
	st->overflow = q->drops;
}

/* ------------------------------------------------------ flow binding -- */

/* A gnio_flow bound to this wire hands its rule tables here (src/flow/flow.c
 * through gnio_afpacket_flow_hooks). Control calls, under the flow's lock;
 * not concurrent with RX queue open/close on the same wire. */
#ifdef GNIO_HAVE_XDP_FLOW
/* Load the socket filter with table t and attach it to the open sockets.
 * A refusal (no CAP_BPF, a kernel that rejects it) is not an error: the
 * proxies then classify and count, as they always could. */
static gnio_error_t filter_up(struct afp_wire *w, const struct fk_table *t)
{
	struct flow_xdp *f;
	gnio_error_t err = flow_xdp_open(FLOW_PROG_SOCKET, 0, &f);

	if (!err)
		err = flow_xdp_publish(f, t);
	if (!err)
		err = flow_xdp_load(f);
	if (err == GNIO_ERROR_NO_MEMORY) {
		flow_xdp_close(f);
		return err;
	}
	if (err) {
		GNIO_LOG_WARN(COMP, "afpacket:%s: the flow's rules run in the proxies, every frame copied to gnio: %s",
			      w->ifname, gnio_last_error_msg());
		flow_xdp_close(f);
		w->filter_refused = 1;
		return GNIO_SUCCESS;
	}
	w->filter = f;
	for (unsigned i = 0; i < AFP_MAX_QUEUES; i++) {
		if (w->rxq[i] && (err = attach_filter(w, w->rxq[i]->fd)) != GNIO_SUCCESS)
			return err;
	}
	GNIO_LOG_INFO(COMP, "afpacket:%s: the flow's socket filter classifies every frame", w->ifname);
	return GNIO_SUCCESS;
}

static gnio_error_t afp_flow_publish(void *wire, const struct fk_table *t)
{
	struct afp_wire *w = wire;

	if (w->filter)
		return flow_xdp_publish(w->filter, t); /* NULL: the filter takes every frame */
	if (!t || w->filter_refused)
		return GNIO_SUCCESS;
	return filter_up(w, t);
}

static gnio_error_t afp_flow_read_hits(void *wire, uint64_t *slots)
{
	const struct afp_wire *w = wire;

	return flow_xdp_read_hits(w->filter, slots); /* zeros without a filter */
}

static int afp_flow_counts(void *wire)
{
	const struct afp_wire *w = wire;

	return w->filter != NULL;
}

static const struct flow_wire_hooks afp_flow_hooks = {
	.publish = afp_flow_publish,
	.read_hits = afp_flow_read_hits,
	.counts = afp_flow_counts,
};

const struct flow_wire_hooks *gnio_afpacket_flow_hooks(void)
{
	return &afp_flow_hooks;
}
#else
const struct flow_wire_hooks *gnio_afpacket_flow_hooks(void)
{
	return NULL; /* no socket filter built in: the proxies do it all */
}
#endif

/* The NIC's own RSS and ntuple steering (gnio_devinfo_get_steering). */
static gnio_error_t afp_steering(void *wire, struct gnio_wire_steering *st)
{
	const struct afp_wire *w = wire;
	return gnio_wire_nic_steering(w->ifname, st);
}

const struct gnio_wire_ops gnio_wire_afpacket_ops = {
	.kind = "afpacket",
	.open = afp_open,
	.close = afp_close,
	.caps = afp_caps,
	.rxq_open = afp_rxq_open,
	.rxq_close = afp_rxq_close,
	.txq_open = afp_txq_open,
	.txq_close = afp_txq_close,
	.rx_burst = afp_rx_burst,
	.check = afp_check,
	.rx_wait = afp_rx_wait,
	.tx_burst = afp_tx_burst,
	.rxq_stats = afp_rxq_stats,
	.steering = afp_steering,
};
