# The kernels are compiled for the build machine's vector instructions (-march=native):
# the CTU update's selects and loops over rows vectorize 4 or 8 doubles wide instead of
# x86-64's 2. Left out where the chosen Kokkos already names an architecture (its own
# flags then hold), for a device backend, when cross-compiling, for compilers other than
# GCC and Clang, and with -DPATCHWORK_NATIVE_ARCH=OFF: a binary built on one machine may
# stop with "illegal instruction" on another with fewer vector instructions.
#
# No multiply and add are fused into one rounding (-ffp-contract=off; GCC fuses by
# default where the target has FMA): every GCC or Clang host build computes the same bits
# whatever the instructions, which the fingerprint tests compare.
include(CheckCXXCompilerFlag)
include(CheckCXXSourceRuns)
include(CMakePushCheckState)

option(PATCHWORK_NATIVE_ARCH "Compile for the build machine's instruction set" ON)
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  message(STATUS "Host instruction set: the compiler's default (not GCC or Clang)")
  return()
endif()
add_compile_options(-ffp-contract=off)

if(PATCHWORK_KOKKOS_DEVICE OR CMAKE_CROSSCOMPILING)
  message(STATUS "Host instruction set: the compiler's default (a device backend, or "
    "cross-compiling)")
  return()
endif()
if(Kokkos_ARCH)
  message(STATUS "Host instruction set: Kokkos's architecture flags (${Kokkos_ARCH})")
elseif(PATCHWORK_NATIVE_ARCH)
  add_compile_options(-march=native)
  message(STATUS "Host instruction set: this machine's (-march=native; "
    "-DPATCHWORK_NATIVE_ARCH=OFF for a binary that runs on other CPUs)")
else()
  message(STATUS "Host instruction set: the compiler's default "
    "(PATCHWORK_NATIVE_ARCH=OFF)")
  return()
endif()

# GCC 12.2 with AVX-512 stores a vector of the constants {1, 1, 1, 0} as four 1s (an MLB
# unit test met it). Where this program gives that answer, or cannot run AVX-512 at all,
# AVX-512 is left out (AVX2 then, 4 doubles wide). Run at every configure: the compiler
# or the machine under a build folder may change.
check_cxx_compiler_flag(-mavx512f PATCHWORK_HAS_MAVX512F)
if(PATCHWORK_HAS_MAVX512F)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_FLAGS "-O2 -mavx512f")
  unset(PATCHWORK_AVX512_OK CACHE)
  check_cxx_source_runs([[
#include <vector>
__attribute__((noinline)) double last(const std::vector<double>& v) { return v[3]; }
int main() { const std::vector<double> v{1, 1, 1, 0}; return last(v) == 0.0 ? 0 : 1; }
]] PATCHWORK_AVX512_OK)
  cmake_pop_check_state()
  if(NOT PATCHWORK_AVX512_OK)
    add_compile_options(-mno-avx512f)
    message(NOTICE "Host instruction set: all but AVX-512 (-mno-avx512f), which this "
      "compiler gets wrong or this machine does not run")
  endif()
endif()
