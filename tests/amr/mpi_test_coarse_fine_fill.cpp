// The coarse-fine fill's one launch (amr/coarse_fine_launch.cpp) at 1, 2 and 4 ranks
// against the one-fab path it replaced: the coarse level blended in time into one fab of
// the whole domain, its periodic ghosts exchanged and its walls filled
// (fill_physical_boundary), then interpolate_to_fine over each fine fab. Every ghost cell
// that the fine level does not cover gets those bits, and no other cell is written, in
// 2D and 3D, at ratios 2 and 4, with walls of every kind beside the fine patches,
// periodic seams, four runs of interpolation kinds (gas_state among them) and weights in
// time of 0, 1 and between (the state of weight 0 NaN: not read).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "amr/interpolate.hpp"
#include "amr/level_data.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;
using pw::testing::HostFab;
using pw::testing::round_robin;
using pw::testing::wrap;

namespace {

constexpr int nc = 9;

/// Quadratic, a gas state, linear, conservative linear twice: four runs.
std::vector<Interp> kinds() {
  std::vector<Interp> k{Interp::quadratic};
  k.insert(k.end(), 5, Interp::gas_state);
  k.insert(k.end(),
           {Interp::linear, Interp::conservative_linear, Interp::conservative_linear});
  return k;
}

/// A different condition on each wall of each component (the gas state's too, so that a
/// component or face mixed up shows).
BcSet conditions() {
  const BcKind order[] = {BcKind::reflect_even, BcKind::dirichlet, BcKind::neumann,
                          BcKind::reflect_odd,  BcKind::outflow,   BcKind::fixed};
  BcSet bcs(nc);
  for (int c = 0; c < nc; ++c)
    for (int d = 0; d < 3; ++d) {
      bcs[size_t(c)].lo[d] = {order[(c + 2 * d) % 6], 0.25 + 0.5 * c};
      bcs[size_t(c)].hi[d] = {order[(c + 2 * d + 3) % 6], -1.5 + d};
    }
  return bcs;
}

/// A value in [0, 1) for each cell of the domain (its periodic image), component and
/// state, with no pattern an interpolation could reproduce by accident.
double noise(int i, int j, int k, int c, int state) {
  std::uint64_t h = std::uint64_t(i) * 73856093u ^ std::uint64_t(j) * 19349663u ^
                    std::uint64_t(k) * 83492791u ^ std::uint64_t(c) * 2654435761u ^
                    std::uint64_t(state) * 40503u;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return double(h % 1000003) / 1000003.0;
}

/// Coarse state `state`: components 1-5 a gas state with a positive pressure (density,
/// three momenta, total energy), the others noise.
double coarse_value(int i, int j, int k, int c, int state) {
  const double x = noise(i, j, k, c, state);
  if (c == 1) return 0.5 + x;
  if (c >= 2 && c <= 4) return 0.4 * (x - 0.5);
  if (c == 5) return 2.0 + x;
  return x;
}

struct Case {
  int dim;
  int ratio;
};

void check(const Case& t, const Comm& comm) {
  const int n = 16;
  LevelGeom cg = pw::testing::unit_geom(t.dim, n);
  cg.periodic[0] = false;  // walls in x and z, a periodic seam in y
  cg.periodic[2] = false;
  const IntVect r = IntVect::in_dims(t.dim, t.ratio, 1);
  const LevelGeom fg = cg.refined(r);
  const IntVect ghost = IntVect::in_dims(t.dim, 2, 0);
  const LevelLayout C = round_robin(
      chop(cg.domain, IntVect::in_dims(t.dim, 8, 1), IntVect::in_dims(t.dim, 4, 1)),
      comm.size(), 1);
  // In coarse cells: two patches side by side at the lo walls and the seam (the second
  // shorter in y, so its side faces the first in part), and one at the hi walls and the
  // seam's other side.
  const int z1 = t.dim == 3 ? 3 : 0, zlo = t.dim == 3 ? 12 : 0, zhi = t.dim == 3 ? 15 : 0;
  const BoxList crse_boxes{Box{{0, 0, 0}, {3, 5, z1}}, Box{{4, 0, 0}, {7, 3, z1}},
                           Box{{10, 12, zlo}, {15, 15, zhi}}};
  BoxList fine_boxes;
  for (const Box& b : crse_boxes)
    fine_boxes.push_back(refine(b, r));
  const LevelLayout F = round_robin(fine_boxes, comm.size());
  LevelData c_old("c_old", C, cg, nc, ghost, comm.rank()), c_new = c_old.like("c_new");
  for (size_t p = 0; p < C.size(); ++p)
    if (c_old.owns(p)) {
      pw::testing::set(
          c_old[p],
          [&](int i, int j, int k, int c) { return coarse_value(i, j, k, c, 0); },
          C.boxes[p]);
      pw::testing::set(
          c_new[p],
          [&](int i, int j, int k, int c) { return coarse_value(i, j, k, c, 1); },
          C.boxes[p]);
    }
  LevelData fine("fine", F, fg, nc, ghost, comm.rank());
  const BcSet bcs = conditions();
  const std::vector<Interp> interp = kinds();
  // The reference's coarse fab: the whole domain, on every rank.
  const Comm self(MPI_COMM_SELF);
  LevelData whole("whole", LevelLayout{{cg.domain}, {0}}, cg, nc, ghost, 0);
  // A state of weight 0 is not read: NaN in its place would show.
  LevelData nan = c_old.like("nan");
  nan.set_val(std::numeric_limits<double>::quiet_NaN());
  for (const double a : {0.3, 0.0, 1.0}) {
    const double poison = -7.0;
    fine.set_val(poison);
    fine.fill_from_coarse(a == 1.0 ? nan : c_old, a == 0.0 ? nan : c_new, a, r, interp,
                          bcs, comm);
    pw::testing::set(
        whole[0],
        [&](int i, int j, int k, int c) {
          return (1.0 - a) * coarse_value(i, j, k, c, 0) +
                 a * coarse_value(i, j, k, c, 1);
        },
        cg.domain);
    whole.fill_boundary(self);
    whole.fill_physical_boundary(bcs);
    long filled = 0;
    for (size_t p = 0; p < F.size(); ++p) {
      if (!fine.owns(p)) continue;
      Fab ref("ref", fine[p].box, nc);
      interpolate_to_fine(whole[0], ref, ref.box, r, t.dim, interp);
      const HostFab got(fine[p]), want(ref);
      const Box b = fine[p].box;
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
            // A coarse-fine ghost: inside the walls and covered by no fine patch (its
            // periodic image in y).
            const IntVect at{i, wrap(j, fg.domain.hi[1] + 1), k};
            bool cf = !F.boxes[p].contains({i, j, k}) && fg.domain.contains(at);
            for (const Box& f : F.boxes)
              cf = cf && !f.contains(at);
            filled += cf;
            for (int c = 0; c < nc; ++c)
              ASSERT_EQ(got(i, j, k, c), cf ? want(i, j, k, c) : poison)
                  << "dim " << t.dim << " ratio " << t.ratio << " a " << a << " patch "
                  << p << " cell " << i << "," << j << "," << k << " component " << c;
          }
    }
    // The case reaches what it is for: ghosts to fill on every rank that owns a patch.
    if (comm.rank() < int(F.size())) EXPECT_GT(filled, 0);
  }
}

}  // namespace

