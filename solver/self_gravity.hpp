// Self-gravity solved as the levels advance (ENZO's way, seed 000's code): right after
// each step of level l, lap(phi) = 4 pi G (rho - rho_mean) on level l at its new time,
// level 0 alone with the domain's conditions, a finer level with Dirichlet values in its
// coarse-fine ghosts interpolated (quadratic in space, linear in time) from the coarser
// level's phi, which is already at or past that time. The physics module then gets the
// second half of the step's kick, dt/2 rho grad phi, from the new phi; the first half,
// with the old phi, is part of its update. So gravity enters each level step
// second-order in time, with the phi of every level at its own time, and the whole is
// bitwise the same at any rank count (the solver is).
#pragma once

#include <memory>
#include <vector>

#include "amr/hierarchy.hpp"
#include "solver/multigrid.hpp"
#include "solver/poisson_hook.hpp"

namespace pw {

class SelfGravitySolve : public PoissonHook {
 public:
  /// For physics.gravity() (which must have phi >= 0); `bc`: phi's domain conditions.
  SelfGravitySolve(const Physics& physics, const MgConfig& cfg, const PoissonBc& bc);
  ~SelfGravitySolve() override;

  /// built: solve every level, coarse to fine (the initial phi, no kick). stepped: print
  /// the coarse step's solves in one line when verbose. restored: nothing (the
  /// checkpoint holds the phi the last steps left, as a run that went on would).
  void at_sync(Hierarchy& h, SyncPoint when) override;
  /// It solves and kicks after each level's step, before the average-down; at a sync
  /// after a step it only reports.
  bool writes_state_at_sync() const override { return false; }
  /// Solve level l at its new time, then kick it by dt/2.
  void after_level_step(Hierarchy& h, int l, double dt) override;
  const char* mode() const override { return "levels"; }

 private:
  struct Cached;  // a level's solver and fields, kept while its layout is
  /// Solve on level l at its t_new into its u_new's phi (the first guess).
  /// keep: copy phi into the state's component (else the caller's kick does).
  void solve_level(Hierarchy& h, int l, bool keep);
  Cached& cached(Hierarchy& h, int l);

  const Physics& physics_;
  GravityFields fields_;
  std::vector<std::unique_ptr<Cached>> levels_;
  double f_mean_ = 0;  // the mean of 4 pi G rho that level 0's solve removed
  // Since the last coarse step, for its line: solves, cycles, worst final residual
  // relative to |f|, seconds.
  long step_solves_ = 0, step_cycles_ = 0;
  double step_worst_ = 0, step_seconds_ = 0;
};

}  // namespace pw
