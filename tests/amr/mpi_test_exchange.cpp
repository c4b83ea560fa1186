// Communication at 1, 2 and 4 ranks: the ghost exchange reproduces a global function
// (periodic images included), also when it copies the time blend of two states and when
// one plan serves different fabs in turn, tags with a scale scale what they copy, the
// pack and the on-rank copies share a launch unless a copy writes cells being sent, and
// refluxing applies the fine-minus-coarse flux difference whatever rank owns the fine
// and the coarse patches, on the coarse cells the fine level does not cover only, class
// of faces by class, in one launch that reads the sums where they are.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "amr/flux_register.hpp"
#include "amr/launch_counter.hpp"
#include "amr/parallel_copy.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;
using pw::testing::HostFab;
using pw::testing::round_robin;
using pw::testing::wrap;

namespace {

/// A periodic level of 16 cells a side cut into patches of 8 dealt round robin, the
/// ghost regions (2 cells) of its patches, and a global function of (wrapped) cell and
/// component.
struct PeriodicLevel {
  int dim, n = 16;
  Box domain;
  IntVect g;
  LevelLayout L;
  std::vector<BoxList> ghosts;

  PeriodicLevel(int d, const Comm& comm)
      : dim(d),
        domain{{0, 0, 0}, {n - 1, n - 1, d == 3 ? n - 1 : 0}},
        g(IntVect::in_dims(d, 2, 0)),
        L(round_robin(chop(domain, IntVect::in_dims(d, 8, 1), IntVect::in_dims(d, 4, 1)),
                      comm.size())),
        ghosts(L.size()) {
    for (size_t p = 0; p < L.size(); ++p)
      ghosts[p] = difference(grow(L.boxes[p], g), L.boxes[p]);
  }
  double f(int i, int j, int k, int c) const {
    return 1000.0 * c + 100.0 * wrap(i, n) + 10.0 * wrap(j, n) +
           (dim == 3 ? wrap(k, n) : 0);
  }
  /// The plan that fills the ghost regions, through periodic images.
  CopyPlan ghost_plan(const Comm& comm) const {
    const bool periodic[3] = {true, true, dim == 3};
    return CopyPlan::intersecting(L, ghosts, L.owner, periodic_shifts(domain, periodic),
                                  comm.rank());
  }
};

/// The ghost exchange of a periodic level: every ghost cell holds the global function f
/// of the cell it images, bit for bit, whether it was copied on-rank or packed by another
/// rank. `blended`: the copy reads the time blend (1 - w) f + w h of two states into
/// separate fabs, whose interiors stay untouched (and states of different shapes are
/// refused).
void check_ghost_exchange(int dim, bool blended) {
  const Comm comm;
  const PeriodicLevel lev(dim, comm);
  const int n = lev.n;
  const IntVect g = lev.g;
  const LevelLayout& L = lev.L;
  auto f = [&](int i, int j, int k, int c) { return lev.f(i, j, k, c); };
  auto h = [&](int i, int j, int k, int c) {
    return 0.1 * f(i, j, k, c) - 3.0 * wrap(j, n) + 0.01 * (dim == 3 ? wrap(k, n) : 0);
  };
  const double w = 0.3;
  std::vector<Fab> fabs(L.size()), second(L.size()), dst(L.size());
  for (size_t p = 0; p < L.size(); ++p) {
    if (L.owner[p] != comm.rank()) continue;
    fabs[p] = Fab("u", grow(L.boxes[p], g), 2);
    pw::testing::set(fabs[p], [](int, int, int, int) { return -1.0; });
    pw::testing::set(fabs[p], f, L.boxes[p]);
    if (!blended) continue;
    second[p] = Fab("h", grow(L.boxes[p], g), 2);
    pw::testing::set(second[p], h, L.boxes[p]);
    dst[p] = Fab("dst", grow(L.boxes[p], g), 2);
    pw::testing::set(dst[p], [](int, int, int, int) { return -1.0; });
  }
  CopyPlan plan = lev.ghost_plan(comm);
  if (blended) {
    // Two states of different shapes are refused before any message is posted.
    std::vector<Fab> other = second;
    for (size_t p = 0; p < L.size(); ++p)
      if (L.owner[p] == comm.rank()) other[p] = Fab("h", grow(L.boxes[p], g + g), 2);
    EXPECT_THROW(plan.copy(CopyPlan::Blend{fabs, other, w}, dst, comm), std::logic_error);
    plan.copy(CopyPlan::Blend{fabs, second, w}, dst, comm);
  } else {
    plan.copy(fabs, fabs, comm);
  }
  for (size_t p = 0; p < L.size(); ++p) {
    if (L.owner[p] != comm.rank()) continue;
    HostFab got(blended ? dst[p] : fabs[p]);
    const Box b = fabs[p].box;
    for (int c = 0; c < 2; ++c)
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
            const bool ghost = !L.boxes[p].contains(IntVect{i, j, k});
            const double want = !blended ? f(i, j, k, c)
                                : ghost  ? (1.0 - w) * f(i, j, k, c) + w * h(i, j, k, c)
                                         : -1.0;
            ASSERT_EQ(got(i, j, k, c), want) << "cell " << i << "," << j << "," << k;
          }
  }
}

