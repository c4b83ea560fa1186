// One launch per level: each level-wide operation (the solver's smoother, residual,
// restriction, prolongation, face gradients and reductions, LevelData's fills and
// copies, the coarse-fine fill and average-down, the flux register's sums and reflux),
// and what a regrid sets up (a level's data, its
// plans' scratch, the tags and their compaction), launches the same number of kernels
// whether the level has 1 patch or 64, counted by LaunchCounter through Kokkos Tools.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "amr/fine_boxes.hpp"
#include "amr/flux_register.hpp"
#include "amr/launch_counter.hpp"
#include "amr/level_data.hpp"
#include "amr/level_tags.hpp"
#include "solver/mg_ops.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;

// Named (CUDA does not support extended lambdas in functions of internal linkage).
namespace launch_count_test {

/// Kernels launched by op (and finished).
long launches_of(const std::function<void()>& op) {
  LaunchCounter c;
  op();
  Kokkos::fence();
  return c.launches();
}

/// Launches of each operation on a periodic 32^3 level cut into patches of `grid`^3,
/// with a 16^3 coarse level (one box) under a refined 16^3 patch region for the
/// inter-level operations.
std::map<std::string, long> launches_per_op(int grid) {
  const Comm comm(MPI_COMM_SELF);
  const LevelGeom g = pw::testing::unit_geom(3, 32);
  LevelLayout L;
  L.boxes = chop(g.domain, IntVect::uniform(grid), IntVect::uniform(4));
  L.owner.assign(L.boxes.size(), 0);
  const IntVect one = IntVect::uniform(1);
  LevelData u("u", L, g, 1, one, 0), f("f", L, g, 1, IntVect{}, 0);
  LevelData r = f.like("r");
  const LevelGeom cg = pw::testing::unit_geom(3, 16);
  LevelLayout CL{{cg.domain}, {0}};
  LevelData crse("crse", CL, cg, 1, one, 0);
  LevelData crse3("crse3", CL, cg, 3, one, 0);  // a state of more components
  // A refined level over the middle of the domain, cut the same way.
  LevelLayout FL;
  FL.boxes = chop(Box{{8, 8, 8}, {23, 23, 23}}, IntVect::uniform(grid < 16 ? grid : 16),
                  IntVect::uniform(4));
  FL.owner.assign(FL.boxes.size(), 0);
  LevelData fine("fine", FL, g, 1, one, 0);
  LevelData fine_interp("fine_interp", FL, g, 1, IntVect::uniform(2), 0);
  LevelLayout coarsened = L;
  for (Box& b : coarsened.boxes)
    b = coarsen(b, IntVect::uniform(2));
  LevelGeom half = g;
  half.domain = cg.domain;
  LevelData rc("rc", coarsened, half, 1, one, 0);
  PoissonStencil s;
  s.domain = g.domain;
  for (int d = 0; d < 3; ++d)
    s.w[d] = 1.0;
  const BoxSet colour = mg::colour_rows(u);
  // Warm up: plans, refs and sets are built on first use (host work, some launches).
  u.set_val(1.0);
  f.set_val(0.5);
  crse.set_val(1.0);
  rc.set_val(0.0);
  fine.fill_from_coarse(crse, crse, 1.0, IntVect::uniform(2), {Interp::quadratic},
                        BcSet(1, ComponentBc()), comm);
  u.average_down_to(crse, IntVect::uniform(2), comm);
  mg::composite_cf_ghosts(fine, fine_interp, 2);
  u.copies_by_patch(true);
  rc.copies_by_patch(false);
  LevelData rc_phi = rc.like("rc_phi");
  // The register between the refined patches and the coarse level, its fluxes and the
  // faces it reads (items 3 p + d, as face_gradients takes them).
  FluxRegister reg(FL, CL, cg, IntVect::uniform(2), 1, 0);
  LevelData ff[3], cf[3];
  FluxRegister::Refs fref[3], cref[3];
  std::vector<Box> faces;
  std::vector<int> items;
  for (int d = 0; d < 3; ++d) {
    ff[d] = LevelData("ff", FL, g, 1, IntVect{}, 0, d);
    cf[d] = LevelData("cf", CL, cg, 1, IntVect{}, 0, d);
    fref[d] = ff[d].refs();
    cref[d] = cf[d].refs();
    std::vector<int> patches;
    reg.fine_faces(d, faces, patches);
    for (int p : patches)
      items.push_back(3 * p + d);
  }
  const BoxSet fine_faces(faces, items);
  reg.add_fine(fref, 0.5);
  reg.reflux(crse.refs(), cref, 1.0, comm);
  fine.copies_by_patch(true);
  std::map<std::string, long> n;
  auto count = [&](const std::string& name, const std::function<void()>& op) {
    n[name] = launches_of(op);
  };
  count("set_val", [&] { u.set_val(1.0); });
  count("copy_component", [&] { r.copy_component(0, f, 0); });
  count("gauss_seidel", [&] { mg::gauss_seidel(u, f, colour, 0, s, 1.0); });
  count("gauss_seidel_with_copies", [&] {
    mg::gauss_seidel_with_copies(u, u.copies_by_patch(true), f, colour, 0, s, 1.0);
  });
  count("residual", [&] { mg::residual(r, u, f, s); });
  count("residual_max", [&] { mg::residual_max(r, u, f, s); });
  count("smooth_in_one_team", [&] {
    mg::smooth_in_one_team(u, u.copies_by_patch(true), f, colour, 2, s, 1.0);
  });
  count("smooth_in_one_team with both stages", [&] {
    mg::smooth_in_one_team(
        u, u.copies_by_patch(true), f, colour, 2, s, 1.0,
        {&rc, &rc.copies_by_patch(false), ComponentBc(), Prolong::multilinear},
        {&rc, &rc_phi, 1});
  });
  count("restrict", [&] { mg::restrict_residual(rc, u, f, s); });
  count("restrict_with_copies", [&] {
    mg::restrict_residual_with_copies(u, u.copies_by_patch(true), f, s,
                                      {&rc, &rc_phi, -1});
  });
  count("prolong", [&] { mg::prolong_add(u, rc.refs(), 3, Prolong::multilinear); });
  count("prolong_with_copies", [&] {
    mg::prolong_add_with_copies(
        u, {&rc, &rc.copies_by_patch(false), ComponentBc(), Prolong::multilinear});
  });
  count("max_abs", [&] { mg::max_abs(u); });
  count("scaled_copy", [&] { mg::scaled_copy(r, u, 0, 2.0, 1.0); });
  count("scaled_copy and a copy", [&] { mg::scaled_copy(r, u, 0, 2.0, 1.0, &f, 0); });
  count("exact_dot", [&] { mg::exact_dot(u, f, 1.0 / 8); });
  count("laplacian_max_product", [&] { mg::laplacian_max_product(r, u, s); });
  count("cg_step", [&] { mg::cg_step(u, r, 0.5, u, f); });
  count("composite_cf_ghosts", [&] { mg::composite_cf_ghosts(fine, fine_interp, 2); });
  count("fill_from_coarse", [&] {
    fine.fill_from_coarse(crse, crse, 0.5, IntVect::uniform(2), {Interp::quadratic},
                          BcSet(1, ComponentBc()), comm);
  });
  count("fill_from_coarse of a component", [&] {
    fine.fill_from_coarse(crse3, crse3, 0.5, IntVect::uniform(2), {Interp::quadratic},
                          BcSet(1, ComponentBc()), comm, 2);
  });
  count("average_down", [&] { u.average_down_to(crse, IntVect::uniform(2), comm); });
  count("face_gradients", [&] { mg::face_gradients(ff, fine, fine_faces); });
  count("add_fine", [&] { reg.add_fine(fref, 0.5); });
  count("add_fine replacing", [&] { reg.add_fine(fref, 0.5, true); });
  count("reflux", [&] { reg.reflux(crse.refs(), cref, 1.0, comm); });
  count("residual_with_copies", [&] {
    mg::residual_with_copies(fine, fine, fine.copies_by_patch(true), fine, s);
  });
  const mg::CompositeCfStage cf_stage(fine, fine_interp, 2);
  count("residual_with_copies and coarse-fine ghosts", [&] {
    mg::residual_with_copies(fine, fine, fine.copies_by_patch(true), fine, s, cf_stage);
  });
  return n;
}

TEST(LaunchCount, LevelOperationsDoNotScaleWithPatches) {
  const std::map<std::string, long> one = launches_per_op(32), many = launches_per_op(8);
  for (const auto& [name, n] : one) {
    SCOPED_TRACE(name);
    EXPECT_GE(n, 1);
    // The kernel; reflux first copies the fine sums to the coarse side.
    EXPECT_LE(n, 2);
    EXPECT_EQ(many.at(name), n);
  }
  // Average-down writes its averages where they go: no copy of them after.
  EXPECT_EQ(one.at("average_down"), 1);
  // The coarse-fine fill copies the coarse data under the ghosts (the blend of the two
  // coarse states) and interpolates in the same launch.
  EXPECT_EQ(one.at("fill_from_coarse"), 1);
  EXPECT_EQ(one.at("fill_from_coarse of a component"), 1);
}

TEST(LaunchCount, AnExchangeBetweenRanksOnlyLeavesTheOnRankCopiesToTheSweep) {
  // The smoother's half-sweep: the exchange's copies between ranks (none here), then
  // one launch that makes the on-rank copies and sweeps.
  const Comm comm(MPI_COMM_SELF);
  const LevelGeom g = pw::testing::unit_geom(3, 32);
  LevelLayout L;
  L.boxes = chop(g.domain, IntVect::uniform(8), IntVect::uniform(4));
  L.owner.assign(L.boxes.size(), 0);
  LevelData u("u", L, g, 1, IntVect::uniform(1), 0), f("f", L, g, 1, IntVect{}, 0);
  PoissonStencil s;
  s.domain = g.domain;
  for (int d = 0; d < 3; ++d)
    s.w[d] = 1.0;
  const BoxSet colour = mg::colour_rows(u);
  u.fill_boundary(comm, true, 1);  // warm up: the plans
  u.copies_by_patch(true);
  EXPECT_EQ(launches_of([&] { u.fill_boundary(comm, true, 1); }), 1);
  EXPECT_EQ(
      launches_of([&] { u.fill_boundary(comm, true, 1, LevelData::Copies::messages); }),
      0);
  EXPECT_EQ(launches_of([&] {
              mg::gauss_seidel_with_copies(u, u.copies_by_patch(true), f, colour, 0, s,
                                           1.0);
            }),
            1);
}

/// Launches of what a regrid sets up for a periodic 32^3 level cut into `grid`^3 patches
/// over a 16^3 coarse level: the level's data (zeroed), its first coarse-fine fill and
/// average-down (which build their plans), tags set on every cell and
/// compacted, and the blocks they reach.
std::map<std::string, long> setup_launches(int grid) {
  const Comm comm(MPI_COMM_SELF);
  const LevelGeom g = pw::testing::unit_geom(3, 32);
  LevelLayout L;
  L.boxes =
      chop(Box{{8, 8, 8}, {23, 23, 23}}, IntVect::uniform(grid), IntVect::uniform(4));
  L.owner.assign(L.boxes.size(), 0);
  const LevelGeom cg = pw::testing::unit_geom(3, 16);
  const IntVect one = IntVect::uniform(1);
  LevelData crse("crse", LevelLayout{{cg.domain}, {0}}, cg, 1, one, 0);
  crse.set_val(1.0);
  std::map<std::string, long> n;
  auto count = [&](const std::string& name, const std::function<void()>& op) {
    n[name] = launches_of(op);
  };
  std::optional<LevelData> u;
  count("LevelData", [&] { u.emplace("u", L, g, 1, one, 0); });
  count("first fill_from_coarse", [&] {
    u->fill_from_coarse(crse, crse, 1.0, IntVect::uniform(2), {Interp::quadratic},
                        BcSet(1, ComponentBc()), comm);
  });
  count("first average_down",
        [&] { u->average_down_to(crse, IntVect::uniform(2), comm); });
  std::vector<int> owned(L.boxes.size());
  for (size_t p = 0; p < owned.size(); ++p)
    owned[p] = int(p);
  std::vector<int> tagged, blocks;
  count("tags", [&] {
    const LevelTags tags(L.boxes, owned);
    for_each_box_cell(
        "test::tag_all", tags.cells(),
        KOKKOS_LAMBDA(int p, int i, int j, int k) { tags.of(p)(i, j, k) = 1; });
    tagged = tags.tagged_cells();
    blocks = tags.reached_blocks(tag_reach({{2, 2, 2}, 8, 16, 1, 1, 0.7}, g));
  });
  EXPECT_EQ(tagged.size(), size_t(3 * 16 * 16 * 16));
  // Cells 7..24 (the tags, 8..23, and the buffer) lie in blocks 1..6 of 4 cells; every
  // patch gives the blocks its own cells reach.
  std::set<std::array<int, 3>> distinct;
  for (size_t n = 0; n < blocks.size(); n += 3)
    distinct.insert({blocks[n], blocks[n + 1], blocks[n + 2]});
  EXPECT_EQ(distinct.size(), size_t(6 * 6 * 6));
  return n;
}

}  // namespace launch_count_test

