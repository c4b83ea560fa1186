// Field3, a raw one-component accessor for kernels whose inner loop over i must
// vectorize, and for_each_cell_simd, the launch that lets it: one work item per (j, k)
// row on host backends, one cell per thread on devices.
#pragma once

#include <string>
#include <vector>

#include "amr/device_array.hpp"
#include "amr/fab.hpp"

namespace pw {

/// One component of cell or face data, reached by global (i, j, k) through a pointer and
/// one folded offset, i contiguous. An access is a multiply-add per direction, where
/// Array4 subtracts the lower corner first; and loops over i through it vectorize.
struct Field3 {
  double* p = nullptr;
  long sj = 0, sk = 0;  // strides of j and k
  long off = 0;         // minus the offset of global (0, 0, 0)
  KOKKOS_FORCEINLINE_FUNCTION double& operator()(int i, int j, int k) const {
    return p[off + i + sj * j + sk * k];
  }
};

/// The Field3 of a contiguous array over box b at p.
KOKKOS_INLINE_FUNCTION Field3 field_over(double* p, const Box& b) {
  Field3 f;
  f.p = p;
  f.sj = b.size()[0];
  f.sk = long(b.size()[0]) * b.size()[1];
  f.off = -(b.lo[0] + f.sj * b.lo[1] + f.sk * b.lo[2]);
  return f;
}

/// Component c of view v whose element (., 0, 0, 0) is global cell lo (an empty Field3
/// where v holds no data).
inline Field3 component(const View4& v, const IntVect& lo, int c) {
  Field3 f;
  if (v.data() == nullptr) return f;
  f.p = v.data() + c * v.stride(0);
  f.sj = long(v.stride(2));
  f.sk = long(v.stride(1));
  f.off = -(lo[0] + f.sj * lo[1] + f.sk * lo[2]);
  return f;
}

/// Component c of a (an empty Field3 where a holds no data).
inline Field3 component(const Array4& a, int c) {
  return component(a.v, a.lo, c);
}

/// All components of a patch's data for kernels over many patches (one FabRef per
/// patch in a device array): component 0's Field3 and the stride between components.
struct FabRef {
  Field3 c0;
  long cstride = 0;
  KOKKOS_FORCEINLINE_FUNCTION double& operator()(int i, int j, int k, int c = 0) const {
    return c0.p[c0.off + i + c0.sj * j + c0.sk * k + c * cstride];
  }
  /// Component c (an empty Field3 where the patch holds no data).
  KOKKOS_INLINE_FUNCTION Field3 comp(int c) const {
    Field3 f = c0;
    if (f.p != nullptr) f.p += c * cstride;
    return f;
  }
};

/// The FabRef of view v whose element (., 0, 0, 0) is global cell lo (an empty one where
/// v holds no data).
inline FabRef fab_ref(const View4& v, const IntVect& lo) {
  return {component(v, lo, 0), v.data() ? long(v.stride(0)) : 0L};
}

/// The FabRef of a (an empty one where a holds no data).
inline FabRef fab_ref(const Array4& a) {
  return fab_ref(a.v, a.lo);
}

/// The FabRef of f (an empty one where f holds no data). Reads f's view in place: a
/// copy of it (as f.array() makes) costs a reference count up and down, which plans
/// building a batch of pieces at every exchange would pay per piece.
inline FabRef fab_ref(const Fab& f) {
  return fab_ref(f.data, f.box.lo);
}

/// The FabRefs of fabs, on the device (for launches over all of them).
inline StructArray<FabRef> fab_refs(const std::vector<Fab>& fabs) {
  std::vector<FabRef> host(fabs.size());
  for (size_t n = 0; n < fabs.size(); ++n)
    host[n] = fab_ref(fabs[n]);
  return device_copy("fab_refs", host);
}

// Tells the compiler that the iterations of the loop that follows are independent: each
// writes its own element, and reads nothing that another writes. GCC cannot see that
// through the pointers of Field3, and gives up past ten run-time alias checks.
#if defined(__clang__)
#define PW_INDEPENDENT_ITERATIONS _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__) && !defined(__INTEL_COMPILER) && !defined(__CUDACC__)
#define PW_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#else
#define PW_INDEPENDENT_ITERATIONS
#endif

// Unrolls the short loop that follows (over a cell's components or directions), so that
// the loop over cells around it has a body without inner loops: GCC vectorizes only
// such innermost loops, and does not unroll a loop of five long iterations by itself.
#if defined(__clang__) || defined(__CUDACC__) || defined(__HIPCC__)
#define PW_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__INTEL_COMPILER)
#define PW_UNROLL _Pragma("GCC unroll 16")
#else
#define PW_UNROLL
#endif

// Inline every call in the row loop, so that a kernel's per-cell body (often a lambda
// calling several functions) is one loop body the compiler can vectorize: GCC declines
// to inline large lambdas on its own, and then calls them once per cell.
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define PW_FLATTEN __attribute__((flatten))
#else
#define PW_FLATTEN
#endif

// Keeps a function out of a PW_FLATTEN body: rarely-run work that would only make the
// flattened kernel larger.
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define PW_NOINLINE __attribute__((noinline))
#else
#define PW_NOINLINE
#endif

/// for_each_cell, with the i loop of each (j, k) row in one work item on host backends,
/// written so that the compiler vectorizes it. It does not vectorize the inner loop of
/// Kokkos 3's MDRange: GCC sees its index as a wrapping unsigned sum, so no address in
/// it is affine. Device backends keep one cell per thread. f must not write what another
/// cell reads.
template <class F>
void for_each_cell_simd(const std::string& label, const Box& b, const F& f) {
  using Exec = Kokkos::DefaultExecutionSpace;
  if constexpr (!Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible) {
    for_each_cell(label, b, f);
  } else {
    if (b.empty()) return;
    const int lo0 = b.lo[0], hi0 = b.hi[0], lo1 = b.lo[1], lo2 = b.lo[2];
    const int n1 = b.size()[1];
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<Exec, Kokkos::IndexType<int>>(0, n1 * b.size()[2]),
        [=](int row) PW_FLATTEN {  // a host backend: a plain lambda
          const int j = lo1 + row % n1, k = lo2 + row / n1;
          PW_INDEPENDENT_ITERATIONS
          for (int i = lo0; i <= hi0; ++i)
            f(i, j, k);
        });
  }
}

/// Per-cell event counts of team_cells_tally (patch_teams.hpp): the body adds 0 or 1 to a
/// slot (branch-free, as `t.n[0] += bad;`) for each event it saw in its cell. 64-bit,
/// as the counters the sums go to.
template <int N>
struct Tally {
  long n[N];
};

}  // namespace pw
