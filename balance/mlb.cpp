#include "balance/mlb.hpp"

#include <algorithm>
#include <numeric>

#include "balance/mlb_phases.hpp"

namespace pw {

namespace {

constexpr int kMortonBits = 21;

/// The low 21 bits of v, spread to every third bit.
std::uint64_t spread3(std::uint64_t v) {
  v &= (std::uint64_t(1) << kMortonBits) - 1;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

void centroid(const PatchMeta& p, double c[3]) {
  const double r = std::max(p.refinement, 1);
  for (int d = 0; d < 3; ++d)
    c[d] = 0.5 * (double(p.box.lo[d]) + double(p.box.hi[d]) + 1.0) / r;
}

}  // namespace

std::uint64_t morton_key(const PatchMeta& patch, const double lo[3], const double hi[3]) {
  double c[3];
  centroid(patch, c);
  const double top = double((std::uint64_t(1) << kMortonBits) - 1);
  std::uint64_t key = 0;
  for (int d = 0; d < 3; ++d) {
    const double t = hi[d] > lo[d] ? (c[d] - lo[d]) / (hi[d] - lo[d]) : 0.0;
    key |= spread3(std::uint64_t(std::clamp(t, 0.0, 1.0) * top)) << d;
  }
  return key;
}

std::vector<int> morton_order(const std::vector<PatchMeta>& patches) {
  const int n = int(patches.size());
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    double c[3];
    centroid(patches[i], c);
    for (int d = 0; d < 3; ++d) {
      lo[d] = i == 0 ? c[d] : std::min(lo[d], c[d]);
      hi[d] = i == 0 ? c[d] : std::max(hi[d], c[d]);
    }
  }
  std::vector<std::uint64_t> key(n);
  for (int i = 0; i < n; ++i)
    key[i] = morton_key(patches[i], lo, hi);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return key[a] < key[b]; });
  return order;
}

std::vector<int> mlb_initial_owners(const std::vector<PatchMeta>& patches, int nranks) {
  const int n = int(patches.size());
  const std::vector<int> order = morton_order(patches);
  std::vector<int> owner(n, -1);
  auto known = [&](int i) { return patches[i].owner >= 0 && patches[i].owner < nranks; };
  int last = -1;  // owner of the nearest earlier patch that has one
  for (int i : order) {
    if (known(i)) last = patches[i].owner;
    owner[i] = known(i) ? patches[i].owner : last;
  }
  int next = -1;  // for the patches before the first owned one
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (known(*it)) next = patches[*it].owner;
    if (owner[*it] < 0) owner[*it] = next;
  }
  for (int k = 0; k < n; ++k)
    if (owner[order[k]] < 0) owner[order[k]] = int(std::int64_t(k) * nranks / n);
  return owner;
}

std::unique_ptr<Balancer> Mlb::from_deck(const Deck& deck, const SplitRules&) {
  const std::string key = "balance.mlb.hops";
  if (deck.get<bool>(key, false))
    deck.fail(key,
              "true (move patches hop by hop along the schedule) is not supported by the "
              "migration yet; expected false");
  return std::make_unique<Mlb>();
}

Plan Mlb::plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const {
  const int n = int(patches.size());
  const mlb::Hypercube cube = mlb::Hypercube::make(ranks.nranks);
  const int size = cube.size();
  const std::vector<int> owner0 = mlb_initial_owners(patches, ranks.nranks);

  // The load function: each rank's patches in curve order, the ranks in position order.
  std::vector<int> curve_pos(n);
  const std::vector<int> curve = morton_order(patches);
  for (int k = 0; k < n; ++k)
    curve_pos[curve[k]] = k;
  std::vector<int> item(n);  // load-function order -> patch
  std::iota(item.begin(), item.end(), 0);
  std::sort(item.begin(), item.end(), [&](int a, int b) {
    return std::make_pair(owner0[a], curve_pos[a]) <
           std::make_pair(owner0[b], curve_pos[b]);
  });
  std::vector<double> cost(n), leaf(size, 0.0), capacity(size, 0.0);
  std::vector<int> holder(n);
  for (int i = 0; i < n; ++i) {
    cost[i] = patches[item[i]].cost;
    holder[i] = cube.pos_of[owner0[item[i]]];
    leaf[holder[i]] += cost[i];
  }
  for (int r = 0; r < ranks.nranks; ++r)
    capacity[cube.pos_of[r]] = r < int(ranks.speed.size()) ? ranks.speed[r] : 1.0;

  const mlb::LoadTree accumulated = mlb::accumulate(leaf);  // phase 1
  const double total = accumulated[0][0];
  Plan plan = whole_patches(patches, owner0);
  if (!(total > 0)) return plan;  // nothing to balance

  const mlb::LoadTree want = mlb::desired(mlb::accumulate(capacity), total);  // phase 2
  std::vector<double> start(size + 1, 0.0), target(size + 1, 0.0);
  for (int q = 0; q < size; ++q) {
    start[q + 1] = start[q] + leaf[q];
    target[q + 1] = target[q] + want[cube.dims][q];
  }
  target[size] = start[size];  // exact despite rounding in the sums
  const mlb::DivisibleSchedule divisible =
      mlb::balance_divisible(start, target, cube.dims);  // phase 3
  const mlb::IndivisibleSchedule moves =
      mlb::balance_indivisible(cost, holder, target, divisible, cube.dims);  // phase 4

  for (int i = 0; i < n; ++i)
    plan.owner[item[i]] = cube.host(moves.final_pos[i]);
  for (const mlb::Hop& h : moves.hops) {
    const int from = cube.host(h.from), to = cube.host(h.to);
    if (from != to) plan.schedule.push_back({h.step, from, to, item[h.item]});
  }
  return plan;
}

}  // namespace pw
