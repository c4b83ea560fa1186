// LayoutPlanner backed by a Balancer: turns the hierarchy's levels into the balancer's
// patch list (cost = cells x substeps of the level) and its plan back into level layouts.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "amr/amr_config.hpp"
#include "amr/comm.hpp"
#include "amr/layout_planner.hpp"
#include "balance/balancer.hpp"
#include "balance/cost_forecast.hpp"
#include "balance/metrics.hpp"
#include "balance/rank_comm.hpp"

namespace pw {

/// What the balancer did in one call of the planner.
struct PlanRecord {
  LoadMetrics load;               // of the whole hierarchy's distribution afterwards
  std::vector<double> rank_load;  // per rank, afterwards: cells x substeps / speed
  std::vector<int> rank_patches;  // per rank, afterwards: patches owned on all levels
  int patches = 0;                // patches handed to the balancer
  int split = 0;                  // extra patches its splits made
  double seconds = 0;
  std::string note;  // the balancer's account of its decision (Plan::note), if any
};

class BalancerPlanner : public LayoutPlanner {
 public:
  /// Reads balance.method (and its parameters), balance.levels = "each" (default: every
  /// level balanced on its own) | "all" (all free levels together), and the cost model:
  /// balance.cost = "cells" (default: cells x substeps) | "model" (W = c_p + c_c N_c per
  /// step, balance.cost_patch and balance.cost_cell, seed 004 §4.2) | "measured" (kernel
  /// time forecast per region, balance.forecast_window T = 20, seed 004 §4.2.1).
  /// `ranks`: groups and speeds (see app/rank_setup.hpp); `comm` the run's, for
  /// measuring the network when the balancer weighs costs.
  BalancerPlanner(const Deck& deck, const AmrConfig& cfg, const RankInfo& ranks,
                  const Comm& comm);
  std::vector<LevelLayout> plan(const std::vector<LevelLayout>& proposed,
                                int first_free) override;
  /// The balancer's owners for the level alone, when balance.levels = "each" and the
  /// balancer neither splits, routes hop by hop, weighs measured costs nor needs the
  /// whole hierarchy; else none. Not a balancing step: no record.
  std::vector<int> place(const std::vector<LevelLayout>& levels, int level) override;
  void observe(const std::vector<LevelLayout>& layouts,
               const std::vector<std::vector<double>>& seconds) override;
  std::vector<LayoutHop> hops() const override { return hops_; }
  const Balancer& balancer() const { return *balancer_; }
  /// Groups and speeds of the ranks, as the balancer sees them.
  const RankInfo& ranks() const { return ranks_; }
  /// What the run measured since (seed 001's T and delta); the same on every rank.
  void set_measurements(double step_seconds, double overhead_seconds) {
    ranks_.measured.step_seconds = step_seconds;
    ranks_.measured.overhead_seconds = overhead_seconds;
  }
  /// One record per call of plan(), in order.
  const std::vector<PlanRecord>& records() const { return records_; }

 private:
  enum class Cost { cells, model, measured };
  /// Cost of a patch of `level` per coarse step (its level takes `substeps` steps).
  double cost(int level, const Box& box, double substeps) const;
  /// Level l of `levels` as the balancer's patches, with costs (and parents' owners for
  /// a balancer that keeps families together).
  std::vector<PatchMeta> level_patches(const std::vector<LevelLayout>& levels,
                                       int l) const;
  /// Adds a hop-by-hop plan's schedule to hops_; slot[n]: where plan.boxes[n] went in
  /// its level's layout.
  void record_hops(const Plan& plan, const std::vector<int>& slot);

  std::unique_ptr<Balancer> balancer_;
  AmrConfig cfg_;
  Cost cost_ = Cost::cells;
  double cost_patch_ = 0, cost_cell_ = 1;
  RegionForecast forecast_;
  RankInfo ranks_;
  Comm comm_;
  bool each_level_ = true;
  std::vector<PlanRecord> records_;
  std::unique_ptr<RankComm> rank_comm_;
  std::vector<LayoutHop> hops_;  // of the last plan()
};

}  // namespace pw
