// The multigrid launches that make their own ghost copies, across ranks: after an
// exchange of its messages only (LevelData::Copies::messages) each patch's team unpacks
// what other ranks sent beside its on-rank copies, and a sweep packs what the next
// exchange sends (Copies::packed): the bits of the whole exchange and the separate
// launches (at 1 rank: no message).
#include <gtest/gtest.h>

#include "amr/launch_counter.hpp"
#include "solver/mg_ops.hpp"
#include "solver/shared_feed.hpp"
#include "solver/team_cg.hpp"
#include "tests/solver/mg_ops_testing.hpp"

using namespace pw;
using namespace pw::testing;

TEST(MgOpsAcrossRanks, LaunchesUnpackingTheirMessagesGiveTheExchangeBits) {
  // Patches dealt round-robin, so most ghosts come from another rank: two sweeps, the
  // residual, the restriction after a sweep (colour 1's ghosts) with the coarse first
  // guess zeroed, and the prolongation (the coarse ghosts, edges and corners, and the
  // walls) packing what the next half-sweep's exchange sends; 2D and 3D, a covering
  // level and a refined one whose coarse-fine ghosts follow the cell inside, ghosts 1
  // and 2 wide. Every ghost starts with a value no
  // exchange gives, and each stage follows one that changed the cells its exchange
  // reads, so a message not unpacked shows.
  const Comm comm;
  const int me = comm.rank();
  const LevelData::Copies messages = LevelData::Copies::messages,
                          packed = LevelData::Copies::packed;
  for (int dim : {2, 3})
    for (auto shape : {TwoGrids::covering, TwoGrids::refined})
      for (int width : {1, 2}) {
        SCOPED_TRACE(::testing::Message()
                     << "dim " << dim << " shape " << shape << " width " << width);
        const TwoGrids t(dim, shape, comm.size());
        LevelData u[2], r[2], crse[2], zeroed[2];
        for (int v = 0; v < 2; ++v) {
          u[v] = ghosted_field("u", t.fine, t.g, 1, width, me);
          r[v] = ghosted_field("r", t.fine, t.g, 2, 0, me);
          crse[v] = ghosted_field("crse", t.crse, t.cg, 3, 1, me);
          zeroed[v] = ghosted_field("zeroed", t.crse, t.cg, 4, 1, me);
          if (shape == TwoGrids::refined) u[v].set_coarse_fine_from_inside(-0.6);
        }
        const LevelData f = ghosted_field("f", t.fine, t.g, 5, 0, me);
        // The first half-sweep's exchange packs; each sweep then packs what the next
        // exchange sends (the last: every cell, for the residual's).
        const BoxSet rows = mg::colour_rows(u[0]);
        for (int sweep = 0; sweep < 2; ++sweep)
          for (int color = 0; color < 2; ++color) {
            u[0].fill_boundary(comm, true, 1 - color);
            mg::gauss_seidel(u[0], f, rows, color, t.s, 1.3);
            const bool first = sweep == 0 && color == 0, last = sweep == 1 && color == 1;
            u[1].fill_boundary(comm, true, 1 - color, first ? messages : packed);
            mg::gauss_seidel_with_copies(u[1], u[1].copies_by_patch(true), f, rows, color,
                                         t.s, 1.3, last ? -1 : color);
            SCOPED_TRACE(::testing::Message()
                         << "sweep " << sweep << " colour " << color);
            expect_same_bits(u[0], u[1]);
          }
        u[0].fill_boundary(comm, true);
        mg::residual(r[0], u[0], f, t.s);
        u[1].fill_boundary(comm, true, -1, packed);
        mg::residual_with_copies(r[1], u[1], u[1].copies_by_patch(true), f, t.s);
        {
          SCOPED_TRACE("residual");
          expect_same_bits(u[0], u[1]);
          expect_same_bits(r[0], r[1]);
        }
        // u[1]'s sweep packs the restriction's messages (colour 1's) in its last launch.
        sweep_with_exchanges(u[0], f, t.s, comm);
        for (int color = 0; color < 2; ++color) {
          u[1].fill_boundary(comm, true, 1 - color, color == 0 ? messages : packed);
          mg::gauss_seidel_with_copies(u[1], u[1].copies_by_patch(true), f, rows, color,
                                       t.s, 1.3, color);
        }
        u[0].fill_boundary(comm, true, 1);
        mg::restrict_residual(crse[0], u[0], f, t.s);
        zeroed[0].set_val(0.0);
        u[1].fill_boundary(comm, true, 1, packed);
        mg::restrict_residual_with_copies(u[1], u[1].copies_by_patch(true), f, t.s,
                                          {&crse[1], &zeroed[1], 1});
        {
          SCOPED_TRACE("restriction");
          expect_same_bits(u[0], u[1]);
          expect_same_bits(crse[0], crse[1]);
          expect_same_bits(zeroed[0], zeroed[1]);
        }
        const ComponentBc walls = t.bc.as_bcs()[0];
        crse[0].fill_boundary(comm);
        crse[0].fill_physical_boundary({walls});
        mg::prolong_add(u[0], crse[0].refs(), dim, Prolong::multilinear);
        crse[1].fill_boundary(comm, false, -1, messages);
        // Its launch packs what the first half-sweep after it reads (colour 1's).
        mg::prolong_add_with_copies(
            u[1],
            {&crse[1], &crse[1].copies_by_patch(false), walls, Prolong::multilinear},
            &u[1].copies_by_patch(true), 1);
        {
          SCOPED_TRACE("prolongation");
          expect_same_bits(crse[0], crse[1]);
          expect_same_bits(u[0], u[1]);
        }
        u[0].fill_boundary(comm, true, 1);
        mg::gauss_seidel(u[0], f, rows, 0, t.s, 1.3);
        u[1].fill_boundary(comm, true, 1, packed);
        mg::gauss_seidel_with_copies(u[1], u[1].copies_by_patch(true), f, rows, 0, t.s,
                                     1.3);
        SCOPED_TRACE("the half-sweep after the prolongation");
        expect_same_bits(u[0], u[1]);
      }
}

