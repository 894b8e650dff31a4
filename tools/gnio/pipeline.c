/* SPDX-License-Identifier: MIT */
/* tools/gnio/pipeline.c - the verbs' bring-up and rollback over the library's
 * gnio_pipeline (see pipeline.h). */
#include "pipeline.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

void pipe_cfg_default(struct pipe_cfg *c, const char *wire, const char *gpu)
{
	memset(c, 0, sizeof(*c));
	c->gpu = gpu;
	c->wire = wire;
	c->ring = 2048;
	c->slot = 2048;
	c->burst = 64;
	c->tx_ring = 256;
	c->with_tx = 1;
	c->register_rx_pool = 1;
}

/* Reasons for failures the CLI itself detects (not the library). */
static char cli_err[256];

static void gnio_set_error_msg_cli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void gnio_set_error_msg_cli(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cli_err, sizeof(cli_err), fmt, ap);
	va_end(ap);
}

static const char *reason(gnio_error_t err)
{
	static char out[256];
	if (cli_err[0]) {
		strfmt(out, sizeof(out), "%s", cli_err);
		cli_err[0] = 0;
		return out;
	}
	return *gnio_last_error_msg() ? gnio_last_error_msg() : gnio_error_get_descr(err);
}

#define STEP(name, layer, expr)                                                       \
	do {                                                                          \
		gnio_error_t e_ = (expr);                                             \
		if (fn)                                                               \
			fn(user, name, e_, layer, e_ ? reason(e_) : "");              \
		if (e_)                                                               \
			return e_;                                                    \
	} while (0)

static gnio_error_t open_peer(struct pipe *p)
{
	const struct gnio_devinfo *info = gnio_dev_as_devinfo(p->dev);
	if (!strcmp(gnio_devinfo_get_wire(info), "sw")) {
		char nm[128];
		const char *name = gnio_devinfo_get_name(info);
		strfmt(nm, sizeof(nm), "%.*s", (int)strcspn(name, ","), name);
		return gnio_sw_peer_open(nm, &p->peer);
	}
	if (!p->cfg.peer_iface) {
		gnio_set_error_msg_cli("wire %s needs --peer IFACE (the other end of the link)", p->cfg.wire);
		return GNIO_ERROR_INVALID_VALUE;
	}
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0) {
		gnio_set_error_msg_cli("AF_PACKET socket for peer %s: %s", p->cfg.peer_iface, strerror(errno));
		return errno == EPERM ? GNIO_ERROR_NOT_PERMITTED : GNIO_ERROR_OPERATING_SYSTEM;
	}
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
	sll.sll_ifindex = (int)if_nametoindex(p->cfg.peer_iface);
	if (!sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		gnio_set_error_msg_cli("peer interface %s: %s", p->cfg.peer_iface,
				       sll.sll_ifindex ? strerror(errno) : "not found");
		close(fd);
		return GNIO_ERROR_NOT_FOUND;
	}
	/* The peer only wants what arrives: its own sends would otherwise come
	 * back through ETH_P_ALL. And the burst's echoes (1000 frames nobody
	 * reads until tx_smoke) must not fill the buffer so that the frame
	 * tx_smoke waits for is dropped. Both best effort. */
	int one = 1, rcv = 8 << 20;
#ifdef PACKET_IGNORE_OUTGOING
	(void)setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
#endif
	(void)one;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	p->peer_fd = fd;
	return GNIO_SUCCESS;
}

