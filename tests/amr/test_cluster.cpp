// Tagging to boxes: Berger-Rigoutsos clustering and the level l -> l+1 box pipeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "amr/cluster.hpp"
#include "amr/fine_boxes.hpp"

using namespace pw;

namespace {

std::vector<IntVect> cells_of(const Box& b) {
  std::vector<IntVect> out;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        out.push_back({i, j, k});
  return out;
}

std::vector<IntVect> cells_of(const BoxList& boxes) {
  std::vector<IntVect> out;
  for (const Box& b : boxes) {
    std::vector<IntVect> c = cells_of(b);
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

bool covered(const BoxList& boxes, const IntVect& p) {
  for (const Box& b : boxes)
    if (b.contains(p)) return true;
  return false;
}

bool pairwise_disjoint(const BoxList& boxes) {
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j)
      if (intersects(boxes[i], boxes[j])) return false;
  return true;
}

/// Random cells in a few Gaussian blobs inside `dom` (z = 0 when dim = 2).
std::vector<IntVect> blob_tags(const Box& dom, int dim, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<IntVect> tags;
  for (int blob = 0; blob < 4; ++blob) {
    IntVect centre;
    for (int d = 0; d < dim; ++d)
      centre[d] = std::uniform_int_distribution<int>(dom.lo[d], dom.hi[d])(rng);
    std::normal_distribution<double> spread(0.0, 3.0);
    for (int t = 0; t < n / 4; ++t) {
      IntVect p = centre;
      for (int d = 0; d < dim; ++d)
        p[d] += int(std::lround(spread(rng)));
      if (dom.contains(p)) tags.push_back(p);
    }
  }
  return tags;
}

/// Every tag covered once, no overlaps, the threshold met except by unsplittable boxes,
/// sorted.
void expect_valid_clusters(std::vector<IntVect> tags, const BoxList& boxes, double eff,
                           int dim) {
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  EXPECT_TRUE(std::is_sorted(boxes.begin(), boxes.end()));
  Box hullbox;
  for (const IntVect& t : tags)
    hullbox = hull(hullbox, Box{t, t});
  // owner[cell of the tag hull] = index of the box holding it: a dense map finds
  // overlaps.
  const IntVect n = hullbox.size();
  std::vector<int> owner(hullbox.num_cells(), -1);
  auto at = [&](const IntVect& p) -> int& {
    const IntVect q = p - hullbox.lo;
    return owner[(long(q[2]) * n[1] + q[1]) * n[0] + q[0]];
  };
  int overlaps = 0;
  for (size_t b = 0; b < boxes.size(); ++b) {
    ASSERT_TRUE(hullbox.contains(boxes[b])) << boxes[b];
    for (const IntVect& p : cells_of(boxes[b])) {
      if (at(p) >= 0) ++overlaps;
      at(p) = int(b);
    }
  }
  EXPECT_EQ(overlaps, 0);
  std::vector<long> count(boxes.size(), 0);
  int uncovered = 0;
  for (const IntVect& t : tags) {
    if (at(t) < 0)
      ++uncovered;
    else
      ++count[at(t)];
  }
  EXPECT_EQ(uncovered, 0);
  for (size_t b = 0; b < boxes.size(); ++b) {
    bool single = true;
    for (int d = 0; d < dim; ++d)
      single = single && boxes[b].size()[d] == 1;
    EXPECT_TRUE(single || double(count[b]) >= eff * double(boxes[b].num_cells()))
        << boxes[b] << " holds " << count[b] << " tags";
  }
}

}  // namespace

TEST(Cluster, CoversEveryTagWithDisjointBoxesMeetingTheEfficiency) {
  for (int dim : {2, 3}) {
    const Box dom{{0, 0, 0}, {63, 63, dim == 3 ? 63 : 0}};
    for (double eff : {0.5, 0.7, 0.9}) {
      const std::vector<IntVect> tags = blob_tags(dom, dim, 4000, 17u + dim);
      const BoxList boxes = berger_rigoutsos(tags, eff, dim);
      SCOPED_TRACE(testing::Message() << "dim " << dim << " eff " << eff);
      expect_valid_clusters(tags, boxes, eff, dim);
    }
  }
}

TEST(Cluster, EmptyTagsGiveNoBoxes) {
  EXPECT_TRUE(berger_rigoutsos({}, 0.7, 3).empty());
}

TEST(Cluster, TwoSeparatedBlobsGiveTwoBoxes) {
  const Box a{{0, 0, 0}, {3, 3, 0}};
  const Box b{{10, 2, 0}, {13, 5, 0}};
  std::vector<IntVect> tags = cells_of(BoxList{a, b});
  EXPECT_EQ(berger_rigoutsos(tags, 0.7, 2), (BoxList{a, b}));
}

TEST(Cluster, CutsAtTheHoleNearestTheMiddle) {
  // Runs x = [0,5], [7,12], [14,15]: 14 of 16 cells. Cutting the hole at 6 first leaves
  // [7,15] at 8/9 < 0.9, so the hole at 13 is cut too; cutting at 13 first would have
  // accepted [0,12] at 12/13.
  std::vector<IntVect> tags =
      cells_of(BoxList{Box{{0, 0, 0}, {5, 0, 0}}, Box{{7, 0, 0}, {12, 0, 0}},
                       Box{{14, 0, 0}, {15, 0, 0}}});
  EXPECT_EQ(berger_rigoutsos(tags, 0.9, 2),
            (BoxList{Box{{0, 0, 0}, {5, 0, 0}}, Box{{7, 0, 0}, {12, 0, 0}},
                     Box{{14, 0, 0}, {15, 0, 0}}}));
}

TEST(Cluster, LShapeSplitsAtTheInflection) {
  // A 12x4 bar with a 4x8 bar on its left end. Signature in x and in y is
  // (12,12,12,12,4,...,4): no hole, the Laplacian flips at 3|4, off the middle where a
  // bisection would cut. Both directions tie, so x, the lower one, is cut.
  std::vector<IntVect> tags =
      cells_of(BoxList{Box{{0, 0, 0}, {11, 3, 0}}, Box{{0, 4, 0}, {3, 11, 0}}});
  const BoxList boxes = berger_rigoutsos(tags, 0.8, 2);
  EXPECT_EQ(boxes, (BoxList{Box{{0, 0, 0}, {3, 11, 0}}, Box{{4, 0, 0}, {11, 3, 0}}}));
}

TEST(Cluster, CutsAtTheStrongestInflection) {
  // Columns of height 12, 10 and 2, each 4 wide. The x signature (12,..,10,..,2,..) bends
  // harder at 7|8 (jump 16) than at 3|4 (jump 4), and either y bend (jump 8): cutting at
  // 8 leaves [0,7] x [0,11] at 88/96 >= 0.9, where the weak cut first would give three
  // boxes.
  std::vector<IntVect> tags = cells_of(BoxList{
      Box{{0, 0, 0}, {3, 11, 0}}, Box{{4, 0, 0}, {7, 9, 0}}, Box{{8, 0, 0}, {11, 1, 0}}});
  EXPECT_EQ(berger_rigoutsos(tags, 0.9, 2),
            (BoxList{Box{{0, 0, 0}, {7, 11, 0}}, Box{{8, 0, 0}, {11, 1, 0}}}));
}

TEST(Cluster, EfficientBoundingBoxIsKeptWhole) {
  // 15 of 16 cells tagged: one box at efficiency 0.9, a split at 0.95.
  std::vector<IntVect> tags = cells_of(Box{{0, 0, 0}, {3, 3, 0}});
  tags.erase(tags.begin() + 5);
  EXPECT_EQ(berger_rigoutsos(tags, 0.9, 2), (BoxList{Box{{0, 0, 0}, {3, 3, 0}}}));
  const BoxList split = berger_rigoutsos(tags, 0.95, 2);
  EXPECT_GT(split.size(), 1u);
  expect_valid_clusters(tags, split, 0.95, 2);
}

TEST(Cluster, ResultDoesNotDependOnTagOrderOrDuplicates) {
  const Box dom{{-20, -20, -20}, {40, 40, 40}};
  std::vector<IntVect> tags = blob_tags(dom, 3, 3000, 5u);
  const BoxList ref = berger_rigoutsos(tags, 0.7, 3);
  std::mt19937 rng(11u);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<IntVect> perm = tags;
    perm.insert(perm.end(), tags.begin(), tags.begin() + tags.size() / 3);
    std::shuffle(perm.begin(), perm.end(), rng);
    EXPECT_EQ(berger_rigoutsos(perm, 0.7, 3), ref);
  }
}

