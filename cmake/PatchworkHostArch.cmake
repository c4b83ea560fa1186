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

# nvcc fuses multiplies and adds in device code unless told (--fmad=false;
# -ffp-contract reaches only its host compiler): then no fused rounding sets a GPU's
# answers apart from the host builds' (its exp, pow and the like still may; not run
# here: no GPU). On what links Kokkos, which compiles through nvcc_wrapper also when
# the project is configured with the host compiler (Kokkos's compiler launcher).
if("CUDA" IN_LIST Kokkos_DEVICES AND Kokkos_CXX_COMPILER_ID STREQUAL "NVIDIA")
  set_property(TARGET Kokkos::kokkos APPEND PROPERTY INTERFACE_COMPILE_OPTIONS
    "$<$<COMPILE_LANGUAGE:CXX>:--fmad=false>")
endif()

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
# GCC 12.2 builds some vectors of constants wrong: it stores {1, 1, 1, 0} as four 1s (an
# MLB unit test met it), with AVX-512, and with AVX2 too under the tuning for AVX-512
# CPUs (-mtune=skylake-avx512, icelake-server, rocketlake: what -march=native picks on
# such a Xeon, where -mno-avx512f alone still gave four 1s). This program is compiled
# with the flags a build would use and run, at every configure (the compiler or the
# machine under a build folder may change); the first set that gives the right answer
# is kept.
function(pw_vector_constants_ok flags result)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_FLAGS "-O2 ${flags}")
  unset(${result} CACHE)
  check_cxx_source_runs([[
#include <vector>
__attribute__((noinline)) double last(const std::vector<double>& v) { return v[3]; }
int main() { const std::vector<double> v{1, 1, 1, 0}; return last(v) == 0.0 ? 0 : 1; }
]] ${result})
  cmake_pop_check_state()
  set(${result} "${${result}}" PARENT_SCOPE)
endfunction()

if(Kokkos_ARCH)
  message(STATUS "Host instruction set: Kokkos's architecture flags (${Kokkos_ARCH})")
  # Kokkos's flags are not known here: try the worst case they may pick, AVX-512, and
  # where it is wrong (or does not run) leave it and its CPUs' tuning out.
  check_cxx_compiler_flag(-mavx512f PATCHWORK_HAS_MAVX512F)
  if(PATCHWORK_HAS_MAVX512F)
    pw_vector_constants_ok("-mavx512f" PATCHWORK_AVX512_OK)
    if(NOT PATCHWORK_AVX512_OK)
      add_compile_options(-mno-avx512f -mtune=generic)
      message(NOTICE "Host instruction set: Kokkos's without AVX-512 and with the "
        "generic tuning (-mno-avx512f -mtune=generic), which this compiler gets wrong "
        "or this machine does not run")
    endif()
  endif()
elseif(PATCHWORK_NATIVE_ARCH)
  set(candidates "-march=native" "-march=native -mno-avx512f"
    "-march=native -mno-avx512f -mtune=generic")
  set(chosen "")
  set(n 0)
  foreach(flags IN LISTS candidates)
    math(EXPR n "${n} + 1")
    pw_vector_constants_ok("${flags}" PATCHWORK_NATIVE_OK_${n})
    if(PATCHWORK_NATIVE_OK_${n})
      set(chosen "${flags}")
      break()
    endif()
  endforeach()
  if(chosen STREQUAL "")
    message(NOTICE "Host instruction set: the compiler's default: this compiler builds "
      "wrong code for this machine's (${candidates})")
    return()
  endif()
  separate_arguments(chosen_list UNIX_COMMAND "${chosen}")
  add_compile_options(${chosen_list})
  if(n EQUAL 1)
    message(STATUS "Host instruction set: this machine's (-march=native; "
      "-DPATCHWORK_NATIVE_ARCH=OFF for a binary that runs on other CPUs)")
  else()
    message(NOTICE "Host instruction set: this machine's but what this compiler gets "
      "wrong or this machine does not run (${chosen}; -DPATCHWORK_NATIVE_ARCH=OFF for a "
      "binary that runs on other CPUs)")
  endif()
else()
  message(STATUS "Host instruction set: the compiler's default "
    "(PATCHWORK_NATIVE_ARCH=OFF)")
endif()
