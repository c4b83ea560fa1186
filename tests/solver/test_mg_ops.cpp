// The multigrid operations that fuse a reduction into another launch give the bits of
// the separate operations they replace, so conjugate gradients take the same steps and
// every recorded Poisson and self-gravity fingerprint stays as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "solver/mg_ops.hpp"
#include "tests/fab_testing.hpp"
#include "tests/solver/mg_ops_testing.hpp"

using namespace pw;
using pw::testing::expect_same_bits;
using pw::testing::ghosted_field;
using pw::testing::HostFab;
using pw::testing::sweep_with_exchanges;
using pw::testing::TwoGrids;

namespace {

/// Fields on a 3D level of 4^3 patches of 8^3 cells, walls in x (Dirichlet low,
/// Neumann high) and periodic in y and z.
struct Level {
  LevelGeom g = pw::testing::unit_geom(3, 32);
  LevelLayout layout;
  PoissonStencil s;
  Level() {
    g.periodic[0] = false;
    layout.boxes = chop(g.domain, IntVect::uniform(8), IntVect::uniform(4));
    layout.owner.assign(layout.boxes.size(), 0);
    PoissonBc bc;
    bc.lo[0] = {BcKind::dirichlet, 0.25};
    bc.hi[0] = {BcKind::neumann, -0.5};
    s = mg::stencil(g, bc);
  }
  /// A field with ghosts (one layer) or without, set to a smooth function with a
  /// different phase per seed (values of every sign and many exponents).
  LevelData field(int seed, bool ghosts) const {
    LevelData u("u", layout, g, 1, ghosts ? IntVect::uniform(1) : IntVect{}, 0);
    for (size_t p = 0; p < layout.size(); ++p)
      pw::testing::set(u[p], [&](int i, int j, int k, int) {
        return std::sin(0.37 * i + 0.11 * seed) * std::cos(0.23 * j - 0.7 * k + seed) *
               std::exp(0.05 * (k - i) + 0.1 * seed);
      });
    return u;
  }
};

}  // namespace

TEST(MgOps, LaplacianReturnsTheLargestProductOfItsInputAndOutput) {
  const Level L;
  const LevelData p = L.field(1, true);
  LevelData q = L.field(2, false);
  const double fused = mg::laplacian_max_product(q, p, L.s);
  EXPECT_GT(fused, 0.0);
  EXPECT_EQ(fused, mg::max_abs_product(p, q));
  // The Laplacian itself against the stencil's exact action on a quadratic function,
  // sign and scale included: away from the walls, p = x^2 + 2 y^2 - z^2 (cell centres)
  // has L p = 2 + 4 - 2 = 4, exactly in floating point on this grid (h = 1/32).
  LevelData quad("quad", L.layout, L.g, 1, IntVect::uniform(1), 0);
  const double h = L.g.dx[0];
  for (size_t n = 0; n < L.layout.size(); ++n)
    pw::testing::set(quad[n], [h](int i, int j, int k, int) {
      const double x = (i + 0.5) * h, y = (j + 0.5) * h, z = (k + 0.5) * h;
      return x * x + 2 * y * y - z * z;
    });
  mg::laplacian_max_product(q, quad, L.s);
  for (size_t n = 0; n < L.layout.size(); ++n) {
    const HostFab out(q[n]);
    const Box& b = q[n].box;
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = std::max(b.lo[0], 1); i <= std::min(b.hi[0], 30); ++i)
          ASSERT_EQ(out(i, j, k), 4.0) << i << " " << j << " " << k;
  }
}

TEST(MgOps, ConjugateGradientStepGivesTheBitsOfItsSeparateOperations) {
  const Level L;
  const LevelData p = L.field(3, true), q = L.field(4, false);
  LevelData x = L.field(5, true), r = L.field(6, false);
  LevelData x_ref = L.field(5, true), r_ref = L.field(6, false);
  const double alpha = 0.7310585786300049;  // not a short binary fraction
  const double fused = mg::cg_step(x, r, alpha, p, q);
  mg::axpy(x_ref, alpha, p.refs());
  mg::axpy(r_ref, -alpha, q.refs());
  expect_same_bits(x, x_ref);
  expect_same_bits(r, r_ref);
  EXPECT_GT(fused, 0.0);
  EXPECT_EQ(fused, mg::max_abs_product(r_ref, r_ref));
  // And r did change (the step is not a no-op that the comparison would miss).
  EXPECT_NE(mg::max_abs_product(r, r),
            mg::max_abs_product(L.field(6, false), L.field(6, false)));
}

