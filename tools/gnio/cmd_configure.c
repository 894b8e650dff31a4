/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_configure.c - `gnio configure`: walk the environment
 * preconditions, then the bring-up in the reference's order, printing each
 * step. A failed precondition stops it and names the fix layer: environment
 * (install, driver, wire) or program (call order, sizes). --save writes a
 * gnio run config file (YAML, config.c) for the wire and device it checked;
 * --snapshot writes the JSON snapshot of what it found (caps, env, maps).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "pipeline.h"

struct cfg_log {
	struct json *j;   /* --json: steps go here */
	int failed;
	char fail_layer[16];
	char fail_step[160];
};

static void emit(struct cfg_log *l, const char *phase, const char *step, const char *status, const char *layer,
		 const char *detail)
{
	if (l->j) {
		json_obj_begin(l->j, NULL);
		json_str(l->j, "phase", phase);
		json_str(l->j, "step", step);
		json_str(l->j, "status", status);
		json_str(l->j, "fix_layer", strcmp(status, "fail") ? NULL : layer);
		json_str(l->j, "detail", detail);
		json_obj_end(l->j);
	} else {
		printf("  %-44s %-5s %s\n", step, status, detail);
	}
	if (!strcmp(status, "fail") && !l->failed) {
		l->failed = 1;
		strfmt(l->fail_layer, sizeof(l->fail_layer), "%s", layer);
		strfmt(l->fail_step, sizeof(l->fail_step), "%s", step);
	}
}

static void up_cb(void *user, const char *step, gnio_error_t err, const char *layer, const char *detail)
{
	char d[400];
	strfmt(d, sizeof(d), "%s%s%s", err ? gnio_error_get_name(err) : "", err && *detail ? ": " : "", detail);
	emit(user, "bring-up", step, err ? "fail" : "ok", layer, d);
}

/* The environment-precondition matrix. Returns 0 when bring-up may go on. */
static int preconditions(struct cfg_log *l, const char *wire, const char *gpu, const struct probe_env *e)
{
	const struct probe_cuda *c = &e->cuda;
	int is_cpu = !strcmp(gpu, "cpu");
	char d[400];

	if (is_cpu) {
		emit(l, "precondition", "device enumerable", "ok", "environment", "CPU device: always present");
	} else {
		int found = 0;
		for (int i = 0; i < c->ngpus; i++)
			found |= !strcmp(c->gpus[i].bus_id, gpu);
		if (!found) {
			strfmt(d, sizeof(d), "%s not among %d CUDA device(s)%s%s; fix: install/load the NVIDIA driver so "
			       "nvidia-smi -L lists it, or use --gpu cpu", gpu, c->ngpus, c->ngpus ? "" : ": ",
			       c->ngpus ? "" : c->gpus_reason);
			emit(l, "precondition", "device enumerable", "fail", "environment", d);
			return -1;
		}
		emit(l, "precondition", "device enumerable", "ok", "environment", gpu);
	}

	if (is_cpu) {
		emit(l, "precondition", "CUDA driver and runtime compatible", "skip", "environment",
		     "not needed on the CPU device");
	} else if (!gnio_built_with_cuda()) {
		emit(l, "precondition", "CUDA driver and runtime compatible", "fail", "environment",
		     "this gnio was built without CUDA: rebuild with -DGNIO_WITH_CUDA=ON");
		return -1;
	} else if (c->consistent == 0) {
		emit(l, "precondition", "CUDA driver and runtime compatible", "fail", "environment", c->consistency_note);
		return -1;
	} else {
		emit(l, "precondition", "CUDA driver and runtime compatible", c->consistent ? "ok" : "info", "environment",
		     c->consistency_note);
	}

	if (c->nvcc_found)
		strfmt(d, sizeof(d), "nvcc %s at %s%s", c->nvcc_version, c->nvcc_path,
		       c->rt_version && strtol(c->nvcc_version, NULL, 10) != c->rt_version / 1000 ? " (major differs from the runtime)"
										       : "");
	else
		strfmt(d, sizeof(d), "no nvcc: building CUDA kernels needs the CUDA toolkit (not needed to run)");
	emit(l, "precondition", "nvcc compatible for builds", "info", "environment", d);

	struct gnio_dev *dev;
	gnio_error_t err = gnio_dev_open(wire, &dev);
	if (err) {
		strfmt(d, sizeof(d), "%s: %s; fix: create/bring up the interface or correct the spec",
		       gnio_error_get_name(err), gnio_last_error_msg());
		emit(l, "precondition", "wire up", "fail", "environment", d);
		return -1;
	}
	gnio_dev_close(dev);
	emit(l, "precondition", "wire up", "ok", "environment", wire);

	strfmt(d, sizeof(d), "nvidia_peermem %s (GPUDirect RDMA into GPU memory), dma-buf %s (%s); gnio's proxy path "
	       "needs neither", tristate_str(e->drivers.nvidia_peermem), tristate_str(e->drivers.dmabuf),
	       e->drivers.dmabuf_note);
	emit(l, "precondition", "GPUDirect facilities", "info", "environment", d);
	return 0;
}