/// One plan serving different fabs in turn, as a level's exchange serves its two
/// states: each exchange reads and writes the fabs it is given (the plan's tables of
/// them are refilled each time), and a blend's weight does not stay for the next one.
void check_plan_reuse(int dim) {
  const Comm comm;
  const PeriodicLevel lev(dim, comm);
  const LevelLayout& L = lev.L;
  auto f = [&](int i, int j, int k, int c) { return lev.f(i, j, k, c); };
  auto scaled = [&](double s) {
    return [=](int i, int j, int k, int c) { return s * lev.f(i, j, k, c); };
  };
  std::vector<Fab> a(L.size()), b(L.size());
  for (size_t p = 0; p < L.size(); ++p) {
    if (L.owner[p] != comm.rank()) continue;
    a[p] = Fab("a", grow(L.boxes[p], lev.g), 2);
    b[p] = Fab("b", grow(L.boxes[p], lev.g), 2);
    pw::testing::set(a[p], scaled(1.0), L.boxes[p]);
    pw::testing::set(b[p], scaled(-3.0), L.boxes[p]);
  }
  CopyPlan plan = lev.ghost_plan(comm);
  // Every cell of fabs x (ghosts included) is s f.
  auto expect_all = [&](const std::vector<Fab>& x, double s, const char* what) {
    for (size_t p = 0; p < L.size(); ++p) {
      if (L.owner[p] != comm.rank()) continue;
      HostFab got(x[p]);
      const Box bx = x[p].box;
      for (int c = 0; c < 2; ++c)
        for (int k = bx.lo[2]; k <= bx.hi[2]; ++k)
          for (int j = bx.lo[1]; j <= bx.hi[1]; ++j)
            for (int i = bx.lo[0]; i <= bx.hi[0]; ++i)
              ASSERT_EQ(got(i, j, k, c), s * f(i, j, k, c))
                  << what << ": cell " << i << "," << j << "," << k;
    }
  };
  plan.copy(a, a, comm);
  plan.copy(b, b, comm);
  expect_all(a, 1.0, "a");
  expect_all(b, -3.0, "b");
  // With a0 = f: the blends 0.5 b + 0.5 a0 = -f into a's ghosts, then 0.25 a0 + 0.75 b =
  // -2 f into b's (both states and the weight change), then a plain exchange of a new a.
  std::vector<Fab> a0(L.size());
  for (size_t p = 0; p < L.size(); ++p)
    if (L.owner[p] == comm.rank()) {
      a0[p] = Fab("a0", a[p].box, 2);
      pw::testing::set(a0[p], scaled(1.0), L.boxes[p]);
    }
  plan.copy(CopyPlan::Blend{b, a0, 0.5}, a, comm);
  for (size_t p = 0; p < L.size(); ++p)
    if (L.owner[p] == comm.rank()) pw::testing::set(a[p], scaled(-1.0), L.boxes[p]);
  expect_all(a, -1.0, "a blended");
  plan.copy(CopyPlan::Blend{a0, b, 0.75}, b, comm);
  for (size_t p = 0; p < L.size(); ++p)
    if (L.owner[p] == comm.rank()) pw::testing::set(a[p], scaled(5.0), L.boxes[p]);
  plan.copy(a, a, comm);
  expect_all(a, 5.0, "a again");
  for (size_t p = 0; p < L.size(); ++p)
    if (L.owner[p] == comm.rank()) pw::testing::set(b[p], scaled(-2.0), L.boxes[p]);
  expect_all(b, -2.0, "b blended");
}

