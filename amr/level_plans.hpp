// The copy plans between two levels that LevelData caches: the coarse data under a fine
// level's coarse-fine ghosts (and their interpolation), and the fine data averaged down
// onto the coarse level. Built once per pair of layouts, reused every step.
#pragma once

#include <vector>

#include "amr/boundary.hpp"
#include "amr/coarse_fine_launch.hpp"
#include "amr/interpolate.hpp"
#include "amr/level_geom.hpp"
#include "amr/parallel_copy.hpp"

namespace pw {

class LevelData;

/// Fills the coarse-fine ghost cells of fine patches from the coarser level.
class CoarseFineFill {
 public:
  /// cf_regions[p]: fine patch p's ghost cells to fill (fine index space).
  CoarseFineFill(const LevelData& fine, const std::vector<BoxList>& cf_regions,
                 const LevelLayout& crse, const LevelGeom& crse_geom,
                 const IntVect& ratio, int my_rank);
  /// See LevelData::fill_from_coarse. The messages of the coarse data, then one launch
  /// (coarse_fine_launch): each fine patch's team makes its on-rank copies and unpacks
  /// what came into its scratch fab, fills the scratch's walls and interpolates.
  void fill(LevelData& fine, const LevelData& crse_old, const LevelData& crse_new,
            double a, const std::vector<Interp>& interp, const BcSet& crse_bcs,
            const Comm& comm, int crse_comp);

 private:
  /// The runs of components interpolated alike, on the device (kept for the last
  /// `interp` given: a level is filled with the same kinds each time).
  const StructArray<InterpRun>& runs(const std::vector<Interp>& interp, int nc);

  IntVect ratio_;
  LevelGeom crse_geom_;
  std::vector<BoxList>
      crse_regions_;  // per fine patch: coarse cells those need (disjoint)
  // Per fine patch: the coarse data under the ghosts at the fill's time.
  std::vector<Fab> crse_;
  Kokkos::View<double*> memory_;  // its data (zeroed_fabs)
  CopyPlan plan_;                 // coarse level -> crse_
  // Its on-rank copies and received pieces by fine patch (patch p's: first_(p) to
  // first_(p + 1) - 1), and the buffer they are received into.
  StructArray<CopyPlan::Piece> pieces_;
  Kokkos::View<int*> first_;
  Kokkos::View<double*> received_;
  // The launch's teams (the owned fine patches with ghosts to fill), the scratch fabs'
  // refs and boxes, and the regions to interpolate (item: region) by fine patch.
  Kokkos::View<int*> patches_;
  StructArray<FabRef> refs_;
  StructArray<Box> boxes_;
  StructArray<FineRegion> regions_;
  BoxSet region_cells_;
  StructArray<BoxSet::Range> cells_of_patch_;
  WallFill walls_;  // crse_'s cells beyond the coarse domain's walls
  std::vector<Interp> runs_for_;
  StructArray<InterpRun> runs_;
};

/// Replaces coarse cells under fine patches by the average of the fine cells: one launch
/// averages into the coarse patches of this rank and into the messages to the others
/// (no scratch of averages, no copy of them), the exchange unpacks what came.
class AverageDown {
 public:
  /// For fields of at most fine.ncomp() components.
  AverageDown(const LevelData& fine, const LevelLayout& crse, const IntVect& ratio,
              int my_rank);
  void apply(const LevelData& fine, LevelData& crse, const Comm& comm);

 private:
  IntVect ratio_;
  int ncomp_ = 0;
  // The fine patches coarsened -> the coarse level: its on-rank tags and sent pieces
  // are the pieces averaged, its messages carry the sent ones.
  CopyPlan plan_;
  StructArray<AveragePiece> pieces_;
  BoxSet cells_;                // the pieces' boxes, item: piece
  Kokkos::View<double*> sent_;  // plan_'s send buffer, lent to the launch
};

}  // namespace pw
