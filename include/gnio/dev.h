/* SPDX-License-Identifier: MIT */
/*
 * gnio/dev.h - a wire opened from a spec string (DOCA: doca_dev/doca_devinfo).
 *
 * Specs:  sw:NAME            in-process software NIC with a peer endpoint
 *         afxdp:IFACE[@Q]    AF_XDP socket on a Linux interface
 *         afpacket:IFACE     AF_PACKET TPACKET_V3
 *         pcap:FILE[,out=F]  replay a capture, write what is sent
 * Options follow the name after commas, e.g. "sw:a,depth=8192".
 */
#ifndef GNIO_DEV_H
#define GNIO_DEV_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_dev;
struct gnio_devinfo;

/* Wire capability flags (the NIC axis of the capability check). */
#define GNIO_WIRE_CAP_ZERO_COPY    (1u << 0) /* frames land in the pool without a copy */
#define GNIO_WIRE_CAP_SW_TIMESTAMP (1u << 1)
#define GNIO_WIRE_CAP_HW_TIMESTAMP (1u << 2)
#define GNIO_WIRE_CAP_TXTIME       (1u << 3) /* the wire itself honours send times */
#define GNIO_WIRE_CAP_NATIVE_MODE  (1u << 4)
#define GNIO_WIRE_CAP_SKB_MODE     (1u << 5)
#define GNIO_WIRE_CAP_MULTI_QUEUE  (1u << 6)
#define GNIO_WIRE_CAP_RX           (1u << 7)
#define GNIO_WIRE_CAP_TX           (1u << 8)

struct gnio_wire_caps {
	uint32_t struct_size;     /* set by the caller to sizeof(struct gnio_wire_caps) */
	uint32_t flags;           /* GNIO_WIRE_CAP_* */
	uint32_t max_frame_size;  /* largest frame the wire carries, bytes, no FCS */
	uint32_t num_rx_queues;
	uint32_t num_tx_queues;
	char mode[32];            /* mode in use, e.g. "native,copy"; "" if n/a */
	/* How a sent frame reaches the wire, who copies it if anyone, e.g.
	 * "by address from the UMEM (zero copy)"; "" if the wire cannot send.
	 * Frames gnio itself copies are counted per queue (tx_copies). */
	char tx_path[96];
};

/* Open a wire. Errors: INVALID_VALUE (malformed spec), NOT_FOUND (unknown wire
 * kind or missing interface/file), NOT_PERMITTED (privilege), NOT_SUPPORTED
 * (wire not built in), IN_USE, NO_MEMORY, OPERATING_SYSTEM. */
/* @since 0.1 wire_open: Open a wire from a spec string (sw, afxdp, afpacket, pcap) */
gnio_error_t gnio_dev_open(const char *spec, struct gnio_dev **dev);
/* Close a wire. Errors: INVALID_VALUE, BAD_STATE (queues or a gnio_flow still exist). */
gnio_error_t gnio_dev_close(struct gnio_dev *dev);
struct gnio_devinfo *gnio_dev_as_devinfo(struct gnio_dev *dev);

/* The spec the wire was opened with. */
const char *gnio_devinfo_get_spec(const struct gnio_devinfo *info);
/* Wire kind: "sw", "afxdp", "afpacket", "pcap". */
const char *gnio_devinfo_get_wire(const struct gnio_devinfo *info);
/* Name after the colon: the sw name, interface or file. */
const char *gnio_devinfo_get_name(const struct gnio_devinfo *info);
/* Errors: INVALID_VALUE. */
/* @since 0.1 wire_caps: Wire (NIC-axis) capability query */
gnio_error_t gnio_devinfo_get_caps(const struct gnio_devinfo *info, struct gnio_wire_caps *caps);

/* What the NIC behind a netdev wire (afxdp, afpacket) does to spread and
 * steer frames over its hardware RX queues, read with ethtool's ioctls: with
 * RSS the NIC hashes flows to queues itself, and ntuple rules (ethtool -N)
 * send chosen flows to chosen queues. gnio opens one socket per hardware
 * queue (`--queues N`), so whatever the NIC does is used as it is; gnio's own
 * `rss` and `queue` actions then move frames between rings in the proxies
 * where the NIC's choice differs (docs/flow.md, "The NIC's own steering").
 * Wires with no NIC behind them report zeros and say so. */
struct gnio_wire_steering {
	uint32_t struct_size;      /* set by the caller to sizeof(struct gnio_wire_steering) */
	uint32_t hw_rx_queues;     /* RX queues (channels) the interface has now; 0: no NIC */
	uint32_t rss_table_size;   /* entries of the RSS indirection table; 0: none reported */
	uint32_t ntuple;           /* 1: the NIC takes ntuple rules and they are switched on */
	uint32_t ntuple_rules;     /* ntuple rules installed now (when ntuple) */
	char rss_how[128];         /* what RSS there is, or why none */
	char ntuple_how[128];      /* what ntuple steering there is, or why none */
};

/* Errors: INVALID_VALUE. */
/* @since 0.2 wire_steering: The NIC's own steering (RSS, ntuple) behind a netdev wire */
gnio_error_t gnio_devinfo_get_steering(const struct gnio_devinfo *info, struct gnio_wire_steering *steering);

/* Has the wire failed? A fault that ends a wire's traffic while queues run
 * (a corrupt record in a replayed capture; an interface deleted or taken down:
 * afxdp and afpacket look at their link on each call) is reported here: *err is
 * the first such error, GNIO_SUCCESS while the wire is healthy, and msg (if
 * given) gets its one-line reason, e.g. "pcap:x.pcap: record 7: truncated
 * dump file; ...". Poll it when a wire goes quiet. Errors: INVALID_VALUE. */
/* @since 0.1 wire_error: Faults that end a wire's traffic, with a one-line reason */
gnio_error_t gnio_dev_get_wire_error(struct gnio_dev *dev, gnio_error_t *err, char *msg, size_t msg_len);

/* How the host threads that move a wire's frames (its queues' proxies) wait
 * when there is nothing to move:
 *  - ADAPTIVE (default): spin a few thousand polls, then sleep in naps that
 *    grow from 20 us to 2 ms (never past a timed frame's send time); a wire with something to wait on (a socket, the
 *    sw FIFO) wakes its RX proxy as soon as a frame arrives, and a frame
 *    arriving wakes the device's TX proxies. An idle queue costs well under
 *    2 % of a core; under load nothing sleeps.
 *  - BUSY: never sleep (an idle proxy only yields the core to runnable
 *    threads): one core per proxy, lowest latency at any rate.
 * Applies to queues started after the call. Errors: INVALID_VALUE. */
enum gnio_poll_mode {
	GNIO_POLL_ADAPTIVE = 0,
	GNIO_POLL_BUSY = 1,
};
/* @since 0.2 dev_poll_mode: Proxy polling mode per device: adaptive (default) or busy */
gnio_error_t gnio_dev_set_poll_mode(struct gnio_dev *dev, enum gnio_poll_mode mode);
gnio_error_t gnio_dev_get_poll_mode(const struct gnio_dev *dev, enum gnio_poll_mode *mode);

/* Last one-line reason recorded by a failed call on this thread, "" if none.
 * Gives the detail behind an error code, e.g. "interface veth9 not found". */
/* @since 0.1 last_error_msg: One-line reason behind the last error */
const char *gnio_last_error_msg(void);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_DEV_H */
