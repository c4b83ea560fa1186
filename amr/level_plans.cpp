#include "amr/level_plans.hpp"

#include "amr/level_data.hpp"

namespace pw {

CoarseFineFill::CoarseFineFill(const LevelData& fine,
                               const std::vector<BoxList>& cf_regions,
                               const LevelLayout& crse, const LevelGeom& crse_geom,
                               const IntVect& ratio, int my_rank)
    : ratio_(ratio),
      crse_geom_(crse_geom),
      dim_(fine.geom().dim),
      cf_regions_(cf_regions) {
  const size_t n = fine.size();
  const IntVect one = IntVect::in_dims(dim_, 1, 0);
  crse_regions_.assign(n, BoxList());
  crse_old_.assign(n, Fab());
  crse_new_.assign(n, Fab());
  for (size_t p = 0; p < n; ++p) {
    if (cf_regions_[p].empty()) continue;
    // Only the coarse cells under the ghosts (plus one for slopes) are copied, as
    // disjoint boxes; the scratch fab spans them all.
    for (const Box& b : cf_regions_[p]) {
      const BoxList fresh =
          difference(BoxList{grow(coarsen(b, ratio), one)}, crse_regions_[p]);
      crse_regions_[p].insert(crse_regions_[p].end(), fresh.begin(), fresh.end());
    }
    const Box cb = bounding_box(crse_regions_[p]);
    if (fine.owns(p)) {
      crse_old_[p] = Fab("crse_old", cb, fine.ncomp());
      crse_new_[p] = Fab("crse_new", cb, fine.ncomp());
    }
  }
  const std::vector<IntVect> shifts =
      periodic_shifts(crse_geom.domain, crse_geom.periodic);
  plan_ =
      CopyPlan::intersecting(crse, crse_regions_, fine.layout().owner, shifts, my_rank);
}

void CoarseFineFill::fill(LevelData& fine, const LevelData& crse_old,
                          const LevelData& crse_new, double a,
                          const std::vector<Interp>& interp, const BcSet& crse_bcs,
                          const Comm& comm) {
  if (a > 0.0) plan_.copy(crse_new.fabs(), crse_new_, comm);
  if (a < 1.0) plan_.copy(crse_old.fabs(), crse_old_, comm);
  for (size_t p = 0; p < fine.size(); ++p) {
    if (!fine.owns(p) || cf_regions_[p].empty()) continue;
    // Both scratch fabs are this plan's own; blending in place is element-wise.
    Fab& crse = (a == 0.0) ? crse_old_[p] : crse_new_[p];
    if (a > 0.0 && a < 1.0)
      for (const Box& b : crse_regions_[p])
        blend(crse_old_[p], crse_new_[p], a, crse, b);
    fill_physical_boundary(crse_geom_, crse, crse_bcs);
    for (const Box& b : cf_regions_[p])
      interpolate_to_fine(crse, fine[p], b, ratio_, dim_, interp);
  }
}

AverageDown::AverageDown(const LevelData& fine, const LevelLayout& crse,
                         const IntVect& ratio, int my_rank)
    : ratio_(ratio) {
  const size_t n = fine.size();
  LevelLayout avg_layout{BoxList(n), fine.layout().owner};
  avg_.assign(n, Fab());
  for (size_t p = 0; p < n; ++p) {
    avg_layout.boxes[p] = coarsen(fine.box(p), ratio);
    if (fine.owns(p)) avg_[p] = Fab("avg", avg_layout.boxes[p], fine.ncomp());
  }
  std::vector<BoxList> crse_boxes(crse.size());
  for (size_t q = 0; q < crse.size(); ++q)
    crse_boxes[q] = {crse.boxes[q]};
  plan_ = CopyPlan::intersecting(avg_layout, crse_boxes, crse.owner, {}, my_rank);
}

void AverageDown::apply(const LevelData& fine, LevelData& crse, const Comm& comm) {
  for (size_t p = 0; p < fine.size(); ++p)
    if (fine.owns(p)) average_to_coarse(fine[p], avg_[p], avg_[p].box, ratio_);
  plan_.copy(avg_, crse.fabs(), comm);
}

}  // namespace pw
