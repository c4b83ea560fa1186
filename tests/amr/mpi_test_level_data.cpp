// LevelData at 1, 2 and 4 ranks: the ghost exchange reproduces a global function at any
// ghost width (periodic images included) with work between its two phases, its messages
// through host mirrors or device buffers, and copies exactly one colour's or the faces'
// ghosts when asked, and has the ghosts of the patches it names on-rank filled before its
// messages arrive, and sets a multigrid correction's coarse-fine face ghosts from the
// cell inside when asked; coarse-fine ghosts are the quadratic interpolant in space and
// linear in time, exact for quadratic data; average-down is the exact mean, written
// in one launch where it goes (and one more to unpack what other ranks sent).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "amr/launch_counter.hpp"
#include "amr/level_data.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;
using pw::testing::HostFab;
using pw::testing::round_robin;
using pw::testing::wrap;

namespace {

LevelGeom square(int dim, int n) {
  LevelGeom g;
  g.dim = dim;
  g.domain = Box{{0, 0, 0}, {n - 1, n - 1, dim == 3 ? n - 1 : 0}};
  for (double& h : g.dx)
    h = 1.0 / n;
  return g;
}

/// Mean over a cell of centre c and widths h of 1 + x - y/2 + x^2 + 0.3 y^2 - 0.7 xy.
double quadratic_mean(double cx, double cy, double hx, double hy) {
  return 1.0 + cx - 0.5 * cy + (cx * cx + hx * hx / 12) + 0.3 * (cy * cy + hy * hy / 12) -
         0.7 * cx * cy;
}

/// 2 components of a periodic n^d grid cut into patches of at most `most` cells: the
/// interiors hold `value` (a function of the periodic image's cell), the ghosts -1.
struct Numbered {
  int dim, n;
  LevelData u;
  Numbered(const Comm& comm, int dim_, int n_, int most, int width) : dim(dim_), n(n_) {
    const LevelGeom g = square(dim, n);
    const LevelLayout L = round_robin(
        chop(g.domain, IntVect::in_dims(dim, most, 1), IntVect::in_dims(dim, 4, 1)),
        comm.size());
    u = LevelData("u", L, g, 2, IntVect::in_dims(dim, width, 0), comm.rank());
    reset();
  }
  /// Interiors to `value`, ghosts to -1.
  void reset() {
    u.set_val(-1.0);
    for (size_t p = 0; p < u.size(); ++p)
      if (u.owns(p))
        pw::testing::set(
            u[p], [&](int i, int j, int k, int c) { return value(i, j, k, c); },
            u.box(p));
  }
  double value(int i, int j, int k, int c) const {
    return 1000.0 * c + 100.0 * wrap(i, n) + 10.0 * wrap(j, n) +
           (dim == 3 ? wrap(k, n) : 0);
  }
};

}  // namespace

TEST(LevelData, GhostExchangeFillsEveryWidthThroughPeriodicImages) {
  // One plan's exchanges with MPI handed the device buffers themselves
  // (PATCHWORK_GPU_AWARE_MPI), then the buffers' host mirrors (made late, for kept
  // buffers), and again. On a host backend both are the same memory: this proves which
  // buffer MPI gets and the data layout, not a GPU's ordering.
  for (int dim : {2, 3})
    for (int width : {1, 3}) {
      Comm comm;
      Numbered grid(comm, dim, 16, 8, width);
      LevelData& u = grid.u;
      for (bool device : {true, false, true, false}) {
        comm.set_device_buffers(device);
        grid.reset();
        u.fill_boundary_begin(comm);
        LevelData other = u.like("other");  // work while the messages fly
        other.set_val(3.0);
        u.fill_boundary_finish(comm);
        for (size_t p = 0; p < u.size(); ++p) {
          if (!u.owns(p)) continue;
          HostFab h(u[p]);
          const Box b = u[p].box;
          for (int c = 0; c < 2; ++c)
            for (int k = b.lo[2]; k <= b.hi[2]; ++k)
              for (int j = b.lo[1]; j <= b.hi[1]; ++j)
                for (int i = b.lo[0]; i <= b.hi[0]; ++i)
                  ASSERT_EQ(h(i, j, k, c), grid.value(i, j, k, c))
                      << "dim " << dim << " width " << width << " device buffers "
                      << device << " cell " << i << "," << j;
        }
      }
    }
}