TEST(CoarseFineFill, TheOneLaunchGivesTheOneFabPathsBits) {
  const Comm comm;
  for (const Case t : {Case{3, 2}, Case{3, 4}, Case{2, 2}, Case{2, 4}})
    check(t, comm);
}

TEST(CoarseFineFill, AConditionCountOtherThanTheComponentsIsRefusedOnEveryRank) {
  // A caller's bug, refused before any message is sent, on every rank alike (not only
  // where a scratch fab reaches a wall, or a rank owns a coarse patch): no rank waits
  // for one that threw.
  const Comm comm;
  LevelGeom cg = pw::testing::unit_geom(2, 8);
  cg.periodic[0] = false;
  const IntVect r{2, 2, 1};
  const LevelLayout C = round_robin(chop(cg.domain, {4, 4, 1}, {4, 4, 1}), comm.size());
  // One fine patch in the middle, far from the walls.
  const LevelLayout F = round_robin({Box{{6, 6, 0}, {9, 9, 0}}}, comm.size());
  const IntVect ghost{1, 1, 0};
  LevelData crse("crse", C, cg, 2, ghost, comm.rank());
  LevelData fine("fine", F, cg.refined(r), 2, ghost, comm.rank());
  crse.set_val(1.0);
  const std::vector<Interp> interp(2, Interp::linear);
  EXPECT_THROW(fine.fill_from_coarse(crse, crse, 0.0, r, interp, BcSet(1), comm),
               std::logic_error);
  // So are a short interpolation list and components beyond the coarse states'.
  EXPECT_THROW(
      fine.fill_from_coarse(crse, crse, 0.0, r, {Interp::linear}, BcSet(2), comm),
      std::logic_error);
  EXPECT_THROW(fine.fill_from_coarse(crse, crse, 0.0, r, interp, BcSet(2), comm, 1),
               std::logic_error);
  // And the fill still works afterwards: nothing was left in flight.
  fine.fill_from_coarse(crse, crse, 0.0, r, interp, BcSet(2), comm);
  if (fine.owns(0)) EXPECT_EQ(HostFab(fine[0])(5, 5, 0, 1), 1.0);
}
