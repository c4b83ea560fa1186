#include "balance/spatial_pack.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <tuple>

namespace pw {

namespace {

/// Pieces either side of the straddling one that may be cut in its place (a wider
/// window found little more on the lab's workloads, at a higher cost).
constexpr int kWindow = 16;
/// Ideal loads by which a cut may miss its share when that cuts fewer faces: the errors
/// of the cuts above a rank are spread over their ranks, so they add up to well under
/// the 1% the lab's target allows, and whole boxes often come that close at the top.
constexpr double kCutSlack = 0.0025;

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

template <class Out>
void stair(const Box& b, long n, const int* axes, int naxes, const SplitRules& rules,
           Out& lo, Out& hi) {
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

/// Cell faces between disjoint boxes a and b: where they touch across an axis, the
/// overlap of their sections.
long shared_faces(const Box& a, const Box& b) {
  long overlap[3];
  for (int d = 0; d < 3; ++d)
    overlap[d] = std::max(0, std::min(a.hi[d], b.hi[d]) - std::max(a.lo[d], b.lo[d]) + 1);
  long faces = 0;
  for (int d = 0; d < 3; ++d)
    if (a.hi[d] + 1 == b.lo[d] || b.hi[d] + 1 == a.lo[d])
      faces += overlap[(d + 1) % 3] * overlap[(d + 2) % 3];
  return faces;
}

/// Per box, the boxes of its level it shares faces with, and how many faces.
using Adjacency = std::vector<std::vector<std::pair<int, long>>>;

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

/// The boxes of one side of a staircase cut: at most one per axis.
struct Boxes {
  std::array<Box, 3> box;
  int n = 0;
  void push_back(const Box& b) { box[std::size_t(n++)] = b; }
  const Box* begin() const { return box.data(); }
  const Box* end() const { return box.data() + n; }
};

/// The recursive bisection. Pieces live in one pool by id, never moved: a node holds its
/// pieces' ids in order along each axis, which its children inherit by stable partition
/// (a piece's key does not change), so nothing is sorted below the root.
struct Bisection {
  const SplitRules& rules;
  const std::vector<double>& speed;
  double slack;  // weight a cut may miss its target by to open fewer faces
  std::vector<Piece> pieces;
  /// By id: the pieces of the same node it shares faces with, and how many faces (kept to
  /// the node's own pieces as the bisection goes down).
  Adjacency adj;
  std::vector<int> node;                // by id: the node holding the piece (-1: cut up)
  std::array<std::vector<int>, 3> pos;  // by id: index in its node's order, per axis
  std::vector<std::tuple<int, Box, int>> out;  // source, box, owner
  int nodes = 0;

  int dims() const { return std::clamp(rules.dim, 1, 3); }

  /// Centroid order along axis (ties: the other axes, level, patch, corner).
  auto key(int id, int axis) const {
    const Piece& p = pieces[std::size_t(id)];
    return std::make_tuple(p.center2(axis), p.center2((axis + 1) % dims()),
                           p.center2((axis + 2) % dims()), p.level, p.source,
                           std::cref(p.box));
  }

  using Orders = std::array<std::vector<int>, 3>;

  /// The root's orders: every piece sorted along each axis.
  Orders sorted_all() const {
    Orders o;
    // The key by value, to sort in place; the corner is not needed, each piece being a
    // whole patch.
    struct Key {
      double c0, c1, c2;
      int level, source;
      bool operator<(const Key& b) const {
        if (c0 != b.c0) return c0 < b.c0;
        if (c1 != b.c1) return c1 < b.c1;
        if (c2 != b.c2) return c2 < b.c2;
        return std::tie(level, source) < std::tie(b.level, b.source);
      }
    };
    std::vector<Key> k(pieces.size());
    for (int axis = 0; axis < dims(); ++axis) {
      const int d1 = (axis + 1) % dims(), d2 = (axis + 2) % dims();
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        const Piece& p = pieces[i];
        k[i] = {p.center2(axis), p.center2(d1), p.center2(d2), p.level, p.source};
      }
      std::sort(k.begin(), k.end());
      std::vector<int>& v = o[std::size_t(axis)];
      v.resize(pieces.size());
      for (std::size_t i = 0; i < k.size(); ++i)
        v[i] = k[i].source;
    }
    return o;
  }

  /// The longest axis of the region the pieces span, in the level-0 frame (ties: lower).
  int longest_axis(const std::vector<int>& ids) const {
    double lo[3], hi[3];
    std::fill(lo, lo + 3, HUGE_VAL);
    std::fill(hi, hi + 3, -HUGE_VAL);
    for (const int id : ids) {
      const Piece& p = pieces[std::size_t(id)];
      for (int d = 0; d < dims(); ++d) {
        lo[d] = std::min(lo[d], double(p.box.lo[d]) / p.refinement);
        hi[d] = std::max(hi[d], double(p.box.hi[d] + 1) / p.refinement);
      }
    }
    int axis = 0;
    for (int d = 1; d < dims(); ++d)
      if (hi[d] - lo[d] > hi[axis] - lo[axis]) axis = d;
    return axis;
  }

  /// A node's pieces in order along an axis, with the prefix sums of their weights.
  struct Ordered {
    int axis;
    const std::vector<int>* order;
    std::vector<double> prefix;
    std::vector<long> crossing;  // [t]: faces between the first t pieces and the rest
    std::vector<long> faces;     // [i]: the faces of the i-th piece, to any other
  };
  std::array<Ordered, 3> scratch;  // the node's orders, reused node after node

  /// Fills the orders of a node's pieces (`count` axes), one pass over the adjacency for
  /// all.
  void ordered(std::array<Ordered, 3>& ord, int count) {
    const std::size_t n = ord[0].order->size();
    for (int e = 0; e < count; ++e) {
      Ordered& o = ord[std::size_t(e)];
      const std::vector<int>& order = *o.order;
      std::vector<int>& at = pos[std::size_t(o.axis)];
      o.prefix.assign(n + 1, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        at[std::size_t(order[i])] = int(i);
        o.prefix[i + 1] = o.prefix[i] + pieces[std::size_t(order[i])].weight();
      }
      o.crossing.assign(n + 1, 0);
      o.faces.assign(n, 0);
    }
    for (const int id : *ord[0].order)
      for (const auto& [j0, f] : adj[std::size_t(id)])
        for (int e = 0; e < count; ++e) {
          Ordered& o = ord[std::size_t(e)];
          const std::vector<int>& at = pos[std::size_t(o.axis)];
          const std::size_t i = std::size_t(at[std::size_t(id)]);
          o.faces[i] += f;
          if (const std::size_t j = std::size_t(at[std::size_t(j0)]); i < j) {
            o.crossing[i + 1] += f;
            o.crossing[j + 1] -= f;
          }
        }
    for (int e = 0; e < count; ++e)
      for (std::size_t t = 1; t <= n; ++t)
        ord[std::size_t(e)].crossing[t] += ord[std::size_t(e)].crossing[t - 1];
  }

  /// How a cut divides ordered pieces: those before `upto` but `cut` go lo, the rest hi,
  /// and piece `cut` (-1: none) is cut into lo and hi boxes. err: the weight by which the
  /// lo side misses its target; faces: the faces between sides that touch piece k (the
  /// straddling one) or piece `cut`, the only pieces options place differently.
  struct Choice {
    int cut;
    std::size_t upto;
    Boxes lo, hi;
    double err;
    long faces;
  };

  /// Piece k straddles the target. Cutting it is the default; but another piece within
  /// kWindow of it may be cut instead (k then goes whole to one side), or none at all,
  /// when that cuts fewer faces and misses the target by no more than the default or
  /// `slack`. In AMR lists many patch faces border no patch of their level and cost
  /// nothing, while a cut through a patch always costs its section.
  Choice choose(const Ordered& o, std::size_t k, double target) {
    const std::vector<int>& order = *o.order;
    const std::vector<int>& at = pos[std::size_t(o.axis)];
    const std::vector<double>& prefix = o.prefix;
    const auto piece = [&](int i) -> const Piece& {
      return pieces[std::size_t(order[std::size_t(i)])];
    };
    const int lo_j = std::max(0, int(k) - kWindow);
    const int hi_j = std::min(int(order.size()) - 1, int(k) + kWindow);
    Choice straddle;
    cut_piece(straddle, piece(int(k)), int(k), k + 1, target - prefix[k], o.axis);
    const double allow = std::max(straddle.err, slack);
    // Faces of piece k to its neighbours on each side (when it goes whole to the other),
    // and to those in the window.
    const Box& box_k = piece(int(k)).box;
    long k_to[2] = {0, 0};  // lo, hi
    std::array<long, 2 * kWindow + 1> k_to_j{};
    for (const auto& [y0, f] : adj[std::size_t(order[k])]) {
      const int y = at[std::size_t(y0)];
      k_to[y < int(k) ? 0 : 1] += f;
      if (y >= lo_j && y <= hi_j) k_to_j[std::size_t(y - lo_j)] = f;
    }
    // The faces between sides that k (if whole) would have, less those to the cut piece.
    const auto k_faces = [&](int cut, bool k_on_lo) {
      long faces = k_to[k_on_lo ? 1 : 0];
      if (cut >= 0 && (cut < int(k)) != k_on_lo) faces -= k_to_j[std::size_t(cut - lo_j)];
      return faces;
    };
    // The faces that touch k or the cut boxes, between sides: k's (whole) to its
    // neighbours, those among the boxes the option places, then the cut boxes' to their
    // piece's neighbours, counted last as they cost the most. Returns false, with part of
    // the count, once it passes `bound`.
    const auto count_faces = [&](Choice& ch, long bound) {
      std::array<Box, 7> box;
      std::array<bool, 7> on_lo;
      int m = 0;
      ch.faces = 0;
      if (ch.cut != int(k)) {
        on_lo[std::size_t(m)] = ch.upto > k;
        box[std::size_t(m)] = box_k;
        ch.faces += k_faces(ch.cut, on_lo[std::size_t(m++)]);
      }
      const int first_part = m;
      for (const Box& b : ch.lo) {
        on_lo[std::size_t(m)] = true;
        box[std::size_t(m++)] = b;
      }
      for (const Box& b : ch.hi) {
        on_lo[std::size_t(m)] = false;
        box[std::size_t(m++)] = b;
      }
      for (int a = 0; a < m; ++a)
        for (int b = a + 1; b < m; ++b)
          if (on_lo[std::size_t(b)] != on_lo[std::size_t(a)])
            ch.faces += shared_faces(box[std::size_t(a)], box[std::size_t(b)]);
      if (ch.faces > bound) return false;
      if (m > first_part)
        for (const auto& [y0, f] : adj[std::size_t(order[std::size_t(ch.cut)])]) {
          const int y = at[std::size_t(y0)];
          if (y == int(k)) continue;
          const Box& box_y = pieces[std::size_t(y0)].box;
          for (int a = first_part; a < m; ++a)
            if ((y < int(k)) != on_lo[std::size_t(a)])
              ch.faces += shared_faces(box[std::size_t(a)], box_y);
        }
      return true;
    };
    const auto rank = [&](const Choice& c) {
      return std::make_tuple(c.faces, c.err, std::abs(c.cut - int(k)), c.cut);
    };
    // The straddling cut first; then an option whose faces provably exceed the best so
    // far is dropped, before its boxes are made when k's own faces do.
    count_faces(straddle, std::numeric_limits<long>::max());
    Choice best = straddle;
    const auto consider = [&](Choice& ch) {
      if (ch.err <= allow && count_faces(ch, best.faces) && rank(ch) < rank(best))
        best = ch;
    };
    Choice ch{-1, k, {}, {}, target - prefix[k], 0};
    consider(ch);
    ch = {-1, k + 1, {}, {}, prefix[k + 1] - target, 0};
    consider(ch);
    for (int j = lo_j; j <= hi_j; ++j) {
      if (j == int(k)) continue;
      // Up to k whole, less j (need from j: what k adds past the target, below w_j), or
      // before k whole, plus part of j.
      const double w = piece(j).weight();
      const std::size_t upto = j <= int(k) ? k + 1 : k;
      const double rest = j <= int(k) ? prefix[k + 1] - w : prefix[k];
      const double need = target - rest;
      if (need < 0 || need > w || k_faces(j, upto > k) > best.faces) continue;
      cut_piece(ch, piece(j), j, upto, need, o.axis);
      consider(ch);
    }
    return best;
  }

  /// Piece s (index j) cut into about `need` weight on the lo side and the rest.
  void cut_piece(Choice& c, const Piece& s, int j, std::size_t upto, double need,
                 int axis) const {
    // Across the bisection axis first, so that the cut lies along the plane between the
    // two sides; then across the box's longer other axis.
    int axes[3] = {axis, 0, 0};
    int naxes = 1;
    for (int d = 0; d < dims(); ++d)
      if (d != axis) axes[naxes++] = d;
    if (naxes == 3 && s.box.size()[axes[2]] > s.box.size()[axes[1]])
      std::swap(axes[1], axes[2]);
    c.cut = j;
    c.upto = upto;
    c.lo.n = c.hi.n = 0;
    stair(s.box, std::lround(need / s.cost_per_cell), axes, naxes, rules, c.lo, c.hi);
    long cells = 0;
    for (const Box& b : c.lo)
      cells += b.num_cells();
    c.err = std::abs(double(cells) * s.cost_per_cell - need);
    c.faces = 0;
  }

  /// A lower bound on bisect(o, fraction).faces, cheaper than it, for each choice it
  /// could make: the faces across the plane where it puts it (exact when nothing is
  /// cut), less those across it of the piece it cuts (when that is not the straddling
  /// one, this goes whole to a side and keeps its faces across the plane).
  long faces_at_least(const Ordered& o, double fraction) const {
    const std::vector<int>& order = *o.order;
    const std::vector<int>& at = pos[std::size_t(o.axis)];
    const std::size_t n = order.size();
    const double total = o.prefix.back();
    if (!(total > 0)) return 0;
    const double target = total * fraction;
    const std::size_t k =
        std::size_t(std::upper_bound(o.prefix.begin() + 1, o.prefix.end(), target) -
                    (o.prefix.begin() + 1));
    if (k >= n) return 0;
    // Faces of piece i across the plane before piece t.
    const auto across = [&](std::size_t i, std::size_t t) {
      long f_across = 0;
      for (const auto& [y0, f] : adj[std::size_t(order[i])])
        if ((std::size_t(at[std::size_t(y0)]) < t) != (i < t)) f_across += f;
      return f_across;
    };
    long bound = std::min(o.crossing[k], o.crossing[k + 1] - across(k, k + 1));
    const std::size_t lo_j = k > std::size_t(kWindow) ? k - kWindow : 0;
    const std::size_t hi_j = std::min(n - 1, k + kWindow);
    for (std::size_t j = lo_j; j <= hi_j; ++j) {
      if (j == k) continue;
      const double w = pieces[std::size_t(order[j])].weight();
      const std::size_t upto = j <= k ? k + 1 : k;
      const double need = target - (j <= k ? o.prefix[k + 1] - w : o.prefix[k]);
      if (need < 0 || need > w) continue;
      if (o.crossing[upto] - o.faces[j] >= bound) continue;
      bound = std::min(bound, o.crossing[upto] - across(j, upto));
    }
    return bound;
  }

  /// A bisection: how the pieces of an order divide, and the faces between the sides.
  struct Bisected {
    const Ordered* ordered = nullptr;
    Choice choice;
    long faces = -1;
  };

  Bisected bisect(const Ordered& o, double fraction) {
    Bisected b;
    b.ordered = &o;
    const std::vector<int>& order = *o.order;
    const std::vector<int>& at = pos[std::size_t(o.axis)];
    const std::size_t n = order.size();
    const double total = o.prefix.back();
    std::size_t k = n;
    if (!(total > 0)) {  // nothing to weigh: share the pieces by count
      b.choice = {-1, std::size_t(double(n) * fraction), {}, {}, 0, 0};
    } else {
      const double target = total * fraction;
      // The first piece whose end passes the target.
      k = std::size_t(std::upper_bound(o.prefix.begin() + 1, o.prefix.end(), target) -
                      (o.prefix.begin() + 1));
      b.choice = k < n ? choose(o, k, target) : Choice{-1, n, {}, {}, 0, 0};
    }
    // The faces between pieces that keep their sides (all that cross `upto` but those of
    // pieces k and cut), plus those the choice opens.
    const Choice& c = b.choice;
    b.faces = c.faces + o.crossing[c.upto];
    for (const int x : {int(k), c.cut == int(k) ? -1 : c.cut}) {
      if (x < 0 || x >= int(n)) continue;
      for (const auto& [y0, f] : adj[std::size_t(order[std::size_t(x)])]) {
        const int y = at[std::size_t(y0)];
        if ((y == int(k) || y == c.cut) && y < x) continue;  // counted from y
        if ((std::size_t(std::min(x, y)) < c.upto) !=
            (std::size_t(std::max(x, y)) < c.upto))
          b.faces -= f;
      }
    }
    return b;
  }

  /// Ranks [r0, r1) share the pieces of node `self`, listed along each axis in `orders`:
  /// bisected along the axis that cuts the fewest faces (ties: the longest), each side
  /// taking its ranks' share of the speed.
  void split(int self, Orders orders, int r0, int r1) {
    if (orders[0].empty()) return;
    if (r1 - r0 == 1) {
      for (const int id : orders[0])
        out.emplace_back(pieces[std::size_t(id)].source, pieces[std::size_t(id)].box, r0);
      return;
    }
    // The lo side takes half the ranks (either rounding when odd), or one more or one
    // fewer when that cuts fewer faces: the plane can then pass where the boxes are
    // sparse. (Measured on the lab's workloads: 3% fewer faces at 1024 ranks; more
    // freedom, chosen greedily node by node, did worse.)
    const int p = r1 - r0;
    const double s_all = std::accumulate(&speed[r0], &speed[r1 - 1] + 1, 0.0);
    const int longest = longest_axis(orders[0]);
    std::array<Ordered, 3>& ord = scratch;  // free again before the children run
    for (int e = 0; e < dims(); ++e) {
      const int axis = (longest + e) % dims();
      ord[std::size_t(e)].axis = axis;
      ord[std::size_t(e)].order = &orders[std::size_t(axis)];
    }
    ordered(ord, dims());
    int p_lo[4] = {p / 2};
    int nq = 1;
    if (p % 2) p_lo[nq++] = p / 2 + 1;
    for (int q : {p / 2 - 1, (p + 1) / 2 + 1})
      if (q >= 1 && q < p) p_lo[nq++] = q;
    // The bisections in order of their lower bounds, so that the best is found early
    // and those that cannot beat it are not made; ties go to the first in the order
    // above (rank counts, then axes).
    struct Candidate {
      long at_least;
      int index, q;
      double fraction;
    };
    std::array<Candidate, 12> cand;
    int ncand = 0;
    for (int iq = 0; iq < nq; ++iq) {
      const double s_lo = std::accumulate(&speed[r0], &speed[r0 + p_lo[iq]], 0.0);
      for (int e = 0; e < dims(); ++e, ++ncand)
        cand[std::size_t(ncand)] = {faces_at_least(ord[std::size_t(e)], s_lo / s_all),
                                    ncand, p_lo[iq], s_lo / s_all};
    }
    const auto by_bound = [](const Candidate& x, const Candidate& y) {
      return std::tie(x.at_least, x.index) < std::tie(y.at_least, y.index);
    };
    std::sort(cand.begin(), cand.begin() + ncand, by_bound);
    Bisected best;
    int best_index = -1;
    int mid = r0 + p / 2;
    for (int i = 0; i < ncand; ++i) {
      const Candidate& x = cand[std::size_t(i)];
      if (best_index >= 0 &&
          std::make_pair(x.at_least, x.index) >= std::make_pair(best.faces, best_index))
        break;
      Bisected b = bisect(ord[std::size_t(x.index % dims())], x.fraction);
      if (best_index < 0 ||
          std::make_pair(b.faces, x.index) < std::make_pair(best.faces, best_index)) {
        best = b;
        best_index = x.index;
        mid = r0 + x.q;
      }
    }
    // The two sides: the pieces kept whole by their place in the chosen order, then the
    // cut piece's boxes as new pieces, each side's orders by stable partition with the
    // new boxes inserted in order.
    const Choice& c = best.choice;
    const std::vector<int>& chosen = *best.ordered->order;
    const int child[2] = {nodes++, nodes++};
    for (std::size_t i = 0; i < chosen.size(); ++i)
      node[std::size_t(chosen[i])] = child[i < c.upto ? 0 : 1];
    int parts[6], side_of[6], nparts = 0;
    const int cut = c.cut >= 0 ? chosen[std::size_t(c.cut)] : -1;  // its id
    if (cut >= 0) {
      node[std::size_t(cut)] = -1;
      const Piece s = pieces[std::size_t(cut)];
      for (int k = 0; k < 2; ++k)
        for (const Box& b : k == 0 ? c.lo : c.hi) {
          parts[nparts] = int(pieces.size());
          side_of[nparts++] = k;
          pieces.push_back({b, s.source, s.level, s.refinement, s.cost_per_cell});
          node.push_back(child[k]);
          adj.emplace_back();
          for (auto& at : pos)
            at.push_back(0);
        }
    }
    Orders sub[2];
    for (int axis = 0; axis < dims(); ++axis) {
      const std::size_t a = std::size_t(axis);
      for (const int id : orders[a])
        if (const int n = node[std::size_t(id)]; n >= 0)
          sub[n == child[0] ? 0 : 1][a].push_back(id);
      orders[a] = {};
      for (int i = 0; i < nparts; ++i) {
        std::vector<int>& v = sub[side_of[i]][a];
        const auto k = key(parts[i], axis);
        v.insert(std::upper_bound(v.begin(), v.end(), parts[i],
                                  [&](int, int b) { return k < key(b, axis); }),
                 parts[i]);
      }
    }
    // The adjacency within each side: the edges of the pieces kept whole that stay on
    // their side, and those of the cut piece's boxes found among its neighbours.
    for (int k = 0; k < 2; ++k)
      for (const int id : sub[k][0]) {
        auto& list = adj[std::size_t(id)];
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [&](const std::pair<int, long>& e) {
                                    return node[std::size_t(e.first)] != child[k];
                                  }),
                   list.end());
      }
    if (cut >= 0) {
      for (int a = 0; a < nparts; ++a) {
        const int ia = parts[a];
        const int own = child[side_of[a]];
        const Box box = pieces[std::size_t(ia)].box;
        for (const auto& [j, f] : adj[std::size_t(cut)]) {
          if (node[std::size_t(j)] != own) continue;
          if (const long g = shared_faces(box, pieces[std::size_t(j)].box)) {
            adj[std::size_t(ia)].emplace_back(j, g);
            adj[std::size_t(j)].emplace_back(ia, g);
          }
        }
        for (int b = 0; b < nparts; ++b)
          if (b != a && side_of[b] == side_of[a])
            if (const long g = shared_faces(box, pieces[std::size_t(parts[b])].box))
              adj[std::size_t(ia)].emplace_back(parts[b], g);
      }
      adj[std::size_t(cut)] = {};
    }
    split(child[0], std::move(sub[0]), r0, mid);
    split(child[1], std::move(sub[1]), mid, r1);
  }
};

}  // namespace

