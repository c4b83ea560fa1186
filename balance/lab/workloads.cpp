// Workload generators. Each workload is a refined region per level, given as a distance
// function; a level is cut into tiles of its maximum patch size and each tile that meets
// the region gives one patch (the bounding box of its marked blocks) or, when that box
// would be mostly empty, one patch per half-size subtile: a small stand-in for
// Berger-Rigoutsos clustering under a maximum patch size. The patch count is met by
// searching the number of levels and a size parameter of the region (a radius or a band
// width).
#include "balance/lab/workloads.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>

namespace pw {

namespace {

constexpr double kFill = 0.7;  // a tile keeps one box when this much of it is marked
constexpr double kFar = std::numeric_limits<double>::infinity();

using Point = std::array<double, 3>;
/// Level l >= 1 refines where region(l, x) <= 0, x in the unit domain. 1-Lipschitz in x,
/// so that a cube whose centre is farther than its half-diagonal can be skipped whole.
using Region = std::function<double(int, const Point&)>;

/// What the count search varies: levels above 0, level-0 cells per side, region size.
struct Scale {
  int levels = 3;
  int n0 = 64;
  double lambda = 1;
};

double norm(const Point& a, const Point& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                   (a[2] - b[2]) * (a[2] - b[2]));
}

/// Half-width of a band at level l: 8 lambda cells of that level, so that coarser levels
/// hold wider bands around the finer ones, as buffered tagging gives.
double band(const Scale& s, int l) {
  return s.lambda * 8.0 / double(s.n0 << l);
}

/// AMR64-like: a few compact clusters, each a union of three balls, refined to its own
/// depth; the deepest ones are the hot spots. Radii shrink by 0.7 per level.
Region clustered(const WorkloadSpec& spec, const Scale& s) {
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> u(0, 1);
  struct Ball {
    Point c;
    double r;
    int depth;
  };
  std::vector<Ball> balls;
  const int k = 3 + int(rng() % 4);
  for (int c = 0; c < k; ++c) {
    Point centre{0.5, 0.5, 0.5};
    for (int d = 0; d < spec.dim; ++d)
      centre[d] = 0.15 + 0.7 * u(rng);
    const double rho = 0.05 + 0.07 * u(rng);
    // The first two clusters reach the finest level; the others stop 1 or 2 above.
    const int depth = c < 2 ? s.levels : std::max(1, s.levels - 1 - int(rng() % 2));
    for (int b = 0; b < 3; ++b) {
      Point p = centre;
      for (int d = 0; d < spec.dim; ++d)
        p[d] += (u(rng) - 0.5) * 1.2 * rho;
      balls.push_back({p, rho * (0.5 + 0.5 * u(rng)), depth});
    }
  }
  const double lambda = s.lambda;
  return [balls, lambda](int l, const Point& x) {
    double d = kFar;
    const double shrink = lambda * std::pow(0.7, l - 1);
    for (const Ball& b : balls)
      if (l <= b.depth) d = std::min(d, norm(x, b.c) - b.r * shrink);
    return d;
  };
}

/// ShockPool3D-like: a band around a plane tilted by 8-20 degrees from the x = const
/// planes about each transverse axis; time moves it from x = 0.25 to 0.75.
Region plane(const WorkloadSpec& spec, const Scale& s) {
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> angle(8 * M_PI / 180, 20 * M_PI / 180);
  Point n{1, std::tan(angle(rng)), spec.dim == 3 ? std::tan(angle(rng)) : 0.0};
  const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (double& c : n)
    c /= len;
  const Point p{0.25 + 0.5 * spec.time, 0.5, 0.5};
  return [n, p, s](int l, const Point& x) {
    const double h = n[0] * (x[0] - p[0]) + n[1] * (x[1] - p[1]) + n[2] * (x[2] - p[2]);
    return std::abs(h) - band(s, l);
  };
}

/// A bubble rising through the domain (Uintah's moving-feature tests): a band around a
/// sphere (a circle in 2D) of radius 0.2 whose centre goes from y = 0.3 to 0.7 with time.
Region bubble(const WorkloadSpec& spec, const Scale& s) {
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> jitter(-0.05, 0.05);
  const Point c{0.5 + jitter(rng), 0.3 + 0.4 * spec.time,
                spec.dim == 3 ? 0.5 + jitter(rng) : 0.5};
  const double r = 0.2;
  return
      [c, r, s](int l, const Point& x) { return std::abs(norm(x, c) - r) - band(s, l); };
}

class Generator {
 public:
  Generator(const Region& region, const Scale& s, int dim, int bf,
            std::vector<int> max_size)
      : region_(region), s_(s), dim_(dim), bf_(bf), max_size_(std::move(max_size)) {}

