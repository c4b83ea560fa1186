#include "amr/level_plans.hpp"

#include <algorithm>
#include <stdexcept>

#include "amr/box_set.hpp"
#include "amr/device_array.hpp"
#include "amr/level_data.hpp"

namespace pw {

CoarseFineFill::CoarseFineFill(const LevelData& fine,
                               const std::vector<BoxList>& cf_regions,
                               const LevelLayout& crse, const LevelGeom& crse_geom,
                               const IntVect& ratio, int my_rank)
    : ratio_(ratio), crse_geom_(crse_geom) {
  const size_t n = fine.size();
  const IntVect one = IntVect::in_dims(fine.geom().dim, 1, 0);
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
  // The launch's pieces, by fine patch: the on-rank copies, then what comes.
  std::vector<std::vector<CopyPlan::Piece>> of_patch(n);
  for (const CopyTag& t : plan_.on_rank_tags())
    of_patch[size_t(t.dst)].push_back(
        {t.src, t.dst, -1, t.box, t.shift, t.scale, t.shift2, t.scale2});
  const int nc = fine.ncomp();
  for (const CopyPlan::Received& r : plan_.received(nc))
    of_patch[size_t(r.dst)].push_back({-1, r.dst, r.at / nc, r.box});
  std::vector<CopyPlan::Piece> pieces;
  std::vector<int> first(n + 1, 0);
  for (size_t p = 0; p < n; ++p) {
    pieces.insert(pieces.end(), of_patch[p].begin(), of_patch[p].end());
    first[p + 1] = int(pieces.size());
  }
  pieces_ = device_copy("CoarseFineFill::pieces", pieces);
  first_ = device_copy("CoarseFineFill::first", first);
  if (plan_.messages()) received_ = plan_.receive_buffer(nc);
  refs_ = fab_refs(crse_);
  boxes_ = device_copy("CoarseFineFill::boxes", scratch);
  walls_ = WallFill(crse_geom, scratch);
  std::vector<int> patches;
  std::vector<Box> cells;
  std::vector<int> cell_patch;  // region n's patch, for the runs by patch
  std::vector<FineRegion> regions;
  for (size_t p = 0; p < n; ++p) {
    if (!fine.owns(p) || cf_regions[p].empty()) continue;
    patches.push_back(int(p));
    for (const Box& b : cf_regions[p]) {
      regions.push_back({int(p), b});
      cells.push_back(coarsen(b, ratio));
      cell_patch.push_back(int(p));
    }
  }
  patches_ = device_copy("CoarseFineFill::patches", patches);
  region_cells_ = BoxSet(cells);
  cells_of_patch_ =
      device_copy("CoarseFineFill::cell_runs", item_runs(cells, cell_patch, n));
  regions_ = device_copy("CoarseFineFill::regions", regions);
}

const StructArray<InterpRun>& CoarseFineFill::runs(const std::vector<Interp>& interp,
                                                   int nc) {
  const std::vector<Interp> kinds(interp.begin(),
                                  interp.begin() + std::min(interp.size(), size_t(nc)));
  if (kinds.size() == size_t(nc) && kinds == runs_for_) return runs_;
  runs_ = device_copy("CoarseFineFill::runs", interp_runs(interp, nc));
  runs_for_ = kinds;
  return runs_;
}

void CoarseFineFill::fill(LevelData& fine, const LevelData& crse_old,
                          const LevelData& crse_new, double a,
                          const std::vector<Interp>& interp, const BcSet& crse_bcs,
                          const Comm& comm, int crse_comp) {
  // Its own message tag: the fine level's same-level exchange may be in flight.
  const int tag = 11;
  // The coarse states' components the fine level has, read where they are.
  const int nc = fine.ncomp();
  // The caller's arguments checked on every rank before any message (the conditions
  // not only where a scratch fab reaches a wall), so that no rank waits for one that
  // threw.
  if (!crse_bcs.empty() && crse_bcs.size() != size_t(nc))
    throw std::logic_error("CoarseFineFill: a condition for each component expected");
  for (const LevelData* u : {&crse_old, &crse_new})
    if (crse_comp < 0 || crse_comp + nc > u->ncomp())
      throw std::logic_error("CoarseFineFill: components beyond the coarse states'");
  const StructArray<InterpRun> kinds = runs(interp, nc);  // refuses a short list
  const bool whole = crse_comp == 0 && (a > 0.0 ? crse_new : crse_old).ncomp() == nc;
  const auto part = [&](const LevelData& u) {
    return whole ? std::vector<Fab>() : component_window(u.fabs(), crse_comp, nc);
  };
  // Each state's windows unless its weight is exactly 0, as the pack below reads them.
  const std::vector<Fab> old_part = a != 1.0 ? part(crse_old) : std::vector<Fab>();
  const std::vector<Fab> new_part = a != 0.0 ? part(crse_new) : std::vector<Fab>();
  const std::vector<Fab>& x = whole ? crse_old.fabs() : old_part;
  const std::vector<Fab>& y = whole ? crse_new.fabs() : new_part;
  // The messages, blended between the coarse states as the sender packs them (one
  // message and one pass); the launch below makes the on-rank copies and unpacks.
  using Copies = CopyPlan::Copies;
  if (a == 0.0)
    plan_.begin(x, crse_, comm, tag, -1, Copies::messages);
  else if (a == 1.0)
    plan_.begin(y, crse_, comm, tag, -1, Copies::messages);
  else
    plan_.begin(CopyPlan::Blend{x, y, a}, crse_, comm, tag, Copies::messages);
  plan_.finish(crse_, comm);
  CoarseFineLaunch L;
  L.nc = nc;
  L.patches = patches_;
  L.pieces = pieces_;
  L.first = first_;
  L.received = received_.data();
  // The states read in place (components from crse_comp on): the one of weight 1, or
  // both.
  const bool blend = a != 0.0 && a != 1.0;
  L.x = (a == 1.0 ? crse_new : crse_old).refs();
  L.y = blend ? crse_new.refs() : L.x;
  L.blend = blend;
  L.w = a;
  L.crse_comp = crse_comp;
  L.scratch = refs_;
  L.walls = walls_.any() && !crse_bcs.empty();
  L.geom = crse_geom_;
  if (L.walls) L.faces = walls_.conditions(crse_bcs);
  L.scratch_boxes = boxes_;
  L.fine = fine.refs();
  L.regions = regions_;
  L.cells = region_cells_;
  L.cells_of_patch = cells_of_patch_;
  L.runs = kinds;
  L.nruns = int(L.runs.extent(0));
  L.ratio = ratio_;
  coarse_fine_launch(L);
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
  std::vector<Box> cells;  // box n is piece n's (BoxSet's default items)
  for (const AveragePiece& pc : pieces)
    cells.push_back(pc.box);
  cells_ = BoxSet(cells);
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
