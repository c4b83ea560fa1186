# Finds Kokkos and makes sure its target Kokkos::kokkos carries a valid include directory.
# A standalone Kokkos (-DKokkos_ROOT=...) exports a correct target. Debian's Trilinos build
# computes the include directory one level too high in the library tree (a folder that does
# not exist); the headers are in the trilinos subfolder of the system include directory, so
# we find the header and reset the target's include directories.
find_package(Kokkos REQUIRED)
get_target_property(_pw_kokkos_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
set(_pw_kokkos_ok FALSE)
foreach(dir IN LISTS _pw_kokkos_inc)
  if(EXISTS "${dir}/Kokkos_Core.hpp")
    set(_pw_kokkos_ok TRUE)
  endif()
endforeach()
if(NOT _pw_kokkos_ok)
  find_path(PATCHWORK_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
    HINTS ${Kokkos_INCLUDE_DIRS} ${Kokkos_INSTALL_DIR}/include
    PATH_SUFFIXES trilinos REQUIRED)
  set_target_properties(Kokkos::kokkos PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${PATCHWORK_KOKKOS_INCLUDE_DIR}")
  message(STATUS "Kokkos headers: ${PATCHWORK_KOKKOS_INCLUDE_DIR} (include directory corrected)")
endif()
message(STATUS "Kokkos devices: ${Kokkos_DEVICES}")
# Whether Kokkos runs on a device (its default space is not host memory): the tests and
# the host instruction set ask.
set(PATCHWORK_KOKKOS_DEVICE FALSE)
foreach(device CUDA HIP SYCL OPENMPTARGET OPENACC)
  if(device IN_LIST Kokkos_DEVICES)
    set(PATCHWORK_KOKKOS_DEVICE TRUE)
  endif()
endforeach()

# The chosen Kokkos's version as its KOKKOS_VERSION macro spells it (major * 10000 +
# minor * 100 + patch), read from its KokkosCore_config.h.
function(_pw_kokkos_version_in dir out)
  set(${out} "" PARENT_SCOPE)
  if(EXISTS "${dir}/KokkosCore_config.h" AND EXISTS "${dir}/Kokkos_Core.hpp")
    file(STRINGS "${dir}/KokkosCore_config.h" line REGEX "^#define KOKKOS_VERSION [0-9]+")
    string(REGEX MATCH "[0-9]+$" version "${line}")
    set(${out} "${version}" PARENT_SCOPE)
  endif()
endfunction()

get_target_property(PATCHWORK_KOKKOS_INCLUDE_DIRS Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
set(PATCHWORK_KOKKOS_VERSION "")
foreach(dir IN LISTS PATCHWORK_KOKKOS_INCLUDE_DIRS)
  _pw_kokkos_version_in("${dir}" version)
  if(version AND NOT PATCHWORK_KOKKOS_VERSION)
    set(PATCHWORK_KOKKOS_VERSION ${version})
  endif()
endforeach()
if(NOT PATCHWORK_KOKKOS_VERSION)
  message(FATAL_ERROR "No KokkosCore_config.h with KOKKOS_VERSION in the chosen Kokkos's "
    "include directories (${PATCHWORK_KOKKOS_INCLUDE_DIRS})")
endif()
message(STATUS "Kokkos ${Kokkos_VERSION} (KOKKOS_VERSION ${PATCHWORK_KOKKOS_VERSION}), "
  "headers: ${PATCHWORK_KOKKOS_INCLUDE_DIRS}")

# pw_third_party_headers(TARGET DIR...): an imported interface target carrying a
# third-party include directory. A folder that also holds the headers of another Kokkos
# (Debian's /usr/include/trilinos holds Zoltan and Kokkos 3.4 side by side) must not come
# before the chosen Kokkos on any include path: it goes last, after the system folders
# (-idirafter), so only the headers found nowhere else (Zoltan's) are read from it.
function(pw_third_party_headers target)
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  foreach(dir IN LISTS ARGN)
    _pw_kokkos_version_in("${dir}" version)
    if(NOT version OR dir IN_LIST PATCHWORK_KOKKOS_INCLUDE_DIRS)
      set_property(TARGET ${target} APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${dir}")
    else()
      message(STATUS "${target}: ${dir} also holds Kokkos headers (KOKKOS_VERSION "
        "${version}); searched last (-idirafter) so that Kokkos "
        "${PATCHWORK_KOKKOS_VERSION} is the one compiled against")
      set_property(TARGET ${target} APPEND PROPERTY INTERFACE_COMPILE_OPTIONS
        "SHELL:-idirafter \"${dir}\"")
    endif()
  endforeach()
endfunction()

# pw_third_party(TARGET...): registers imported third-party targets for the check below
# (made global so that the top level sees those found in subdirectories).
function(pw_third_party)
  foreach(target IN LISTS ARGN)
    get_target_property(global ${target} IMPORTED_GLOBAL)
    if(NOT global)
      set_property(TARGET ${target} PROPERTY IMPORTED_GLOBAL TRUE)
    endif()
    set_property(GLOBAL APPEND PROPERTY PATCHWORK_THIRD_PARTY ${target})
  endforeach()
endfunction()

# pw_check_one_kokkos(): fails the configure when the registered third-party targets let
# a compiler see another Kokkos than the chosen one. A test program that checks
# KOKKOS_VERSION is compiled with their usage requirements placed before Kokkos's own, the
# worst order a target of the project could link them in.
function(pw_check_one_kokkos)
  get_property(targets GLOBAL PROPERTY PATCHWORK_THIRD_PARTY)
  list(REMOVE_DUPLICATES targets)
  set(source "${CMAKE_BINARY_DIR}/CMakeFiles/pw_one_kokkos.cpp")
  file(WRITE "${source}" "#include <Kokkos_Core.hpp>\n"
    "static_assert(KOKKOS_VERSION == ${PATCHWORK_KOKKOS_VERSION}, \"another Kokkos\");\n")
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  try_compile(ok "${CMAKE_BINARY_DIR}/CMakeFiles/pw_one_kokkos" SOURCES "${source}"
    LINK_LIBRARIES ${targets} Kokkos::kokkos
    CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON OUTPUT_VARIABLE log)
  if(NOT ok)
    string(REGEX MATCHALL "[^\n]*error[^\n]*" errors "${log}")
    list(JOIN errors "\n" errors)
    set(culprits "")
    foreach(target IN LISTS targets)
      get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
      foreach(dir IN LISTS dirs)
        _pw_kokkos_version_in("${dir}" version)
        if(version AND NOT dir IN_LIST PATCHWORK_KOKKOS_INCLUDE_DIRS)
          string(APPEND culprits "\n  ${target}: ${dir} (KOKKOS_VERSION ${version})")
        endif()
      endforeach()
    endforeach()
    message(FATAL_ERROR "Two Kokkos versions: the chosen one (KOKKOS_VERSION "
      "${PATCHWORK_KOKKOS_VERSION}, ${PATCHWORK_KOKKOS_INCLUDE_DIRS}) is shadowed by the "
      "Kokkos headers in a third-party include directory:${culprits}\nInstall that "
      "package apart from the other Kokkos, or pass its folder through "
      "pw_third_party_headers(). The test compile said:\n${errors}")
  endif()
  message(STATUS "One Kokkos on every include path (KOKKOS_VERSION "
    "${PATCHWORK_KOKKOS_VERSION})")
endfunction()

# pw_kokkos_version_check(TARGET...): the same check on the targets' own compile lines, so
# that an include directory added some other way (a plain -I) cannot bring another Kokkos
# unnoticed either: each target compiles a file that stops the build when the Kokkos it
# sees is not the chosen one.
function(pw_kokkos_version_check)
  set(source "${CMAKE_BINARY_DIR}/pw_kokkos_version_check.cpp")
  file(CONFIGURE OUTPUT "${source}" @ONLY CONTENT [[
// Generated by cmake/PatchworkKokkos.cmake: fails when this target sees another Kokkos.
#include <Kokkos_Macros.hpp>
#define PW_STR2(x) #x
#define PW_STR(x) PW_STR2(x)
static_assert(KOKKOS_VERSION == @PATCHWORK_KOKKOS_VERSION@,
              "this target compiles against Kokkos " PW_STR(KOKKOS_VERSION)
              ", the configure chose @PATCHWORK_KOKKOS_VERSION@: a third-party include "
              "directory shadows the chosen Kokkos (see cmake/PatchworkKokkos.cmake)");
]])
  foreach(target IN LISTS ARGN)
    target_sources(${target} PRIVATE "${source}")
  endforeach()
endfunction()
