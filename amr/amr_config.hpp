// The [domain], [amr] and [time] sections of the deck, read and checked before any work
// starts.
#pragma once

#include <vector>

#include "amr/deck.hpp"
#include "amr/level_geom.hpp"

namespace pw {

struct AmrConfig {
  LevelGeom geom0;             // level-0 geometry (dim, n_cell, prob_lo/hi, periodicity)
  int max_level = 0;           // finest level allowed (0 = uniform grid)
  std::vector<int> ref_ratio;  // ratio between level l and l+1, size max_level; 2 or 4
  int blocking_factor =
      8;  // every box of every level is a multiple of it (cells of its level)
  int max_grid_size = 32;  // longest side of a patch (cells of its level)
  int n_error_buf = 1;     // buffer cells added around tags
  int regrid_interval =
      2;  // regrid levels > l every this many steps of level l (0 = never)
  double grid_eff = 0.7;  // Berger-Rigoutsos efficiency threshold
  int n_proper = 1;       // proper-nesting buffer, in cells of the coarser level
  double cfl = 0.7;
  int max_step = 10;  // coarse steps
  double stop_time = 1e300;
  double fixed_dt = 0;  // > 0: use this level-0 dt instead of the CFL dt

  /// Refinement ratio between level l and l+1 as an IntVect (1 in unused directions).
  IntVect ratio(int l) const { return IntVect::in_dims(geom0.dim, ref_ratio[l], 1); }
  LevelGeom geom(int l) const {
    LevelGeom g = geom0;
    for (int i = 0; i < l; ++i)
      g = g.refined(ratio(i));
    return g;
  }
  IntVect blocking() const { return IntVect::in_dims(geom0.dim, blocking_factor, 1); }
  IntVect max_size() const { return IntVect::in_dims(geom0.dim, max_grid_size, 1); }
};

/// Read and validate. Deck keys (defaults in AmrConfig):
///   domain.dim (2|3), domain.n_cell [nx, ny(, nz)], domain.prob_lo, domain.prob_hi,
///   domain.periodic [bool per direction] ;
///   amr.max_level, amr.ref_ratio (int, or list of max_level ints), amr.blocking_factor,
///   amr.max_grid_size, amr.n_error_buf, amr.regrid_interval, amr.grid_eff, amr.n_proper
///   ; time.cfl, time.max_step, time.stop_time, time.fixed_dt.
/// Throws UserError naming the key for: wrong types, n_cell/prob_lo/prob_hi of the wrong
/// length, prob_hi <= prob_lo, non-positive sizes, ratios other than 2 or 4, a blocking
/// factor not a multiple of every ratio (so fine boxes coarsen to whole coarse cells), a
/// domain not divisible by the blocking factor, max_grid_size not a multiple of the
/// blocking factor, grid_eff outside (0, 1], cfl outside (0, 1], and negative counts.
AmrConfig read_amr_config(const Deck& deck);

}  // namespace pw
