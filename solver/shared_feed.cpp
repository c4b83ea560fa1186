#include "solver/shared_feed.hpp"

namespace pw::mg {

SharedFeed::SharedFeed(const LevelData& rhs, const std::vector<int>& owner,
                       const Comm& comm) {
  const int me = comm.rank(), P = comm.size();
  const size_t n = rhs.size();
  // Destinations as this rank numbers them: b, its own copy of patch b; n + q, rank q's
  // copies (a sender's pieces name no destination fab). The copies this rank takes part
  // in come in one order on every rank (b, then q), which fixes the messages' layout;
  // the tables stay n + P long, not n P. A rank's own patches are restricted in place.
  std::vector<CopyTag> tags;
  std::vector<int> dst_owner(n + size_t(P), me);
  std::vector<Box> mine;
  std::vector<int> items;
  for (int q = 0; q < P; ++q)
    dst_owner[n + size_t(q)] = q;
  for (size_t b = 0; b < n; ++b) {
    const Box& box = rhs.box(b);
    if (owner[b] != me) {  // received from its owner
      tags.push_back({int(b), int(b), box, IntVect{}});
      continue;
    }
    mine.push_back(box);
    items.push_back(int(b));
    for (int q = 0; q < P; ++q)
      if (q != me) tags.push_back({int(b), int(n) + q, box, IntVect{}});
  }
  rows_ = BoxSet(mine, items);
  plan_ = CopyPlan(tags, owner, dst_owner, me);
  dst_.assign(dst_owner.size(), Fab());
  for (size_t b = 0; b < n; ++b)
    dst_[b] = rhs[b];
  copies_ = CopiesByPatch(plan_, rhs.ncomp(), dst_owner.size());
}

void SharedFeed::exchange(const LevelData& rhs, const Comm& comm) {
  plan_.begin(rhs.fabs(), dst_, comm, 7, -1, CopyPlan::Copies::packed);
  plan_.finish(dst_, comm);
}

}  // namespace pw::mg
