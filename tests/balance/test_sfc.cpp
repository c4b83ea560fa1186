// Uintah's SFC balancer: Hilbert and Morton orders of small grids, one curve frame for
// all levels, and the threshold search of Fig. 4 against its literal transcription, the
// greedy prefix cut and brute force over all contiguous partitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <utility>

#include "balance/sfc.hpp"
#include "balance/sfc_curve.hpp"
#include "balance/sim_comm.hpp"

using namespace pw;

namespace {

using Cell = std::pair<int, int>;

std::vector<Cell> hilbert_order_2d(int n, int bits) {
  std::vector<std::pair<std::uint64_t, Cell>> keyed;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      keyed.push_back({hilbert_key(x, y, bits), {x, y}});
  std::sort(keyed.begin(), keyed.end());
  std::vector<Cell> order;
  for (const auto& [key, cell] : keyed)
    order.push_back(cell);
  return order;
}

/// Skilling's AxestoTranspose ("Programming the Hilbert curve", 2004) as printed, then
/// the transposed index read across the axes bit by bit: what hilbert_key computes.
template <int N>
std::uint64_t skilling_key(std::uint32_t (&x)[N], int bits) {
  const std::uint32_t m = std::uint32_t(1) << (bits - 1);
  for (std::uint32_t q = m; q > 1; q >>= 1) {
    const std::uint32_t p = q - 1;
    for (int i = 0; i < N; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const std::uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (int i = 1; i < N; ++i)
    x[i] ^= x[i - 1];
  std::uint32_t t = 0;
  for (std::uint32_t q = m; q > 1; q >>= 1)
    if (x[N - 1] & q) t ^= q - 1;
  for (int i = 0; i < N; ++i)
    x[i] ^= t;
  std::uint64_t key = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int i = 0; i < N; ++i)
      key = (key << 1) | ((x[i] >> b) & 1u);
  return key;
}

/// Fig. 4's inner loop, patch by patch, as printed (uniform speeds).
CurveCut literal_fig4(const std::vector<double>& w, int p, double my_max_weight) {
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  double remaining = total, remaining_average = total / p, current = 0;
  int proc = 0;
  CurveCut cut;
  cut.begin.assign(p + 1, int(w.size()));
  cut.begin[0] = 0;
  for (int i = 0; i < int(w.size()); ++i) {
    const double take = current + w[i];
    if (std::abs(take - remaining_average) < std::abs(current - remaining_average) &&
        take < my_max_weight) {
      current = take;
    } else {
      ++proc;
      remaining -= current;
      remaining_average = remaining / (p - proc);
      if (proc < p) cut.begin[proc] = i;
      current = w[i];
    }
  }
  cut.valid = proc < p;
  if (cut.valid) {
    cut.max_load = 0;
    for (int k = 0; k < p; ++k)
      cut.max_load = std::max(
          cut.max_load,
          std::accumulate(w.begin() + cut.begin[k], w.begin() + cut.begin[k + 1], 0.0));
  }
  return cut;
}

/// The best bottleneck over all ways to cut w into p contiguous (possibly empty) pieces.
double brute_force_bottleneck(const std::vector<double>& w, const std::vector<double>& s,
                              int from = 0, int k = 0) {
  const int n = int(w.size()), p = int(s.size());
  if (k == p - 1) return std::accumulate(w.begin() + from, w.end(), 0.0) / s[k];
  double best = 1e300, piece = 0;
  for (int end = from; end <= n; ++end) {
    best =
        std::min(best, std::max(piece / s[k], brute_force_bottleneck(w, s, end, k + 1)));
    if (end < n) piece += w[end];
  }
  return best;
}

std::vector<double> random_weights(std::mt19937& rng, int n, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<double> w(n);
  for (double& x : w)
    x = dist(rng);
  return w;
}

void expect_contiguous(const CurveCut& cut, int n, int p) {
  ASSERT_EQ(int(cut.begin.size()), p + 1);
  EXPECT_EQ(cut.begin.front(), 0);
  EXPECT_EQ(cut.begin.back(), n);
  for (int k = 0; k < p; ++k)
    EXPECT_LE(cut.begin[k], cut.begin[k + 1]);
}

/// Fig. 4's search for all ranks written plainly, as distribute_curve documents it: from
/// maxWeight = the whole load on the slowest rank, every round runs every rank's whole
/// pass (no pruning, nothing reused) and the min-reduction picks the next best, until no
/// rank improves; then the greedy cut where it is better, or no pass was ever valid.
CurveCut plain_search(const std::vector<double>& w, const std::vector<double>& s,
                      int& rounds) {
  const int p = int(s.size());
  double total = 0, speed = 0;
  for (double x : w)
    total += x;
  for (int k = p - 1; k >= 0; --k)
    speed += s[k];
  const double average = total / speed;
  CurveCut best;
  best.max_load = total / *std::min_element(s.begin(), s.end());
  for (rounds = 1;; ++rounds) {
    const double max_weight = best.max_load;
    std::vector<double> local(p);
    for (int r = 0; r < p; ++r) {
      const CurveCut c = threshold_cut(w, s, average + (max_weight - average) * r / p);
      local[r] = c.valid ? c.max_load : std::numeric_limits<double>::infinity();
    }
    const RankMin m = allreduce_minloc(local);
    if (!(m.value < max_weight)) {
      const CurveCut greedy = greedy_prefix_cut(w, s);
      return best.valid && best.max_load <= greedy.max_load ? best : greedy;
    }
    best = threshold_cut(w, s, average + (max_weight - average) * m.rank / p);
  }
}

/// Patches on a 2D grid of 8-cell boxes, with costs.
std::vector<PatchMeta> grid_patches(int side, const std::vector<double>& costs) {
  std::vector<PatchMeta> v;
  for (int j = 0; j < side; ++j)
    for (int i = 0; i < side; ++i) {
      PatchMeta m;
      m.box = Box{{8 * i, 8 * j, 0}, {8 * i + 7, 8 * j + 7, 0}};
      m.cost = costs[v.size() % costs.size()];
      v.push_back(m);
    }
  return v;
}

}  // namespace

TEST(SfcCurve, HilbertVisitsA2x2GridAsAU) {
  EXPECT_EQ(hilbert_order_2d(2, 1), (std::vector<Cell>{{0, 0}, {1, 0}, {1, 1}, {0, 1}}));
}

TEST(SfcCurve, HilbertOrderOfA4x4GridStepsBetweenFaceNeighbours) {
  const auto order = hilbert_order_2d(4, 2);
  EXPECT_EQ(order, (std::vector<Cell>{{0, 0},
                                      {0, 1},
                                      {1, 1},
                                      {1, 0},
                                      {2, 0},
                                      {3, 0},
                                      {3, 1},
                                      {2, 1},
                                      {2, 2},
                                      {3, 2},
                                      {3, 3},
                                      {2, 3},
                                      {1, 3},
                                      {1, 2},
                                      {0, 2},
                                      {0, 3}}));
  for (std::size_t i = 1; i < order.size(); ++i)
    EXPECT_EQ(std::abs(order[i].first - order[i - 1].first) +
                  std::abs(order[i].second - order[i - 1].second),
              1)
        << "step " << i;
}

TEST(SfcCurve, Hilbert3DKeysAreAPathOfFaceNeighbours) {
  std::vector<std::pair<std::uint64_t, std::array<int, 3>>> keyed;
  for (int z = 0; z < 8; ++z)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x)
        keyed.push_back({hilbert_key(x, y, z, 3), {x, y, z}});
  std::sort(keyed.begin(), keyed.end());
  for (std::size_t i = 0; i < keyed.size(); ++i) {
    EXPECT_EQ(keyed[i].first, i);  // a bijection onto 0..511
    if (i == 0) continue;
    int steps = 0;
    for (int d = 0; d < 3; ++d)
      steps += std::abs(keyed[i].second[d] - keyed[i - 1].second[d]);
    EXPECT_EQ(steps, 1) << "step " << i;
  }
}