gnio_error_t pipe_up(struct pipe *p, const struct pipe_cfg *cfg, pipe_step_fn fn, void *user)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->peer_fd = -1;

	/* The wire and its far end first: the verb keeps them across the
	 * pipeline's teardown, to re-verify the wire afterwards. */
	STEP("open wire", "environment", gnio_dev_open(cfg->wire, &p->dev));
	STEP("open peer end", "environment", open_peer(p));

	struct gnio_pipeline_cfg pc;
	gnio_pipeline_cfg_init(&pc, NULL, cfg->gpu);
	pc.dev = p->dev;
	pc.ring = cfg->ring;
	pc.slot = cfg->slot;
	pc.burst = cfg->burst;
	pc.no_rx_pool = !cfg->register_rx_pool;
	pc.tx = cfg->with_tx;
	pc.tx_in_place = cfg->with_tx;
	pc.tx_ring = cfg->tx_ring;
	pc.user_mem = sizeof(struct gnio_app_stats);
	pc.step_cb = fn;
	pc.step_user = user;
	gnio_error_t err = gnio_pipeline_create(&pc, &p->pl);
	if (err)
		return err;

	struct gnio_pipeline_queue q;
	gnio_pipeline_get_queue(p->pl, 0, &q);
	p->gpu = gnio_pipeline_get_gpu(p->pl);
	p->rxq = q.rxq;
	p->txq = q.txq;
	p->rxh = q.rxh;
	p->txh = q.txh;
	p->rx_mem = q.rx_mem;
	p->stats_mem = q.user_mem_gpu;
	p->stats_cpu = q.user_mem_cpu;
	p->runner = q.runner;
	p->args.rxq = p->rxh;
	p->args.txq = p->txh;
	p->args.stats = p->stats_mem;
	p->args.max_batch = 64;
	p->args.timeout_ns = 100000;
	p->args.blocks = 1;
	p->args.threads = 128;
	p->args.recv_scope = GNIO_APP_SCOPE_BLOCK;
	p->args.send_scope = GNIO_APP_SCOPE_THREAD;
	return GNIO_SUCCESS;
}

gnio_error_t pipe_launch(struct pipe *p, const char *app, pipe_step_fn fn, void *user)
{
	const struct gnio_app *a = gnio_app_find(app);
	gnio_runner_launch_fn lf = gnio_app_launcher(a, gnio_gpu_is_cpu(p->gpu));
	gnio_error_t err = !a ? GNIO_ERROR_NOT_FOUND : !lf ? GNIO_ERROR_NOT_SUPPORTED : GNIO_SUCCESS;
	if (err)
		gnio_set_error_msg_cli("app %s has no %s body in this build", app, gnio_gpu_get_backend(p->gpu));
	else
		err = gnio_pipeline_launch(p->pl, 0, lf, &p->args);
	if (fn)
		fn(user, "launch persistent kernel", err, "program", err ? reason(err) : app);
	return err;
}

/* Step 5: a new pipeline on the same open wire, on the CPU device, receives
 * a frame from the peer. Proves the rollback left the wire (the parent of the
 * GPU queues) usable. */
static gnio_error_t reverify_wire(struct pipe *p, char *detail, size_t len)
{
	struct gnio_pipeline *v = NULL;
	struct gnio_pipeline_queue q;
	gnio_error_t err;
	uint8_t frame[128];
	struct gnio_gen_cfg g;

	if (!p->peer) {
		strfmt(detail, len, "skipped: re-verify drives the sw peer only");
		return GNIO_SUCCESS;
	}
	struct gnio_pipeline_cfg pc;
	gnio_pipeline_cfg_init(&pc, NULL, "cpu");
	pc.dev = p->dev;
	pc.ring = p->cfg.ring;
	pc.slot = p->cfg.slot;
	pc.burst = p->cfg.burst;
	if ((err = gnio_pipeline_create(&pc, &v)) || (err = gnio_pipeline_get_queue(v, 0, &q)))
		goto out;
	gnio_gen_cfg_init(&g);
	uint32_t n = gnio_gen_build(&g, 0, frame, sizeof(frame));
	if ((err = gnio_sw_peer_send(p->peer, 0, frame, n)))
		goto out;
	/* The proxy publishes into the ring; wait for its counter. */
	struct gnio_eth_rxq_stats st;
	uint64_t end = now_ms() + 2000;
	do {
		gnio_eth_rxq_get_stats(q.rxq, &st);
		if (st.rx_packets >= 1)
			break;
		sleep_ms(1);
	} while (now_ms() < end);
	if (st.rx_packets < 1) {
		err = GNIO_ERROR_TIME_OUT;
		strfmt(detail, len, "a fresh queue on %s received nothing in 2 s: the rollback damaged the wire",
		       p->cfg.wire);
	} else {
		strfmt(detail, len, "a fresh queue on %s received %llu frame(s)", p->cfg.wire,
		       (unsigned long long)st.rx_packets);
	}
out:
	if (err && !detail[0])
		strfmt(detail, len, "%s: %s", gnio_error_get_name(err), reason(err));
	if (v)
		gnio_pipeline_destroy(v);
	return err;
}