// Per axis d, a sweep over the planes where a patch ends and another of its level begins,
// matching their sections by their extents along the next axis (in order of their lower
// ends, each against those still open).
std::vector<std::vector<std::pair<int, long>>> touching_faces(
    const std::vector<PatchMeta>& patches) {
  std::vector<std::vector<std::pair<int, long>>> out(patches.size());
  // (level, plane), then (lower end along e1, patch index, whether it starts at the
  // plane): packed so that they sort as unsigned integers.
  const auto biased = [](int x) { return std::uint64_t(std::uint32_t(x) ^ 0x80000000u); };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sides;
  std::vector<int> open[2];  // by starts: patches whose section may meet later ones
  for (int d = 0; d < 3; ++d) {
    const int e1 = (d + 1) % 3, e2 = (d + 2) % 3;
    sides.clear();
    for (int i = 0; i < int(patches.size()); ++i) {
      const PatchMeta& p = patches[std::size_t(i)];
      if (p.box.empty()) continue;
      const std::uint64_t from = biased(p.box.lo[e1]) << 32 | std::uint64_t(i) << 1;
      sides.emplace_back(biased(p.level) << 32 | biased(p.box.hi[d] + 1), from);
      sides.emplace_back(biased(p.level) << 32 | biased(p.box.lo[d]), from | 1);
    }
    std::sort(sides.begin(), sides.end());
    for (std::size_t g = 0; g < sides.size();) {
      std::size_t h = g;
      while (h < sides.size() && sides[h].first == sides[g].first)
        ++h;
      open[0].clear();
      open[1].clear();
      for (; g < h; ++g) {
        const int i = int(std::uint32_t(sides[g].second) >> 1);
        const int starts = int(sides[g].second & 1);
        const Box& a = patches[std::size_t(i)].box;
        std::vector<int>& other = open[1 - starts];
        std::size_t kept = 0;
        for (const int j : other) {
          const Box& b = patches[std::size_t(j)].box;
          if (b.hi[e1] < a.lo[e1]) continue;  // ends before this and all later ones
          other[kept++] = j;
          const long across =
              std::min(a.hi[e2], b.hi[e2]) - std::max(a.lo[e2], b.lo[e2]) + 1;
          if (across <= 0) continue;
          const long f = across * (std::min(a.hi[e1], b.hi[e1]) - a.lo[e1] + 1);
          out[std::size_t(i)].emplace_back(j, f);
          out[std::size_t(j)].emplace_back(i, f);
        }
        other.resize(kept);
        open[starts].push_back(i);
      }
    }
  }
  return out;
}

