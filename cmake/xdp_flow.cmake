# cmake/xdp_flow.cmake - the flow programs in the kernel
# (src/flow/xdp_flow.bpf.c: the afxdp wire's XDP program and the afpacket
# wire's socket filter), compiled with clang -target bpf at build time and
# embedded in the library (a generated C array), so no object file has to be
# found at run time. Built when the afxdp wire is and clang and the libbpf
# headers are found; otherwise the afxdp wire loads its plain redirect program
# and flow rules that need the XDP program (kernel) are NOT_SUPPORTED there,
# and on afpacket the proxies classify every frame.
# Adds to GNIO_WIRE_SOURCES / GNIO_WIRE_DEFS (GNIO_HAVE_XDP_FLOW=1) and
# defines the target gnio_xdp_flow_obj that the library targets depend on.

set(GNIO_XDP_FLOW OFF)
if(GNIO_WITH_AFXDP)
  find_program(GNIO_CLANG NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
  find_path(GNIO_BPF_HELPERS_DIR bpf/bpf_helpers.h)
  if(GNIO_CLANG AND GNIO_BPF_HELPERS_DIR)
    set(GNIO_XDP_FLOW ON)
  endif()
endif()

if(GNIO_XDP_FLOW)
  set(_obj ${CMAKE_BINARY_DIR}/xdp_flow.bpf.o)
  set(_gen ${CMAKE_BINARY_DIR}/xdp_flow_obj.c)
  set(_inc -I${CMAKE_SOURCE_DIR}/src -I${GNIO_BPF_HELPERS_DIR})
  if(CMAKE_LIBRARY_ARCHITECTURE)
    # asm/types.h lives in the multiarch directory, which -target bpf does not search
    list(APPEND _inc -I/usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
  endif()
  add_custom_command(OUTPUT ${_obj}
    COMMAND ${GNIO_CLANG} -O2 -g -target bpf -Wall -Werror ${_inc}
            -c ${CMAKE_SOURCE_DIR}/src/flow/xdp_flow.bpf.c -o ${_obj}
    DEPENDS ${CMAKE_SOURCE_DIR}/src/flow/xdp_flow.bpf.c ${CMAKE_SOURCE_DIR}/src/flow/flow_key.h
    COMMENT "Compiling the XDP flow program (clang -target bpf)"
    VERBATIM)
  add_custom_command(OUTPUT ${_gen}
    COMMAND ${CMAKE_COMMAND} -DIN=${_obj} -DOUT=${_gen} -DNAME=gnio_xdp_flow_obj
            -P ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${_obj} ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding the XDP flow program"
    VERBATIM)
  add_custom_target(gnio_xdp_flow_obj DEPENDS ${_gen})
  list(APPEND GNIO_WIRE_SOURCES ${_gen})
  list(APPEND GNIO_WIRE_DEFS GNIO_HAVE_XDP_FLOW=1)
  execute_process(COMMAND ${GNIO_CLANG} --version OUTPUT_VARIABLE _v ERROR_QUIET)
  string(REGEX MATCH "version [0-9.]+" _v "${_v}")
  message(STATUS "gnio: XDP flow program ON (${GNIO_CLANG} ${_v})")
elseif(GNIO_WITH_AFXDP)
  message(STATUS "gnio: XDP flow program OFF (clang or bpf/bpf_helpers.h not found: apt-get install clang "
                 "libbpf-dev); afxdp loads its plain redirect program and flow 'kernel' rules are not supported there")
else()
  message(STATUS "gnio: XDP flow program OFF (no afxdp wire)")
endif()
