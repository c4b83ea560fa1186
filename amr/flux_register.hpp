// FluxRegister: makes coarse-fine faces conservative (Berger-Colella refluxing). Lives
// with the fine level. During a coarse step the fine owner sums the fine fluxes crossing
// the boundary of each fine patch (times dt, averaged over the faces under one coarse
// face); reflux() sends the sums to the owners of the coarse cells just outside and
// replaces the coarse flux there by them.
#pragma once

#include <vector>

#include "amr/layout.hpp"
#include "amr/level_geom.hpp"
#include "amr/parallel_copy.hpp"

namespace pw {

class FluxRegister {
 public:
  FluxRegister() = default;
  /// crse_geom: the coarse level's geometry; ratio: coarse to fine.
  FluxRegister(const LevelLayout& fine, const LevelLayout& crse,
               const LevelGeom& crse_geom, const IntVect& ratio, int ncomp, int my_rank);

  /// Zero the fine sums (at the start of a coarse step).
  void reset();
  /// Add dt_fine times the fine fluxes of local fine patch `patch` on its boundary.
  void add_fine(int patch, const Fab flux[3], double dt_fine);
  /// Correct the coarse state: u -= (fine sum - dt_crse * F_crse) / dx on the coarse
  /// cells beside the fine patches (signs per side), in a fixed order, so results do not
  /// depend on the rank count.
  void reflux(std::vector<Fab>& crse_u, const std::vector<Fab> crse_flux[3],
              double dt_crse, const Comm& comm);

  /// Number of (fine patch, direction, side) faces and of coarse pieces: for tests.
  size_t num_sides() const { return sides_.size(); }
  size_t num_pieces() const { return pieces_.size(); }

 private:
  struct Side {
    int patch, dir, side;
  };
  struct Piece {
    int side;   // index into sides_
    int crse;   // coarse patch holding the cells
    Box cells;  // coarse cells (coarse patch frame) whose face is corrected
  };
  int dim_ = 3;
  IntVect ratio_;
  LevelGeom geom_;
  std::vector<Side> sides_;
  std::vector<Fab>
      sums_;  // per side, over the coarse faces of the side (fine owner only)
  std::vector<Piece> pieces_;
  std::vector<Fab> recv_;  // per piece, over its cells (coarse owner only)
  std::vector<int> piece_owner_;
  CopyPlan plan_;
};

}  // namespace pw
