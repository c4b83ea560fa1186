// A dump of the hierarchy in Chombo's AMR HDF5 layout (what yt's Chombo frontend reads
// with no plugin), written collectively by every rank through MPI-IO, plus the load
// (patch ids, costs, owners, per-rank load), the deck as used and the code version.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "amr/hierarchy.hpp"
#include "amr/io/code_units.hpp"

namespace pw {

/// What a dump records besides the hierarchy.
struct DumpInfo {
  std::vector<std::string> component_names;
  int step = 0;      // coarse steps taken
  std::string deck;  // Deck::echo(): every key as used, defaults included
  std::vector<double> initial_totals;  // per component at step 0, for a restart's summary
  std::vector<long> physics_counters;  // the module's event counts so far (all ranks)
  std::string balance_method;          // the deck's balancer
  // The latest balancing step's metrics and their run averages, as (name, value).
  std::vector<std::pair<std::string, double>> balance_metrics;
  CodeUnits units;        // [units]: written for yt when set
  int balance_steps = 0;  // balancing steps taken so far (the load history's last one)
};

/// Start of each box's cells in a level's cell-ordered data (patch order), then the
/// total.
std::vector<long> cell_offsets(const BoxList& boxes);

/// vtkGhostType of a cell under a finer level: VTK's REFINEDCELL (8) | HIDDENCELL (32).
/// ParaView's filters (Integrate Variables, Slice, ...) skip HIDDENCELL; REFINEDCELL is
/// what VTK's own AMR blanking marks, which newer VTK reads as hidden too.
constexpr unsigned char kCoveredCell = 8 | 32;

/// vtkGhostType of each cell of `box` (i fastest, then j, k): kCoveredCell where a box of
/// `covering` holds the cell, else 0. `covering`: the next finer level's boxes coarsened
/// to this level.
std::vector<unsigned char> ghost_types(const Box& box, const BoxList& covering);

/// Cost of a patch of `level` per coarse step: cells x substeps of its level.
double dump_cost(const AmrConfig& cfg, int level, const Box& box);

/// A generous estimate of the size in bytes of write_chombo's file for `h` (its data,
/// the metadata and HDF5's headers), so that the room for it can be reserved first.
long dump_bytes(const Hierarchy& h, const DumpInfo& info);

/// Write the current state (u_new of every level) into `path`, an HDF5 file with nothing
/// in it yet (write_dump creates it, with room reserved for it on the disk). Collective
/// over h.comm(): every rank calls it, owner of patches or not.
/// Layout, per level L (group level_L): attributes dx, dt, time, ref_ratio, prob_domain,
/// is_periodic_d; datasets boxes, Processors, patch_id, cost, data:offsets=0 (int64, in
/// values, npatch+1), data:datatype=0 (per box, component-major, i fastest, interior
/// only), data_datatype_0 (a hard link to it, for XDMF), vtkGhostType (uint8 per cell);
/// group data_attributes. Root: num_levels, num_components, component_N, time, iteration,
/// deck, code_version; dataset rank_load; group Chombo_global (SpaceDim, prob_lo).
/// With [units] set, the root has length_unit, time_unit, mass_unit too (cgs).
/// Every dump is a checkpoint (see amr/io/checkpoint.hpp): each level_L also holds t_old,
/// t_new, steps, last_regrid_step; group checkpoint holds step, cell_updates, regrids,
/// max_level, ref_ratio, domain, initial_totals and physics_counters.
/// Checksums (amr/io/checksum.hpp): every group has an attribute `checksum`, the digest
/// of its other attributes; every dataset but vtkGhostType and data:datatype=0 has one of
/// its bytes; data:checksums holds one per patch of data:datatype=0.
/// Throws std::runtime_error naming the cause when a write fails on this rank; a rank
/// whose write fails goes on with the others' collective calls first (no deadlock). In a
/// parallel run a failed write throws UnclosableFile on every rank instead.
void write_chombo(const Hierarchy& h, const DumpInfo& info, const std::string& path);

/// A collective write of a parallel run that failed on some rank: HDF5 1.10 cannot close
/// the file after that (its close waits in collective calls that the ranks no longer
/// make alike), so the file is left open, and the processes must end without
/// MPI_Finalize, which would close it: the executable reports the error, then stops
/// every rank with MPI_Abort.
class UnclosableFile : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pw
