// LevelTags::reached_blocks: the device reduction of a level's tags to the clustering
// blocks they reach gives exactly the blocks of the tags' own reach, and the fine boxes
// made from those blocks are the ones made from the tags.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "amr/box_list.hpp"
#include "amr/fine_boxes.hpp"
#include "amr/level_tags.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;

// Device lambdas live in free functions of a named namespace (CUDA's rule).
namespace reached_blocks_test {

/// Whether cell (i, j, k) is tagged: a ball round `c` of radius^2 r2 (as a run's tags
/// cluster), and unless `ball_only`, scattered cells and every cell on the domain's faces
/// in x (the buffer then reaches across a periodic boundary or beyond a wall).
KOKKOS_INLINE_FUNCTION bool tagged(int i, int j, int k, const IntVect& c, int r2,
                                   const Box& dom, bool ball_only) {
  const int dx = i - c[0], dy = j - c[1], dz = k - c[2];
  if (dx * dx + dy * dy + dz * dz <= r2) return true;
  return !ball_only &&
         ((i * 7 + j * 13 + k * 5) % 23 == 0 || i == dom.lo[0] || i == dom.hi[0]);
}

/// Tags the cells of tags.cells() that tagged() picks, on the device.
void tag_cells(const LevelTags& tags, const IntVect& c, int r2, const Box& dom,
               bool ball_only) {
  for_each_box_cell(
      "test::tag", tags.cells(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        if (tagged(i, j, k, c, r2, dom, ball_only)) tags.of(p)(i, j, k) = 1;
      });
}

}  // namespace reached_blocks_test

namespace {

std::vector<IntVect> triples(const std::vector<int>& v) {
  std::vector<IntVect> out(v.size() / 3);
  for (size_t n = 0; n < out.size(); ++n)
    out[n] = {v[3 * n], v[3 * n + 1], v[3 * n + 2]};
  return out;
}

std::vector<IntVect> sorted_unique(std::vector<IntVect> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// q wrapped into box dom in the periodic directions of g; false if it lies outside.
bool wrap_into(IntVect& q, const Box& dom, const LevelGeom& g) {
  for (int d = 0; d < g.dim; ++d)
    if (g.periodic[d]) {
      const int n = dom.size()[d];
      q[d] = dom.lo[d] + ((q[d] - dom.lo[d]) % n + n) % n;
    }
  return dom.contains(q);
}

/// The blocks (of c cells) of the domain that the given blocks wrap to.
std::vector<IntVect> wrapped(std::vector<IntVect> blocks, const LevelGeom& g,
                             const IntVect& c) {
  const Box cdom = coarsen(g.domain, c);
  std::vector<IntVect> out;
  for (IntVect q : blocks)
    if (wrap_into(q, cdom, g)) out.push_back(q);
  return sorted_unique(out);
}

struct Case {
  int dim, n;
  bool periodic;
  FineBoxParams p;
};

/// Runs one case on the domain cut into patches of n/4 a side, those with lo = 0 in x
/// and y left out (a corner in 2D, a column along z in 3D: nesting trims some blocks).
void check(const Case& cs) {
  LevelGeom g = pw::testing::unit_geom(cs.dim, cs.n);
  for (int d = 0; d < 3; ++d)
    g.periodic[d] = cs.periodic;
  const int s = cs.n / 4;
  BoxList all = chop(g.domain, IntVect::in_dims(cs.dim, s, 1), IntVect::uniform(1));
  BoxList coarse;
  std::vector<int> owned;
  for (const Box& b : all)
    if (!(b.lo[0] == 0 && b.lo[1] == 0)) {
      owned.push_back(int(coarse.size()));
      coarse.push_back(b);
    }
  const IntVect centre{cs.n / 2, cs.n / 2 + 3, cs.dim == 3 ? cs.n / 2 : 0};
  const int r2 = cs.n * cs.n / 16;

  const LevelTags tags(coarse, owned);
  reached_blocks_test::tag_cells(tags, centre, r2, g.domain, false);
  const TagReach reach = tag_reach(cs.p, g);
  const std::vector<IntVect> blocks = triples(tags.reached_blocks(reach));

  // The reference: every tag's own blocks, on the host.
  std::vector<IntVect> cells;
  for (const Box& b : coarse)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i)
          if (reached_blocks_test::tagged(i, j, k, centre, r2, g.domain, false))
            cells.push_back({i, j, k});
  ASSERT_EQ(triples(tags.tagged_cells()).size(), cells.size());
  // Brute force, not TagReach: every cell within n_error_buf of a tag, wrapped (or
  // dropped beyond a wall), and its block.
  IntVect c = IntVect::uniform(1);
  for (int d = 0; d < cs.dim; ++d)
    c[d] = std::max(1, cs.p.blocking_factor / cs.p.ratio[d]);
  const IntVect buf = IntVect::in_dims(cs.dim, cs.p.n_error_buf, 0);
  std::vector<IntVect> expected;
  for (const IntVect& t : cells) {
    const Box r = grow(Box{t, t}, buf);
    for (int k = r.lo[2]; k <= r.hi[2]; ++k)
      for (int j = r.lo[1]; j <= r.hi[1]; ++j)
        for (int i = r.lo[0]; i <= r.hi[0]; ++i) {
          IntVect q{i, j, k};
          if (wrap_into(q, g.domain, g)) expected.push_back(coarsen(q, c));
        }
  }
  EXPECT_EQ(wrapped(blocks, g, c), sorted_unique(expected));

  const BoxList fine = make_fine_boxes(cells, coarse, g, cs.p);
  EXPECT_FALSE(fine.empty());
  EXPECT_EQ(make_fine_boxes_from_blocks(blocks, coarse, g, cs.p), fine);
}

}  // namespace

