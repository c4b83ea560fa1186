#include "app/balancer_planner.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "app/network_probe.hpp"
#include "balance/mpi_rank_comm.hpp"
#include "balance/patch_family.hpp"
#include "balance/relabel.hpp"

namespace pw {

namespace {

/// A level's patches as balancer metadata (boxes, level, owners; no costs).
std::vector<PatchMeta> metas(const LevelLayout& layout, int level, int refinement) {
  std::vector<PatchMeta> out;
  for (size_t p = 0; p < layout.size(); ++p)
    out.push_back({layout.boxes[p], level, layout.owner[p], 0.0, refinement, -1});
  return out;
}

}  // namespace

BalancerPlanner::BalancerPlanner(const Deck& deck, const AmrConfig& cfg,
                                 const RankInfo& ranks, const Comm& comm)
    : balancer_(make_balancer(
          deck, SplitRules{cfg.geom0.dim, cfg.blocking_factor, cfg.blocking_factor})),
      cfg_(cfg),
      forecast_(cfg.blocking(), deck.get<int>("balance.forecast_window", 20)),
      ranks_(ranks),
      comm_(comm) {
  if (deck.get<int>("balance.forecast_window", 20) < 1)
    deck.fail("balance.forecast_window", "expected a positive number of steps");
  const std::string cost = deck.get<std::string>("balance.cost", "cells");
  if (cost == "cells") {
    cost_ = Cost::cells;
  } else if (cost == "model") {
    cost_ = Cost::model;
    cost_patch_ = deck.get<double>("balance.cost_patch", 0.0);
    cost_cell_ = deck.get<double>("balance.cost_cell", 1.0);
    // NaN fails every comparison: ask for what is right, not against what is wrong.
    for (const auto& [key, v] : {std::pair{"balance.cost_patch", cost_patch_},
                                 std::pair{"balance.cost_cell", cost_cell_}})
      if (!(v >= 0 && std::isfinite(v)))
        deck.fail(key, "expected a finite number >= 0, got " + to_toml(v));
    if (cost_patch_ + cost_cell_ <= 0)
      deck.fail("balance.cost_cell", "expected c_p >= 0 and c_c >= 0, not both 0");
  } else if (cost == "measured") {
    cost_ = Cost::measured;
  } else {
    deck.fail("balance.cost",
              "expected one of cells, model, measured, got '" + cost + "'");
  }
  if (!balancer_->whole_hierarchy() || deck.has("balance.levels")) {
    const std::string levels = deck.get<std::string>("balance.levels", "each");
    if (levels != "each" && levels != "all")
      deck.fail("balance.levels", "expected \"each\" or \"all\", got '" + levels + "'");
    if (levels == "each" && balancer_->whole_hierarchy())
      deck.fail("balance.levels", balancer_->name() +
                                      " balances all levels in one call (level by level "
                                      "inside it): remove the key or set \"all\"");
    each_level_ = levels == "each";
  } else {
    each_level_ = false;
  }
  ranks_.measured.probe_network = [this] {
    const NetworkModel net = probe_network(comm_, ranks_.group);
    return std::make_pair(net.alpha, net.beta);
  };
  rank_comm_ = std::make_unique<MpiRankComm>(comm.raw());
  ranks_.comm = rank_comm_.get();
}

std::vector<LevelLayout> BalancerPlanner::plan(const std::vector<LevelLayout>& proposed,
                                               int first_free) {
  // Levels below first_free keep their owners; the others go to the balancer, together or
  // one level at a time (subcycled levels run one after the other, so each level's own
  // balance is what keeps ranks from waiting on each other).
  const int nlev = int(proposed.size());
  std::vector<LevelLayout> out(proposed.size());
  for (int l = 0; l < first_free && l < nlev; ++l)
    out[l] = proposed[l];
  PlanRecord rec;
  hops_.clear();
  std::vector<PatchMeta> patches;
  for (int l = first_free; l < nlev; ++l) {
    const std::vector<PatchMeta> level = level_patches(proposed, l);
    patches.insert(patches.end(), level.begin(), level.end());
    if (each_level_ || l == nlev - 1) {
      const double start = MPI_Wtime();
      Plan plan = balancer_->plan(patches, ranks_);
      rec.seconds += MPI_Wtime() - start;
      rec.patches += int(patches.size());
      rec.split += int(plan.boxes.size()) - int(patches.size());
      if (!plan.note.empty()) rec.note += (rec.note.empty() ? "" : "; ") + plan.note;
      // Data that follows the schedule passes through the ranks it names: no renaming.
      if (!plan.hop_by_hop) keep_data_in_place(plan, patches, ranks_);
      std::vector<int> slot(plan.boxes.size());
      for (size_t n = 0; n < plan.boxes.size(); ++n) {
        slot[n] = int(out[plan.level[n]].size());
        out[plan.level[n]].boxes.push_back(plan.boxes[n]);
        out[plan.level[n]].owner.push_back(plan.owner[n]);
      }
      if (plan.hop_by_hop) record_hops(plan, slot);
      patches.clear();
    }
  }
  // Loads of the whole hierarchy, fixed levels included: that is what the ranks will run.
  std::vector<double> work(size_t(ranks_.nranks), 0.0);
  rec.rank_patches.assign(size_t(ranks_.nranks), 0);
  double sub = 1;
  for (int l = 0; l < nlev; ++l) {
    if (l > 0) sub *= cfg_.ref_ratio[l - 1];
    for (size_t p = 0; p < out[l].size(); ++p) {
      const size_t owner = size_t(out[l].owner[p]);
      work[owner] += double(out[l].boxes[p].num_cells()) * sub;
      ++rec.rank_patches[owner];
    }
  }
  rec.load = load_metrics(work, ranks_.speed);
  rec.rank_load.resize(work.size());
  for (size_t r = 0; r < work.size(); ++r)
    rec.rank_load[r] = work[r] / ranks_.speed[r];
  records_.push_back(rec);
  return out;
}

std::vector<PatchMeta> BalancerPlanner::level_patches(
    const std::vector<LevelLayout>& levels, int l) const {
  double substeps = 1;
  int refinement = 1;
  for (int m = 0; m < l; ++m) {
    substeps *= cfg_.ref_ratio[m];
    refinement *= cfg_.ref_ratio[m];
  }
  const LevelLayout& layout = levels[size_t(l)];
  const std::vector<int> parents =
      l > 0 && balancer_->whole_hierarchy()
          ? parents_in(
                metas(layout, l, refinement),
                metas(levels[size_t(l - 1)], l - 1, refinement / cfg_.ref_ratio[l - 1]))
          : std::vector<int>(layout.size(), -1);
  std::vector<PatchMeta> out;
  for (size_t p = 0; p < layout.size(); ++p)
    out.push_back(
        {layout.boxes[p], l, layout.owner[p], cost(l, layout.boxes[p], substeps),
         refinement,
         parents[p] >= 0 ? levels[size_t(l - 1)].owner[size_t(parents[p])] : -1});
  return out;
}

std::vector<int> BalancerPlanner::place(const std::vector<LevelLayout>& levels,
                                        int level) {
  // Only where plan() will see this level alone and its answer cannot depend on what the
  // run measures: then the balancer's owners now are the ones it will give again.
  if (!each_level_ || balancer_->whole_hierarchy() || balancer_->weighs_cost()) return {};
  const std::vector<PatchMeta> patches = level_patches(levels, level);
  Plan plan = balancer_->plan(patches, ranks_);
  if (plan.hop_by_hop || plan.boxes.size() != patches.size()) return {};  // it splits
  keep_data_in_place(plan, patches, ranks_);
  std::vector<int> owner(patches.size(), -1);
  for (size_t n = 0; n < plan.boxes.size(); ++n)
    owner[size_t(plan.source[n])] = plan.owner[n];
  return owner;
}

void BalancerPlanner::record_hops(const Plan& plan, const std::vector<int>& slot) {
  std::vector<std::vector<int>> pieces(plan.source.size());  // input patch -> its boxes
  for (size_t n = 0; n < plan.source.size(); ++n)
    pieces[size_t(plan.source[n])].push_back(int(n));
  for (const Transfer& t : plan.schedule)
    for (int n : pieces.at(size_t(t.patch)))
      hops_.push_back({t.step, plan.level[n], slot[n], t.from, t.to});
  std::stable_sort(
      hops_.begin(), hops_.end(),
      [](const LayoutHop& a, const LayoutHop& b) { return a.step < b.step; });
}

double BalancerPlanner::cost(int level, const Box& box, double substeps) const {
  const double cells = double(box.num_cells());
  switch (cost_) {
    case Cost::model:
      return (cost_patch_ + cost_cell_ * cells) * substeps;
    case Cost::measured: {
      // Until a first measurement, every patch is costed by its cells (one unit for all).
      const double f = forecast_.predict(level, box);
      return f >= 0 ? f : cells * substeps;
    }
    case Cost::cells:
      break;
  }
  return cells * substeps;
}

void BalancerPlanner::observe(const std::vector<LevelLayout>& layouts,
                              const std::vector<std::vector<double>>& seconds) {
  if (cost_ != Cost::measured) return;
  for (size_t l = 0; l < layouts.size(); ++l)
    for (size_t p = 0; p < layouts[l].size(); ++p)
      if (seconds[l][p] > 0)
        forecast_.observe(int(l), layouts[l].boxes[p], seconds[l][p]);
}

}  // namespace pw