/// Tags with a scale: each patch's interior takes scale times the next patch's (its
/// owner another rank's at 2 and 4 ranks: the sender scales as it packs), scale 1/2 + p,
/// plain and from a blend of two states; then with a second term.
void check_scaled_tags(int dim) {
  const Comm comm;
  const PeriodicLevel lev(dim, comm);
  const LevelLayout& L = lev.L;
  const size_t np = L.size();
  std::vector<CopyTag> tags;
  for (size_t p = 0; p < np; ++p) {
    const size_t q = (p + 1) % np;
    tags.push_back({int(q), int(p), L.boxes[p], L.boxes[p].lo - L.boxes[q].lo, 0.5 + p});
  }
  CopyPlan plan(tags, L.owner, L.owner, comm.rank());
  std::vector<Fab> x(np), y(np), dst(np);
  for (size_t p = 0; p < np; ++p) {
    if (L.owner[p] != comm.rank()) continue;
    x[p] = Fab("x", L.boxes[p], 2);
    y[p] = Fab("y", L.boxes[p], 2);
    dst[p] = Fab("dst", L.boxes[p], 2);
    pw::testing::set(x[p], [&](int i, int j, int k, int c) { return lev.f(i, j, k, c); });
    pw::testing::set(y[p],
                     [&](int i, int j, int k, int c) { return -lev.f(i, j, k, c); });
  }
  const double w = 0.25;
  for (bool blended : {false, true}) {
    if (blended)
      plan.copy(CopyPlan::Blend{x, y, w}, dst, comm);
    else
      plan.copy(x, dst, comm);
    for (size_t p = 0; p < np; ++p) {
      if (L.owner[p] != comm.rank()) continue;
      const IntVect s = tags[p].shift;
      HostFab got(dst[p]);
      const Box b = L.boxes[p];
      for (int c = 0; c < 2; ++c)
        for (int k = b.lo[2]; k <= b.hi[2]; ++k)
          for (int j = b.lo[1]; j <= b.hi[1]; ++j)
            for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
              const double v = lev.f(i - s[0], j - s[1], k - s[2], c);
              const double want =
                  blended ? tags[p].scale * ((1.0 - w) * v + w * -v) : tags[p].scale * v;
              ASSERT_EQ(got(i, j, k, c), want)
                  << "blended " << blended << " patch " << p << " cell " << i << "," << j;
            }
    }
  }
  // A second term (scale2 times the source at box - shift2: a coarse-fine rule's second
  // cell inside), applied by the sender as it packs too; a blend of such tags refused.
  std::vector<CopyTag> two = tags;
  for (size_t p = 0; p < np; ++p) {
    two[p].box.lo[0] += 1;  // its second source, one cell lower in x, in the patch
    two[p].shift2 = two[p].shift + IntVect::unit(0);
    two[p].scale2 = 0.75 - double(p);
  }
  CopyPlan plan2(two, L.owner, L.owner, comm.rank());
  EXPECT_THROW(plan2.copy(CopyPlan::Blend{x, y, w}, dst, comm), std::logic_error);
  plan2.copy(x, dst, comm);
  for (size_t p = 0; p < np; ++p) {
    if (L.owner[p] != comm.rank()) continue;
    const CopyTag& t = two[p];
    HostFab got(dst[p]);
    for (int c = 0; c < 2; ++c)
      for (int k = t.box.lo[2]; k <= t.box.hi[2]; ++k)
        for (int j = t.box.lo[1]; j <= t.box.hi[1]; ++j)
          for (int i = t.box.lo[0]; i <= t.box.hi[0]; ++i) {
            const IntVect s = t.shift, s2 = t.shift2;
            const double want = t.scale * lev.f(i - s[0], j - s[1], k - s[2], c) +
                                t.scale2 * lev.f(i - s2[0], j - s2[1], k - s2[2], c);
            ASSERT_EQ(got(i, j, k, c), want)
                << "second term, patch " << p << " cell " << i << "," << j;
          }
  }
}

/// The launches of one exchange of `plan` from src into dst (after a first one: the
/// plan's tables are allocated at their first use).
long exchange_launches(CopyPlan& plan, const std::vector<Fab>& src, std::vector<Fab>& dst,
                       const Comm& comm) {
  plan.copy(src, dst, comm);
  LaunchCounter count;
  plan.copy(src, dst, comm);
  return count.launches();
}

