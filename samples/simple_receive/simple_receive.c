/* SPDX-License-Identifier: MIT */
/*
 * samples/simple_receive/simple_receive.c - gnio_simple_receive: one RX
 * queue, one persistent kernel that counts packets and bytes at the chosen
 * scope, totals printed on exit.
 *
 * This sample brings its queue up with the object calls themselves, in the
 * order DOCA GPUNetIO uses (the other samples use gnio_pipeline, which makes
 * exactly these calls): open the wire, create the device context, check the
 * wire can feed a GPU datapath, allocate and register the payload pool,
 * create and configure the RX queue, put its datapath on the device, start
 * it, take its GPU handle, launch the kernel. Every object is recorded in a
 * gnio_rollback as it is created, and the rollback's five steps take it all
 * down in reverse.
 */
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "simple_receive.h"

#ifdef GNIO_SAMPLE_HAVE_CUDA
#define SR_CUDA simple_receive_cuda
#else
#define SR_CUDA NULL
#endif

struct sr {
	struct sample s;
	struct gnio_rollback *rb;
	struct gnio_eth_rxq *rxq;
	struct sr_stats *stats; /* host view */
	struct sr_stats fin;
	struct sr_args args;
	struct sample_books books; /* read between the rollback and the queue's destroy */
	struct gnio_gen_cfg gen;
	uint64_t count, size, rate;
	uint64_t last_packets;
	int step;
};

/* Print a bring-up step (the teaching part of this sample) and fail with
 * one line naming it. */
static gnio_error_t step(struct sr *r, const char *what, gnio_error_t err)
{
	r->step++;
	if (err != GNIO_SUCCESS)
		fprintf(stderr, "gnio_simple_receive: step %d, %s: %s (%s)\n", r->step, what, gnio_last_error_msg(),
			gnio_error_get_name(err));
	else if (!r->s.o.json)
		fprintf(stderr, "gnio_simple_receive: step %2d: %s\n", r->step, what);
	return err;
}

/* Record an object for the rollback as soon as it exists (not a step of
 * its own). */
#define RECORD(call) STEP_QUIET("record an object for the rollback", call)

#define STEP_QUIET(what, call)                                                                             \
	do {                                                                                               \
		gnio_error_t q_ = (call);                                                                  \
		if (q_ != GNIO_SUCCESS) {                                                                  \
			fprintf(stderr, "gnio_simple_receive: %s: %s (%s)\n", what, gnio_last_error_msg(),  \
				gnio_error_get_name(q_));                                                  \
			return q_;                                                                         \
		}                                                                                          \
	} while (0)

#define STEP(what, call)                                                                                   \
	do {                                                                                               \
		gnio_error_t e_ = step(r, what, (call));                                                   \
		if (e_ != GNIO_SUCCESS)                                                                    \
			return e_;                                                                         \
	} while (0)

