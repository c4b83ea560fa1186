#include "app/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "amr/diagnostics.hpp"
#include "amr/launch_counter.hpp"
#include "app/host_memory.hpp"
#include "app/memory_check.hpp"
#include "app/rank_setup.hpp"
#include "physics/registry.hpp"
#include "solver/mg_config.hpp"

namespace pw {

Simulation::Simulation(const Deck& deck, const Comm& comm, int check_ranks)
    : comm_(comm), cfg_(read_amr_config(deck)) {
  physics_ = make_physics(deck);
  const EllipticFields ef = physics_->elliptic();
  const bool gravity = physics_->gravity().phi >= 0;
  if (ef.phi >= 0 || gravity) {
    // Self-gravity solves at every level step (see SelfGravitySolve): level by level.
    const std::string mode =
        deck.get<std::string>("poisson.solve", gravity ? "levels" : "composite");
    if (mode != "levels" && mode != "composite")
      deck.fail("poisson.solve",
                "expected \"composite\" or \"levels\", got \"" + mode + "\"");
    if (gravity && mode == "composite")
      deck.fail("poisson.solve",
                "self-gravity is solved level by level at each level step: expected "
                "\"levels\" with hydro.gravity (\"composite\" is for physics.module = "
                "\"poisson\")");
    const MgConfig mg = read_mg_config(deck);
    const PoissonBc bc = read_poisson_bc(deck, cfg_.geom0);
    if (gravity) {
      solve_ = std::make_unique<SelfGravitySolve>(*physics_, mg, bc);
    } else if (mode == "composite") {
      solve_ = std::make_unique<CompositePoissonHook>(mg, bc, ef);
    } else {
      solve_ = std::make_unique<LevelByLevelPoisson>(mg, bc, ef);
    }
  }
  RankSetup setup =
      read_rank_setup(deck, check_ranks > 0 ? check_ranks : comm_.size(), comm_.rank());
  // Level 0 stores fluxes only where a finer level may come (Hierarchy::flux_storage).
  MemoryBudget budget;
  if (check_ranks > 0)  // the key is still read, so that a bad value is found
    memory_per_node(deck);
  else
    budget = check_memory(deck, cfg_, physics_->ncomp(), physics_->nghost(),
                          physics_->flux_storage(cfg_.max_level > 0), comm_);
  comm_.set_emulation(setup.emulation);  // before the hierarchy copies the Comm
  setup.ranks.measured.bytes_per_cell = 8.0 * double(physics_->component_names().size());
  planner_ = std::make_unique<BalancerPlanner>(deck, cfg_, setup.ranks, comm_);
  balance_interval_ = deck.get<int>("balance.interval", 0);
  if (balance_interval_ < 0)
    deck.fail("balance.interval",
              "expected a number of coarse steps >= 0 (0: only after "
              "regrids), got " +
                  std::to_string(balance_interval_));
  allow_unstable_dt_ = deck.get<bool>("time.allow_unstable_dt", false);
  // Process-wide, before the hierarchy allocates anything; not for a check on another
  // rank count, which allocates none.
  const bool keep_freed = deck.get<bool>("ranks.keep_freed_memory", false);
  if (keep_freed && check_ranks == 0) {
    keep_freed_memory_ = keep_freed_host_memory();
    if (!keep_freed_memory_ && comm_.rank() == 0)
      fmt::print(stderr,
                 "patchwork: warning: ranks.keep_freed_memory = true: malloc did not "
                 "take the settings (not glibc, or a sanitizer's allocator)\n");
  }
  fixed_dt_where_ = deck.where("time.fixed_dt");
  output_ = read_output_config(deck);
  units_ = read_code_units(deck);
  const std::string restart = deck.get("restart", std::string());  // a dump to continue
  deck.check_all_used();
  deck_echo_ = deck.echo();
  hierarchy_ = std::make_unique<Hierarchy>(cfg_, *physics_, *planner_, comm_);
  if (solve_) hierarchy_->set_step_hook(solve_.get());
  hierarchy_->set_memory_budget(budget);
  if (!restart.empty())  // a bad file is a UserError here, before any work
    restart_ = std::make_unique<Checkpoint>(restart, cfg_, physics_->component_names(),
                                            physics_->nghost(), comm_);
  if (restart_) {
    if (const std::string why = restart_->units_differ(units_); !why.empty())
      throw UserError(why);
    balance_before_ = std::max(restart_->balance_steps(), 0);
  }
}

Simulation::~Simulation() = default;

RunResult Simulation::run(bool verbose) {
  RunResult r;
  const double start = MPI_Wtime();
  const long faults_before = host_memory_use().minor_page_faults;
  if (restart_ && !restart_->nothing_to_do(cfg_).empty()) {  // says so, writes nothing
    if (verbose && comm_.rank() == 0) fmt::print("{}\n", restart_->nothing_to_do(cfg_));
    r.ran = false;
    r.steps = restart_->step();
    return r;
  }
  if (output_.write) {
    make_output_dir(output_, comm_);  // a bad output.dir stops the run before any work
    history_ =
        std::make_unique<LoadHistory>(output_, comm_, restart_ ? restart_->step() : -1,
                                      restart_ ? restart_->balance_steps() : -1);
    if (comm_.rank() == 0)
      for (const std::string& w : dump_warnings(cfg_))
        fmt::print(stderr, "patchwork: warning: {}\n", w);
  }
  if (solve_) solve_->set_verbose(verbose);
  if (restart_) {
    restart_->restore(*hierarchy_);
    r.steps = restart_->step();
    r.initial_totals = restart_->initial_totals();
    if (verbose && comm_.rank() == 0)
      fmt::print("restart from {} at step {} time {:.6e}\n", restart_->path(), r.steps,
                 hierarchy_->time());
  } else {
    hierarchy_->initialize();
  }
  check_finite(*hierarchy_, physics_->component_names(), r.steps);
  // A fixed step above the first step's CFL limit is found before anything is written
  // (the load history, the dump of step 0): an earlier run's files stay as they were.
  Hierarchy& h = *hierarchy_;
  const auto steps_left = [&] {
    return r.steps < cfg_.max_step && h.time() < cfg_.stop_time * (1 - 1e-12);
  };
  if (cfg_.fixed_dt > 0 && steps_left()) check_fixed_dt(r.steps);
  const int first_step = r.steps;
  if (r.initial_totals.empty()) r.initial_totals = component_totals(*hierarchy_);
  report_balancing(r, verbose);
  if (!restart_ && output_.due(0)) dump(0, r, verbose);
  r.launches_before_steps = LaunchCounter::so_far();
  while (steps_left()) {
    if (cfg_.fixed_dt > 0 && r.steps > first_step) check_fixed_dt(r.steps);
    double dt = cfg_.fixed_dt > 0 ? cfg_.fixed_dt : h.stable_dt();
    dt = std::min(dt, cfg_.stop_time - h.time());
    const double step_start = MPI_Wtime();
    const double balance_before = phase_seconds("balance");
    h.advance(dt);
    ++r.steps;
    check_finite(h, physics_->component_names(), r.steps, h.averaged_after_step());
    measure_step(MPI_Wtime() - step_start, phase_seconds("balance") - balance_before);
    // balance.interval: rebalance every N coarse steps too, not only after regrids.
    if (balance_interval_ > 0 && r.steps % balance_interval_ == 0) h.rebalance();
    if (verbose) print_step(r.steps, dt);
    report_balancing(r, verbose);
    if (output_.due(r.steps)) dump(r.steps, r, verbose);
  }
  r.launches_after_steps = LaunchCounter::so_far();
  if (output_.write && !output_.due(r.steps)) dump(r.steps, r, verbose);
  r.wall_seconds = MPI_Wtime() - start;
  const HostMemoryUse memory = host_memory_use();
  r.peak_resident_bytes = memory.peak_resident_bytes;
  r.minor_page_faults = memory.minor_page_faults - faults_before;
  r.time = h.time();
  r.final_totals = component_totals(h);
  r.fingerprint = fingerprint(h);
  r.cell_updates = h.cell_updates();
  r.level_steps = h.level_steps();
  r.finest_level = h.finest_level();
  r.regrids = h.regrid_count();
  const std::vector<std::string> counter_names = physics_->counter_names();
  const std::vector<long> counts = h.physics_counters();
  for (size_t c = 0; c < counts.size(); ++c)
    r.physics_counters.emplace_back(counter_names[c], counts[c]);
  if (solve_) {
    r.solve_mode = solve_->mode();
    r.solves = solve_->solves();
    r.solve_cycles = solve_->cycles();
  }
  if (verbose) print_summary(r);
  return r;
}

void Simulation::dump(int step, RunResult& r, bool verbose) {
  PhaseTimers::Scope scope(hierarchy_->timers(), "output");
  DumpInfo info{physics_->component_names(),
                step,
                deck_echo_,
                r.initial_totals,
                hierarchy_->physics_counters(),
                planner_->balancer().name(),
                {},
                units_,
                balance_before_ + int(reported_)};
  if (!planner_->records().empty()) {
    const LoadMetrics& now = planner_->records().back().load;
    const LoadMetrics& mean = r.balance.mean;
    info.balance_metrics = {{"imbalance", now.imbalance},
                            {"std", now.std},
                            {"idle", now.idle},
                            {"estimated_balance", now.estimated_balance},
                            {"uintah_i", now.uintah_i},
                            {"imbalance_ratio", mean.imbalance},
                            {"avg_std", mean.std},
                            {"idle_procs", mean.idle},
                            {"mean_estimated_balance", mean.estimated_balance},
                            {"mean_uintah_i", mean.uintah_i},
                            {"balancing_steps", double(r.balance.steps)}};
  }
  r.dumps.push_back(write_dump(*hierarchy_, info, output_));
  if (verbose && comm_.rank() == 0) fmt::print("dump {}\n", r.dumps.back());
}

void Simulation::check_fixed_dt(int step) {
  const double limit = hierarchy_->stable_dt() / cfg_.cfl;  // at CFL number 1
  if (cfg_.fixed_dt <= limit) return;
  const std::string what = fmt::format(
      "{} is above the CFL limit {:.6g} (CFL number 1) of step {}, time {:.6g}: the "
      "run would be unstable",
      to_toml(cfg_.fixed_dt), limit, step + 1, hierarchy_->time());
  if (!allow_unstable_dt_)
    throw UserError(fixed_dt_where_ +
                    ": time.fixed_dt: expected at most the CFL limit; " + what +
                    " (time.allow_unstable_dt = true runs it anyway)");
  if (!warned_unstable_dt_ && comm_.rank() == 0)
    fmt::print(stderr, "patchwork: warning: time.fixed_dt: {} (time.allow_unstable_dt)\n",
               what);
  warned_unstable_dt_ = true;
}

double Simulation::phase_seconds(const std::string& phase) const {
  const auto& s = hierarchy_->timers().seconds();
  auto it = s.find(phase);
  return it == s.end() ? 0.0 : it->second;
}

void Simulation::measure_step(double seconds, double balance_seconds) {
  if (!planner_->balancer().weighs_cost()) return;
  // The slowest rank's times, so that every rank's balancer sees the same.
  const double step = comm_.max(seconds);
  const double balance = comm_.max(balance_seconds);
  if (balance > 0) overhead_ = balance;  // delta: the last balancing's own time
  planner_->set_measurements(step, overhead_);
}

void Simulation::print_step(int step, double dt) const {
  if (comm_.rank() != 0) return;
  const Hierarchy& h = *hierarchy_;
  std::string levels;
  for (int l = 0; l <= h.finest_level(); ++l)
    levels += fmt::format(" | L{} {} patches {} cells", l, h.level(l).layout.size(),
                          h.level(l).num_cells());
  fmt::print("step {:5d} time {:.6e} dt {:.6e}{}\n", step, h.time(), dt, levels);
  std::fflush(stdout);
}

void Simulation::report_balancing(RunResult& r, bool verbose) {
  const auto& events = hierarchy_->balance_events();
  const auto& records = planner_->records();
  for (; reported_ < events.size() && reported_ < records.size(); ++reported_) {
    const BalanceEvent& e = events[reported_];
    const PlanRecord& p = records[reported_];
    r.balance.add(p.load);
    r.bytes_migrated += e.bytes_migrated;
    r.mean_cut_cells +=
        (double(e.cut_cells) - r.mean_cut_cells) / double(r.balance.steps);
    r.patches_split += p.split;
    r.balancer_seconds += p.seconds;
    const int number = balance_before_ + int(reported_) + 1;  // across restarts
    if (history_) history_->append(number, e, p, planner_->balancer().name());
    if (!verbose || comm_.rank() != 0) continue;
    fmt::print(
        "balance {:4d} step {} {}: imbalance {:.4f} std {:.4f} idle {}% est. balance "
        "{}% I {:.4f} | {} patches, {} split, migrated {:.3f} MB, cut {} ghost "
        "cells, "
        "{:.3f} ms{}\n",
        number, e.step, planner_->balancer().name(), p.load.imbalance, p.load.std,
        percent(p.load.idle), percent(p.load.estimated_balance), p.load.uintah_i,
        p.patches, p.split, e.bytes_migrated / 1e6, e.cut_cells, 1e3 * p.seconds,
        p.note.empty() ? "" : " | " + p.note);
  }
}

void Simulation::print_summary(const RunResult& r) const {
  // Phase times differ between ranks; report the slowest rank's, as that sets the pace.
  std::vector<std::pair<std::string, double>> phases;
  for (const auto& [name, s] : hierarchy_->timers().seconds())
    phases.emplace_back(name, comm_.max(s));
  const double peak_resident = comm_.max(r.peak_resident_bytes);
  const long faults = long(comm_.max(double(r.minor_page_faults)));
  if (comm_.rank() != 0) return;
  fmt::print(
      "run summary: {} steps to time {:.6e}, finest level {}, {} regrids, {} ranks\n",
      r.steps, r.time, r.finest_level, r.regrids, comm_.size());
  fmt::print("wall time: {:.3f} s\n", r.wall_seconds);
  for (const auto& [name, s] : phases)
    fmt::print("  phase {:<12} {:9.3f} s\n", name, s);
  fmt::print("cell updates: {}\n", r.cell_updates);
  fmt::print("cell-updates/s: {:.0f}\n", double(r.cell_updates) / r.wall_seconds);
  fmt::print(
      "host memory: peak resident {:.1f} MB, {} minor page faults in the run (each the "
      "max over ranks); freed memory: {}\n",
      peak_resident / 1e6, faults, keep_freed_memory_ ? "kept" : "malloc's own settings");
  for (size_t c = 0; c < r.final_totals.size(); ++c) {
    const double t0 = r.initial_totals[c];
    const double rel = (r.final_totals[c] - t0) / (t0 != 0 ? std::abs(t0) : 1.0);
    fmt::print("total {}: initial {:.17e} final {:.17e} relative change {:.3e}\n",
               physics_->component_names()[c], t0, r.final_totals[c], rel);
  }
  const LoadMetrics& m = r.balance.mean;
  fmt::print(
      "balance summary ({}, {} balancing steps): imbalance_ratio {:.4f} avg_std {:.4f} "
      "idle_procs {}% estimated load balance {}% I {:.4f}; migrated {:.3f} MB, "
      "{} patches split, mean cut {:.0f} ghost cells, balancer time {:.3f} ms\n",
      planner_->balancer().name(), r.balance.steps, m.imbalance, m.std, percent(m.idle),
      percent(m.estimated_balance), m.uintah_i, r.bytes_migrated / 1e6, r.patches_split,
      r.mean_cut_cells, 1e3 * r.balancer_seconds);
  if (solve_)
    fmt::print("poisson: {} {} solves, {} {} in all\n", r.solves,
               r.solve_mode == "composite" ? "composite" : "level", r.solve_cycles,
               r.solve_mode == "composite" ? "composite cycles" : "V-cycles");
  for (const auto& [name, count] : r.physics_counters)
    fmt::print("counter {}: {}\n", name, count);
  fmt::print("fingerprint: {:016x}\n", r.fingerprint);
  std::fflush(stdout);
}

}  // namespace pw