/// A ghost exchange within one fab set, and a copy between two pools apart in memory,
/// pack their messages and make their on-rank copies in one launch (and unpack in a
/// second): the copies write no cell the pack reads. The values stay those of the
/// global function.
void check_pack_with_local_copies(int dim) {
  const Comm comm;
  const PeriodicLevel lev(dim, comm);
  const LevelLayout& L = lev.L;
  std::vector<Box> owned(L.size());
  for (size_t p = 0; p < L.size(); ++p)
    if (L.owner[p] == comm.rank()) owned[p] = grow(L.boxes[p], lev.g);
  std::vector<Fab> u, v;
  const auto u_pool = pooled_fabs("u", owned, 2, u);
  const auto v_pool = pooled_fabs("v", owned, 2, v);
  auto f = [&](int i, int j, int k, int c) { return lev.f(i, j, k, c); };
  for (size_t p = 0; p < L.size(); ++p)
    if (L.owner[p] == comm.rank()) {
      pw::testing::set(u[p], [](int, int, int, int) { return -1.0; });
      pw::testing::set(u[p], f, L.boxes[p]);
    }
  CopyPlan plan = lev.ghost_plan(comm);
  // Copies on rank but at 4 ranks in 2D (a patch each, none beside its own image).
  ASSERT_EQ(plan.on_rank_tags().empty(), dim == 2 && comm.size() == 4);
  ASSERT_EQ(plan.messages(), comm.size() > 1);
  const long one_set = exchange_launches(plan, u, u, comm);
  const long two_pools = exchange_launches(plan, u, v, comm);
  EXPECT_EQ(one_set, comm.size() > 1 ? 2 : 1);
  EXPECT_EQ(two_pools, one_set);
  for (size_t p = 0; p < L.size(); ++p) {
    if (L.owner[p] != comm.rank()) continue;
    HostFab got(u[p]), copied(v[p]);
    const Box b = u[p].box;
    for (int c = 0; c < 2; ++c)
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
            ASSERT_EQ(got(i, j, k, c), f(i, j, k, c)) << "cell " << i << "," << j;
            if (!L.boxes[p].contains(IntVect{i, j, k}))
              ASSERT_EQ(copied(i, j, k, c), f(i, j, k, c)) << "cell " << i << "," << j;
          }
  }
}

/// An on-rank copy that writes cells another rank is sent (patch q's interior doubled
/// in place while its first two columns go to a ghost strip of patch q ^ 1, another
/// rank's): the pack takes its own launch before the copies, so the strip holds the
/// cells as they were. Needs another rank.
void check_copy_over_sent_cells(int dim) {
  const Comm comm;
  if (comm.size() == 1) GTEST_SKIP() << "needs another rank";
  const PeriodicLevel lev(dim, comm);
  const LevelLayout& L = lev.L;
  std::vector<CopyTag> tags;
  for (size_t p = 0; p < L.size(); ++p) {
    const int q = int(p ^ 1);  // another rank's: round robin
    const Box& b = L.boxes[p];
    Box strip = b;
    strip.hi[0] = b.lo[0] - 1;
    strip.lo[0] = b.lo[0] - 2;
    tags.push_back({q, int(p), strip, strip.lo - L.boxes[size_t(q)].lo});
    tags.push_back({int(p), int(p), b, IntVect{0, 0, 0}, 2.0});
  }
  CopyPlan plan(tags, L.owner, L.owner, comm.rank());
  std::vector<Fab> u(L.size());
  auto f = [&](int i, int j, int k, int c) { return lev.f(i, j, k, c); };
  for (size_t p = 0; p < L.size(); ++p)
    if (L.owner[p] == comm.rank()) u[p] = Fab("u", grow(L.boxes[p], lev.g), 2);
  auto reset = [&] {
    for (size_t p = 0; p < L.size(); ++p)
      if (L.owner[p] == comm.rank()) pw::testing::set(u[p], f);
  };
  reset();
  plan.copy(u, u, comm);
  reset();
  LaunchCounter count;
  plan.copy(u, u, comm);
  EXPECT_EQ(count.launches(), 3);  // pack, on-rank copies, unpack
  for (size_t p = 0; p < L.size(); ++p) {
    if (L.owner[p] != comm.rank()) continue;
    HostFab got(u[p]);
    for (size_t t = 2 * p; t <= 2 * p + 1; ++t) {
      const CopyTag& tag = tags[t];
      for (int c = 0; c < 2; ++c)
        for (int k = tag.box.lo[2]; k <= tag.box.hi[2]; ++k)
          for (int j = tag.box.lo[1]; j <= tag.box.hi[1]; ++j)
            for (int i = tag.box.lo[0]; i <= tag.box.hi[0]; ++i) {
              const IntVect s = tag.shift;
              ASSERT_EQ(got(i, j, k, c), tag.scale * f(i - s[0], j - s[1], k - s[2], c))
                  << "tag " << t << " cell " << i << "," << j << "," << k;
            }
    }
  }
}

struct CoarseCell {
  int i, j;
  double value;
};

