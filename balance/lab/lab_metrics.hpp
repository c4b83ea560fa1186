// The balance lab's per-run metrics: load quality (balance/metrics), the bound any
// non-splitting balancer is held to, patches split, ghost faces cut between ranks and
// cost migrated.
#pragma once

#include <string>
#include <vector>

#include "balance/balancer.hpp"
#include "balance/metrics.hpp"

namespace pw {

struct LabMetrics {
  LoadMetrics load;
  double lower_bound = 1;  // see lower_bound(); load.imbalance is never below it
  int patches_out = 0;
  int split = 0;             // patches_out - patches in
  long comm_cut = 0;         // see comm_cut()
  double migrated_pct = -1;  // cost whose owner changed, % of all; -1: no input owners
};

/// max(1, largest cost / (total cost / nranks)): the best imbalance a balancer that does
/// not split can reach. 1 for an empty list.
double lower_bound(const std::vector<PatchMeta>& patches, int nranks);
/// With rank speeds: max(1, (largest cost / fastest speed) / T), T = total cost / sum of
/// speeds (ideal_time, the normalisation of LoadMetrics::imbalance).
double lower_bound(const std::vector<PatchMeta>& patches,
                   const std::vector<double>& speed);

/// Face-adjacent cell pairs, across the boundary between two boxes of the same level,
/// whose boxes have different owners: the cells a 1-cell ghost exchange sends between
/// ranks (each pair counted once). Pre: the boxes of a level are disjoint. Near-linear:
/// boxes are found through a spatial hash per level.
long comm_cut(const std::vector<Box>& boxes, const std::vector<int>& level,
              const std::vector<int>& owner);

/// The contract of Balancer::plan, checked: sizes agree, owners in range, every box lies
/// in its source box and the pieces of a patch have its cell count. Empty when kept,
/// else what is broken (first problem only).
std::string check_plan(const std::vector<PatchMeta>& patches, const Plan& plan,
                       int nranks);

/// All metrics of `plan` for `patches` on uniform ranks. A piece of a split patch costs
/// its share of the patch's cells. Pre: check_plan passed.
LabMetrics lab_metrics(const std::vector<PatchMeta>& patches, const Plan& plan,
                       int nranks);
/// The same on ranks of the given speeds: rank r takes its cost / speed[r], and the
/// ratios are against ideal_time (see balance/metrics.hpp).
LabMetrics lab_metrics(const std::vector<PatchMeta>& patches, const Plan& plan,
                       const std::vector<double>& speed);

}  // namespace pw