TEST(SfcCurve, MortonVisitsA2x2GridAsAZ) {
  EXPECT_EQ(morton_key(0, 0, 1), 0u);
  EXPECT_EQ(morton_key(1, 0, 1), 1u);
  EXPECT_EQ(morton_key(0, 1, 1), 2u);
  EXPECT_EQ(morton_key(1, 1, 1), 3u);
  EXPECT_EQ(morton_key(1, 1, 1, 1), 7u);
}

TEST(SfcCurve, KeysAreSkillingsAndInterleavedBitsOnRandomCells) {
  std::mt19937_64 rng(23);
  for (int bits = 1; bits <= kSfcMaxBits2; ++bits) {
    const std::uint64_t side = std::uint64_t(1) << bits;
    for (int trial = 0; trial < 200; ++trial) {
      const auto x = std::uint32_t(rng() % side), y = std::uint32_t(rng() % side),
                 z = std::uint32_t(rng() % side);
      std::uint32_t c2[2] = {y, x};
      EXPECT_EQ(hilbert_key(x, y, bits), skilling_key(c2, bits)) << bits;
      std::uint64_t morton2 = 0;
      for (int b = bits - 1; b >= 0; --b)
        morton2 = (morton2 << 2) | ((y >> b) & 1u) << 1 | ((x >> b) & 1u);
      EXPECT_EQ(morton_key(x, y, bits), morton2) << bits;
      if (bits > kSfcMaxBits3) continue;
      std::uint32_t c3[3] = {z, y, x};
      EXPECT_EQ(hilbert_key(x, y, z, bits), skilling_key(c3, bits)) << bits;
      std::uint64_t morton3 = 0;
      for (int b = bits - 1; b >= 0; --b)
        morton3 = (morton3 << 3) | ((z >> b) & 1u) << 2 | ((y >> b) & 1u) << 1 |
                  ((x >> b) & 1u);
      EXPECT_EQ(morton_key(x, y, z, bits), morton3) << bits;
    }
  }
}

