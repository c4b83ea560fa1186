#include "balance/lab/lab_metrics.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace pw {

double lower_bound(const std::vector<PatchMeta>& patches,
                   const std::vector<double>& speed) {
  double total = 0, largest = 0;
  for (const PatchMeta& p : patches) {
    total += p.cost;
    largest = std::max(largest, p.cost);
  }
  const double ideal = ideal_time(total, speed);
  if (ideal <= 0) return 1;
  const double fastest = *std::max_element(speed.begin(), speed.end());
  // The rank that takes the largest patch needs at least largest / fastest.
  return std::max(1.0, (largest / fastest) / ideal);
}

double lower_bound(const std::vector<PatchMeta>& patches, int nranks) {
  return lower_bound(patches, std::vector<double>(size_t(nranks), 1.0));
}

namespace {

/// Boxes of one level hashed into cubic bins at least as large as the largest box, so a
/// box meets at most 8 bins and a query touches few.
class SpatialHash {
 public:
  SpatialHash(const std::vector<Box>& boxes, const std::vector<int>& members)
      : boxes_(boxes) {
    for (int i : members)
      for (int d = 0; d < 3; ++d)
        bin_ = std::max(bin_, boxes[i].size()[d]);
    for (int i : members)
      for_bins(boxes[i], [&](std::uint64_t key) { bins_[key].push_back(i); });
  }

  /// Calls f(j) once for every member j that intersects q (stamp: scratch per call).
  template <class F>
  void query(const Box& q, std::vector<int>& stamp, int mark, F&& f) const {
    for_bins(q, [&](std::uint64_t key) {
      auto it = bins_.find(key);
      if (it == bins_.end()) return;
      for (int j : it->second)
        if (stamp[j] != mark && intersects(boxes_[j], q)) {
          stamp[j] = mark;
          f(j);
        }
    });
  }

 private:
  /// 21 bits per bin index: exact for bins within +-2^20 of the origin.
  static std::uint64_t bits(int i) { return std::uint64_t(i) & 0x1FFFFF; }

  template <class F>
  void for_bins(const Box& b, F&& f) const {
    const IntVect lo = coarsen(b.lo, IntVect::uniform(bin_));
    const IntVect hi = coarsen(b.hi, IntVect::uniform(bin_));
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int i = lo[0]; i <= hi[0]; ++i)
          f(bits(i) << 42 | bits(j) << 21 | bits(k));
  }

  const std::vector<Box>& boxes_;
  int bin_ = 1;
  std::unordered_map<std::uint64_t, std::vector<int>> bins_;
};

}  // namespace

long comm_cut(const std::vector<Box>& boxes, const std::vector<int>& level,
              const std::vector<int>& owner) {
  std::unordered_map<int, std::vector<int>> by_level;
  for (int i = 0; i < int(boxes.size()); ++i)
    by_level[level[i]].push_back(i);
  std::vector<int> stamp(boxes.size(), -1);
  int mark = 0;
  long cut = 0;
  for (const auto& [l, members] : by_level) {
    const SpatialHash hash(boxes, members);
    for (int i : members)
      // Only the hi side of each box, so each pair is seen once (from its lo box).
      for (int d = 0; d < 3; ++d) {
        const Box layer = adjacent_cells(boxes[i], d, 1);
        hash.query(layer, stamp, mark++, [&](int j) {
          if (owner[j] != owner[i]) cut += (layer & boxes[j]).num_cells();
        });
      }
  }
  return cut;
}

std::string check_plan(const std::vector<PatchMeta>& patches, const Plan& plan,
                       int nranks) {
  const std::size_t n = plan.boxes.size();
  if (plan.owner.size() != n || plan.level.size() != n || plan.source.size() != n)
    return "boxes, level, owner and source differ in length";
  std::vector<long> cells(patches.size(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    const int s = plan.source[i];
    if (s < 0 || s >= int(patches.size()))
      return "box " + std::to_string(i) + ": source out of range";
    if (plan.owner[i] < 0 || plan.owner[i] >= nranks)
      return "box " + std::to_string(i) + ": owner " + std::to_string(plan.owner[i]) +
             " out of range";
    if (!patches[s].box.contains(plan.boxes[i]) || plan.level[i] != patches[s].level)
      return "box " + std::to_string(i) + ": not inside its source patch " +
             std::to_string(s);
    cells[s] += plan.boxes[i].num_cells();
  }
  for (std::size_t s = 0; s < patches.size(); ++s)
    if (cells[s] != patches[s].box.num_cells())
      return "patch " + std::to_string(s) + ": pieces do not cover it exactly";
  return {};
}

LabMetrics lab_metrics(const std::vector<PatchMeta>& patches, const Plan& plan,
                       const std::vector<double>& speed) {
  LabMetrics m;
  std::vector<double> work(speed.size(), 0.0);  // cost per rank, not divided by speed
  bool owners = !patches.empty();
  for (const PatchMeta& p : patches)
    owners = owners && p.owner >= 0;
  double total = 0, moved = 0;
  for (std::size_t i = 0; i < plan.boxes.size(); ++i) {
    const PatchMeta& p = patches[plan.source[i]];
    const long cells = plan.boxes[i].num_cells(), whole = p.box.num_cells();
    // A whole patch costs exactly its cost, so that a plan never reads below the bound.
    const double c = cells == whole ? p.cost : p.cost * double(cells) / double(whole);
    work[size_t(plan.owner[i])] += c;
    total += c;
    if (plan.owner[i] != p.owner) moved += c;
  }
  m.load = load_metrics(work, speed);
  m.lower_bound = lower_bound(patches, speed);
  m.patches_out = int(plan.boxes.size());
  m.split = m.patches_out - int(patches.size());
  m.comm_cut = comm_cut(plan.boxes, plan.level, plan.owner);
  if (owners) m.migrated_pct = total > 0 ? 100 * moved / total : 0;
  return m;
}

LabMetrics lab_metrics(const std::vector<PatchMeta>& patches, const Plan& plan,
                       int nranks) {
  return lab_metrics(patches, plan, std::vector<double>(size_t(nranks), 1.0));
}

}  // namespace pw
