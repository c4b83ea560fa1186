#include "amr/level_plans.hpp"

#include "amr/box_set.hpp"
#include "amr/device_array.hpp"
#include "amr/level_data.hpp"

namespace pw {

CoarseFineFill::CoarseFineFill(const LevelData& fine,
                               const std::vector<BoxList>& cf_regions,
                               const LevelLayout& crse, const LevelGeom& crse_geom,
                               const IntVect& ratio, int my_rank)
    : ratio_(ratio), dim_(fine.geom().dim) {
  const size_t n = fine.size();
  const IntVect one = IntVect::in_dims(dim_, 1, 0);
  crse_regions_.assign(n, BoxList());
  std::vector<Box> scratch(n);  // the coarse scratch fabs of owned patches
  for (size_t p = 0; p < n; ++p) {
    if (cf_regions[p].empty()) continue;
    // Only the coarse cells under the ghosts (plus one for slopes) are copied, as
    // disjoint boxes; the scratch fab spans them all.
    for (const Box& b : cf_regions[p]) {
      const BoxList fresh =
          difference(BoxList{grow(coarsen(b, ratio), one)}, crse_regions_[p]);
      crse_regions_[p].insert(crse_regions_[p].end(), fresh.begin(), fresh.end());
    }
    if (fine.owns(p)) scratch[p] = bounding_box(crse_regions_[p]);
  }
  memory_ = zeroed_fabs("crse", scratch, fine.ncomp(), crse_);
  const std::vector<IntVect> shifts =
      periodic_shifts(crse_geom.domain, crse_geom.periodic);
  plan_ =
      CopyPlan::intersecting(crse, crse_regions_, fine.layout().owner, shifts, my_rank);
  refs_ = fab_refs(crse_);
  walls_ = WallFill(crse_geom, scratch);
  std::vector<Box> cells;
  std::vector<FineRegion> regions;
  for (size_t p = 0; p < n; ++p) {
    if (!fine.owns(p)) continue;
    for (const Box& b : cf_regions[p]) {
      regions.push_back({int(p), b});
      cells.push_back(coarsen(b, ratio));
    }
  }
  region_cells_ = BoxSet(cells);
  regions_ = device_copy("CoarseFineFill::regions", regions);
}

void CoarseFineFill::fill(LevelData& fine, const LevelData& crse_old,
                          const LevelData& crse_new, double a,
                          const std::vector<Interp>& interp, const BcSet& crse_bcs,
                          const Comm& comm) {
  // Its own message tag: the fine level's same-level exchange may be in flight.
  const int tag = 11;
  // Between the coarse states, blended as the copy reads them: one message and one pass.
  if (a == 0.0)
    plan_.copy(crse_old.fabs(), crse_, comm, tag);
  else if (a == 1.0)
    plan_.copy(crse_new.fabs(), crse_, comm, tag);
  else
    plan_.copy(CopyPlan::Blend{crse_old.fabs(), crse_new.fabs(), a}, crse_, comm, tag);
  walls_.apply(refs_, crse_bcs);
  interpolate_regions(refs_, fine.refs(), regions_, region_cells_, ratio_, dim_, interp,
                      fine.ncomp());
}

AverageDown::AverageDown(const LevelData& fine, const LevelLayout& crse,
                         const IntVect& ratio, int my_rank)
    : ratio_(ratio) {
  const size_t n = fine.size();
  LevelLayout avg_layout{BoxList(n), fine.layout().owner};
  std::vector<Box> owned(n);
  for (size_t p = 0; p < n; ++p) {
    avg_layout.boxes[p] = coarsen(fine.box(p), ratio);
    if (fine.owns(p)) owned[p] = avg_layout.boxes[p];
  }
  // Written by average_to_coarse in full before the copy reads it.
  memory_ = pooled_fabs("avg", owned, fine.ncomp(), avg_);
  std::vector<BoxList> crse_boxes(crse.size());
  for (size_t q = 0; q < crse.size(); ++q)
    crse_boxes[q] = {crse.boxes[q]};
  plan_ = CopyPlan::intersecting(avg_layout, crse_boxes, crse.owner, {}, my_rank);
  avg_refs_ = fab_refs(avg_);
  std::vector<Box> cells;
  std::vector<int> items;
  for (size_t p = 0; p < n; ++p)
    if (fine.owns(p)) {
      cells.push_back(avg_[p].box);
      items.push_back(int(p));
    }
  avg_cells_ = BoxSet(cells, items);
}

void AverageDown::apply(const LevelData& fine, LevelData& crse, const Comm& comm) {
  average_to_coarse(fine.refs(), avg_refs_, avg_cells_, ratio_, fine.ncomp());
  plan_.copy(avg_, crse.fabs(), comm);
}

}  // namespace pw