TEST(SfcCurve, ManyKeysAtOnceAreTheKeysOneByOne) {
  std::mt19937 rng(31);
  for (int dim : {2, 3})
    for (int bits : {1, 5, 21}) {
      const int n = 37;  // not a whole number of the batches
      std::vector<std::uint32_t> cells(3 * n);
      for (auto& c : cells)
        c = std::uint32_t(rng() % (std::uint64_t(1) << bits));
      std::vector<std::uint64_t> keys(n);
      hilbert_keys(cells.data(), n, dim, bits, keys.data());
      for (int k = 0; k < n; ++k) {
        const std::uint32_t* c = &cells[3 * k];
        EXPECT_EQ(keys[k], dim == 3 ? hilbert_key(c[0], c[1], c[2], bits)
                                    : hilbert_key(c[0], c[1], bits))
            << dim << "D, " << bits << " bits, cell " << k;
      }
    }
}

TEST(SimComm, MinLocTakesTheLowestRankOnTies) {
  const RankMin m = allreduce_minloc({5.0, 2.0, 7.0, 2.0});
  EXPECT_EQ(m.value, 2.0);
  EXPECT_EQ(m.rank, 1);
}

TEST(Sfc, ThresholdPassMatchesTheLiteralFigure4Loop) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + int(rng() % 40), p = 1 + int(rng() % 6);
    const auto w = random_weights(rng, n, 1, 20);
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    const double threshold = total / p + (total - total / p) * double(rng() % 8) / 8;
    const CurveCut mine = threshold_cut(w, std::vector<double>(p, 1.0), threshold);
    const CurveCut paper = literal_fig4(w, p, threshold);
    ASSERT_EQ(mine.valid, paper.valid) << "trial " << trial;
    if (!paper.valid) continue;
    EXPECT_EQ(mine.begin, paper.begin) << "trial " << trial;
    EXPECT_EQ(mine.max_load, paper.max_load) << "trial " << trial;
  }
}

TEST(Sfc, SearchAndMinReductionStopAtABruteForceCheckedBottleneck) {
  // Fig. 4 by hand on 3 ranks: each round every rank's threshold pass is run, the
  // min-reduction gives the next maxWeight; the result is what distribute_curve returns
  // and here the best over all contiguous partitions.
  const std::vector<double> w = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  const std::vector<double> speed(3, 1.0);
  const double average = 39.0 / 3;
  double max_weight = 39.0;  // maxWeight = totalWeight
  int rounds = 0;
  while (true) {
    ++rounds;
    std::vector<double> local;
    for (int r = 0; r < 3; ++r) {
      const CurveCut c =
          threshold_cut(w, speed, average + (max_weight - average) * r / 3);
      if (c.valid) expect_contiguous(c, int(w.size()), 3);
      local.push_back(c.valid ? c.max_load : 1e300);
    }
    const RankMin m = allreduce_minloc(local);
    if (!(m.value < max_weight)) break;
    max_weight = m.value;
  }
  int sfc_rounds = 0;
  const CurveCut cut = distribute_curve(w, speed, &sfc_rounds);
  EXPECT_EQ(cut.max_load, max_weight);
  EXPECT_EQ(sfc_rounds, rounds);
  EXPECT_EQ(cut.max_load, brute_force_bottleneck(w, speed));
  EXPECT_EQ(cut.max_load, 14.0);  // 3 1 4 1 | 5 9 | 2 6 5 3
}