TEST(MgOpsAcrossRanks, AHalfSweepAcrossRanksIsOneLaunch) {
  // The sender packs (one launch), the sweep's launch unpacks: no launch of its own; and
  // after a sweep that packed, the sweep's launch is all.
  const Comm comm;
  const TwoGrids t(3, TwoGrids::covering, comm.size());
  LevelData u = ghosted_field("u", t.fine, t.g, 1, 1, comm.rank());
  const LevelData f = ghosted_field("f", t.fine, t.g, 2, 0, comm.rank());
  const BoxSet rows = mg::colour_rows(u);
  const auto half_sweep = [&](int color, LevelData::Copies which) {
    u.fill_boundary(comm, true, 1 - color, which);
    mg::gauss_seidel_with_copies(u, u.copies_by_patch(true), f, rows, color, t.s, 1.0,
                                 color);
  };
  half_sweep(0, LevelData::Copies::messages);  // plans, buffers, copies built once
  half_sweep(1, LevelData::Copies::packed);
  const auto launches = [](auto&& f) {
    const LaunchCounter counter;
    f();
    return counter.launches();
  };
  // Round-robin: at 2 ranks or more every rank sends and receives.
  EXPECT_EQ(launches([&] { half_sweep(0, LevelData::Copies::messages); }),
            comm.size() > 1 ? 2 : 1);
  EXPECT_EQ(u.exchange_has_messages(true), comm.size() > 1);
  EXPECT_EQ(launches([&] { half_sweep(1, LevelData::Copies::packed); }), 1);
}

