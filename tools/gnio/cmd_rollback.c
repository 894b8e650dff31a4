/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_rollback.c - `gnio rollback`: exercise the five-step safe
 * teardown on a live pipeline and print each step (docs/rollback.md).
 * --hang runs a kernel that ignores the stop flag, to show the fail-closed
 * path: the deadline passes, TIME_OUT, nothing is freed and a free is refused.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pipeline.h"
#include "gnio/device/gnio_dev.h"

struct rb_log {
	struct json *j; /* NULL: human lines */
	int n;
};

static void rb_step(void *user, const char *step, gnio_error_t err, const char *layer, const char *detail)
{
	struct rb_log *l = user;
	l->n++;
	if (l->j) {
		json_obj_begin(l->j, NULL);
		json_str(l->j, "step", step);
		json_str(l->j, "result", gnio_error_get_name(err));
		json_str(l->j, "detail", detail);
		json_obj_end(l->j);
	} else {
		printf("  %-58s %s%s%s\n", step, err ? gnio_error_get_name(err) : "ok", detail && *detail ? "  " : "",
		       detail ? detail : "");
	}
}

/* A kernel body that keeps beating but ignores the stop flag until the host
 * releases it: the shape of a kernel stuck in a loop without an exit check. */
static volatile int hang_release;

static gnio_error_t hung_body(const struct gnio_runner_launch *l)
{
	uint64_t beat = 0;
	while (!__atomic_load_n(&hang_release, __ATOMIC_ACQUIRE)) {
		gnio_gpu_dev_kernel_heartbeat(l->ctl, ++beat);
		sleep_ms(1);
	}
	return GNIO_SUCCESS;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio rollback [--wire SPEC] [--gpu BUSID|cpu] [--deadline MS] [--hang] [--json]\n\n"
		   "Bring up a pipeline, run the count kernel on a few frames, then walk the\n"
		   "five-step rollback, printing each step:\n"
		   "  1 stop the kernel (stop flag, poll until done or the deadline)\n"
		   "  2 destroy buffer arrays in reverse registration order\n"
		   "  3 stop the queues' GPU datapath (handles and rings go)\n"
		   "  4 free device memory, destroy the device context\n"
		   "  5 re-verify the wire with a fresh queue\n"
		   "  --wire SPEC      sw wire to use (default sw:rollback)\n"
		   "  --gpu ID         device (default: best present)\n"
		   "  --deadline MS    kernel stop deadline (default 2000)\n"
		   "  --hang           CPU device: a kernel that ignores the stop flag shows the\n"
		   "                   fail-closed path (TIME_OUT, nothing freed)\n"
		   "  --json           {result, fail_closed, steps[{step, result, detail}]}\n"
		   "Exit: 0 clean rollback, 1 a step failed or the rollback failed closed,\n"
		   "      2 usage, 3 wire or device missing.\n");
}

