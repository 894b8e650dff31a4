/* SPDX-License-Identifier: MIT */
/* src/apps/apps.c - the table of built-in apps. */
#include <string.h>
#include "apps/apps_priv.h"
#include "core/errmsg.h"

#ifdef GNIO_HAVE_CUDA
#define CUDA_FN(f) f
#else
#define CUDA_FN(f) NULL
#endif

static const struct gnio_app app_count = {
	.name = "count",
	.summary = "count frames and bytes",
	.cpu = gnio_app_count_cpu,
	.cuda = CUDA_FN(gnio_app_count_cuda),
};
static const struct gnio_app app_classify = {
	.name = "classify",
	.summary = "count frames per protocol (arp, icmp, dns, udp, http, tcp, ...)",
	.cpu = gnio_app_classify_cpu,
	.cuda = CUDA_FN(gnio_app_classify_cuda),
};
static const struct gnio_app app_touch = {
	.name = "touch",
	.summary = "read every payload byte (XOR digest): what the kernel really pulls from the pool",
	.cpu = gnio_app_touch_cpu,
	.cuda = CUDA_FN(gnio_app_touch_cuda),
};
static const struct gnio_app app_echo = {
	.name = "echo",
	.summary = "send every frame back with MAC addresses swapped, in place, as soon as it arrives",
	.needs_tx = 1,
	.tx_in_place = 1,
	.cpu = gnio_app_echo_cpu,
	.cuda = CUDA_FN(gnio_app_echo_cuda),
};
static const struct gnio_app app_echo_copy = {
	.name = "echo-copy",
	.summary = "echo, copying each frame into the TX pool first (to compare with in-place echo)",
	.needs_tx = 1,
	.needs_tx_pool = 1,
	.cpu = gnio_app_echo_copy_cpu,
	.cuda = CUDA_FN(gnio_app_echo_copy_cuda),
};
static const struct gnio_app app_fwd = {
	.name = "fwd",
	.summary = "l2fwd: swap MAC addresses and send each batch back out in place",
	.needs_tx = 1,
	.tx_in_place = 1,
	.cpu = gnio_app_fwd_cpu,
	.cuda = CUDA_FN(gnio_app_fwd_cuda),
};

static const struct gnio_app app_verify = {
	.name = "verify",
	.summary = "check every frame is intact generator output, in sequence; optionally hold each batch "
		   "(a slow consumer) and check it again",
	.cpu = gnio_app_verify_cpu,
	.cuda = CUDA_FN(gnio_app_verify_cuda),
};

static const struct gnio_app *const apps[] = {&app_count, &app_classify, &app_touch, &app_echo,
					      &app_echo_copy, &app_fwd, &app_verify, NULL};

const struct gnio_app *gnio_app_find(const char *name)
{
	gnio_api_enter();
	for (int i = 0; name && apps[i]; i++)
		if (!strcmp(apps[i]->name, name))
			return apps[i];
	return NULL;
}

const struct gnio_app *const *gnio_app_list(void) { return apps; }

gnio_runner_launch_fn gnio_app_launcher(const struct gnio_app *app, int on_cpu)
{
	if (!app)
		return NULL;
	return on_cpu ? app->cpu : app->cuda;
}
