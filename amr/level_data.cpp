#include "amr/level_data.hpp"

#include "amr/box_index.hpp"
#include "amr/level_plans.hpp"

namespace pw {

/// What a LevelData builds on first use and fields of its shape share.
struct LevelData::Plans {
  bool ghost_built = false;
  CopyPlan ghost;  // same-level ghost exchange
  CopyPlan cross;  // the same without edges and corners
  CopyPlan* in_flight = nullptr;
  std::vector<BoxList> cf_regions;     // ghost cells no patch of the level covers
  std::unique_ptr<CoarseFineFill> cf;  // for the coarse layout cf_crse
  LevelLayout cf_crse;
  std::unique_ptr<AverageDown> avg;  // onto the coarse layout avg_crse
  LevelLayout avg_crse;
};

LevelData::LevelData(const std::string& label, const LevelLayout& layout,
                     const LevelGeom& geom, int ncomp, const IntVect& ghost, int my_rank,
                     int face_dir)
    : label_(label),
      layout_(layout),
      geom_(geom),
      ncomp_(ncomp),
      ghost_(ghost),
      rank_(my_rank),
      face_dir_(face_dir),
      fabs_(layout.size()),
      plans_(std::make_shared<Plans>()) {
  for (size_t p = 0; p < layout.size(); ++p) {
    if (!owns(p)) continue;
    const Box& b = layout.boxes[p];
    fabs_[p] = Fab(label, face_dir < 0 ? grow(b, ghost) : faces(b, face_dir), ncomp);
  }
}

LevelData LevelData::like(const std::string& label, int ncomp) const {
  const int nc = ncomp < 0 ? ncomp_ : ncomp;
  LevelData d(label, layout_, geom_, nc, ghost_, rank_, face_dir_);
  if (nc == ncomp_) d.plans_ = plans_;  // the coarse-fine scratch has ncomp_ components
  return d;
}

LevelData::Plans& LevelData::plans() {
  Plans& P = *plans_;
  if (P.ghost_built) return P;
  P.ghost_built = true;
  const size_t n = layout_.size();
  const std::vector<IntVect> shifts = periodic_shifts(geom_.domain, geom_.periodic);
  const BoxIndex index(layout_.boxes);
  // Ghost regions, and the part of them no patch of this level covers (through periodic
  // images too): those come from the coarse level. Cells beyond a non-periodic face are
  // left to the physical boundary conditions.
  Box reach = geom_.domain;  // where ghost data can come from
  for (int d = 0; d < geom_.dim; ++d)
    if (geom_.periodic[d]) reach = grow(reach, d, ghost_[d]);
  std::vector<BoxList> ghost(n), faces(n);
  P.cf_regions.assign(n, BoxList());
  for (size_t p = 0; p < n; ++p) {
    const Box& b = layout_.boxes[p];
    const Box grown = grow(b, ghost_);
    ghost[p] = difference(grown & reach, b);
    for (int d = 0; d < geom_.dim; ++d)
      for (int side = 0; side < 2; ++side) {
        const Box slab = adjacent_cells(b, d, side, ghost_[d]) & reach;
        if (!slab.empty()) faces[p].push_back(slab);
      }
    BoxList covered;
    for (const IntVect& s : shifts)
      for (int q : index.query(shift(grown, IntVect{} - s)))
        covered.push_back(shift(layout_.boxes[q], s));
    for (int q : index.query(grown))
      covered.push_back(layout_.boxes[q]);
    P.cf_regions[p] = difference(ghost[p], covered);
  }
  P.ghost = CopyPlan::intersecting(layout_, ghost, layout_.owner, shifts, rank_);
  P.cross = CopyPlan::intersecting(layout_, faces, layout_.owner, shifts, rank_);
  return P;
}

void LevelData::fill_boundary_begin(const Comm& comm, bool cross, int parity) {
  Plans& P = plans();
  P.in_flight = cross ? &P.cross : &P.ghost;
  P.in_flight->begin(fabs_, fabs_, comm, 7, parity);
}

void LevelData::fill_boundary_finish(const Comm& comm) {
  Plans& P = plans();
  P.in_flight->finish(fabs_, comm);
  P.in_flight = nullptr;
}

void LevelData::fill_physical_boundary(const BcSet& bcs) {
  for (size_t p = 0; p < size(); ++p)
    if (owns(p)) pw::fill_physical_boundary(geom_, fabs_[p], bcs);
}

void LevelData::fill_from_coarse(const LevelData& crse_old, const LevelData& crse_new,
                                 double a, const IntVect& ratio,
                                 const std::vector<Interp>& interp, const BcSet& crse_bcs,
                                 const Comm& comm) {
  Plans& P = plans();
  const LevelData& crse = a > 0.0 ? crse_new : crse_old;
  if (!P.cf || P.cf_crse != crse.layout()) {
    P.cf = std::make_unique<CoarseFineFill>(*this, P.cf_regions, crse.layout(),
                                            crse.geom(), ratio, rank_);
    P.cf_crse = crse.layout();
  }
  P.cf->fill(*this, crse_old, crse_new, a, interp, crse_bcs, comm);
}

void LevelData::average_down_to(LevelData& crse, const IntVect& ratio, const Comm& comm) {
  Plans& P = *plans_;
  if (!P.avg || P.avg_crse != crse.layout()) {
    P.avg = std::make_unique<AverageDown>(*this, crse.layout(), ratio, rank_);
    P.avg_crse = crse.layout();
  }
  P.avg->apply(*this, crse, comm);
}

const std::vector<BoxList>& LevelData::coarse_fine_regions() {
  return plans().cf_regions;
}

long LevelData::cells_received() {
  return plans().ghost.cells_received();
}

void LevelData::set_val(double v) {
  for (size_t p = 0; p < size(); ++p)
    if (owns(p)) Kokkos::deep_copy(fabs_[p].data, v);
}

void LevelData::copy_from(const LevelData& src) {
  for (size_t p = 0; p < size(); ++p)
    if (owns(p)) Kokkos::deep_copy(fabs_[p].data, src.fabs_[p].data);
}

void LevelData::copy_component(int dc, const LevelData& src, int sc) {
  for (size_t p = 0; p < size(); ++p) {
    if (!owns(p)) continue;
    const Array4 from = src[p].array(), to = fabs_[p].array();
    for_each_cell(
        "LevelData::copy_component", box(p),
        KOKKOS_LAMBDA(int i, int j, int k) { to(i, j, k, dc) = from(i, j, k, sc); });
  }
}

}  // namespace pw
