// A regrid's new level takes the memory of the level it replaces (LevelData's storage),
// zeroed as a new allocation would be, and never memory a copy of the old field still
// reads; memory far too large is given back; over a run with regrids, a regrid whose
// new level fits allocates no state (counted through Kokkos Tools); the fields a level
// leaves unset (fluxes, the storage of its next state) are never read before written.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "amr/hierarchy.hpp"
#include "physics/registry.hpp"
#include "tests/app/run_testing.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;

// Device lambdas live in free functions of a named namespace (CUDA's rule).
namespace level_storage_test {

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

int state_allocations = 0, flux_allocations = 0;

void on_allocate(Kokkos::Profiling::SpaceHandle, const char* label, const void*,
                 std::uint64_t) {
  const std::string name = label;
  state_allocations += name == "u_new" || name == "u_old";
  flux_allocations += name == "flux";
}

/// The allocations of a level's state and fluxes (by their labels) while it lives,
/// counted through a Kokkos Tools callback.
struct AllocationCount {
  AllocationCount() {
    state_allocations = flux_allocations = 0;
    Kokkos::Tools::Experimental::set_allocate_data_callback(on_allocate);
  }
  ~AllocationCount() { Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr); }
  int state() const { return state_allocations; }
  int flux() const { return flux_allocations; }
};

}  // namespace level_storage_test

using namespace level_storage_test;

TEST(LevelStorage, ANewFieldTakesReleasedStorageAndZeroesIt) {
  const LevelGeom g = pw::testing::unit_geom(3, 16);
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
  const LevelGeom g = pw::testing::unit_geom(3, 16);
  LevelData a("a", chopped(g.domain, 8), g, 1, IntVect::uniform(1), 0);
  a.set_val(3.0);
  const LevelData copy = a;
  Kokkos::View<double*> s = a.release_storage();
  EXPECT_EQ(s.extent(0), 0u);
  // Offered whatever a gave up: had it been copy's memory, b's zeroing would show there.
  LevelData b("b", chopped(g.domain, 8), g, 1, IntVect::uniform(1), 0, -1, s);
  EXPECT_NE(first_value(b), first_value(copy));
  EXPECT_EQ(largest(copy), 3.0);
}

TEST(LevelStorage, StorageTooSmallOrTooLargeGivesANewAllocationWithAQuarterMoreRoom) {
  const LevelGeom g = pw::testing::unit_geom(3, 16);
  const LevelLayout L = chopped(g.domain, 8);
  const LevelLayout one = chopped(Box{{0, 0, 0}, {7, 7, 7}}, 8);
  LevelData small("small", one, g, 1, IntVect{}, 0);
  LevelData a("a", L, g, 1, IntVect{}, 0, -1, small.release_storage());
  EXPECT_EQ(a.capacity(), size_t(16 * 16 * 16) * 5 / 4);
  LevelData fresh("fresh", L, g, 1, IntVect{}, 0);  // nothing offered: no more room
  EXPECT_EQ(fresh.capacity(), size_t(16 * 16 * 16));
  // A level that shrinks to an eighth gives the rest back.
  LevelData shrunk("shrunk", one, g, 1, IntVect{}, 0, -1, fresh.release_storage());
  EXPECT_EQ(shrunk.capacity(), size_t(8 * 8 * 8) * 5 / 4);
}

TEST(LevelStorage, StorageUpToHalfMoreThanNeededIsKept) {
  const LevelGeom g = pw::testing::unit_geom(3, 16);
  const LevelLayout L = chopped(g.domain, 8);  // 8 patches of 8^3
  LevelLayout six = L, five = L;               // 6 and 5 of them: 4/3 and 8/5 of the need
  six.boxes.resize(6);
  six.owner.resize(6);
  five.boxes.resize(5);
  five.owner.resize(5);
  LevelData a("a", L, g, 1, IntVect{}, 0);
  const double* at = first_value(a);
  LevelData b("b", six, g, 1, IntVect{}, 0, -1, a.release_storage());
  EXPECT_EQ(first_value(b), at);
  EXPECT_EQ(b.capacity(), size_t(16 * 16 * 16));
  LevelData c("c", five, g, 1, IntVect{}, 0, -1, b.release_storage());
  EXPECT_EQ(c.capacity(), size_t(5 * 8 * 8 * 8) * 5 / 4);
}