  std::vector<PatchMeta> run() const {
    std::vector<PatchMeta> out;
    const int nt = (s_.n0 + side(0) - 1) / side(0);
    const IntVect tiles = IntVect::in_dims(dim_, nt, 1);
    for (int k = 0; k < tiles[2]; ++k)
      for (int j = 0; j < tiles[1]; ++j)
        for (int i = 0; i < tiles[0]; ++i)
          emit(0, cells(0, {i, j, k}, {i, j, k}), out);
    for (int l = 1; l <= s_.levels; ++l) {
      const int ntl = ((s_.n0 << l) + side(l) - 1) / side(l);
      descend(l, {0, 0, 0}, IntVect::in_dims(dim_, ntl - 1, 0), out);
    }
    return out;
  }

 private:
  /// The tile side (largest patch side) of level l, in cells.
  int side(int l) const {
    return max_size_[std::min<std::size_t>(std::size_t(l), max_size_.size() - 1)];
  }

  /// The cells of tiles [tlo, thi] at level l, clipped to the domain.
  Box cells(int l, const IntVect& tlo, const IntVect& thi) const {
    const int t = side(l);
    Box b{tlo * t, (thi + IntVect::uniform(1)) * t - IntVect::uniform(1)};
    for (int d = 0; d < 3; ++d)
      b.hi[d] = d < dim_ ? std::min(b.hi[d], (s_.n0 << l) - 1) : 0;
    for (int d = dim_; d < 3; ++d)
      b.lo[d] = 0;
    return b;
  }

  /// Centre of b in the unit domain (0.5 across unused directions) and its half-diagonal.
  Point centre(int l, const Box& b, double& half_diag) const {
    const double h = 1.0 / double(s_.n0 << l);
    Point c{0.5, 0.5, 0.5};
    half_diag = 0;
    for (int d = 0; d < dim_; ++d) {
      c[d] = 0.5 * (b.lo[d] + b.hi[d] + 1) * h;
      const double e = 0.5 * (b.hi[d] - b.lo[d] + 1) * h;
      half_diag += e * e;
    }
    half_diag = std::sqrt(half_diag);
    return c;
  }

  void descend(int l, const IntVect& tlo, const IntVect& thi,
               std::vector<PatchMeta>& out) const {
    const Box b = cells(l, tlo, thi);
    double half_diag = 0;
    const Point c = centre(l, b, half_diag);
    const double dist = region_(l, c);
    if (dist > half_diag) return;
    if (tlo == thi) {
      // Inside through and through: every block would be marked.
      if (dist <= -half_diag)
        emit(l, b, out);
      else
        tile(l, b, out);
      return;
    }
    int d = 0;
    for (int e = 1; e < dim_; ++e)
      if (thi[e] - tlo[e] > thi[d] - tlo[d]) d = e;
    const int mid = (tlo[d] + thi[d]) / 2;
    IntVect a = thi, z = tlo;
    a[d] = mid;
    z[d] = mid + 1;
    descend(l, tlo, a, out);
    descend(l, z, thi, out);
  }

  /// Mark the blocks of tile t that meet the region, then cover them.
  void tile(int l, const Box& t, std::vector<PatchMeta>& out) const {
    IntVect nb{1, 1, 1};
    for (int d = 0; d < dim_; ++d)
      nb[d] = t.size()[d] / bf_;
    std::vector<char> marked(size_t(nb.product()), 0);
    for (int k = 0; k < nb[2]; ++k)
      for (int j = 0; j < nb[1]; ++j)
        for (int i = 0; i < nb[0]; ++i) {
          const IntVect lo = t.lo + IntVect::in_dims(dim_, bf_, 0) * IntVect{i, j, k};
          const Box blk{lo, lo + IntVect::in_dims(dim_, bf_ - 1, 0)};
          double half_diag = 0;
          const Point c = centre(l, blk, half_diag);
          // Half a diagonal of slack: a thin band still marks the blocks it crosses.
          marked[size_t((k * nb[1] + j) * nb[0] + i)] = region_(l, c) <= 0.5 * half_diag;
        }
    const Box all{{0, 0, 0}, nb - IntVect::uniform(1)};
    if (cover(l, t, nb, marked, all, true, out)) return;
    // Mostly empty: one box per half-tile quadrant (octant in 3D).
    const IntVect half = max(IntVect{1, 1, 1}, coarsen(nb, IntVect::uniform(2)));
    for (int k = 0; k < nb[2]; k += half[2])
      for (int j = 0; j < nb[1]; j += half[1])
        for (int i = 0; i < nb[0]; i += half[0]) {
          const IntVect lo{i, j, k};
          const Box q{lo, min(lo + half, nb) - IntVect::uniform(1)};
          cover(l, t, nb, marked, q, false, out);
        }
  }