/// One coarse step of a 2D register with constant fluxes: fc[d] on the coarse faces
/// normal to d, ff[d] on the fine ones over two substeps of dt_f. Returns the cells of
/// this rank's coarse patches after reflux with dt_c from zero: the corrections.
std::vector<CoarseCell> reflux_constant_fluxes(FluxRegister& reg, const LevelLayout& crse,
                                               const LevelLayout& fine,
                                               const double fc[2], const double ff[2],
                                               double dt_c, double dt_f, const Comm& comm,
                                               long* reflux_launches = nullptr) {
  std::vector<Fab> u(crse.size()), cflux[2], ffl[2];
  for (int d = 0; d < 2; ++d) {
    cflux[d].resize(crse.size());
    ffl[d].resize(fine.size());
  }
  for (size_t q = 0; q < crse.size(); ++q) {
    if (crse.owner[q] != comm.rank()) continue;
    u[q] = Fab("u", crse.boxes[q], 1);
    for (int d = 0; d < 2; ++d) {
      cflux[d][q] = Fab("fc", faces(crse.boxes[q], d), 1);
      pw::testing::set(cflux[d][q], [&](int, int, int, int) { return fc[d]; });
    }
  }
  for (size_t p = 0; p < fine.size(); ++p) {
    if (fine.owner[p] != comm.rank()) continue;
    for (int d = 0; d < 2; ++d) {
      ffl[d][p] = Fab("ff", faces(fine.boxes[p], d), 1);
      pw::testing::set(ffl[d][p], [&](int, int, int, int) { return ff[d]; });
    }
  }
  const FluxRegister::Refs fine_refs[3] = {fab_refs(ffl[0]), fab_refs(ffl[1]), {}};
  const FluxRegister::Refs crse_refs[3] = {fab_refs(cflux[0]), fab_refs(cflux[1]), {}};
  reg.reset();
  for (int sub = 0; sub < 2; ++sub)
    reg.add_fine(fine_refs, dt_f);
  {
    LaunchCounter count;
    reg.reflux(fab_refs(u), crse_refs, dt_c, comm);
    if (reflux_launches) *reflux_launches = count.launches();
  }
  std::vector<CoarseCell> cells;
  for (size_t q = 0; q < crse.size(); ++q) {
    if (crse.owner[q] != comm.rank()) continue;
    HostFab h(u[q]);
    const Box b = crse.boxes[q];
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        cells.push_back({i, j, h(i, j, 0)});
  }
  return cells;
}

}  // namespace

TEST(GhostExchange, PeriodicGhostsMatchGlobalFunction2D) {
  check_ghost_exchange(2, false);
}
TEST(GhostExchange, PeriodicGhostsMatchGlobalFunction3D) {
  check_ghost_exchange(3, false);
}

TEST(GhostExchange, BlendedCopyCarriesTheTimeBlend2D) {
  check_ghost_exchange(2, true);
}
TEST(GhostExchange, BlendedCopyCarriesTheTimeBlend3D) {
  check_ghost_exchange(3, true);
}

TEST(GhostExchange, OnePlanServesDifferentFabsInTurn2D) {
  check_plan_reuse(2);
}
TEST(GhostExchange, OnePlanServesDifferentFabsInTurn3D) {
  check_plan_reuse(3);
}

TEST(GhostExchange, ScaledTagsScaleWhatTheyCopyOnRankAndAcrossRanks2D) {
  check_scaled_tags(2);
}
TEST(GhostExchange, ScaledTagsScaleWhatTheyCopyOnRankAndAcrossRanks3D) {
  check_scaled_tags(3);
}

TEST(GhostExchange, OneLaunchPacksAndCopiesOnRank2D) {
  check_pack_with_local_copies(2);
}
TEST(GhostExchange, OneLaunchPacksAndCopiesOnRank3D) {
  check_pack_with_local_copies(3);
}

TEST(GhostExchange, ACopyOverCellsBeingSentWaitsForThePack2D) {
  check_copy_over_sent_cells(2);
}
TEST(GhostExchange, ACopyOverCellsBeingSentWaitsForThePack3D) {
  check_copy_over_sent_cells(3);
}

