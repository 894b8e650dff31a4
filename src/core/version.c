/* SPDX-License-Identifier: MIT */
#include "gnio/version.h"

const char *gnio_version(void) { return GNIO_VERSION_STRING; }

int gnio_check_version(int major, int minor)
{
	if (GNIO_VERSION_MAJOR != major)
		return GNIO_VERSION_MAJOR > major;
	return GNIO_VERSION_MINOR >= minor;
}

int gnio_built_with_cuda(void)
{
#ifdef GNIO_HAVE_CUDA
	return 1;
#else
	return 0;
#endif
}

const char *gnio_cuda_architectures(void)
{
#ifdef GNIO_CUDA_ARCHS
	return GNIO_CUDA_ARCHS;
#else
	return "";
#endif
}

int gnio_cuda_min_compute_capability(void)
{
#ifdef GNIO_CUDA_MIN_CC
	return GNIO_CUDA_MIN_CC;
#else
	return 0;
#endif
}
