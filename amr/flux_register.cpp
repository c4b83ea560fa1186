#include "amr/flux_register.hpp"

#include <algorithm>

#include "amr/box_index.hpp"
#include "amr/device_array.hpp"

namespace pw {

FluxRegister::FluxRegister(const LevelLayout& fine, const LevelLayout& crse,
                           const LevelGeom& crse_geom, const IntVect& ratio, int ncomp,
                           int my_rank)
    : dim_(crse_geom.dim),
      ncomp_(ncomp),
      ratio_(ratio),
      geom_(crse_geom),
      my_rank_(my_rank) {
  const BoxIndex index(crse.boxes);
  std::vector<IntVect> shifts{IntVect{0, 0, 0}};
  for (const IntVect& s : periodic_shifts(crse_geom.domain, crse_geom.periodic))
    shifts.push_back(s);
  std::vector<CopyTag> tags;
  std::vector<int> side_owner;
  std::vector<int> hits, hits_fine;
  // The fine patches coarsened: the coarse cells the fine level covers.
  BoxList cboxes(fine.size());
  for (size_t p = 0; p < fine.size(); ++p)
    cboxes[p] = coarsen(fine.boxes[p], ratio);
  const BoxIndex covered(cboxes);
  // Every rank lists every side (the sums are found by side), but finds the pieces only
  // of the sides it takes part in: those of its fine patches and of the fine patches
  // beside its coarse ones. Searching the coarse level beside every fine side made each
  // rank's share of a regrid grow with the whole level, not with its own part.
  std::vector<char> involved;
  {
    BoxList mine;
    for (size_t q = 0; q < crse.size(); ++q)
      if (crse.owner[q] == my_rank)
        mine.push_back(grow(crse.boxes[q], IntVect::in_dims(dim_, 1, 0)));
    std::vector<IntVect> back;  // a side shifted by sh meets q where it meets q - sh
    for (size_t i = 1; i < shifts.size(); ++i)  // shifts[0] is 0
      back.push_back(IntVect{} - shifts[i]);
    involved = meeting(cboxes, mine, back);
    for (size_t p = 0; p < fine.size(); ++p)
      involved[p] |= fine.owner[p] == my_rank;
  }
  // Only the coarse cells beside a fine patch that the fine level does not cover are
  // corrected (average-down replaces the covered ones right after): a face between two
  // fine patches has no pieces, so its fine fluxes are not sent, and not summed unless
  // they lie between summed faces of the same side (a sum spans its pieces' faces).
  std::vector<Box> sum_boxes;  // per side: the coarse faces pieces read, on its owner
  BoxList cover;
  for (int p = 0; p < int(fine.size()); ++p) {
    const Box& cbox = cboxes[size_t(p)];
    for (int d = 0; d < dim_; ++d)
      for (int s = 0; s < 2; ++s) {
        const int side = int(sides_.size());
        sides_.push_back({p, d, s});
        side_owner.push_back(fine.owner[p]);
        sum_boxes.emplace_back();
        if (!involved[size_t(p)]) continue;
        ++searched_;
        const Box outside = adjacent_cells(cbox, d, s);
        // Outside cell = face - e_d on the lo side, = face on the hi side.
        const IntVect to_cell =
            (s == 0) ? IntVect{0, 0, 0} - IntVect::unit(d) : IntVect{};
        BoxList faces;  // of this side's pieces, indexed as the side's faces
        for (const IntVect& sh : shifts) {
          const Box img = shift(outside, sh);
          index.query(img, hits);
          for (int q : hits) {
            if (fine.owner[p] != my_rank && crse.owner[q] != my_rank) continue;
            const Box beside = img & crse.boxes[q];
            covered.query(beside, hits_fine);
            cover.clear();
            for (int f : hits_fine)
              cover.push_back(cboxes[size_t(f)]);
            for (const Box& cells : difference(BoxList{beside}, cover)) {
              const int piece = int(pieces_.size());
              pieces_.push_back({side, q, cells});
              piece_owner_.push_back(crse.owner[q]);
              tags.push_back({side, piece, cells, sh + to_cell});
              faces.push_back(shift(cells, IntVect{} - sh - to_cell));
            }
          }
        }
        if (fine.owner[p] == my_rank && !faces.empty())
          sum_boxes.back() = bounding_box(faces);
      }
  }
  // Sums are zeroed by reset() before each use.
  sum_pool_ = pooled_fabs("flux_register::sums", sum_boxes, ncomp, sums_);
  plan_ = CopyPlan(tags, side_owner, piece_owner_, my_rank);

  side_dev_ = device_copy("flux_register::sides", sides_);
  piece_dev_ = device_copy("flux_register::pieces", pieces_);
  sum_refs_ = fab_refs(sums_);
  sum_box_ = device_copy("flux_register::sum_box", sum_boxes);
  // Where reflux reads each local piece's sums: no copy into a register of its own
  // (a launch, and another for the messages' unpacking, per reflux). The plan's
  // destinations are the pieces.
  std::vector<FabRef> piece_sums(pieces_.size());
  for (const CopyTag& t : plan_.on_rank_tags()) {
    FabRef r = fab_ref(sums_[size_t(t.src)]);  // piece cell x reads sums at x - shift
    r.c0.off -= t.shift[0] + r.c0.sj * t.shift[1] + r.c0.sk * t.shift[2];
    piece_sums[size_t(t.dst)] = r;
  }
  if (plan_.messages()) {
    double* const buffer = plan_.receive_buffer(ncomp).data();
    for (const CopyPlan::Received& in : plan_.received(ncomp))
      piece_sums[size_t(in.dst)] = {field_over(buffer + in.at, in.box),
                                    in.box.num_cells()};
  }
  piece_sums_ = device_copy("flux_register::piece_sums", piece_sums);
  std::vector<Box> boxes;
  std::vector<int> items;
  for (size_t n = 0; n < sums_.size(); ++n)
    if (sums_[n].data.size() > 0) {
      boxes.push_back(sums_[n].box);
      items.push_back(int(n));
    }
  local_sums_ = BoxSet(boxes, items);
  // The local pieces in the order of reflux's teams and classes.
  std::vector<int> order;
  for (size_t n = 0; n < pieces_.size(); ++n)
    if (piece_owner_[n] == my_rank) order.push_back(int(n));
  const auto cls = [&](int n) {
    const Side& sd = sides_[size_t(pieces_[size_t(n)].side)];
    return 2 * sd.dir + sd.side;
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const int qa = pieces_[size_t(a)].crse, qb = pieces_[size_t(b)].crse;
    return qa != qb ? qa < qb : cls(a) < cls(b);
  });
  // Each team's runs, one per class: first their rows and cells, then where they start
  // and end in the set (a class without pieces: an empty run).
  boxes.clear();
  items.clear();
  std::vector<BoxSet::Range> runs;
  for (size_t x = 0; x < order.size(); ++x) {
    const int n = order[x];
    if (x == 0 || pieces_[size_t(n)].crse != pieces_[size_t(order[x - 1])].crse)
      runs.resize(runs.size() + size_t(2 * dim_));
    const Box& b = pieces_[size_t(n)].cells;
    boxes.push_back(b);
    items.push_back(n);
    BoxSet::Range& r = runs[runs.size() - size_t(2 * dim_) + size_t(cls(n))];
    r.row1 += long(b.size()[1]) * b.size()[2];
    r.cell1 += b.num_cells();
  }
  long row = 0, cell = 0;
  for (BoxSet::Range& r : runs) {
    r = {row, row + r.row1, cell, cell + r.cell1};
    row = r.row1;
    cell = r.cell1;
  }
  local_pieces_ = BoxSet(boxes, items);
  reflux_teams_ = int(runs.size()) / (2 * dim_);
  class_runs_ = device_copy("flux_register::class_runs", runs);
}

