// The run summary as JSON, DIR/PREFIX_summary.json, for sweeps and scripts: what ran
// (deck, code, ranks, hosts, Kokkos), how fast (phases, cell updates) and how well it was
// balanced (every balancing step), and the fingerprint. Schema:
// tools/run_summary.schema.json, whose version is kRunSummaryVersion.
#pragma once

#include <string>
#include <vector>

#include "amr/comm.hpp"
#include "amr/deck.hpp"
#include "amr/io/output.hpp"
#include "app/simulation.hpp"

namespace pw {

/// Raised whenever a field is removed or changes meaning; new fields keep the version.
inline constexpr int kRunSummaryVersion = 1;

/// What the command line said, beside the deck as used.
struct RunIdentity {
  std::string code_version;  // "patchwork X.Y", with " (git REVISION)" from a checkout
  std::string deck_file;
  std::vector<std::string> overrides;
};

/// DIR/PREFIX_summary.json.
std::string summary_path(const OutputConfig& cfg);

/// Write the summary of a finished run (status "ok"). Collective: the per-rank figures
/// are reduced over `comm`, then rank 0 writes the file under a temporary name and
/// renames it, so that a run killed before the end leaves no summary. Throws UserError
/// on rank 0 when the file cannot be written.
void write_run_summary(const Simulation& sim, const RunResult& r, const Deck& deck,
                       const RunIdentity& id, const Comm& comm);

/// Write the summary of a run that stopped on a UserError (status "error", the message,
/// the deck as read so far), if the deck's output.dir and output.prefix are valid (the
/// directory is created if missing). An earlier run's summary there (not an error's)
/// is kept as PREFIX_summary.previous.json. Not collective: call it on rank 0 only.
/// Never throws; returns whether the file was written.
bool write_error_summary(const Deck& deck, const RunIdentity& id,
                         const std::string& error, int nranks) noexcept;

}  // namespace pw
