// Synthetic patch lists for the balance lab, shaped like the seed papers' datasets:
// AMR64's clustered refinement, ShockPool3D's tilted plane shock and a moving bubble.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "balance/balancer.hpp"

namespace pw {

/// A patch list with what the lab needs to know about it besides the patches.
struct PatchList {
  int dim = 3;
  int refinement = 2;  // ratio between consecutive levels
  std::vector<PatchMeta> patches;
};

struct WorkloadSpec {
  std::string kind = "clustered";  // one of workload_kinds()
  int count = 10000;               // patches wanted
  int dim = 3;
  std::uint64_t seed = 1;
  double time = 0;  // moves the bubble (and the plane) across the domain, in [0, 1]
  int blocking_factor = 8;
};

/// clustered, plane, bubble.
const std::vector<std::string>& workload_kinds();

/// Generate a workload. Pre: kind is known, dim is 2 or 3, blocking_factor is 4, 8 or 16
/// (UserError otherwise). Post: the patches have refinement 2 between levels, cost =
/// cells * 2^level and owner -1; level 0 covers the domain; boxes are disjoint within a
/// level, aligned to the blocking factor, with sides from the blocking factor to 32 cells
/// (z extent 1 in 2D); there are count patches within 20% (when count >= 1000). Proper
/// nesting is not guaranteed: the list is metadata for balancers, not a hierarchy.
PatchList make_workload(const WorkloadSpec& spec);

}  // namespace pw
