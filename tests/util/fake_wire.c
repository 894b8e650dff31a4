/* SPDX-License-Identifier: MIT */
/* tests/util/fake_wire.c - the scripted wire and the fake device of
 * fake_wire.h. */
#include "fake_wire.h"
#include <stdlib.h>
#include <string.h>
#include "core/errmsg.h"

/* ------------------------------------------------------------ wire -- */

void fake_frame_fill(uint8_t *dst, uint32_t len, uint32_t id)
{
	for (uint32_t k = 0; k < len; k++)
		dst[k] = (uint8_t)(id * 37u + k * 7u + (k >> 8));
}

int fake_frame_matches(const uint8_t *data, uint32_t len, uint32_t id)
{
	for (uint32_t k = 0; k < len; k++)
		if (data[k] != (uint8_t)(id * 37u + k * 7u + (k >> 8)))
			return 0;
	return 1;
}

struct fake_wire *fake_wire_new(void)
{
	struct fake_wire *w = calloc(1, sizeof(*w));
	if (w)
		w->tx_accept_max = UINT32_MAX;
	return w;
}

void fake_wire_free(struct fake_wire *w)
{
	free(w);
}

static uint32_t push(struct fake_wire *w, uint32_t len, uint64_t ts_ns, uint64_t buf_off)
{
	if (w->rx_count == FAKE_WIRE_MAX_FRAMES)
		abort(); /* a test scripted more than the fake holds */
	uint32_t id = w->rx_count;
	w->rx[w->rx_count++] = (struct fake_rx_frame){.id = id, .len = len, .ts_ns = ts_ns, .buf_off = buf_off};
	return id;
}

uint32_t fake_wire_push(struct fake_wire *w, uint32_t len, uint64_t ts_ns)
{
	return push(w, len, ts_ns, 0);
}

uint32_t fake_wire_push_zc(struct fake_wire *w, uint32_t len, uint64_t ts_ns, uint64_t buf_off)
{
	return push(w, len, ts_ns, buf_off);
}

unsigned fake_wire_rx_left(const struct fake_wire *w)
{
	return w->rx_count - w->rx_next;
}

void fake_wire_tx_complete(struct fake_wire *w, unsigned n)
{
	w->tx_completable += n;
}

/* How many frames one burst call hands over. */
static unsigned rx_take(struct fake_wire *w, unsigned n)
{
	w->rx_calls++;
	w->rx_last_asked = n;
	unsigned left = fake_wire_rx_left(w);
	if (w->rx_burst_max && n > w->rx_burst_max)
		n = w->rx_burst_max;
	return n < left ? n : left;
}

/* Copy wire: like a socket, a frame longer than the room given is consumed
 * with its true length and nothing copied. */
static unsigned fake_rx_burst(void *q, struct gnio_wire_frame *frames, unsigned n)
{
	struct fake_wire *w = q;
	unsigned got = rx_take(w, n);
	for (unsigned i = 0; i < got; i++) {
		const struct fake_rx_frame *s = &w->rx[w->rx_next++];
		frames[i].len = s->len;
		frames[i].ts_ns = s->ts_ns;
		if (s->len <= frames[i].cap)
			fake_frame_fill(frames[i].data, s->len, s->id);
	}
	return got;
}

/* Zero-copy wire: the "NIC" writes the frame where the script says, as much
 * of it as the pool holds. */
static unsigned fake_rx_burst_zc(void *q, struct gnio_wire_frame *frames, unsigned n)
{
	struct fake_wire *w = q;
	unsigned got = rx_take(w, n);
	for (unsigned i = 0; i < got; i++) {
		const struct fake_rx_frame *s = &w->rx[w->rx_next++];
		uint64_t room = s->buf_off < w->pool_size ? w->pool_size - s->buf_off : 0;
		uint32_t fill = s->len < room ? s->len : (uint32_t)room;
		if (w->pool)
			fake_frame_fill(w->pool + s->buf_off, fill, s->id);
		frames[i].data = w->pool ? w->pool + s->buf_off : NULL;
		frames[i].len = s->len;
		frames[i].ts_ns = s->ts_ns;
		frames[i].buf_off = s->buf_off;
	}
	return got;
}

static void fake_rx_release_zc(void *q, const uint64_t *buf_off, unsigned n)
{
	struct fake_wire *w = q;
	w->release_calls++;
	for (unsigned i = 0; i < n; i++) {
		if (w->released_count == FAKE_WIRE_MAX_FRAMES)
			abort();
		w->released[w->released_count++] = buf_off[i];
	}
}

static unsigned fake_tx_burst(void *q, struct gnio_wire_frame *frames, unsigned n)
{
	struct fake_wire *w = q;
	w->tx_calls++;
	w->tx_last_offered = n;
	unsigned acc = n < w->tx_accept_max ? n : w->tx_accept_max;
	for (unsigned i = 0; i < acc; i++) {
		if (w->tx_count == FAKE_WIRE_MAX_FRAMES)
			abort();
		struct fake_tx_sent *s = &w->tx[w->tx_count++];
		s->data = frames[i].data;
		s->len = frames[i].len;
		s->buf_off = frames[i].buf_off;
		s->send_at_ns = frames[i].send_at_ns;
		memcpy(s->head, frames[i].data, frames[i].len < FAKE_WIRE_TX_KEEP ? frames[i].len : FAKE_WIRE_TX_KEEP);
		frames[i].copied = 0;
	}
	return acc;
}

