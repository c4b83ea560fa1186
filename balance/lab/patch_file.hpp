// The balance lab's patch-list file: one patch per line, so that lists can be saved,
// shared, edited and replayed (see balance/lab/README.md).
#pragma once

#include <iosfwd>
#include <string>

#include "balance/lab/workloads.hpp"

namespace pw {

/// The most ranks the lab balances for (--ranks).
constexpr int kLabMaxRanks = 65536;

/// Read a patch list:
///   # comment (also after a line's fields)
///   refinement r          ratio between consecutive levels (required, before patches)
///   dim d                 2 or 3 (optional; default 2 when every box has k = 0..0)
///   level lo_i lo_j lo_k hi_i hi_j hi_k cost [owner]
/// Throws UserError "<name>:<line>: <what>" on a bad line, naming the bad field; an owner
/// must be -1 (none) or below `ranks` (the smallest rank count the lab runs); lines of at
/// most 64 KiB, at most 2^40 cells per box and 2^52 over the list (so no count wraps).
/// Post: refinement of a patch = r^level; owner -1 where the column is absent.
PatchList read_patch_list(std::istream& in, const std::string& name,
                          int ranks = kLabMaxRanks);
/// The same, from a file (UserError when it is a directory or cannot be opened).
PatchList read_patch_file(const std::string& path, int ranks = kLabMaxRanks);

/// Write `list` so that read_patch_list gives it back exactly (costs in the shortest form
/// that reads back exactly; the owner column only when some owner is set).
void write_patch_list(std::ostream& out, const PatchList& list);
/// The same, to a file (UserError when it cannot be written).
void write_patch_file(const std::string& path, const PatchList& list);

}  // namespace pw
