// The composite Poisson solve over an AMR hierarchy (AMReX's MLMG and Chombo's
// AMRPoisson solve this problem): one problem on the valid cells of every level (the
// cells no finer level covers), coupled across coarse-fine faces both ways. A fine
// level's ghost cells hold the quadratic along the face normal through the coarse value
// (the coarser level interpolated across the face) and two fine cells inside (the ghost
// rule of mg::composite_cf_ghosts, as MLMG's), and a coarse
// cell beside a finer patch takes, through that face, the mean of the fine face
// gradients in place of its own (flux matching, by the refluxing FluxRegister), so the
// discrete Gauss theorem holds over the composite grid. A covered coarse cell holds the
// mean of the fine values over it.
//
// Iteration, as MLMG's: a cycle starts from the composite residual (finest level first;
// covered cells get the finer level's, averaged). Down from the finest refined level to
// level 1, each level smooths a correction (its Multigrid truncated at its coarser
// level's resolution, so no bottom solve), its residual becomes the correction's, and
// the level below forms its residual from the new fine fluxes and that residual. Level 0
// takes cfg.level_cycles V-cycles. Up, each refined level takes the correction below,
// interpolated, takes what that does off its residual (coarse-fine ghosts from the
// coarse correction by the rule above), smooths the rest, and passes up all it took in
// the cycle, its correction of the way down included. A refined level's smoothing leaves
// the error its coarser level sees to that level. 0.02-0.07 reduction per cycle on the
// tested problems, as full V-cycles on every level gave at 2-3 times the cost. With the
// coarse value alone in the fine ghosts (no fine cells; corrections' ghosts zero) an
// earlier cycle reduced the residual only by 0.25-0.45 per cycle on two refined levels,
// worse as the grid grows; with those corrections zero at the face it diverged.
// Every step is independent of the patch cut and the rank count (the level solver's are,
// and the register applies its corrections in a fixed order), so phi is bitwise the same
// at any rank count.
#pragma once

#include <memory>
#include <vector>

#include "amr/flux_register.hpp"
#include "solver/mg_ops.hpp"
#include "solver/multigrid.hpp"

namespace pw {

/// One level of the hierarchy the solve runs on.
struct CompositeLevel {
  LevelLayout layout;
  LevelGeom geom;
  IntVect ratio;  // to the next finer level (unused on the finest)
  int granule;    // every cut's boxes are multiples of it (the blocking factor)
};

class CompositePoisson {
 public:
  /// levels[0] covers the domain; each finer level is properly nested in the one below.
  /// Collective over comm.
  CompositePoisson(const std::vector<CompositeLevel>& levels, const PoissonBc& bc,
                   const MgConfig& cfg, const Comm& comm);
  ~CompositePoisson();

  /// Solve lap(phi) = f on the composite grid (component 0 of each field): phi[l] (>= 1
  /// ghost cell) holds the first guess and gets the solution, its covered cells the mean
  /// of the finer values; f[l] is read on the valid cells. A singular problem (periodic
  /// or Neumann everywhere) has the composite mean of f removed first (removed_mean()),
  /// and phi is returned with zero composite mean. Stops when the composite residual's
  /// max over the valid cells is at most max(rtol |f|_max, atol). Prints one line (rank
  /// 0) when cfg.verbose; a solve that does not converge warns, or throws RunFailure
  /// under cfg.fail_on_divergence.
  SolveReport solve(const std::vector<LevelData*>& phi,
                    const std::vector<const LevelData*>& f);

  /// res[l] = the composite residual f - L phi of the last solve's answer (f less the
  /// removed mean), covered cells the finer level's averaged. One component each.
  void residual(const std::vector<LevelData*>& res) const;

  /// The composite mean of f that the last solve removed (singular problems; else 0).
  double removed_mean() const { return shift_; }
  int num_levels() const { return int(levels_.size()); }

 private:
  struct Level;
  /// Level l's phi ghosts: the same level's and the domain's, and (l > 0) the
  /// coarse-fine ghosts from level l - 1 by the composite rule. coarse_changed false:
  /// level l - 1's phi and level l's crse_interp are as the last call left them (no
  /// correction interpolated since), so the interpolation is not made again. which:
  /// the same level's copies made; messages: the caller's launch makes the others
  /// (copies_by_patch) and the coarse-fine ghosts (the stage returned).
  mg::CompositeCfStage fill_ghosts(size_t l, bool coarse_changed = true,
                                   LevelData::Copies which = LevelData::Copies::all);
  /// Level l's face gradients from phi (ghosts filled), and its register refilled with
  /// them for level l - 1.
  void level_fluxes(size_t l);
  /// Level l's residual from the phi it holds: fill_ghosts, f - L phi, level_fluxes;
  /// the coarse-fine faces with level l + 1 corrected from that level's register and
  /// its covered cells from its residual (both as last computed).
  void level_residual(size_t l);
  /// Level l's residual less the Laplacian of the correction e (interiors set; one
  /// ghost layer), whose coarse-fine ghosts follow crse, level l - 1's correction, by the
  /// composite rule, or are those of a correction whose coarse part is zero (no crse).
  void less_laplacian(size_t l, LevelData& e, const LevelData* crse);
  /// One composite cycle from the composite residual held (see the header's comment).
  void cycle();
  /// The composite residual of every level (finest first); returns its max.
  double composite_residual();
  /// Interiors of every level's phi (or f) under a finer level = the finer mean.
  void average_down(bool of_phi);

  MgConfig cfg_;
  PoissonBc bc_;
  BcSet zero_bcs_;  // for corrections
  Comm comm_;
  bool singular_ = false;
  double shift_ = 0.0;
  std::vector<std::unique_ptr<Level>> levels_;
};

}  // namespace pw
