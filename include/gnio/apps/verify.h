/* SPDX-License-Identifier: MIT */
/*
 * gnio/apps/verify.h - check, on the device, that a frame is exactly what
 * gnio's generator (gnio/gen.h) sent: the `verify` app's per-frame test,
 * shared by CUDA kernels and the CPU device.
 *
 * A frame passes when its stamp carries the generator's magic and every
 * checksum the frame has adds up: the IPv4 header's, and the UDP, TCP or
 * ICMP checksum over the whole L4 packet (which covers the stamp where the
 * protocol has a payload). A slot the proxy rewrote under the kernel, a torn
 * copy or a frame from elsewhere fails; the stamp's sequence number then
 * tells lost and reordered frames apart (the app counts those).
 */
#ifndef GNIO_APPS_VERIFY_H
#define GNIO_APPS_VERIFY_H

#include "../gen.h"
#include "../impl/hd.h"

#define GNIO_VERIFY_ETH_HLEN 14u

GNIO_HD uint32_t gnio_verify_be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

/* One's-complement sum of n bytes as big-endian 16-bit words (an odd last
 * byte padded with zero), added to sum, not yet folded. */
GNIO_HD uint32_t gnio_verify_sum(const uint8_t *p, uint32_t n, uint32_t sum)
{
	uint32_t i = 0;
	for (; i + 1 < n; i += 2)
		sum += gnio_verify_be16(p + i);
	if (i < n)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

/* Does a checksummed region add up (all ones once folded)? */
GNIO_HD int gnio_verify_sum_ok(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	return sum == 0xffffu;
}

/* The low 48 bits of the generator's sequence number, or -1 when the frame
 * carries no stamp. */
GNIO_HD int64_t gnio_verify_stamp(const uint8_t *p, uint32_t len)
{
	if (len < GNIO_VERIFY_ETH_HLEN + GNIO_GEN_STAMP_LEN)
		return -1;
	const uint8_t *s = p + len - GNIO_GEN_STAMP_LEN;
	if (gnio_verify_be16(s) != GNIO_GEN_STAMP_MAGIC)
		return -1;
	uint64_t seq = 0;
	for (int i = 2; i < 8; i++)
		seq = seq << 8 | s[i];
	return (int64_t)seq;
}

/* The checksums of an IPv4 frame (other ethertypes have none to check).
 * Returns 1 when each adds up and the lengths fit the frame. */
GNIO_HD int gnio_verify_checksums(const uint8_t *p, uint32_t len)
{
	if (len < GNIO_VERIFY_ETH_HLEN || gnio_verify_be16(p + 12) != 0x0800u)
		return len >= GNIO_VERIFY_ETH_HLEN;
	const uint8_t *ip = p + GNIO_VERIFY_ETH_HLEN;
	const uint32_t room = len - GNIO_VERIFY_ETH_HLEN;
	if (room < 20)
		return 0;
	const uint32_t ihl = (ip[0] & 0x0fu) * 4u, total = gnio_verify_be16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < 20 || total < ihl || total > room)
		return 0;
	if (!gnio_verify_sum_ok(gnio_verify_sum(ip, ihl, 0)))
		return 0;
	const uint8_t *l4 = ip + ihl;
	const uint32_t l4_len = total - ihl, proto = ip[9];
	if (gnio_verify_be16(ip + 6) & 0x3fffu)
		return 1; /* a fragment: its L4 checksum spans other frames */
	if (proto == 1) /* ICMP: over the ICMP message alone */
		return gnio_verify_sum_ok(gnio_verify_sum(l4, l4_len, 0));
	if (proto != 6 && proto != 17)
		return 1;
	if (proto == 17 && l4_len >= 8 && gnio_verify_be16(l4 + 6) == 0)
		return 1; /* UDP without a checksum */
	/* TCP and UDP: the pseudo-header (addresses, protocol, length) too. */
	uint32_t sum = gnio_verify_sum(ip + 12, 8, proto + l4_len);
	return gnio_verify_sum_ok(gnio_verify_sum(l4, l4_len, sum));
}

/* The whole check: the frame's 48-bit sequence number, or -1 when it is not
 * intact generator output. */
GNIO_HD int64_t gnio_verify_frame(const uint8_t *p, uint32_t len)
{
	const int64_t seq = gnio_verify_stamp(p, len);
	return seq >= 0 && gnio_verify_checksums(p, len) ? seq : -1;
}

#endif /* GNIO_APPS_VERIFY_H */
