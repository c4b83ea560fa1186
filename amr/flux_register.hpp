// FluxRegister: makes coarse-fine faces conservative (Berger-Colella refluxing). Lives
// with the fine level. During a coarse step the fine owner sums the fine fluxes crossing
// the boundary of each fine patch where coarse cells the fine level does not cover lie
// outside it (times dt, averaged over the faces under one coarse face); reflux() sends
// the sums to the owners of those coarse cells and replaces the coarse flux there by
// them.
#pragma once

#include <vector>

#include "amr/box_set.hpp"
#include "amr/field3.hpp"
#include "amr/layout.hpp"
#include "amr/level_geom.hpp"
#include "amr/parallel_copy.hpp"
#include "amr/patch_teams.hpp"

namespace pw {

/// Coarse face (i, j, k) of a register's sum += w times the sum of the fine fluxes f
/// (direction d) under it, for every component; w = dt_fine / (fine faces under one).
KOKKOS_FORCEINLINE_FUNCTION void add_fine_face(const FabRef& sum, const FabRef& f, int d,
                                               const IntVect& r, int nc, double w, int i,
                                               int j, int k, bool replace = false) {
  const IntVect lo = IntVect{i, j, k} * r;  // first fine face under this one
  IntVect n_t = r;                          // transverse fine faces under one coarse face
  n_t[d] = 1;
  for (int c = 0; c < nc; ++c) {
    double s = 0.0;
    for (int kk = 0; kk < n_t[2]; ++kk)
      for (int jj = 0; jj < n_t[1]; ++jj)
        for (int ii = 0; ii < n_t[0]; ++ii)
          s += f(lo[0] + ii, lo[1] + jj, lo[2] + kk, c);
    // Replacing: what reset() and then adding give, 0 + w s (the same bits).
    sum(i, j, k, c) = (replace ? 0.0 : sum(i, j, k, c)) + w * s;
  }
}

class FluxRegister {
 public:
  FluxRegister() = default;
  /// crse_geom: the coarse level's geometry; ratio: coarse to fine.
  FluxRegister(const LevelLayout& fine, const LevelLayout& crse,
               const LevelGeom& crse_geom, const IntVect& ratio, int ncomp, int my_rank);

  using Refs = StructArray<FabRef>;  // per patch (LevelData::refs, fab_refs)

  /// Zero the fine sums (at the start of a coarse step).
  void reset();
  /// Add dt_fine times the fine fluxes flux[d] of every local fine patch on its
  /// boundary, in one launch (flux[2] is not read in 2D). replace: set the sums to
  /// them (the bits of reset() and then adding).
  void add_fine(const Refs flux[3], double dt_fine, bool replace = false);
  /// add_fine for one patch within the team that just updated it, while its fluxes are
  /// in cache (the time stepper's level update, amr/update_refs.hpp). Plain data.
  struct TeamAdder {
    StructArray<Box> box;  // the sums' boxes; patch p's sides are 2 dim p .. + 2 dim
    Refs sum;
    IntVect ratio;
    int dim = 0, ncomp = 0;

    PW_NOINLINE KOKKOS_FUNCTION void add(const TeamMember& m, int patch,
                                         const FabRef flux[3], double dt_fine) const {
      for (int s = 0; s < 2 * dim; ++s) {
        const int n = 2 * dim * patch + s, d = s / 2;
        const FabRef sn = sum(n), f = flux[d];
        const double w = dt_fine * double(ratio[d]) / double(ratio.product());
        team_cells(m, box(n), [&](int i, int j, int k) {
          add_fine_face(sn, f, d, ratio, ncomp, w, i, j, k);
        });
      }
    }
  };
  TeamAdder team_adder() const { return {sum_box_, sum_refs_, ratio_, dim_, ncomp_}; }

  /// Correct the coarse state: u -= (fine sum - dt_crse * F_crse) / dx on the coarse
  /// cells beside the fine patches that the fine level does not cover (average-down
  /// replaces the others), signs per side, in a fixed order, so results do not
  /// depend on the rank count: class of faces by class (x-lo, x-hi, ...), in one launch
  /// with a team per coarse patch.
  void reflux(const Refs& crse_u, const Refs crse_flux[3], double dt_crse,
              const Comm& comm);

  /// The faces normal to d whose fluxes add_fine reads (fine face indices, the local
  /// fine patches' sides), appended to boxes with each one's patch in patches.
  void fine_faces(int d, std::vector<Box>& boxes, std::vector<int>& patches) const;
  /// The faces normal to d whose fluxes reflux reads (coarse face indices, on the local
  /// coarse patches beside the fine ones, periodic images included), appended likewise.
  void crse_faces(int d, std::vector<Box>& boxes, std::vector<int>& patches) const;

  /// Number of (fine patch, direction, side) faces, of those whose coarse pieces this
  /// rank searched for, and of coarse pieces: for tests.
  size_t num_sides() const { return sides_.size(); }
  size_t num_searched_sides() const { return searched_; }
  size_t num_pieces() const { return pieces_.size(); }

  // Public for CUDA: a device lambda may not capture a View of a private type.
  struct Side {
    int patch, dir, side;
  };
  struct Piece {
    int side;   // index into sides_
    int crse;   // coarse patch holding the cells
    Box cells;  // coarse cells (coarse patch frame) whose face is corrected
  };

 private:
  int dim_ = 3;
  int ncomp_ = 0;
  IntVect ratio_;
  LevelGeom geom_;
  std::vector<Side> sides_;
  size_t searched_ = 0;  // sides whose coarse pieces were searched for
  std::vector<Fab>
      sums_;  // per side, over the bounding box of the faces its pieces read (fine owner)
  std::vector<Piece> pieces_;
  Kokkos::View<double*> sum_pool_;  // the memory of sums_
  std::vector<int> piece_owner_;
  int my_rank_ = 0;
  CopyPlan plan_;
  // For the launches: sides_, pieces_ and the FabRefs of sums_ on the device, the local
  // sides' sums and the local pieces of each class as BoxSets.
  StructArray<Side> side_dev_;
  StructArray<Piece> piece_dev_;
  Refs sum_refs_;
  // Per piece of this rank's coarse patches, its fine sums in the piece's coarse cells,
  // read where they are: in the side's sums (on-rank, the tag's shift in the offset) or
  // in the plan's receive buffer (from another rank).
  Refs piece_sums_;
  StructArray<Box> sum_box_;
  BoxSet local_sums_;
  // The local pieces by coarse patch, each's by class (a coarse cell has at most one
  // corrected face per class): reflux's team t corrects class c from run 2 dim t + c.
  BoxSet local_pieces_;  // items: the pieces' indices
  StructArray<BoxSet::Range> class_runs_;
  int reflux_teams_ = 0;
};

}  // namespace pw
