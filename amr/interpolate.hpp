// Launches of the inter-level kernels over boxes.
#pragma once

#include <vector>

#include "amr/box_set.hpp"
#include "amr/fab.hpp"
#include "amr/field3.hpp"

namespace pw {

/// Coarse-to-fine interpolation in space, chosen per component. All are
/// conservative (the fine cells under a coarse cell average to its value) and read the
/// coarse cell's neighbours one away in every used direction.
enum class Interp {
  conservative_linear,  // monotonized-central limited slopes: no new extrema (states)
  linear,               // central slopes, unlimited: exact for linear data
  quadratic,            // with curvature and cross terms: exact for quadratic data
  gas_state,  // density, 3 momenta, total energy together: conservative_linear where
              // every fine cell keeps a positive internal energy, the coarse state
              // elsewhere (interp_gas_cell)
};

/// Components [n0, n1) interpolated by `kind`.
struct InterpRun {
  Interp kind = Interp::conservative_linear;
  int n0 = 0, n1 = 0;
};

/// The runs of components [0, nc) that interp gives one kind; std::logic_error where
/// interp is shorter or a gas_state run is not gas_state_ncomp long.
std::vector<InterpRun> interp_runs(const std::vector<Interp>& interp, int nc);

/// fine(box) = interpolation of crse, components [c0, c1) (all when c1 < 0). Pre: crse
/// holds every coarse cell under `box` plus one neighbour in each used direction.
void interpolate_to_fine(const Fab& crse, Fab& fine, const Box& box, const IntVect& ratio,
                         int dim, Interp kind = Interp::conservative_linear, int c0 = 0,
                         int c1 = -1);

/// Each run of components with one kind gets one launch: interp[c] for component c.
void interpolate_to_fine(const Fab& crse, Fab& fine, const Box& box, const IntVect& ratio,
                         int dim, const std::vector<Interp>& interp);

/// crse(cbox) = average of fine over each coarse cell of cbox. Pre: fine covers
/// refine(cbox).
void average_to_coarse(const Fab& fine, Fab& crse, const Box& cbox, const IntVect& ratio);

// The same over many patches, one launch each (per run of components with one kind).

/// Fine cells `box` of patch `patch` (one region of a batched interpolation).
struct FineRegion {
  int patch = 0;
  Box box;
};

/// For each region n: fine(patch)(box) = interpolation of crse(patch), interp[c] for
/// component c < nc. cells: the regions' boxes coarsened by ratio, item n for region n.
/// Regions of one patch must not overlap.
void interpolate_regions(const StructArray<FabRef>& crse, const StructArray<FabRef>& fine,
                         const StructArray<FineRegion>& regions, const BoxSet& cells,
                         const IntVect& ratio, int dim, const std::vector<Interp>& interp,
                         int nc);
/// A piece of a batched average-down: coarse cells `box` of fine patch `fine` averaged
/// into coarse patch `crse`, or where crse < 0 into a message buffer from its cell
/// `buf_cell` on (components one after another, i fastest: CopyPlan's layout).
struct AveragePiece {
  int fine = 0;
  int crse = -1;
  long buf_cell = -1;
  Box box;
};

/// Every piece's average of fine (refs by patch) over each coarse cell into crse (refs
/// by patch) or into buf, components [0, nc), in one launch. cells: the pieces' boxes,
/// item n for piece n.
void average_to_coarse(const StructArray<FabRef>& fine, const StructArray<FabRef>& crse,
                       const StructArray<AveragePiece>& pieces, const BoxSet& cells,
                       double* buf, const IntVect& ratio, int nc);

}  // namespace pw
