/* SPDX-License-Identifier: MIT */
/* tools/gnio/main.c - the gnio command: a table of verbs. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "gnio/gnio.h"

struct verb {
	const char *name;
	gnio_cmd_fn *fn; /* address of the weak symbol: NULL when not built */
	const char *summary;
};

static gnio_cmd_fn run_fn, gen_fn, sink_fn, env_fn, caps_fn, vm_fn, cfg_fn, test_fn, dbg_fn, rb_fn, flow_fn;

static const struct verb verbs[] = {
	{"run", &run_fn, "run the main job: a persistent kernel on a wire, with live stats"},
	{"gen", &gen_fn, "generate frames onto a wire"},
	{"sink", &sink_fn, "receive and count frames from a wire"},
	{"env", &env_fn, "one-shot environment probe"},
	{"caps", &caps_fn, "dual (wire x device) capability snapshot"},
	{"flow", &flow_fn, "check steering rules; classify a capture with them"},
	{"version-matrix", &vm_fn, "look up which version introduced a capability"},
	{"configure", &cfg_fn, "check preconditions and walk the bring-up"},
	{"test", &test_fn, "the test loop: smoke, burst, tx_smoke, multi_gpu, negative"},
	{"debug", &dbg_fn, "find the failing layer; capture and compare evidence"},
	{"rollback", &rb_fn, "explain and exercise the safe teardown sequence"},
};

int gnio_cli_exit(int err)
{
	switch ((gnio_error_t)err) {
	case GNIO_SUCCESS:
		return GNIO_EXIT_OK;
	case GNIO_ERROR_INVALID_VALUE:
		return GNIO_EXIT_USAGE;
	case GNIO_ERROR_NOT_FOUND:
	case GNIO_ERROR_NOT_PERMITTED:
	case GNIO_ERROR_NOT_SUPPORTED:
	case GNIO_ERROR_NO_MEMORY:
	case GNIO_ERROR_IN_USE:
	case GNIO_ERROR_DRIVER:
	case GNIO_ERROR_BAD_STATE:
		return GNIO_EXIT_ENV;
	default:
		return GNIO_EXIT_FAIL;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio <verb> [options]    (gnio <verb> --help for details)\n\nverbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-15s %s%s\n", verbs[i].name, verbs[i].summary,
			*verbs[i].fn ? "" : " (not built)");
	fprintf(f, "  %-15s %s\n", "version", "print the gnio version");
	fprintf(f, "\nWith no verb, `gnio` is `gnio run`.\n");
}

int main(int argc, char **argv)
{
	run_fn = gnio_cmd_run;
	gen_fn = gnio_cmd_gen;
	sink_fn = gnio_cmd_sink;
	env_fn = gnio_cmd_env;
	caps_fn = gnio_cmd_caps;
	vm_fn = gnio_cmd_version_matrix;
	cfg_fn = gnio_cmd_configure;
	test_fn = gnio_cmd_test;
	dbg_fn = gnio_cmd_debug;
	rb_fn = gnio_cmd_rollback;
	flow_fn = gnio_cmd_flow;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			usage(stdout);
			return GNIO_EXIT_OK;
		}
		if (argc >= 2 && !strcmp(argv[1], "--version")) {
			printf("gnio %s\n", gnio_version());
			return GNIO_EXIT_OK;
		}
		if (!run_fn) {
			usage(stderr);
			return GNIO_EXIT_USAGE;
		}
		return run_fn(argc, argv); /* argv[0] stands in for the verb */
	}
	if (!strcmp(argv[1], "version")) {
		printf("gnio %s (%s)\n", gnio_version(), gnio_built_with_cuda() ? "with CUDA" : "without CUDA");
		return GNIO_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		usage(stdout);
		return GNIO_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(argv[1], verbs[i].name))
			continue;
		if (!*verbs[i].fn) {
			fprintf(stderr, "gnio: verb '%s' is not built into this gnio\n", argv[1]);
			return GNIO_EXIT_USAGE;
		}
		return (*verbs[i].fn)(argc - 1, argv + 1);
	}
	fprintf(stderr, "gnio: unknown verb '%s' (try gnio --help)\n", argv[1]);
	return GNIO_EXIT_USAGE;
}