TEST(MgOps, ResidualReturnsItsLargestMagnitudeFromTheSameLaunch) {
  const Level L;
  const LevelData u = L.field(7, true), f = L.field(8, false);
  LevelData r = L.field(9, false), r_ref = L.field(9, false);
  const double fused = mg::residual_max(r, u, f, L.s);
  mg::residual(r_ref, u, f, L.s);
  expect_same_bits(r, r_ref);
  EXPECT_GT(fused, 0.0);
  EXPECT_EQ(fused, mg::max_abs(r_ref));
}

TEST(MgOps, ScaledCopyGivesTheCopyScalingAndNormsBits) {
  const Level L;
  const LevelData u = L.field(3, true), v = L.field(4, true);
  LevelData two("two", L.layout, L.g, 2, IntVect::uniform(1), 0);
  two.copy_component(0, u, 0);
  two.copy_component(1, v, 0);
  LevelData f = L.field(5, false), f_ref = L.field(6, false);
  const double a = 0.7 * M_PI, b = -0.3;
  const double fused = mg::scaled_copy(f, two, 1, a, b);
  f_ref.copy_component(0, two, 1);
  EXPECT_EQ(fused, mg::max_abs(f_ref));
  mg::scale_shift(f_ref, a, b);
  expect_same_bits(f, f_ref);
  EXPECT_NE(fused, mg::max_abs(u));  // component 1, not 0
  // With a plain copy of another component in the same launch (phi's first guess).
  LevelData f2 = L.field(7, false), g = L.field(8, false), g_ref = L.field(9, false);
  EXPECT_EQ(mg::scaled_copy(f2, two, 1, a, b, &g, 0), fused);
  expect_same_bits(f2, f);
  g_ref.copy_component(0, two, 0);
  expect_same_bits(g, g_ref);
}

TEST(MgOps, SweepsMakingTheirOwnGhostCopiesGiveTheExchangeAndSweepsBits) {
  // gauss_seidel_with_copies: a team per patch copies the patch's ghosts of the colour
  // the sweep reads, then sweeps, in one launch; smooth_in_one_team: one team does
  // every half-sweep's copies and sweep in one launch. Against the exchange (those
  // ghosts) and then the sweep. Three levels: 8^3 patches (periodic seams of even length,
  // walls); the same with every third patch gone, a refined level's correction whose
  // coarse-fine face ghosts are w1 times the cell inside (copies within the patch, of the
  // colour the sweep writes; set after the copies were first asked for, so they are
  // found again), or w1 times it plus w2 times the next (the composite solve's rule, of
  // both colours); one patch, the whole domain (copies from its own periodic images, and
  // a team of every thread, whose barrier must hold). Ghosts one and two cells wide;
  // they start with values no exchange gives, so a copy not made shows.
  const Comm comm;
  const Level lv;
  enum Shape { covering, refined, refined_two_cells, one_patch };
  for (Shape shape : {covering, refined, refined_two_cells, one_patch})
    for (int width : {1, 2}) {
      LevelLayout layout;
      if (shape == one_patch) layout.boxes = {lv.g.domain};
      for (size_t p = 0; p < lv.layout.size() && shape != one_patch; ++p)
        if (shape == covering || p % 3 != 0) layout.boxes.push_back(lv.layout.boxes[p]);
      layout.owner.assign(layout.boxes.size(), 0);
      const auto field = [&](const std::string& label, int seed, int ghost) {
        return ghosted_field(label, layout, lv.g, seed, ghost);
      };
      LevelData a = field("a", 1, width), b = field("b", 1, width);
      LevelData c = field("c", 1, width);
      const LevelData f = field("f", 2, 0);
      if (shape == refined || shape == refined_two_cells) {
        b.copies_by_patch(true);
        const double w2 = shape == refined ? 0.0 : -0.2;
        a.set_coarse_fine_from_inside(-0.6, w2);
        b.set_coarse_fine_from_inside(-0.6, w2);
        c.set_coarse_fine_from_inside(-0.6, w2);
      }
      const BoxSet rows = mg::colour_rows(a);
      for (int sweep = 0; sweep < 2; ++sweep)
        for (int color = 0; color < 2; ++color) {
          SCOPED_TRACE(::testing::Message() << "shape " << shape << " width " << width
                                            << " sweep " << sweep << " colour " << color);
          a.fill_boundary(comm, true, 1 - color);
          mg::gauss_seidel(a, f, rows, color, lv.s, 1.3);
          b.fill_boundary(comm, true, 1 - color, LevelData::Copies::messages);
          mg::gauss_seidel_with_copies(b, b.copies_by_patch(true), f, rows, color, lv.s,
                                       1.3);
          expect_same_bits(a, b);
        }
      // Both sweeps by one team, its copies and sweeps stages of the launch.
      SCOPED_TRACE(::testing::Message()
                   << "one team, shape " << shape << " width " << width);
      mg::smooth_in_one_team(c, c.copies_by_patch(true), f, rows, 2, lv.s, 1.3);
      expect_same_bits(a, c);
    }
}