static gnio_error_t bring_up(struct sr *r)
{
	struct sample *s = &r->s;
	char bus[64], why[256] = "";
	void *pool_gpu, *pool_cpu, *st_gpu, *st_cpu;
	struct gnio_buf_arr *pool;
	struct gnio_gpu_eth_rxq *rxh;
	struct gnio_runner *runner;
	uint32_t max_packet = SR_SLOT;
	/* An AF_XDP socket whose UMEM is this pool lends some of it to its
	 * fill ring and to TX: give it room beyond the ring (docs/wires.md). */
	const uint32_t slots = SR_RING + 1024;

	STEP("open the wire (gnio_dev_open)", gnio_dev_open(s->o.nic, &s->dev));
	if (s->o.gpu)
		snprintf(bus, sizeof(bus), "%s", s->o.gpu);
	else
		STEP("pick the best device present (gnio_gpu_pick_best)",
		     gnio_gpu_pick_best(bus, sizeof(bus), why, sizeof(why)));
	STEP("create the device context (gnio_gpu_create)", gnio_gpu_create(bus, &s->gpu));
	s->on_cpu = gnio_gpu_is_cpu(s->gpu);
	sample_note_device(s);
	fprintf(stderr, "gnio_simple_receive: device %s (%s)%s%s\n", s->dev_id, s->dev_name, why[0] ? ": " : "", why);
	struct gnio_devinfo *di = gnio_dev_as_devinfo(s->dev);
	STEP("check the wire feeds a cyclic queue on a device datapath (gnio_eth_rxq_cap_is_type_supported)",
	     gnio_eth_rxq_cap_is_type_supported(di, GNIO_ETH_RXQ_TYPE_CYCLIC, GNIO_ETH_RXQ_DATA_PATH_TYPE_GPU));
	uint32_t wire_max = 0;
	STEP("read the wire's largest frame (gnio_eth_rxq_cap_get_max_packet_size)",
	     gnio_eth_rxq_cap_get_max_packet_size(di, &wire_max));
	if (wire_max && wire_max < max_packet)
		max_packet = wire_max;
	STEP("create the rollback (gnio_rollback_create)", gnio_rollback_create(s->gpu, &r->rb));

	STEP("allocate the payload pool in pinned host memory mapped into the device (gnio_gpu_mem_alloc CPU_GPU)",
	     gnio_gpu_mem_alloc(s->gpu, (size_t)slots * SR_SLOT, 4096, GNIO_GPU_MEM_TYPE_CPU_GPU, &pool_gpu,
				&pool_cpu));
	RECORD(gnio_rollback_add_mem(r->rb, pool_gpu));
	STEP("carve it into a buffer array (gnio_buf_arr_create)",
	     gnio_buf_arr_create(s->gpu, pool_gpu, SR_SLOT, slots, &pool));
	RECORD(gnio_rollback_add_buf_arr(r->rb, pool));
	STEP("start the buffer array (gnio_buf_arr_start)", gnio_buf_arr_start(pool));

	STEP("create the RX queue (gnio_eth_rxq_create)", gnio_eth_rxq_create(s->dev, SR_BURST, max_packet, &r->rxq));
	RECORD(gnio_rollback_add_rxq(r->rb, r->rxq));
	STEP("make it cyclic (gnio_eth_rxq_set_type)", gnio_eth_rxq_set_type(r->rxq, GNIO_ETH_RXQ_TYPE_CYCLIC));
	STEP("size its ring (gnio_eth_rxq_set_num_packets)", gnio_eth_rxq_set_num_packets(r->rxq, SR_RING));
	STEP("register the pool with it (gnio_eth_rxq_set_pkt_buf)", gnio_eth_rxq_set_pkt_buf(r->rxq, pool));
	/* On sw the built-in generator then waits for room instead of
	 * overrunning the ring: a counted run receives every frame. */
	STEP("set flow control (on for sw, off for a real wire)", gnio_eth_rxq_set_flow_control(r->rxq, s->o.is_sw));
	struct gnio_ctx *ctx = gnio_eth_rxq_as_ctx(r->rxq);
	STEP("put its datapath on the device (gnio_ctx_set_datapath_on_gpu)", gnio_ctx_set_datapath_on_gpu(ctx, s->gpu));
	STEP("start it: proxy thread and GPU-visible ring (gnio_ctx_start)", gnio_ctx_start(ctx));
	STEP("take its GPU handle (gnio_eth_rxq_get_gpu_handle)", gnio_eth_rxq_get_gpu_handle(r->rxq, &rxh));

	STEP("allocate the kernel's counters (gnio_gpu_mem_alloc CPU_GPU)",
	     gnio_gpu_mem_alloc(s->gpu, sizeof(struct sr_stats), GNIO_LINE, GNIO_GPU_MEM_TYPE_CPU_GPU, &st_gpu, &st_cpu));
	RECORD(gnio_rollback_add_mem(r->rb, st_gpu));
	memset(st_cpu, 0, sizeof(struct sr_stats));
	STEP("create the kernel runner: stop flag and heartbeat (gnio_runner_create)", gnio_runner_create(s->gpu, &runner));
	RECORD(gnio_rollback_add_runner(r->rb, runner));

	r->stats = st_cpu;
	r->args = (struct sr_args){.rxq = rxh, .stats = st_gpu, .scope = s->o.scope};
	s->q.rxq = r->rxq;
	s->q.rxh = rxh;
	s->q.runner = runner;
	return GNIO_SUCCESS;
}

static void read_stats(const struct sr_stats *st, struct sr_stats *out);