TEST(Cluster, TwoDimensionalRunNeverCutsZ) {
  // Two columns of tags with a gap in z: with dim = 2 every box keeps the full z span,
  // even when the threshold cannot be met; with dim = 3 the gap in z is used.
  std::vector<IntVect> tags;
  for (int k : {0, 1, 5}) {
    for (const IntVect& p : cells_of(Box{{0, 0, k}, {3, 3, k}}))
      tags.push_back(p);
    for (const IntVect& p : cells_of(Box{{9, 0, k}, {12, 2, k}}))
      tags.push_back(p);
  }
  for (double eff : {0.4, 0.9}) {
    const BoxList two_d = berger_rigoutsos(tags, eff, 2);
    expect_valid_clusters(tags, two_d, eff, 2);
    for (const Box& b : two_d) {
      EXPECT_EQ(b.lo[2], 0) << b;
      EXPECT_EQ(b.hi[2], 5) << b;
    }
    if (eff < 0.5) {
      EXPECT_EQ(two_d.size(), 2u);
    }
  }
  const BoxList three_d = berger_rigoutsos(tags, 0.9, 3);
  expect_valid_clusters(tags, three_d, 0.9, 3);
  EXPECT_EQ(three_d.size(), 4u);
}

TEST(Cluster, HandlesAHundredThousandTags) {
  // A spherical shell of ~1.3e5 cells: the case a dense bitmap over the domain would not
  // scale.
  const int r = 60;
  std::vector<IntVect> tags;
  for (const IntVect& p :
       cells_of(Box{IntVect::uniform(-r - 2), IntVect::uniform(r + 2)})) {
    const double rr =
        std::sqrt(double(p[0]) * p[0] + double(p[1]) * p[1] + double(p[2]) * p[2]);
    if (std::abs(rr - r) < 1.5) tags.push_back(p);
  }
  ASSERT_GT(tags.size(), 100000u);
  const BoxList boxes = berger_rigoutsos(tags, 0.7, 3);
  expect_valid_clusters(tags, boxes, 0.7, 3);
}

