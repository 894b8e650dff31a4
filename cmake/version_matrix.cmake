# cmake/version_matrix.cmake - generate share/gnio/version-matrix.json from the
# "@since" tags in include/gnio (scripts/gen-version-matrix.py), at build
# time, whenever a public header changes. Include it after the gnio_cli target
# is defined: include(cmake/version_matrix.cmake)
include(GNUInstallDirs)
find_package(Python3 COMPONENTS Interpreter)
file(GLOB_RECURSE GNIO_PUBLIC_HEADERS CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/include/gnio/*.h ${CMAKE_SOURCE_DIR}/include/gnio/*.cuh)
set(GNIO_VERSION_MATRIX ${CMAKE_BINARY_DIR}/share/gnio/version-matrix.json)

if(Python3_Interpreter_FOUND)
  add_custom_command(
    OUTPUT ${GNIO_VERSION_MATRIX}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/gen-version-matrix.py
            --include ${CMAKE_SOURCE_DIR}/include/gnio --version ${PROJECT_VERSION}
            --out ${GNIO_VERSION_MATRIX}
    DEPENDS ${GNIO_PUBLIC_HEADERS} ${CMAKE_SOURCE_DIR}/scripts/gen-version-matrix.py
    COMMENT "Generating share/gnio/version-matrix.json from @since tags"
    VERBATIM)
  add_custom_target(gnio_version_matrix ALL DEPENDS ${GNIO_VERSION_MATRIX})
  if(TARGET gnio_cli)
    add_dependencies(gnio_cli gnio_version_matrix)
    # The CLI looks here first, so a build tree answers without installing.
    target_compile_definitions(gnio_cli PRIVATE GNIO_BUILD_SHARE_DIR="${CMAKE_BINARY_DIR}/share/gnio")
  endif()
  install(FILES ${GNIO_VERSION_MATRIX} DESTINATION ${CMAKE_INSTALL_DATADIR}/gnio)
else()
  message(WARNING "python3 not found: share/gnio/version-matrix.json will not be generated "
                  "and `gnio version-matrix` will report it missing")
endif()