std::pair<std::vector<Box>, std::vector<Box>> staircase_cut(const Box& box, long cells,
                                                            const std::vector<int>& axes,
                                                            const SplitRules& rules) {
  std::pair<std::vector<Box>, std::vector<Box>> out;
  stair(box, cells, axes.data(), int(axes.size()), rules, out.first, out.second);
  return out;
}

Plan spatial_pack(const std::vector<PatchMeta>& patches, const RankInfo& ranks,
                  const SplitRules& rules, double tolerance) {
  double total = 0;
  for (const PatchMeta& p : patches)
    total += p.cost;
  const double speed = std::accumulate(ranks.speed.begin(), ranks.speed.end(), 0.0);
  Bisection bisection{rules, ranks.speed, std::max(tolerance, kCutSlack) * total / speed,
                      {},    {},          {},
                      {},    {},          1};
  for (int i = 0; i < int(patches.size()); ++i) {
    const PatchMeta& p = patches[i];
    const long cells = p.box.num_cells();
    bisection.pieces.push_back({p.box, i, p.level, std::max(p.refinement, 1),
                                cells > 0 ? p.cost / double(cells) : 0.0});
  }
  bisection.adj = touching_faces(patches);
  bisection.node.assign(patches.size(), 0);
  for (auto& at : bisection.pos)
    at.assign(patches.size(), 0);
  bisection.split(0, bisection.sorted_all(), 0, ranks.nranks);
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
