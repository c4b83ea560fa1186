// The load history: DIR/PREFIX_load.csv, one row per rank per balancing step, appended
// and flushed as the run goes, so that plots across a run (and across runs) can be made
// while it runs and from what a crashed run left behind.
#pragma once

#include <cstdio>
#include <string>

#include "amr/comm.hpp"
#include "amr/hierarchy.hpp"
#include "amr/io/output.hpp"
#include "app/balancer_planner.hpp"

namespace pw {

class LoadHistory {
 public:
  /// The columns, in order (the header line).
  static const char* header();

  /// Path of the history for an output configuration: DIR/PREFIX_load.csv.
  static std::string path(const OutputConfig& cfg);

  /// Rank 0 creates (truncates) the file and writes the header, or appends to an existing
  /// one; other ranks hold nothing.
  /// Collective. Precondition: cfg.dir exists (make_output_dir). Throws UserError on
  /// every rank when the file cannot be opened.
  /// With `append` (a restarted run), rows go after those of an existing history.
  LoadHistory(const OutputConfig& cfg, const Comm& comm, bool append = false);
  ~LoadHistory();
  LoadHistory(const LoadHistory&) = delete;
  LoadHistory& operator=(const LoadHistory&) = delete;

  /// Append the rows of balancing step `balance_step` (1-based) and flush them, so that
  /// they survive a crash of a later step. Only rank 0 writes; not collective.
  /// Precondition: p.rank_load and p.rank_patches have one entry per rank.
  void append(int balance_step, const BalanceEvent& e, const PlanRecord& p,
              const std::string& method);

 private:
  std::FILE* file_ = nullptr;  // open on rank 0 only
};

}  // namespace pw
