// Conjugate gradients in one launch, on a multigrid's bottom grid that this rank holds
// whole (a gathered grid: every rank holds all of it and solves the same problem). The
// solve's steps (the ghost copies of the grid's exchange, a refined level's coarse-fine
// ghosts among them, the stencil, the updates and the dot products) are stages of one
// team of threads, a
// barrier between them: a bottom solve of a dozen iterations is one launch and no MPI
// reduction, where a launch per step makes seven per iteration, and a GPU or a team of
// threads waits on each. Every stage runs the row functions of the launch-per-step
// conjugate gradients on a distributed grid (Multigrid::bottom_solve,
// solver/cg_rows.hpp), and the dot products are exact sums, so the two give the same
// bits.
#pragma once

#include <Kokkos_Core.hpp>

#include "amr/box_set.hpp"
#include "amr/level_data.hpp"
#include "amr/parallel_copy.hpp"
#include "solver/mg_ops.hpp"
#include "solver/poisson_kernels.hpp"

namespace pw::mg {

class TeamCg {
 public:
  TeamCg() = default;
  /// For fields of u's layout with u's ghost width, every patch of which this rank
  /// owns; the ghosts are those u.fill_boundary(comm, true) sets (a refined level's
  /// coarse-fine rule included: LevelData::set_coarse_fine_from_inside, set before).
  TeamCg(LevelData& u, const PoissonStencil& s);

  /// L x = rhs by conjugate gradients from x (x, p with ghosts as u's; r, q any fields
  /// of the layout): until |r|^2 <= rtol^2 |rhs|^2 (2-norms, exact sums), at most
  /// max_iter iterations. `fed`: its stage (x = 0, rhs's copies) first. Asynchronous:
  /// nothing waits for the launch.
  void solve(const LevelData& x, const LevelData& rhs, const LevelData& r,
             const LevelData& p, const LevelData& q, double rtol, int max_iter,
             const FeedStage& fed = {}) const;

 private:
  PoissonStencil stencil_;
  BoxSet interiors_;           // items: patches
  BoxSet copies_;              // the ghost copies' destination cells; items: copies
  StructArray<CopyTag> tags_;  // those copies
};

}  // namespace pw::mg
