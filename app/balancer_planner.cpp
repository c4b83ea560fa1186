#include "app/balancer_planner.hpp"

namespace pw {

std::vector<LevelLayout> BalancerPlanner::plan(const std::vector<LevelLayout>& proposed,
                                               int first_free) {
  // Only the free levels are handed to the balancer; the others keep their owners.
  std::vector<PatchMeta> patches;
  double substeps = 1;
  for (int l = 0; l < int(proposed.size()); ++l) {
    if (l > 0) substeps *= cfg_.ref_ratio[l - 1];
    if (l < first_free) continue;
    for (size_t p = 0; p < proposed[l].size(); ++p)
      patches.push_back({proposed[l].boxes[p], l, proposed[l].owner[p],
                         double(proposed[l].boxes[p].num_cells()) * substeps});
  }
  const Plan plan = balancer_->plan(patches, ranks_);
  std::vector<LevelLayout> out(proposed.size());
  for (int l = 0; l < first_free && l < int(proposed.size()); ++l)
    out[l] = proposed[l];
  for (size_t n = 0; n < plan.boxes.size(); ++n) {
    out[plan.level[n]].boxes.push_back(plan.boxes[n]);
    out[plan.level[n]].owner.push_back(plan.owner[n]);
  }
  return out;
}

}  // namespace pw
