// Hierarchy: the levels of a Berger-Colella AMR run and the operations on them: building
// the initial levels, recursive subcycled time stepping with refluxing and average-down,
// regridding, ghost fill and data remapping. It owns no physics and no balancer: it calls
// the Physics interface for patch work and a LayoutPlanner for ownership.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "amr/amr_config.hpp"
#include "amr/comm.hpp"
#include "amr/layout_planner.hpp"
#include "amr/level.hpp"
#include "amr/memory_budget.hpp"
#include "amr/phase_timers.hpp"
#include "amr/physics.hpp"
#include "amr/step_hook.hpp"

namespace pw {

/// What one balancing step moved, for the balance metrics.
struct BalanceEvent {
  int step = 0;  // level-0 steps taken when it happened
  double time = 0;
  long bytes_migrated = 0;  // field data that changed rank (all ranks)
  long cut_cells = 0;  // ghost cells filled from another rank, all levels, afterwards
};

/// A level's time-stepper state, as a checkpoint records it.
struct LevelClock {
  double t_old = 0, t_new = 0;
  int steps = 0;
  int last_regrid_step = 0;
};

/// What Hierarchy::restore() sets besides the layouts and the data.
struct RestoreState {
  std::vector<LevelClock> clocks;  // per level
  long cell_updates = 0;
  int regrids = 0;
  std::vector<long> physics_counters;  // sums over ranks; empty: start from zero
};

/// Fills the interior of u_new on this rank's patches of level l (`layout`: its boxes
/// and owners). Collective over the hierarchy's communicator.
using LevelReader =
    std::function<void(int l, const LevelLayout& layout, std::vector<Fab>& u_new)>;

class Hierarchy {
 public:
  Hierarchy(const AmrConfig& cfg, const Physics& physics, LayoutPlanner& planner,
            const Comm& comm);

  /// Build level 0 and every finer level the tags ask for, with initial data at t = 0.
  void initialize();
  /// Instead of initialize(): rebuild a checkpointed hierarchy at a coarse-step
  /// boundary. layouts[l]: level l's boxes (owners outside [0, ranks) are replaced by
  /// provisional ones); `read` fills each level's data. Then the planner balances, as
  /// after a regrid. Pre: layouts properly nested, at most max_level + 1 levels.
  void restore(const std::vector<LevelLayout>& layouts, const RestoreState& state,
               const LevelReader& read);
  /// The level-0 step allowed by the CFL condition on every level (global minimum).
  double stable_dt() const;
  /// One coarse step: level 0 by dt, finer levels subcycled, with regrids as scheduled.
  void advance(double dt);

  int finest_level() const { return int(levels_.size()) - 1; }
  const Level& level(int l) const { return levels_[l]; }
  /// For a StepHook, which may change the state's values (never the layouts).
  Level& level(int l) { return levels_[l]; }
  /// Called when every level is at one time (after initialize(), restore() and each
  /// coarse step) and after each level step; null for none. Not owned.
  void set_step_hook(StepHook* hook) { hook_ = hook; }
  /// Whether after advance() level 0 holds the average of every finer cell: each level
  /// is averaged down at the end of its parent's step, unless the hook then writes the
  /// state.
  bool averaged_after_step() const { return !hook_ || !hook_->writes_state_at_sync(); }
  /// What a node gives the field data: a finer level that would take the hierarchy
  /// beyond it is refused before it is allocated (RunFailure). Default: no check.
  void set_memory_budget(const MemoryBudget& budget) { budget_ = budget; }
  double time() const { return levels_[0].t_new; }
  int ncomp() const { return ncomp_; }
  int nghost() const { return nghost_; }
  /// The fluxes' extra columns each side in x (Physics::flux_padding).
  int flux_padding() const { return flux_padding_; }
  /// How level l's fluxes are stored at most: in its arrays (padded by flux_padding())
  /// unless the physics keeps them in scratch and l is the finest level the deck allows
  /// (no finer level will reflux it); for the memory estimates.
  FluxStorage flux_storage(int l) const {
    return physics_.flux_storage(l < cfg_.max_level);
  }
  const AmrConfig& config() const { return cfg_; }
  const Comm& comm() const { return comm_; }
  PhaseTimers& timers() { return timers_; }
  /// Sum over level steps of the cells advanced (all ranks).
  long cell_updates() const { return cell_updates_; }
  /// Steps this process has taken on each level (not kept in checkpoints): per level
  /// step, what a run costs in launches or messages.
  const std::vector<long>& level_steps() const { return level_steps_; }
  /// The sums over all ranks of the physics module's counters since the start (one per
  /// Physics::counter_names() entry). Collective.
  std::vector<long> physics_counters() const;
  /// Number of regrids so far.
  int regrid_count() const { return regrids_; }
  /// One entry per call of the planner, in order (every rank holds the same).
  const std::vector<BalanceEvent>& balance_events() const { return events_; }

