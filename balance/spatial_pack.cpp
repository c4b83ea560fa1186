#include "balance/spatial_pack.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace pw {

namespace {

/// Pieces either side of the straddling one that may be cut in its place (a wider
/// window found little more on the lab's workloads, at a higher cost).
constexpr int kWindow = 16;
/// Ideal loads by which a cut may miss its share when that cuts fewer faces: the errors
/// of the cuts above a rank are spread over their ranks, so they add up to well under
/// the 1% the lab's target allows, and whole boxes often come that close at the top.
constexpr double kSlack = 0.0025;

/// Multiples of g: the largest <= x and the smallest >= x (x may be negative).
int floor_to(int x, int g) {
  return floor_div(x, g) * g;
}
int ceil_to(int x, int g) {
  return -floor_div(-x, g) * g;
}

/// b with its extent across d limited to [from, to).
Box slab(const Box& b, int d, int from, int to) {
  Box s = b;
  s.lo[d] = from;
  s.hi[d] = to - 1;
  return s;
}

void stair(const Box& b, long n, const int* axes, int naxes, const SplitRules& rules,
           std::vector<Box>& lo, std::vector<Box>& hi) {
  const long total = b.num_cells();
  if (n <= 0) return hi.push_back(b);
  if (n >= total) return lo.push_back(b);
  if (naxes == 0) return (2 * n >= total ? lo : hi).push_back(b);
  const int d = axes[0];
  const int g = std::max(rules.blocking_factor, 1);
  const int m = std::max(rules.min_size, 1);
  const int first = ceil_to(b.lo[d] + m, g);
  const int last = floor_to(b.hi[d] + 1 - m, g);
  if (first > last) return stair(b, n, axes + 1, naxes - 1, rules, lo, hi);
  const long area = total / b.size()[d];
  const double target = b.lo[d] + double(n) / double(area);
  // below: the last piece boundary (lo or a legal cut) at or below the target.
  const int below =
      target < first ? b.lo[d] : std::min(floor_to(int(std::floor(target)), g), last);
  if (naxes == 1) {
    int next = below == b.lo[d] ? first : below + g;
    if (next > last) next = b.hi[d] + 1;
    const int at = next - target < target - below ? next : below;
    if (at > b.lo[d]) lo.push_back(slab(b, d, b.lo[d], at));
    if (at <= b.hi[d]) hi.push_back(slab(b, d, at, b.hi[d] + 1));
    return;
  }
  // The layer above `below` that the next axes cut: the thinnest legal one.
  int above = ceil_to(below + m, g);
  if (above > last) above = b.hi[d] + 1;
  if (below > b.lo[d]) lo.push_back(slab(b, d, b.lo[d], below));
  stair(slab(b, d, below, above), n - long(below - b.lo[d]) * area, axes + 1, naxes - 1,
        rules, lo, hi);
  if (above <= b.hi[d]) hi.push_back(slab(b, d, above, b.hi[d] + 1));
}

/// Cell faces between disjoint boxes a and b.
long shared_faces(const Box& a, const Box& b) {
  long faces = 0;
  for (int d = 0; d < 3; ++d) {
    if (a.hi[d] + 1 != b.lo[d] && b.hi[d] + 1 != a.lo[d]) continue;
    Box ga = a;
    ga.lo[d] = std::min(a.lo[d], b.lo[d]);
    ga.hi[d] = std::max(a.hi[d], b.hi[d]);
    const Box both = ga & b;
    faces += both.num_cells() / std::max(both.size()[d], 1);
  }
  return faces;
}

/// Per box, the boxes of its level it shares faces with, and how many faces.
using Adjacency = std::vector<std::vector<std::pair<int, long>>>;

/// The adjacency of the patches. Patches are hashed into cubic bins as large as the
/// level's largest side, so each meets at most 8 bins.
Adjacency touching(const std::vector<PatchMeta>& patches) {
  std::map<int, int> bin_of;
  for (const PatchMeta& p : patches)
    for (int d = 0; d < 3; ++d)
      bin_of[p.level] = std::max(bin_of[p.level], p.box.size()[d] + 1);
  std::vector<int> bin(patches.size());
  for (std::size_t i = 0; i < patches.size(); ++i)
    bin[i] = bin_of[patches[i].level];
  // Keys wrap (20 bits per axis, 4 for the level): a collision costs time, not answers.
  std::unordered_map<std::uint64_t, std::vector<int>> bins;
  auto for_bins = [&](const Box& b, int level, int s, auto&& f) {
    auto bits = [](int x, int n) {
      return std::uint64_t(x) & ((std::uint64_t(1) << n) - 1);
    };
    for (int z = floor_div(b.lo[2], s); z <= floor_div(b.hi[2], s); ++z)
      for (int y = floor_div(b.lo[1], s); y <= floor_div(b.hi[1], s); ++y)
        for (int x = floor_div(b.lo[0], s); x <= floor_div(b.hi[0], s); ++x)
          f(bits(level, 4) << 60 | bits(x, 20) << 40 | bits(y, 20) << 20 | bits(z, 20));
  };
  for (int i = 0; i < int(patches.size()); ++i)
    for_bins(patches[std::size_t(i)].box, patches[std::size_t(i)].level,
             bin[std::size_t(i)], [&](std::uint64_t key) { bins[key].push_back(i); });
  Adjacency out(patches.size());
  for (int i = 0; i < int(patches.size()); ++i) {
    const PatchMeta& p = patches[std::size_t(i)];
    for_bins(grow(p.box, IntVect::uniform(1)), p.level, bin[std::size_t(i)],
             [&](std::uint64_t key) {
               auto it = bins.find(key);
               if (it == bins.end()) return;
               for (int j : it->second)
                 if (j != i && patches[std::size_t(j)].level == p.level)
                   if (const long f = shared_faces(p.box, patches[std::size_t(j)].box))
                     out[std::size_t(i)].emplace_back(j, f);
             });
  }
  for (auto& list : out) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return out;
}

/// A box of the bisection: a patch or a piece of one.
struct Piece {
  Box box;
  int source;
  int level;
  int refinement;
  double cost_per_cell;
  double weight() const { return cost_per_cell * double(box.num_cells()); }
  /// Twice the centroid in level-0 index units (exact in double for power-of-2 ratios).
  double center2(int d) const { return double(box.lo[d] + box.hi[d] + 1) / refinement; }
};

struct Bisection {
  const SplitRules& rules;
  const std::vector<double>& speed;
  double slack;  // weight a cut may miss its target by to open fewer faces
  std::vector<std::tuple<int, Box, int>> out;  // source, box, owner