/* Each rollback step as it ends. After step 1 the kernel has finished and
 * its memory is still there: take its final counters. */
static void rb_step(void *user, unsigned n, gnio_error_t err, const char *text)
{
	struct sr *r = user;
	if (n == 1 && err != GNIO_ERROR_TIME_OUT) {
		read_stats(r->stats, &r->fin);
		r->s.kernel_failed |= err != GNIO_SUCCESS;
	}
	if (err && err != GNIO_ERROR_SKIPPED)
		fprintf(stderr, "gnio_simple_receive: rollback %u/5: %s: %s\n", n, gnio_error_get_name(err), text);
	else if (!r->s.o.json)
		fprintf(stderr, "gnio_simple_receive: rollback %u/5: %s\n", n, text);
}

/* The five rollback steps (the first stops the kernel), then what the
 * rollback leaves by design: the RX queue object (stopped, reusable), the
 * wire and the device context.
 * Returns 0, or -1 when the rollback failed closed (nothing more is freed). */
static int tear_down(struct sr *r)
{
	struct sample *s = &r->s;
	if (r->rb) {
		unsigned next = 0;
		gnio_rollback_set_step_cb(r->rb, rb_step, r);
		gnio_error_t err = gnio_rollback_run(r->rb, 5000);
		gnio_rollback_get_next_step(r->rb, &next);
		if (next != GNIO_ROLLBACK_DONE) {
			fprintf(stderr, "gnio_simple_receive: rollback stopped at step %u (%s): memory left allocated on "
				"purpose\n", next, gnio_error_get_name(err));
			return -1;
		}
		gnio_rollback_destroy(r->rb);
		r->rb = NULL;
	}
	/* A stopped queue keeps its counters until it is destroyed. */
	sample_read_books(s, &r->books);
	sample_peer_close(&s->peer);
	if (r->rxq)
		gnio_eth_rxq_destroy(r->rxq);
	r->rxq = NULL;
	s->q.rxq = NULL;
	if (s->dev)
		gnio_dev_close(s->dev);
	if (s->gpu)
		gnio_gpu_destroy(s->gpu);
	s->dev = NULL;
	s->gpu = NULL;
	return 0;
}

static void read_stats(const struct sr_stats *st, struct sr_stats *out)
{
	/* ACQUIRE(packets) pairs with the RELEASE in sr_publish(). */
	out->packets = gnio_load_acquire_u64(&st->packets);
	out->bytes = gnio_load_relaxed_u64(&st->bytes);
	out->batches = gnio_load_relaxed_u64(&st->batches);
	for (int i = 0; i < SR_SIZE_CLASSES; i++)
		out->size_class[i] = gnio_load_relaxed_u64(&st->size_class[i]);
	out->errors = gnio_load_relaxed_u64(&st->errors);
	out->last_error = gnio_load_relaxed_u64(&st->last_error);
}

static uint64_t kernel_packets(void *user)
{
	struct sr *r = user;
	return gnio_load_acquire_u64(&r->stats->packets);
}

static int done(void *user)
{
	struct sr *r = user;
	return r->s.o.is_sw && r->count && sample_peer_gen_done(&r->s.peer) && kernel_packets(r) >= r->count;
}

static void tick(void *user, double t)
{
	struct sr *r = user;
	uint64_t p = kernel_packets(r);
	fprintf(stderr, "[%5.1fs] %8.3f Mpps | %llu packets\n", t, (double)(p - r->last_packets) / 1e6,
		(unsigned long long)p);
	r->last_packets = p;
}

static const char *const class_names[SR_SIZE_CLASSES] = {"le64", "le128", "le256", "le512", "le1024", "gt1024"};