TEST(Sfc, SearchEqualsThePlainSearchOnRandomCurves) {
  // The search prunes and reuses passes; its rounds and cut must be the plain ones, on
  // curves long enough for many rounds and rank counts that are not powers of two.
  std::mt19937 rng(17);
  int several_rounds = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int p = 1 + int(rng() % 70), n = int(rng() % (12 * p + 2));
    std::vector<double> w(n);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (double& x : w) {
      switch (trial % 4) {
        case 0:
          x = double(rng() % 21);
          break;  // small integers, zeros
        case 1:
          x = unit(rng);
          break;  // reals
        case 2:
          x = 512.0 * (1 << (rng() % 10));
          break;  // few sizes, some huge
        default:
          x = unit(rng) < 0.1 ? 50 * unit(rng) : unit(rng);  // rare heavy ones
      }
    }
    std::vector<double> speed(p, 1.0);
    if (trial % 3 == 1)
      for (double& s : speed)
        s = 0.5 + 0.5 * double(rng() % 4);
    if (trial % 3 == 2)
      for (double& s : speed)
        s = 0.3 + unit(rng);
    int plain_rounds = 0, rounds = 0;
    const CurveCut plain = plain_search(w, speed, plain_rounds);
    const CurveCut cut = distribute_curve(w, speed, &rounds);
    ASSERT_TRUE(cut.valid) << "trial " << trial;
    EXPECT_EQ(cut.begin, plain.begin) << "trial " << trial;
    EXPECT_EQ(cut.max_load, plain.max_load) << "trial " << trial;
    EXPECT_EQ(rounds, plain_rounds) << "trial " << trial;
    several_rounds += plain_rounds > 1;
  }
  // The cases exercise the search, not just the greedy cut.
  EXPECT_GT(several_rounds, 200) << several_rounds;
}

TEST(Sfc, ReachesTheOptimumWhereTheGreedyCutDoesNot) {
  // Greedy passes the halfway mark only after the 4: all on rank 0 (6); the best is 4.
  const std::vector<double> w = {1, 1, 4};
  const std::vector<double> speed(2, 1.0);
  EXPECT_EQ(greedy_prefix_cut(w, speed).max_load, 6.0);
  const CurveCut cut = distribute_curve(w, speed);
  EXPECT_EQ(cut.max_load, 4.0);
  EXPECT_EQ(cut.begin, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(brute_force_bottleneck(w, speed), 4.0);
}

TEST(Sfc, NeverWorseThanTheGreedyCutNorBetterThanBruteForce) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + int(rng() % 9), p = 1 + int(rng() % 4);
    const auto w = random_weights(rng, n, 0, 30);
    std::vector<double> speed(p);
    for (double& s : speed)
      s = 0.5 + 0.5 * double(rng() % 4);
    const CurveCut cut = distribute_curve(w, speed);
    ASSERT_TRUE(cut.valid);
    expect_contiguous(cut, n, p);
    double worst = 0;
    for (int k = 0; k < p; ++k)
      worst = std::max(worst, std::accumulate(w.begin() + cut.begin[k],
                                              w.begin() + cut.begin[k + 1], 0.0) /
                                  speed[k]);
    EXPECT_EQ(cut.max_load, worst);
    EXPECT_LE(cut.max_load, greedy_prefix_cut(w, speed).max_load) << "trial " << trial;
    EXPECT_GE(cut.max_load, brute_force_bottleneck(w, speed) * (1 - 1e-12));
  }
}

TEST(Sfc, RanksOwnContiguousCurveSegmentsInRankOrder) {
  std::mt19937 rng(5);
  const auto patches = grid_patches(16, random_weights(rng, 256, 1, 100));
  const Plan plan = Sfc().plan(patches, RankInfo::uniform(7));
  const auto order = sfc_order(patches, SfcCurve::hilbert);
  ASSERT_EQ(plan.owner.size(), patches.size());
  for (std::size_t i = 0; i < patches.size(); ++i) {
    EXPECT_EQ(plan.source[i], int(i));
    EXPECT_EQ(plan.boxes[i], patches[i].box);
  }
  EXPECT_EQ(plan.owner[order.front()], 0);
  EXPECT_EQ(plan.owner[order.back()], 6);
  for (std::size_t i = 1; i < order.size(); ++i)
    EXPECT_LE(plan.owner[order[i - 1]], plan.owner[order[i]]);
}

