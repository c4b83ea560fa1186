// Restart from a dump: every dump is a checkpoint (write_chombo). A Checkpoint opens one,
// checks it against the run's set-up before any work, and rebuilds the hierarchy from
// it, each rank reading its own patches through collective MPI-IO.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "amr/hierarchy.hpp"

namespace pw {

class Checkpoint {
 public:
  /// Read and check the metadata of the dump `path` on every rank of `comm`
  /// (collective). Throws UserError "restart: <path>: <what is wrong>" on every rank when
  /// the file is missing, not HDF5 (truncated, garbage), incomplete (missing attributes
  /// or datasets, inconsistent sizes), or does not fit `cfg` and `component_names`
  /// (other dimension, more levels than amr.max_level allows, other components, ratios
  /// or domain).
  Checkpoint(const std::string& path, const AmrConfig& cfg,
             const std::vector<std::string>& component_names, const Comm& comm);

  const std::string& path() const { return path_; }
  /// Coarse steps taken when the dump was written.
  int step() const { return step_; }
  /// Level-0 time when the dump was written.
  double time() const { return state_.clocks.front().t_new; }
  /// Component totals at step 0 (empty when the dump does not record them).
  const std::vector<double>& initial_totals() const { return initial_totals_; }

  /// Rebuild `h` from the file (Hierarchy::restore; owners from h's planner). Collective
  /// over h.comm(). Pre: h was made with the config this checkpoint was checked against.
  void restore(Hierarchy& h) const;

 private:
  void read_metadata(const AmrConfig& cfg, const std::vector<std::string>& names,
                     const Comm& comm);

  std::string path_;
  int dim_ = 0;
  int ncomp_ = 0;
  int step_ = 0;
  std::vector<double> initial_totals_;
  std::vector<LevelLayout> layouts_;                // owners as written
  std::vector<std::vector<std::int64_t>> offsets_;  // per level: data:offsets=0
  RestoreState state_;
};

}  // namespace pw