TEST(FluxRegister, RefluxReplacesCoarseFluxByFineSumAcrossRanks) {
  const Comm comm;
  LevelGeom cg;
  cg.dim = 2;
  cg.domain = Box{{0, 0, 0}, {15, 15, 0}};
  cg.dx[0] = cg.dx[1] = 1.0 / 16;
  const IntVect r{2, 2, 1};
  const LevelLayout crse =
      round_robin(chop(cg.domain, {8, 8, 1}, {8, 8, 1}), comm.size());
  // Two fine patches side by side over coarse cells [4, 11] x [4, 7], owned elsewhere.
  const LevelLayout fine = round_robin(
      {Box{{8, 8, 0}, {15, 15, 0}}, Box{{16, 8, 0}, {23, 15, 0}}}, comm.size(), 1);
  FluxRegister reg(fine, crse, cg, r, 1, comm.rank());
  EXPECT_EQ(reg.num_sides(), 8u);
  // The face between the fine patches borders no uncovered coarse cell: its two sides
  // have no pieces (6 pieces, one per other side), and their fluxes are not summed.
  if (comm.size() == 1) EXPECT_EQ(reg.num_pieces(), 6u);
  std::vector<Box> summed;
  std::vector<int> patches;
  reg.fine_faces(0, summed, patches);
  bool outer[2] = {false, false};  // the outer x faces, 8 and 24, are summed
  for (const Box& b : summed) {
    EXPECT_NE(b.lo[0], 16) << "the fine fluxes between the patches are summed";
    outer[0] = outer[0] || b.lo[0] == 8;
    outer[1] = outer[1] || b.lo[0] == 24;
  }
  EXPECT_EQ(outer[0], fine.owner[0] == comm.rank());
  EXPECT_EQ(outer[1], fine.owner[1] == comm.rank());

  const double dt_c = 0.1, dt_f = 0.05, fc[2] = {1.0, 0.0}, ff[2] = {3.0, 0.0};
  const double jump = (2 * dt_f * ff[0] - dt_c * fc[0]) / cg.dx[0];
  // Twice: the second reflux reuses the plan's tables and buffers, and is one launch
  // on one rank (the sums read where they are), or the pack and that launch.
  long launches = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const CoarseCell& c :
         reflux_constant_fluxes(reg, crse, fine, fc, ff, dt_c, dt_f, comm, &launches)) {
      double expect = 0.0;  // covered cells, which average-down replaces, untouched
      if (c.j >= 4 && c.j <= 7 && c.i == 3) expect = -jump;
      if (c.j >= 4 && c.j <= 7 && c.i == 12) expect = jump;
      ASSERT_NEAR(c.value, expect, 1e-12) << c.i << "," << c.j;
    }
  }
  EXPECT_EQ(comm.max(double(launches)), comm.size() == 1 ? 1 : 2);
}

// Fine patches that cover part of a side's outside cells, directly and through a periodic
// image, with fluxes in x and y: the corrections land on exactly the uncovered coarse
// cells beside a fine side, each the sum of its sides' jumps, found by brute force.
TEST(FluxRegister, RefluxSkipsCoarseCellsTheFineLevelCovers) {
  const Comm comm;
  const int n = 16;
  LevelGeom cg = pw::testing::unit_geom(2, n);
  cg.periodic[2] = false;
  const IntVect r{2, 2, 1};
  const LevelLayout crse =
      round_robin(chop(cg.domain, {8, 8, 1}, {8, 8, 1}), comm.size());
  // Coarse cells [4, 7] x [4, 11] and [8, 11] x [4, 7] (an L: half of the first one's
  // x-hi side is covered), [12, 15] x [12, 15] and [0, 3] x [12, 15] (each covers the
  // other's outside cells through the periodic x boundary), refined.
  const BoxList cboxes{Box{{4, 4, 0}, {7, 11, 0}}, Box{{8, 4, 0}, {11, 7, 0}},
                       Box{{12, 12, 0}, {15, 15, 0}}, Box{{0, 12, 0}, {3, 15, 0}}};
  BoxList fboxes;
  for (const Box& b : cboxes)
    fboxes.push_back(refine(b, r));
  const LevelLayout fine = round_robin(fboxes, comm.size(), 1);
  FluxRegister reg(fine, crse, cg, r, 1, comm.rank());

  const double dt_c = 0.1, dt_f = 0.05;
  const double fc[2] = {1.0, -0.5}, ff[2] = {3.0, 2.0};  // coarse and fine, x and y

  auto covered = [&](int i, int j) {
    for (const Box& b : cboxes)
      if (b.contains(IntVect{i, j, 0})) return true;
    return false;
  };
  auto expected = [&](int i, int j) {
    double e = 0.0;
    if (covered(i, j)) return e;
    for (const Box& b : cboxes)
      for (int d = 0; d < 2; ++d)
        for (int side = 0; side < 2; ++side) {
          const Box out = adjacent_cells(b, d, side);
          for (int y = out.lo[1]; y <= out.hi[1]; ++y)
            for (int x = out.lo[0]; x <= out.hi[0]; ++x)
              if (wrap(x, n) == i && wrap(y, n) == j)
                e += (side == 0 ? -1.0 : 1.0) * (2 * dt_f * ff[d] - dt_c * fc[d]) * n;
        }
    return e;
  };
  long corrected = 0;
  for (const CoarseCell& c :
       reflux_constant_fluxes(reg, crse, fine, fc, ff, dt_c, dt_f, comm)) {
    ASSERT_NEAR(c.value, expected(c.i, c.j), 1e-12) << c.i << "," << c.j;
    corrected += expected(c.i, c.j) != 0.0;
  }
  // The set-up corrects 53 cells; the 16 covered ones beside a fine side are left alone.
  EXPECT_EQ(comm.sum(corrected), 53);
}

