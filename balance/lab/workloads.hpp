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
  /// Largest patch side per level, in cells, the last value repeating for deeper levels;
  /// empty: default_max_size(kind). Each a multiple of the blocking factor.
  std::vector<int> max_size;
};

/// clustered, plane, bubble.
const std::vector<std::string>& workload_kinds();

/// The default largest patch side per level of a workload kind (the last value repeats).
/// clustered: 112 64 32 16, large coarse patches over many small deep ones as in AMR64,
/// calibrated so that at 10^4 patches in 3D the largest patch costs about 8.5 times the
/// average load at 4096 ranks (Lan et al.'s figure); plane and bubble: 32.
std::vector<int> default_max_size(const std::string& kind);

/// Generate a workload. Pre: kind is known, dim is 2 or 3, blocking_factor is 4, 8 or 16
/// (UserError otherwise). Post: the patches have refinement 2 between levels, cost =
/// cells * 2^level and owner -1; level 0 covers the domain; boxes are disjoint within a
/// level, aligned to the blocking factor, with sides from the blocking factor to the
/// level's max_size (z extent 1 in 2D); there are count patches within 20% (when count
/// >= 1000). Pre (UserError otherwise): max_size values are multiples of the blocking
/// factor, up to 1024. Proper
/// nesting is not guaranteed: the list is metadata for balancers, not a hierarchy.
PatchList make_workload(const WorkloadSpec& spec);

}  // namespace pw