TEST(MgOps, ResidualMakingItsOwnGhostCopiesGivesTheExchangeAndResidualBits) {
  // residual_with_copies: a team per patch copies the patch's ghosts, then forms the
  // residual, in one launch; against the exchange and then the residual, into another
  // field and in place (r = f). The shapes of the sweeps' test: 8^3 patches, every
  // third gone with a coarse-fine rule of one or two cells inside, or with the composite
  // solve's coarse-fine ghosts from interpolated coarse data (ratios 2 and 4) as a stage
  // of the launch, against composite_cf_ghosts; one patch. (The exchange's rule itself
  // is checked against its formula in mpi_test_level_data.)
  const Comm comm;
  const Level lv;
  enum Shape { covering, refined, refined_two_cells, refined_composite, one_patch };
  for (Shape shape : {covering, refined, refined_two_cells, refined_composite, one_patch})
    for (int width : {1, 2})
      for (bool in_place : {false, true})
        for (int ratio : {2, 4}) {
          if (ratio == 4 && shape != refined_composite) continue;
          SCOPED_TRACE(::testing::Message()
                       << "shape " << shape << " width " << width << " in place "
                       << in_place << " ratio " << ratio);
          LevelLayout layout;
          if (shape == one_patch) layout.boxes = {lv.g.domain};
          for (size_t p = 0; p < lv.layout.size() && shape != one_patch; ++p)
            if (shape == covering || p % 3 != 0)
              layout.boxes.push_back(lv.layout.boxes[p]);
          layout.owner.assign(layout.boxes.size(), 0);
          LevelData a = ghosted_field("a", layout, lv.g, 1, width);
          LevelData b = ghosted_field("b", layout, lv.g, 1, width);
          const LevelData ci = ghosted_field("ci", layout, lv.g, 4, ratio);
          if (shape == refined || shape == refined_two_cells) {
            const double w2 = shape == refined ? 0.0 : 0.3;
            a.set_coarse_fine_from_inside(0.7, w2);
            b.set_coarse_fine_from_inside(0.7, w2);
            EXPECT_THROW(mg::CompositeCfStage(b, ci, ratio), std::logic_error);
          }
          LevelData fa = ghosted_field("fa", layout, lv.g, 2, 0);
          LevelData fb = ghosted_field("fb", layout, lv.g, 2, 0);
          LevelData ra = ghosted_field("ra", layout, lv.g, 3, 0);
          LevelData rb = ghosted_field("rb", layout, lv.g, 3, 0);
          a.fill_boundary(comm, true);
          mg::CompositeCfStage cf;
          if (shape == refined_composite) {
            mg::composite_cf_ghosts(a, ci, ratio);
            cf = mg::CompositeCfStage(b, ci, ratio);
          }
          mg::residual(in_place ? fa : ra, a, fa, lv.s);
          b.fill_boundary(comm, true, -1, LevelData::Copies::messages);
          mg::residual_with_copies(in_place ? fb : rb, b, b.copies_by_patch(true), fb,
                                   lv.s, cf);
          expect_same_bits(a, b);  // the ghosts too
          expect_same_bits(in_place ? fa : ra, in_place ? fb : rb);
        }
}

