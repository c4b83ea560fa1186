// Restart from a dump: every dump is a checkpoint (write_chombo). A Checkpoint opens one,
// verifies it before any work (checksums, then what the hierarchy must satisfy, then the
// field data), and rebuilds the hierarchy from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "amr/hierarchy.hpp"
#include "amr/io/code_units.hpp"

namespace pw {

class Checkpoint {
 public:
  /// Read and verify the dump `path` on every rank of `comm` (collective); `nghost`: the
  /// physics' ghost width (for the nesting check). Each rank reads the field data of the
  /// patches it will own, and keeps it for restore(). Throws UserError
  /// "restart: <path>: <what is wrong>" on every rank when the file is missing, not
  /// HDF5 (truncated, garbage), incomplete (missing attributes or datasets, inconsistent
  /// sizes), corrupt (an attribute or dataset that fails its checksum, naming it), has
  /// no checksums, breaks check_layouts / check_clocks (checkpoint_checks.hpp), holds
  /// non-finite field data, or does not fit `cfg` and `component_names` (other
  /// dimension, more levels than amr.max_level allows, other components, ratios or
  /// domain).
  Checkpoint(const std::string& path, const AmrConfig& cfg,
             const std::vector<std::string>& component_names, int nghost,
             const Comm& comm);

  const std::string& path() const { return path_; }
  /// Coarse steps taken when the dump was written.
  int step() const { return step_; }
  /// Level-0 time when the dump was written.
  double time() const { return state_.clocks.front().t_new; }
  /// Balancing steps the run had taken when the dump was written (-1: a dump that does
  /// not record them).
  int balance_steps() const { return balance_steps_; }
  /// Component totals at step 0 (empty when the dump does not record them).
  const std::vector<double>& initial_totals() const { return initial_totals_; }
  /// Why a run of `cfg` from this checkpoint has nothing to do (its step is at or
  /// beyond time.max_step, or its time at time.stop_time), or "" when it has.
  std::string nothing_to_do(const AmrConfig& cfg) const;
  /// Why the deck's [units] do not fit this dump's (its length_unit, time_unit and
  /// mass_unit, or none: dimensionless): one run's dumps share one unit system for
  /// their readers. "" when they agree.
  std::string units_differ(const CodeUnits& deck) const;

  /// Rebuild `h` from the data read by the constructor (Hierarchy::restore), and release
  /// it. Collective over h.comm(), which must be the constructor's `comm`. Pre: h was
  /// made with the config this checkpoint was checked against; called once.
  void restore(Hierarchy& h);

 private:
  void read_metadata(const AmrConfig& cfg, const std::vector<std::string>& names,
                     int nghost, const Comm& comm);
  /// This rank's patches of every level: verified against their checksums, finite.
  /// Collective; returns this rank's first error ("" if none) after every read.
  std::string read_data(const Comm& comm);

  std::string path_;
  int dim_ = 0;
  int ncomp_ = 0;
  int step_ = 0;
  int balance_steps_ = -1;
  std::vector<std::string> names_;
  std::vector<double> initial_totals_;
  CodeUnits units_;                                 // as the dump records them
  std::vector<LevelLayout> layouts_;                // owners: as written, or p % ranks
  std::vector<std::vector<std::int64_t>> offsets_;  // per level: data:offsets=0
  std::vector<std::vector<std::uint64_t>> patch_sums_;  // per level: data:checksums
  std::vector<std::vector<double>> values_;  // per level: this rank's patches, in order
  RestoreState state_;
};

}  // namespace pw
