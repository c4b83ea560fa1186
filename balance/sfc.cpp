#include "balance/sfc.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <numeric>
#include <utility>

#include "balance/sfc_curve.hpp"
#include "balance/sim_comm.hpp"

namespace pw {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A curve of weights in the form every pass reads: prefix sums of the weights, and the
/// speed left for ranks k..p-1 (for the remaining average).
struct Curve {
  std::vector<double> prefix;  // n + 1
  std::vector<double> speed;
  std::vector<double> speed_left;  // p + 1, speed_left[k] = speed[k] + ... + speed[p-1]
  double widest = 0;               // the largest prefix[i + 1] - prefix[i]
  double min_speed = kInf;

  Curve(const std::vector<double>& weights, const std::vector<double>& s)
      : prefix(weights.size() + 1, 0.0), speed(s), speed_left(s.size() + 1, 0.0) {
    for (std::size_t i = 0; i < weights.size(); ++i) {
      prefix[i + 1] = prefix[i] + weights[i];
      widest = std::max(widest, prefix[i + 1] - prefix[i]);
    }
    for (int k = int(s.size()) - 1; k >= 0; --k) {
      speed_left[k] = speed_left[k + 1] + s[k];
      min_speed = std::min(min_speed, s[k]);
    }
  }
  int n() const { return int(prefix.size()) - 1; }
  int p() const { return int(speed.size()); }
};

/// The first position j >= from at which a piece that starts at `base` stops taking: the
/// patch would not lower |piece - target| (its middle reaches the target) or would bring
/// the piece to the cap. Both tests grow with j, so a galloping search finds it in
/// O(log(piece length)). Returns n when the piece takes the rest of the curve. A patch of
/// zero weight stays while the piece is below its target (the paper's strict test would
/// always pass it on, and trailing ones would then run out of ranks).
int piece_end(const std::vector<double>& prefix, int from, double base, double target,
              double cap) {
  const int n = int(prefix.size()) - 1;
  auto stops = [&](int j) {
    return 0.5 * (prefix[j] + prefix[j + 1]) - base >= target ||
           prefix[j + 1] - base >= cap;
  };
  if (from >= n) return n;
  if (stops(from)) return from;
  int good = from, bad = n;
  for (int step = 1;; step *= 2) {
    const int probe = good + step;
    if (probe >= n) break;
    if (stops(probe)) {
      bad = probe;
      break;
    }
    good = probe;
  }
  while (bad - good > 1) {
    const int mid = good + (bad - good) / 2;
    (stops(mid) ? bad : good) = mid;
  }
  return bad;
}

/// greedy_prefix_cut on a curve already summed.
CurveCut greedy_cut(const Curve& c) {
  const std::vector<double>& speed = c.speed;
  const int n = c.n(), p = c.p();
  const double total = c.prefix[n];
  CurveCut cut;
  cut.begin.assign(p + 1, n);
  cut.begin[0] = 0;
  double before = 0;  // speed of ranks 0..k-1
  for (int k = 1; k < p; ++k) {
    before += speed[k - 1];
    const double share = total * before / c.speed_left[0];
    // First patch whose running sum before it has passed the share; at least the
    // previous cut.
    const int i = int(std::lower_bound(c.prefix.begin(), c.prefix.end() - 1, share) -
                      c.prefix.begin());
    cut.begin[k] = std::max(cut.begin[k - 1], std::min(i, n));
  }
  cut.max_load = 0;
  for (int k = 0; k < p; ++k)
    cut.max_load = std::max(
        cut.max_load, (c.prefix[cut.begin[k + 1]] - c.prefix[cut.begin[k]]) / speed[k]);
  cut.valid = true;
  return cut;
}

/// Relative slack of the pruning tests below: far above the rounding of a few sums and
/// products of doubles (about 1e-16 each), far below any gain they could hide.
constexpr double kPruneSlack = 1e-9;

/// The pieces a pass made, in the terms another pass can reuse them: piece k starts at
/// start[k] and ends at start[k + 1]; reach[k] is the piece with the patch that stopped
/// it, when the cap stopped it (a pass whose cap is at most reach[k] stops it there too),
/// else infinity (the target or the end of the curve did, whatever the cap).
struct Path {
  std::vector<int> start;           // p + 1
  std::vector<double> load, reach;  // p; load per unit speed
  int pieces = 0;  // pieces made; start[pieces] is where the pass stopped

