/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_test.c - `gnio test`: the reference test loop as one
 * command. Each iteration brings a pipeline up, runs the steps
 *   smoke     one frame from the peer, one completion seen by the kernel
 *   burst     1000 frames, all processed, none dropped
 *   tx_smoke  one frame sent by the kernel arrives at the peer, byte for byte
 *   multi_gpu smoke/burst/tx_smoke on every CUDA GPU (skipped with one)
 *   negative  targets that must not support a feature say NOT_SUPPORTED
 * and rolls it back, recording an identity tuple. Two consecutive non-green
 * iterations with the same tuple stop the loop with verdict "escalate" and
 * an evidence bundle: unchanged is never success.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "pipeline.h"
#include "gnio/impl/atomics.h"

#define MAX_ITERS 64
#define MAX_STEPS 8
#define BURST 1000

enum st { ST_PASS, ST_FAIL, ST_SKIP };
static const char *const st_name[] = {"pass", "fail", "skip"};

struct step {
	const char *name;
	enum st status;
	char detail[320];
};

struct iter {
	struct step steps[MAX_STEPS];
	int nsteps;
	/* identity */
	char caps[512];
	char kernel_state[32];
	int heartbeat_moving;
	uint64_t rx_packets, dropped_total, kernel_packets, tx_packets;
	char bringup[200];
	char identity[1400];
	int green;
};

struct topts {
	const char *wire, *gpu, *peer, *evidence;
	int loop, as_json, break_peer;
};

/* --- library log capture for the evidence bundle ----------------------- */
static char *logbuf;
static size_t loglen, logcap;

static void log_sink(void *user, enum gnio_log_level level, const char *component, const char *line)
{
	size_t need = strlen(line) + strlen(component) + 32;
	if (loglen + need > logcap) {
		size_t nc = logcap ? logcap * 2 : 65536;
		while (nc < loglen + need)
			nc *= 2;
		if (nc > (8u << 20))
			return; /* bounded: the newest lines matter less than memory */
		char *n = realloc(logbuf, nc);
		if (!n)
			return;
		logbuf = n;
		logcap = nc;
	}
	loglen += (size_t)snprintf(logbuf + loglen, logcap - loglen, "%-7s %s: %s\n", gnio_log_level_name(level),
				   component, line);
	if (level <= GNIO_LOG_LEVEL_ERROR)
		fprintf(stderr, "gnio %s: %s\n", component, line);
}