/* Completions in order, never more than were taken or the test allowed. */
static unsigned fake_tx_reap(void *q)
{
	struct fake_wire *w = q;
	w->tx_reap_calls++;
	unsigned limit = w->tx_completable < w->tx_count ? w->tx_completable : w->tx_count;
	unsigned c = limit - w->tx_reaped;
	w->tx_reaped = limit;
	return c;
}

static void fake_rxq_stats(void *q, struct gnio_wire_rxq_stats *st)
{
	const struct fake_wire *w = q;
	st->overflow = w->overflow;
}

static void fake_rx_quiesce(void *q)
{
	struct fake_wire *w = q;
	w->quiesced = 1;
}

void fake_wire_ops(struct gnio_wire_ops *ops, unsigned features)
{
	*ops = (struct gnio_wire_ops){
		.kind = "fake",
		.tx_burst = fake_tx_burst,
		.rxq_stats = fake_rxq_stats,
		.rx_quiesce = fake_rx_quiesce,
	};
	if (features & FAKE_WIRE_ZERO_COPY) {
		ops->rx_burst_zc = fake_rx_burst_zc;
		ops->rx_release_zc = fake_rx_release_zc;
	} else {
		ops->rx_burst = fake_rx_burst;
	}
	if (features & FAKE_WIRE_ASYNC_TX)
		ops->tx_reap = fake_tx_reap;
}

/* ---------------------------------------------------------- device -- */

static struct fake_gpu *fake_of(struct gnio_gpu *gpu)
{
	return gpu->priv;
}

static gnio_error_t queue_copy(struct gnio_gpu *gpu, void *dst, const void *src, size_t pitch, size_t width,
			       size_t rows)
{
	struct fake_gpu *g = fake_of(gpu);
	if (g->fail_copies) {
		g->fail_copies--;
		g->copy_failures++;
		return gnio_fail(GNIO_ERROR_DRIVER, "fake", "injected copy failure");
	}
	if (g->ncopies == FAKE_GPU_MAX_COPIES)
		abort();
	g->copy[g->ncopies++] = (struct fake_copy){.dst = dst, .src = src, .pitch = pitch, .width = width, .rows = rows};
	g->copy_bytes += (uint64_t)width * rows;
	return GNIO_SUCCESS;
}

static gnio_error_t fake_copy_async(struct gnio_gpu *gpu, void *stream, void *dst_gpu, const void *src, size_t n)
{
	fake_of(gpu)->copy_calls++;
	return queue_copy(gpu, dst_gpu, src, n, n, 1);
}

static gnio_error_t fake_copy2d_async(struct gnio_gpu *gpu, void *stream, void *dst_gpu, const void *src,
				      size_t pitch, size_t width, size_t rows)
{
	fake_of(gpu)->copy2d_calls++;
	return queue_copy(gpu, dst_gpu, src, pitch, width, rows);
}

static gnio_error_t fake_stream_create(struct gnio_gpu *gpu, void **stream)
{
	struct fake_gpu *g = fake_of(gpu);
	g->streams_created++;
	*stream = &g->streams_created; /* any non-NULL token */
	return GNIO_SUCCESS;
}

static void fake_stream_destroy(struct gnio_gpu *gpu, void *stream)
{
	fake_of(gpu)->streams_destroyed++;
}

/* A fence stands for the copies issued since the one before it. */
static gnio_error_t fake_fence_record(struct gnio_gpu *gpu, void *stream, void **fence)
{
	struct fake_gpu *g = fake_of(gpu);
	if (g->nfences == FAKE_GPU_MAX_FENCES) {
		g->misuse++;
		return gnio_fail(GNIO_ERROR_DRIVER, "fake", "out of fences");
	}
	struct fake_fence *f = &g->fence[g->nfences++];
	*f = (struct fake_fence){.state = FAKE_FENCE_PENDING, .first_copy = g->copies_fenced,
				 .ncopies = g->ncopies - g->copies_fenced};
	g->copies_fenced = g->ncopies;
	*fence = f;
	return GNIO_SUCCESS;
}

static void land(struct fake_gpu *g, const struct fake_fence *f)
{
	for (unsigned c = f->first_copy; c < f->first_copy + f->ncopies; c++) {
		const struct fake_copy *k = &g->copy[c];
		for (size_t r = 0; r < k->rows; r++)
			memcpy(k->dst + r * k->pitch, k->src + r * k->pitch, k->width);
	}
}