TEST(MgOps, OneTeamSmoothingGivesTheExchangeAndSweepsBitsAcrossAnOddSeam) {
  // Across a periodic seam of odd length a ghost's colour is not its source's, so a copy
  // reads the colour being swept: smooth_in_one_team still gives the bits of the
  // exchange and the sweeps, its copies and sweeps being stages apart. One 15^3 patch
  // (periodic in y and z, walls in x, so that a team of every thread shares its rows),
  // and the same cut in 5^3 patches.
  const Comm comm;
  LevelGeom g = pw::testing::unit_geom(3, 15);
  g.periodic[0] = false;
  PoissonBc bc;
  bc.lo[0] = {BcKind::dirichlet, 0.25};
  bc.hi[0] = {BcKind::neumann, -0.5};
  const PoissonStencil s = mg::stencil(g, bc);
  for (int size : {15, 5}) {
    LevelLayout layout;
    layout.boxes = chop(g.domain, IntVect::uniform(size), IntVect::uniform(1));
    layout.owner.assign(layout.boxes.size(), 0);
    const auto field = [&](const std::string& label, int seed, int ghost) {
      return ghosted_field(label, layout, g, seed, ghost);
    };
    LevelData a = field("a", 1, 1), c = field("c", 1, 1);
    const LevelData f = field("f", 2, 0);
    const BoxSet rows = mg::colour_rows(a);
    for (int sweep = 0; sweep < 2; ++sweep)
      for (int color = 0; color < 2; ++color) {
        a.fill_boundary(comm, true, 1 - color);
        mg::gauss_seidel(a, f, rows, color, s, 1.3);
      }
    mg::smooth_in_one_team(c, c.copies_by_patch(true), f, rows, 2, s, 1.3);
    SCOPED_TRACE(::testing::Message() << "patches of " << size);
    expect_same_bits(a, c);
  }
}

TEST(MgOps, OneTeamSmoothingFromZeroGivesTheBitsOfZeroingFirst) {
  // A coarse grid's first guess zeroed in its first smoothing's launch (ghosts
  // included): the bits of set_val(0) and the launch without it, with no sweep or two,
  // from values no solve leaves there.
  const Comm comm;
  for (int dim : {2, 3})
    for (auto shape : {TwoGrids::covering, TwoGrids::refined, TwoGrids::one_patch})
      for (int sweeps : {0, 2}) {
        SCOPED_TRACE(::testing::Message()
                     << "dim " << dim << " shape " << shape << " sweeps " << sweeps);
        const TwoGrids t(dim, shape);
        LevelData u[2];
        for (int v = 0; v < 2; ++v) {
          u[v] = ghosted_field("u", t.fine, t.g, 1, 1);
          if (shape == TwoGrids::refined) u[v].set_coarse_fine_from_inside(-0.6);
        }
        const LevelData f = ghosted_field("f", t.fine, t.g, 2, 0);
        const BoxSet rows = mg::colour_rows(u[0]);
        u[0].set_val(0.0);
        mg::smooth_in_one_team(u[0], u[0].copies_by_patch(true), f, rows, sweeps, t.s,
                               1.3);
        mg::smooth_in_one_team(u[1], u[1].copies_by_patch(true), f, rows, sweeps, t.s,
                               1.3, {}, {}, mg::FeedStage{/*zero=*/true});
        expect_same_bits(u[0], u[1]);
      }
}

