// The multigrid solver's settings and the Poisson problem's domain conditions, read from
// the deck's [poisson] section and checked before any work.
#pragma once

#include <string>

#include "amr/boundary.hpp"
#include "amr/deck.hpp"
#include "amr/level_geom.hpp"

namespace pw {

struct MgConfig {
  double rtol = 1e-10;  // stop when |f - L phi|_max <= max(rtol |f|_max, atol)
  double atol = 0.0;
  int max_cycles = 50;  // V- or F-cycles
  int pre_smooth = 2;   // red-black Gauss-Seidel sweeps before and after
  int post_smooth = 2;  // the coarse-grid correction
  // Over-relaxation of the Gauss-Seidel sweeps; 0: by dimension, 1.15 in 2D, 1.3 in 3D
  // (the fewest V(2,2) cycles to 1e-10 measured here, periodic and Dirichlet, 64^d to
  // 128^d: 3D 11-12 cycles at 1.0, 9 at 1.15, 6 at 1.3; 2D 8 at 1.15, 9-10 at 1.3).
  double omega = 0.0;
  bool f_cycle = false;             // F-cycles instead of V-cycles
  bool linear_prolongation = true;  // else piecewise constant
  int bottom_max_iter = 500;        // conjugate gradients on the coarsest grid
  double bottom_rtol = 1e-4;        // relative to the bottom rhs (as AMReX's bottom_tol)
  // The grids below a level are held whole by every rank from the first with at most
  // this many cells (0: never; -1: by the backend and rank count, see gather_limit):
  // across ranks, smoothing in one launch without messages instead of a launch and an
  // exchange per half-sweep, and a refined level's bottom CG in one team instead of seven
  // launches and four MPI reductions per iteration, for work every rank then repeats. On
  // one rank only a refined level's bottom is held so (for its CG). Across ranks a
  // level itself with at most this many cells is held whole too (solved as one rank
  // would, between a gather and a copy back).
  int gather_cells = -1;
  bool fail_on_divergence = false;  // a solve that does not converge is an error
  // The composite solve's V-cycles of level 0 in each of its cycles (refined levels
  // smooth). 1: on 128^3 + a refined level, 8 composite cycles against 7 with 2, and
  // about 10% less time at 1 rank (the same at 2).
  int level_cycles = 1;
  bool verbose = true;  // print one line per solve (rank 0)
};

/// The condition on each face of the domain for phi: periodic directions come from the
/// geometry; every other face is Dirichlet or Neumann with a value.
struct PoissonBc {
  FaceBc lo[3], hi[3];  // ignored in periodic directions
  const FaceBc& face(int d, int side) const { return side == 0 ? lo[d] : hi[d]; }
  /// True when no face pins the level of phi (periodic or Neumann everywhere): the
  /// problem is solvable only for f of zero mean, and phi is fixed to zero mean.
  bool singular(const LevelGeom& g) const;
  /// The same condition with zero values (for corrections).
  PoissonBc homogeneous() const;
  /// As a BcSet of one component, for LevelData::fill_physical_boundary.
  BcSet as_bcs() const;
};

/// Keys (defaults in brackets): poisson.rtol [1e-10], poisson.atol [0],
/// poisson.max_cycles [50], poisson.pre_smooth [2], poisson.post_smooth [2],
/// poisson.omega [1.15 in 2D, 1.3 in 3D] (in (0, 2)), poisson.cycle ["V"] | "F",
/// poisson.prolongation
/// ["linear"] | "constant", poisson.bottom_max_iter [500],
/// poisson.gather_cells [by the backend] (>= 0), poisson.fail_on_divergence
/// [false], poisson.level_cycles [1] (>= 1). UserError naming the key for a negative or
/// non-finite tolerance, both tolerances zero, zero cycles, negative sweeps, no sweeps at
/// all, or an unknown name.
MgConfig read_mg_config(const Deck& deck);

/// Whether Kokkos's default execution space is Serial (a launch is a function call).
bool serial_launches();
/// The most cells of a grid below a level that is held whole by every rank of `ranks`
/// (see MgConfig::gather_cells): cfg.gather_cells, or where that is -1: on one rank of a
/// host backend no limit (no rank repeats the grid, and the one team has the threads a
/// launch would, up to the backend's largest team: 64 on OpenMP); else 512 on Serial
/// (above that size every rank repeating a refined level's bottom costs more than the MPI
/// reductions of splitting it), else 4096 (a launch forks and joins threads, even one, or
/// waits on a device, where the one team runs on one multiprocessor).
int gather_limit(const MgConfig& cfg, int ranks);

/// poisson.bc_lo / poisson.bc_hi: one of "dirichlet", "neumann" per direction (ignored,
/// and may be "periodic", where domain.periodic is true); poisson.bc_lo_value /
/// poisson.bc_hi_value: numbers per direction [0]. Default: Dirichlet 0 on every
/// non-periodic face. UserError naming the key for an unknown kind, a list of the wrong
/// length, "periodic" on a non-periodic direction, or a non-finite value.
PoissonBc read_poisson_bc(const Deck& deck, const LevelGeom& geom);

}  // namespace pw