int gnio_cmd_rollback(int argc, char **argv)
{
	static const struct option opts[] = {{"wire", required_argument, NULL, 'w'},
					     {"gpu", required_argument, NULL, 'g'},
					     {"deadline", required_argument, NULL, 'd'},
					     {"hang", no_argument, NULL, 'H'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *wire = "sw:rollback", *gpu_id = NULL;
	unsigned deadline = 2000;
	int hang = 0, as_json = 0, c;
	char best[64], why[256];

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:g:d:Hjh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': wire = optarg; break;
		case 'g': gpu_id = optarg; break;
		case 'd': deadline = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'H': hang = 1; break;
		case 'j': as_json = 1; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		default: usage(stderr); return GNIO_EXIT_USAGE;
		}
	}
	if (strncmp(wire, "sw:", 3)) {
		fprintf(stderr, "gnio rollback: only sw wires (the command drives the peer itself)\n");
		return GNIO_EXIT_USAGE;
	}
	if (!gpu_id) {
		if (gnio_gpu_pick_best(best, sizeof(best), why, sizeof(why)) != GNIO_SUCCESS) {
			fprintf(stderr, "gnio rollback: no device: %s\n", why);
			return GNIO_EXIT_ENV;
		}
		gpu_id = best;
	}
	if (hang && strcmp(gpu_id, "cpu")) {
		fprintf(stderr, "gnio rollback: --hang needs --gpu cpu (a deliberately hung CUDA kernel would hold the GPU)\n");
		return GNIO_EXIT_USAGE;
	}

	struct json j;
	struct rb_log log = {0};
	if (as_json) {
		json_init(&j, stdout, 1);
		log.j = &j;
		json_obj_begin(&j, NULL);
		json_str(&j, "wire", wire);
		json_str(&j, "device", gpu_id);
		json_arr_begin(&j, "bring_up");
	} else {
		printf("bring-up on %s, device %s\n", wire, gpu_id);
	}

	static struct pipe p;
	struct pipe_cfg cfg;
	pipe_cfg_default(&cfg, wire, gpu_id);
	cfg.with_tx = 0;
	gnio_error_t err = pipe_up(&p, &cfg, rb_step, &log);
	if (!err) {
		if (hang) {
			err = gnio_runner_start(p.runner, hung_body, &p.args);
			rb_step(&log, "launch a kernel that ignores the stop flag", err, "program", "");
		} else {
			err = pipe_launch(&p, "count", rb_step, &log);
		}
	}
	if (!err && !hang) {
		/* A little traffic, so the rollback runs on a pipeline that did work. */
		uint8_t frame[128];
		struct gnio_gen_cfg g;
		gnio_gen_cfg_init(&g);
		for (uint64_t s = 0; s < 8; s++)
			pipe_peer_send(&p, frame, gnio_gen_build(&g, s, frame, sizeof(frame)));
		int got = pipe_wait_packets(&p, 8, 2000);
		char d[96];
		strfmt(d, sizeof(d), "kernel counted %llu of 8", (unsigned long long)pipe_kernel_packets(&p));
		rb_step(&log, "kernel processes 8 frames", got ? GNIO_SUCCESS : GNIO_ERROR_TIME_OUT, "program", d);
	}
	if (as_json) {
		json_arr_end(&j);
		json_arr_begin(&j, "rollback");
	} else {
		printf("rollback (deadline %u ms)\n", deadline);
	}
	gnio_error_t rb = pipe_rollback(&p, deadline, !hang, rb_step, &log);
	int fail_closed = p.hung;
	if (fail_closed) {
		/* Prove the hold: freeing the pool the kernel could touch is refused. */
		gnio_error_t fe = gnio_gpu_mem_free(p.gpu, p.rx_mem);
		rb_step(&log, "check: free the RX pool while the kernel is hung", fe, "program",
			fe == GNIO_ERROR_BAD_STATE ? "refused, as it must be" : "NOT refused: fail-closed is broken");
		if (fe != GNIO_ERROR_BAD_STATE)
			rb = GNIO_ERROR_UNEXPECTED;
		/* Release the simulated hang so this process can exit cleanly, and
		 * resume the rollback from step 1, as an operator would once the
		 * kernel is confirmed finished. */
		__atomic_store_n(&hang_release, 1, __ATOMIC_RELEASE);
		gnio_error_t r2 = pipe_rollback(&p, deadline, 1, rb_step, &log);
		rb_step(&log, "resume rollback after the kernel finished", r2, "program", "");
	}
	if (as_json) {
		json_arr_end(&j);
		json_str(&j, "result", gnio_error_get_name(err ? err : rb));
		json_bool(&j, "fail_closed", fail_closed);
		json_obj_end(&j);
		json_finish(&j);
	} else {
		printf("result: %s%s\n", gnio_error_get_name(err ? err : rb),
		       fail_closed ? " (failed closed on the hung kernel, as designed)" : "");
	}
	if (err)
		return exit_code_for(err) == GNIO_EXIT_OK ? GNIO_EXIT_FAIL : exit_code_for(err);
	return rb ? GNIO_EXIT_FAIL : GNIO_EXIT_OK;
}