TEST(LevelData, PatchesWhoseGhostsAreOnRankAreFilledBeforeTheMessagesArrive) {
  // 128 x 64 cells in 8^2 patches, periodic in x only, owned by blocks of columns: a
  // patch is on-rank when no ghost comes from another rank's patch and none lies beyond
  // the walls at y = 0 and 63.
  const Comm comm;
  const int nr = comm.size(), width = 2;
  LevelGeom g;
  g.dim = 2;
  g.domain = Box{{0, 0, 0}, {127, 63, 0}};
  g.periodic[1] = false;
  LevelLayout L;
  L.boxes = chop(g.domain, IntVect{8, 8, 1}, IntVect{8, 8, 1});
  for (const Box& b : L.boxes)
    L.owner.push_back(b.lo[0] / 8 * nr / 16);
  const auto value = [](int i, int j, int c) {
    return 1000.0 * c + 100.0 * wrap(i, 128) + double(j);
  };
  LevelData u("u", L, g, 2, IntVect{width, width, 0}, comm.rank());
  u.set_val(-1.0);
  std::vector<int> owned;
  for (size_t p = 0; p < u.size(); ++p)
    if (u.owns(p)) {
      owned.push_back(int(p));
      pw::testing::set(
          u[p], [&](int i, int j, int, int c) { return value(i, j, c); }, u.box(p));
    }
  const LevelData::PatchGroup &ready = u.ghosts_on_rank(true),
                              &waiting = u.ghosts_on_rank(false);
  std::vector<int> both = ready.patches;
  both.insert(both.end(), waiting.patches.begin(), waiting.patches.end());
  std::sort(both.begin(), both.end());
  EXPECT_EQ(both, owned);  // every owned patch, once
  EXPECT_EQ(ready.interiors.size(), int(ready.patches.size()));
  // Rows 1..6 of the columns whose neighbours (x +- 1, periodic) are this rank's too.
  const int columns = 16 / nr;
  EXPECT_EQ(int(ready.patches.size()), 6 * (nr == 1 ? columns : columns - 2));
  // The ready patches' ghosts are right before the exchange finishes; all are after.
  const auto check = [&](const std::vector<int>& patches, const char* when) {
    for (int p : patches) {
      HostFab h(u[size_t(p)]);
      const Box b = u[size_t(p)].box;
      for (int c = 0; c < 2; ++c)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i)
            ASSERT_EQ(h(i, j, 0, c), j < 0 || j > 63 ? -1.0 : value(i, j, c))
                << when << ": patch " << p << " cell " << i << "," << j;
    }
  };
  u.fill_boundary_begin(comm);
  check(ready.patches, "after begin");
  u.fill_boundary_finish(comm);
  check(owned, "after finish");
}

TEST(LevelData, GhostExchangeOfOneColourOrFacesOnlyCopiesExactlyThoseCells) {
  // What red-black smoothing asks of the exchange: with a parity, the ghost cells of that
  // colour and no other; with cross, those beside a face and no edge or corner. Patches
  // of 4 to 12 cells, so that pieces are 1-2 cells thin in x, y or z (rows then run along
  // another side), some rows odd.
  const Comm comm;
  for (int dim : {2, 3})
    for (int width : {1, 2})
      for (bool cross : {false, true})
        for (int parity : {-1, 0, 1}) {
          Numbered grid(comm, dim, 20, 12, width);
          LevelData& u = grid.u;
          u.fill_boundary(comm, cross, parity);
          for (size_t p = 0; p < u.size(); ++p) {
            if (!u.owns(p)) continue;
            HostFab h(u[p]);
            const Box in = u.box(p), b = u[p].box;
            for (int c = 0; c < 2; ++c)
              for (int k = b.lo[2]; k <= b.hi[2]; ++k)
                for (int j = b.lo[1]; j <= b.hi[1]; ++j)
                  for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
                    const int q[3] = {i, j, k};
                    int out = 0;
                    for (int d = 0; d < 3; ++d)
                      out += q[d] < in.lo[d] || q[d] > in.hi[d];
                    const bool copied = out > 0 && (!cross || out == 1) &&
                                        (parity < 0 || ((i + j + k) & 1) == parity);
                    const double want =
                        out == 0 || copied ? grid.value(i, j, k, c) : -1.0;
                    ASSERT_EQ(h(i, j, k, c), want)
                        << "dim " << dim << " width " << width << " cross " << cross
                        << " parity " << parity << " cell " << i << "," << j << "," << k;
                  }
          }
        }
}

