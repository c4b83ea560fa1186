// The coarse-fine fill's one launch: a team per fine patch copies the coarse data under
// the patch's ghosts into the patch's scratch fab, fills the scratch's cells beyond the
// walls, and interpolates the ghosts from it. The stages were launches of their own
// (the copies, the unpacking, each wall face, each run of components), each a pass over
// every scratch fab.
#pragma once

#include <Kokkos_Core.hpp>

#include "amr/boundary.hpp"
#include "amr/interpolate.hpp"
#include "amr/level_geom.hpp"
#include "amr/parallel_copy.hpp"

namespace pw {

/// What the launch reads and writes; scratch fabs and fine patches by fine patch index.
struct CoarseFineLaunch {
  int nc = 0;                  // components of the scratch and the fine fabs
  Kokkos::View<int*> patches;  // team n's fine patch
  // 1. The coarse data: the plan's pieces by fine patch (patch p's: first(p) to
  // first(p + 1) - 1), its on-rank copies (no second term) from the coarse states x,
  // blended with y by w where `blend` (their components from crse_comp on), and what
  // came from other ranks (`from` -1: in `received` from its cell buf_cell on, as
  // CopyPlan lays it out; blended by the sender).
  StructArray<CopyPlan::Piece> pieces;
  Kokkos::View<int*> first;
  double* received = nullptr;
  StructArray<FabRef> x, y;
  bool blend = false;
  double w = 0.0;
  int crse_comp = 0;
  StructArray<FabRef> scratch;
  // 2. The scratch's cells beyond the coarse domain's walls, where `walls`.
  bool walls = false;
  LevelGeom geom;
  StructArray<FaceBc> faces;  // WallFill::conditions, for nc components
  StructArray<Box> scratch_boxes;
  // 3. The interpolation: the regions' coarse cells (items: regions) by fine patch.
  StructArray<FabRef> fine;
  StructArray<FineRegion> regions;
  BoxSet cells;
  StructArray<BoxSet::Range> cells_of_patch;
  StructArray<InterpRun> runs;
  int nruns = 0;
  IntVect ratio;
};

/// The launch (none where there are no teams).
void coarse_fine_launch(const CoarseFineLaunch& a);

}  // namespace pw