static gnio_error_t first_err(gnio_error_t a, gnio_error_t b)
{
	return a ? a : b;
}

/* The five steps are the pipeline's rollback (gnio_rollback_run). Its step
 * reports are recorded, then printed with what the verb adds: the queues and
 * device context the pipeline destroys after step 4, and the wire re-verify
 * in step 5. A rollback that stopped (hung kernel, refused step) stays in the
 * pipeline and the next pipe_rollback resumes it. */
struct rb_rec {
	struct pipe *p;
	uint32_t deadline_ms;
	uint64_t beat;    /* heartbeat before the stop flag */
	int had_kernel;   /* a kernel was running, exited or hung */
	int seen[6];
	gnio_error_t err[6];
	char text[6][320];
};

static void rb_rec_step(void *user, unsigned step, gnio_error_t err, const char *text)
{
	struct rb_rec *r = user;
	if (step < 1 || step > 5)
		return;
	r->seen[step] = 1;
	r->err[step] = err;
	if (step == 1 && r->had_kernel && (err == GNIO_SUCCESS || err == GNIO_ERROR_TIME_OUT) && r->p->runner)
		strfmt(r->text[1], sizeof(r->text[1]), "deadline %u ms, heartbeat %llu, state now %s", r->deadline_ms,
		       (unsigned long long)r->beat, gnio_runner_state_name(gnio_runner_get_state(r->p->runner)));
	else
		strfmt(r->text[step], sizeof(r->text[step]), "%s", text);
}

static void close_ends(struct pipe *p)
{
	if (p->peer) {
		gnio_sw_peer_close(p->peer);
		p->peer = NULL;
	}
	if (p->peer_fd >= 0) {
		close(p->peer_fd);
		p->peer_fd = -1;
	}
	if (p->dev && !gnio_dev_close(p->dev))
		p->dev = NULL;
}

