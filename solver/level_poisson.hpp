// The level-by-level Poisson solve over an AMR hierarchy (ENZO's way): level 0 alone,
// then each finer level with Dirichlet values in its coarse-fine ghost cells interpolated
// (quadratic) from the solution just found below. Runs as the hierarchy's SyncHook, so
// every level is solved at the same time, after each coarse step, from the phi it holds
// (the previous solution, averaged down and interpolated across regrids).
#pragma once

#include <memory>
#include <vector>

#include "amr/hierarchy.hpp"
#include "amr/sync_hook.hpp"
#include "solver/multigrid.hpp"

namespace pw {

class LevelByLevelPoisson : public SyncHook {
 public:
  /// Solves lap(u[fields.phi]) = u[fields.rhs] on the state of every level and stores
  /// the residual in u[fields.res] (when >= 0).
  LevelByLevelPoisson(const MgConfig& cfg, const PoissonBc& bc, EllipticFields fields);
  ~LevelByLevelPoisson() override;

  void at_sync(Hierarchy& h) override;
  /// Print one line per level solve (rank 0).
  void set_verbose(bool v) { cfg_.verbose = v; }
  /// Solves so far (one per level per sync) and their V-cycles in total.
  long solves() const { return solves_; }
  long cycles() const { return cycles_; }

 private:
  struct Cached;  // a level's solver and fields, kept while its layout is
  MgConfig cfg_;
  PoissonBc bc_;
  EllipticFields fields_;
  std::vector<std::unique_ptr<Cached>> levels_;
  long solves_ = 0, cycles_ = 0;
};

}  // namespace pw
