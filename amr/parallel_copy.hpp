// CopyPlan: copies regions of source patches into destination patches, on-rank or across
// ranks with non-blocking MPI and Kokkos pack/unpack kernels. Built once per layout
// change and reused; ghost exchange, coarse-fine fills, average-down, refluxing, regrid
// fills and migration are all instances of it.
#pragma once

#include <vector>

#include "amr/comm.hpp"
#include "amr/fab.hpp"
#include "amr/layout.hpp"

namespace pw {

/// Copy cells `box` of destination patch `dst` from source patch `src` at box - shift.
struct CopyTag {
  int src = 0;
  int dst = 0;
  Box box;  // destination index space
  IntVect shift;
};

class CopyPlan {
 public:
  CopyPlan() = default;
  /// A plan from explicit tags. Every rank passes the same tags and owners; each keeps
  /// the ones it sends, receives or copies locally, in the order given (that order fixes
  /// message layout, so it must be the same on every rank).
  CopyPlan(const std::vector<CopyTag>& tags, const std::vector<int>& src_owner,
           const std::vector<int>& dst_owner, int my_rank);

  /// Fill `regions[i]` (destination index space) of each destination patch i from the
  /// source patches, also through the periodic images given by `shifts` (0 shift
  /// implied). Regions no source covers are left untouched.
  static CopyPlan intersecting(const LevelLayout& src,
                               const std::vector<BoxList>& regions,
                               const std::vector<int>& dst_owner,
                               const std::vector<IntVect>& shifts, int my_rank);

  /// Execute: src[n] / dst[n] must be allocated on their owners (others may be empty).
  /// All components are copied; source and destination must have the same count.
  void copy(const std::vector<Fab>& src, std::vector<Fab>& dst, const Comm& comm) const;

  bool empty() const { return local_.empty() && sends_.empty() && recvs_.empty(); }
  long cells_received() const;

 private:
  struct Peer {
    int rank;
    std::vector<CopyTag> tags;
    long cells = 0;
  };
  std::vector<CopyTag> local_;
  std::vector<Peer> sends_;  // ascending rank
  std::vector<Peer> recvs_;
};

}  // namespace pw