// ---------------------------------------------------------------------------------------
// make_fine_boxes

namespace {

LevelGeom geom2d(int n, bool periodic) {
  LevelGeom g;
  g.dim = 2;
  g.domain = Box{{0, 0, 0}, {n - 1, n - 1, 0}};
  g.periodic[0] = g.periodic[1] = periodic;  // z keeps the default: 2D must ignore it
  return g;
}

/// Wrap p into the domain along periodic used directions; false if outside otherwise.
bool wrap(IntVect& p, const LevelGeom& g) {
  for (int d = 0; d < g.dim; ++d) {
    const int n = g.domain.size()[d];
    if (g.periodic[d]) p[d] = g.domain.lo[d] + ((p[d] - g.domain.lo[d]) % n + n) % n;
  }
  return g.domain.contains(p);
}

/// Brute force: every level-l cell within n_proper of c is covered or beyond a physical
/// wall.
bool nested_cell(const IntVect& c, const BoxList& coarse, const LevelGeom& g,
                 int n_proper) {
  const IntVect w = IntVect::in_dims(g.dim, n_proper, 0);
  for (IntVect q : cells_of(grow(Box{c, c}, w)))
    if (wrap(q, g) && !covered(coarse, q)) return false;
  return true;
}

/// Checks every promise of make_fine_boxes against brute-force references.
void expect_valid_fine_boxes(const BoxList& fine, const std::vector<IntVect>& tags,
                             const BoxList& coarse, const LevelGeom& g,
                             const FineBoxParams& p) {
  EXPECT_TRUE(std::is_sorted(fine.begin(), fine.end()));
  EXPECT_TRUE(pairwise_disjoint(fine));
  const Box fine_domain = refine(g.domain, p.ratio);
  for (const Box& b : fine) {
    EXPECT_TRUE(fine_domain.contains(b)) << b;
    for (int d = 0; d < g.dim; ++d) {
      EXPECT_EQ(b.lo[d] % p.blocking_factor, 0) << b;
      EXPECT_EQ(b.size()[d] % p.blocking_factor, 0) << b;
      EXPECT_LE(b.size()[d], p.max_grid_size) << b;
    }
    // Proper nesting: the coarsened box grown by n_proper lies in the coarse union, up to
    // periodic images and physical walls.
    const Box halo = grow(coarsen(b, p.ratio), IntVect::in_dims(g.dim, p.n_proper, 0));
    int outside = 0;
    for (IntVect q : cells_of(halo))
      if (wrap(q, g) && !covered(coarse, q)) ++outside;
    EXPECT_EQ(outside, 0) << b << " is not properly nested";
  }
  // Coverage: each buffered tag whose whole block is nested is refined into the fine
  // boxes.
  IntVect c = IntVect::uniform(1);
  for (int d = 0; d < g.dim; ++d)
    c[d] = std::max(1, p.blocking_factor / p.ratio[d]);
  const IntVect buf = IntVect::in_dims(g.dim, p.n_error_buf, 0);
  int missed = 0;
  for (const IntVect& t : tags)
    for (IntVect q : cells_of(grow(Box{t, t}, buf))) {
      if (!wrap(q, g)) continue;
      const Box block = refine(coarsen(Box{q, q}, c), c);
      bool block_nested = true;
      for (const IntVect& x : cells_of(block))
        block_nested = block_nested && nested_cell(x, coarse, g, p.n_proper);
      if (block_nested && !covered(fine, q * p.ratio)) ++missed;
    }
  EXPECT_EQ(missed, 0);
}

/// Level-l patches covering only part of a 64^2 domain; the last touches the periodic y
/// edge.
BoxList partial_coarse_2d() {
  return {Box{{0, 0, 0}, {31, 31, 0}}, Box{{32, 0, 0}, {63, 15, 0}},
          Box{{0, 48, 0}, {15, 63, 0}}, Box{{40, 32, 0}, {55, 47, 0}}};
}

std::vector<IntVect> tags_on(const BoxList& coarse, int stride) {
  std::vector<IntVect> tags;
  for (const IntVect& p : cells_of(coarse))
    if ((p[0] * 7 + p[1] * 3) % stride == 0) tags.push_back(p);
  return tags;
}

}  // namespace

