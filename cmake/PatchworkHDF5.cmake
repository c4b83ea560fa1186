# Parallel HDF5 for the dumps (MPI-IO). Debian installs the serial and the Open MPI
# flavours side by side (/usr/include/hdf5/{serial,openmpi}); ask FindHDF5 for the parallel
# one and refuse a serial library, since every rank writes to one file.
enable_language(C)  # FindHDF5 test-compiles a C program
set(HDF5_PREFER_PARALLEL ON)
if(NOT HDF5_ROOT AND NOT DEFINED ENV{HDF5_ROOT}
   AND EXISTS /usr/lib/x86_64-linux-gnu/hdf5/openmpi/libhdf5.so)
  # Debian's wrapper h5pcc may point at the serial flavour through alternatives.
  find_program(HDF5_C_COMPILER_EXECUTABLE NAMES h5pcc.openmpi h5pcc)
endif()
find_package(HDF5 REQUIRED COMPONENTS C)
# 1.10.2: the first to name the 1.8 file format as a bound (H5F_LIBVER_V18, the dumps' format).
# FindHDF5 may not tell the version (a library found without its wrapper): then the
# compile of H5Pset_libver_bounds(..., H5F_LIBVER_V18, ...) is the check.
if(NOT HDF5_VERSION)
  message(WARNING "HDF5's version is unknown: Patchwork needs 1.10.2 or later")
elseif(HDF5_VERSION VERSION_LESS 1.10.2)
  message(FATAL_ERROR "Patchwork needs HDF5 1.10.2 or later, found ${HDF5_VERSION}")
endif()
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "Patchwork needs a parallel (MPI) HDF5, found a serial one in "
    "${HDF5_INCLUDE_DIRS}; on Debian install libhdf5-openmpi-dev or set HDF5_ROOT")
endif()
if(HDF5_VERSION)
  message(STATUS "Parallel HDF5 ${HDF5_VERSION}: ${HDF5_C_LIBRARIES}")
else()
  message(STATUS "Parallel HDF5 (version unknown): ${HDF5_C_LIBRARIES}")
endif()
