// What the time stepper's Poisson solves have in common: the solver's settings, the
// domain conditions, and the count of solves and V-cycles the run summary reports.
#pragma once

#include "amr/step_hook.hpp"
#include "solver/mg_config.hpp"

namespace pw {

class PoissonHook : public StepHook {
 public:
  PoissonHook(const MgConfig& cfg, const PoissonBc& bc) : cfg_(cfg), bc_(bc) {}
  /// Print what the solves did (rank 0).
  void set_verbose(bool v) { cfg_.verbose = v; }
  /// Solves so far and their cycles in total: a solve is one level's (level by level)
  /// or all levels' at once (composite), a cycle a V-cycle or a composite cycle.
  long solves() const { return solves_; }
  long cycles() const { return cycles_; }
  /// "levels" or "composite" (poisson.solve).
  virtual const char* mode() const = 0;

 protected:
  MgConfig cfg_;
  PoissonBc bc_;
  long solves_ = 0, cycles_ = 0;
};

}  // namespace pw