// Each rank finds the pieces (a fine side's outside cells on one coarse patch, through
// one periodic image) of its own fine patches and of its own coarse patches, not the
// whole level's: counted here by brute force over every side, image and coarse patch.
TEST(FluxRegister, EachRankFindsOnlyThePiecesItTakesPartIn) {
  const Comm comm;
  LevelGeom cg;
  cg.dim = 2;
  cg.domain = Box{{0, 0, 0}, {31, 31, 0}};
  cg.periodic[2] = false;
  const IntVect r{2, 2, 1};
  const LevelLayout crse =
      round_robin(chop(cg.domain, {8, 8, 1}, {8, 8, 1}), comm.size());
  // Coarse cells [2, 9]^2, [24, 31] x [0, 7] (beside the periodic edges) and
  // [10, 17] x [20, 27], refined.
  const LevelLayout fine =
      round_robin({Box{{4, 4, 0}, {19, 19, 0}}, Box{{48, 0, 0}, {63, 15, 0}},
                   Box{{20, 40, 0}, {35, 55, 0}}},
                  comm.size(), 1);
  const FluxRegister reg(fine, crse, cg, r, 1, comm.rank());
  size_t all = 0, mine = 0;
  for (size_t p = 0; p < fine.size(); ++p)
    for (int d = 0; d < 2; ++d)
      for (int s = 0; s < 2; ++s) {
        const Box outside = adjacent_cells(coarsen(fine.boxes[p], r), d, s);
        std::vector<IntVect> shifts{IntVect{0, 0, 0}};
        for (const IntVect& sh : periodic_shifts(cg.domain, cg.periodic))
          shifts.push_back(sh);
        for (const IntVect& sh : shifts)
          for (size_t q = 0; q < crse.size(); ++q) {
            if (!intersects(shift(outside, sh), crse.boxes[q])) continue;
            ++all;
            mine += fine.owner[p] == comm.rank() || crse.owner[q] == comm.rank();
          }
      }
  EXPECT_EQ(reg.num_sides(), 12u);
  EXPECT_EQ(reg.num_pieces(), mine);
  if (comm.size() > 1) EXPECT_LT(reg.num_pieces(), all);
  // Nor does it search beside every fine side: only beside those of its fine patches and
  // of the fine patches one coarse cell or less from its coarse patches (or an image).
  size_t near = 0;
  for (size_t p = 0; p < fine.size(); ++p) {
    bool in = fine.owner[p] == comm.rank();
    const Box around = grow(coarsen(fine.boxes[p], r), IntVect{1, 1, 0});
    for (size_t q = 0; q < crse.size(); ++q)
      for (int sx = -1; sx <= 1; ++sx)
        for (int sy = -1; sy <= 1; ++sy)
          in = in ||
               (crse.owner[q] == comm.rank() &&
                intersects(around, shift(crse.boxes[q], IntVect{32 * sx, 32 * sy, 0})));
    near += in ? 4 : 0;
  }
  EXPECT_EQ(reg.num_searched_sides(), near);
  if (comm.size() == 4) EXPECT_LT(reg.num_searched_sides(), reg.num_sides());
}

