# The kernels are compiled for the build machine's vector instructions (-march=native):
# the CTU update's selects and loops over rows vectorize 4 or 8 doubles wide instead of
# x86-64's 2. Left out where the chosen Kokkos already names an architecture (its own
# flags then hold), for a device backend, and with -DPATCHWORK_NATIVE_ARCH=OFF: a binary
# built on one node may stop with "illegal instruction" on another with fewer vector
# instructions (a cluster's login and compute nodes), so build where it runs or turn this
# off.
#
# Whatever the instructions, no multiply and add are fused into one rounding
# (-ffp-contract=off; GCC fuses by default where the target has FMA): every build, host
# or device Kokkos, any ISA, computes the same bits, which the fingerprint tests compare.
include(CheckCXXSourceRuns)

option(PATCHWORK_NATIVE_ARCH "Compile for the build machine's instruction set" ON)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  add_compile_options(-ffp-contract=off)
endif()

set(_pw_device FALSE)
foreach(device CUDA HIP SYCL OPENMPTARGET)
  if(device IN_LIST Kokkos_DEVICES)
    set(_pw_device TRUE)
  endif()
endforeach()
if(NOT PATCHWORK_NATIVE_ARCH)
  message(STATUS "Host instruction set: the compiler's default (PATCHWORK_NATIVE_ARCH=OFF)")
elseif(Kokkos_ARCH)
  message(STATUS "Host instruction set: Kokkos's architecture flags (${Kokkos_ARCH})")
elseif(_pw_device)
  message(STATUS "Host instruction set: the compiler's default (a device backend)")
else()
  # GCC 12.2 with AVX-512 stores a vector of the constants {1, 1, 1, 0} as four 1s (the
  # MLB unit tests met it): where this program gives that wrong answer, the build keeps
  # the machine's instructions but AVX-512 (AVX2 then, 4 doubles wide).
  set(_pw_probe "#include <vector>
__attribute__((noinline)) double last(const std::vector<double>& v) { return v[3]; }
int main() { const std::vector<double> v{1, 1, 1, 0}; return last(v) == 0.0 ? 0 : 1; }")
  set(CMAKE_REQUIRED_FLAGS "-O2 -march=native")
  check_cxx_source_runs("${_pw_probe}" PATCHWORK_MARCH_NATIVE_OK)
  set(CMAKE_REQUIRED_FLAGS "-O2 -march=native -mno-avx512f")
  if(NOT PATCHWORK_MARCH_NATIVE_OK)
    check_cxx_source_runs("${_pw_probe}" PATCHWORK_MARCH_NATIVE_NO_AVX512_OK)
  endif()
  unset(CMAKE_REQUIRED_FLAGS)
  if(PATCHWORK_MARCH_NATIVE_OK)
    add_compile_options(-march=native)
    message(STATUS "Host instruction set: this machine's (-march=native; "
      "-DPATCHWORK_NATIVE_ARCH=OFF for a binary that runs on other CPUs)")
  elseif(PATCHWORK_MARCH_NATIVE_NO_AVX512_OK)
    add_compile_options(-march=native -mno-avx512f)
    message(STATUS "Host instruction set: this machine's but AVX-512, which this "
      "compiler gets wrong (-march=native -mno-avx512f; -DPATCHWORK_NATIVE_ARCH=OFF for a "
      "binary that runs on other CPUs)")
  else()
    message(STATUS "Host instruction set: the compiler's default (-march=native is "
      "refused or computes a wrong answer)")
  endif()
endif()