TEST(FineBoxes, AlignedToBlockingFactorAndNoLongerThanMaxGridSize) {
  const LevelGeom g = geom2d(64, true);
  const BoxList coarse{g.domain};
  const FineBoxParams p{{2, 2, 1}, 8, 16, 1, 1, 0.7};
  const std::vector<IntVect> tags = blob_tags(g.domain, 2, 800, 3u);
  const BoxList fine = make_fine_boxes(tags, coarse, g, p);
  ASSERT_FALSE(fine.empty());
  expect_valid_fine_boxes(fine, tags, coarse, g, p);
}

TEST(FineBoxes, ProperlyNestedInACoarseLevelWithHoles) {
  const BoxList coarse = partial_coarse_2d();
  const std::vector<IntVect> tags = tags_on(coarse, 11);
  for (bool periodic : {true, false})
    for (int n_proper : {0, 1, 2, 5}) {
      SCOPED_TRACE(testing::Message()
                   << "periodic " << periodic << " n_proper " << n_proper);
      const LevelGeom g = geom2d(64, periodic);
      const FineBoxParams p{{2, 2, 1}, 8, 32, 2, n_proper, 0.7};
      const BoxList fine = make_fine_boxes(tags, coarse, g, p);
      ASSERT_FALSE(fine.empty());
      expect_valid_fine_boxes(fine, tags, coarse, g, p);
    }
}

TEST(FineBoxes, PhysicalBoundaryDoesNotCountAsUncovered) {
  // The left half is covered. At a wall the tag at x = 0 is nested; with x periodic its
  // neighbours across the edge are the uncovered x = 30, 31, so nothing is.
  const BoxList coarse{Box{{0, 0, 0}, {15, 31, 0}}};
  const FineBoxParams p{{2, 2, 1}, 8, 64, 1, 2, 0.7};
  const std::vector<IntVect> tags{{0, 0, 0}};
  const LevelGeom wall = geom2d(32, false);
  EXPECT_EQ(make_fine_boxes(tags, coarse, wall, p), (BoxList{Box{{0, 0, 0}, {7, 7, 0}}}));
  LevelGeom per_x = wall;
  per_x.periodic[0] = true;
  EXPECT_TRUE(make_fine_boxes(tags, coarse, per_x, p).empty());
}