void FluxRegister::fine_faces(int d, std::vector<Box>& boxes,
                              std::vector<int>& patches) const {
  for (size_t n = 0; n < sides_.size(); ++n) {
    if (sides_[n].dir != d || sums_[n].data.size() == 0) continue;
    const Box& c = sums_[n].box;  // coarse faces, one plane
    Box f;
    for (int e = 0; e < 3; ++e) {
      f.lo[e] = c.lo[e] * ratio_[e];
      f.hi[e] = e == d ? f.lo[e] : (c.hi[e] + 1) * ratio_[e] - 1;
    }
    boxes.push_back(f);
    patches.push_back(sides_[n].patch);
  }
}

void FluxRegister::crse_faces(int d, std::vector<Box>& boxes,
                              std::vector<int>& patches) const {
  for (size_t n = 0; n < pieces_.size(); ++n) {
    const Side& sd = sides_[size_t(pieces_[n].side)];
    if (sd.dir != d || piece_owner_[n] != my_rank_) continue;
    // As reflux reads them: beside a fine patch's lo side, the outside cell's hi face.
    boxes.push_back(shift(pieces_[n].cells, sd.side == 0 ? IntVect::unit(d) : IntVect{}));
    patches.push_back(pieces_[n].crse);
  }
}

void FluxRegister::reset() {
  const Refs sum = sum_refs_;
  const int nc = ncomp_;
  for_each_box_cell(
      "flux_register::reset", local_sums_, KOKKOS_LAMBDA(int n, int i, int j, int k) {
        for (int c = 0; c < nc; ++c)
          sum(n)(i, j, k, c) = 0.0;
      });
}

