// Helpers for tests that drive whole runs from an inline deck.
#pragma once

#include <functional>
#include <string>

#include "amr/launch_counter.hpp"
#include "app/simulation.hpp"

namespace pw::testing {

/// `overrides` with output.write=false first unless they set output.write (a key may be
/// given once).
inline std::vector<std::string> quiet(const std::vector<std::string>& overrides) {
  std::vector<std::string> o;
  bool writes = false;
  for (const std::string& s : overrides)
    writes = writes || s.rfind("output.write=", 0) == 0;
  if (!writes) o.push_back("output.write=false");
  o.insert(o.end(), overrides.begin(), overrides.end());
  return o;
}

/// A balancer of the registry that this build lacks: the Zoltan ones without Zoltan. A
/// whole-run test skips such a one (its factory's UserError says why) and fails on any
/// other balancer's error.
inline bool balancer_not_built(const std::string& name) {
#if defined(PATCHWORK_HAVE_ZOLTAN) && PATCHWORK_HAVE_ZOLTAN
  (void)name;
  return false;
#else
  return name.rfind("zoltan_", 0) == 0;
#endif
}

/// Run `deck_text` (TOML) with `overrides` on `comm`, quietly. No dumps unless the
/// overrides ask for them (output.write=true), so that tests running at the same time
/// never write the same files.
inline RunResult run_deck(const std::string& deck_text, const Comm& comm,
                          const std::vector<std::string>& overrides = {}) {
  const Deck deck = Deck::parse(deck_text, "test.toml", quiet(overrides));
  Simulation sim(deck, comm);
  return sim.run(false);
}

/// The kernels a run's time steps launch per level step (their regrids and balancing
/// included; set-up and end-of-run work not), the most on one rank: issue 12's target
/// is under 100.
inline double launches_per_level_step(const std::function<RunResult()>& run,
                                      const Comm& comm) {
  LaunchCounter counter;
  const RunResult r = run();
  // No launch to free a table of structs (Kokkos 3.4's, see StructArray) anywhere in
  // the run, its regrids included.
  EXPECT_EQ(counter.frees(), 0);
  const long level_steps = r.total_level_steps();
  const double launched =
      comm.max(double(r.launches_after_steps - r.launches_before_steps));
  return level_steps > 0 ? launched / double(level_steps) : 0.0;
}

/// Keeps the layouts it is proposed (owners included) and learns nothing: for tests that
/// drive a Hierarchy by hand.
class KeepPlanner : public LayoutPlanner {
 public:
  std::vector<LevelLayout> plan(const std::vector<LevelLayout>& proposed,
                                int /*first_free*/) override {
    return proposed;
  }
  void observe(const std::vector<LevelLayout>&,
               const std::vector<std::vector<double>>&) override {}
};

/// A small multi-level swirl problem: 2 refined levels, 2 components, regrids every 2
/// steps.
inline std::string swirl_deck(int dim) {
  const std::string n = dim == 2 ? "[32, 32]" : "[16, 16, 16]";
  const std::string per = dim == 2 ? "[true, true]" : "[true, true, true]";
  return "[domain]\ndim = " + std::to_string(dim) + "\nn_cell = " + n +
         "\nperiodic = " + per +
         "\n[amr]\nmax_level = 2\nref_ratio = 2\nblocking_factor = 4\nmax_grid_size = 8\n"
         "regrid_interval = 2\n"
         "[time]\nmax_step = 12\ncfl = 0.7\n"
         "[advection]\nvelocity = \"swirl\"\nncomp = 2\ntag_threshold = [1.05, 1.2]\n";
}

/// The Poisson workload: three clumps, 2 refined levels, 4 steps, regrids every 2 steps.
inline std::string clumps_deck(int dim) {
  const std::string n = dim == 2 ? "[64, 64]" : "[32, 32, 32]";
  const std::string per = dim == 2 ? "[true, true]" : "[true, true, true]";
  return "[domain]\ndim = " + std::to_string(dim) + "\nn_cell = " + n +
         "\nperiodic = " + per +
         "\n[amr]\nmax_level = 2\nref_ratio = 2\nblocking_factor = 8\nmax_grid_size = "
         "16\nregrid_interval = 2\n[time]\nmax_step = 4\ncfl = 0.5\n"
         "[physics]\nmodule = \"poisson\"\n"
         "[clumps]\ncount = 3\nseed = 2\nwidth = 0.06\nspeed = 0.5\n"
         "[poisson]\nrtol = 1e-10\ntag_threshold = 0.02\n";
}

}  // namespace pw::testing
