#include "amr/level_data.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

#include "amr/box_index.hpp"
#include "amr/device_array.hpp"
#include "amr/level_plans.hpp"

namespace pw {

namespace {

bool poison_unset = false;  // LevelData::poison_unset_values

}  // namespace

/// What a LevelData builds on first use and fields of its shape share.
struct LevelData::Plans {
  bool ghost_built = false;
  CopyPlan ghost;  // same-level ghost exchange
  CopyPlan cross;  // the same without edges and corners
  // Both set coarse-fine face ghosts = w1 x the cell inside + w2 x the next.
  std::optional<LevelData::InsideRule> cf_rule;
  CopyPlan* in_flight = nullptr;
  std::optional<CopiesByPatch> by_patch[2];  // a launch's copies: ghost, cross
  // Ghost cells no patch of the level covers, per patch, found when first needed: a
  // rank needs those of its own patches and of the patches beside its coarse ones.
  std::vector<BoxList> cf_regions;
  std::vector<char> cf_found;
  std::unique_ptr<BoxIndex> index;     // the layout's boxes
  std::vector<IntVect> shifts;         // the periodic images
  Box reach;                           // where ghost data can come from
  std::unique_ptr<CoarseFineFill> cf;  // for the coarse layout cf_crse
  LevelLayout cf_crse;
  std::unique_ptr<AverageDown> avg;  // onto the coarse layout avg_crse
  LevelLayout avg_crse;
  bool sets_built = false;
  BoxSet interiors, fab_boxes;
  StructArray<Box> patch_boxes;
  bool cf_set_built = false;
  BoxSet cf_set;
  StructArray<BoxSet::Range> cf_runs;
  bool groups_built = false;
  PatchGroup on_rank, in_messages;
  std::unique_ptr<WallFill> walls;  // the owned fabs' ghost cells beyond the walls
  std::optional<std::pair<unsigned, BoxSet>> beyond;  // ghosts_beyond_faces: the last
};

LevelData::LevelData(const std::string& label, const LevelLayout& layout,
                     const LevelGeom& geom, int ncomp, const IntVect& ghost, int my_rank,
                     int face_dir, Kokkos::View<double*> storage, Values values)
    : label_(label),
      layout_(layout),
      geom_(geom),
      ncomp_(ncomp),
      ghost_(ghost),
      rank_(my_rank),
      face_dir_(face_dir),
      fabs_(layout.size()),
      plans_(std::make_shared<Plans>()) {
  if (face_dir >= 0 && (ghost[1] != 0 || ghost[2] != 0 || ghost[0] < 0))
    throw std::invalid_argument("LevelData: face data pads its rows in x only");
  std::vector<Box> boxes(layout.size());
  for (size_t p = 0; p < layout.size(); ++p)
    if (owns(p)) boxes[p] = fab_box(p);
  memory_ = values == Values::zero
                ? zeroed_fabs(label, boxes, ncomp, fabs_, std::move(storage))
                : pooled_fabs(label, boxes, ncomp, fabs_, std::move(storage));
  if (values == Values::unset && poison_unset)
    fill_pool("LevelData::poison", memory_, long(pooled_size(boxes, ncomp)),
              std::numeric_limits<double>::quiet_NaN());
}

void LevelData::poison_unset_values(bool on) {
  poison_unset = on;
}

bool LevelData::unset_values_poisoned() {
  return poison_unset;
}

LevelData LevelData::like(const std::string& label, int ncomp,
                          Kokkos::View<double*> storage, Values values) const {
  const int nc = ncomp < 0 ? ncomp_ : ncomp;
  LevelData d(label, layout_, geom_, nc, ghost_, rank_, face_dir_, std::move(storage),
              values);
  if (nc == ncomp_) d.plans_ = plans_;  // the coarse-fine scratch has ncomp_ components
  return d;
}

Kokkos::View<double*> LevelData::release_storage() {
  Kokkos::View<double*> m = memory_;
  memory_ = Kokkos::View<double*>();
  fabs_.assign(fabs_.size(), Fab());  // they pointed into it
  ref_cache_ = RefCache();
  // A copy of this LevelData (its fabs point into the memory too) may still be read.
  if (m.use_count() > 1) return Kokkos::View<double*>();
  return m;
}

LevelData::Plans& LevelData::plans() {
  Plans& P = *plans_;
  if (P.ghost_built) return P;
  P.ghost_built = true;
  P.by_patch[0].reset();
  P.by_patch[1].reset();
  const size_t n = layout_.size();
  P.shifts = periodic_shifts(geom_.domain, geom_.periodic);
  P.index = std::make_unique<BoxIndex>(layout_.boxes);
  // Cells beyond a non-periodic face are left to the physical boundary conditions.
  P.reach = geom_.domain;
  for (int d = 0; d < geom_.dim; ++d)
    if (geom_.periodic[d]) P.reach = grow(P.reach, d, ghost_[d]);
  P.cf_regions.assign(n, BoxList());
  P.cf_found.assign(n, 0);
  // The exchange's regions of the patches this rank fills or sends to: its own and those
  // within a ghost width of one of them (through an image). Working them out for every
  // patch of the level made each rank's share grow with the whole level.
  BoxList mine;
  for (size_t q = 0; q < n; ++q)
    if (owns(q)) mine.push_back(grow(layout_.boxes[q], ghost_));
  std::vector<char> near = meeting(layout_.boxes, mine, P.shifts);
  for (size_t p = 0; p < n; ++p)
    near[p] |= owns(p);
  std::vector<BoxList> ghost(n), faces(n);
  for (size_t p = 0; p < n; ++p) {
    if (!near[p]) continue;
    const Box& b = layout_.boxes[p];
    ghost[p] = difference(grow(b, ghost_) & P.reach, b);
    for (int d = 0; d < geom_.dim; ++d)
      for (int side = 0; side < 2; ++side) {
        const Box slab = adjacent_cells(b, d, side, ghost_[d]) & P.reach;
        if (!slab.empty()) faces[p].push_back(slab);
      }
  }
  // The coarse-fine face ghosts as copies within their patch (cf_region reads the
  // fields set above), into cells no region holds: no patch covers them.
  std::vector<CopyTag> inside;
  if (P.cf_rule)
    for (size_t p = 0; p < n; ++p) {
      if (!owns(p)) continue;
      for (int d = 0; d < geom_.dim; ++d)
        for (int side = 0; side < 2; ++side) {
          const Box face = adjacent_cells(layout_.boxes[p], d, side);
          IntVect out, out2;
          out[d] = side == 0 ? -1 : 1;  // the sources are one and two cells in
          out2[d] = 2 * out[d];
          for (const Box& r : cf_region(p))
            if (const Box b = face & r; !b.empty())
              inside.push_back(
                  {int(p), int(p), b, out, P.cf_rule->w1, out2, P.cf_rule->w2});
        }
    }
  P.ghost =
      CopyPlan::intersecting(layout_, ghost, layout_.owner, P.shifts, rank_, inside);
  P.cross =
      CopyPlan::intersecting(layout_, faces, layout_.owner, P.shifts, rank_, inside);
  return P;
}

void LevelData::set_coarse_fine_from_inside(double w1, double w2) {
  Plans& P = *plans_;
  if (face_dir_ >= 0) throw std::logic_error("LevelData: face data has no ghost verbs");
  if (P.in_flight)
    throw std::logic_error("LevelData: the ghost plans changed during an exchange");
  if (w2 != 0.0)  // every rank sees every box: all refuse, or none
    for (const Box& b : layout_.boxes)
      for (int d = 0; d < geom_.dim; ++d)
        if (b.size()[d] < 2)
          throw std::logic_error(
              "LevelData: a coarse-fine rule of two cells inside a patch one cell wide");
  if (P.cf_rule && P.cf_rule->w1 == w1 && P.cf_rule->w2 == w2) return;
  P.cf_rule = InsideRule{w1, w2};
  P.ghost_built = false;  // built again on first use, with the copies within patches
}

std::optional<LevelData::InsideRule> LevelData::coarse_fine_from_inside() const {
  return plans_->cf_rule;
}

const BoxList& LevelData::cf_region(size_t p) {
  Plans& P = plans();
  if (P.cf_found[p]) return P.cf_regions[p];
  P.cf_found[p] = 1;
  // The ghost cells that no patch covers, through periodic images too.
  const Box& b = layout_.boxes[p];
  const Box grown = grow(b, ghost_);
  BoxList covered;
  std::vector<int> hits;
  for (const IntVect& s : P.shifts) {
    P.index->query(shift(grown, IntVect{} - s), hits);
    for (int q : hits)
      covered.push_back(shift(layout_.boxes[q], s));
  }
  P.index->query(grown, hits);
  for (int q : hits)
    covered.push_back(layout_.boxes[q]);
  P.cf_regions[p] = difference(difference(grown & P.reach, b), covered);
  return P.cf_regions[p];
}

std::vector<BoxList> LevelData::cf_regions_for(const LevelLayout& crse,
                                               const LevelGeom& crse_geom,
                                               const IntVect& ratio) {
  // This rank's own patches, and those whose coarse cells (under their ghosts, plus one
  // for slopes) meet one of its coarse patches, through an image too.
  const size_t n = size();
  const IntVect one = IntVect::in_dims(geom_.dim, 1, 0);
  BoxList under(n);
  for (size_t p = 0; p < n; ++p)
    under[p] = grow(coarsen(grow(box(p), ghost_), ratio), one);
  BoxList mine;
  for (size_t q = 0; q < crse.size(); ++q)
    if (crse.owner[q] == rank_) mine.push_back(crse.boxes[q]);
  std::vector<char> involved =
      meeting(under, mine, periodic_shifts(crse_geom.domain, crse_geom.periodic));
  for (size_t p = 0; p < n; ++p)
    involved[p] |= owns(p);
  std::vector<BoxList> out(n);
  for (size_t p = 0; p < n; ++p)
    if (involved[p]) out[p] = cf_region(p);
  return out;
}

void LevelData::fill_boundary_begin(const Comm& comm, bool cross, int parity,
                                    Copies which) {
  Plans& P = plans();
  P.in_flight = cross ? &P.cross : &P.ghost;
  P.in_flight->begin(fabs_, fabs_, comm, 7, parity, which);
}

const std::vector<CopyTag>& LevelData::on_rank_copies(bool cross) {
  const Plans& P = plans();
  return (cross ? P.cross : P.ghost).on_rank_tags();
}

bool LevelData::exchange_has_messages(bool cross) {
  const Plans& P = plans();
  return (cross ? P.cross : P.ghost).messages();
}

const CopiesByPatch& LevelData::copies_by_patch(bool cross) {
  Plans& P = plans();
  std::optional<CopiesByPatch>& c = P.by_patch[cross ? 1 : 0];
  if (!c) c.emplace(cross ? P.cross : P.ghost, ncomp_, size());
  return *c;
}

void LevelData::fill_boundary_finish(const Comm& comm) {
  Plans& P = plans();
  P.in_flight->finish(fabs_, comm);
  P.in_flight = nullptr;
}

void LevelData::fill_physical_boundary(const BcSet& bcs) {
  std::unique_ptr<WallFill>& walls = plans_->walls;
  if (!walls) {
    // From the layout, not the fabs: the plans are shared with like() copies, one of
    // which may have released its storage.
    std::vector<Box> boxes(size());
    for (size_t p = 0; p < size(); ++p)
      if (owns(p)) boxes[p] = fab_box(p);
    walls = std::make_unique<WallFill>(geom_, boxes);
  }
  walls->apply(refs(), bcs);
}

const BoxSet& LevelData::ghosts_beyond_faces(unsigned faces) {
  auto& beyond = plans_->beyond;
  if (beyond && beyond->first == faces) return beyond->second;
  std::vector<Box> boxes;
  std::vector<int> items;
  for (size_t p = 0; p < size(); ++p) {
    if (!owns(p)) continue;
    for (int d = 0; d < geom_.dim; ++d)
      for (int side = 0; side < 2; ++side) {
        if (!(faces >> (2 * d + side) & 1)) continue;
        Box b = ghosts_beyond(geom_, fab_box(p), d, side);
        // Cells also beyond an earlier face of the mask are that face's.
        for (int e = 0; e < d; ++e) {
          if (faces >> (2 * e) & 1) b.lo[e] = std::max(b.lo[e], geom_.domain.lo[e]);
          if (faces >> (2 * e + 1) & 1) b.hi[e] = std::min(b.hi[e], geom_.domain.hi[e]);
        }
        if (b.empty()) continue;
        boxes.push_back(b);
        items.push_back(int(p));
      }
  }
  beyond.emplace(faces, BoxSet(boxes, items));
  return beyond->second;
}

void LevelData::fill_from_coarse(const LevelData& crse_old, const LevelData& crse_new,
                                 double a, const IntVect& ratio,
                                 const std::vector<Interp>& interp, const BcSet& crse_bcs,
                                 const Comm& comm, int crse_comp) {
  Plans& P = plans();
  const LevelData& crse = a > 0.0 ? crse_new : crse_old;
  if (!P.cf || P.cf_crse != crse.layout()) {
    P.cf = std::make_unique<CoarseFineFill>(
        *this, cf_regions_for(crse.layout(), crse.geom(), ratio), crse.layout(),
        crse.geom(), ratio, rank_);
    P.cf_crse = crse.layout();
  }
  P.cf->fill(*this, crse_old, crse_new, a, interp, crse_bcs, comm, crse_comp);
}

void LevelData::average_down_to(LevelData& crse, const IntVect& ratio, const Comm& comm) {
  Plans& P = *plans_;
  if (!P.avg || P.avg_crse != crse.layout()) {
    P.avg = std::make_unique<AverageDown>(*this, crse.layout(), ratio, rank_);
    P.avg_crse = crse.layout();
  }
  P.avg->apply(*this, crse, comm);
}

long LevelData::cells_received() {
  return plans().ghost.cells_received();
}

size_t LevelData::cf_regions_found() const {
  if (!plans_) return 0;  // a default-constructed LevelData
  return size_t(std::count(plans_->cf_found.begin(), plans_->cf_found.end(), 1));
}

const StructArray<FabRef>& LevelData::refs() const {
  RefCache& c = ref_cache_;
  bool stale = c.built_from.size() != fabs_.size();
  for (size_t p = 0; p < fabs_.size() && !stale; ++p)
    stale = c.built_from[p] !=
            std::pair<const double*, Box>(fabs_[p].data.data(), fabs_[p].box);
  if (!stale && c.refs.extent(0) == fabs_.size()) return c.refs;
  c.built_from.clear();
  for (const Fab& f : fabs_)
    c.built_from.emplace_back(f.data.data(), f.box);
  c.refs = fab_refs(fabs_);
  return c.refs;
}

Box LevelData::fab_box(size_t p) const {
  const Box& b = layout_.boxes[p];
  return face_dir_ < 0 ? grow(b, ghost_) : padded_faces(b, face_dir_, ghost_[0]);
}

const LevelData::Plans& LevelData::sets() const {
  Plans& P = *plans_;
  if (P.sets_built) return P;
  P.sets_built = true;
  std::vector<Box> interiors, fab_boxes;
  std::vector<int> items;
  for (size_t p = 0; p < size(); ++p) {
    if (!owns(p)) continue;
    interiors.push_back(box(p));
    fab_boxes.push_back(fabs_[p].box);
    items.push_back(int(p));
  }
  P.interiors = BoxSet(interiors, items);
  P.fab_boxes = BoxSet(fab_boxes, items);
  std::vector<Box> boxes(size());
  for (size_t p = 0; p < size(); ++p)
    boxes[p] = box(p);
  P.patch_boxes = device_copy("LevelData::patch_boxes", boxes);
  return P;
}

const BoxSet& LevelData::interiors() const {
  return sets().interiors;
}

const LevelData::PatchGroup& LevelData::ghosts_on_rank(bool on_rank) {
  Plans& P = plans();
  if (!P.groups_built) {
    P.groups_built = true;
    const std::vector<int> receiving = P.ghost.receiving_patches();
    const Box& reach = P.reach;  // ghost cells beyond it are the physical boundary's
    std::vector<Box> boxes[2];
    for (size_t p = 0; p < size(); ++p) {
      if (!owns(p)) continue;
      const bool ready =
          !std::binary_search(receiving.begin(), receiving.end(), int(p)) &&
          reach.contains(grow(box(p), ghost_));
      PatchGroup& g = ready ? P.on_rank : P.in_messages;
      g.patches.push_back(int(p));
      boxes[ready].push_back(box(p));
    }
    P.on_rank.interiors = BoxSet(boxes[1], P.on_rank.patches);
    P.in_messages.interiors = BoxSet(boxes[0], P.in_messages.patches);
  }
  return on_rank ? P.on_rank : P.in_messages;
}

const BoxSet& LevelData::fab_boxes() const {
  return sets().fab_boxes;
}

const StructArray<Box>& LevelData::patch_boxes() const {
  return sets().patch_boxes;
}

const BoxSet& LevelData::coarse_fine_set() {
  Plans& P = plans();
  if (P.cf_set_built) return P.cf_set;
  P.cf_set_built = true;
  std::vector<Box> boxes;
  std::vector<int> items;
  for (size_t p = 0; p < size(); ++p)
    if (owns(p))
      for (const Box& b : cf_region(p)) {
        boxes.push_back(b);
        items.push_back(int(p));
      }
  P.cf_set = BoxSet(boxes, items);
  P.cf_runs = device_copy("LevelData::cf_runs", item_runs(boxes, items, size()));
  return P.cf_set;
}

const StructArray<BoxSet::Range>& LevelData::coarse_fine_runs() {
  coarse_fine_set();
  return plans().cf_runs;
}

void LevelData::set_val(double v) {
  const StructArray<FabRef> u = refs();
  const int nc = ncomp_;
  for_each_box_cell(
      "LevelData::set_val", fab_boxes(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        for (int c = 0; c < nc; ++c)
          u(p)(i, j, k, c) = v;
      });
}

void LevelData::copy_from(const LevelData& src) {
  const StructArray<FabRef> to = refs(), from = src.refs();
  const int nc = ncomp_;
  for_each_box_cell(
      "LevelData::copy_from", fab_boxes(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        for (int c = 0; c < nc; ++c)
          to(p)(i, j, k, c) = from(p)(i, j, k, c);
      });
}

void LevelData::copy_component(int dc, const LevelData& src, int sc) {
  const StructArray<FabRef> to = refs(), from = src.refs();
  for_each_box_cell(
      "LevelData::copy_component", interiors(),
      KOKKOS_LAMBDA(int p, int i, int j, int k) {
        to(p)(i, j, k, dc) = from(p)(i, j, k, sc);
      });
}

}  // namespace pw