TEST(FineBoxes, TagsNearThePeriodicEdgeWrapAround) {
  // Tag at x = 0 grown by 2 reaches x = 62, 63: with c = 4 that is block 15 on the far
  // side.
  const FineBoxParams p{{2, 2, 1}, 8, 16, 2, 1, 0.7};
  const std::vector<IntVect> tags{{0, 32, 0}};
  const LevelGeom per = geom2d(64, true);
  EXPECT_EQ(make_fine_boxes(tags, BoxList{per.domain}, per, p),
            (BoxList{Box{{0, 56, 0}, {7, 71, 0}}, Box{{120, 56, 0}, {127, 71, 0}}}));
  const LevelGeom wall = geom2d(64, false);
  EXPECT_EQ(make_fine_boxes(tags, BoxList{wall.domain}, wall, p),
            (BoxList{Box{{0, 56, 0}, {7, 71, 0}}}));
  // A corner tag reaches all four corners of a doubly periodic domain.
  const BoxList corner =
      make_fine_boxes({IntVect{63, 63, 0}}, BoxList{per.domain}, per, p);
  EXPECT_EQ(corner.size(), 4u);
  expect_valid_fine_boxes(corner, {IntVect{63, 63, 0}}, BoxList{per.domain}, per, p);
}

TEST(FineBoxes, RatioFourKeepsAlignmentAndNesting) {
  const BoxList coarse = partial_coarse_2d();
  const std::vector<IntVect> tags = tags_on(coarse, 13);
  for (int bf : {4, 8, 16}) {
    SCOPED_TRACE(testing::Message() << "blocking factor " << bf);
    const LevelGeom g = geom2d(64, true);
    const FineBoxParams p{{4, 4, 1}, bf, 32, 1, 1, 0.8};
    const BoxList fine = make_fine_boxes(tags, coarse, g, p);
    ASSERT_FALSE(fine.empty());
    expect_valid_fine_boxes(fine, tags, coarse, g, p);
  }
}

TEST(FineBoxes, ThreeDimensionalPartialLevelIsNestedAndCovered) {
  LevelGeom g;
  g.dim = 3;
  g.domain = Box{{0, 0, 0}, {15, 15, 15}};
  g.periodic[0] = true;
  g.periodic[1] = g.periodic[2] = false;
  const BoxList coarse{Box{{0, 0, 0}, {15, 7, 15}}, Box{{0, 8, 0}, {7, 15, 7}}};
  const std::vector<IntVect> tags = tags_on(coarse, 5);
  const FineBoxParams p{{4, 4, 4}, 8, 16, 1, 1, 0.7};
  const BoxList fine = make_fine_boxes(tags, coarse, g, p);
  ASSERT_FALSE(fine.empty());
  expect_valid_fine_boxes(fine, tags, coarse, g, p);
}

TEST(FineBoxes, ResultDoesNotDependOnTagOrder) {
  const BoxList coarse = partial_coarse_2d();
  const LevelGeom g = geom2d(64, true);
  const FineBoxParams p{{2, 2, 1}, 8, 16, 1, 1, 0.7};
  std::vector<IntVect> tags = tags_on(coarse, 17);
  const BoxList ref = make_fine_boxes(tags, coarse, g, p);
  std::mt19937 rng(2u);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<IntVect> perm = tags;
    perm.insert(perm.end(), tags.begin(), tags.begin() + tags.size() / 2);
    std::shuffle(perm.begin(), perm.end(), rng);
    EXPECT_EQ(make_fine_boxes(perm, coarse, g, p), ref);
  }
}

TEST(FineBoxes, NothingNestedGivesNoBoxes) {
  // An 8x8 patch in a walled domain with n_proper 2: no 4x4 block stays 2 cells inside.
  const LevelGeom g = geom2d(32, false);
  const BoxList coarse{Box{{8, 8, 0}, {15, 15, 0}}};
  const FineBoxParams p{{2, 2, 1}, 8, 16, 1, 2, 0.7};
  EXPECT_TRUE(make_fine_boxes(tags_on(coarse, 1), coarse, g, p).empty());
  EXPECT_TRUE(make_fine_boxes({}, coarse, g, p).empty());
}

TEST(FineBoxes, RejectsInconsistentParameters) {
  const LevelGeom g = geom2d(64, true);
  const BoxList coarse{g.domain};
  const std::vector<IntVect> tags{{5, 5, 0}};
  EXPECT_THROW(make_fine_boxes(tags, coarse, g, {{2, 2, 1}, 8, 12, 1, 1, 0.7}),
               std::invalid_argument);  // max_grid_size not a multiple
  EXPECT_THROW(make_fine_boxes(tags, coarse, g, {{3, 3, 1}, 8, 16, 1, 1, 0.7}),
               std::invalid_argument);  // ratio and blocking factor do not divide
  EXPECT_THROW(
      make_fine_boxes(tags, coarse, geom2d(62, true), {{2, 2, 1}, 8, 16, 1, 1, 0.7}),
      std::invalid_argument);  // domain not aligned to blocks of 4
}
