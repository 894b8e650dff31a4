/* SPDX-License-Identifier: MIT */
/*
 * src/eth/wire.h - the wire ops table (private). Every wire (sw, afxdp,
 * afpacket, pcap) implements it in src/eth/wire/<kind>.c and is listed in
 * src/eth/wire_registry.c; nothing else in the library knows wire details.
 *
 * Threading: open/close/caps/queue open/close run on the control thread. The
 * burst calls of one queue run on that queue's proxy thread only; different
 * queues may run concurrently.
 */
#ifndef GNIO_SRC_ETH_WIRE_H
#define GNIO_SRC_ETH_WIRE_H

#include <stdint.h>
#include <time.h>
#include "gnio/dev.h"
#include "gnio/error.h"

struct gnio_dev;

struct gnio_wire_frame {
	uint8_t *data;       /* RX copy: destination (cap bytes) given by the proxy.
			      * TX: frame bytes, host view. RX zero-copy: host view. */
	uint32_t len;        /* RX: true frame length (may exceed cap: then nothing
			      * is copied and the proxy counts too_big). */
	uint32_t cap;        /* RX copy: bytes available at data */
	uint64_t ts_ns;      /* RX: arrival time if the wire knows it, else 0 */
	uint64_t buf_off;    /* zero-copy wires: frame offset in the bound pool */
	uint64_t send_at_ns; /* TX: requested send time (0 = now) */
	uint32_t copied;     /* TX: set by the wire when it copied the bytes into a
			      * buffer of its own (not the OS or the link doing it) */
};

/* What a queue is opened with (at gnio_ctx_start). */
struct gnio_wire_queue_cfg {
	uint16_t queue_id;
	uint32_t max_frame;  /* largest frame the queue accepts */
	uint32_t ring_size;  /* GPU-visible ring entries */
	uint32_t burst;      /* max frames per burst call */
	/* Registered payload pool (host view), for wires that place frames in it
	 * directly (AF_XDP UMEM). NULL when the pool is not CPU-visible. */
	uint8_t *pool_cpu;
	uint64_t pool_size;
	uint32_t slot_size;
	uint32_t num_slots;
};

struct gnio_wire_rxq_stats {
	uint64_t overflow; /* frames the wire dropped before the proxy read them */
};

struct gnio_wire_ops {
	const char *kind; /* "sw", "afxdp", ... the part before ':' */

	/* Open the wire from the text after "kind:". On failure record a one-line
	 * reason with gnio_set_error_msg(). */
	gnio_error_t (*open)(struct gnio_dev *dev, const char *args, void **wire);
	void (*close)(void *wire);
	gnio_error_t (*caps)(void *wire, struct gnio_wire_caps *caps);

	gnio_error_t (*rxq_open)(void *wire, const struct gnio_wire_queue_cfg *cfg, void **q);
	void (*rxq_close)(void *q);
	gnio_error_t (*txq_open)(void *wire, const struct gnio_wire_queue_cfg *cfg, void **q);
	void (*txq_close)(void *q);

	/* RX, copy wires: write up to n frames into frames[i].data. Returns the
	 * count. A frame longer than frames[i].cap is consumed from the wire with
	 * len set and nothing copied (the proxy drops it as too_big). */
	unsigned (*rx_burst)(void *q, struct gnio_wire_frame *frames, unsigned n);

	/* RX, zero-copy wires (optional; set both or neither): frames arrive
	 * already in the pool, buf_off and len set. rx_release_zc hands buffers
	 * back, in arrival order, once the kernel released them. */
	unsigned (*rx_burst_zc)(void *q, struct gnio_wire_frame *frames, unsigned n);
	void (*rx_release_zc)(void *q, const uint64_t *buf_off, unsigned n);

	/* TX: hand up to n frames to the wire; returns how many it took. The rest
	 * are offered again later (wire busy). Sets frames[i].copied for the
	 * frames it took by copying them. A frame whose data lies inside the
	 * queue's own pool (AF_XDP UMEM) may be sent by reference. */
	unsigned (*tx_burst)(void *q, struct gnio_wire_frame *frames, unsigned n);
	/* Optional, for wires that finish sends asynchronously: how many accepted
	 * frames completed since the last call, in order. NULL: accepted frames
	 * are complete when tx_burst returns. */
	unsigned (*tx_reap)(void *q);

	void (*rxq_stats)(void *q, struct gnio_wire_rxq_stats *st);

	/* Optional, netdev wires: the NIC's own steering (gnio/dev.h). NULL:
	 * no NIC behind the wire. */
	gnio_error_t (*steering)(void *wire, struct gnio_wire_steering *st);

	/* Optional: the queue is stopping; sources inside the wire (generators,
	 * the null wire) stop making frames, so the final drain ends. Frames
	 * already on the wire are still handed over (and counted as stopped). */
	void (*rx_quiesce)(void *q);

	/* Optional, for adaptive polling: block until a frame may have arrived
	 * or timeout_ns passed, whichever is first (a spurious early return is
	 * fine). NULL: the proxy naps for the timeout instead. */
	void (*rx_wait)(void *q, uint64_t timeout_ns);

	/* Optional: is the wire still usable? SUCCESS, or the error that ends its
	 * traffic with a one-line reason in msg (an interface deleted or down).
	 * Called by gnio_dev_get_wire_error, never on the hot path. */
	gnio_error_t (*check)(void *wire, char *msg, size_t msg_len);
};

/* check for interface wires: NOT_FOUND when ifname no longer names ifindex
 * (deleted or renamed), NOT_CONNECTED when it is down; msg says which. */
gnio_error_t gnio_wire_check_link(const char *ifname, int ifindex, char *msg, size_t msg_len);
/* Queues of interface ifname whose sysfs names start with prefix ("rx-",
 * "tx-"): /sys/class/net/IF/queues. 0 when the directory cannot be read. */
unsigned gnio_wire_sysfs_queues(const char *ifname, const char *prefix);
/* The NIC steering of interface ifname (src/eth/nic_steering.c), for the
 * netdev wires' steering op. */
gnio_error_t gnio_wire_nic_steering(const char *ifname, struct gnio_wire_steering *st);

/* A duration in nanoseconds as the timespec nanosleep, ppoll and futex take
 * (the adaptive-polling waits). */
static inline struct timespec gnio_timespec_ns(uint64_t ns)
{
	return (struct timespec){(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
}

/* rx_wait for socket wires: ppoll(fd, POLLIN) for up to timeout_ns. */
void gnio_wire_wait_fd(int fd, uint64_t timeout_ns);

/* Registry (src/eth/wire_registry.c). NULL if unknown or not built in. */
const struct gnio_wire_ops *gnio_wire_find(const char *kind);
/* Comma-separated kinds built into this library, e.g. "sw,afpacket,pcap". */
const char *gnio_wire_list(void);

/* Option parsing shared by wires: "name,key=val,key2=val2". Copies the name
 * into name[] and returns a pointer to the options part ("" if none). */
const char *gnio_wire_split_args(const char *args, char *name, size_t name_len);
/* Find key in an option string; copies its value; returns 1 if found. */
int gnio_wire_opt(const char *opts, const char *key, char *val, size_t val_len);

#endif /* GNIO_SRC_ETH_WIRE_H */
