#include "balance/lan.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

namespace pw {

namespace {

/// A grid while balancing: a whole input patch or a piece cut from one.
struct Grid {
  Box box;
  int source = 0;
  int owner = 0;
  double cost = 0;
};

/// One run of Fig. 8 on a working copy of the grids.
class LanRun {
 public:
  LanRun(const std::vector<PatchMeta>& patches, const RankInfo& ranks,
         const SplitRules& rules, double threshold);
  TracedPlan run();

 private:
  bool unbalanced() const { return loads_.max_load() > threshold_ * loads_.avg_load(); }
  void moving_phase();
  void splitting_phase();
  int best_fit(int rank, double lo, double hi, double target) const;
  int largest(int rank) const;
  void move(int g, int to, bool split);
  bool split_off(int g, int to, double hole);
  double share(const Box& b, int source) const {
    const PatchMeta& p = patches_[size_t(source)];
    return p.cost * double(b.num_cells()) / double(p.box.num_cells());
  }

  const std::vector<PatchMeta>& patches_;
  const SplitRules rules_;
  const double threshold_;
  RankLoads loads_;
  std::vector<Grid> grids_;
  std::vector<std::set<std::pair<double, int>>> by_cost_;  // per rank: (cost, grid)
  TracedPlan out_;
};

LanRun::LanRun(const std::vector<PatchMeta>& patches, const RankInfo& ranks,
               const SplitRules& rules, double threshold)
    : patches_(patches),
      rules_(rules),
      threshold_(threshold),
      loads_(ranks),
      by_cost_(size_t(ranks.nranks)) {
  const std::vector<int> owner = starting_owners(patches, loads_);
  for (int i = 0; i < int(patches.size()); ++i) {
    grids_.push_back(
        {patches[size_t(i)].box, i, owner[size_t(i)], patches[size_t(i)].cost});
    by_cost_[size_t(owner[size_t(i)])].insert({patches[size_t(i)].cost, i});
  }
}

TracedPlan LanRun::run() {
  // Fig. 8 also stops when two splitting phases in a row start from the same (MaxProc,
  // MinProc). Read literally, that stops after two whole-grid moves whenever the grids
  // are small next to MinProc's hole (MinProc stays the minimum while it fills up), so we
  // stop when a round changes nothing, the case that test is there to catch. Every move
  // lowers sum(cost_r^2 / speed_r) (the receiver stays below the sender), so the rounds
  // end; the cap only guards against round-off. A round changes nothing only when no
  // grid of MaxProc fits MinProc's hole and no piece of its largest grid that the rules
  // allow fits below MaxLoad on MinProc (see split_off): the rounds stop at the threshold
  // unless the grids are that coarse.
  const int max_rounds = 4 * (int(grids_.size()) + loads_.nranks()) + 16;
  while (unbalanced() && out_.rounds < max_rounds) {
    ++out_.rounds;
    const size_t before = out_.moves.size();
    moving_phase();
    if (unbalanced()) splitting_phase();
    if (out_.moves.size() == before) break;
  }
  std::vector<int> order(grids_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Grid &ga = grids_[size_t(a)], &gb = grids_[size_t(b)];
    return ga.source != gb.source ? ga.source < gb.source : ga.box < gb.box;
  });
  for (int g : order) {
    const Grid& grid = grids_[size_t(g)];
    out_.plan.boxes.push_back(grid.box);
    out_.plan.level.push_back(patches_[size_t(grid.source)].level);
    out_.plan.owner.push_back(grid.owner);
    out_.plan.source.push_back(grid.source);
  }
  return std::move(out_);
}

void LanRun::moving_phase() {
  // Fig. 8's j loop: at most one move per grid.
  const size_t n = grids_.size();
  for (size_t j = 0; j < n && unbalanced(); ++j) {
    const int hi = loads_.max_rank(), lo = loads_.min_rank();
    const double s = loads_.speed(lo), avg = loads_.avg_load(), min = loads_.load(lo);
    // A grid qualifies when it brings the receiver into (AvgLoad/t, AvgLoad*t); below
    // MaxLoad, since MaxLoad > t*AvgLoad here. Fig. 8 takes the first such grid in list
    // order; the one that brings the receiver closest to AvgLoad is as valid, better,
    // and found in O(log n).
    const int g = best_fit(hi, (avg / threshold_ - min) * s, (avg * threshold_ - min) * s,
                           (avg - min) * s);
    if (g < 0) break;
    move(g, lo, false);
  }
}

void LanRun::splitting_phase() {
  const int hi = loads_.max_rank(), lo = loads_.min_rank();
  const int g = largest(hi);
  // The work MinProc lacks to reach AvgLoad (positive: MinLoad < AvgLoad < MaxLoad).
  const double hole = (loads_.avg_load() - loads_.load(lo)) * loads_.speed(lo);
  if (grids_[size_t(g)].cost <= hole)
    move(g, lo, false);
  else
    split_off(g, lo, hole);
}

int LanRun::best_fit(int rank, double lo, double hi, double target) const {
  const auto& mine = by_cost_[size_t(rank)];
  lo = std::max(lo, 0.0);  // moving a grid of zero cost changes nothing
  int best = -1;
  double best_gap = std::numeric_limits<double>::infinity();
  auto consider = [&](double c) {
    if (!(c > lo && c < hi)) return;
    const int g = mine.lower_bound({c, INT_MIN})->second;  // lowest index of that cost
    const double gap = std::abs(c - target);
    if (gap < best_gap || (gap == best_gap && g < best)) {
      best = g;
      best_gap = gap;
    }
  };
  // The costs nearest the target from above and from below.
  const auto it = mine.lower_bound({target, INT_MIN});
  if (it != mine.end()) consider(it->first);
  if (it != mine.begin()) consider(std::prev(it)->first);
  return best;
}

int LanRun::largest(int rank) const {
  const auto& mine = by_cost_[size_t(rank)];
  return mine.lower_bound({mine.rbegin()->first, INT_MIN})->second;
}

void LanRun::move(int g, int to, bool split) {
  Grid& grid = grids_[size_t(g)];
  by_cost_[size_t(grid.owner)].erase({grid.cost, g});
  loads_.add(grid.owner, -grid.cost);
  out_.moves.push_back({out_.rounds, grid.source, grid.owner, to, grid.cost, split});
  grid.owner = to;
  by_cost_[size_t(to)].insert({grid.cost, g});
  loads_.add(to, grid.cost);
}

bool LanRun::split_off(int g, int to, double hole) {
  const Grid grid = grids_[size_t(g)];
  const int bf = std::max(1, rules_.blocking_factor);
  const int min_units = std::max(1, (rules_.min_size + bf - 1) / bf);
  // The receiver must stay below the sender's load before the cut, so that the maximum
  // never rises.
  const double room = loads_.load(grid.owner) - loads_.load(to);
  // The cuts are planned first: nothing changes unless a piece fits.
  std::vector<Box> rests;  // what is cut off on the way stays on the sender
  Box b = grid.box, piece;
  double cost = grid.cost;
  for (;;) {
    int d = 0;  // the longest side among the first dim directions, the lowest on a tie
    for (int k = 1; k < rules_.dim && k < 3; ++k)
      if (b.size()[k] > b.size()[d]) d = k;
    const int len = b.size()[d];
    // Cuts at multiples of bf give pieces that are multiples of bf only if b is aligned.
    if (b.lo[d] - bf * floor_div(b.lo[d], bf) != 0 || len % bf != 0) return false;
    const int units = len / bf;
    if (units < 2 * min_units) return false;
    // The lo-side piece of k units that fills the hole best (the smaller one on a tie)...
    const double unit_cost = cost / units;
    int k = int(std::floor(hole / unit_cost));
    if ((k + 1) * unit_cost - hole < hole - k * unit_cost) ++k;
    k = std::clamp(k, min_units, units - min_units);
    // ...that fits under the room. (Rounding to the nearest unit overshoots by at most
    // half a unit, so this takes at most one step unless the clamp raised k.)
    while (k >= min_units && k * unit_cost / loads_.speed(to) >= room)
      --k;
    Box lo_side = b, rest = b;
    lo_side.hi[d] = b.lo[d] + std::max(k, min_units) * bf - 1;
    rest.lo[d] = lo_side.hi[d] + 1;
    rests.push_back(rest);
    if (k >= min_units) {
      piece = lo_side;
      break;
    }
    // Even the thinnest slab would lift the receiver to the sender's load (a coarse
    // cross-section: Fig. 8 stops here). Cut the slab off and split it in turn along its
    // own longest side, so that a piece still fills the hole; the slab's other part
    // stays on the sender.
    b = lo_side;
    cost = share(b, grid.source);
  }

  auto& mine = by_cost_[size_t(grid.owner)];
  mine.erase({grid.cost, g});
  double after = 0;
  for (size_t i = 0; i < rests.size(); ++i) {
    const double c = share(rests[i], grid.source);
    after += c;
    int r = g;
    if (i == 0) {
      grids_[size_t(g)].box = rests[i];
      grids_[size_t(g)].cost = c;
    } else {
      r = int(grids_.size());
      grids_.push_back({rests[i], grid.source, grid.owner, c});
    }
    mine.insert({c, r});
  }
  const double piece_cost = share(piece, grid.source);
  const int p = int(grids_.size());
  grids_.push_back({piece, grid.source, grid.owner, piece_cost});
  mine.insert({piece_cost, p});
  loads_.add(grid.owner, after + piece_cost - grid.cost);  // round-off only
  move(p, to, true);
  return true;
}

}  // namespace

TracedPlan Lan::trace(const std::vector<PatchMeta>& patches,
                      const RankInfo& ranks) const {
  return LanRun(patches, ranks, rules_, threshold_).run();
}

std::unique_ptr<Balancer> make_lan(const Deck& deck, const SplitRules& rules) {
  const std::string key = "balance.lan.threshold";
  const double threshold = deck.get<double>(key, Lan::kDefaultThreshold);
  if (!(threshold >= 1.0))
    deck.fail(key, "expected a MaxLoad/AvgLoad ratio >= 1, got " + to_toml(threshold));
  return std::make_unique<Lan>(rules, threshold);
}

}  // namespace pw
