// A regrid's new level takes the memory of the level it replaces (LevelData's storage),
// zeroed as a new allocation would be, and never memory a copy of the old field still
// reads; over a run with regrids a level keeps its two state allocations as long as it
// fits in them.
#include <gtest/gtest.h>

#include <set>

#include "amr/hierarchy.hpp"
#include "physics/registry.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;

// Device lambdas live in free functions of a named namespace (CUDA's rule).
namespace level_storage_test {

LevelGeom cube(int n) {
  LevelGeom g;
  g.domain = Box{{0, 0, 0}, {n - 1, n - 1, n - 1}};
  for (int d = 0; d < 3; ++d)
    g.dx[d] = 1.0 / n;
  return g;
}

LevelLayout chopped(const Box& b, int grid) {
  LevelLayout L;
  L.boxes = chop(b, IntVect::uniform(grid), IntVect::uniform(4));
  L.owner.assign(L.boxes.size(), 0);
  return L;
}

/// The largest |value| of any cell (ghosts included) of any fab of u.
double largest(const LevelData& u) {
  double m = 0;
  for (const Fab& f : u) {
    if (f.box.empty()) continue;
    const Array4 a = f.array();
    const int nc = f.ncomp();
    m = std::max(m, -min_over_cells(
                        "test::largest", f.box, KOKKOS_LAMBDA(int i, int j, int k) {
                          double x = 0;
                          for (int c = 0; c < nc; ++c) {
                            const double v =
                                a(i, j, k, c) < 0 ? -a(i, j, k, c) : a(i, j, k, c);
                            x = v > x ? v : x;
                          }
                          return -x;
                        }));
  }
  return m;
}

const double* first_value(const LevelData& u) {
  for (const Fab& f : u)
    if (!f.box.empty()) return f.data.data();
  return nullptr;
}

}  // namespace level_storage_test

using namespace level_storage_test;

TEST(LevelStorage, ANewFieldTakesReleasedStorageAndZeroesIt) {
  const LevelGeom g = cube(16);
  LevelData a("a", chopped(g.domain, 8), g, 2, IntVect::uniform(2), 0);
  a.set_val(3.0);
  const double* at = first_value(a);
  const size_t room = a.capacity();
  Kokkos::View<double*> s = a.release_storage();
  ASSERT_EQ(s.extent(0), room);
  EXPECT_EQ(first_value(a), nullptr);  // a no longer points into it
  // A smaller level (one 8^3 patch fewer) fits: it lies where a did, every value 0.
  LevelLayout smaller = chopped(g.domain, 8);
  smaller.boxes.pop_back();
  smaller.owner.pop_back();
  LevelData b("b", smaller, g, 2, IntVect::uniform(2), 0, -1, s);
  s = Kokkos::View<double*>();
  EXPECT_EQ(first_value(b), at);
  EXPECT_EQ(b.capacity(), room);
  EXPECT_EQ(largest(b), 0.0);
}

TEST(LevelStorage, StorageACopyStillReadsIsNotGivenUp) {
  const LevelGeom g = cube(16);
  LevelData a("a", chopped(g.domain, 8), g, 1, IntVect::uniform(1), 0);
  a.set_val(3.0);
  const LevelData copy = a;
  EXPECT_EQ(a.release_storage().extent(0), 0u);
  LevelData b("b", chopped(g.domain, 8), g, 1, IntVect::uniform(1), 0);
  EXPECT_NE(first_value(b), first_value(copy));
  EXPECT_EQ(largest(copy), 3.0);
}

TEST(LevelStorage, StorageTooSmallGivesANewAllocationWithAnEighthMoreRoom) {
  const LevelGeom g = cube(16);
  const LevelLayout L = chopped(g.domain, 8);
  LevelData small("small", chopped(Box{{0, 0, 0}, {7, 7, 7}}, 8), g, 1, IntVect{}, 0);
  LevelData a("a", L, g, 1, IntVect{}, 0, -1, small.release_storage());
  EXPECT_EQ(a.capacity(), size_t(16 * 16 * 16) * 9 / 8);
  LevelData fresh("fresh", L, g, 1, IntVect{}, 0);  // nothing offered: no more room
  EXPECT_EQ(fresh.capacity(), size_t(16 * 16 * 16));
}

TEST(LevelStorage, ALevelKeepsItsStateMemoryThroughRegridsWhileItFits) {
  const Comm comm(MPI_COMM_SELF);
  const Deck deck = Deck::parse(pw::testing::swirl_deck(3), "storage.toml",
                                {"output.write=false", "time.max_step=16"});
  const auto physics = make_physics(deck);
  pw::testing::KeepPlanner planner;
  Hierarchy h(read_amr_config(deck), *physics, planner, comm);
  h.initialize();
  ASSERT_EQ(h.finest_level(), 2);
  int regrids_that_fit = 0;
  for (int s = 0; s < 16; ++s) {
    std::vector<std::set<const double*>> before;
    std::vector<size_t> room;
    std::vector<LevelLayout> layouts;
    for (int l = 1; l <= h.finest_level(); ++l) {
      const Level& L = h.level(l);
      before.push_back({first_value(L.u_new), first_value(L.u_old)});
      room.push_back(std::min(L.u_new.capacity(), L.u_old.capacity()));
      layouts.push_back(L.layout);
    }
    h.advance(h.stable_dt());
    for (int l = 1; l <= std::min(h.finest_level(), int(before.size())); ++l) {
      const Level& L = h.level(l);
      size_t need = 0;
      for (const Fab& f : L.u_new)
        need += size_t(f.data.size());
      if (L.layout == layouts[size_t(l - 1)] || need > room[size_t(l - 1)]) continue;
      // A new layout that fits: the same two allocations (u_new and u_old swap at every
      // step, so either may hold either).
      SCOPED_TRACE(::testing::Message() << "step " << s << " level " << l);
      EXPECT_EQ((std::set<const double*>{first_value(L.u_new), first_value(L.u_old)}),
                before[size_t(l - 1)]);
      ++regrids_that_fit;
    }
  }
  EXPECT_GE(regrids_that_fit, 4);
}
