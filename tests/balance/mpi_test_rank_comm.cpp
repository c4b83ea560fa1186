// The parallel balancers on MPI (each rank does its own part) give exactly the plans of
// the simulated communicator (every rank's part in one process), at 1, 2 and 4 ranks and
// on 3 of 4 (a hypercube with a virtual position).
#include <gtest/gtest.h>

#include <random>

#include "amr/comm.hpp"
#include "balance/mlb.hpp"
#include "balance/mpi_rank_comm.hpp"
#include "balance/sfc.hpp"
#include "balance/sim_comm.hpp"

using namespace pw;

namespace {

/// Random 3D patches on two levels with costs in [1, max_cost] (integer ones when
/// `whole`), owners in [0, p) and every 5th one new (-1).
std::vector<PatchMeta> random_patches(int n, int p, double max_cost, bool whole,
                                      unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pos(0, 63), own(0, p - 1), lev(0, 1);
  std::uniform_real_distribution<double> c(1.0, max_cost);
  std::vector<PatchMeta> v;
  for (int i = 0; i < n; ++i) {
    const int l = lev(rng);
    const IntVect lo{pos(rng) * 8, pos(rng) * 8, pos(rng) * 8};
    const double cost = whole ? double(int(c(rng))) : c(rng);
    v.push_back(
        {Box{lo, lo + IntVect::uniform(7)}, l, i % 5 == 0 ? -1 : own(rng), cost, 1 << l});
  }
  return v;
}

/// Patch sets for p ranks: random ones of several sizes and cost spreads, all on one
/// rank, and one patch only.
std::vector<std::vector<PatchMeta>> patch_sets(int p) {
  std::vector<std::vector<PatchMeta>> sets;
  for (unsigned seed : {1u, 2u, 3u}) {
    sets.push_back(random_patches(40 * p, p, 100.0, false, seed));
    sets.push_back(random_patches(7 * p + 3, p, 10.0, true, seed + 10));
  }
  std::vector<PatchMeta> one_rank = random_patches(30, p, 50.0, false, 99);
  for (PatchMeta& m : one_rank)
    m.owner = p - 1;
  sets.push_back(one_rank);
  sets.push_back(random_patches(1, p, 5.0, false, 7));
  return sets;
}

std::vector<RankInfo> rank_infos(int p) {
  RankInfo slow_first = RankInfo::uniform(p);
  for (int r = 0; r < p; ++r)
    slow_first.speed[r] = 1.0 + 0.5 * r;
  return {RankInfo::uniform(p), slow_first};
}

void expect_same_plan(const Plan& mpi, const Plan& sim, const std::string& what) {
  EXPECT_EQ(mpi.owner, sim.owner) << what;
  EXPECT_EQ(mpi.source, sim.source) << what;
  ASSERT_EQ(mpi.schedule.size(), sim.schedule.size()) << what;
  for (size_t i = 0; i < mpi.schedule.size(); ++i) {
    const Transfer &a = mpi.schedule[i], &b = sim.schedule[i];
    EXPECT_EQ(std::make_tuple(a.step, a.from, a.to, a.patch),
              std::make_tuple(b.step, b.from, b.to, b.patch))
        << what << ", hop " << i;
  }
}

/// Every check on the ranks of `comm`, with p = its size.
void check_balancers_on(MPI_Comm comm) {
  const MpiRankComm mpi(comm);
  const int p = Comm(comm).size();
  const std::vector<std::unique_ptr<Balancer>> balancers = [] {
    std::vector<std::unique_ptr<Balancer>> b;
    b.push_back(std::make_unique<Sfc>());
    b.push_back(std::make_unique<Sfc>(SfcCurve::morton, true));
    b.push_back(std::make_unique<Mlb>());
    return b;
  }();
  int set = 0;
  for (const std::vector<PatchMeta>& patches : patch_sets(p)) {
    int info = 0;
    for (RankInfo ranks : rank_infos(p)) {
      for (const auto& balancer : balancers) {
        ranks.comm = nullptr;
        const Plan sim = balancer->plan(patches, ranks);
        ranks.comm = &mpi;
        const Plan real = balancer->plan(patches, ranks);
        expect_same_plan(real, sim,
                         balancer->name() + " p=" + std::to_string(p) + " set " +
                             std::to_string(set) + " ranks " + std::to_string(info));
      }
      ++info;
    }
    ++set;
  }
}

}  // namespace