TEST(LevelData, CoarseFineGhostsAreQuadraticInSpaceAndLinearInTime) {
  const Comm comm;
  const int n = 16;
  const LevelGeom cg = square(2, n);
  const LevelLayout C =
      round_robin(chop(cg.domain, IntVect{8, 8, 1}, IntVect{4, 4, 1}), comm.size());
  const IntVect r{2, 2, 1};
  const LevelGeom fg = cg.refined(r);
  // Two fine patches side by side in the middle: their shared side is filled by the
  // exchange, the rest of their ghosts from the coarse level.
  const LevelLayout F = round_robin(
      {Box{{8, 8, 0}, {15, 23, 0}}, Box{{16, 8, 0}, {23, 23, 0}}}, comm.size(), 1);
  const IntVect g{2, 2, 0};
  LevelData c_old("c_old", C, cg, 1, g, comm.rank()), c_new = c_old.like("c_new");
  LevelData fine("fine", F, fg, 1, g, comm.rank());
  const double h = cg.dx[0];
  for (size_t p = 0; p < C.size(); ++p)
    if (c_old.owns(p)) {
      auto q = [&](int i, int j, int, int) {
        return quadratic_mean((i + 0.5) * h, (j + 0.5) * h, h, h);
      };
      pw::testing::set(c_old[p], q, C.boxes[p]);
      pw::testing::set(
          c_new[p], [&](int i, int j, int k, int c) { return 3 * q(i, j, k, c); },
          C.boxes[p]);
    }
  c_old.fill_boundary(comm);
  c_new.fill_boundary(comm);
  auto fine_q = [&](int i, int j) {
    return quadratic_mean((i + 0.5) * h / 2, (j + 0.5) * h / 2, h / 2, h / 2);
  };
  fine.set_val(-1.0);
  for (size_t p = 0; p < F.size(); ++p)
    if (fine.owns(p))
      pw::testing::set(
          fine[p], [&](int i, int j, int, int) { return 2 * fine_q(i, j); }, F.boxes[p]);
  fine.fill_boundary(comm);
  // The same coarse states as component 2 of states of three components, whose others
  // are poison (reading one of them shows), filled from there where they are: the same
  // bits.
  LevelData s_old("s_old", C, cg, 3, g, comm.rank()), s_new = s_old.like("s_new");
  s_old.set_val(1e30);
  s_new.set_val(-1e30);
  s_old.copy_component(2, c_old, 0);
  s_new.copy_component(2, c_new, 0);
  LevelData from_part = fine.like("from_part");
  // At time a the coarse-fine ghosts hold (1 - a) q + a 3 q = (1 + 2 a) q; the interior
  // and the side the two patches share stay 2 q. Away from a = 0.5 a swap of the old and
  // new weights shows.
  for (const double a : {0.25, 0.0, 1.0, 0.5}) {
    fine.fill_from_coarse(c_old, c_new, a, r, {Interp::quadratic}, BcSet(1), comm);
    from_part.fill_from_coarse(s_old, s_new, a, r, {Interp::quadratic}, BcSet(1), comm,
                               2);
    for (size_t p = 0; p < F.size(); ++p) {
      if (!fine.owns(p)) continue;
      HostFab hf(fine[p]), hp(from_part[p]);
      const Box b = fine[p].box;
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
          const IntVect at{i, j, 0};
          const bool in_fine = F.boxes[0].contains(at) || F.boxes[1].contains(at);
          ASSERT_NEAR(hf(i, j, 0), (in_fine ? 2 : 1 + 2 * a) * fine_q(i, j), 1e-12)
              << "a " << a << " at " << i << "," << j;
          if (!in_fine)
            ASSERT_EQ(hp(i, j, 0), hf(i, j, 0)) << "a " << a << " at " << i << "," << j;
        }
    }
  }
  // Average-down replaces the coarse cells under the fine patches by 2 q.
  fine.average_down_to(c_old, r, comm);
  for (size_t p = 0; p < C.size(); ++p) {
    if (!c_old.owns(p)) continue;
    HostFab hc(c_old[p]);
    const Box b = C.boxes[p];
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        const bool under = i >= 4 && i <= 11 && j >= 4 && j <= 11;
        const double q = quadratic_mean((i + 0.5) * h, (j + 0.5) * h, h, h);
        ASSERT_NEAR(hc(i, j, 0), under ? 2 * q : q, 1e-12) << i << "," << j;
      }
  }
}

