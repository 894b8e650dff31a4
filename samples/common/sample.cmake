# samples/common/sample.cmake - how a gnio sample is built: in the gnio tree
# (GNIO_SAMPLES_IN_TREE: linked with the static library, gnio's warnings) or
# on its own against an installed gnio, found with find_package(gnio).
#
#   gnio_sample(NAME SOURCES a.c b.c CUDA k.cu)
#
# builds the program gnio_NAME from the C sources and common/*.c, and from
# the CUDA sources too when gnio was built with CUDA and a CUDA compiler is
# found; the program then has GNIO_SAMPLE_HAVE_CUDA defined and runs its
# CUDA kernel on a GPU (its CPU-device body runs with -g cpu either way).
#
# CUDA settings come from the installed gnio (gnioConfig.cmake):
# GNIO_CUDA_ARCHITECTURES (used when CMAKE_CUDA_ARCHITECTURES is not set),
# GNIO_CUDA_STANDARD (17). The CUDA runtime is linked statically
# (CMAKE_CUDA_RUNTIME_LIBRARY, default Static; Shared works as well:
# docs/building.md).
get_filename_component(GNIO_SAMPLE_COMMON_DIR "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)

if(NOT GNIO_SAMPLES_IN_TREE)
  find_package(gnio REQUIRED)
  find_package(Threads REQUIRED)
  set(GNIO_SAMPLE_CUDA OFF)
  if(GNIO_WITH_CUDA)
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
        set(CMAKE_CUDA_ARCHITECTURES "${GNIO_CUDA_ARCHITECTURES}")
      endif()
      if(NOT DEFINED CMAKE_CUDA_RUNTIME_LIBRARY)
        set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
      endif()
      enable_language(CUDA)
      set(GNIO_SAMPLE_CUDA ON)
    else()
      message(STATUS "gnio sample: no CUDA compiler found: building the CPU-device body only (run with -g cpu)")
    endif()
  else()
    message(STATUS "gnio sample: the installed gnio has no CUDA backend: building the CPU-device body only")
  endif()
endif()

function(gnio_sample name)
  cmake_parse_arguments(S "" "" "SOURCES;CUDA" ${ARGN})
  file(GLOB _common CONFIGURE_DEPENDS "${GNIO_SAMPLE_COMMON_DIR}/*.c")
  set(tgt gnio_${name})
  add_executable(${tgt} ${S_SOURCES} ${_common})
  target_include_directories(${tgt} PRIVATE "${GNIO_SAMPLE_COMMON_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
  target_compile_definitions(${tgt} PRIVATE _GNU_SOURCE)
  set_target_properties(${tgt} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
  if(GNIO_SAMPLE_CUDA AND S_CUDA)
    target_sources(${tgt} PRIVATE ${S_CUDA})
    target_compile_definitions(${tgt} PRIVATE GNIO_SAMPLE_HAVE_CUDA=1)
    set(_std 17)
    if(GNIO_CUDA_STANDARD)
      set(_std ${GNIO_CUDA_STANDARD})
    endif()
    set_target_properties(${tgt} PROPERTIES CUDA_STANDARD ${_std} CUDA_STANDARD_REQUIRED ON)
  endif()
  if(GNIO_SAMPLES_IN_TREE)
    target_link_libraries(${tgt} PRIVATE gnio_apps m)
    target_compile_options(${tgt} PRIVATE $<$<COMPILE_LANGUAGE:C>:${GNIO_WARN}>
                                          $<$<COMPILE_LANGUAGE:CUDA>:${GNIO_CUDA_WARN}>)
  else()
    target_link_libraries(${tgt} PRIVATE gnio::gnio Threads::Threads m)
  endif()
endfunction()
