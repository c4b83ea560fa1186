// The [output] section of the deck and the writing of one dump: the Chombo HDF5 file
// and its XDMF description beside it, each under a temporary name renamed when complete.
#pragma once

#include <string>
#include <vector>

#include "amr/deck.hpp"
#include "amr/io/chombo_writer.hpp"

namespace pw {

struct OutputConfig {
  bool write = true;  // output.write: dumps at all
  int interval = 0;   // output.interval: every this many coarse steps; 0 = end only
  std::string dir = "output";  // output.dir: created if missing
  std::string prefix = "plt";  // output.prefix: files PREFIX_STEP(5 digits).h5 / .xmf

  /// A dump is due after `step` coarse steps (step 0: the initial state).
  bool due(int step) const { return write && interval > 0 && step % interval == 0; }
};

/// Read and check output.write (bool), output.interval (int >= 0), output.dir (a
/// non-empty string), output.prefix (a non-empty file name without '/'). Every key is
/// read, so that the deck echo lists them even when output is off.
OutputConfig read_output_config(const Deck& deck);

/// What in the run's set-up yt would read wrongly (yt takes every level's ref_ratio from
/// level 0, assumes cubic cells and the origin at 0): one line per problem, empty if
/// none.
std::vector<std::string> dump_warnings(const AmrConfig& cfg);

/// The longest output.prefix: the file names made from it must fit a file system's 255.
constexpr size_t kMaxPrefixBytes = 200;

/// What make_output_dir would refuse, without creating anything (--check): the nearest
/// existing part of output.dir not a directory, or one rank 0 may not write in.
/// Collective; throws UserError on every rank.
void check_output_dir(const OutputConfig& cfg, const Comm& comm);

/// Create output.dir (rank 0) if missing. Collective. Throws UserError on every rank when
/// it cannot be created, so a run can check it before any work.
void make_output_dir(const OutputConfig& cfg, const Comm& comm);

/// Write DIR/PREFIX_STEP.h5 and DIR/PREFIX_STEP.xmf for the current state. Collective.
/// Each is written under NAME.tmp and renamed when complete (the .h5 once every rank has
/// written it, then the .xmf), so that a final name never holds a partial file. Throws
/// UserError "cannot write the dump DIR/PREFIX_STEP.h5: <cause>" on every rank when a
/// write fails on any (a full disk, a quota, permissions): the temporary files are
/// removed, earlier dumps are left as they were. Returns the path of the .h5 file.
std::string write_dump(const Hierarchy& h, const DumpInfo& info, const OutputConfig& cfg);

}  // namespace pw
