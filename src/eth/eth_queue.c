/* SPDX-License-Identifier: MIT */
/* src/eth/eth_queue.c - the rules receive and send queues share. */
#include "core/errmsg.h"
#include "eth/dev_priv.h"
#include "eth/eth_queue.h"
#include "gpu/buf_arr_priv.h"
#include "gpu/gpu_priv.h"

void gnio_eth_queue_count(struct gnio_dev *dev, int delta)
{
	pthread_mutex_lock(&dev->lock);
	dev->num_queues += (unsigned)delta;
	pthread_mutex_unlock(&dev->lock);
}

gnio_error_t gnio_eth_queue_check_burst(uint32_t burst, const char *kind)
{
	/* The ring bounds a burst: a burst can never take more than the
	 * largest ring holds. */
	if (!burst || burst > GNIO_ETH_QUEUE_MAX_PACKETS)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, kind, "burst size %u is outside 1..%u (the largest ring)",
				 burst, GNIO_ETH_QUEUE_MAX_PACKETS);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_queue_check_ring(uint32_t num, const char *kind)
{
	if (num < 8 || num > GNIO_ETH_QUEUE_MAX_PACKETS || (num & (num - 1)))
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, kind, "ring size %u is not a power of two in 8..%u", num,
				 GNIO_ETH_QUEUE_MAX_PACKETS);
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_queue_set_pool(struct gnio_buf_arr **slot, struct gnio_buf_arr *pool, int is_rx, const char *kind)
{
	if (!pool)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, kind, "set_pkt_buf: NULL pool");
	if (!pool->started)
		return gnio_fail(GNIO_ERROR_BAD_STATE, kind, "start the buffer array before registering it");
	gnio_eth_queue_forget_pool(slot);
	GNIO_CHECK(gnio_buf_arr_add_user(pool, slot, is_rx));
	*slot = pool;
	return GNIO_SUCCESS;
}

void gnio_eth_queue_forget_pool(struct gnio_buf_arr **slot)
{
	if (*slot)
		gnio_buf_arr_del_user(*slot, slot);
	*slot = NULL;
}

gnio_error_t gnio_eth_queue_check_pool(const struct gnio_buf_arr *pool, const struct gnio_gpu *gpu, uint32_t ring,
				       const char *kind)
{
	if (!pool)
		return GNIO_SUCCESS; /* allowed: the kernel's first recv/send says BAD_STATE */
	if (gpu && pool->gpu != gpu)
		return gnio_fail(GNIO_ERROR_BAD_STATE, kind, "the pool belongs to %s but the queue's datapath is on %s",
				 pool->gpu->bus_id, gpu->bus_id);
	if (pool->num_elem < ring)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, kind,
				 "the pool has %u elements but the ring has %u entries; give it at least one per entry",
				 pool->num_elem, ring);
	return GNIO_SUCCESS;
}

void gnio_eth_queue_pin_pool(struct gnio_gpu *gpu, struct gnio_buf_arr *pool, int inplace_tx,
			     struct gnio_buf_arr **ref)
{
	pthread_mutex_lock(&gpu->lock);
	pool->alloc->arr_refs++;
	pool->started_users++;
	pthread_mutex_unlock(&gpu->lock);
	if (inplace_tx) {
		/* RELEASE: pairs with the RX proxy's ACQUIRE of the count; a
		 * kernel can send in place only after this queue started. */
		__atomic_add_fetch(&pool->inplace_tx_users, 1, __ATOMIC_RELEASE);
	}
	*ref = pool;
}

void gnio_eth_queue_unpin_pool(struct gnio_gpu *gpu, struct gnio_buf_arr **ref, int inplace_tx)
{
	struct gnio_buf_arr *pool = *ref;
	if (!pool)
		return;
	if (inplace_tx)
		__atomic_sub_fetch(&pool->inplace_tx_users, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&gpu->lock);
	pool->alloc->arr_refs--;
	int last = --pool->started_users == 0 && pool->destroyed;
	pthread_mutex_unlock(&gpu->lock);
	*ref = NULL;
	if (last)
		gnio_buf_arr_free(pool);
}

gnio_error_t gnio_eth_queue_check_handle(const struct gnio_ctx *ctx, const char *kind)
{
	if (ctx->state != GNIO_CTX_STATE_STARTED)
		return gnio_fail(GNIO_ERROR_BAD_STATE, kind,
				 "the GPU handle exists only while the queue is started (state %s)",
				 gnio_ctx_state_name(ctx->state));
	if (!ctx->gpu)
		return gnio_fail(GNIO_ERROR_BAD_STATE, kind,
				 "the queue was started without gnio_ctx_set_datapath_on_gpu; bind it before start");
	return GNIO_SUCCESS;
}

gnio_error_t gnio_eth_queue_check_type(const struct gnio_devinfo *info, int type, int known_type, uint32_t cap,
				       const char *kind)
{
	if (!info)
		return gnio_fail(GNIO_ERROR_INVALID_VALUE, kind, "cap query: NULL devinfo");
	struct gnio_wire_caps caps = {.struct_size = sizeof(caps)};
	GNIO_CHECK(gnio_devinfo_get_caps(info, &caps));
	if (type != known_type || !(caps.flags & cap))
		return gnio_fail(GNIO_ERROR_NOT_SUPPORTED, kind, "wire %s: %s type %d is not supported",
				 gnio_devinfo_get_spec(info), kind, type);
	return GNIO_SUCCESS;
}
