// The level-by-level Poisson solve over an AMR hierarchy (ENZO's way): level 0 alone,
// then each finer level with Dirichlet values in its coarse-fine ghost cells interpolated
// (quadratic) from the solution just found below. Runs as the hierarchy's StepHook when
// every level is at one time (after each coarse step, and when the levels are built or
// restored), from the phi it holds (the previous solution, averaged down and
// interpolated across regrids).
#pragma once

#include <memory>
#include <vector>

#include "amr/hierarchy.hpp"
#include "solver/multigrid.hpp"
#include "solver/poisson_hook.hpp"

namespace pw {

class LevelByLevelPoisson : public PoissonHook {
 public:
  /// Solves lap(u[fields.phi]) = u[fields.rhs] on the state of every level and stores
  /// the residual in u[fields.res] (when >= 0).
  LevelByLevelPoisson(const MgConfig& cfg, const PoissonBc& bc, EllipticFields fields);
  ~LevelByLevelPoisson() override;

  /// Prints one line per level solve when verbose.
  void at_sync(Hierarchy& h, SyncPoint when) override;
  const char* mode() const override { return "levels"; }

 private:
  struct Cached;  // a level's solver and fields, kept while its layout is
  EllipticFields fields_;
  std::vector<std::unique_ptr<Cached>> levels_;
};

}  // namespace pw
