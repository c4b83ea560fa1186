// The composite Poisson solve (solver/composite_poisson.hpp) over an AMR hierarchy, as
// the hierarchy's StepHook: when every level is at one time (after each coarse step, and
// when the levels are built or restored) it solves on all levels at once from the phi
// they hold (the previous solution, averaged down and interpolated across regrids).
#pragma once

#include <memory>
#include <vector>

#include "amr/hierarchy.hpp"
#include "solver/composite_poisson.hpp"
#include "solver/poisson_hook.hpp"

namespace pw {

class CompositePoissonHook : public PoissonHook {
 public:
  /// Solves lap(u[fields.phi]) = u[fields.rhs] on the composite grid of the levels'
  /// states and stores the composite residual in u[fields.res] (when >= 0).
  CompositePoissonHook(const MgConfig& cfg, const PoissonBc& bc, EllipticFields fields);
  ~CompositePoissonHook() override;

  /// Prints one line per solve when verbose.
  void at_sync(Hierarchy& h, SyncPoint when) override;
  const char* mode() const override { return "composite"; }

 private:
  EllipticFields fields_;
  std::vector<LevelLayout> layouts_;  // the solver's, rebuilt when one changes
  std::unique_ptr<CompositePoisson> solver_;
  std::vector<LevelData> phi_, f_, res_;  // one component each; phi with one ghost layer
};

}  // namespace pw