  explicit Path(int p) : start(p + 1, 0), load(p, 0.0), reach(p, kInf) {}
};

/// The inner loop of Fig. 4 for one rank, piece by piece rather than patch by patch (the
/// same decisions). `begin` is filled only when record is set.
///
/// give_up_at < infinity prunes, for the simulated collective: the pass stops (invalid)
/// as soon as its result is sure to be invalid or >= give_up_at. `same_until`, when
/// given, receives a threshold such that every threshold from this one up to it makes
/// the same decisions up to where this pass stopped, hence the same result (the cap is
/// the only test a higher threshold changes, and only where it stopped a piece).
///
/// `ref`, when given, is the path of a pass with a threshold no higher than this one: at
/// a rank and start both reach, its pieces are taken as they are while this cap stops
/// them where that one did (the higher cap takes at least as much, and the target is the
/// same). `path`, when given, receives this pass's path.
CurveCut run_threshold(const Curve& c, double threshold, double give_up_at, bool record,
                       double* same_until = nullptr, const Path* ref = nullptr,
                       Path* path = nullptr) {
  const int n = c.n(), p = c.p();
  const std::vector<double>& P = c.prefix;
  CurveCut cut;
  if (record) {
    cut.begin.assign(p + 1, n);
    cut.begin[0] = 0;
  }
  const bool prune = give_up_at < kInf;
  // When no single patch reaches the cap, every piece of a valid pass stays below it, so
  // work beyond threshold * (speed left) can no longer fit.
  const bool pieces_below_cap = c.widest < threshold * c.min_speed;
  double worst = 0, until = kInf;
  int k = 0, start = 0;
  const int shared = ref ? ref->pieces : 0;
  auto stop = [&]() {
    if (same_until) *same_until = until * (1 - kPruneSlack);
    if (path) {
      path->pieces = k;
      path->start[k] = start;
    }
    return cut;
  };
  // Piece k ends at `end` (load per unit speed `load`, reach as in Path): the next state,
  // or false when the pass is over (valid when it reached the end of the curve).
  auto take = [&](int end, double load, double reach) {
    if (path) {
      path->start[k] = start;
      path->load[k] = load;
      path->reach[k] = reach;
    }
    until = std::min(until, reach / c.speed[k]);
    worst = std::max(worst, load);
    if (worst >= give_up_at) {
      ++k, start = end;
      return false;
    }
    if (end == n) {
      cut.max_load = worst;
      cut.valid = true;
      ++k, start = end;
      return false;
    }
    ++k, start = end;
    if (k == p) return false;  // the curve outlasted the ranks: no valid assignment
    if (record) cut.begin[k] = end;
    return true;
  };
  while (true) {
    // In the same state as the reference pass: its pieces, while the cap agrees.
    if (k < shared && ref->start[k] == start)
      while (k < shared && ref->reach[k] >= threshold * c.speed[k])
        if (!take(ref->start[k + 1], ref->load[k], ref->reach[k])) return stop();
    const double rest = P[n] - P[start];
    if (prune) {
      // The pieces left cannot all be below their average load.
      if (rest / c.speed_left[k] >= give_up_at * (1 + kPruneSlack)) return stop();
      if (pieces_below_cap) {
        const double fits = threshold * c.speed_left[k] * (1 + kPruneSlack);
        if (rest >= fits) {
          until = std::min(until, rest / (c.speed_left[k] * (1 + kPruneSlack)));
          return stop();
        }
      }
    }
    // Target of rank k: its share of the work not yet assigned (remainingAverageWeight,
    // in weight units). The last rank has no next rank to hand a patch to, and in the
    // paper takes every patch of nonzero weight; taking all is the same there.
    const double target = k == p - 1 ? kInf : rest * c.speed[k] / c.speed_left[k];
    const int end =
        piece_end(P, k > 0 ? start + 1 : start, P[start], target, threshold * c.speed[k]);
    // Stopped by the cap rather than by the target: a higher cap may take more.
    const bool capped = end < n && !(0.5 * (P[end] + P[end + 1]) - P[start] >= target);
    if (!take(end, (P[end] - P[start]) / c.speed[k],
              capped ? P[end + 1] - P[start] : kInf))
      return stop();
  }
}

CurveCut distribute(const Curve& c, const RankComm& comm, int* rounds) {
  const int p = c.p();
  const double total = c.prefix.back();
  const double average = total / c.speed_left[0];
  // Fig. 4 starts from maxWeight = totalWeight: the whole curve on one rank (per unit
  // speed, the slowest). Starting from the greedy cut narrows the ranks' thresholds and
  // gives another answer on some curves, better or worse.
  CurveCut best;
  best.max_load = total / c.min_speed;
  int round = 0;
  Path ref(p), path(p);
  while (true) {
    ++round;
    const double max_weight = best.max_load;
    auto threshold = [&](int r) { return average + (max_weight - average) * r / p; };
    // Each rank's search (Fig. 4: myMaxWeight). A rank gives up once it cannot beat the
    // best result it knows of: that changes its reported value, never the minimum.
    // Thresholds grow with the rank: where the collective runs consecutive ranks in this
    // process (the simulated one), a rank whose threshold makes the same decisions as the
    // rank before has its result without running, and the others reuse the pieces of the
    // last pass run where they agree. (Rounding can put the bottleneck an ulp below the
    // average: then the thresholds fall with the rank, and every rank runs on its own.)
    const bool rising = max_weight >= average;
    double same_until = -kInf, last = kInf;
    int last_rank = -2;
    const RankMin m = comm.allreduce_minloc(p, [&](int r, double bound) {
      if (r != last_rank + 1) {  // not the next rank: nothing to reuse
        same_until = -kInf;
        ref.pieces = 0;
      }
      last_rank = r;
      if (threshold(r) <= same_until) return last;
      const double so_far = std::min(max_weight, bound);
      const CurveCut mine =
          rising ? run_threshold(c, threshold(r), so_far, false, &same_until, &ref, &path)
                 : run_threshold(c, threshold(r), so_far, false);
      if (rising) std::swap(ref, path);
      last = mine.valid ? mine.max_load : kInf;
      return last;
    });
    if (!(m.value < max_weight)) break;  // no rank improved
    // The winner sends its assignment to all (the paper's AllGather).
    const std::vector<int> begin = comm.broadcast(
        p, m.rank, [&] { return run_threshold(c, threshold(m.rank), kInf, true).begin; });
    best.begin = begin;
    best.max_load = m.value;
    best.valid = true;
  }
  if (rounds) *rounds = round;
  // Departure: the greedy prefix cut where it is better than the search's (on small
  // curves the search can end well above it: 14 against 12 on 3 ranks), or where no
  // rank's pass was ever valid (one rank, whose strict cap stops short of the end).
  const CurveCut greedy = greedy_cut(c);
  return best.valid && best.max_load <= greedy.max_load ? best : greedy;
}

struct Keyed {
  std::uint64_t key;
  int index;
};

/// Stable sort by key: least significant byte first, skipping the bytes all keys share.
void radix_sort(std::vector<Keyed>& v) {
  const std::size_t n = v.size();
  std::vector<std::array<std::size_t, 256>> count(8);
  for (auto& c : count)
    c.fill(0);
  for (const Keyed& e : v)
    for (int b = 0; b < 8; ++b)
      ++count[b][(e.key >> (8 * b)) & 0xFF];
  std::vector<Keyed> tmp(n);
  for (int b = 0; b < 8; ++b) {
    std::array<std::size_t, 256>& c = count[b];
    if (std::find(c.begin(), c.end(), n) != c.end()) continue;  // one value: no reorder
    std::size_t sum = 0;
    for (std::size_t& x : c)
      sum += std::exchange(x, sum);
    for (const Keyed& e : v)
      tmp[c[(e.key >> (8 * b)) & 0xFF]++] = e;
    v.swap(tmp);
  }
}

/// Owners of `ids` (in curve order) from a cut of their costs.
void assign(const std::vector<int>& ids, const std::vector<PatchMeta>& patches,
            const RankInfo& ranks, std::vector<int>& owner) {
  std::vector<double> w(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i)
    w[i] = patches[ids[i]].cost;
  const CurveCut cut = distribute_curve(w, ranks.speed, nullptr, ranks.comm);
  for (int k = 0; k < ranks.nranks; ++k)
    for (int i = cut.begin[k]; i < cut.begin[k + 1]; ++i)
      owner[ids[i]] = k;
}

}  // namespace

