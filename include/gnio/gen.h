/* SPDX-License-Identifier: MIT */
/*
 * gnio/gen.h - frame generator: valid Ethernet/IPv4 frames of many kinds, each
 * a pure function of (config, sequence number), so a receiver can check both
 * order and content by rebuilding the frame it expects.
 */
#ifndef GNIO_GEN_H
#define GNIO_GEN_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gnio_gen;

enum gnio_gen_proto {
	GNIO_GEN_UDP = 0,
	GNIO_GEN_DNS,       /* UDP/53 query */
	GNIO_GEN_TCP_SYN,
	GNIO_GEN_TCP_ACK,
	GNIO_GEN_TCP_FIN,
	GNIO_GEN_HTTP,      /* TCP/80 PSH|ACK with a GET request */
	GNIO_GEN_ICMP_ECHO, /* echo request */
	GNIO_GEN_ARP,       /* who-has request */
	GNIO_GEN_MIX,       /* cycles through all of the above by sequence */
	GNIO_GEN_PROTO_COUNT
};

#define GNIO_GEN_MIN_FRAME 60u   /* Ethernet minimum without FCS */
#define GNIO_GEN_MAX_FRAME 9216u /* jumbo */

struct gnio_gen_cfg {
	uint32_t struct_size;    /* sizeof(struct gnio_gen_cfg) */
	enum gnio_gen_proto proto;
	uint32_t frame_size;     /* bytes without FCS, GNIO_GEN_MIN_FRAME..MAX */
	uint64_t count;          /* frames to send; 0 = unlimited */
	uint64_t rate_pps;       /* 0 = as fast as the wire takes them */
	uint64_t first_seq;
	uint32_t flows;          /* distinct source ports (for RSS); 0 or 1 = one */
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	uint32_t src_ip;         /* host byte order */
	uint32_t dst_ip;
	uint16_t src_port;
	uint16_t dst_port;
};

/* Defaults: UDP, 64 bytes, unlimited, max rate, 10.0.0.1:1024 -> 10.0.0.2:9000. */
void gnio_gen_cfg_init(struct gnio_gen_cfg *cfg);
/* Errors: INVALID_VALUE with a reason in why (e.g. "size 1 is below the
 * Ethernet minimum of 60 bytes"). */
gnio_error_t gnio_gen_cfg_check(const struct gnio_gen_cfg *cfg, char *why, size_t why_len);
/* Build frame `seq` into buf; returns its length, 0 if cap is too small. */
/* @since 0.1 frame_generator: Self-describing frame generator (UDP, TCP, ICMP, ARP, ...) */
uint32_t gnio_gen_build(const struct gnio_gen_cfg *cfg, uint64_t seq, uint8_t *buf, uint32_t cap);
/* Every generated frame ends with this 8-byte stamp: the magic, then the low
 * 48 bits of its sequence number, big endian (gnio/apps/verify.h reads it on
 * the device). */
#define GNIO_GEN_STAMP_LEN 8u
#define GNIO_GEN_STAMP_MAGIC 0x9e6eu
/* Read the sequence stamp of a generated frame. Errors: NOT_FOUND. */
gnio_error_t gnio_gen_stamp_read(const uint8_t *frame, uint32_t len, uint64_t *seq);
/* Read the stamp, rebuild the frame and compare byte for byte.
 * Errors: NOT_FOUND (no stamp), UNEXPECTED (content differs). */
gnio_error_t gnio_gen_verify(const struct gnio_gen_cfg *cfg, const uint8_t *frame, uint32_t len,
			     uint64_t *seq);
/* "udp", "dns", "tcp-syn", "tcp-ack", "tcp-fin", "http", "icmp", "arp", "mix". */
const char *gnio_gen_proto_name(enum gnio_gen_proto proto);
/* Errors: INVALID_VALUE. Accepts the names above and "tcp" (= tcp-syn). */
gnio_error_t gnio_gen_proto_parse(const char *name, enum gnio_gen_proto *proto);
/* Smallest frame_size that holds the headers and stamp for proto. */
uint32_t gnio_gen_min_frame(enum gnio_gen_proto proto);

/* The fast builder: gnio_gen_build() rebuilds each frame from scratch, the
 * reference; a gnio_gen built once from a config copies a per-protocol
 * template and patches only what depends on seq. Both give the same bytes.
 * Errors: INVALID_VALUE (cfg fails gnio_gen_cfg_check), NO_MEMORY. */
/* @since 0.2 frame_generator_fast: Template-based frame generator object */
gnio_error_t gnio_gen_init(const struct gnio_gen_cfg *cfg, struct gnio_gen **gen);
void gnio_gen_free(struct gnio_gen *gen);
/* The config the generator was built from (a copy). */
const struct gnio_gen_cfg *gnio_gen_get_cfg(const struct gnio_gen *gen);
/* Frame seq into buf; returns its length, 0 if cap is too small. Thread-safe:
 * gen is read-only after init. */
uint32_t gnio_gen_fill(const struct gnio_gen *gen, uint64_t seq, uint8_t *buf, uint32_t cap);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_GEN_H */