  /// Fill the ghost cells of level l's u_new at `time` (same level, coarse-fine,
  /// physical).
  void fill_ghosts(int l, double time);
  /// fill_ghosts in two halves: after begin, the ghost cells of the patches in
  /// u_new.ghosts_on_rank(true) are filled while the same-level messages may still fly;
  /// after finish, all are.
  void fill_ghosts_begin(int l, double time);
  void fill_ghosts_finish(int l, double time);
  /// Regrid levels > base from tags on the current data (public for tests).
  void regrid(int base);
  /// Rebalance every level between coarse steps (all levels are in step then), with the
  /// costs measured since the last regrid.
  void rebalance() {
    report_costs();
    balance(0);
  }
  /// Average every level down onto the next coarser one, finest first.
  void average_down_all();
  /// Add `seconds` of work on level l (an elliptic solve, this rank's time) to its owned
  /// patches' measured costs, shared by cells as the update's time is.
  void add_measured_seconds(int l, double seconds);

 private:
  void advance_level(int l, double dt);
  /// The update of `group`'s patches of level l from `time` over dt (their fine fluxes
  /// into the flux register), its time added to the patches' measured seconds.
  void advance_patches(int l, double time, double dt, const LevelData::PatchGroup& group);
  /// `seconds` shared among `patches` of level l by cells (0 for the others).
  std::vector<double> shared_by_cells(int l, const std::vector<int>& patches,
                                      double seconds) const;
  void average_down(int fine);
  /// Level-(l+1) boxes from tags on level l's current data.
  BoxList tag_and_cluster(int l);
  /// Level l's new boxes with the owners they are filled on: the current owner where a
  /// box is unchanged; elsewhere the planner's choice (LayoutPlanner::place), or round
  /// robin when it has none. Levels below l keep their layouts.
  LevelLayout placed(int l, BoxList boxes);
  /// Give level l the layout `next`, moving its data: copied from the old layout where it
  /// overlaps, interpolated from level l-1 elsewhere. Rebuilds the plans of l and l+1.
  /// Returns the bytes this rank received from other ranks' old patches.
  long remap(int l, const LevelLayout& next);
  /// Tell the planner the measured time per coarse step of every patch, and restart
  /// timing.
  void report_costs();
  /// Ask the planner for the owners of levels >= first_free and move their data. Coarser
  /// levels are in the middle of a step (their fluxes and registers are still needed).
  void balance(int first_free);
  /// Rebuild level l's flux register (after level l or l - 1 changed layout); the
  /// fields' copy plans follow their layouts by themselves.
  void build_plans(int l);
  /// Physics scratch for the largest owned patch of L (one buffer, grown when needed).
  Scratch largest_scratch(const Level& L) const;
  /// L's fields: the states' values 0, the fluxes' unset (the update writes them all
  /// before anything reads them), fluxes only where old had them or the physics cannot
  /// keep them in scratch (fit_fluxes sees to the rest). With `old`, the level L
  /// replaces at a regrid: L's u_new and fluxes take the memory of old's u_old and
  /// fluxes, and L's u_old is left for the caller to make in old's u_new's memory once
  /// it has been copied from (remap).
  void allocate(Level& L, Level* old = nullptr);
  /// Level L's face data in direction d (none beyond the domain's dimension), in
  /// `storage` where it fits (storage_fits).
  LevelData flux_data(const Level& L, int d, Kokkos::View<double*> storage) const;
  /// Level l stores its fluxes only where a later step reads them: the reflux, on a
  /// level with a finer one; elsewhere the update keeps them in scratch where the module
  /// can (Physics::fluxes_in_scratch). Called for every level after a build or restore,
  /// and for level l before each of its steps, once its regrid is done: a regrid changes
  /// only the levels above its base, which are fitted at their own next step.
  void fit_fluxes(int l);
  Level make_level(int l, const LevelLayout& layout) const;
  IntVect ghosts() const { return IntVect::in_dims(cfg_.geom0.dim, nghost_, 0); }
  /// Throws RunFailure, on every rank, when the field data of the levels below l, level l
  /// in `boxes` and the levels above it would exceed the budget; `when` says at what
  /// point of the run (for the message).
  void check_budget(int l, const BoxList& boxes, const std::string& when) const;

  AmrConfig cfg_;
  const Physics& physics_;
  LayoutPlanner& planner_;
  Comm comm_;
  int ncomp_;
  int nghost_;
  int flux_padding_;
  int n_proper_;
  BcSet bcs_;                   // the state's walls, per component
  std::vector<Interp> interp_;  // the state's coarse-fine interpolation, per component
  mutable Scratch scratch_;
  Counters counters_;  // the module's event counts on this rank
  StepHook* hook_ = nullptr;
  MemoryBudget budget_;
  std::vector<Level> levels_;
  PhaseTimers timers_;
  long cell_updates_ = 0;
  std::vector<long> level_steps_;
  int regrids_ = 0;
  std::vector<BalanceEvent> events_;
};

}  // namespace pw