  int dims() const { return std::clamp(rules.dim, 1, 3); }

  /// The longest axis of the region the pieces span, in the level-0 frame (ties: lower).
  int longest_axis(const std::vector<Piece>& v) const {
    double lo[3], hi[3];
    std::fill(lo, lo + 3, HUGE_VAL);
    std::fill(hi, hi + 3, -HUGE_VAL);
    for (const Piece& p : v)
      for (int d = 0; d < dims(); ++d) {
        lo[d] = std::min(lo[d], double(p.box.lo[d]) / p.refinement);
        hi[d] = std::max(hi[d], double(p.box.hi[d] + 1) / p.refinement);
      }
    int axis = 0;
    for (int d = 1; d < dims(); ++d)
      if (hi[d] - lo[d] > hi[axis] - lo[axis]) axis = d;
    return axis;
  }

  /// The pieces' indices by centroid along axis (ties: the other axes, level, patch,
  /// corner).
  std::vector<int> sorted(const std::vector<Piece>& v, int axis) const {
    const int d1 = (axis + 1) % dims(), d2 = (axis + 2) % dims();
    std::vector<std::tuple<double, double, double, int, int, Box>> key;
    key.reserve(v.size());
    for (const Piece& p : v)
      key.emplace_back(p.center2(axis), p.center2(d1), p.center2(d2), p.level, p.source,
                       p.box);
    std::vector<int> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](int a, int b) { return key[std::size_t(a)] < key[std::size_t(b)]; });
    return order;
  }

  /// How a cut divides sorted pieces: those before `upto` but `cut` go lo, the rest hi,
  /// and piece `cut` (-1: none) is cut into lo and hi boxes. err: the weight by which the
  /// lo side misses its target; faces: the faces between sides that touch piece k (the
  /// straddling one) or piece `cut`, the only pieces options place differently.
  struct Choice {
    int cut;
    std::size_t upto;
    std::vector<Box> lo, hi;
    double err;
    long faces;
  };

  /// Piece k straddles the target. Cutting it is the default; but another piece within
  /// kWindow of it may be cut instead (k then goes whole to one side), or none at all,
  /// when that cuts fewer faces and misses the target by no more than the default or
  /// `slack`. In AMR lists many patch faces border no patch of their level and cost
  /// nothing, while a cut through a patch always costs its section.
  Choice choose(const std::vector<Piece>& v, const Adjacency& adj,
                const std::vector<int>& order, const std::vector<int>& pos,
                const std::vector<double>& prefix, std::size_t k, double target,
                int axis) const {
    const int lo_j = std::max(0, int(k) - kWindow);
    const int hi_j = std::min(int(v.size()) - 1, int(k) + kWindow);
    std::vector<Choice> options = {
        {-1, k, {}, {}, target - prefix[k], 0},
        {-1, k + 1, {}, {}, prefix[k + 1] - target, 0},
        cut_piece(v[k], int(k), k + 1, target - prefix[k], axis)};
    for (int j = lo_j; j <= hi_j; ++j) {
      if (j == int(k)) continue;
      // Up to k whole, less j (need from j: what k adds past the target, below w_j), or
      // before k whole, plus part of j.
      const std::size_t upto = j <= int(k) ? k + 1 : k;
      const double rest = j <= int(k) ? prefix[k + 1] - v[j].weight() : prefix[k];
      const double need = target - rest;
      if (need < 0 || need > v[j].weight()) continue;
      options.push_back(cut_piece(v[j], j, upto, need, axis));
    }
    const Choice& straddle = options[2];  // j = k comes first among the cuts
    const double allow = std::max(straddle.err, slack);
    for (Choice& o : options) {
      if (o.err > allow) continue;  // not a candidate: spare counting its faces
      std::vector<std::tuple<Box, int, bool>> moved;  // box, piece, on the lo side
      if (o.cut != int(k)) moved.emplace_back(v[k].box, int(k), o.upto > k);
      for (const Box& b : o.lo)
        moved.emplace_back(b, o.cut, true);
      for (const Box& b : o.hi)
        moved.emplace_back(b, o.cut, false);
      o.faces = 0;
      for (std::size_t a = 0; a < moved.size(); ++a) {
        const auto& [box, i, on_lo] = moved[a];
        for (const auto& [y0, f] : adj[std::size_t(order[std::size_t(i)])]) {
          const int y = pos[std::size_t(y0)];
          if (y != int(k) && y != o.cut && (y < int(k)) != on_lo)
            o.faces += shared_faces(box, v[std::size_t(y)].box);
        }
        for (std::size_t b = a + 1; b < moved.size(); ++b)
          if (std::get<2>(moved[b]) != on_lo)
            o.faces += shared_faces(box, std::get<0>(moved[b]));
      }
    }
    const auto key = [&](const Choice& c) {
      return std::make_tuple(c.faces, c.err, std::abs(c.cut - int(k)), c.cut);
    };
    const Choice* best = &straddle;
    for (const Choice& o : options)
      if (o.err <= allow && key(o) < key(*best)) best = &o;
    return *best;
  }

  /// Piece s (index j) cut into about `need` weight on the lo side and the rest.
  Choice cut_piece(const Piece& s, int j, std::size_t upto, double need, int axis) const {
    // Across the bisection axis first, so that the cut lies along the plane between the
    // two sides; then across the box's longer other axis.
    std::vector<int> axes = {axis};
    for (int d = 0; d < dims(); ++d)
      if (d != axis) axes.push_back(d);
    if (axes.size() == 3 && s.box.size()[axes[2]] > s.box.size()[axes[1]])
      std::swap(axes[1], axes[2]);
    auto [lo, hi] =
        staircase_cut(s.box, std::lround(need / s.cost_per_cell), axes, rules);
    long cells = 0;
    for (const Box& b : lo)
      cells += b.num_cells();
    return {j,
            upto,
            std::move(lo),
            std::move(hi),
            std::abs(double(cells) * s.cost_per_cell - need),
            0};
  }

  /// The pieces of a node in order along an axis (order[i]: the index in the node's
  /// list of the i-th, pos its inverse), with the prefix sums of their weights.
  struct Ordered {
    int axis;
    std::vector<Piece> v;
    std::vector<int> order, pos;
    std::vector<double> prefix;
    std::vector<long> crossing;  // [t]: faces between the first t pieces and the rest
  };

  Ordered ordered(const std::vector<Piece>& v0, const Adjacency& adj0, int axis) const {
    Ordered o{axis,
              {},
              sorted(v0, axis),
              std::vector<int>(v0.size()),
              std::vector<double>(v0.size() + 1, 0.0)};
    for (std::size_t i = 0; i < o.order.size(); ++i) {
      o.pos[std::size_t(o.order[i])] = int(i);
      o.v.push_back(v0[std::size_t(o.order[i])]);
      o.prefix[i + 1] = o.prefix[i] + o.v.back().weight();
    }
    o.crossing.assign(v0.size() + 1, 0);
    for (std::size_t i = 0; i < v0.size(); ++i)
      for (const auto& [j0, f] : adj0[std::size_t(o.order[i])])
        if (const std::size_t j = std::size_t(o.pos[std::size_t(j0)]); i < j) {
          o.crossing[i + 1] += f;
          o.crossing[j + 1] -= f;
        }
    for (std::size_t t = 1; t < o.crossing.size(); ++t)
      o.crossing[t] += o.crossing[t - 1];
    return o;
  }

  /// A bisection: how the pieces of an order divide, and the faces between the sides.
  struct Bisected {
    const Ordered* ordered = nullptr;
    Choice choice;
    long faces = -1;
  };

  Bisected bisect(const Ordered& o, const Adjacency& adj0, double fraction) const {
    Bisected b;
    b.ordered = &o;
    const std::vector<Piece>& v = o.v;
    const double total = o.prefix.back();
    std::size_t k = v.size();
    if (!(total > 0)) {  // nothing to weigh: share the pieces by count
      b.choice = {-1, std::size_t(double(v.size()) * fraction), {}, {}, 0, 0};
    } else {
      const double target = total * fraction;
      k = 0;
      while (k < v.size() && o.prefix[k + 1] <= target)
        ++k;
      b.choice = k < v.size()
                     ? choose(v, adj0, o.order, o.pos, o.prefix, k, target, o.axis)
                     : Choice{-1, v.size(), {}, {}, 0, 0};
    }
    // The faces between pieces that keep their sides (all that cross `upto` but those of
    // pieces k and cut), plus those the choice opens.
    const Choice& c = b.choice;
    b.faces = c.faces + o.crossing[c.upto];
    for (const int x : {int(k), c.cut == int(k) ? -1 : c.cut}) {
      if (x < 0 || x >= int(v.size())) continue;
      for (const auto& [y0, f] : adj0[std::size_t(o.order[std::size_t(x)])]) {
        const int y = o.pos[std::size_t(y0)];
        if ((y == int(k) || y == c.cut) && y < x) continue;  // counted from y
        if ((std::size_t(std::min(x, y)) < c.upto) !=
            (std::size_t(std::max(x, y)) < c.upto))
          b.faces -= f;
      }
    }
    return b;
  }

  /// Ranks [r0, r1) share the pieces v (adjacency adj): bisected along the axis that
  /// cuts the fewest faces (ties: the longest), each side taking its ranks' share of the
  /// speed.
  void split(std::vector<Piece> v, Adjacency adj, int r0, int r1) {
    if (v.empty()) return;
    if (r1 - r0 == 1) {
      for (const Piece& p : v)
        out.emplace_back(p.source, p.box, r0);
      return;
    }
    // The lo side takes half the ranks (either rounding when odd), or one more or one
    // fewer when that cuts fewer faces: the plane can then pass where the boxes are
    // sparse. (Measured on the lab's workloads: 3% fewer faces at 1024 ranks; more
    // freedom, chosen greedily node by node, did worse.)
    const int p = r1 - r0;
    const double s_all = std::accumulate(&speed[r0], &speed[r1 - 1] + 1, 0.0);
    const int longest = longest_axis(v);
    std::vector<Ordered> orders;
    for (int e = 0; e < dims(); ++e)
      orders.push_back(ordered(v, adj, (longest + e) % dims()));
    std::vector<int> p_lo = {p / 2};
    if (p % 2) p_lo.push_back(p / 2 + 1);
    for (int q : {p / 2 - 1, (p + 1) / 2 + 1})
      if (q >= 1 && q < p) p_lo.push_back(q);
    Bisected best;
    int mid = r0 + p / 2;
    for (int q : p_lo) {
      const double s_lo = std::accumulate(&speed[r0], &speed[r0 + q], 0.0);
      for (const Ordered& o : orders) {
        Bisected b = bisect(o, adj, s_lo / s_all);
        if (best.faces < 0 || b.faces < best.faces) {
          best = std::move(b);
          mid = r0 + q;
        }
      }
    }
    const Ordered& sorted_v = *best.ordered;
    v = {};
    // The two sides, with the adjacency within each: the edges of the pieces that stay
    // whole, and those of the cut piece's boxes found among its neighbours.
    const Choice& c = best.choice;
    const std::size_t n = sorted_v.v.size();
    std::vector<Piece> side[2];
    std::vector<int> where(n);  // index within its side, for pieces kept whole
    for (std::size_t i = 0; i < n; ++i)
      if (int(i) != c.cut) {
        std::vector<Piece>& s = side[i < c.upto ? 0 : 1];
        where[i] = int(s.size());
        s.push_back(sorted_v.v[i]);
      }
    std::vector<std::pair<int, int>> parts;  // side, index of the cut piece's boxes
    if (c.cut >= 0) {
      const Piece& s = sorted_v.v[std::size_t(c.cut)];
      for (int k = 0; k < 2; ++k)
        for (const Box& b : k == 0 ? c.lo : c.hi) {
          parts.emplace_back(k, int(side[k].size()));
          side[k].push_back({b, s.source, s.level, s.refinement, s.cost_per_cell});
        }
    }
    Adjacency sub[2] = {Adjacency(side[0].size()), Adjacency(side[1].size())};
    for (std::size_t i = 0; i < n; ++i) {
      if (int(i) == c.cut) continue;
      const int k = i < c.upto ? 0 : 1;
      for (const auto& [j0, f] : adj[std::size_t(sorted_v.order[i])])
        if (const int j = sorted_v.pos[std::size_t(j0)];
            j != c.cut && (std::size_t(j) < c.upto ? 0 : 1) == k)
          sub[k][std::size_t(where[i])].emplace_back(where[std::size_t(j)], f);
    }
    for (std::size_t a = 0; a < parts.size(); ++a) {
      const auto [k, ia] = parts[a];
      const Box& box = side[k][std::size_t(ia)].box;
      for (const auto& [j0, f] : adj[std::size_t(sorted_v.order[std::size_t(c.cut)])]) {
        const int j = sorted_v.pos[std::size_t(j0)];
        if ((std::size_t(j) < c.upto ? 0 : 1) != k) continue;
        if (const long g = shared_faces(box, sorted_v.v[std::size_t(j)].box)) {
          sub[k][std::size_t(ia)].emplace_back(where[std::size_t(j)], g);
          sub[k][std::size_t(where[std::size_t(j)])].emplace_back(ia, g);
        }
      }
      for (std::size_t b = 0; b < parts.size(); ++b)
        if (b != a && parts[b].first == k)
          if (const long g = shared_faces(box, side[k][std::size_t(parts[b].second)].box))
            sub[k][std::size_t(ia)].emplace_back(parts[b].second, g);
    }
    best = {};
    orders = {};
    adj = {};
    split(std::move(side[0]), std::move(sub[0]), r0, mid);
    split(std::move(side[1]), std::move(sub[1]), mid, r1);
  }
};

}  // namespace