TEST(LevelData, CoarseFineFaceGhostsFollowTheCellInsideInTheSameExchange) {
  // A refined level's multigrid correction (set_coarse_fine_from_inside): its ghost
  // cells beside exactly one face, in the first layer, that no patch covers are w times
  // the cell inside (plus w2 times the next one in, the composite solve's rule); the
  // exchange's other cells are as before (copies, through a
  // periodic image too); edges and corners no patch covers, the second layer, and cells
  // beyond a wall are left. Patches of 4 to 8 cells, some beside a wall, two meeting
  // across the periodic seam in x, so that a face ghost may be copied, set from inside
  // or left.
  const Comm comm;
  const double w = -0.6;
  const int n = 32;
  for (int dim : {2, 3})
    for (int width : {1, 2})
      for (bool cross : {false, true})
        for (int parity : {-1, 0, 1})
          for (double w2 : {0.0, 0.35}) {
            LevelGeom g = square(dim, n);
            g.periodic[1] = g.periodic[2] = false;
            const IntVect lo = IntVect::in_dims(dim, 4, 0),
                          hi = IntVect::in_dims(dim, 19, 0);
            BoxList boxes = chop(Box{lo, hi}, IntVect::in_dims(dim, 8, 1),
                                 IntVect::in_dims(dim, 4, 1));
            const int top = dim == 3 ? 7 : 0;
            boxes.push_back(Box{{28, 0, 0}, {31, 7, top}});  // at the wall y = 0
            boxes.push_back(Box{{0, 4, 0}, {3, 11, top}});   // across the seam from it
            const LevelLayout L = round_robin(boxes, comm.size());
            const auto value = [&](int i, int j, int k, int c) {
              return 1000.0 * c + 100.0 * wrap(i, n) + 10.0 * j + (dim == 3 ? k : 0) +
                     0.5;
            };
            LevelData u("u", L, g, 2, IntVect::in_dims(dim, width, 0), comm.rank());
            // The plans built before the rule are built again; not while in use.
            u.fill_boundary_begin(comm);
            EXPECT_THROW(u.set_coarse_fine_from_inside(w, w2), std::logic_error);
            u.fill_boundary_finish(comm);
            u.set_coarse_fine_from_inside(w, w2);
            u.set_val(-1.0);
            for (size_t p = 0; p < u.size(); ++p)
              if (u.owns(p)) pw::testing::set(u[p], value, u.box(p));
            u.fill_boundary(comm, cross, parity);
            const auto covered = [&](int i, int j, int k) {
              for (const Box& b : L.boxes)
                if (b.contains(IntVect{wrap(i, n), j, k})) return true;
              return false;
            };
            for (size_t p = 0; p < u.size(); ++p) {
              if (!u.owns(p)) continue;
              HostFab h(u[p]);
              const Box in = u.box(p), b = u[p].box;
              for (int c = 0; c < 2; ++c)
                for (int k = b.lo[2]; k <= b.hi[2]; ++k)
                  for (int j = b.lo[1]; j <= b.hi[1]; ++j)
                    for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
                      const int q[3] = {i, j, k};
                      int out = 0, d = 0, step = 0;  // step: the ghost's offset along d
                      for (int e = 0; e < 3; ++e) {
                        if (q[e] < in.lo[e]) ++out, d = e, step = q[e] - in.lo[e];
                        if (q[e] > in.hi[e]) ++out, d = e, step = q[e] - in.hi[e];
                      }
                      const bool colour = parity < 0 || ((i + j + k) & 1) == parity;
                      const bool beyond_wall =
                          j < 0 || j >= n || (dim == 3 && (k < 0 || k >= n));
                      double want = -1.0;
                      if (out == 0) {
                        want = value(i, j, k, c);
                      } else if (beyond_wall || !colour) {
                      } else if (covered(i, j, k)) {
                        if (!cross || out == 1) want = value(i, j, k, c);
                      } else if (out == 1 && (step == 1 || step == -1)) {
                        int r[3] = {i, j, k}, r2[3] = {i, j, k};
                        r[d] -= step;
                        r2[d] -= 2 * step;
                        want = w * value(r[0], r[1], r[2], c);
                        if (w2 != 0.0) want += w2 * value(r2[0], r2[1], r2[2], c);
                      }
                      ASSERT_EQ(h(i, j, k, c), want)
                          << "dim " << dim << " width " << width << " cross " << cross
                          << " parity " << parity << " w2 " << w2 << " patch " << p
                          << " cell " << i << "," << j << "," << k;
                    }
            }
          }
}

