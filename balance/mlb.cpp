#include "balance/mlb.hpp"

#include <algorithm>
#include <numeric>

#include "balance/mlb_phases.hpp"
#include "balance/sim_comm.hpp"

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
  return std::make_unique<Mlb>(deck.get<bool>("balance.mlb.hops", false));
}

namespace {

/// One position's items, for phase 4: (load-function index, final position).
using Held = std::vector<std::pair<int, int>>;

/// Phase 1 (§3.1) as the hypercube does it, finest edge first: every played position
/// gets the load of the whole cube and the load of the positions before it (its start
/// along the load function). Sums pair the two halves of a block in one order, so both
/// partners (and every communicator) get the same bits.
void scan_loads(const RankComm& comm, int nranks, const mlb::Hypercube& cube,
                const std::vector<bool>& mine, std::vector<double>& block,
                std::vector<double>& before) {
  const auto host = [&](int q) { return cube.host(q); };
  for (int k = 0; k < cube.dims; ++k) {
    std::vector<Letter> out;
    out.reserve(mine.size());
    for (int q = 0; q < cube.size(); ++q)
      if (mine[q]) out.push_back({q, mlb::edge_partner(q, k), {block[q]}});
    for (const Letter& l : comm.exchange(nranks, host, std::move(out))) {
      const int q = l.to;
      const double other = l.body.at(0);
      const bool right = ((q >> k) & 1) != 0;  // q lies in the right half of its block
      if (right) before[q] += other;
      block[q] = right ? other + block[q] : block[q] + other;
    }
  }
}

}  // namespace

Plan Mlb::plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const {
  const SimRankComm simulated;
  const RankComm& comm = ranks.comm ? *ranks.comm : simulated;
  const int n = int(patches.size()), p = ranks.nranks;
  const mlb::Hypercube cube = mlb::Hypercube::make(p);
  const int size = cube.size();
  const std::vector<int> owner0 = mlb_initial_owners(patches, p);

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
  // Position q starts with the items [first[q], first[q + 1]).
  std::vector<int> first(size + 1, 0);
  for (int i = 0; i < n; ++i)
    ++first[cube.pos_of[owner0[item[i]]] + 1];
  for (int q = 0; q < size; ++q)
    first[q + 1] += first[q];
  std::vector<bool> mine(size);
  for (int q = 0; q < size; ++q)
    mine[q] = comm.plays(cube.host(q));

  std::vector<double> block(size, 0.0), before(size, 0.0);  // phase 1
  for (int q = 0; q < size; ++q)
    if (mine[q])
      for (int i = first[q]; i < first[q + 1]; ++i)
        block[q] += patches[item[i]].cost;
  scan_loads(comm, p, cube, mine, block, before);
  // Every position ends with the same total; take one this process plays.
  const double total = block[std::find(mine.begin(), mine.end(), true) - mine.begin()];
  Plan plan = whole_patches(patches, owner0);
  plan.hop_by_hop = hops_;
  if (!(total > 0)) return plan;  // nothing to balance

  // Phase 2 (§3.2), the same on every rank: desired loads follow the speeds.
  std::vector<double> capacity(size, 0.0);
  for (int r = 0; r < p; ++r)
    capacity[cube.pos_of[r]] = r < int(ranks.speed.size()) ? ranks.speed[r] : 1.0;
  const mlb::LoadTree want = mlb::desired(mlb::accumulate(capacity), total);
  std::vector<double> target(size + 1, 0.0);
  for (int q = 0; q < size; ++q)
    target[q + 1] = target[q] + want[cube.dims][q];
  target[size] = total;  // exact despite rounding in the sums

  // Phase 4 (§3.4): each cut of the load function moves to the item boundary nearest its
  // target (ties to the lower one), i.e. an item goes past every cut at or below its
  // middle; the items then travel the edges coarsest first. (Phase 3's divisible
  // schedule only says how much load crosses each edge; the items' own moves are what
  // the plan needs.)
  std::vector<Held> held(size);
  for (int q = 0; q < size; ++q) {
    if (!mine[q]) continue;
    double at = before[q];
    for (int i = first[q]; i < first[q + 1]; ++i) {
      const double c = patches[item[i]].cost;
      const double middle = at + 0.5 * c;
      at += c;
      const int to =
          int(std::upper_bound(target.begin() + 1, target.begin() + size, middle) -
              (target.begin() + 1));
      held[q].push_back({i, to});
    }
  }
  std::vector<std::vector<int>> sent(size);  // (step, from, to, item) per hop, flat
  for (int s = 0; s < cube.dims; ++s) {
    const int k = cube.dims - 1 - s;
    std::vector<Letter> out;
    out.reserve(mine.size());
    for (int q = 0; q < size; ++q) {
      if (!mine[q]) continue;
      const int to = mlb::edge_partner(q, k);
      Letter l{q, to, {}};
      size_t kept = 0;  // compacted in place: items staying at q
      for (const auto& [i, final_pos] : held[q])
        if (((q ^ final_pos) >> k & 1) != 0) {
          l.body.insert(l.body.end(), {double(i), double(final_pos)});
          sent[q].insert(sent[q].end(), {s, q, to, i});
        } else {
          held[q][kept++] = {i, final_pos};
        }
      held[q].resize(kept);
      out.push_back(std::move(l));
    }
    for (const Letter& l : comm.exchange(
             p, [&](int q) { return cube.host(q); }, std::move(out)))
      for (size_t j = 0; j + 1 < l.body.size(); j += 2)
        held[l.to].push_back({int(l.body[j]), int(l.body[j + 1])});
  }

  // Every rank learns the outcome: (-1, item, final position, 0) for each item a rank's
  // positions end with, (step, from, to, item) for each hop they sent.
  const std::vector<int> all = comm.all_gather(p, [&](int r) {
    std::vector<int> v;
    const int own = cube.pos_of[r];  // and the virtual sibling r may play
    for (int q : {own, own ^ 1}) {
      if (q >= size || cube.host(q) != r) continue;
      for (const auto& [i, final_pos] : held[q])
        v.insert(v.end(), {-1, i, final_pos, 0});
      v.insert(v.end(), sent[q].begin(), sent[q].end());
    }
    return v;
  });
  std::vector<Transfer> hops;  // patch = load-function index until sorted
  for (size_t j = 0; j + 3 < all.size(); j += 4) {
    if (all[j] < 0) {
      plan.owner[item[all[j + 1]]] = cube.host(all[j + 2]);
      continue;
    }
    const int from = cube.host(all[j + 1]), to = cube.host(all[j + 2]);
    if (from != to) hops.push_back({all[j], from, to, all[j + 3]});
  }
  std::sort(hops.begin(), hops.end(), [](const Transfer& a, const Transfer& b) {
    return std::make_pair(a.step, a.patch) < std::make_pair(b.step, b.patch);
  });
  for (Transfer& t : hops)
    t.patch = item[t.patch];
  plan.schedule = std::move(hops);
  return plan;
}

}  // namespace pw