// In 3D, a coarse cell in the inner corner of an L-shaped fine region is corrected
// through two faces (an x-hi and a y-hi side of two fine patches): reflux applies each
// cell's
// corrections class by class (x-lo, x-hi, y-lo, ..., z-hi), whatever rank owns which
// patch. Against that order worked out on the host, bit for bit, from coarse values and
// fluxes of many exponents (another order would round differently).
TEST(FluxRegister, RefluxCorrectsEachCellClassByClassIn3D) {
  const Comm comm;
  LevelGeom cg;
  cg.dim = 3;
  cg.domain = Box{{0, 0, 0}, {11, 11, 11}};
  cg.dx[0] = 1.0 / 12, cg.dx[1] = 1.0 / 10, cg.dx[2] = 1.0 / 14;
  const IntVect r{2, 2, 2};
  const LevelLayout crse =
      round_robin(chop(cg.domain, {4, 4, 4}, {4, 4, 4}), comm.size());
  // Coarse cells [2, 5] x [2, 9] x [2, 9] and [6, 9] x [2, 5] x [2, 9], refined, in
  // patches of 8 fine cells.
  BoxList fb = chop(Box{{4, 4, 4}, {11, 19, 19}}, {8, 8, 8}, {8, 8, 8});
  for (const Box& b : chop(Box{{12, 4, 4}, {19, 11, 19}}, {8, 8, 8}, {8, 8, 8}))
    fb.push_back(b);
  const LevelLayout fine = round_robin(fb, comm.size(), 1);
  const auto covered = [&](int i, int j, int k) {
    return (i >= 2 && i <= 5 && j >= 2 && j <= 9 && k >= 2 && k <= 9) ||
           (i >= 6 && i <= 9 && j >= 2 && j <= 5 && k >= 2 && k <= 9);
  };
  const auto value = [](int d, int i, int j, int k, double s) {
    return s * std::sin(0.7 * i + 1.3 * j + 0.4 * d) * std::exp(0.3 * k - 0.2 * j);
  };
  const double dt_c = 0.1, dt_f = 0.05;
  std::vector<Fab> u(crse.size()), cflux[3], ffl[3];
  for (int d = 0; d < 3; ++d) {
    cflux[d].resize(crse.size());
    ffl[d].resize(fine.size());
  }
  for (size_t q = 0; q < crse.size(); ++q) {
    if (crse.owner[q] != comm.rank()) continue;
    u[q] = Fab("u", crse.boxes[q], 1);
    pw::testing::set(u[q],
                     [&](int i, int j, int k, int) { return value(3, i, j, k, 7.0); });
    for (int d = 0; d < 3; ++d) {
      cflux[d][q] = Fab("fc", faces(crse.boxes[q], d), 1);
      pw::testing::set(cflux[d][q],
                       [&](int i, int j, int k, int) { return value(d, i, j, k, 1.0); });
    }
  }
  for (size_t p = 0; p < fine.size(); ++p) {
    if (fine.owner[p] != comm.rank()) continue;
    for (int d = 0; d < 3; ++d) {
      ffl[d][p] = Fab("ff", faces(fine.boxes[p], d), 1);
      pw::testing::set(ffl[d][p],
                       [&](int i, int j, int k, int) { return value(d, i, j, k, 3.0); });
    }
  }
  FluxRegister reg(fine, crse, cg, r, 1, comm.rank());
  const FluxRegister::Refs fine_refs[3] = {fab_refs(ffl[0]), fab_refs(ffl[1]),
                                           fab_refs(ffl[2])};
  const FluxRegister::Refs crse_refs[3] = {fab_refs(cflux[0]), fab_refs(cflux[1]),
                                           fab_refs(cflux[2])};
  reg.reset();
  for (int sub = 0; sub < 2; ++sub)
    reg.add_fine(fine_refs, dt_f);
  reg.reflux(fab_refs(u), crse_refs, dt_c, comm);
  int two_faces = 0;
  for (size_t q = 0; q < crse.size(); ++q) {
    if (crse.owner[q] != comm.rank()) continue;
    const HostFab h(u[q]);
    const Box b = crse.boxes[q];
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
          double want = value(3, i, j, k, 7.0);
          int corrected = 0;
          for (int cls = 0; cls < 6 && !covered(i, j, k); ++cls) {
            const int d = cls / 2, side = cls % 2;
            // A fine patch's lo side: this cell is below the fine region, through its hi
            // face; hi side: above it, through its lo face.
            int in[3] = {i, j, k}, face[3] = {i, j, k};
            in[d] += side == 0 ? 1 : -1;
            if (side == 0) face[d] += 1;
            if (!covered(in[0], in[1], in[2])) continue;
            // The fine faces under the coarse one, summed as add_fine sums them, twice.
            double s = 0.0;
            const int n_t[3] = {d == 0 ? 1 : 2, d == 1 ? 1 : 2, d == 2 ? 1 : 2};
            for (int kk = 0; kk < n_t[2]; ++kk)
              for (int jj = 0; jj < n_t[1]; ++jj)
                for (int ii = 0; ii < n_t[0]; ++ii)
                  s +=
                      value(d, 2 * face[0] + ii, 2 * face[1] + jj, 2 * face[2] + kk, 3.0);
            const double w = dt_f * 2.0 / 8.0;
            double sum = 0.0;
            sum += w * s;
            sum += w * s;
            const double fc = value(d, face[0], face[1], face[2], 1.0);
            want += (side == 0 ? -1.0 : 1.0) * (sum - dt_c * fc) * (1.0 / cg.dx[d]);
            ++corrected;
          }
          two_faces += corrected >= 2;
          ASSERT_EQ(h(i, j, k, 0), want) << i << "," << j << "," << k;
        }
  }
  // The inner corner's column, cells (6, 6, 2..9), is corrected twice.
  EXPECT_EQ(comm.sum(double(two_faces)), 8.0);
}