  /// Emit the bounding box of the marked blocks in q (block indices of tile t); when
  /// `only_if_full`, only if that box is at least kFill marked. True when handled.
  bool cover(int l, const Box& t, const IntVect& nb, const std::vector<char>& marked,
             const Box& q, bool only_if_full, std::vector<PatchMeta>& out) const {
    Box bb;
    long count = 0;
    for (int k = q.lo[2]; k <= q.hi[2]; ++k)
      for (int j = q.lo[1]; j <= q.hi[1]; ++j)
        for (int i = q.lo[0]; i <= q.hi[0]; ++i)
          if (marked[size_t((k * nb[1] + j) * nb[0] + i)]) {
            bb = hull(bb, Box{{i, j, k}, {i, j, k}});
            ++count;
          }
    if (count == 0) return true;
    if (only_if_full && double(count) < kFill * double(bb.num_cells()) &&
        bb.num_cells() > 1)
      return false;
    const IntVect step = IntVect::in_dims(dim_, bf_, 1);
    emit(l,
         Box{t.lo + bb.lo * step,
             t.lo + (bb.hi + IntVect::uniform(1)) * step - IntVect::uniform(1)},
         out);
    return true;
  }

  void emit(int l, const Box& b, std::vector<PatchMeta>& out) const {
    PatchMeta p;
    p.box = b;
    p.level = l;
    p.owner = -1;
    p.cost = double(b.num_cells()) * double(1L << l);
    p.refinement = 1 << l;
    out.push_back(p);
  }

  Region region_;
  Scale s_;
  int dim_;
  int bf_;
  std::vector<int> max_size_;
};

std::vector<PatchMeta> generate(const WorkloadSpec& spec, const Scale& s) {
  Region region = spec.kind == "clustered" ? clustered(spec, s)
                  : spec.kind == "plane"   ? plane(spec, s)
                                           : bubble(spec, s);
  return Generator(region, s, spec.dim, spec.blocking_factor,
                   spec.max_size.empty() ? default_max_size(spec.kind) : spec.max_size)
      .run();
}

/// Distance of a count from the target, on a log scale.
double miss(std::size_t count, int target) {
  return std::abs(std::log(double(std::max<std::size_t>(count, 1)) / double(target)));
}

}  // namespace

const std::vector<std::string>& workload_kinds() {
  static const std::vector<std::string> kinds = {"clustered", "plane", "bubble"};
  return kinds;
}

std::vector<int> default_max_size(const std::string& kind) {
  if (kind == "clustered") return {112, 64, 32, 16};
  return {32};
}

PatchList make_workload(const WorkloadSpec& spec) {
  const auto& kinds = workload_kinds();
  if (std::find(kinds.begin(), kinds.end(), spec.kind) == kinds.end())
    throw UserError("workload: unknown '" + spec.kind +
                    "'; known: clustered, plane, bubble");
  if (spec.dim != 2 && spec.dim != 3) throw UserError("dim: expected 2 or 3");
  if (spec.blocking_factor != 4 && spec.blocking_factor != 8 &&
      spec.blocking_factor != 16)
    throw UserError("blocking factor: expected 4, 8 or 16");
  if (spec.count < 1) throw UserError("patch count: expected a positive number");
  for (int m : spec.max_size)
    if (m < spec.blocking_factor || m > 1024 || m % spec.blocking_factor != 0)
      throw UserError("max patch size: expected multiples of the blocking factor (" +
                      std::to_string(spec.blocking_factor) + ") up to 1024, got " +
                      std::to_string(m));

  // Three knobs, coarse to fine: the number of levels (the fewest that reach the count
  // with the largest level-0 domain), the level-0 domain in [n_min, 2 n_min] (bisected on
  // multiples of the blocking factor), then the region size (bisected on a log scale).
  // Level 0 stays a minority (27-216 patches in 3D, 16-64 in 2D). Counts are discrete,
  // so the best try wins.
  const int bf = spec.blocking_factor, n_min = spec.dim == 3 ? 96 : 128;
  Scale s, best_scale;
  s.n0 = 2 * n_min;
  std::vector<PatchMeta> best;
  auto consider = [&](std::vector<PatchMeta>&& v) {
    if (best.empty() || miss(v.size(), spec.count) < miss(best.size(), spec.count)) {
      best = std::move(v);
      best_scale = s;
    }
    return miss(best.size(), spec.count) < 0.03;
  };
  bool done = false;
  for (s.levels = 1; !done; ++s.levels) {
    auto v = generate(spec, s);
    const bool enough = int(v.size()) >= spec.count;
    done = consider(std::move(v));
    if (enough || s.levels == 12) break;
  }
  for (int lo = n_min / bf, hi = 2 * n_min / bf; !done && hi - lo > 1;) {
    const int mid = (lo + hi) / 2;
    s.n0 = mid * bf;
    auto v = generate(spec, s);
    (int(v.size()) > spec.count ? hi : lo) = mid;
    done = consider(std::move(v));
  }
  s = best_scale;
  for (double lo = std::log(0.6), hi = std::log(1.6), it = 0; !done && it < 6; ++it) {
    s.lambda = std::exp(0.5 * (lo + hi));
    auto v = generate(spec, s);
    (int(v.size()) > spec.count ? hi : lo) = std::log(s.lambda);
    done = consider(std::move(v));
  }
  PatchList list;
  list.dim = spec.dim;
  list.refinement = 2;
  list.patches = std::move(best);
  return list;
}

}  // namespace pw
