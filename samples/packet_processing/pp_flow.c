/* SPDX-License-Identifier: MIT */
/* samples/packet_processing/pp_flow.c - the writer of the flow table the
 * kernel reads (pp_flow_open in pp_frame.h). One host thread writes; each
 * word is stored whole with release, so the kernel sees a key or not. */
#include "pp_host.h"

static uint64_t *slot(uint64_t *flows, uint32_t h, uint32_t i) { return &flows[(h + i) & (PP_FLOWS - 1)]; }

int pp_flow_insert(uint64_t *flows, uint64_t key)
{
	const uint32_t h = pp_flow_hash(key);
	uint64_t *free_slot = NULL;
	for (uint32_t i = 0; i < PP_FLOW_PROBES; i++) {
		uint64_t *w = slot(flows, h, i);
		uint64_t v = gnio_load_relaxed_u64(w);
		if (v == key)
			return 0; /* already open (a retransmitted SYN) */
		if ((v == PP_FLOW_EMPTY || v == PP_FLOW_GONE) && !free_slot)
			free_slot = w;
		if (v == PP_FLOW_EMPTY)
			break;
	}
	if (!free_slot)
		return -1;
	/* RELEASE: pairs with the ACQUIRE in pp_flow_open(). */
	gnio_store_release_u64(free_slot, key);
	return 0;
}

int pp_flow_remove(uint64_t *flows, uint64_t key)
{
	const uint32_t h = pp_flow_hash(key);
	for (uint32_t i = 0; i < PP_FLOW_PROBES; i++) {
		uint64_t *w = slot(flows, h, i);
		uint64_t v = gnio_load_relaxed_u64(w);
		if (v == key) {
			gnio_store_release_u64(w, PP_FLOW_GONE);
			return 1;
		}
		if (v == PP_FLOW_EMPTY)
			return 0;
	}
	return 0;
}

uint32_t pp_isn(uint64_t key, uint64_t secret)
{
	uint64_t x = key ^ secret;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (uint32_t)x;
}