static struct step *add(struct iter *it, const char *name, enum st s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static struct step *add(struct iter *it, const char *name, enum st s, const char *fmt, ...)
{
	struct step *x = &it->steps[it->nsteps < MAX_STEPS ? it->nsteps++ : MAX_STEPS - 1];
	va_list ap;
	x->name = name;
	x->status = s;
	va_start(ap, fmt);
	vsnprintf(x->detail, sizeof(x->detail), fmt, ap);
	va_end(ap);
	return x;
}

struct upctx {
	char failed[200];
};

static void up_step(void *user, const char *step, gnio_error_t err, const char *layer, const char *detail)
{
	struct upctx *u = user;
	if (err && !u->failed[0])
		strfmt(u->failed, sizeof(u->failed), "%s: %s (%s layer): %s", step, gnio_error_get_name(err), layer,
		       detail);
}

static void echo_of(const uint8_t *f, uint32_t n, uint8_t *out)
{
	memcpy(out, f + 6, 6);
	memcpy(out + 6, f, 6);
	memcpy(out + 12, f + 12, n - 12);
}

/* smoke, burst, tx_smoke on one device. Fills kernel identity fields. */
static void core_steps(const struct topts *o, const char *gpu, struct iter *it, const char *prefix)
{
	static struct pipe p;
	struct pipe_cfg cfg;
	struct upctx u = {""};

	const char *n_smoke = *prefix ? "multi_gpu" : "smoke";
	const char *n_burst = *prefix ? "multi_gpu" : "burst";
	const char *n_tx = *prefix ? "multi_gpu" : "tx_smoke";

	pipe_cfg_default(&cfg, o->wire, gpu);
	cfg.peer_iface = o->peer;
	if (o->break_peer)
		cfg.peer_queue = 1; /* traffic goes to a queue the kernel does not own */
	gnio_error_t err = pipe_up(&p, &cfg, up_step, &u);
	if (!err)
		err = pipe_launch(&p, "echo", up_step, &u);
	if (err) {
		strfmt(it->bringup, sizeof(it->bringup), "%s", u.failed);
		add(it, n_smoke, ST_FAIL, "%sbring-up failed: %s", prefix, u.failed);
		add(it, n_burst, ST_FAIL, "%snot run: bring-up failed", prefix);
		add(it, n_tx, ST_FAIL, "%snot run: bring-up failed", prefix);
		pipe_rollback(&p, 2000, 0, NULL, NULL);
		strfmt(it->kernel_state, sizeof(it->kernel_state), "not_launched");
		return;
	}
	strfmt(it->bringup, sizeof(it->bringup), "ok");

	struct gnio_gen_cfg g;
	uint8_t frame[256], want[256];
	gnio_gen_cfg_init(&g);

	/* smoke */
	uint32_t n = gnio_gen_build(&g, 0, frame, sizeof(frame));
	uint64_t beat0 = gnio_runner_get_heartbeat(p.runner);
	err = pipe_peer_send(&p, frame, n);
	int send_errno = errno; /* the AF_PACKET peer's reason (ENETDOWN, ...) */
	int ok = !err && pipe_wait_packets(&p, 1, 2000);
	uint64_t beat1 = gnio_runner_get_heartbeat(p.runner);
	/* Liveness goes into the identity tuple, so it must not depend on how
	 * fast the smoke outcome came (a failed send returns at once): give a
	 * polling kernel up to 1 s to show one beat. */
	for (uint64_t end = now_ms() + 1000; beat1 == beat0 && now_ms() < end; sleep_ms(1))
		beat1 = gnio_runner_get_heartbeat(p.runner);
	it->heartbeat_moving = beat1 != beat0;
	if (ok)
		add(it, n_smoke, ST_PASS, "%s1 frame sent, kernel saw %llu completion(s)", prefix,
		    (unsigned long long)pipe_kernel_packets(&p));
	else if (err && p.peer)
		add(it, n_smoke, ST_FAIL, "%speer send failed: %s", prefix, gnio_error_get_name(err));
	else if (err)
		add(it, n_smoke, ST_FAIL, "%speer send on %s failed: %s (%s)", prefix, o->peer, gnio_error_get_name(err),
		    strerror(send_errno));
	else if (it->heartbeat_moving && p.peer)
		add(it, n_smoke, ST_FAIL,
		    "%skernel alive and polling, no packets: the RX handle is not on the queue the peer sends to "
		    "(peer queue %u, kernel queue 0; re-run configure step 5)", prefix, cfg.peer_queue);
	else if (it->heartbeat_moving)
		add(it, n_smoke, ST_FAIL,
		    "%skernel alive and polling, no packets: nothing sent on %s reached %s (is --peer the other end "
		    "of the link, and is the link up?)", prefix, o->peer, o->wire);
	else
		add(it, n_smoke, ST_FAIL, "%skernel heartbeat not moving: kernel not running (state %s)", prefix,
		    gnio_runner_state_name(gnio_runner_get_state(p.runner)));
	echo_of(frame, n, want);
	pipe_peer_expect(&p, want, n, ok ? 1000 : 1); /* take smoke's echo off the peer */

	/* burst */
	uint64_t before = pipe_kernel_packets(&p), sent = 0;
	for (uint64_t s = 1; s <= BURST; s++) {
		n = gnio_gen_build(&g, s, frame, sizeof(frame));
		if (pipe_peer_send(&p, frame, n) == GNIO_SUCCESS)
			sent++;
	}
	ok = pipe_wait_packets(&p, before + BURST, 5000);
	struct gnio_eth_rxq_stats rs;
	gnio_eth_rxq_get_stats(p.rxq, &rs);
	uint64_t got = pipe_kernel_packets(&p) - before;
	uint64_t kerr = gnio_load_acquire_u64(&p.stats_cpu->errors);
	if (ok && rs.dropped_total == 0 && sent == BURST && kerr == 0)
		add(it, n_burst, ST_PASS, "%s%d sent, %llu processed, 0 dropped", prefix, BURST, (unsigned long long)got);
	else
		add(it, n_burst, ST_FAIL, "%s%llu of %d accepted by the wire, %llu processed, %llu dropped, %llu kernel errors",
		    prefix, (unsigned long long)sent, BURST, (unsigned long long)got,
		    (unsigned long long)rs.dropped_total, (unsigned long long)kerr);

	/* tx_smoke: the kernel's echo of one frame reaches the peer intact. */
	n = gnio_gen_build(&g, 100000, frame, sizeof(frame));
	echo_of(frame, n, want);
	err = pipe_peer_send(&p, frame, n);
	ok = !err && pipe_peer_expect(&p, want, n, 3000);
	if (ok)
		add(it, n_tx, ST_PASS, "%sframe of %u bytes from the kernel arrived at the peer byte for byte", prefix, n);
	else
		add(it, n_tx, ST_FAIL, "%sno matching frame at the peer in 3 s (kernel tx_packets %llu)", prefix,
		    (unsigned long long)gnio_load_acquire_u64(&p.stats_cpu->tx_packets));

	gnio_eth_rxq_get_stats(p.rxq, &rs);
	it->rx_packets = rs.rx_packets;
	it->dropped_total = rs.dropped_total;
	it->kernel_packets = pipe_kernel_packets(&p);
	it->tx_packets = gnio_load_acquire_u64(&p.stats_cpu->tx_packets);
	strfmt(it->kernel_state, sizeof(it->kernel_state), "%s", gnio_runner_state_name(gnio_runner_get_state(p.runner)));
	if (pipe_rollback(&p, 2000, 0, NULL, NULL) != GNIO_SUCCESS)
		add(it, "rollback", ST_FAIL, "%srollback failed%s", prefix, p.hung ? " closed: kernel hung" : "");
}

static void multi_gpu(const struct topts *o, struct iter *it)
{
	static struct probe_cuda pc;
	probe_cuda(&pc);
	if (pc.ngpus < 2) {
		add(it, "multi_gpu", ST_SKIP, "%d CUDA GPU(s) present%s%s", pc.ngpus, pc.ngpus ? "" : ": ",
		    pc.ngpus ? "" : pc.gpus_reason);
		return;
	}
	if (!gnio_built_with_cuda()) {
		add(it, "multi_gpu", ST_SKIP, "%d GPUs present but this gnio was built without CUDA", pc.ngpus);
		return;
	}
	struct iter sub;
	int fails = 0;
	char detail[320] = "";
	for (int i = 0; i < pc.ngpus; i++) {
		char prefix[48];
		memset(&sub, 0, sizeof(sub));
		strfmt(prefix, sizeof(prefix), "gpu %s: ", pc.gpus[i].bus_id);
		core_steps(o, pc.gpus[i].bus_id, &sub, prefix);
		for (int k = 0; k < sub.nsteps; k++)
			if (sub.steps[k].status == ST_FAIL) {
				fails++;
				if (!detail[0])
					strfmt(detail, sizeof(detail), "%s", sub.steps[k].detail);
			}
	}
	if (fails)
		add(it, "multi_gpu", ST_FAIL, "%d step(s) failed; first: %s", fails, detail);
	else
		add(it, "multi_gpu", ST_PASS, "smoke, burst and tx_smoke passed on each of %d GPUs", pc.ngpus);
}

/* The check itself must say no where no is the answer. */
static void negative(const struct topts *o, const char *gpu, const struct caps_snapshot *s, struct iter *it)
{
	struct gnio_dev *dev = NULL;
	struct gnio_gpu *g = NULL;
	char d[320] = "";
	int bad = 0;
	size_t k;

	if (gnio_dev_open(o->wire, &dev) != GNIO_SUCCESS) {
		add(it, "negative", ST_FAIL, "cannot open %s: %s", o->wire, gnio_last_error_msg());
		return;
	}
	/* 1: a queue type no wire has. */
	gnio_error_t e = gnio_eth_rxq_cap_is_type_supported(gnio_dev_as_devinfo(dev), (enum gnio_eth_rxq_type)99, GNIO_ETH_RXQ_DATA_PATH_TYPE_GPU);
	k = strlen(d);
	strfmt(d + k, sizeof(d) - k, "rxq type 99: %s; ", gnio_error_get_name(e));
	bad |= e != GNIO_ERROR_NOT_SUPPORTED;
	gnio_dev_close(dev);

	/* 2: a device that does not exist cannot be opened, cleanly. */
	e = gnio_gpu_create("0000:ff:1f.7", &g);
	k = strlen(d);
	strfmt(d + k, sizeof(d) - k, "device 0000:ff:1f.7: %s; ", gnio_error_get_name(e));
	bad |= !(e == GNIO_ERROR_NOT_FOUND || e == GNIO_ERROR_NOT_SUPPORTED || e == GNIO_ERROR_DRIVER);
	if (!e)
		gnio_gpu_destroy(g);

	/* 3: every memory type the snapshot calls unsupported is refused by
	 * the real call with NOT_SUPPORTED. */
	const struct caps_feature *f = caps_find(s, "gpu_cpu_memory");
	if (f && !caps_feature_ok(f) && gnio_gpu_create(gpu, &g) == GNIO_SUCCESS) {
		void *gp, *cp;
		e = gnio_gpu_mem_alloc(g, 4096, 0, GNIO_GPU_MEM_TYPE_GPU_CPU, &gp, &cp);
		if (!e)
			gnio_gpu_mem_free(g, gp);
		k = strlen(d);
		strfmt(d + k, sizeof(d) - k, "GPU_CPU alloc (caps: not_supported): %s; ", gnio_error_get_name(e));
		bad |= e != GNIO_ERROR_NOT_SUPPORTED;
		gnio_gpu_destroy(g);
	}
	k = strlen(d);
	if (k >= 2)
		d[k - 2] = 0;
	add(it, "negative", bad ? ST_FAIL : ST_PASS, "%s", d);
}

static void run_iteration(const struct topts *o, const char *gpu, struct iter *it)
{
	static struct caps_snapshot s;
	const char *stage;
	char msg[320];
	static struct probe_cuda pc;

	memset(it, 0, sizeof(*it));
	gnio_error_t e = caps_collect(o->wire, gpu, &s, &stage, msg, sizeof(msg));
	if (e) {
		strfmt(it->caps, sizeof(it->caps), "unavailable: %s", msg);
	} else {
		size_t k = 0;
		for (int i = 0; i < s.nfeatures && k < sizeof(it->caps); i++)
			k += (size_t)strfmt(it->caps + k, sizeof(it->caps) - k, "%s%s=%s", i ? "," : "", s.features[i].name,
					    caps_feature_ok(&s.features[i]) ? "y" : "n");
	}
	core_steps(o, gpu, it, "");
	multi_gpu(o, it);
	negative(o, gpu, &s, it);

	probe_cuda(&pc);
	char rt[16], dr[16], outcome[200] = "";
	size_t k = 0;
	it->green = 1;
	for (int i = 0; i < it->nsteps; i++) {
		k += (size_t)strfmt(outcome + k, sizeof(outcome) - k, "%s%s=%s", i ? "," : "", it->steps[i].name,
				    st_name[it->steps[i].status]);
		if (it->steps[i].status == ST_FAIL)
			it->green = 0;
	}
	/* Everything that identifies the situation, nothing that merely ticks
	 * (timestamps, heartbeat values). */
	strfmt(it->identity, sizeof(it->identity),
	       "trigger=gnio test|gnio=%s|cuda_runtime=%s|cuda_driver=%s|device=%s|wire=%s|caps=%s|queue=rxq0 "
	       "rx=%llu dropped=%llu kernel=%llu tx=%llu|bringup=%s|kernel=%s%s|outcome=%s",
	       gnio_version(), probe_cuda_ver_str(pc.rt_version, rt, sizeof(rt)),
	       probe_cuda_ver_str(pc.drv_version, dr, sizeof(dr)), gpu, o->wire, it->caps,
	       (unsigned long long)it->rx_packets, (unsigned long long)it->dropped_total,
	       (unsigned long long)it->kernel_packets, (unsigned long long)it->tx_packets, it->bringup, it->kernel_state,
	       it->heartbeat_moving ? ",alive" : ",no-heartbeat", outcome);
}

static void iter_json(struct json *j, const struct iter *it, int n, const char *gpu, const char *wire)
{
	char rt[16], dr[16];
	static struct probe_cuda pc;
	probe_cuda(&pc);
	json_obj_begin(j, NULL);
	json_i64(j, "iteration", n);
	json_str(j, "result", it->green ? "green" : "red");
	json_obj_begin(j, "identity");
	json_str(j, "trigger", "gnio test");
	json_obj_begin(j, "versions");
	json_str(j, "gnio", gnio_version());
	json_str(j, "cuda_runtime", probe_cuda_ver_str(pc.rt_version, rt, sizeof(rt)));
	json_str(j, "cuda_driver", probe_cuda_ver_str(pc.drv_version, dr, sizeof(dr)));
	json_obj_end(j);
	json_str(j, "capabilities", it->caps);
	json_obj_begin(j, "queue");
	json_str(j, "wire", wire);
	json_str(j, "device", gpu);
	json_u64(j, "queue_id", 0);
	json_u64(j, "rx_packets", it->rx_packets);
	json_u64(j, "dropped_total", it->dropped_total);
	json_u64(j, "kernel_packets", it->kernel_packets);
	json_u64(j, "tx_packets", it->tx_packets);
	json_obj_end(j);
	json_obj_begin(j, "kernel");
	json_str(j, "state_before_stop", it->kernel_state);
	json_bool(j, "heartbeat_moving", it->heartbeat_moving);
	json_obj_end(j);
	json_str(j, "bring_up", it->bringup);
	json_str(j, "tuple", it->identity);
	json_obj_end(j);
	json_arr_begin(j, "steps");
	for (int i = 0; i < it->nsteps; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "name", it->steps[i].name);
		json_str(j, "status", st_name[it->steps[i].status]);
		json_str(j, "detail", it->steps[i].detail);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void write_report(FILE *f, const char *verdict, const struct iter *its, int n, const char *gpu,
			 const char *wire, const char *bundle)
{
	struct json j;
	json_init(&j, f, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "verdict", verdict);
	json_str(&j, "wire", wire);
	json_str(&j, "device", gpu);
	json_str(&j, "evidence_bundle", bundle);
	json_arr_begin(&j, "iterations");
	for (int i = 0; i < n; i++)
		iter_json(&j, &its[i], i + 1, gpu, wire);
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

static int write_bundle(const char *dir, const char *verdict, const struct iter *its, int n, const char *gpu,
			const struct topts *o)
{
	char path[1024];
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	strfmt(path, sizeof(path), "%s/test.json", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	write_report(f, verdict, its, n, gpu, o->wire, dir);
	fclose(f);

	static struct probe_env e;
	probe_all(&e);
	strfmt(path, sizeof(path), "%s/env.json", dir);
	if ((f = fopen(path, "w"))) {
		struct json j;
		json_init(&j, f, 1);
		probe_env_json(&j, NULL, &e);
		json_finish(&j);
		fclose(f);
	}
	static struct caps_snapshot s;
	const char *stage;
	char msg[256];
	strfmt(path, sizeof(path), "%s/caps.json", dir);
	if ((f = fopen(path, "w"))) {
		struct json j;
		json_init(&j, f, 1);
		if (caps_collect(o->wire, gpu, &s, &stage, msg, sizeof(msg)) == GNIO_SUCCESS) {
			caps_json(&j, NULL, &s);
		} else {
			json_obj_begin(&j, NULL);
			json_str(&j, "error", "caps unavailable");
			json_str(&j, "stage", stage);
			json_str(&j, "detail", msg);
			json_obj_end(&j);
		}
		json_finish(&j);
		fclose(f);
	}
	strfmt(path, sizeof(path), "%s/log.txt", dir);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "# gnio library log at DEBUG level for every iteration\n");
		if (logbuf)
			fwrite(logbuf, 1, loglen, f);
		fclose(f);
	}
	strfmt(path, sizeof(path), "%s/nvidia-smi.txt", dir);
	if ((f = fopen(path, "w"))) {
		FILE *p = popen("nvidia-smi -q 2>&1", "r");
		char buf[4096];
		size_t k;
		int any = 0;
		while (p && (k = fread(buf, 1, sizeof(buf), p)) > 0) {
			fwrite(buf, 1, k, f);
			any = 1;
		}
		int rc = p ? pclose(p) : -1;
		if (!any || rc != 0)
			fprintf(f, "\n# nvidia-smi unavailable or failed (exit %d): no GPU state captured\n", rc);
		fclose(f);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio test [--wire SPEC] [--gpu BUSID|cpu] [--peer IFACE] [--loop N] [--json]\n"
		   "                 [--evidence DIR] [--break-peer]\n\n"
		   "The test loop: smoke, burst (%d frames), tx_smoke, multi_gpu, negative, each\n"
		   "iteration recorded as an identity tuple. Stops early when two consecutive\n"
		   "non-green iterations have the same tuple (verdict escalate, evidence bundle).\n"
		   "  --wire SPEC     default sw:test; afxdp:IFACE / afpacket:IFACE need --peer\n"
		   "  --gpu ID        default: the best device present\n"
		   "  --peer IFACE    the other end of the link for non-sw wires (AF_PACKET);\n"
		   "                  both ends must be in gnio's network namespace\n"
		   "  --loop N        iterations (default 1, at most %d)\n"
		   "  --evidence DIR  where the bundle goes (default ./gnio-evidence-<UTC time>)\n"
		   "  --break-peer    fault injection (sw: wires): the peer sends into queue 1,\n"
		   "                  which no kernel reads (shows the escalate path)\n"
		   "  --json          {verdict, iterations[{identity, steps[{name, status, detail}]}]}\n"
		   "Exit: 0 green, 1 red or escalate, 2 usage, 3 no device.\n", BURST, MAX_ITERS);
}

int gnio_cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {{"wire", required_argument, NULL, 'w'},
					     {"gpu", required_argument, NULL, 'g'},
					     {"peer", required_argument, NULL, 'p'},
					     {"loop", required_argument, NULL, 'l'},
					     {"evidence", required_argument, NULL, 'e'},
					     {"break-peer", no_argument, NULL, 'B'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct topts o = {.wire = "sw:test", .loop = 1};
	char best[64], why[256], bundle[512];
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:g:p:l:e:Bjh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': o.wire = optarg; break;
		case 'g': o.gpu = optarg; break;
		case 'p': o.peer = optarg; break;
		case 'l': {
			char *end;
			long v = strtol(optarg, &end, 10);
			o.loop = *optarg && !*end && v >= 1 && v <= MAX_ITERS ? (int)v : -1; /* -1: refused below */
			break;
		}
		case 'e': o.evidence = optarg; break;
		case 'B': o.break_peer = 1; break;
		case 'j': o.as_json = 1; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		default: usage(stderr); return GNIO_EXIT_USAGE;
		}
	}
	if (o.loop < 1 || o.loop > MAX_ITERS) {
		fprintf(stderr, "gnio test: --loop must be a number from 1 to %d\n", MAX_ITERS);
		return GNIO_EXIT_USAGE;
	}
	if (strncmp(o.wire, "sw:", 3) && !o.peer) {
		fprintf(stderr, "gnio test: wire %s needs --peer IFACE (the other end of the link)\n", o.wire);
		return GNIO_EXIT_USAGE;
	}
	if (strncmp(o.wire, "sw:", 3) && o.break_peer) {
		/* The fault is a queue the sw peer can aim at; an AF_PACKET peer
		 * cannot pick the receiver's queue, and a silent no-op would
		 * report green for a test that meant to fail. */
		fprintf(stderr, "gnio test: --break-peer works on sw: wires only; to break the peer of %s, take %s "
			"down (ip link set %s down) or name another interface\n", o.wire, o.peer, o.peer);
		return GNIO_EXIT_USAGE;
	}
	if (!o.gpu) {
		if (gnio_gpu_pick_best(best, sizeof(best), why, sizeof(why)) != GNIO_SUCCESS) {
			fprintf(stderr, "gnio test: no device: %s\n", why);
			return GNIO_EXIT_ENV;
		}
		o.gpu = best;
	}

	/* Keep DEBUG lines for the bundle; only errors reach the terminal. */
	enum gnio_log_level old = gnio_log_get_level();
	gnio_log_set_sink(log_sink, NULL);
	gnio_log_set_level(GNIO_LOG_LEVEL_DEBUG);

	static struct iter its[MAX_ITERS];
	int n = 0;
	enum { V_GREEN, V_RED, V_ESCALATE } v = V_RED;
	static const char *const vname[] = {"green", "red", "escalate"};
	if (!o.as_json)
		printf("gnio test on %s, device %s, %d iteration(s)\n", o.wire, o.gpu, o.loop);
	for (int i = 0; i < o.loop; i++) {
		run_iteration(&o, o.gpu, &its[n]);
		n++;
		if (!o.as_json) {
			printf("iteration %d: %s\n", n, its[n - 1].green ? "green" : "red");
			for (int k = 0; k < its[n - 1].nsteps; k++)
				printf("  %-10s %-4s %s\n", its[n - 1].steps[k].name, st_name[its[n - 1].steps[k].status],
				       its[n - 1].steps[k].detail);
		}
		if (its[n - 1].green) {
			v = V_GREEN;
			continue;
		}
		v = V_RED;
		if (n >= 2 && !its[n - 2].green && !strcmp(its[n - 2].identity, its[n - 1].identity)) {
			v = V_ESCALATE;
			break;
		}
	}
	/* Green means the last iteration was green; any earlier red stays in
	 * the record but a later green run answers it. */

	const char *verdict = vname[v];
	bundle[0] = 0;
	if (v == V_ESCALATE) {
		char ts[40];
		iso8601_utc_now(ts, sizeof(ts));
		for (char *q = ts; *q; q++)
			if (*q == ':')
				*q = '-'; /* portable file name */
		if (o.evidence)
			strfmt(bundle, sizeof(bundle), "%s", o.evidence);
		else
			strfmt(bundle, sizeof(bundle), "gnio-evidence-%s", ts);
		if (write_bundle(bundle, verdict, its, n, o.gpu, &o) != 0) {
			fprintf(stderr, "gnio test: cannot write evidence bundle %s: %s\n", bundle, strerror(errno));
			bundle[0] = 0;
		}
	}
	gnio_log_set_sink(NULL, NULL);
	gnio_log_set_level(old);

	if (o.as_json) {
		write_report(stdout, verdict, its, n, o.gpu, o.wire, bundle[0] ? bundle : NULL);
	} else {
		printf("verdict: %s", verdict);
		if (v == V_ESCALATE)
			printf(" (two consecutive iterations with the same non-green identity: the cause is below the "
			       "program; evidence in %s)", bundle[0] ? bundle : "(bundle not written)");
		printf("\n");
	}
	free(logbuf);
	logbuf = NULL;
	return v == V_GREEN ? GNIO_EXIT_OK : GNIO_EXIT_FAIL;
}