TEST(LevelStorage, ARegridAllocatesNoFieldWhereTheNewLevelFits) {
  const Comm comm(MPI_COMM_SELF);
  const Deck deck = Deck::parse(pw::testing::swirl_deck(3), "storage.toml",
                                {"output.write=false", "time.max_step=16"});
  const auto physics = make_physics(deck);
  pw::testing::KeepPlanner planner;
  Hierarchy h(read_amr_config(deck), *physics, planner, comm);
  h.initialize();
  ASSERT_EQ(h.finest_level(), 2);
  int fitting_steps = 0, steps_without_field_allocations = 0;
  for (int s = 0; s < 16; ++s) {
    std::vector<std::array<size_t, 2>> room;
    std::vector<LevelLayout> layouts;
    for (int l = 0; l <= h.finest_level(); ++l) {
      room.push_back({h.level(l).u_new.capacity(), h.level(l).u_old.capacity()});
      layouts.push_back(h.level(l).layout);
    }
    AllocationCount count;
    h.advance(h.stable_dt());
    ASSERT_EQ(h.finest_level(), int(layouts.size()) - 1);
    bool regridded = false, fits = true;
    for (int l = 1; l <= h.finest_level(); ++l) {
      const Level& L = h.level(l);
      if (L.layout == layouts[size_t(l)]) continue;
      regridded = true;
      size_t need = 0;
      for (const Fab& f : L.u_new)
        need += size_t(f.data.size());
      for (size_t c : room[size_t(l)])
        fits = fits && storage_fits(c, need);
    }
    if (!regridded) continue;
    SCOPED_TRACE(::testing::Message() << "step " << s);
    if (fits) {
      // The new state lies in the old one's two allocations.
      EXPECT_EQ(count.state(), 0);
      ++fitting_steps;
    }
    if (count.state() + count.flux() == 0) ++steps_without_field_allocations;
  }
  EXPECT_GE(fitting_steps, 3);
  // The fluxes are reused too (on the levels that store them: those with a finer one).
  EXPECT_GE(steps_without_field_allocations, 2);
}

TEST(LevelStorage, UnsetFieldsAreWrittenBeforeTheyAreRead) {
  // Unset values poisoned with NaN: a read of one before its write would reach the
  // state, and the run would stop on the finiteness check or change its answer. Runs
  // with regrids: advection (periodic), hydro beside walls, hydro with self-gravity.
  const Comm comm(MPI_COMM_SELF);
  const auto file = [](const std::string& name) {
    return std::string(PW_SOURCE_DIR) + "/inputs/" + name + ".toml";
  };
  struct Poisoned {  // for one run, whatever it throws
    explicit Poisoned(bool on) { LevelData::poison_unset_values(on); }
    ~Poisoned() { LevelData::poison_unset_values(false); }
  };
  const auto run = [&](const Deck& deck, bool poison) {
    const Poisoned poisoned(poison);
    Simulation sim(deck, comm);
    const RunResult r = sim.run(false);
    EXPECT_GT(r.regrids, 0);
    return r.fingerprint;
  };
  const auto check = [&](const Deck& deck, const char* name) {
    const std::uint64_t plain = run(deck, false);
    EXPECT_EQ(run(deck, true), plain) << name;
  };
  check(Deck::parse(pw::testing::swirl_deck(3), "swirl.toml", {"output.write=false"}),
        "swirl");
  check(Deck::load(file("blast_2d"),
                   {"output.write=false", "time.max_step=6", "domain.n_cell=[32,32]",
                    "amr.max_grid_size=8", "amr.blocking_factor=4"}),
        "blast_2d");
  check(Deck::load(file("clumps_3d"),
                   {"output.write=false", "time.max_step=3", "domain.n_cell=[16,16,16]",
                    "amr.blocking_factor=8", "amr.max_grid_size=16", "amr.max_level=2"}),
        "clumps_3d");
}