TEST(MgOpsAcrossRanks, ASharedFeedGivesEveryRankTheRestrictionOfEveryPatch) {
  // A coarse grid every rank holds whole, fed from the distributed grid above: each
  // rank's restriction launch writes and packs its own patches, the exchange sends them,
  // and the coarse grid's first launch (the one-team smoothing, CG, or mg::feed alone)
  // takes the others' and zeroes its first guess. Against the same restriction made by
  // every rank from the whole fine grid, then set_val(0) and the launch without a feed.
  // 2D and 3D; one patch (on rank 0: the others own none, and only receive), and many.
  const Comm comm, self(MPI_COMM_SELF);
  const int me = comm.rank();
  for (int dim : {2, 3})
    for (auto shape : {TwoGrids::covering, TwoGrids::refined, TwoGrids::one_patch}) {
      SCOPED_TRACE(::testing::Message() << "dim " << dim << " shape " << shape);
      const TwoGrids t(dim, shape, comm.size());
      const PoissonStencil cs = mg::stencil(t.cg, t.bc.homogeneous());
      // Every patch on this rank (the held grids; the fine grid whole, for the
      // reference).
      LevelLayout fine_whole = t.fine, held = t.crse;
      fine_whole.owner.assign(t.fine.size(), me);
      held.owner.assign(t.crse.size(), me);
      LevelData u = ghosted_field("u", t.fine, t.g, 1, 1, me);
      LevelData uw = ghosted_field("u", fine_whole, t.g, 1, 1, me);
      const LevelData f = ghosted_field("f", t.fine, t.g, 2, 0, me);
      const LevelData fw = ghosted_field("f", fine_whole, t.g, 2, 0, me);
      uw.fill_boundary(self, true);
      LevelData rhs_ref = ghosted_field("rhs", held, t.cg, 3, 0, me);
      mg::restrict_residual(rhs_ref, uw, fw, t.s);
      // Three held grids fed each way, from their own restriction.
      LevelData rhs[3], phi[3], ref[3];
      for (int v = 0; v < 3; ++v) {
        rhs[v] = ghosted_field("rhs", held, t.cg, 3, 0, me);
        phi[v] = ghosted_field("phi", held, t.cg, 4, 1, me);
        ref[v] = ghosted_field("phi", held, t.cg, 4, 1, me);
        ref[v].set_val(0.0);
        mg::SharedFeed feed(rhs[v], t.fine.owner, comm);
        u.fill_boundary(comm, true, -1, LevelData::Copies::messages);
        mg::restrict_residual_with_copies(
            u, u.copies_by_patch(true), f, t.s,
            {&rhs[v], nullptr, -1, &feed.rows(), &feed.copies()});
        feed.exchange(rhs[v], comm);
        const mg::FeedStage fed{true, &feed.copies()};
        const BoxSet rows = mg::colour_rows(phi[v]);
        if (v == 0) {
          mg::feed(phi[v], rhs[v], fed);
        } else if (v == 1) {
          mg::smooth_in_one_team(phi[v], phi[v].copies_by_patch(true), rhs[v], rows, 2,
                                 cs, 1.3, {}, {}, fed);
          mg::smooth_in_one_team(ref[v], ref[v].copies_by_patch(true), rhs_ref, rows, 2,
                                 cs, 1.3);
        } else {
          LevelData r = rhs[v].like("r"), q = rhs[v].like("q"), p = phi[v].like("p"),
                    r2 = r.like("r"), q2 = q.like("q"), p2 = p.like("p");
          mg::TeamCg(p, cs).solve(phi[v], rhs[v], r, p, q, 1e-6, 5, fed);
          mg::TeamCg(p2, cs).solve(ref[v], rhs_ref, r2, p2, q2, 1e-6, 5);
        }
        SCOPED_TRACE(v == 0 ? "mg::feed" : v == 1 ? "one-team smoothing" : "CG");
        expect_same_bits(rhs[v], rhs_ref);
        expect_same_bits(phi[v], ref[v]);
      }
    }
}