void FluxRegister::add_fine(const Refs flux[3], double dt_fine, bool replace) {
  const Refs sum = sum_refs_, f0 = flux[0], f1 = flux[1], f2 = flux[2];
  const StructArray<Side> sides = side_dev_;
  const IntVect r = ratio_;
  const int nc = ncomp_;
  for_each_box_cell(
      replace ? "flux_register::set_fine" : "flux_register::add_fine", local_sums_,
      KOKKOS_LAMBDA(int n, int i, int j, int k) {
        const int d = sides(n).dir, p = sides(n).patch;
        const FabRef f = d == 0 ? f0(p) : d == 1 ? f1(p) : f2(p);
        const double w = dt_fine * double(r[d]) / double(r.product());
        add_fine_face(sum(n), f, d, r, nc, w, i, j, k, replace);
      });
}

void FluxRegister::reflux(const Refs& crse_u, const Refs crse_flux[3], double dt_crse,
                          const Comm& comm) {
  // The sums other ranks hold arrive in the plan's receive buffer; the launch reads
  // them there, and this rank's where they are (piece_sums_).
  if (plan_.messages()) {
    std::vector<Fab> none;
    plan_.begin_messages(sums_, ncomp_, comm);
    plan_.finish(none, comm);
  }
  if (reflux_teams_ == 0) return;
  // A coarse cell can be corrected through several faces. Applying the corrections class
  // by class (x-lo, x-hi, y-lo, ...), a barrier between, fixes the order of the
  // additions whatever the patches of the fine level are and whichever rank owns them:
  // within one class a coarse cell has at most one corrected face, and a team writes
  // its own coarse patch only.
  const Refs u = crse_u, recv = piece_sums_, f0 = crse_flux[0], f1 = crse_flux[1],
             f2 = crse_flux[2];
  const StructArray<Piece> pieces = piece_dev_;
  const BoxSet set = local_pieces_;
  const StructArray<BoxSet::Range> runs = class_runs_;
  const int nc = ncomp_, dim = dim_;
  const double inv_dx0 = 1.0 / geom_.dx[0], inv_dx1 = 1.0 / geom_.dx[1],
               inv_dx2 = 1.0 / geom_.dx[2];
  Kokkos::parallel_for(
      "flux_register::reflux", team_policy(reflux_teams_, 0),
      KOKKOS_LAMBDA(const TeamMember& m) {
        for (int cls = 0; cls < 2 * dim; ++cls) {
          const int d = cls / 2, side = cls % 2;
          const Refs f = d == 0 ? f0 : d == 1 ? f1 : f2;
          // Lo side of the fine patch: the corrected face is the hi face of the outside
          // cell.
          const int o = side == 0 ? 1 : 0;
          const int oi = d == 0 ? o : 0, oj = d == 1 ? o : 0, ok = d == 2 ? o : 0;
          const double sign = side == 0 ? -1.0 : 1.0;
          const double inv_dx = d == 0 ? inv_dx0 : d == 1 ? inv_dx1 : inv_dx2;
          team_set_rows(m, set, runs(2 * dim * m.league_rank() + cls),
                        [&](int n, int j, int k, int i0, int i1) {
                          const int q = pieces(n).crse;
                          const FabRef uq = u(q), fq = f(q), rn = recv(n);
                          for (int c = 0; c < nc; ++c)
                            for (int i = i0; i <= i1; ++i) {
                              const double fc = fq(i + oi, j + oj, k + ok, c);
                              uq(i, j, k, c) +=
                                  sign * (rn(i, j, k, c) - dt_crse * fc) * inv_dx;
                            }
                        });
          m.team_barrier();
        }
      });
}

}  // namespace pw
