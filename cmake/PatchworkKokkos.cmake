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