gnio_error_t pipe_rollback(struct pipe *p, uint32_t deadline_ms, int verify, pipe_step_fn fn, void *user)
{
	static const char *const name[6] = {
		NULL,
		"1 stop kernel (stop flag, poll to deadline)",
		"2 destroy buffer arrays in reverse registration order",
		"3 stop the queues' GPU datapath and release their handles",
		"4 free device memory and destroy the device context",
		"5 re-verify the wire with a fresh queue",
	};
	gnio_error_t err = GNIO_SUCCESS, e;
	unsigned next = GNIO_ROLLBACK_DONE;
	struct rb_rec rec;
	char d[256];

	if (!p->pl) {
		close_ends(p); /* bring-up failed before the pipeline existed */
		return GNIO_SUCCESS;
	}
	memset(&rec, 0, sizeof(rec));
	rec.p = p;
	rec.deadline_ms = deadline_ms;
	int had_runner = p->runner != NULL;
	if (p->runner) {
		enum gnio_runner_state s = gnio_runner_get_state(p->runner);
		rec.had_kernel = s == GNIO_RUNNER_RUNNING || s == GNIO_RUNNER_EXITED || s == GNIO_RUNNER_HUNG;
		rec.beat = gnio_runner_get_heartbeat(p->runner);
	}
	err = gnio_pipeline_rollback(p->pl, deadline_ms, rb_rec_step, &rec);
	gnio_rollback_get_next_step(gnio_pipeline_get_rollback(p->pl), &next);

	/* 1: the kernel first, with a fixed deadline; fail closed on a miss. */
	if (err == GNIO_ERROR_TIME_OUT && next == 1) {
		p->hung = 1;
		if (fn) {
			fn(user, name[1], err, "program", rec.text[1]);
			fn(user, "FAIL CLOSED: steps 2-5 not run, nothing freed", err, "program",
			   "a kernel that may still touch the memory holds it; debug the hung kernel");
		}
		return err;
	}
	if (next < GNIO_ROLLBACK_DONE) {
		/* A step refused (the library names why): report up to it and
		 * keep the rollback to resume; nothing after it ran. */
		for (unsigned s = 1; s <= 5 && fn; s++)
			if (rec.seen[s] && (s > 1 || had_runner))
				fn(user, name[s], rec.err[s], "program", rec.text[s]);
		return err;
	}

	/* 3 and 4 (the pipeline's part): the library left the queues stopped
	 * and reusable; this pipeline is ending, so they go, then the device
	 * context that owned the memory. */
	e = gnio_pipeline_destroy(p->pl);
	if (e) {
		if (!rec.err[4]) {
			rec.err[4] = e;
			strfmt(rec.text[4], sizeof(rec.text[4]), "%s", reason(e));
		}
		err = first_err(err, e);
	} else {
		p->pl = NULL;
		p->runner = NULL;
		p->rxq = NULL;
		p->txq = NULL;
		p->gpu = NULL;
	}

	if (fn) {
		if (had_runner)
			fn(user, name[1], rec.err[1], "program", rec.text[1]);
		fn(user, name[2], rec.err[2], "program", rec.err[2] ? rec.text[2] : "newest first");
		fn(user, name[3], rec.err[3], "program", rec.err[3] ? rec.text[3] : "GPU handles gone, rings freed");
		fn(user, name[4], rec.err[4], "program", rec.err[4] ? rec.text[4] : "all allocations freed");
	}

	/* 5: the library checked the queues restart; the parent wire must
	 * still carry traffic. */
	gnio_error_t e5 = rec.err[5] == GNIO_ERROR_SKIPPED ? GNIO_SUCCESS : rec.err[5];
	if (verify && p->dev && !p->pl) {
		d[0] = 0;
		e = reverify_wire(p, d, sizeof(d));
		if (fn) {
			char d5[600];
			if (rec.seen[5] && rec.err[5] != GNIO_ERROR_SKIPPED)
				strfmt(d5, sizeof(d5), "%s; %s", d, rec.text[5]);
			else
				strfmt(d5, sizeof(d5), "%s", d);
			fn(user, name[5], first_err(e5, e), "program", d5);
		}
		err = first_err(err, e);
	} else if (e5 && fn) {
		fn(user, name[5], e5, "program", rec.text[5]);
	}
	if (!p->pl)
		close_ends(p);
	return err;
}

gnio_error_t pipe_peer_send(struct pipe *p, const void *frame, uint32_t len)
{
	if (p->peer)
		return gnio_sw_peer_send(p->peer, p->cfg.peer_queue, frame, len);
	if (p->peer_fd < 0)
		return GNIO_ERROR_BAD_STATE;
	return send(p->peer_fd, frame, len, 0) == (ssize_t)len ? GNIO_SUCCESS : GNIO_ERROR_IO_FAILED;
}

int pipe_peer_expect(struct pipe *p, const uint8_t *want, uint32_t want_len, unsigned timeout_ms)
{
	static uint8_t buf[65536];
	uint64_t end = now_ms() + timeout_ms;
	while (now_ms() < end) {
		uint32_t len = 0;
		if (p->peer) {
			uint64_t ts;
			if (gnio_sw_peer_recv(p->peer, 0, buf, sizeof(buf), &len, &ts) != GNIO_SUCCESS) {
				sleep_ms(1);
				continue;
			}
		} else {
			struct pollfd pf = {.fd = p->peer_fd, .events = POLLIN};
			if (poll(&pf, 1, 10) <= 0)
				continue;
			ssize_t n = recv(p->peer_fd, buf, sizeof(buf), 0);
			if (n <= 0)
				continue;
			len = (uint32_t)n;
		}
		/* Other traffic may share a real link; only an exact match counts. */
		if (len == want_len && !memcmp(buf, want, len))
			return 1;
	}
	return 0;
}