/* --save: a gnio run config for the wire and device just checked, every
 * other key at gnio run's default (all written out, to edit). */
static int save_run_config(const char *path, const char *wire, const char *gpu)
{
	struct run_opts o;
	const struct run_origin flag = {NULL, 0, NULL};
	char now[40], comment[512], why[256];
	run_opts_defaults(&o);
	if (run_opt_set(&o, RUN_OPT_WIRE, wire, &flag) || run_opt_set(&o, RUN_OPT_GPU, gpu, &flag))
		return -1;
	iso8601_utc_now(now, sizeof(now));
	strfmt(comment, sizeof(comment), "A gnio run config written by gnio configure at %s:\n"
	       "wire %s and device %s passed every configure step; the other keys are\n"
	       "gnio run's defaults.", now, wire, gpu);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "gnio configure: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = config_write(f, &o, comment, why, sizeof(why));
	if (fclose(f) && !rc) {
		strfmt(why, sizeof(why), "%s", strerror(errno));
		rc = -1;
	}
	if (rc)
		fprintf(stderr, "gnio configure: writing %s: %s\n", path, why);
	run_opts_free(&o);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio configure [--wire SPEC] [--gpu BUSID|cpu] [--save FILE] [--snapshot FILE] [--json]\n\n"
		   "Check the environment preconditions, run the dual capability check, then walk\n"
		   "the bring-up in order (eth queues first, pool registered before start, GPU\n"
		   "handles last), print each step, and roll everything back.\n"
		   "  --wire SPEC   default sw:configure\n"
		   "  --gpu ID      default: the best device present\n"
		   "  --save FILE   when every step is ok, write a gnio run config file (YAML) for\n"
		   "                this wire and device, which gnio run reads (docs/config.md)\n"
		   "  --snapshot FILE  write the snapshot (caps, env, allocation map, queue\n"
		   "                attachment map, stop-flag location) as JSON\n"
		   "  --json        {result, fix_layer, steps[{phase, step, status, fix_layer, detail}], saved, snapshot}\n"
		   "Exit: 0 all steps ok, 1 a program-layer step failed, 2 usage,\n"
		   "      3 an environment precondition failed.\n");
}

