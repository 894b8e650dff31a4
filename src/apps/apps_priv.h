/* SPDX-License-Identifier: MIT */
/* src/apps/apps_priv.h - the bodies behind the app table (private). */
#ifndef GNIO_SRC_APPS_APPS_PRIV_H
#define GNIO_SRC_APPS_APPS_PRIV_H

#include "gnio/apps/apps.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults the bodies use when the args leave a value 0. */
#define GNIO_APP_DEF_TIMEOUT_NS 100000ull /* 100 us: the stop flag is seen within that */
#define GNIO_APP_DEF_THREADS 256u

/* CPU bodies (apps_cpu.c) */
gnio_error_t gnio_app_count_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_classify_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_touch_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_echo_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_echo_copy_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_fwd_cpu(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_verify_cpu(const struct gnio_runner_launch *l);
#ifdef GNIO_HAVE_CUDA
/* CUDA launchers (apps_cuda.cu) */
gnio_error_t gnio_app_count_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_classify_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_touch_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_echo_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_echo_copy_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_fwd_cuda(const struct gnio_runner_launch *l);
gnio_error_t gnio_app_verify_cuda(const struct gnio_runner_launch *l);
#endif

#ifdef __cplusplus
}
#endif

#endif
