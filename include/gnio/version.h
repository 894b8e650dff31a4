/* SPDX-License-Identifier: MIT */
/* gnio/version.h - compile-time and run-time version of the library. */
#ifndef GNIO_VERSION_H
#define GNIO_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define GNIO_VERSION_MAJOR 0
#define GNIO_VERSION_MINOR 2
#define GNIO_VERSION_PATCH 0
#define GNIO_VERSION_STRING "0.2.0"

/* Version of the library actually loaded, e.g. "0.2.0". */
/* @since 0.1 version_query: Run-time library version query */
const char *gnio_version(void);
/* 1 when the loaded library is at least major.minor, else 0. */
/* @since 0.1 version_check: Run-time minimum-version check */
int gnio_check_version(int major, int minor);
/* 1 when this build of libgnio contains the CUDA backend. */
int gnio_built_with_cuda(void);
/* The CUDA architectures this build carries code for, as CMake names them
 * ("75-real,80-real,...,90-virtual"); "" without the CUDA backend. */
/* @since 0.2 cuda_archs: Build reports the GPU architectures it carries code for */
const char *gnio_cuda_architectures(void);
/* The lowest compute capability times ten (75 for 7.5) this build runs on;
 * gnio_gpu_create refuses older GPUs with NOT_SUPPORTED. 0 without CUDA. */
/* @since 0.2 cuda_min_cc: Build reports the oldest GPU it runs on; older ones refused at create */
int gnio_cuda_min_compute_capability(void);

#ifdef __cplusplus
}
#endif

#endif /* GNIO_VERSION_H */