std::vector<int> sfc_order(const std::vector<PatchMeta>& patches, SfcCurve curve) {
  const int n = int(patches.size());
  // One frame for all levels: the finest refinement present (a multiple of all the
  // others when the ratio is the same between levels), and twice the centroid so that
  // it is an integer.
  std::int64_t fine = 1;
  bool three_d = false;
  for (const PatchMeta& m : patches) {
    fine = std::max<std::int64_t>(fine, m.refinement);
    three_d = three_d || m.box.lo[2] != 0 || m.box.hi[2] != 0;
  }
  const int dim = three_d ? 3 : 2;
  // Twice the centroid of patch i in that frame, along d.
  int last_refinement = 1;
  std::int64_t last_scale = fine;
  auto scale_of = [&](const PatchMeta& m) {  // fine / refinement, few distinct ones
    if (m.refinement != last_refinement) {
      last_refinement = m.refinement;
      last_scale = fine / std::max(1, m.refinement);
    }
    return last_scale;
  };
  std::int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const PatchMeta& m = patches[i];
    const std::int64_t scale = scale_of(m);
    for (int d = 0; d < 3; ++d) {
      const std::int64_t v = (std::int64_t(m.box.lo[d]) + m.box.hi[d] + 1) * scale;
      lo[d] = i == 0 ? v : std::min(lo[d], v);
      hi[d] = i == 0 ? v : std::max(hi[d], v);
    }
  }
  std::int64_t span = 1;
  for (int d = 0; d < dim; ++d)
    span = std::max(span, hi[d] - lo[d] + 1);
  int bits = 1;
  while (bits < 62 && (std::int64_t(1) << bits) < span)
    ++bits;
  const int max_bits = dim == 3 ? kSfcMaxBits3 : kSfcMaxBits2;
  const int shift = std::max(0, bits - max_bits);
  bits = std::min(bits, max_bits);

  // Patch indices by level (stable), then a stable radix sort by key: the order of
  // (key, level, index).
  std::vector<int> by_level;
  auto lower_level = [&](int a, int b) { return patches[a].level < patches[b].level; };
  for (int i = 1; i < n && by_level.empty(); ++i)
    if (lower_level(i, i - 1)) {
      by_level.resize(n);
      std::iota(by_level.begin(), by_level.end(), 0);
      std::stable_sort(by_level.begin(), by_level.end(), lower_level);
    }
  std::vector<Keyed> keyed(n);
  // The keys a chunk at a time, in buffers that stay in cache.
  constexpr int kChunk = 256;
  std::uint32_t cells[3 * kChunk];
  std::uint64_t keys[kChunk];
  for (int pos0 = 0; pos0 < n; pos0 += kChunk) {
    const int m = std::min(kChunk, n - pos0);
    for (int k = 0; k < m; ++k) {
      const int i = by_level.empty() ? pos0 + k : by_level[pos0 + k];
      const PatchMeta& patch = patches[i];
      const std::int64_t scale = scale_of(patch);
      for (int d = 0; d < 3; ++d) {
        const std::int64_t v =
            (std::int64_t(patch.box.lo[d]) + patch.box.hi[d] + 1) * scale;
        cells[3 * k + d] = std::uint32_t((v - lo[d]) >> shift);
      }
      keyed[pos0 + k].index = i;
    }
    if (curve == SfcCurve::hilbert) {
      hilbert_keys(cells, m, dim, bits, keys);
    } else {
      for (int k = 0; k < m; ++k) {
        const std::uint32_t* c = &cells[3 * k];
        keys[k] =
            dim == 3 ? morton_key(c[0], c[1], c[2], bits) : morton_key(c[0], c[1], bits);
      }
    }
    for (int k = 0; k < m; ++k)
      keyed[pos0 + k].key = keys[k];
  }
  radix_sort(keyed);
  std::vector<int> order(n);
  for (int pos = 0; pos < n; ++pos)
    order[pos] = keyed[pos].index;
  return order;
}

