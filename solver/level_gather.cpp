#include "solver/level_gather.hpp"

#include <stdexcept>

namespace pw::mg {

LevelGather::LevelGather(const std::vector<const LevelData*>& whole,
                         const std::vector<int>& owner, const Comm& comm)
    : ranks_(comm.size()) {
  const int me = comm.rank(), P = comm.size();
  const size_t n = owner.size(), F = whole.size();
  // Sources: field f's patch b at f n + b. Destinations as this rank numbers them: f n +
  // b, its own copy; F n + q, rank q's copies (a sender's pieces name no destination
  // fab). The copies two ranks share come in one order on both (b, then f, then q).
  std::vector<int> src_owner(F * n), dst_owner(F * n + size_t(P), me);
  for (size_t f = 0; f < F; ++f)
    for (size_t b = 0; b < n; ++b)
      src_owner[f * n + b] = owner[b];
  for (int q = 0; q < P; ++q)
    dst_owner[F * n + size_t(q)] = q;
  std::vector<CopyTag> tags;
  for (size_t b = 0; b < n; ++b)
    for (size_t f = 0; f < F; ++f) {
      const Box& box = (*whole[f])[b].box;
      const int at = int(f * n + b);
      tags.push_back({at, at, box, IntVect{}});  // received, or copied on this rank
      if (owner[b] != me) continue;
      for (int q = 0; q < P; ++q)
        if (q != me) tags.push_back({at, int(F * n) + q, box, IntVect{}});
    }
  plan_ = CopyPlan(tags, src_owner, dst_owner, me);
}

void LevelGather::gather(const std::vector<const LevelData*>& from,
                         const std::vector<LevelData*>& whole, const Comm& comm) {
  if (from.size() != whole.size() || comm.size() != ranks_)
    throw std::logic_error("LevelGather: not the fields or ranks it was built for");
  std::vector<Fab> src, dst;
  for (const LevelData* f : from)
    src.insert(src.end(), f->fabs().begin(), f->fabs().end());
  for (LevelData* w : whole)
    dst.insert(dst.end(), w->fabs().begin(), w->fabs().end());
  dst.resize(dst.size() + size_t(ranks_));
  plan_.copy(src, dst, comm);
}

CopyPlan own_patches(const LevelData& whole, const std::vector<int>& owner, int me) {
  std::vector<CopyTag> tags;
  for (size_t b = 0; b < owner.size(); ++b)
    if (owner[b] == me) tags.push_back({int(b), int(b), whole[b].box, IntVect{}});
  return CopyPlan(tags, std::vector<int>(owner.size(), me), owner, me);
}

}  // namespace pw::mg