TEST(LevelData, ACoarseFineRuleOfTwoCellsRefusesAPatchOneCellWide) {
  // Every rank sees the whole layout, so every rank refuses, before the plans change.
  const Comm comm;
  const LevelGeom g = square(2, 16);
  const LevelLayout L =
      round_robin({Box{{0, 0, 0}, {7, 7, 0}}, Box{{8, 0, 0}, {8, 7, 0}}}, comm.size());
  LevelData u("u", L, g, 1, IntVect::in_dims(2, 1, 0), comm.rank());
  EXPECT_THROW(u.set_coarse_fine_from_inside(0.5, 0.25), std::logic_error);
  EXPECT_FALSE(u.coarse_fine_from_inside().has_value());
  u.set_coarse_fine_from_inside(0.5);  // one cell inside: any width
  ASSERT_TRUE(u.coarse_fine_from_inside().has_value());
  EXPECT_EQ(u.coarse_fine_from_inside()->w1, 0.5);
  u.fill_boundary(comm);
}

// A rank works out the coarse-fine regions of its own fine patches and of those whose
// coarse cells (under their ghosts, and one more for slopes) lie on its coarse patches,
// not the whole level's, and still sends every coarse cell a fill needs: one fine patch
// sits inside each coarse patch, one beside a row of coarse patches that only its
// slopes read (a rank that fails to send that row leaves the fill waiting), and one
// beside the periodic edge, whose ghosts and slopes read coarse cells through the image.
TEST(LevelData, EachRankWorksOutTheCoarseFineRegionsBesideItsPatchesOnly) {
  const Comm comm;
  const int n = 64;
  const LevelGeom cg = square(2, n);
  const LevelLayout C =
      round_robin(chop(cg.domain, IntVect{16, 16, 1}, IntVect{4, 4, 1}), comm.size());
  const IntVect r{2, 2, 1}, g{2, 2, 0};
  BoxList in_coarse;  // coarse cells of the fine patches
  for (const Box& b : C.boxes)
    in_coarse.push_back(Box{b.lo + IntVect{5, 5, 0}, b.lo + IntVect{10, 10, 0}});
  in_coarse.push_back(Box{{13, 9, 0}, {18, 14, 0}});
  in_coarse.push_back(Box{{58, 45, 0}, {63, 50, 0}});
  BoxList fine_boxes;
  for (const Box& b : in_coarse)
    fine_boxes.push_back(refine(b, r));
  // Coarse patch q is rank q % size's: a row of them per rank at 4 ranks (chop splits
  // x first). The fine patches are another rank's than the coarse one they sit on.
  const LevelLayout F = round_robin(fine_boxes, comm.size(), 2);
  LevelData crse("crse", C, cg, 1, g, comm.rank());
  LevelData fine("fine", F, cg.refined(r), 1, g, comm.rank());
  crse.set_val(1.0);
  fine.set_val(-1.0);
  fine.fill_from_coarse(crse, crse, 1.0, r, {Interp::linear}, BcSet(1), comm);
  size_t expected = 0;
  for (size_t p = 0; p < F.size(); ++p) {
    bool in = F.owner[p] == comm.rank();
    const Box under = grow(grow(in_coarse[p], IntVect{1, 1, 0}), IntVect{1, 1, 0});
    for (size_t q = 0; q < C.size(); ++q)
      for (int sx = -1; sx <= 1; ++sx)
        for (int sy = -1; sy <= 1; ++sy)
          in = in || (C.owner[q] == comm.rank() &&
                      intersects(under, shift(C.boxes[q], IntVect{n * sx, n * sy, 0})));
    expected += in;
  }
  EXPECT_EQ(fine.cf_regions_found(), expected);
  if (comm.size() == 4) EXPECT_LT(fine.cf_regions_found(), F.size());
  // No fine patch touches another: every ghost cell of an owned patch came from the
  // coarse level, 1 (central, unlimited slopes: a wrong coarse cell would show).
  for (size_t p = 0; p < F.size(); ++p) {
    if (!fine.owns(p)) continue;
    HostFab h(fine[p]);
    const Box b = fine[p].box;
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        if (!F.boxes[p].contains(IntVect{i, j, 0})) ASSERT_EQ(h(i, j, 0), 1.0);
  }
}