TEST(ReachedBlocks, AreTheTagsOwnBlocksAndGiveTheSameFineBoxes3D) {
  for (bool periodic : {true, false})
    for (int buf : {0, 1, 3})
      for (int blocking : {2, 4, 8}) {  // blocks of 1, 2 and 4 cells a side
        SCOPED_TRACE(::testing::Message() << "periodic " << periodic << " n_error_buf "
                                          << buf << " blocking_factor " << blocking);
        check({3, 32, periodic, {{2, 2, 2}, blocking, 16, buf, 1, 0.7}});
      }
}

TEST(ReachedBlocks, AreTheTagsOwnBlocksAndGiveTheSameFineBoxes2D) {
  // Ratio 4 (blocks of 2 cells), and a buffer wider than the domain (clipped where it
  // would wrap onto itself).
  for (bool periodic : {true, false})
    for (const FineBoxParams& p : {FineBoxParams{{4, 4, 1}, 8, 32, 2, 1, 0.7},
                                   FineBoxParams{{2, 2, 1}, 8, 16, 1, 1, 0.8},
                                   FineBoxParams{{2, 2, 1}, 8, 16, 40, 1, 0.7}}) {
      SCOPED_TRACE(::testing::Message() << "periodic " << periodic << " n_error_buf "
                                        << p.n_error_buf << " ratio " << p.ratio[0]);
      check({2, 64, periodic, p});
    }
}

TEST(ReachedBlocks, AreFewerThanTheTaggedCells) {
  // Blocks of 4^3 cells: a ball of tags gives far fewer blocks than cells, even split
  // among 8 patches that each report the blocks their part reaches (2109 cells, 300
  // blocks).
  const LevelGeom g = pw::testing::unit_geom(3, 32);
  const BoxList coarse = chop(g.domain, IntVect::uniform(16), IntVect::uniform(1));
  const std::vector<int> owned{0, 1, 2, 3, 4, 5, 6, 7};
  const LevelTags tags(coarse, owned);
  reached_blocks_test::tag_cells(tags, IntVect{16, 16, 16}, 64, g.domain, true);
  const FineBoxParams p{{2, 2, 2}, 8, 16, 1, 1, 0.7};
  const size_t blocks = tags.reached_blocks(tag_reach(p, g)).size();
  const size_t cells = tags.tagged_cells().size();
  EXPECT_GT(cells, 0u);
  EXPECT_LT(4 * blocks, cells);
}