/* Word fences store in order: each landed one behind the last stored. */
static void words_advance(struct fake_gpu *g)
{
	while (g->word_next < g->nfences && g->fence[g->word_next].is_word) {
		struct fake_fence *f = &g->fence[g->word_next];
		if (f->state == FAKE_FENCE_PENDING)
			return;
		if (f->state == FAKE_FENCE_FAILED)
			g->stream_broken = 1;
		else if (!g->stream_broken)
			__atomic_store_n(f->word, f->value, __ATOMIC_RELEASE);
		g->word_next++;
	}
}

void fake_gpu_fence_set(struct fake_gpu *g, unsigned i, enum fake_fence_state state)
{
	struct fake_fence *f = &g->fence[i];
	if (state == FAKE_FENCE_DONE && f->state != FAKE_FENCE_DONE)
		land(g, f);
	f->state = state;
	words_advance(g);
}

static gnio_error_t fake_stream_write_u64(struct gnio_gpu *gpu, void *stream, void *word_dev, uint64_t value)
{
	struct fake_gpu *g = fake_of(gpu);
	if (g->ncopies == g->copies_fenced && g->word_next == g->nfences) {
		/* behind nothing: lands at once (the proxy's first store) */
		__atomic_store_n((uint64_t *)word_dev, value, __ATOMIC_RELEASE);
		return GNIO_SUCCESS;
	}
	void *unused;
	gnio_error_t err = fake_fence_record(gpu, stream, &unused);
	if (err != GNIO_SUCCESS)
		return err;
	struct fake_fence *f = &g->fence[g->nfences - 1];
	f->is_word = 1;
	f->word = word_dev;
	f->value = value;
	g->word_fences++;
	return GNIO_SUCCESS;
}

/* Polls count on the oldest fence not landed, as fence_done polls do. */
static int fake_stream_done(struct gnio_gpu *gpu, void *stream)
{
	struct fake_gpu *g = fake_of(gpu);
	if (g->word_next < g->nfences) {
		struct fake_fence *f = &g->fence[g->word_next];
		f->polls++;
		if (f->state == FAKE_FENCE_PENDING && f->done_after && --f->done_after == 0)
			fake_gpu_fence_set(g, g->word_next, FAKE_FENCE_DONE);
	}
	if (g->stream_broken) {
		/* Reported once: what was queued behind the failure is gone,
		 * and copies issued from now on work again. */
		g->stream_broken = 0;
		g->word_next = g->nfences;
		return -1;
	}
	return g->word_next == g->nfences;
}

void fake_gpu_use_word(struct fake_gpu *g)
{
	g->ops.stream_write_u64 = fake_stream_write_u64;
	g->ops.stream_done = fake_stream_done;
}

void fake_gpu_fence_done_after(struct fake_gpu *g, unsigned i, unsigned polls)
{
	g->fence[i].done_after = polls;
}

static int fake_fence_done(struct gnio_gpu *gpu, void *fence)
{
	struct fake_gpu *g = fake_of(gpu);
	struct fake_fence *f = fence;
	if (f->destroyed)
		g->misuse++;
	f->polls++;
	if (f->state == FAKE_FENCE_PENDING && f->done_after && --f->done_after == 0)
		fake_gpu_fence_set(g, (unsigned)(f - g->fence), FAKE_FENCE_DONE);
	return f->state;
}

static void fake_fence_destroy(struct gnio_gpu *gpu, void *fence)
{
	struct fake_gpu *g = fake_of(gpu);
	struct fake_fence *f = fence;
	if (f->destroyed)
		g->misuse++;
	f->destroyed = 1;
	g->fences_destroyed++;
}

unsigned fake_gpu_fences_live(const struct fake_gpu *g)
{
	return g->nfences - g->word_fences - g->fences_destroyed;
}

/* Synchronous reads out of device memory (the TX proxy's staging): the CPU
 * backend's copy, unless told to fail. */
static gnio_error_t fake_copy_from_dev(struct gnio_gpu *gpu, void *dst, const void *src_gpu, size_t n)
{
	struct fake_gpu *g = fake_of(gpu);
	if (g->fail_dev_reads) {
		g->fail_dev_reads--;
		return gnio_fail(GNIO_ERROR_DRIVER, "fake", "injected device read failure");
	}
	return gnio_gpu_cpu_ops.copy_from_dev(gpu, dst, src_gpu, n);
}

struct fake_gpu *fake_gpu_new(void)
{
	struct fake_gpu *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->ops = gnio_gpu_cpu_ops;
	g->ops.name = "fake";
	g->ops.copy_async = fake_copy_async;
	g->ops.copy2d_async = fake_copy2d_async;
	g->ops.stream_create = fake_stream_create;
	g->ops.stream_destroy = fake_stream_destroy;
	g->ops.fence_record = fake_fence_record;
	g->ops.fence_done = fake_fence_done;
	g->ops.fence_destroy = fake_fence_destroy;
	g->ops.copy_from_dev = fake_copy_from_dev;
	g->gpu.ops = &g->ops;
	g->gpu.priv = g;
	g->gpu.cuda_ordinal = -1;
	return g;
}

void fake_gpu_free(struct fake_gpu *g)
{
	free(g);
}