std::pair<std::vector<Box>, std::vector<Box>> staircase_cut(const Box& box, long cells,
                                                            const std::vector<int>& axes,
                                                            const SplitRules& rules) {
  std::pair<std::vector<Box>, std::vector<Box>> out;
  stair(box, cells, axes.data(), int(axes.size()), rules, out.first, out.second);
  return out;
}

Plan spatial_pack(const std::vector<PatchMeta>& patches, const RankInfo& ranks,
                  const SplitRules& rules, double tolerance) {
  std::vector<Piece> pieces;
  double total = 0;
  for (int i = 0; i < int(patches.size()); ++i) {
    const PatchMeta& p = patches[i];
    const long cells = p.box.num_cells();
    pieces.push_back({p.box, i, p.level, std::max(p.refinement, 1),
                      cells > 0 ? p.cost / double(cells) : 0.0});
    total += p.cost;
  }
  const double speed = std::accumulate(ranks.speed.begin(), ranks.speed.end(), 0.0);
  Bisection bisection{
      rules, ranks.speed, std::max(tolerance, kSlack) * total / speed, {}};
  bisection.split(std::move(pieces), touching(patches), 0, ranks.nranks);
  std::sort(bisection.out.begin(), bisection.out.end());
  Plan plan;
  for (const auto& [source, box, owner] : bisection.out) {
    plan.boxes.push_back(box);
    plan.level.push_back(patches[source].level);
    plan.owner.push_back(owner);
    plan.source.push_back(source);
  }
  return plan;
}

}  // namespace pw
