// The load history: DIR/PREFIX_load.csv, one row per rank per balancing step, appended
// as the run goes (each append checked and on the disk before the run goes on), so that
// plots across a run (and across runs) can be made while it runs and from what a crashed
// run left behind.
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

  /// Rank 0 writes the header (or a restart's repaired rows) to DIR/PREFIX_load.csv.tmp,
  /// which replaces the file with the first append (the history on disk stays as it was
  /// until then), or appends to an existing one; other ranks hold nothing.
  /// Collective. Precondition: cfg.dir exists (make_output_dir). Throws UserError on
  /// every rank when the file cannot be opened or written.
  /// With restart_step >= 0 (a run restarted from the dump of that step), rows go after
  /// those of an existing history. One whose header is another is refused (UserError);
  /// a partial last row (a crash mid-write) and the rows the restarted run takes again
  /// (a restart from an earlier dump) are dropped, each with a warning, before any row
  /// is added: those of balancing steps after `balance_steps` (the count the dump
  /// records), or where the dump does not record it (-1), of step restart_step on.
  LoadHistory(const OutputConfig& cfg, const Comm& comm, int restart_step = -1,
              int balance_steps = -1);
  ~LoadHistory();
  LoadHistory(const LoadHistory&) = delete;
  LoadHistory& operator=(const LoadHistory&) = delete;

  /// Append the rows of balancing step `balance_step` (1-based), flushed and synced, so
  /// that they survive a crash of a later step. Rank 0 writes; collective, so that a
  /// failed write (a full disk) is a UserError naming the file on every rank. A failed
  /// append is cut off again: the file never ends in a partial row that this run wrote.
  /// Precondition: p.rank_load and p.rank_patches have one entry per rank.
  void append(int balance_step, const BalanceEvent& e, const PlanRecord& p,
              const std::string& method);

 private:
  /// Rank 0: write `text` at the end of the file, synced; "" or what failed.
  std::string write(const std::string& text);
  /// Close the file; remove the .tmp if it never replaced the history.
  void close();
  /// Rank 0: "" if the open file is still the one the history's name (or its .tmp's)
  /// reaches, or what happened to it.
  std::string still_there() const;
  /// Rank 0: rename the .tmp to the history's name; "" or what failed.
  std::string publish();

  std::string path_;
  Comm comm_;
  std::FILE* file_ = nullptr;    // open on rank 0 only
  bool rename_pending_ = false;  // rank 0: the file is still the .tmp
};

}  // namespace pw
