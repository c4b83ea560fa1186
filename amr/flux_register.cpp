#include "amr/flux_register.hpp"

#include "amr/box_index.hpp"

namespace pw {

FluxRegister::FluxRegister(const LevelLayout& fine, const LevelLayout& crse,
                           const LevelGeom& crse_geom, const IntVect& ratio, int ncomp,
                           int my_rank)
    : dim_(crse_geom.dim), ratio_(ratio), geom_(crse_geom) {
  const BoxIndex index(crse.boxes);
  std::vector<IntVect> shifts{IntVect{0, 0, 0}};
  for (const IntVect& s : periodic_shifts(crse_geom.domain, crse_geom.periodic))
    shifts.push_back(s);
  std::vector<CopyTag> tags;
  std::vector<int> side_owner;
  for (int p = 0; p < int(fine.size()); ++p) {
    const Box cbox = coarsen(fine.boxes[p], ratio);
    for (int d = 0; d < dim_; ++d)
      for (int s = 0; s < 2; ++s) {
        const int side = int(sides_.size());
        sides_.push_back({p, d, s});
        side_owner.push_back(fine.owner[p]);
        Box face_box = cbox;  // the coarse faces on this side, indexed as faces
        face_box.lo[d] = face_box.hi[d] = (s == 0) ? cbox.lo[d] : cbox.hi[d] + 1;
        sums_.push_back(fine.owner[p] == my_rank
                            ? Fab("flux_register::sum", face_box, ncomp)
                            : Fab());
        const Box outside = adjacent_cells(cbox, d, s);
        // Outside cell = face - e_d on the lo side, = face on the hi side.
        const IntVect to_cell =
            (s == 0) ? IntVect{0, 0, 0} - IntVect::unit(d) : IntVect{};
        for (const IntVect& sh : shifts) {
          const Box img = shift(outside, sh);
          for (int q : index.query(img)) {
            const Box cells = img & crse.boxes[q];
            const int piece = int(pieces_.size());
            pieces_.push_back({side, q, cells});
            piece_owner_.push_back(crse.owner[q]);
            tags.push_back({side, piece, cells, sh + to_cell});
          }
        }
      }
  }
  for (size_t n = 0; n < pieces_.size(); ++n)
    recv_.push_back(piece_owner_[n] == my_rank
                        ? Fab("flux_register::recv", pieces_[n].cells, ncomp)
                        : Fab());
  plan_ = CopyPlan(tags, side_owner, piece_owner_, my_rank);
}

void FluxRegister::reset() {
  for (Fab& f : sums_)
    if (f.data.size() > 0) Kokkos::deep_copy(f.data, 0.0);
}

void FluxRegister::add_fine(int patch, const Fab flux[3], double dt_fine) {
  // The constructor lists the 2 * dim sides of each patch together, in patch order.
  for (size_t n = size_t(patch) * 2 * dim_; n < size_t(patch + 1) * 2 * dim_; ++n) {
    const int d = sides_[n].dir;
    const Array4 sum = sums_[n].array();
    const Array4 f = flux[d].array();
    const IntVect r = ratio_;
    const int nc = sums_[n].ncomp();
    // Transverse fine faces under one coarse face; their mean is the coarse-face flux.
    const double w = dt_fine * double(r[d]) / double(r.product());
    for_each_cell(
        "flux_register::add_fine", sums_[n].box, KOKKOS_LAMBDA(int i, int j, int k) {
          const IntVect cf{i, j, k};
          IntVect lo = cf * r;  // first fine face under this coarse face
          IntVect n_t = r;
          n_t[d] = 1;
          for (int c = 0; c < nc; ++c) {
            double s = 0.0;
            for (int kk = 0; kk < n_t[2]; ++kk)
              for (int jj = 0; jj < n_t[1]; ++jj)
                for (int ii = 0; ii < n_t[0]; ++ii)
                  s += f(lo[0] + ii, lo[1] + jj, lo[2] + kk, c);
            sum(i, j, k, c) += w * s;
          }
        });
  }
}

void FluxRegister::reflux(std::vector<Fab>& crse_u, const std::vector<Fab> crse_flux[3],
                          double dt_crse, const Comm& comm) {
  plan_.copy(sums_, recv_, comm);
  // A coarse cell can be corrected through several faces. Applying the corrections class
  // by class (x-lo, x-hi, y-lo, ...) fixes the order of the additions whatever the
  // patches of the fine level are and whichever rank owns them: within one class a coarse
  // cell has at most one corrected face.
  for (int cls = 0; cls < 2 * dim_; ++cls)
    for (size_t n = 0; n < pieces_.size(); ++n) {
      if (recv_[n].data.size() == 0) continue;
      const Piece& pc = pieces_[n];
      const Side& sd = sides_[pc.side];
      if (2 * sd.dir + sd.side != cls) continue;
      const int d = sd.dir;
      const Array4 u = crse_u[pc.crse].array();
      const Array4 f = crse_flux[d][pc.crse].array();
      const Array4 fine = recv_[n].array();
      // Lo side of the fine patch: the corrected face is the hi face of the outside cell.
      const IntVect face_off = sd.side == 0 ? IntVect::unit(d) : IntVect{};
      const double sign = sd.side == 0 ? -1.0 : 1.0;
      const double inv_dx = 1.0 / geom_.dx[d];
      const int nc = u.v.extent(0);
      for_each_cell(
          "flux_register::reflux", pc.cells, KOKKOS_LAMBDA(int i, int j, int k) {
            for (int c = 0; c < nc; ++c) {
              const double fc = f(i + face_off[0], j + face_off[1], k + face_off[2], c);
              u(i, j, k, c) += sign * (fine(i, j, k, c) - dt_crse * fc) * inv_dx;
            }
          });
    }
}

}  // namespace pw
