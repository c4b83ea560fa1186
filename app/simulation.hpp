// Simulation: wires the deck, the physics module, the balancer and the AMR hierarchy,
// runs the coarse steps, and reports (a line per step, a summary at the end).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "amr/amr_config.hpp"
#include "amr/deck.hpp"
#include "amr/hierarchy.hpp"
#include "amr/io/checkpoint.hpp"
#include "amr/io/output.hpp"
#include "app/balancer_planner.hpp"
#include "app/load_history.hpp"
#include "solver/composite_hook.hpp"
#include "solver/level_poisson.hpp"
#include "solver/self_gravity.hpp"

namespace pw {

struct RunResult {
  bool ran = true;  // false: a restart with nothing to run (its output left as it was)
  int steps = 0;
  double time = 0;
  std::uint64_t fingerprint = 0;
  std::vector<double> initial_totals, final_totals;
  long cell_updates = 0;
  std::vector<long> level_steps;  // this process's steps on each level (a restart's own)
  long total_level_steps() const {
    long n = 0;
    for (long s : level_steps)
      n += s;
    return n;
  }
  // LaunchCounter::so_far() as the first step began and after the last one (-1: no
  // counter alive): the launches of the time steps, without set-up and end-of-run work.
  long launches_before_steps = -1, launches_after_steps = -1;
  double wall_seconds = 0;
  // This process's host memory: its peak resident bytes at the end of the run and the
  // minor page faults of the run (from the start of run(), before the first hierarchy
  // or the restart's is allocated, to its end).
  double peak_resident_bytes = 0;
  long minor_page_faults = 0;
  int finest_level = 0;
  int regrids = 0;
  MetricsSummary balance;  // load metrics averaged over the balancing steps
  long bytes_migrated = 0;
  double mean_cut_cells = 0;  // communication cut averaged over the balancing steps
  int patches_split = 0;
  double balancer_seconds = 0;
  std::vector<std::string> dumps;  // paths of the HDF5 dumps written, in order
  std::string solve_mode;          // poisson.solve (modules with an elliptic part)
  long solves = 0;                 // elliptic solves: of one level, or composite
  long solve_cycles = 0;           // their V-cycles (composite cycles) in all
  // The physics module's event counts (floors, fallbacks), summed over ranks, by name.
  std::vector<std::pair<std::string, long>> physics_counters;
};

class Simulation {
 public:
  /// Reads every section it needs and checks the whole deck: a UserError comes out of
  /// here, before any work starts. `check_ranks` > 0: only a check of the deck for a run
  /// on that many ranks (patchwork --check --ranks), made on fewer: what depends on the
  /// rank count is read for them, and the memory per node, which depends on the nodes
  /// the run will have, is not checked. Such a Simulation must not run.
  Simulation(const Deck& deck, const Comm& comm, int check_ranks = 0);
  ~Simulation();

  /// Build the initial hierarchy and run to max_step or stop_time. `verbose`: rank 0
  /// prints the per-step lines and the summary.
  RunResult run(bool verbose = true);
  const Hierarchy& hierarchy() const { return *hierarchy_; }
  /// Whether this process keeps the host memory it frees (keep_freed_host_memory).
  bool keeps_freed_memory() const { return keep_freed_memory_; }
  // For the run summary (app/run_summary.hpp).
  const Physics& physics() const { return *physics_; }
  const BalancerPlanner& planner() const { return *planner_; }
  const OutputConfig& output() const { return output_; }
  /// Seconds per phase on this rank (phases are exclusive, so they add up).
  const std::map<std::string, double>& phase_times() const {
    return hierarchy_->timers().seconds();
  }

 private:
  void print_step(int step, double dt) const;
  /// Seconds charged to a phase so far on this rank.
  double phase_seconds(const std::string& phase) const;
  /// Give the planner the last coarse step's time and the last balancing's (seed 001's
  /// T and delta), as the slowest rank saw them. Collective.
  void measure_step(double seconds, double balance_seconds);
  /// Log the balancing steps made since the last call and add them to r.
  void report_balancing(RunResult& r, bool verbose);
  void print_summary(const RunResult& r) const;
  /// time.fixed_dt against the CFL limit of the state about to be advanced: an error, or
  /// a warning (once) under time.allow_unstable_dt. Collective.
  void check_fixed_dt(int step);
  /// Write a dump of the current state after `step` coarse steps (phase "output").
  void dump(int step, RunResult& r, bool verbose);

  Comm comm_;
  AmrConfig cfg_;
  std::unique_ptr<Physics> physics_;
  std::unique_ptr<BalancerPlanner> planner_;
  std::unique_ptr<PoissonHook> solve_;  // for modules with an elliptic part or gravity
  std::unique_ptr<Hierarchy> hierarchy_;
  std::unique_ptr<Checkpoint> restart_;  // restart=FILE, checked; null for a fresh run
  OutputConfig output_;
  CodeUnits units_;           // [units], recorded in the dumps
  std::string deck_echo_;     // every key as used, recorded in each dump
  size_t reported_ = 0;       // balancing steps already logged
  int balance_before_ = 0;    // those of the run a restart continues
  int balance_interval_ = 0;  // balance.interval: also rebalance every N coarse steps
  double overhead_ = 0;       // seconds of the last balancing step (all ranks' max)
  // DIR/PREFIX_load.csv, one row per rank per balancing step; null unless output.write.
  std::unique_ptr<LoadHistory> history_;
  std::string fixed_dt_where_;      // where the deck sets time.fixed_dt, for messages
  bool allow_unstable_dt_ = false;  // time.allow_unstable_dt
  bool keep_freed_memory_ = false;  // ranks.keep_freed_memory, and glibc took it
  bool warned_unstable_dt_ = false;
};

}  // namespace pw
