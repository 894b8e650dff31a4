# samples/common/sample.mk - build a gnio sample against an installed gnio
# with pkg-config and GNU make. A sample's Makefile sets SAMPLE and includes
# this file; then, in the sample's folder:
#
#   make                    gnio_$(SAMPLE), with its CUDA kernel when the
#                           installed gnio was built with CUDA and nvcc is
#                           found (else the CPU-device body only: run -g cpu)
#   make CUDA=0             without the CUDA kernel
#   make NVCC=/path/to/nvcc CUDAFLAGS='-arch=sm_80'   another compiler or GPU
#
# When gnio is not installed where pkg-config looks by default:
#   PKG_CONFIG_PATH=<prefix>/lib/pkgconfig make
# Every flag comes from gnio.pc (docs/building.md): --cflags/--libs, and the
# variables cuda (yes|no), nvcc and cudaflags.

PKG_CONFIG ?= pkg-config
COMMON_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
OBJ_DIR := obj

ifneq ($(MAKECMDGOALS),clean)
ifeq ($(shell $(PKG_CONFIG) --exists gnio && echo yes),)
$(error pkg-config cannot find gnio: set PKG_CONFIG_PATH=<gnio prefix>/lib/pkgconfig)
endif
GNIO_CFLAGS := $(shell $(PKG_CONFIG) --cflags gnio)
GNIO_LIBS := $(shell $(PKG_CONFIG) --libs gnio)
GNIO_LIBDIR := $(shell $(PKG_CONFIG) --variable=libdir gnio)
GNIO_HAS_CUDA := $(shell $(PKG_CONFIG) --variable=cuda gnio)
NVCC ?= $(shell $(PKG_CONFIG) --variable=nvcc gnio)
CUDAFLAGS ?= $(shell $(PKG_CONFIG) --variable=cudaflags gnio)
endif
ifeq ($(origin CUDA),undefined)
CUDA := $(if $(and $(filter yes,$(GNIO_HAS_CUDA)),$(shell command -v $(NVCC) 2>/dev/null)),1,0)
endif

CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 -Wall -Wextra -I. -I$(COMMON_DIR) $(GNIO_CFLAGS) $(CFLAGS)
C_SRCS := $(wildcard *.c) $(wildcard $(COMMON_DIR)/*.c)
CU_SRCS := $(if $(filter 1,$(CUDA)),$(wildcard *.cu))
OBJS := $(addprefix $(OBJ_DIR)/,$(notdir $(C_SRCS:.c=.o) $(CU_SRCS:.cu=.o)))
vpath %.c . $(COMMON_DIR)

ifeq ($(CUDA),1)
ALL_CFLAGS += -DGNIO_SAMPLE_HAVE_CUDA=1
# nvcc links the CUDA runtime (static by default: -cudart=static).
LINK = $(NVCC) $(CUDAFLAGS) -o $@ $(OBJS) $(GNIO_LIBS) -Xlinker -rpath=$(GNIO_LIBDIR) $(LDFLAGS) -lpthread -lm
else
LINK = $(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(GNIO_LIBS) -Wl,-rpath,$(GNIO_LIBDIR) $(LDFLAGS) -lpthread -lm
endif

gnio_$(SAMPLE): $(OBJS)
	$(LINK)

$(OBJ_DIR)/%.o: %.c | $(OBJ_DIR)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OBJ_DIR)/%.o: %.cu | $(OBJ_DIR)
	$(NVCC) $(CUDAFLAGS) $(GNIO_CFLAGS) -I. -I$(COMMON_DIR) -c $< -o $@

$(OBJ_DIR):
	mkdir -p $@

clean:
	rm -rf $(OBJ_DIR) gnio_$(SAMPLE)

.PHONY: clean