TEST(LevelData, AverageDownWritesEachMeanWhereItGoesInOneLaunch) {
  // A 3D level in 8^3 patches over the middle of a 16^3 coarse level in 8^3 patches,
  // both dealt round-robin from different ranks, so that at 2 and 4 ranks most means go
  // to another rank. Two components; every mean is the sum in the kernel's order over
  // the cell's 8 fine cells, halved thrice: the same bits.
  const Comm comm;
  const LevelGeom cg = square(3, 16);
  const IntVect r = IntVect::uniform(2);
  const LevelLayout C =
      round_robin(chop(cg.domain, IntVect::uniform(8), IntVect::uniform(4)), comm.size());
  const LevelLayout F = round_robin(
      chop(Box{{4, 4, 4}, {27, 27, 19}}, IntVect::uniform(8), IntVect::uniform(4)),
      comm.size(), 1);
  LevelData crse("crse", C, cg, 2, IntVect::uniform(1), comm.rank());
  LevelData fine("fine", F, cg.refined(r), 2, IntVect::uniform(1), comm.rank());
  const auto value = [](int i, int j, int k, int c) {
    return std::sin(0.3 * i + 0.7 * c) * std::cos(0.2 * j - 0.1 * k) + 0.01 * k;
  };
  for (size_t p = 0; p < F.size(); ++p)
    if (fine.owns(p)) pw::testing::set(fine[p], value, F.boxes[p]);
  crse.set_val(-1.0);
  fine.average_down_to(crse, r, comm);
  const Box under = coarsen(Box{{4, 4, 4}, {27, 27, 19}}, r);
  for (size_t q = 0; q < C.size(); ++q) {
    if (!crse.owns(q)) continue;
    HostFab h(crse[q]);
    const Box b = C.boxes[q];
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i)
          for (int c = 0; c < 2; ++c) {
            double want = -1.0;
            if (under.contains(IntVect{i, j, k})) {
              double sum = 0.0;
              for (int kk = 0; kk < 2; ++kk)
                for (int jj = 0; jj < 2; ++jj)
                  for (int ii = 0; ii < 2; ++ii)
                    sum += value(2 * i + ii, 2 * j + jj, 2 * k + kk, c);
              want = sum / 8.0;
            }
            ASSERT_EQ(h(i, j, k, c), want) << i << "," << j << "," << k << " c " << c;
          }
  }
  // One launch averages into this rank's coarse patches and the messages; one more
  // unpacks where this rank receives means.
  bool receives = false;
  for (size_t q = 0; q < C.size(); ++q)
    for (size_t p = 0; p < F.size(); ++p)
      receives = receives || (crse.owns(q) && !fine.owns(p) &&
                              intersects(C.boxes[q], coarsen(F.boxes[p], r)));
  LaunchCounter counter;
  fine.average_down_to(crse, r, comm);
  Kokkos::fence();
  EXPECT_EQ(counter.launches(), receives ? 2 : 1);
}
