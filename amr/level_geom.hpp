// Geometry of one level: its index domain, cell size and physical origin. Plain data, so
// it can be captured by kernels.
#pragma once

#include "amr/box.hpp"

namespace pw {

struct LevelGeom {
  int dim = 3;
  Box domain;
  double dx[3] = {1, 1, 1};
  double prob_lo[3] = {0, 0, 0};
  bool periodic[3] = {true, true, true};

  /// Cell-centre coordinate of index i in direction d.
  KOKKOS_INLINE_FUNCTION double center(int d, int i) const {
    return prob_lo[d] + (i + 0.5) * dx[d];
  }
  /// Coordinate of face i (the lo face of cell i) in direction d.
  KOKKOS_INLINE_FUNCTION double face(int d, int i) const {
    return prob_lo[d] + i * dx[d];
  }
  KOKKOS_INLINE_FUNCTION double cell_volume() const {
    return dim == 2 ? dx[0] * dx[1] : dx[0] * dx[1] * dx[2];
  }
  /// Geometry of the level refined by `ratio` (1 in unused directions).
  LevelGeom refined(const IntVect& ratio) const {
    LevelGeom g = *this;
    g.domain = refine(domain, ratio);
    for (int d = 0; d < 3; ++d)
      g.dx[d] = dx[d] / ratio[d];
    return g;
  }
};

}  // namespace pw
