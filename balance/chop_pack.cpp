#include "balance/chop_pack.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "balance/bin_pack.hpp"
#include "balance/spatial_pack.hpp"

namespace pw {

namespace {

/// Below this (in ideal loads) a leftover is rounding noise, not a piece worth cutting.
constexpr double kNoise = 1e-9;

/// Whether chop_to_ideal cuts a box of this cost.
bool above_tolerance(double cost, double ideal, double tolerance) {
  return ideal > 0 && cost > (1 + tolerance) * ideal;
}

int pieces(Share s) {
  return s.wholes + (s.leftover ? 1 : 0);
}

/// Multiples of g: the largest <= x and the smallest >= x (x may be negative).
int floor_to(int x, int g) {
  return floor_div(x, g) * g;
}
int ceil_to(int x, int g) {
  return -floor_div(-x, g) * g;
}

/// Cut b across direction d at the legal position nearest lo[d] + fraction * size[d], as
/// [lo, cut) | [cut, hi]; false when no cut in d leaves both sides >= min_size.
bool cut_in(const Box& b, int d, double fraction, const SplitRules& rules, Box& lo_side,
            Box& hi_side) {
  const int g = std::max(rules.blocking_factor, 1);
  const int m = std::max(rules.min_size, 1);
  const int first = ceil_to(b.lo[d] + m, g);
  const int last = floor_to(b.hi[d] + 1 - m, g);
  if (first > last) return false;
  const double target = b.lo[d] + fraction * b.size()[d];
  const int below = std::clamp(floor_to(int(std::floor(target)), g), first, last);
  const int above = std::min(below + g, last);
  const int at = std::abs(above - target) < std::abs(below - target) ? above : below;
  lo_side = hi_side = b;
  lo_side.hi[d] = at - 1;
  hi_side.lo[d] = at;
  return true;
}

/// Modified recursive bisection of one patch, whose cost per cell is uniform.
struct Bisection {
  double cost_per_cell;
  double ideal;
  double tolerance;
  const SplitRules& rules;
  std::vector<Box>& out;

  double cost(const Box& b) const { return cost_per_cell * double(b.num_cells()); }

  /// Cut across the longest direction that allows a cut (ties: lower direction), as
  /// binary decomposition does; false when no direction does.
  bool cut(const Box& b, double fraction, Box& lo_side, Box& hi_side) const {
    const int dim = std::clamp(rules.dim, 1, 3);
    int dirs[3] = {0, 1, 2};
    std::stable_sort(dirs, dirs + dim,
                     [&](int a, int c) { return b.size()[a] > b.size()[c]; });
    for (int k = 0; k < dim; ++k)
      if (cut_in(b, dirs[k], fraction, rules, lo_side, hi_side)) return true;
    return false;
  }

  void chop(const Box& b, Share s) {
    Box lo_side, hi_side;
    if (pieces(s) <= 1) {
      out.push_back(b);
      return;
    }
    const auto [lo_share, hi_share] = split_share(s);
    // Whole loads are measured against the ideal while a leftover remains to absorb the
    // error; without one, the box is shared evenly among its whole pieces.
    const double c = cost(b);
    const double lo_target =
        s.leftover ? lo_share.wholes * ideal : c * lo_share.wholes / s.wholes;
    if (!cut(b, lo_target / c, lo_side, hi_side)) {
      out.push_back(b);
      return;
    }
    chop(lo_side, lo_share);
    // Cuts fall on legal positions only, so the hi side's leftover is what its cells hold
    // beyond its whole loads; when the error ate it, the hi side is shared evenly.
    Share hi = hi_share;
    if (hi.leftover)
      hi.leftover =
          cost(hi_side) - hi.wholes * ideal > std::max(tolerance, kNoise) * ideal;
    chop(hi_side, hi);
  }
};

}  // namespace

std::pair<Share, Share> split_share(Share s) {
  const int lo = (s.wholes + 1) / 2;
  return {Share{lo, false}, Share{s.wholes - lo, s.leftover}};
}

std::vector<Box> chop_to_ideal(const Box& box, double cost, double ideal,
                               const SplitRules& rules, double tolerance) {
  std::vector<Box> out;
  if (!above_tolerance(cost, ideal, tolerance)) return {box};
  const double loads = cost / ideal;
  Share s{int(std::floor(loads)), false};
  s.leftover = loads - s.wholes > std::max(tolerance, kNoise);
  Bisection{cost / double(box.num_cells()), ideal, tolerance, rules, out}.chop(box, s);
  return out;
}

std::unique_ptr<Balancer> ChopPack::from_deck(const Deck& deck, const SplitRules& rules) {
  const std::string key = "balance.chop_pack.tolerance";
  const double tolerance = deck.get<double>(key, 0.0);
  if (!(tolerance >= 0) || !std::isfinite(tolerance))
    deck.fail(key, "expected a finite number >= 0, got " + to_toml(tolerance));
  const std::string packing =
      deck.get<std::string>("balance.chop_pack.packing", "greedy");
  if (packing != "greedy" && packing != "spatial")
    deck.fail("balance.chop_pack.packing",
              "expected \"greedy\" or \"spatial\", got \"" + packing + "\"");
  return std::make_unique<ChopPack>(
      rules, tolerance, packing == "spatial" ? Packing::spatial : Packing::greedy);
}

Plan ChopPack::plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const {
  if (packing_ == Packing::spatial)
    return spatial_pack(patches, ranks, rules_, tolerance_);
  double total = 0;
  for (const PatchMeta& p : patches)
    total += p.cost;
  const double ideal =
      total / std::accumulate(ranks.speed.begin(), ranks.speed.end(), 0.0);
  Plan plan;
  plan.boxes.reserve(patches.size());
  plan.level.reserve(patches.size());
  plan.source.reserve(patches.size());
  for (int i = 0; i < int(patches.size()); ++i) {
    const PatchMeta& p = patches[i];
    if (!above_tolerance(p.cost, ideal, tolerance_)) {  // most: whole, no list to make
      plan.boxes.push_back(p.box);
      plan.level.push_back(p.level);
      plan.source.push_back(i);
      continue;
    }
    for (const Box& b : chop_to_ideal(p.box, p.cost, ideal, rules_, tolerance_)) {
      plan.boxes.push_back(b);
      plan.level.push_back(p.level);
      plan.source.push_back(i);
    }
  }
  plan.owner = bin_pack(piece_costs(plan, patches), ranks.speed);
  return plan;
}

std::vector<double> piece_costs(const Plan& plan, const std::vector<PatchMeta>& patches) {
  std::vector<double> cost(plan.boxes.size());
  for (size_t i = 0; i < cost.size(); ++i) {
    const PatchMeta& p = patches[plan.source[i]];
    cost[i] = p.cost * double(plan.boxes[i].num_cells()) / double(p.box.num_cells());
  }
  return cost;
}

}  // namespace pw