CurveCut greedy_prefix_cut(const std::vector<double>& weights,
                           const std::vector<double>& speed) {
  return greedy_cut(Curve(weights, speed));
}

CurveCut threshold_cut(const std::vector<double>& weights,
                       const std::vector<double>& speed, double max_load,
                       double give_up_at) {
  return run_threshold(Curve(weights, speed), max_load, give_up_at, true);
}

CurveCut distribute_curve(const std::vector<double>& weights,
                          const std::vector<double>& speed, int* rounds,
                          const RankComm* comm) {
  const SimRankComm simulated;
  return distribute(Curve(weights, speed), comm ? *comm : simulated, rounds);
}

std::unique_ptr<Balancer> Sfc::from_deck(const Deck& deck, const SplitRules&) {
  const std::string key = "balance.sfc.curve";
  const std::string name = deck.get<std::string>(key, "hilbert");
  if (name != "hilbert" && name != "morton")
    deck.fail(key, "expected \"hilbert\" or \"morton\", got " + to_toml(name));
  const bool per_level = deck.get<bool>("balance.sfc.per_level", false);
  return std::make_unique<Sfc>(name == "morton" ? SfcCurve::morton : SfcCurve::hilbert,
                               per_level);
}

Plan Sfc::plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const {
  const int n = int(patches.size());
  std::vector<int> owner(n, 0);
  if (!per_level_) {
    assign(sfc_order(patches, curve_), patches, ranks, owner);
  } else {
    std::map<int, std::vector<int>> by_level;
    for (int i = 0; i < n; ++i)
      by_level[patches[i].level].push_back(i);
    for (const auto& [level, ids] : by_level) {
      std::vector<PatchMeta> sub(ids.size());
      for (std::size_t i = 0; i < ids.size(); ++i)
        sub[i] = patches[ids[i]];
      std::vector<int> order = sfc_order(sub, curve_);
      for (int& i : order)
        i = ids[i];
      assign(order, patches, ranks, owner);
    }
  }
  return whole_patches(patches, owner);
}

}  // namespace pw