TEST(RankComm, MpiPlansEqualSimulatedOnes) {
  check_balancers_on(MPI_COMM_WORLD);
}

TEST(RankComm, MpiPlansEqualSimulatedOnesOnThreeRanks) {
  // 3 of 4 ranks: MLB's hypercube then has a virtual position played by a real rank.
  const Comm world;
  if (world.size() != 4) GTEST_SKIP() << "needs 4 ranks";
  MPI_Comm sub;
  MPI_Comm_split(world.raw(), world.rank() < 3 ? 0 : 1, world.rank(), &sub);
  check_balancers_on(sub);
  MPI_Comm_free(&sub);
}

TEST(RankComm, CurveSearchRoundsAndCutsMatch) {
  const Comm world;
  const MpiRankComm mpi(world.raw());
  const int p = world.size();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> w(0.0, 10.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> weights(size_t(10 + 13 * trial));
    for (double& x : weights)
      x = trial % 3 == 0 ? double(int(w(rng))) : w(rng);  // zero weights too
    const std::vector<double> speed(size_t(p), 1.0);
    int sim_rounds = 0, mpi_rounds = 0;
    const CurveCut sim = distribute_curve(weights, speed, &sim_rounds);
    const CurveCut real = distribute_curve(weights, speed, &mpi_rounds, &mpi);
    EXPECT_EQ(real.begin, sim.begin) << "trial " << trial;
    EXPECT_EQ(real.max_load, sim.max_load) << "trial " << trial;
    EXPECT_EQ(mpi_rounds, sim_rounds) << "trial " << trial;
  }
}

TEST(RankComm, MinlocAndGatherAgreeWithTheSimulatedCommunicator) {
  const Comm world;
  const MpiRankComm mpi(world.raw());
  const SimRankComm sim;
  const int p = world.size();
  // Ties go to the lowest rank: odd ranks hold the minimum.
  auto value = [p](int r, double) { return p > 1 && r % 2 == 1 ? 1.0 : 2.0 + r; };
  const RankMin a = mpi.allreduce_minloc(p, value), b = sim.allreduce_minloc(p, value);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.rank, p > 1 ? 1 : 0);
  auto data = [](int r) { return std::vector<int>(size_t(r + 1), r); };
  EXPECT_EQ(mpi.all_gather(p, data), sim.all_gather(p, data));
  EXPECT_EQ(mpi.broadcast(p, p - 1, [&] { return data(p - 1); }), data(p - 1));
  EXPECT_THROW(mpi.all_gather(p + 1, data), std::logic_error);
}

TEST(RankComm, ExchangeDeliversLettersBetweenPlacesOfAnyRank) {
  // Two places per rank (2r, 2r + 1); place q pairs with the mirror place 2p - 1 - q,
  // on another rank or on the same one.
  const Comm world;
  const MpiRankComm mpi(world.raw());
  const int p = world.size(), me = world.rank();
  auto host = [](int q) { return q / 2; };
  std::vector<Letter> out;
  for (int q : {2 * me, 2 * me + 1})
    out.push_back({q, 2 * p - 1 - q, std::vector<double>(size_t(q), double(q))});
  const std::vector<Letter> in = mpi.exchange(p, host, out);
  ASSERT_EQ(in.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const int q = 2 * me + int(i), from = 2 * p - 1 - q;
    EXPECT_EQ(in[i].to, q);
    EXPECT_EQ(in[i].from, from);
    EXPECT_EQ(in[i].body, std::vector<double>(size_t(from), double(from)));
  }
}
