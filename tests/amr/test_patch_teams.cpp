// team_plane_cells (amr/patch_teams.hpp): each cell of the box once, whether its team has
// one thread or several (one patch: on a threaded backend its team has every thread), and
// the cells it runs between the box's rows inside the flat range of each plane, never
// beyond, nor beyond the arrays.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <vector>

#include "amr/field3.hpp"
#include "amr/patch_teams.hpp"

using namespace pw;

namespace patch_teams_test {

/// Cells counted before and after each team's copy of the frame: a visit there is one
/// beyond the frame.
constexpr long guard = 64;

/// Visits of each cell of `frame` (rows of frame.size()[0]) by team_plane_cells over b,
/// run by `teams` teams at once (each counts into its own copy, between guards).
std::vector<long> visits(const Box& frame, const Box& b, int teams) {
  const long n = frame.num_cells() + 2 * guard;
  Kokkos::View<long*> count("visits", size_t(n) * teams);
  long* c = count.data() + guard;
  const long row = frame.size()[0];
  for_each_team(
      "test::plane_cells", teams, 0, KOKKOS_LAMBDA(const TeamMember& m, int t, double*) {
        const Field3 f = field_over(nullptr, frame);
        team_plane_cells(m, b, row, [&](int i, int j, int k) {
          Kokkos::atomic_add(&c[t * n + f.off + i + f.sj * j + f.sk * k], 1L);
        });
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), count);
  return std::vector<long>(host.data(), host.data() + host.size());
}

void check(const Box& frame, const Box& b, int teams) {
  const std::vector<long> v = visits(frame, b, teams);
  const IntVect n = frame.size();
  const long copy = frame.num_cells() + 2 * guard;
  for (int t = 0; t < teams; ++t)
    for (long g = 0; g < guard; ++g) {
      ASSERT_EQ(v[size_t(t * copy + g)], 0) << "team " << t << ": before the frame";
      ASSERT_EQ(v[size_t((t + 1) * copy - 1 - g)], 0) << "team " << t << ": after it";
    }
  for (int t = 0; t < teams; ++t)
    for (int k = frame.lo[2]; k <= frame.hi[2]; ++k)
      for (int j = frame.lo[1]; j <= frame.hi[1]; ++j)
        for (int i = frame.lo[0]; i <= frame.hi[0]; ++i) {
          const long at = (i - frame.lo[0]) +
                          n[0] * ((j - frame.lo[1]) + long(n[1]) * (k - frame.lo[2]));
          const long got = v[size_t(t * copy + guard + at)];
          // Between the box's first and last cell of plane k, in flat order.
          const bool in_plane = k >= b.lo[2] && k <= b.hi[2];
          const long flat = i + long(n[0]) * j;
          const bool in_range = in_plane && flat >= b.lo[0] + long(n[0]) * b.lo[1] &&
                                flat <= b.hi[0] + long(n[0]) * b.hi[1];
          if (b.contains(IntVect{i, j, k}))
            ASSERT_EQ(got, 1) << "team " << t << " cell " << i << "," << j << "," << k;
          else if (in_range)
            ASSERT_LE(got, 1) << "team " << t << " cell " << i << "," << j << "," << k;
          else
            ASSERT_EQ(got, 0) << "team " << t << " cell " << i << "," << j << "," << k;
        }
}

}  // namespace patch_teams_test

using namespace patch_teams_test;

TEST(PatchTeams, PlaneCellsVisitEachCellOnceAndStayInTheirPlanes) {
  const Box frame{{-2, -2, -1}, {17, 17, 18}};
  check(frame, Box{{0, -1, -1}, {15, 16, 16}}, 1);  // one team: all threads share it
  check(frame, Box{{-1, 0, 0}, {16, 15, 15}}, 3);
  check(frame, Box{{-2, -2, -1}, {17, 17, 18}}, 1);                // the whole frame
  check(frame, Box{{3, 5, 7}, {3, 5, 7}}, 2);                      // one cell
  check(Box{{0, 0, 0}, {9, 6, 0}}, Box{{1, 1, 0}, {8, 5, 0}}, 1);  // 2D: one plane
}