TEST(MgOps, RestrictionMakingItsOwnGhostCopiesGivesTheExchangeAndRestrictionBits) {
  // After a sweep, the restriction of the residual with the fine ghosts' copies (all, or
  // colour 1's only) and the coarse first guess zeroed in one launch: a team per patch
  // (restrict_residual_with_copies), or as the last stage of the one-team smoothing;
  // against the exchange, restrict_residual and set_val(0). In 2D and 3D, on a covering
  // level, a refined one whose coarse-fine ghosts follow the cell inside (copies within
  // the patch), and one patch over the domain (copies from its own periodic images);
  // ghosts 1 and 2 wide, starting with values no exchange gives.
  const Comm comm;
  for (int dim : {2, 3})
    for (auto shape : {TwoGrids::covering, TwoGrids::refined, TwoGrids::one_patch})
      for (int width : {1, 2})
        for (int parity : {-1, 1}) {
          SCOPED_TRACE(::testing::Message()
                       << "dim " << dim << " shape " << shape << " width " << width
                       << " parity " << parity);
          const TwoGrids t(dim, shape);
          LevelData u[3], crse[3], zeroed[3];
          for (int v = 0; v < 3; ++v) {
            u[v] = ghosted_field("u", t.fine, t.g, 1, width);
            crse[v] = ghosted_field("crse", t.crse, t.cg, 3, 0);
            zeroed[v] = ghosted_field("zeroed", t.crse, t.cg, 4, 1);
            if (shape == TwoGrids::refined) u[v].set_coarse_fine_from_inside(-0.6);
          }
          const LevelData f = ghosted_field("f", t.fine, t.g, 2, 0);
          sweep_with_exchanges(u[0], f, t.s, comm);
          u[0].fill_boundary(comm, true, parity);
          mg::restrict_residual(crse[0], u[0], f, t.s);
          zeroed[0].set_val(0.0);
          sweep_with_exchanges(u[1], f, t.s, comm);
          u[1].fill_boundary(comm, true, parity, LevelData::Copies::messages);
          mg::restrict_residual_with_copies(u[1], u[1].copies_by_patch(true), f, t.s,
                                            {&crse[1], &zeroed[1], parity});
          mg::smooth_in_one_team(u[2], u[2].copies_by_patch(true), f,
                                 mg::colour_rows(u[2]), 1, t.s, 1.3, {},
                                 {&crse[2], &zeroed[2], parity});
          for (int v = 1; v < 3; ++v) {
            SCOPED_TRACE(v == 1 ? "a team per patch" : "one team");
            expect_same_bits(u[0], u[v]);
            expect_same_bits(crse[0], crse[v]);
            expect_same_bits(zeroed[0], zeroed[v]);
          }
        }
}

TEST(MgOps,
     ProlongationMakingItsOwnCoarseGhostsGivesTheExchangeWallsAndProlongationBits) {
  // The prolongation with the coarse ghosts filled in its launch (copies, then the
  // walls, Dirichlet and Neumann with values, edges and corners as
  // fill_physical_boundary orders them), then a sweep: a team per patch
  // (prolong_add_with_copies), or as the first stage of the one-team smoothing; against
  // the exchange (edges and corners too), fill_physical_boundary and prolong_add, each
  // way of prolonging, the shapes of the restriction's test.
  const Comm comm;
  for (int dim : {2, 3})
    for (auto shape : {TwoGrids::covering, TwoGrids::refined, TwoGrids::one_patch})
      for (Prolong how : {Prolong::constant, Prolong::faces, Prolong::multilinear}) {
        SCOPED_TRACE(::testing::Message()
                     << "dim " << dim << " shape " << shape << " prolong " << int(how));
        const TwoGrids t(dim, shape);
        const ComponentBc walls = t.bc.as_bcs()[0];
        LevelData u[3], crse[3];
        for (int v = 0; v < 3; ++v) {
          u[v] = ghosted_field("u", t.fine, t.g, 1, 1);
          crse[v] = ghosted_field("crse", t.crse, t.cg, 2, 1);
          if (shape == TwoGrids::refined) crse[v].set_coarse_fine_from_inside(-0.6);
        }
        const LevelData f = ghosted_field("f", t.fine, t.g, 3, 0);
        crse[0].fill_boundary(comm, false, -1);
        crse[0].fill_physical_boundary({walls});
        mg::prolong_add(u[0], crse[0].refs(), dim, how);
        sweep_with_exchanges(u[0], f, t.s, comm);
        crse[1].fill_boundary(comm, false, -1, LevelData::Copies::messages);
        mg::prolong_add_with_copies(
            u[1], {&crse[1], &crse[1].copies_by_patch(false), walls, how});
        sweep_with_exchanges(u[1], f, t.s, comm);
        mg::smooth_in_one_team(
            u[2], u[2].copies_by_patch(true), f, mg::colour_rows(u[2]), 1, t.s, 1.3,
            {&crse[2], &crse[2].copies_by_patch(false), walls, how}, {});
        for (int v = 1; v < 3; ++v) {
          SCOPED_TRACE(v == 1 ? "a team per patch" : "one team");
          expect_same_bits(crse[0], crse[v]);
          expect_same_bits(u[0], u[v]);
        }
      }
}
