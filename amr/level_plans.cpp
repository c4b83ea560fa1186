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
                          const Comm& comm, int crse_comp) {
  // Its own message tag: the fine level's same-level exchange may be in flight.
  const int tag = 11;
  // The coarse states' components the fine level has, read where they are.
  const int nc = fine.ncomp();
  const bool whole = crse_comp == 0 && (a > 0.0 ? crse_new : crse_old).ncomp() == nc;
  const auto part = [&](const LevelData& u) {
    return whole ? std::vector<Fab>() : component_window(u.fabs(), crse_comp, nc);
  };
  // Each state's windows unless its weight is exactly 0, as the copy below reads them.
  const std::vector<Fab> old_part = a != 1.0 ? part(crse_old) : std::vector<Fab>();
  const std::vector<Fab> new_part = a != 0.0 ? part(crse_new) : std::vector<Fab>();
  const std::vector<Fab>& x = whole ? crse_old.fabs() : old_part;
  const std::vector<Fab>& y = whole ? crse_new.fabs() : new_part;
  // Between the coarse states, blended as the copy reads them: one message and one pass.
  if (a == 0.0)
    plan_.copy(x, crse_, comm, tag);
  else if (a == 1.0)
    plan_.copy(y, crse_, comm, tag);
  else
    plan_.copy(CopyPlan::Blend{x, y, a}, crse_, comm, tag);
  walls_.apply(refs_, crse_bcs);
  interpolate_regions(refs_, fine.refs(), regions_, region_cells_, ratio_, dim_, interp,
                      fine.ncomp());
}

AverageDown::AverageDown(const LevelData& fine, const LevelLayout& crse,
                         const IntVect& ratio, int my_rank)
    : ratio_(ratio), ncomp_(fine.ncomp()) {
  const size_t n = fine.size();
  LevelLayout coarsened{BoxList(n), fine.layout().owner};
  for (size_t p = 0; p < n; ++p)
    coarsened.boxes[p] = coarsen(fine.box(p), ratio);
  std::vector<BoxList> crse_boxes(crse.size());
  for (size_t q = 0; q < crse.size(); ++q)
    crse_boxes[q] = {crse.boxes[q]};
  plan_ = CopyPlan::intersecting(coarsened, crse_boxes, crse.owner, {}, my_rank);
  std::vector<AveragePiece> pieces;
  for (const CopyTag& t : plan_.on_rank_tags())
    pieces.push_back({t.src, t.dst, -1, t.box});
  const std::vector<CopyPlan::Piece> sent = plan_.sent();
  for (const CopyPlan::Piece& s : sent)
    pieces.push_back({s.from, -1, s.buf_cell, s.box});
  std::vector<Box> cells;
  std::vector<int> items;
  for (const AveragePiece& pc : pieces) {
    cells.push_back(pc.box);
    items.push_back(int(cells.size()) - 1);
  }
  cells_ = BoxSet(cells, items);
  pieces_ = device_copy("AverageDown::pieces", pieces);
  if (!sent.empty()) sent_ = plan_.send_buffer(ncomp_);
}

void AverageDown::apply(const LevelData& fine, LevelData& crse, const Comm& comm) {
  const int nc = fine.ncomp();
  if (nc > ncomp_ || crse.ncomp() != nc)
    throw std::logic_error("AverageDown: fields of other components than its plan's");
  average_to_coarse(fine.refs(), crse.refs(), pieces_, cells_, sent_.data(), ratio_, nc);
  // Sends what the launch packed (its on-rank averages went straight into crse), then
  // unpacks what came.
  plan_.begin(fine.fabs(), crse.fabs(), comm, 7, -1, CopyPlan::Copies::unpacks);
  plan_.finish(crse.fabs(), comm);
}

}  // namespace pw