int main(int argc, char **argv)
{
	static struct sr r;
	struct sample *s = &r.s;
	r.size = 64;
	const struct sample_flag extra[] = {
		{"count", 'c', SAMPLE_FLAG_U64, &r.count, 0, UINT64_MAX, "N",
		 "sw: frames the generator offers, then stop (default 0: endless)"},
		{"size", 's', SAMPLE_FLAG_U64, &r.size, GNIO_GEN_MIN_FRAME, 1500, "BYTES",
		 "sw: frame size without FCS (default 64)"},
		{"rate", 'r', SAMPLE_FLAG_U64, &r.rate, 0, UINT64_MAX, "PPS", "sw: offered frames per second (default 0: as fast as taken)"},
	};
	s->name = "simple_receive";
	int rc = sample_parse(argc, argv, s->name,
			      "One RX queue, one persistent kernel that counts packets and bytes at the chosen\n"
			      "scope; totals printed on exit. The queue is brought up with the object calls\n"
			      "themselves, each printed as a step (DOCA GPUNetIO's order).",
			      1, extra, sizeof(extra) / sizeof(extra[0]), &s->o);
	if (rc >= 0)
		return rc;

	gnio_error_t err = bring_up(&r);
	if (err != GNIO_SUCCESS) {
		tear_down(&r);
		return err == GNIO_ERROR_INVALID_VALUE ? SAMPLE_EXIT_USAGE : SAMPLE_EXIT_ENV;
	}
	if (s->o.is_sw) {
		if (sample_peer_open(&s->peer, s->dev) != GNIO_SUCCESS) {
			tear_down(&r);
			return SAMPLE_EXIT_ENV;
		}
		gnio_gen_cfg_init(&r.gen);
		r.gen.frame_size = (uint32_t)r.size;
		r.gen.count = r.count;
		r.gen.rate_pps = r.rate;
	}
	sample_on_signals();
	rc = sample_launch(s, simple_receive_cpu, SR_CUDA, &r.args);
	if (rc == SAMPLE_EXIT_OK && s->o.is_sw)
		rc = sample_gen_start(s, &r.gen);
	if (rc != SAMPLE_EXIT_OK) {
		if (sample_stop_kernel(s) == SAMPLE_EXIT_OK)
			tear_down(&r);
		return rc;
	}
	sample_wait(s, done, tick, &r);

	sample_quiesce(s, kernel_packets, &r);
	double secs = sample_now() - s->t0;
	/* Rollback step 1 stops the kernel (rb_step keeps its counters). */
	if (tear_down(&r))
		return SAMPLE_EXIT_FAIL; /* failed closed: nothing the kernel could touch was freed */
	const struct sample_books b = r.books;
	const struct sr_stats *k = &r.fin;
	int consumed = k->packets == b.rx_packets;
	uint64_t class_sum = 0;
	for (int i = 0; i < SR_SIZE_CLASSES; i++)
		class_sum += k->size_class[i];
	if (s->kernel_failed || !b.balanced || !consumed || class_sum != k->packets || k->errors)
		rc = SAMPLE_EXIT_FAIL;

	if (s->o.json) {
		sample_json_begin(s, &b);
		sample_json_u64("packets", k->packets);
		sample_json_u64("bytes", k->bytes);
		sample_json_u64("batches", k->batches);
		for (int i = 0; i < SR_SIZE_CLASSES; i++)
			sample_json_u64(class_names[i], k->size_class[i]);
		sample_json_u64("errors", k->errors);
		sample_json_str("last_error", gnio_error_get_name((gnio_error_t)k->last_error));
		sample_json_f64("seconds", secs);
		sample_json_f64("mpps", secs > 0 ? (double)k->packets / secs / 1e6 : 0);
		sample_json_bool("ok", rc == SAMPLE_EXIT_OK);
		sample_json_end();
	} else {
		fprintf(stderr, "gnio_simple_receive summary\n");
		sample_print_books(s, &b);
		fprintf(stderr, "  %-16s %llu packets, %llu bytes in %llu batches (%s scope)\n", "kernel",
			(unsigned long long)k->packets, (unsigned long long)k->bytes, (unsigned long long)k->batches,
			sample_scope_name(s->o.scope));
		fprintf(stderr, "  %-16s", "sizes");
		for (int i = 0; i < SR_SIZE_CLASSES; i++)
			fprintf(stderr, " %s=%llu", class_names[i], (unsigned long long)k->size_class[i]);
		fprintf(stderr, "\n  %-16s %.3f Mpps over %.1f s\n", "rate", secs > 0 ? (double)k->packets / secs / 1e6 : 0,
			secs);
		fprintf(stderr, "  %-16s %s\n", "result", rc == SAMPLE_EXIT_OK ? "every frame counted" : "FAILED");
	}
	return rc;
}