uint64_t pipe_kernel_packets(const struct pipe *p)
{
	return p->stats_cpu ? gnio_load_acquire_u64(&p->stats_cpu->packets) : 0;
}

int pipe_wait_packets(struct pipe *p, uint64_t n, unsigned timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	while (pipe_kernel_packets(p) < n) {
		if (now_ms() > end)
			return 0;
		sleep_ms(1);
	}
	return 1;
}

static const char *mem_type_name(enum gnio_gpu_mem_type t)
{
	return t == GNIO_GPU_MEM_TYPE_GPU ? "gpu" : t == GNIO_GPU_MEM_TYPE_GPU_CPU ? "gpu_cpu" : "cpu_gpu";
}

static void json_alloc(struct json *j, const char *what, void *ptr, size_t bytes)
{
	char s[32];
	json_obj_begin(j, NULL);
	json_str(j, "what", what);
	json_str(j, "memory_type", mem_type_name(GNIO_GPU_MEM_TYPE_CPU_GPU));
	json_u64(j, "bytes", bytes);
	strfmt(s, sizeof(s), "%p", ptr);
	json_str(j, "device_address", s);
	json_obj_end(j);
}

static size_t pool_bytes(const struct gnio_buf_arr *a)
{
	return a ? (size_t)gnio_buf_arr_get_elem_size(a) * gnio_buf_arr_get_num_elem(a) : 0;
}

void pipe_json_maps(struct json *j, const struct pipe *p)
{
	char ptr[32];
	struct gnio_pipeline_queue q;
	int have_q = p->pl && gnio_pipeline_get_queue(p->pl, 0, &q) == GNIO_SUCCESS;
	json_arr_begin(j, "allocation_map");
	if (have_q) {
		json_alloc(j, "rx_pool", q.rx_mem, pool_bytes(q.rx_pool));
		if (q.tx_mem)
			json_alloc(j, "tx_pool", q.tx_mem, pool_bytes(q.tx_pool));
		json_alloc(j, "app_stats", q.user_mem_gpu, sizeof(struct gnio_app_stats));
	}
	json_arr_end(j);
	json_arr_begin(j, "queue_attachment_map");
	if (p->rxq) {
		json_obj_begin(j, NULL);
		json_str(j, "queue", "rxq");
		json_str(j, "wire", p->cfg.wire);
		json_u64(j, "queue_id", 0);
		json_str(j, "device", p->gpu ? gnio_gpu_get_bus_id(p->gpu) : NULL);
		json_u64(j, "ring_entries", p->cfg.ring);
		json_str(j, "payload_pool", "rx_pool");
		json_bool(j, "pool_registered", p->cfg.register_rx_pool);
		json_obj_end(j);
	}
	if (p->txq) {
		json_obj_begin(j, NULL);
		json_str(j, "queue", "txq");
		json_str(j, "wire", p->cfg.wire);
		json_u64(j, "queue_id", 0);
		json_str(j, "device", p->gpu ? gnio_gpu_get_bus_id(p->gpu) : NULL);
		json_u64(j, "ring_entries", p->cfg.tx_ring);
		json_str(j, "payload_pool", "rx_pool (in place)");
		json_bool(j, "pool_registered", p->cfg.register_rx_pool);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_begin(j, "stop_flag");
	if (p->runner) {
		struct gnio_kernel_ctl *ctl = gnio_runner_get_ctl_host(p->runner);
		strfmt(ptr, sizeof(ptr), "%p", ctl ? (void *)&ctl->stop : NULL);
		json_str(j, "host_address", ptr);
		json_str(j, "field", "struct gnio_kernel_ctl.stop (gnio/device/kernel.h), CPU_GPU memory");
		json_str(j, "runner_state", gnio_runner_state_name(gnio_runner_get_state(p->runner)));
	} else {
		json_null(j, "host_address");
	}
	json_obj_end(j);
}
