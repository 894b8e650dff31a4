/* SPDX-License-Identifier: MIT */
/* tools/gnio/commands.h - the gnio CLI's verbs. Each verb lives in its own
 * file tools/gnio/cmd_<verb>.c and defines the function below; main.c holds
 * the table. A verb not built yet resolves to NULL (weak) and says so.
 * Exit codes for every verb: 0 success/green, 1 failure, 2 usage error,
 * 3 environment problem (missing device, privilege), 77 skipped. */
#ifndef GNIO_TOOLS_COMMANDS_H
#define GNIO_TOOLS_COMMANDS_H

#define GNIO_EXIT_OK 0
#define GNIO_EXIT_FAIL 1
#define GNIO_EXIT_USAGE 2
#define GNIO_EXIT_ENV 3
#define GNIO_EXIT_SKIP 77

/* The exit code for a library error, the same in every verb: usage for a
 * bad value, environment for what the machine lacks (device, interface,
 * privilege, memory, a busy resource), failure otherwise. */
int gnio_cli_exit(int gnio_error);

typedef int (*gnio_cmd_fn)(int argc, char **argv);

#define GNIO_CMD_DECL(name) int name(int argc, char **argv) __attribute__((weak))
GNIO_CMD_DECL(gnio_cmd_run);
GNIO_CMD_DECL(gnio_cmd_gen);
GNIO_CMD_DECL(gnio_cmd_sink);
GNIO_CMD_DECL(gnio_cmd_env);
GNIO_CMD_DECL(gnio_cmd_caps);
GNIO_CMD_DECL(gnio_cmd_version_matrix);
GNIO_CMD_DECL(gnio_cmd_configure);
GNIO_CMD_DECL(gnio_cmd_test);
GNIO_CMD_DECL(gnio_cmd_debug);
GNIO_CMD_DECL(gnio_cmd_rollback);
GNIO_CMD_DECL(gnio_cmd_version);
GNIO_CMD_DECL(gnio_cmd_flow);

#endif
