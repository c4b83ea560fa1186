// LaunchCounter: counts the Kokkos kernels this process launches (parallel_for, _reduce,
// _scan; not the kernels of Kokkos's threaded host-to-host copies), through Kokkos Tools
// callbacks, while one is alive. For benchmarks: what a time step costs in launches is
// what threads and GPUs pay for, whatever its cells.
#pragma once

namespace pw {

class LaunchCounter {
 public:
  /// Installs the callbacks (over those of a profiling tool loaded through
  /// KOKKOS_TOOLS_LIBS: use one or the other). At most one at a time.
  LaunchCounter();
  ~LaunchCounter();
  LaunchCounter(const LaunchCounter&) = delete;
  LaunchCounter& operator=(const LaunchCounter&) = delete;

  /// Kernels launched since construction.
  long launches() const;
  /// Of those, the launches Kokkos made to free a view's entries (Kokkos 3.4 makes one,
  /// with a fence, whenever the last view of a struct type goes: see StructArray).
  long frees() const;
  /// The live counter's launches(), or -1 when none is alive: for code that marks a
  /// point of a counted run (the first time step) without owning the counter.
  static long so_far();
};

}  // namespace pw
