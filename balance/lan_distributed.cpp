#include "balance/lan_distributed.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>

#include "balance/lan.hpp"
#include "balance/patch_family.hpp"
#include "balance/sfc.hpp"

namespace pw {

double group_gain(double step_seconds, const std::vector<double>& group_load) {
  if (group_load.empty()) return 0;
  const auto [lo, hi] = std::minmax_element(group_load.begin(), group_load.end());
  if (*hi <= 0) return 0;
  return step_seconds * (*hi - *lo) / (double(group_load.size()) * *hi);
}

namespace {

/// The ranks by group: group ids are ranks.group's distinct values, ascending.
struct Groups {
  std::vector<int> of_rank;               // group index per rank
  std::vector<std::vector<int>> members;  // ranks per group, ascending
  std::vector<double> speed;              // sum of the members' speeds

  explicit Groups(const RankInfo& ranks) {
    std::map<int, int> index;
    for (int r = 0; r < ranks.nranks; ++r)
      index.emplace(ranks.group.empty() ? 0 : ranks.group[size_t(r)], 0);
    int g = 0;
    for (auto& [id, i] : index)
      i = g++;
    members.resize(index.size());
    speed.assign(index.size(), 0.0);
    for (int r = 0; r < ranks.nranks; ++r) {
      const int gi = index[ranks.group.empty() ? 0 : ranks.group[size_t(r)]];
      of_rank.push_back(gi);
      members[size_t(gi)].push_back(r);
      speed[size_t(gi)] += ranks.speed.empty() ? 1.0 : ranks.speed[size_t(r)];
    }
  }
  int size() const { return int(members.size()); }
  int of(int rank) const {
    return rank >= 0 && rank < int(of_rank.size()) ? of_rank[size_t(rank)] : -1;
  }
};

/// Centre of patch m along `axis`, in the index space of `root`'s level.
double centre_in(const PatchMeta& m, const PatchMeta& root, int axis) {
  const double ratio = double(std::max(1, m.refinement / root.refinement));
  return 0.5 * double(m.box.lo[axis] + m.box.hi[axis] + 1) / ratio;
}

/// What is left of a family while the boundaries cut it: part of the root's box (its
/// cells cost the root's cost per cell) and the descendants centred in it.
struct FamilyPart {
  Box box;
  std::vector<int> descendants;
  double weight = 0;
};

/// A cut of a family part: the root's cells below `pos` along `axis` and the descendants
/// centred below it weigh `lo_weight`.
struct PartCut {
  bool valid = false;
  int axis = 0;
  int pos = 0;
  double lo_weight = 0;
};

/// The legal plane (SplitRules, in the root's level) whose lower side weighs closest to
/// `need`.
PartCut best_cut(const FamilyPart& part, const PatchMeta& root,
                 const std::vector<PatchMeta>& patches, const SplitRules& rules,
                 double need) {
  PartCut best;
  double best_err = std::numeric_limits<double>::infinity();
  const int bf = std::max(1, rules.blocking_factor);
  const double per_cell = root.cost / double(root.box.num_cells());
  const double slab = per_cell * double(part.box.num_cells());
  for (int a = 0; a < rules.dim; ++a) {
    const int lo = part.box.lo[a], hi = part.box.hi[a];
    const double len = double(hi - lo + 1);
    std::vector<std::pair<double, double>> below;  // (centre, cost) of descendants
    for (int m : part.descendants)
      below.emplace_back(centre_in(patches[size_t(m)], root, a), patches[size_t(m)].cost);
    std::sort(below.begin(), below.end());
    size_t k = 0;
    double children = 0;
    for (int x = (floor_div(lo, bf) + 1) * bf; x <= hi; x += bf) {
      if (x - lo < rules.min_size || hi + 1 - x < rules.min_size) continue;
      for (; k < below.size() && below[k].first < double(x); ++k)
        children += below[k].second;
      const double w = slab * double(x - lo) / len + children;
      if (std::abs(w - need) < best_err) {
        best_err = std::abs(w - need);
        best = {true, a, x, w};
      }
    }
  }
  return best;
}

/// The proposal of the global phase: the families in curve order cut into one
/// contiguous piece per group, each as close as the families allow to its share of the
/// total (proportional to the group's speed). A family goes to the side of a boundary
/// its midpoint lies on, unless cutting its root's box there (between whole
/// descendants) comes closer to the share; a family wider than a share is cut again.
struct Proposal {
  std::vector<int> group;  // per patch (for a cut root, of its first piece)
  std::map<int, std::vector<std::pair<Box, int>>> pieces;  // cut roots: (box, group)
};

Proposal propose(const std::vector<int>& order, const std::vector<double>& family,
                 const std::vector<std::vector<int>>& members, const Groups& groups,
                 const std::vector<PatchMeta>& patches, const SplitRules& rules) {
  const int G = groups.size();
  double total = 0, total_speed = 0;
  for (int r : order)
    total += family[size_t(r)];
  for (double v : groups.speed)
    total_speed += v;
  std::vector<double> target;  // cumulative boundaries
  double speed_before = 0;
  for (int g = 0; g + 1 < G; ++g) {
    speed_before += groups.speed[size_t(g)];
    target.push_back(total * speed_before / total_speed);
  }
  Proposal out;
  out.group.assign(patches.size(), 0);
  double s = 0;
  for (int r : order) {
    const PatchMeta& root = patches[size_t(r)];
    FamilyPart part{root.box, {}, family[size_t(r)]};
    for (int m : members[size_t(r)])
      if (m != r) part.descendants.push_back(m);
    std::vector<std::pair<Box, int>> pieces;
    while (true) {
      const double e = s + part.weight;
      const size_t k =
          size_t(std::upper_bound(target.begin(), target.end(), s) - target.begin());
      if (k < target.size() && target[k] < e) {
        const double need = target[k] - s;
        const PartCut c = best_cut(part, root, patches, rules, need);
        if (c.valid && std::abs(c.lo_weight - need) < std::min(need, e - target[k])) {
          Box lo = part.box, hi = part.box;
          lo.hi[c.axis] = c.pos - 1;
          hi.lo[c.axis] = c.pos;
          pieces.emplace_back(lo, int(k));
          std::vector<int> rest;
          for (int m : part.descendants) {
            if (centre_in(patches[size_t(m)], root, c.axis) < c.pos)
              out.group[size_t(m)] = int(k);
            else
              rest.push_back(m);
          }
          part = {hi, std::move(rest), part.weight - c.lo_weight};
          s += c.lo_weight;
          continue;
        }
      }
      const int g =
          int(std::lower_bound(target.begin(), target.end(), s + 0.5 * part.weight) -
              target.begin());
      pieces.emplace_back(part.box, g);
      for (int m : part.descendants)
        out.group[size_t(m)] = g;
      s += part.weight;
      break;
    }
    out.group[size_t(r)] = pieces.front().second;
    if (pieces.size() > 1) out.pieces[r] = std::move(pieces);
  }
  return out;
}

/// Lan's scheme inside one group, on one level: work items `ids` with owners mapped to
/// the group's ranks (an owner outside the group counts as new). Appends to `out`, with
/// sources mapped back to the input patches through `origin`.
void balance_in_group(const std::vector<PatchMeta>& work, const std::vector<int>& origin,
                      const std::vector<int>& ids, const std::vector<int>& members,
                      const RankInfo& ranks, const Lan& lan, Plan& out) {
  std::map<int, int> local;
  for (size_t m = 0; m < members.size(); ++m)
    local[members[m]] = int(m);
  std::vector<PatchMeta> sub;
  for (int i : ids) {
    PatchMeta p = work[size_t(i)];
    auto it = local.find(p.owner);
    p.owner = it == local.end() ? -1 : it->second;
    sub.push_back(p);
  }
  RankInfo sub_ranks = RankInfo::uniform(int(members.size()));
  for (size_t m = 0; m < members.size(); ++m)
    sub_ranks.speed[m] = ranks.speed.empty() ? 1.0 : ranks.speed[size_t(members[m])];
  const Plan plan = lan.plan(sub, sub_ranks);
  for (size_t b = 0; b < plan.boxes.size(); ++b) {
    out.boxes.push_back(plan.boxes[b]);
    out.level.push_back(plan.level[b]);
    out.owner.push_back(members[size_t(plan.owner[b])]);
    out.source.push_back(origin[size_t(ids[size_t(plan.source[b])])]);
  }
}

}  // namespace

LanDistributed::Traced LanDistributed::trace(const std::vector<PatchMeta>& patches,
                                             const RankInfo& ranks) const {
  Traced t;
  const int n = int(patches.size());
  if (n == 0) return t;
  const Groups groups(ranks);
  const int G = groups.size();
  const std::vector<int> root = family_roots(patches);
  std::vector<std::vector<int>> members(
      static_cast<size_t>(n));                 // per root, its family (itself too)
  std::vector<double> family(size_t(n), 0.0);  // per root, the family's cost
  for (int i = 0; i < n; ++i) {
    members[size_t(root[size_t(i)])].push_back(i);
    family[size_t(root[size_t(i)])] += patches[size_t(i)].cost;
  }
  std::vector<int> roots;
  for (int i = 0; i < n; ++i)
    if (root[size_t(i)] == i) roots.push_back(i);
  const int lmin = std::min_element(patches.begin(), patches.end(),
                                    [](const PatchMeta& a, const PatchMeta& b) {
                                      return a.level < b.level;
                                    })
                       ->level;

  // Where each patch is now: its owner's group, a new one its parent owner's, else its
  // root's.
  std::vector<int> group(size_t(n), -1);
  for (int i = 0; i < n; ++i) {
    const PatchMeta& p = patches[size_t(i)];
    group[size_t(i)] =
        groups.of(p.owner) >= 0 ? groups.of(p.owner) : groups.of(p.parent_owner);
  }
  std::map<int, std::vector<std::pair<Box, int>>> pieces;  // the adopted proposal's cuts

  GroupDecision& d = t.decision;
  if (lmin == 0 && G > 1) {
    // Global phase (Sec. 4.1-4.4).
    d.global_phase = true;
    std::vector<PatchMeta> root_meta;
    for (int r : roots)
      root_meta.push_back(patches[size_t(r)]);
    std::vector<int> order = sfc_order(root_meta, SfcCurve::hilbert);
    for (int& o : order)
      o = roots[size_t(o)];
    const Proposal proposal = propose(order, family, members, groups, patches, rules_);
    // A family with no group yet takes the proposal's. With no step measured yet (the
    // run's first distribution) there is no gain to weigh: the proposal is taken.
    d.initial = ranks.measured.step_seconds <= 0;
    for (int r : roots)
      if (group[size_t(r)] < 0) group[size_t(r)] = proposal.group[size_t(r)];
    for (int i = 0; i < n; ++i)
      if (group[size_t(i)] < 0) group[size_t(i)] = group[size_t(root[size_t(i)])];
    // Eqs. 2-3: the costs are per level-0 step (cells x the level's substeps), so a
    // group's total already holds N_iter^i.
    std::vector<double> W(size_t(G), 0.0);
    for (int i = 0; i < n; ++i)
      W[size_t(group[size_t(i)])] += patches[size_t(i)].cost;
    for (int g = 0; g < G; ++g)
      d.group_load.push_back(W[size_t(g)] / groups.speed[size_t(g)]);
    const RunMeasurements& m = ranks.measured;
    d.gain = group_gain(m.step_seconds, d.group_load);
    // W of eq. 1: the data whose group the proposal changes (the moved side of a cut).
    std::vector<long> moved_cells(size_t(n), 0);
    for (int i = 0; i < n; ++i)
      if (group[size_t(i)] != proposal.group[size_t(i)])
        moved_cells[size_t(i)] = patches[size_t(i)].box.num_cells();
    for (const auto& [r, list] : proposal.pieces) {
      moved_cells[size_t(r)] = 0;
      for (const auto& [box, g] : list)
        if (g != group[size_t(r)]) moved_cells[size_t(r)] += box.num_cells();
    }
    for (int i = 0; i < n; ++i)
      d.bytes += double(moved_cells[size_t(i)]) * m.bytes_per_cell;
    // Eq. 1. The network is timed only when the decision hangs on it: there is work to
    // move and the gain beats the overhead delta alone.
    double alpha = m.alpha, beta = m.beta;
    if (m.probe_network && !d.initial && d.bytes > 0 &&
        d.gain > gamma_ * m.overhead_seconds) {
      std::tie(alpha, beta) = m.probe_network();
      d.probed = true;
    }
    d.cost = alpha + beta * d.bytes + m.overhead_seconds;
    d.redistributed = d.initial || (d.bytes > 0 && d.gain > gamma_ * d.cost);
    if (d.redistributed) {
      group = proposal.group;
      pieces = proposal.pieces;
    }
    t.plan.note = fmt::format(
        "global: gain {:.3e} s, cost {:.3e} s ({:.3f} MB{}), gamma {:.2f}: {}", d.gain,
        d.cost, d.bytes / 1e6,
        d.probed ? fmt::format(", alpha {:.2e} s, beta {:.2e} s/B", alpha, beta) : "",
        gamma_,
        d.initial         ? "initial split"
        : d.redistributed ? "redistributed"
                          : "kept");
  } else {
    // Local phase only: a family with no group goes, largest first, to the group with
    // the least load per speed.
    std::vector<double> W(size_t(G), 0.0);
    for (int i = 0; i < n; ++i)
      if (group[size_t(i)] >= 0) W[size_t(group[size_t(i)])] += patches[size_t(i)].cost;
    std::vector<int> homeless;
    for (int r : roots)
      if (group[size_t(r)] < 0) homeless.push_back(r);
    std::stable_sort(homeless.begin(), homeless.end(),
                     [&](int a, int b) { return family[size_t(a)] > family[size_t(b)]; });
    for (int r : homeless) {
      int best = 0;
      for (int g = 1; g < G; ++g)
        if (W[size_t(g)] / groups.speed[size_t(g)] <
            W[size_t(best)] / groups.speed[size_t(best)])
          best = g;
      group[size_t(r)] = best;
      W[size_t(best)] += family[size_t(r)];
    }
    for (int i = 0; i < n; ++i)
      if (group[size_t(i)] < 0) group[size_t(i)] = group[size_t(root[size_t(i)])];
  }

  // The work items: the patches, with each cut root replaced by its pieces.
  std::vector<PatchMeta> work;
  std::vector<int> origin, work_group;
  for (int i = 0; i < n; ++i) {
    const PatchMeta& p = patches[size_t(i)];
    auto cut = pieces.find(i);
    if (cut == pieces.end()) {
      work.push_back(p);
      origin.push_back(i);
      work_group.push_back(group[size_t(i)]);
      continue;
    }
    for (const auto& [box, g] : cut->second) {
      PatchMeta piece = p;
      piece.box = box;
      piece.cost = p.cost * double(box.num_cells()) / double(p.box.num_cells());
      work.push_back(piece);
      origin.push_back(i);
      work_group.push_back(g);
    }
  }

  // Local phase: Lan's scheme in each group, level by level.
  const Lan lan(rules_, threshold_);
  std::map<std::pair<int, int>, std::vector<int>> parts;  // (group, level) -> work items
  for (int i = 0; i < int(work.size()); ++i)
    parts[{work_group[size_t(i)], work[size_t(i)].level}].push_back(i);
  for (const auto& [key, ids] : parts)
    balance_in_group(work, origin, ids, groups.members[size_t(key.first)], ranks, lan,
                     t.plan);
  return t;
}

std::unique_ptr<Balancer> LanDistributed::from_deck(const Deck& deck,
                                                    const SplitRules& rules) {
  const double gamma = deck.get<double>("balance.lan_distributed.gamma", 2.0);
  if (!(gamma > 0))
    deck.fail("balance.lan_distributed.gamma",
              "expected a factor > 0 (the gain must exceed gamma x cost), got " +
                  to_toml(gamma));
  const double threshold = deck.get<double>("balance.lan_distributed.threshold", 1.25);
  if (!(threshold >= 1))
    deck.fail("balance.lan_distributed.threshold",
              "expected a MaxLoad/AvgLoad ratio >= 1, got " + to_toml(threshold));
  return std::make_unique<LanDistributed>(rules, gamma, threshold);
}

}  // namespace pw