TEST(Sfc, FasterRanksTakeProportionallyMore) {
  const auto patches = grid_patches(15, {1.0});  // 225 patches
  RankInfo ranks = RankInfo::uniform(2);
  ranks.speed = {2.0, 1.0};
  const Plan plan = Sfc().plan(patches, ranks);
  const long on_fast = std::count(plan.owner.begin(), plan.owner.end(), 0);
  EXPECT_EQ(on_fast, 150);
}

TEST(Sfc, SameInputGivesTheSamePlan) {
  std::mt19937 rng(9);
  const auto patches = grid_patches(32, random_weights(rng, 1024, 1, 1000));
  for (SfcCurve curve : {SfcCurve::hilbert, SfcCurve::morton}) {
    const Plan a = Sfc(curve).plan(patches, RankInfo::uniform(37));
    const Plan b = Sfc(curve).plan(patches, RankInfo::uniform(37));
    EXPECT_EQ(a.owner, b.owner);
  }
}

namespace {

/// The level-1 patch (ratio 2) covering the same region as 2D level-0 patch m.
PatchMeta level1_twin(const PatchMeta& m) {
  PatchMeta fine = m;
  fine.box = refine(m.box, IntVect::uniform(2));
  fine.box.hi[2] = 0;
  fine.level = 1;
  fine.refinement = 2;
  return fine;
}

}  // namespace

TEST(Sfc, PatchesOfAllLevelsAreOrderedInOneFrame) {
  // Each level-0 patch has a level-1 twin covering the same region (refinement 2): the
  // twins share a centroid, so each follows its level-0 patch directly on the curve.
  auto patches = grid_patches(4, {1.0});
  const int coarse = int(patches.size());
  for (int i = 0; i < coarse; ++i)
    patches.push_back(level1_twin(patches[i]));
  const auto order = sfc_order(patches, SfcCurve::hilbert);
  ASSERT_EQ(int(order.size()), 2 * coarse);
  for (int pos = 0; pos < 2 * coarse; pos += 2) {
    EXPECT_LT(order[pos], coarse);
    EXPECT_EQ(order[pos + 1], order[pos] + coarse);
  }
  // And the level-0 patches alone keep the 4x4 Hilbert order.
  std::vector<Cell> cells;
  for (int pos = 0; pos < 2 * coarse; pos += 2)
    cells.push_back(
        {patches[order[pos]].box.lo[0] / 8, patches[order[pos]].box.lo[1] / 8});
  EXPECT_EQ(cells, hilbert_order_2d(4, 2));
}

TEST(Sfc, EqualKeysBreakByLevelWhateverTheInputOrder) {
  // The level-1 twins (same centroids) listed first: each still follows its level-0
  // patch.
  const auto coarse = grid_patches(4, {1.0});
  std::vector<PatchMeta> patches;
  for (const PatchMeta& m : coarse)
    patches.push_back(level1_twin(m));
  const int n = int(coarse.size());
  patches.insert(patches.end(), coarse.begin(), coarse.end());
  const auto order = sfc_order(patches, SfcCurve::hilbert);
  ASSERT_EQ(int(order.size()), 2 * n);
  for (int pos = 0; pos < 2 * n; pos += 2) {
    EXPECT_GE(order[pos], n);  // level 0
    EXPECT_EQ(order[pos + 1], order[pos] - n);
  }
}

TEST(Sfc, DeckChoosesTheCurveAndRejectsUnknownOnes) {
  const SplitRules rules;
  EXPECT_EQ(make_balancer(Deck::parse("[balance]\nmethod = \"sfc\"\n", "t.toml"), rules)
                ->name(),
            "sfc");
  EXPECT_NO_THROW(Sfc::from_deck(
      Deck::parse("[balance.sfc]\ncurve = \"morton\"\n", "t.toml"), rules));
  EXPECT_THROW(
      Sfc::from_deck(Deck::parse("[balance.sfc]\ncurve = \"peano\"\n", "t.toml"), rules),
      UserError);
}

TEST(Sfc, PerLevelGivesEveryLevelToAllRanks) {
  auto patches = grid_patches(8, {1.0});
  const int coarse = int(patches.size());
  for (int i = 0; i < coarse; ++i)
    patches.push_back(level1_twin(patches[i]));
  const Plan plan = Sfc(SfcCurve::hilbert, true).plan(patches, RankInfo::uniform(4));
  for (int level = 0; level < 2; ++level)
    for (int r = 0; r < 4; ++r)
      EXPECT_EQ(std::count(plan.owner.begin() + level * coarse,
                           plan.owner.begin() + (level + 1) * coarse, r),
                coarse / 4);
}
