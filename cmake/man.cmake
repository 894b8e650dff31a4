# cmake/man.cmake - man pages from docs/man/NAME.SECTION.scd with scdoc, at
# build time, into <build>/man/NAME.SECTION; installed under share/man/manSECTION.
# @GNIO_VERSION@ in a source becomes the project version. Without scdoc the
# pages are skipped with a note (scripts/bootstrap installs it).
include(GNUInstallDirs)
find_program(GNIO_SCDOC scdoc)
file(GLOB GNIO_MAN_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/man/*.scd)

if(GNIO_SCDOC)
  set(GNIO_VERSION ${PROJECT_VERSION})
  set(GNIO_MAN_PAGES "")
  foreach(src ${GNIO_MAN_SOURCES})
    get_filename_component(fname ${src} NAME)          # gnio-run.1.scd
    string(REGEX REPLACE "\\.scd$" "" page ${fname})     # gnio-run.1
    string(REGEX MATCH "[0-9]$" section ${page})
    if(NOT section)
      message(FATAL_ERROR "docs/man/${fname}: name it NAME.SECTION.scd (e.g. gnio-run.1.scd)")
    endif()
    set(configured ${CMAKE_BINARY_DIR}/man/${fname})
    set(out ${CMAKE_BINARY_DIR}/man/${page})
    configure_file(${src} ${configured} @ONLY)
    # Written to a temporary first so a failed scdoc leaves no stale page.
    add_custom_command(
      OUTPUT ${out}
      COMMAND sh -c "\"$0\" < \"$1\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"" ${GNIO_SCDOC} ${configured} ${out}
      DEPENDS ${configured}
      COMMENT "scdoc: man/${page}"
      VERBATIM)
    list(APPEND GNIO_MAN_PAGES ${out})
    install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endforeach()
  add_custom_target(gnio_man ALL DEPENDS ${GNIO_MAN_PAGES})
else()
  message(STATUS "scdoc not found: man pages are not built (apt-get install scdoc)")
endif()