using namespace launch_count_test;

TEST(LaunchCount, RegridSetUpDoesNotScaleWithPatches) {
  const std::map<std::string, long> one = setup_launches(16), many = setup_launches(4);
  for (const auto& [name, n] : one) {
    SCOPED_TRACE(name);
    EXPECT_LE(n, 16);
    EXPECT_EQ(many.at(name), n);
  }
}

TEST(LaunchCount, FreeingALevelsDataAndPlansLaunchesNothing) {
  // A regrid frees the data and plans of every level it replaces. Kokkos 3.4 launches a
  // kernel (and fences) when the last view of a struct type goes, even one allocated
  // without initialization: the plans' tables of boxes, pieces and references must not
  // be such views.
  const Comm comm(MPI_COMM_SELF);
  const LevelGeom g = pw::testing::unit_geom(3, 32), cg = pw::testing::unit_geom(3, 16);
  const IntVect one = IntVect::uniform(1), two = IntVect::uniform(2);
  LevelLayout L, FL, CL{{cg.domain}, {0}};
  L.boxes = chop(g.domain, IntVect::uniform(8), IntVect::uniform(4));
  L.owner.assign(L.boxes.size(), 0);
  FL.boxes = chop(Box{{8, 8, 8}, {23, 23, 23}}, IntVect::uniform(8), IntVect::uniform(4));
  FL.owner.assign(FL.boxes.size(), 0);
  LevelData crse("crse", CL, cg, 1, one, 0);
  crse.set_val(1.0);
  std::optional<LevelData> u, fine, f;
  std::optional<FluxRegister> reg;
  std::optional<BoxSet> colour;
  u.emplace("u", L, g, 1, one, 0);
  f.emplace("f", L, g, 1, IntVect{}, 0);
  fine.emplace("fine", FL, g, 1, one, 0);
  reg.emplace(FL, CL, cg, two, 1, 0);
  // Every plan and table they build on first use.
  u->set_val(1.0);
  f->set_val(0.5);
  u->fill_boundary(comm, true, 1);
  colour.emplace(mg::colour_rows(*u));
  PoissonStencil s;
  s.domain = g.domain;
  for (int d = 0; d < 3; ++d)
    s.w[d] = 1.0;
  mg::gauss_seidel_with_copies(*u, u->copies_by_patch(true), *f, *colour, 0, s, 1.0);
  u->average_down_to(crse, two, comm);
  fine->fill_from_coarse(crse, crse, 1.0, two, {Interp::quadratic},
                         BcSet(1, ComponentBc()), comm);
  LevelData ff[3], cf[3];
  FluxRegister::Refs fref[3], cref[3];
  for (int d = 0; d < 3; ++d) {
    ff[d] = LevelData("ff", FL, g, 1, IntVect{}, 0, d);
    cf[d] = LevelData("cf", CL, cg, 1, IntVect{}, 0, d);
    fref[d] = ff[d].refs();
    cref[d] = cf[d].refs();
  }
  reg->add_fine(fref, 0.5);
  reg->reflux(crse.refs(), cref, 1.0, comm);
  Kokkos::fence();
  EXPECT_EQ(launches_of([&] {
              u.reset();
              f.reset();
              fine.reset();
              reg.reset();
              colour.reset();
              for (int d = 0; d < 3; ++d) {
                ff[d] = LevelData();
                cf[d] = LevelData();
                fref[d] = cref[d] = FluxRegister::Refs();
              }
            }),
            0);
}