int gnio_cmd_configure(int argc, char **argv)
{
	static const struct option opts[] = {{"wire", required_argument, NULL, 'w'},
					     {"gpu", required_argument, NULL, 'g'},
					     {"save", required_argument, NULL, 's'},
					     {"snapshot", required_argument, NULL, 'S'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *wire = "sw:configure", *gpu = NULL, *save = NULL, *snapshot = NULL;
	int as_json = 0, c;
	char best[64], why[256];

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:g:s:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': wire = optarg; break;
		case 'g': gpu = optarg; break;
		case 's': save = optarg; break;
		case 'S': snapshot = optarg; break;
		case 'j': as_json = 1; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		default: usage(stderr); return GNIO_EXIT_USAGE;
		}
	}
	if (!gpu) {
		if (gnio_gpu_pick_best(best, sizeof(best), why, sizeof(why)) != GNIO_SUCCESS) {
			fprintf(stderr, "gnio configure: no device: %s\n", why);
			return GNIO_EXIT_ENV;
		}
		gpu = best;
	}

	static struct probe_env e;
	static struct caps_snapshot s;
	static struct pipe p;
	struct json j;
	struct cfg_log l = {0};
	int have_caps = 0, up = 0;

	probe_all(&e);
	if (as_json) {
		json_init(&j, stdout, 1);
		l.j = &j;
		json_obj_begin(&j, NULL);
		json_str(&j, "wire", wire);
		json_str(&j, "device", gpu);
		json_arr_begin(&j, "steps");
	} else {
		printf("gnio configure: wire %s, device %s\n", wire, gpu);
	}

	if (preconditions(&l, wire, gpu, &e) == 0) {
		const char *stage;
		char msg[400];
		gnio_error_t err = caps_collect(wire, gpu, &s, &stage, msg, sizeof(msg));
		if (err) {
			emit(&l, "capabilities", "dual capability discovery", "fail", "environment", msg);
		} else {
			have_caps = 1;
			for (int i = 0; i < s.nfeatures; i++) {
				const struct caps_feature *f = &s.features[i];
				char d[460];
				const char *no = caps_axis_said_no(f);
				int needed = !strcmp(f->name, "gpu_visible_rx") || !strcmp(f->name, "gpu_visible_tx");
				strfmt(d, sizeof(d), "nic: %s; gpu: %s", f->nic.why, f->gpu.why);
				/* either axis saying no is the environment's doing */
				emit(&l, "capabilities", f->name, !no ? "ok" : needed ? "fail" : "info", "environment", d);
			}
		}
	}
	if (!l.failed) {
		struct pipe_cfg cfg;
		pipe_cfg_default(&cfg, wire, gpu);
		if (pipe_up(&p, &cfg, up_cb, &l) == GNIO_SUCCESS) {
			up = 1;
			char d[300];
			strfmt(d, sizeof(d), "kernel on %s (%s); GPU RX handle on %s queue 0, GPU TX handle on %s queue 0; "
			       "RX and TX; exit signal: host stop flag", gnio_gpu_get_bus_id(p.gpu),
			       gnio_gpu_get_backend(p.gpu), wire, wire);
			emit(&l, "sanity", "before launching a kernel", "ok", "program", d);
		}
	}

	if (snapshot) {
		FILE *f = fopen(snapshot, "w");
		if (!f) {
			fprintf(stderr, "gnio configure: cannot write %s: %s\n", snapshot, strerror(errno));
		} else {
			struct json sj;
			char now[40];
			iso8601_utc_now(now, sizeof(now));
			json_init(&sj, f, 1);
			json_obj_begin(&sj, NULL);
			json_i64(&sj, "schema_version", 1);
			json_str(&sj, "saved_at", now);
			json_str(&sj, "wire", wire);
			json_str(&sj, "device", gpu);
			json_str(&sj, "result", l.failed ? "fail" : "ok");
			json_str(&sj, "fix_layer", l.failed ? l.fail_layer : NULL);
			if (have_caps)
				caps_json(&sj, "caps", &s);
			else
				json_null(&sj, "caps");
			probe_env_json(&sj, "env", &e);
			pipe_json_maps(&sj, &p);
			json_obj_end(&sj);
			json_finish(&sj);
			fclose(f);
		}
	}
	if (up) {
		if (!as_json)
			printf("rolling back\n");
		gnio_error_t rb = pipe_rollback(&p, 2000, 1, up_cb, &l);
		(void)rb; /* a failing step already marked l.failed */
	}
	int saved = save && !l.failed && save_run_config(save, wire, gpu) == 0;
	if (save && l.failed)
		fprintf(stderr, "gnio configure: %s not written: a step failed, and gnio run would fail the same way\n",
			save);

	if (as_json) {
		json_arr_end(&j);
		json_str(&j, "result", l.failed ? "fail" : "ok");
		json_str(&j, "fix_layer", l.failed ? l.fail_layer : NULL);
		json_str(&j, "failed_step", l.failed ? l.fail_step : NULL);
		json_str(&j, "saved", saved ? save : NULL);
		json_str(&j, "snapshot", snapshot);
		json_obj_end(&j);
		json_finish(&j);
	} else if (l.failed) {
		printf("stopped at \"%s\": fix it in the %s layer%s\n", l.fail_step, l.fail_layer,
		       !strcmp(l.fail_layer, "environment") ? " (install, driver, wire), not in the program" : "");
	} else {
		printf("configure: all steps ok%s%s%s%s\n", saved ? "; gnio run --config " : "", saved ? save : "",
		       snapshot ? "; snapshot in " : "", snapshot ? snapshot : "");
	}
	if (!l.failed)
		return GNIO_EXIT_OK;
	return !strcmp(l.fail_layer, "environment") ? GNIO_EXIT_ENV : GNIO_EXIT_FAIL;
}
