/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_debug.c - `gnio debug`: the layered ladder install ->
 * version -> build -> link -> runtime -> program -> driver; names the first
 * failing layer and its fix. --capture DIR saves the evidence triple
 * (snapshot + caps, debug-level log, GPU state and kernel counters) without
 * changing the system; --compare A B prints what differs between captures.
 */
#include <errno.h>
#include <stdarg.h>
#include "gnio/version.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "jsonr.h"
#include "pipeline.h"

enum lst { L_PASS, L_FAIL, L_BLOCKED, L_SKIP };
static const char *const lst_name[] = {"pass", "fail", "blocked", "skip"};

struct layer {
	const char *name;
	enum lst st;
	char detail[400];
	char fix[240];
};

static void set(struct layer *l, enum lst st, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set(struct layer *l, enum lst st, const char *fix, const char *fmt, ...)
{
	va_list ap;
	l->st = st;
	strfmt(l->fix, sizeof(l->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(l->detail, sizeof(l->detail), fmt, ap);
	va_end(ap);
}

/* Kernel evidence from the runtime layer, kept for --capture. */
static uint64_t ev_heartbeat, ev_packets, ev_dropped;
static char ev_state[32] = "not run";

static void smoke(const char *gpu, struct layer *rt, struct layer *prog)
{
	static struct pipe p;
	struct pipe_cfg cfg;
	pipe_cfg_default(&cfg, "sw:debug", gpu);
	cfg.with_tx = 0;
	gnio_error_t err = pipe_up(&p, &cfg, NULL, NULL);
	if (!err)
		err = pipe_launch(&p, "count", NULL, NULL);
	if (err) {
		set(rt, L_FAIL, "see the program layer: the pipeline did not come up", "bring-up failed: %s: %s",
		    gnio_error_get_name(err), gnio_last_error_msg());
		set(prog, L_FAIL, "walk `gnio configure` step by step; the first failing step names the call",
		    "bring-up on sw:debug failed: %s", gnio_error_get_name(err));
		pipe_rollback(&p, 2000, 0, NULL, NULL);
		return;
	}
	uint8_t frame[128];
	struct gnio_gen_cfg g;
	gnio_gen_cfg_init(&g);
	uint32_t n = gnio_gen_build(&g, 0, frame, sizeof(frame));
	uint64_t b0 = gnio_runner_get_heartbeat(p.runner);
	pipe_peer_send(&p, frame, n);
	int ok = pipe_wait_packets(&p, 1, 2000);
	ev_heartbeat = gnio_runner_get_heartbeat(p.runner);
	ev_packets = pipe_kernel_packets(&p);
	struct gnio_eth_rxq_stats st;
	gnio_eth_rxq_get_stats(p.rxq, &st);
	ev_dropped = st.dropped_total;
	strfmt(ev_state, sizeof(ev_state), "%s", gnio_runner_state_name(gnio_runner_get_state(p.runner)));
	if (ok)
		set(rt, L_PASS, NULL, "kernel on %s saw 1 frame; heartbeat moving", gpu); /* value in kernel.heartbeat */
	else if (ev_heartbeat != b0)
		set(rt, L_FAIL, "check the peer sends to the queue the GPU handle is layered on; drive the PE",
		    "kernel alive and polling, no packets");
	else
		set(rt, L_FAIL, "the kernel needs a host stop flag and a polling loop; check the launch",
		    "kernel heartbeat not moving (state %s)", ev_state);
	err = pipe_rollback(&p, 2000, 1, NULL, NULL);
	if (err)
		set(prog, L_FAIL, "teardown order: kernel, buffer arrays (newest first), queues, memory, device",
		    "rollback failed: %s%s", gnio_error_get_name(err), p.hung ? " (kernel hung: failed closed)" : "");
	else
		set(prog, L_PASS, NULL, "bring-up in order and five-step rollback clean on %s", gpu);
}

static int ladder(const char *target, struct layer *L, int verbose_json, struct json *j)
{
	static struct probe_env e;
	int cuda = strcmp(target, "cpu") != 0;
	char share[512];

	probe_all(&e);
	for (int i = 0; i < 7; i++)
		L[i].st = L_SKIP;
	L[0].name = "install"; L[1].name = "version"; L[2].name = "build"; L[3].name = "link";
	L[4].name = "runtime"; L[5].name = "program"; L[6].name = "driver";

	/* install: the library the CLI runs with is the one it was built for,
	 * and the shipped data is where the CLI looks. */
	strfmt(share, sizeof(share), "%s/schemas/env.schema.json", GNIO_SOURCE_SHARE_DIR);
	int have_share = access(share, R_OK) == 0;
	if (!have_share) {
		strfmt(share, sizeof(share), "%s/schemas/env.schema.json", GNIO_SHARE_DIR);
		have_share = access(share, R_OK) == 0;
	}
	if (strcmp(gnio_version(), GNIO_VERSION_STRING))
		set(&L[0], L_FAIL, "reinstall so libgnio and the gnio CLI come from one build",
		    "libgnio %s but the CLI was built against %s", gnio_version(), GNIO_VERSION_STRING);
	else if (!have_share)
		set(&L[0], L_FAIL, "run `make install` (or cmake --install) so share/gnio is in place",
		    "share/gnio/schemas not found in %s or %s", GNIO_SOURCE_SHARE_DIR, GNIO_SHARE_DIR);
	else
		set(&L[0], L_PASS, NULL, "libgnio %s matches the CLI; schemas at %s", gnio_version(), share);

	/* version */
	if (cuda && e.cuda.consistent == 0)
		set(&L[1], L_FAIL, "match the CUDA runtime to the driver (update the driver or use an older toolkit)",
		    "%s", e.cuda.consistency_note);
	else
		set(&L[1], L_PASS, NULL, "CUDA: %s", e.cuda.consistency_note);

	/* build */
	if (cuda && !gnio_built_with_cuda())
		set(&L[2], L_FAIL, "rebuild with -DGNIO_WITH_CUDA=ON (needs nvcc), or debug the CPU device with --gpu cpu",
		    "this gnio was built without CUDA");
	else
		set(&L[2], L_PASS, NULL, "%s", cuda ? "CUDA backend built in" : "CPU device needs no CUDA build");

	/* link: this process started, so its link-time libraries resolved;
	 * what is left is the run-time loaded ones. */
	if (cuda && e.libs[PROBE_LIB_CUDART].found == 0 && !gnio_built_with_cuda())
		set(&L[3], L_PASS, NULL, "static binary started; cudart not loadable by dlopen (%s)",
		    e.libs[PROBE_LIB_CUDART].why);
	else
		set(&L[3], L_PASS, NULL, "binary started with its libraries resolved");

	/* driver facts decide whether runtime/program can be reached at all. */
	int drv_ok = 1;
	if (cuda) {
		int found = 0;
		for (int i = 0; i < e.cuda.ngpus; i++)
			found |= !strcmp(e.cuda.gpus[i].bus_id, target) || !strcmp(target, "cuda");
		if (!e.cuda.drv_found || e.cuda.ngpus == 0 || !found) {
			drv_ok = 0;
			set(&L[6], L_FAIL, "install/load the NVIDIA driver (nvidia, nvidia_uvm); nvidia-smi -L must list the GPU",
			    "%s%s", e.cuda.ngpus ? "requested GPU not present; " : "", e.cuda.ngpus ? "" : e.cuda.gpus_reason);
		} else {
			set(&L[6], L_PASS, NULL, "driver CUDA %d.%d, %d GPU(s); nvidia module %s", e.cuda.drv_version / 1000,
			    (e.cuda.drv_version % 1000) / 10, e.cuda.ngpus, tristate_str(e.drivers.nvidia));
		}
	} else {
		set(&L[6], L_SKIP, NULL, "the CPU device uses no driver");
	}

	const char *dev = target;
	if (cuda && !strcmp(target, "cuda") && e.cuda.ngpus)
		dev = e.cuda.gpus[0].bus_id;
	if (L[2].st == L_FAIL || !drv_ok) {
		set(&L[4], L_BLOCKED, NULL, "not reached: %s", L[2].st == L_FAIL ? "no CUDA build" : "device unavailable");
		set(&L[5], L_BLOCKED, NULL, "not reached: %s", L[2].st == L_FAIL ? "no CUDA build" : "device unavailable");
	} else {
		smoke(dev, &L[4], &L[5]);
	}

	int first = -1;
	for (int i = 0; i < 7; i++)
		if (L[i].st == L_FAIL) {
			first = i;
			break;
		}
	(void)verbose_json;
	(void)j;
	return first;
}

static void ladder_json(struct json *j, const char *target, const struct layer *L, int first)
{
	json_str(j, "target", target);
	json_str(j, "first_failing_layer", first >= 0 ? L[first].name : NULL);
	json_str(j, "fix", first >= 0 ? L[first].fix : NULL);
	json_arr_begin(j, "layers");
	for (int i = 0; i < 7; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "layer", L[i].name);
		json_str(j, "status", lst_name[L[i].st]);
		json_str(j, "detail", L[i].detail);
		json_str(j, "fix", L[i].st == L_FAIL ? L[i].fix : NULL);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* --- capture ----------------------------------------------------------- */
static FILE *cap_log;

static void cap_sink(void *user, enum gnio_log_level level, const char *component, const char *line)
{
	if (cap_log)
		fprintf(cap_log, "%-7s %s: %s\n", gnio_log_level_name(level), component, line);
}

static int capture(const char *dir, const char *target)
{
	char path[1024];
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "gnio debug: cannot create %s: %s\n", dir, strerror(errno));
		return GNIO_EXIT_FAIL;
	}
	strfmt(path, sizeof(path), "%s/log.txt", dir);
	cap_log = fopen(path, "w");
	enum gnio_log_level old = gnio_log_get_level();
	gnio_log_set_sink(cap_sink, NULL);
	gnio_log_set_level(GNIO_LOG_LEVEL_DEBUG);

	struct layer L[7];
	int first = ladder(target, L, 0, NULL);

	/* The snapshot half: caps and the bring-up maps on the device the
	 * ladder could reach (the CPU device when the target cannot open). */
	static struct caps_snapshot s;
	const char *stage;
	char msg[300];
	const char *dev = (L[4].st == L_BLOCKED) ? "cpu" : (strcmp(target, "cuda") ? target : NULL);
	gnio_error_t ce = caps_collect("sw:capture", dev, &s, &stage, msg, sizeof(msg));
	static struct pipe p;
	struct pipe_cfg cfg;
	pipe_cfg_default(&cfg, "sw:capture", dev ? dev : s.bus_id);
	gnio_error_t ue = pipe_up(&p, &cfg, NULL, NULL);

	strfmt(path, sizeof(path), "%s/capture.json", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		struct json j;
		char now[40];
		static struct probe_env e;
		probe_all(&e);
		iso8601_utc_now(now, sizeof(now));
		json_init(&j, f, 1);
		json_obj_begin(&j, NULL);
		json_i64(&j, "schema_version", 1);
		json_str(&j, "captured_at", now);
		json_obj_begin(&j, "ladder");
		ladder_json(&j, target, L, first);
		json_obj_end(&j);
		json_obj_begin(&j, "snapshot");
		json_str(&j, "device", dev ? dev : s.bus_id);
		json_str(&j, "bring_up", ue ? gnio_error_get_name(ue) : "ok");
		if (ce == GNIO_SUCCESS)
			caps_json(&j, "caps", &s);
		else
			json_str(&j, "caps", msg);
		pipe_json_maps(&j, &p);
		json_obj_end(&j);
		json_obj_begin(&j, "kernel");
		json_str(&j, "state", ev_state);
		json_u64(&j, "heartbeat", ev_heartbeat);
		json_u64(&j, "packets", ev_packets);
		json_u64(&j, "dropped_total", ev_dropped);
		json_obj_end(&j);
		probe_env_json(&j, "env", &e);
		json_obj_end(&j);
		json_finish(&j);
		fclose(f);
	}
	pipe_rollback(&p, 2000, 0, NULL, NULL);
	gnio_log_set_sink(NULL, NULL);
	gnio_log_set_level(old);
	if (cap_log)
		fclose(cap_log);
	cap_log = NULL;

	strfmt(path, sizeof(path), "%s/nvidia-smi.txt", dir);
	if ((f = fopen(path, "w"))) {
		FILE *pp = popen("nvidia-smi -q 2>&1", "r");
		char buf[4096];
		size_t k;
		while (pp && (k = fread(buf, 1, sizeof(buf), pp)) > 0)
			fwrite(buf, 1, k, f);
		int rc = pp ? pclose(pp) : -1;
		if (rc != 0)
			fprintf(f, "\n# nvidia-smi unavailable or failed (exit %d): no GPU state captured\n", rc);
		fclose(f);
	}
	printf("captured to %s: capture.json (ladder, snapshot, caps, kernel counters, env), log.txt (debug level), "
	       "nvidia-smi.txt\n", dir);
	return GNIO_EXIT_OK;
}

/* Keys whose values differ on every run and say nothing about the fault. */
static int volatile_key(const char *line)
{
	return strstr(line, "_at = ") || strstr(line, "device_address = ") || strstr(line, "host_address = ") ||
	       strstr(line, "heartbeat = ");
}

static int compare(const char *a, const char *b)
{
	char pa[1024], pb[1024], err[256];
	struct jv *ja, *jb;
	strfmt(pa, sizeof(pa), "%s/capture.json", a);
	strfmt(pb, sizeof(pb), "%s/capture.json", b);
	if (!(ja = jv_parse_file(pa, err, sizeof(err)))) {
		fprintf(stderr, "gnio debug: %s\n", err);
		return GNIO_EXIT_USAGE;
	}
	if (!(jb = jv_parse_file(pb, err, sizeof(err)))) {
		fprintf(stderr, "gnio debug: %s\n", err);
		jv_free(ja);
		return GNIO_EXIT_USAGE;
	}
	/* Flatten both to "path = value" lines and compare line sets by path. */
	char *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);
	if (!fa || !fb) {
		if (fa)
			fclose(fa);
		if (fb)
			fclose(fb);
		free(ta);
		free(tb);
		fprintf(stderr, "gnio debug: out of memory comparing captures\n");
		jv_free(ja);
		jv_free(jb);
		return GNIO_EXIT_FAIL;
	}
	jv_flatten(ja, "", fa);
	jv_flatten(jb, "", fb);
	fclose(fa);
	fclose(fb);
	if (!ta || !tb) { /* open_memstream sets them at fclose; not on failure */
		free(ta);
		free(tb);
		fprintf(stderr, "gnio debug: out of memory comparing captures\n");
		jv_free(ja);
		jv_free(jb);
		return GNIO_EXIT_FAIL;
	}
	int diffs = 0;
	for (int pass = 0; pass < 2; pass++) {
		char *src = pass ? tb : ta, *other = pass ? ta : tb;
		for (char *line = src; line && *line;) {
			char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			char buf[2048];
			strfmt(buf, sizeof(buf), "%.*s", (int)len, line);
			char *eq = strstr(buf, " = ");
			if (eq && !volatile_key(buf)) {
				/* Same path in the other capture? */
				char key[1100];
				strfmt(key, sizeof(key), "\n%.*s = ", (int)(eq - buf), buf);
				char *o = strstr(other, key + 1) == other ? other : strstr(other, key);
				if (o && *o == '\n')
					o++;
				char ob[2048] = "";
				if (o) {
					char *onl = strchr(o, '\n');
					strfmt(ob, sizeof(ob), "%.*s", (int)(onl ? onl - o : (long)strlen(o)), o);
				}
				if (!o && !pass) {
					printf("- %s   (only in %s)\n", buf, a);
					diffs++;
				} else if (!o && pass) {
					printf("+ %s   (only in %s)\n", buf, b);
					diffs++;
				} else if (!pass && strcmp(ob, buf)) {
					printf("~ %.*s: %s -> %s\n", (int)(eq - buf), buf, eq + 3, strstr(ob, " = ") + 3);
					diffs++;
				}
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	free(ta);
	free(tb);
	jv_free(ja);
	jv_free(jb);
	printf("%d difference(s) between %s and %s (timestamps, addresses and heartbeat values ignored)\n", diffs, a, b);
	return diffs ? GNIO_EXIT_FAIL : GNIO_EXIT_OK;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio debug [--gpu BUSID|cuda|cpu] [--json]\n"
		   "       gnio debug --capture DIR [--gpu ...]\n"
		   "       gnio debug --compare DIR_A DIR_B\n\n"
		   "Walk the ladder install -> version -> build -> link -> runtime -> program ->\n"
		   "driver for the target device (default: cuda, the GPU path) and name the first\n"
		   "failing layer with its fix. Runtime and program run a one-frame smoke and the\n"
		   "five-step rollback on an in-process sw wire.\n"
		   "  --capture DIR   save capture.json (ladder, snapshot, caps, kernel counters, env),\n"
		   "                  log.txt (library log at debug level), nvidia-smi.txt; changes nothing\n"
		   "  --compare A B   print what differs between two captures\n"
		   "  --json          {target, first_failing_layer, fix, layers[{layer, status, detail, fix}]}\n"
		   "Exit: 0 no layer failed (compare: identical), 1 a layer failed (compare: differences),\n"
		   "      2 usage.\n");
}

int gnio_cmd_debug(int argc, char **argv)
{
	static const struct option opts[] = {{"gpu", required_argument, NULL, 'g'},
					     {"capture", required_argument, NULL, 'c'},
					     {"compare", no_argument, NULL, 'C'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *target = "cuda", *cap = NULL;
	int cmp = 0, as_json = 0, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "g:c:Cjh", opts, NULL)) != -1) {
		switch (c) {
		case 'g': target = optarg; break;
		case 'c': cap = optarg; break;
		case 'C': cmp = 1; break;
		case 'j': as_json = 1; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		default: usage(stderr); return GNIO_EXIT_USAGE;
		}
	}
	if (cmp) {
		if (argc - optind != 2) {
			fprintf(stderr, "gnio debug: --compare needs two capture directories\n");
			return GNIO_EXIT_USAGE;
		}
		return compare(argv[optind], argv[optind + 1]);
	}
	if (optind < argc) {
		fprintf(stderr, "gnio debug: unexpected argument '%s'\n", argv[optind]);
		return GNIO_EXIT_USAGE;
	}
	if (cap)
		return capture(cap, target);

	struct layer L[7];
	int first = ladder(target, L, 0, NULL);
	if (as_json) {
		struct json j;
		json_init(&j, stdout, 1);
		json_obj_begin(&j, NULL);
		ladder_json(&j, target, L, first);
		json_obj_end(&j);
		json_finish(&j);
	} else {
		printf("debug ladder for target %s\n", target);
		for (int i = 0; i < 7; i++)
			printf("  %-8s %-8s %s\n", L[i].name, lst_name[L[i].st], L[i].detail);
		if (first >= 0)
			printf("first failing layer: %s\nfix: %s\n", L[first].name, L[first].fix);
		else
			printf("no layer failed\n");
	}
	return first >= 0 ? GNIO_EXIT_FAIL : GNIO_EXIT_OK;
}
