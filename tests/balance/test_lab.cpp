// The balance lab's pieces: generated workloads are disjoint aligned boxes of about the
// requested count, patch files round-trip, and the metrics agree with hand counts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "amr/box_index.hpp"
#include "balance/lab/lab_metrics.hpp"
#include "balance/lab/patch_file.hpp"
#include "balance/lab/workloads.hpp"

using namespace pw;

namespace {

PatchMeta patch(int level, Box b, double cost, int owner = -1) {
  PatchMeta p;
  p.box = b;
  p.level = level;
  p.cost = cost;
  p.owner = owner;
  return p;
}

/// True when no two boxes of the same level overlap (checked through BoxIndex).
bool disjoint_per_level(const std::vector<PatchMeta>& patches) {
  std::map<int, BoxList> levels;
  for (const PatchMeta& p : patches)
    levels[p.level].push_back(p.box);
  for (const auto& [l, boxes] : levels) {
    const BoxIndex index(boxes);
    for (const Box& b : boxes)
      if (index.query(b).size() != 1) return false;
  }
  return true;
}

}  // namespace

class LabWorkload : public testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(LabWorkload, GivesDisjointAlignedBoxesOfTheRequestedCount) {
  WorkloadSpec spec;
  std::tie(spec.kind, spec.dim, spec.count) = GetParam();
  const PatchList list = make_workload(spec);
  EXPECT_EQ(list.dim, spec.dim);
  EXPECT_GE(double(list.patches.size()), 0.8 * spec.count);
  EXPECT_LE(double(list.patches.size()), 1.2 * spec.count);
  const std::vector<int> max_size = default_max_size(spec.kind);
  int max_level = 0;
  for (const PatchMeta& p : list.patches) {
    max_level = std::max(max_level, p.level);
    const int largest = max_size[std::min<size_t>(size_t(p.level), max_size.size() - 1)];
    for (int d = 0; d < 3; ++d) {
      const int side = p.box.size()[d];
      if (d < spec.dim) {
        EXPECT_EQ(p.box.lo[d] % spec.blocking_factor, 0) << p.box;
        EXPECT_EQ(side % spec.blocking_factor, 0) << p.box;
        EXPECT_GE(side, spec.blocking_factor) << p.box;
        EXPECT_LE(side, largest) << p.box;
      } else {
        EXPECT_EQ(p.box.lo[d], 0);
        EXPECT_EQ(side, 1);
      }
    }
    EXPECT_DOUBLE_EQ(p.cost, double(p.box.num_cells()) * double(1 << p.level));
    EXPECT_EQ(p.refinement, 1 << p.level);
  }
  EXPECT_GE(max_level, 1);
  EXPECT_TRUE(disjoint_per_level(list.patches));
}

INSTANTIATE_TEST_SUITE_P(Kinds, LabWorkload,
                         testing::Values(std::make_tuple("clustered", 3, 1000),
                                         std::make_tuple("clustered", 2, 3000),
                                         std::make_tuple("plane", 3, 1000),
                                         std::make_tuple("plane", 2, 10000),
                                         std::make_tuple("bubble", 3, 5000),
                                         std::make_tuple("bubble", 2, 1000)),
                         [](const auto& info) {
                           return std::get<0>(info.param) +
                                  std::to_string(std::get<1>(info.param)) + "d";
                         });

TEST(LabWorkload, IsDeterministicAndMovesWithTime) {
  WorkloadSpec spec;
  spec.kind = "bubble";
  spec.count = 1000;
  const PatchList a = make_workload(spec), b = make_workload(spec);
  ASSERT_EQ(a.patches.size(), b.patches.size());
  for (size_t i = 0; i < a.patches.size(); ++i)
    EXPECT_EQ(a.patches[i].box, b.patches[i].box);
  spec.time = 1;
  const PatchList c = make_workload(spec);
  bool moved = c.patches.size() != a.patches.size();
  for (size_t i = 0; !moved && i < a.patches.size(); ++i)
    moved = a.patches[i].box != c.patches[i].box;
  EXPECT_TRUE(moved);
}

// Lan et al.'s figure for AMR64: one patch alone is about 8.5 times the average load at
// 4096 ranks (cost = cells x 2^level), so the default clustered list is held to it,
// within 15%. Other seeds spread around it (about 5 to 12).
TEST(LabWorkload, ClusteredHasOnePatchAboutEightAndAHalfAveragesAt4096Ranks) {
  WorkloadSpec spec;
  spec.kind = "clustered";
  const PatchList list = make_workload(spec);
  const double bound = lower_bound(list.patches, 4096);
  EXPECT_GE(bound, 7.2);
  EXPECT_LE(bound, 9.8);
  // The largest patches are the coarse ones: many small deep patches, a few large ones.
  EXPECT_EQ(std::max_element(
                list.patches.begin(), list.patches.end(),
                [](const PatchMeta& a, const PatchMeta& b) { return a.cost < b.cost; })
                ->level,
            0);
}

TEST(LabWorkload, MaxSizeBoundsThePatchSidesPerLevel) {
  WorkloadSpec spec;
  spec.kind = "plane";
  spec.count = 1000;
  spec.max_size = {64, 16};
  const PatchList list = make_workload(spec);
  bool large = false;
  for (const PatchMeta& p : list.patches)
    for (int d = 0; d < 3; ++d) {
      EXPECT_LE(p.box.size()[d], p.level == 0 ? 64 : 16) << p.box;
      large = large || p.box.size()[d] > 32;
    }
  EXPECT_TRUE(large);    // level 0 uses the larger size
  spec.max_size = {12};  // not a multiple of the blocking factor
  EXPECT_THROW(make_workload(spec), UserError);
}

TEST(LabPatchFile, RoundTripsExactly) {
  PatchList list;
  list.dim = 3;
  list.refinement = 4;
  list.patches = {patch(0, Box{{0, 0, 0}, {15, 15, 15}}, 4096, 3),
                  patch(1, Box{{-8, 16, 0}, {7, 31, 7}}, 0.1 + 0.2, 0),
                  patch(2, Box{{64, 64, 64}, {95, 71, 79}}, 1e-300, 7)};
  std::stringstream s;
  write_patch_list(s, list);
  const PatchList back = read_patch_list(s, "round-trip");
  EXPECT_EQ(back.dim, 3);
  EXPECT_EQ(back.refinement, 4);
  ASSERT_EQ(back.patches.size(), list.patches.size());
  for (size_t i = 0; i < list.patches.size(); ++i) {
    EXPECT_EQ(back.patches[i].box, list.patches[i].box);
    EXPECT_EQ(back.patches[i].level, list.patches[i].level);
    EXPECT_EQ(back.patches[i].cost, list.patches[i].cost);  // exact, not near
    EXPECT_EQ(back.patches[i].owner, list.patches[i].owner);
    EXPECT_EQ(back.patches[i].refinement, 1 << (2 * list.patches[i].level));
  }
}

TEST(LabPatchFile, ReadsCommentsAndOptionalOwnersAndNamesTheBadLine) {
  std::istringstream good(
      "# a 2D list\nrefinement 2\n0 0 0 0 7 7 0 64  # no owner\n1 0 0 0 15 7 0 256 2\n");
  const PatchList list = read_patch_list(good, "good.txt");
  EXPECT_EQ(list.dim, 2);
  ASSERT_EQ(list.patches.size(), 2u);
  EXPECT_EQ(list.patches[0].owner, -1);
  EXPECT_EQ(list.patches[1].owner, 2);
  EXPECT_EQ(list.patches[1].refinement, 2);
  std::istringstream bad("refinement 2\n0 0 0 0 7 7 0 64\n0 0 0 0 7 x 0 64\n");
  try {
    read_patch_list(bad, "bad.txt");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("bad.txt:3:", 0), 0u) << e.what();
  }
  std::istringstream headless("0 0 0 0 7 7 0 64\n");
  EXPECT_THROW(read_patch_list(headless, "headless.txt"), UserError);
  // A byte-order mark before the header, as some editors write: it read as a missing
  // header.
  std::istringstream bom("\xEF\xBB\xBFrefinement 2\n0 0 0 0 7 7 0 64\n");
  EXPECT_EQ(read_patch_list(bom, "bom.txt").patches.size(), 1u);
}

// Each field is read whole: a stream read "0x100" as 0 and blamed the owner for "x100",
// and dropped an owner that overflowed int as if the column were absent.
TEST(LabPatchFile, NamesTheMalformedFieldAndBoundsOwnersByTheRanks) {
  const auto error = [](const std::string& text, int ranks = kLabMaxRanks) {
    std::istringstream in("refinement 2\n" + text + "\n");
    try {
      read_patch_list(in, "f.txt", ranks);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("0 0 0 0 7 7 0 0x100 0"),
            "f.txt:2: cost: expected a finite number >= 0, got 0x100");
  EXPECT_EQ(error("0 0 0 0 7 7.5 0 1"),
            "f.txt:2: box: expected integer indices, got 7.5");
  EXPECT_EQ(error("1x 0 0 0 7 7 0 1"), "f.txt:2: level: expected 0..30, got 1x");
  EXPECT_EQ(error("0 0 0 0 7 7 0 1 4294967297"),
            "f.txt:2: owner: expected -1 (none) or a rank < 65536 (--ranks), got "
            "4294967297");
  EXPECT_EQ(error("0 0 0 0 7 7 0 1 2", 2),
            "f.txt:2: owner: expected -1 (none) or a rank < 2 (--ranks), got 2");
  EXPECT_EQ(error("0 0 0 0 7 7 0 1 1", 2), "no error");
  // A leading '+' reads as a stream read it; a subnormal cost (written so) reads back.
  std::istringstream plus("refinement 2\n0 0 0 0 7 7 0 +5e-324 +1\n");
  const PatchList list = read_patch_list(plus, "plus.txt");
  EXPECT_EQ(list.patches[0].cost, 5e-324);
  EXPECT_EQ(list.patches[0].owner, 1);
}

namespace {

/// The error read_patch_list gives for `text`, or "no error".
std::string patch_error(const std::string& text) {
  std::istringstream in(text);
  try {
    read_patch_list(in, "f.txt");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

// A cube of side 2^21 has 2^63 cells: the count wrapped, Lan crashed and chop_pack's
// figures were wrong. A box holds at most 2^40 cells, a file 2^52.
TEST(LabPatchFile, BoundsTheCellsOfABoxAndOfTheFile) {
  EXPECT_EQ(patch_error("refinement 2\n0 0 0 0 8191 8191 16383 1\n"), "no error");
  EXPECT_EQ(
      patch_error("refinement 2\n0 0 0 0 8191 8191 16384 1\n"),
      "f.txt:2: box: expected at most 2^40 = 1099511627776 cells, got 8192 x 8192 x "
      "16385");
  EXPECT_EQ(patch_error("refinement 2\n0 0 0 0 536870911 536870911 0 1\n"),
            "f.txt:2: box: expected at most 2^40 = 1099511627776 cells, got 536870912 x "
            "536870912 x 1");
  // 4096 boxes of 2^40 cells fill the file's 2^52; one cell more is refused.
  std::string full = "refinement 2\n";
  for (int b = 0; b < 4096; ++b)
    full += fmt::format("0 {} 0 0 {} 8191 16383 1\n", 8192 * b, 8192 * b + 8191);
  EXPECT_EQ(patch_error(full), "no error");
  EXPECT_EQ(patch_error(full + "0 -1 0 0 -1 0 0 1\n"),
            "f.txt:4098: box: expected at most 2^52 = 4503599627370496 cells over the "
            "file, the boxes up to this line hold 4503599627370497");
}

// A file with no newline (/dev/zero) was read whole into memory: lines are limited to
// 64 KiB, which no patch line comes near.
TEST(LabPatchFile, RefusesALineLongerThan64KiB) {
  const std::string head = "refinement 2\n0 0 0 0 7 7 0 1\n";
  const auto comment = [](size_t bytes) { return "#" + std::string(bytes - 1, 'x'); };
  EXPECT_EQ(patch_error(head + comment(65536) + "\n1 0 0 0 7 7 0 1\n"), "no error");
  EXPECT_EQ(patch_error(head + comment(65536)), "no error");  // no final newline
  EXPECT_EQ(patch_error(head + comment(65537) + "\n"),
            "f.txt:3: a line longer than 65536 bytes: expected one patch per line");
  EXPECT_EQ(patch_error(head + std::string(1 << 20, '\0')),
            "f.txt:3: a line longer than 65536 bytes: expected one patch per line");
  // The last line needs no newline.
  EXPECT_EQ(patch_error("refinement 2\n0 0 0 0 7 7 0 1"), "no error");
}

TEST(LabMetrics, CommCutCountsTheFacesBetweenTwoRanks) {
  // Two 4x4 patches side by side in 2D: 4 faces between them.
  const std::vector<Box> boxes = {Box{{0, 0, 0}, {3, 3, 0}}, Box{{4, 0, 0}, {7, 3, 0}}};
  EXPECT_EQ(comm_cut(boxes, {0, 0}, {0, 1}), 4);
  EXPECT_EQ(comm_cut(boxes, {0, 0}, {1, 1}), 0);  // same rank: nothing to send
  EXPECT_EQ(comm_cut(boxes, {0, 1}, {0, 1}), 0);  // different levels do not count
  // A third patch on top of both, shifted by 2: it touches 2 cells of the first and 2 of
  // the second; corners (diagonal neighbours) are not faces.
  const std::vector<Box> three = {boxes[0], boxes[1], Box{{2, 4, 0}, {5, 7, 0}},
                                  Box{{8, 4, 0}, {11, 7, 0}}};
  EXPECT_EQ(comm_cut(three, {0, 0, 0, 0}, {0, 1, 2, 3}), 4 + 2 + 2);
  // 3D: two 8^3 cubes sharing a face.
  const std::vector<Box> cubes = {Box{{0, 0, 0}, {7, 7, 7}}, Box{{0, 0, 8}, {7, 7, 15}}};
  EXPECT_EQ(comm_cut(cubes, {2, 2}, {0, 1}), 64);
}

TEST(LabMetrics, LowerBoundIsTheLargestPatchOverTheAverageLoad) {
  const std::vector<PatchMeta> patches = {patch(0, Box{{0, 0, 0}, {0, 0, 0}}, 6),
                                          patch(0, Box{{1, 0, 0}, {1, 0, 0}}, 1),
                                          patch(0, Box{{2, 0, 0}, {2, 0, 0}}, 1)};
  EXPECT_DOUBLE_EQ(lower_bound(patches, 4), 3.0);  // 6 / (8 / 4)
  EXPECT_DOUBLE_EQ(lower_bound(patches, 1), 1.0);  // never below 1
}

TEST(LabMetrics, SplitPiecesCarryTheirShareAndMigrationFollowsOwners) {
  const std::vector<PatchMeta> patches = {patch(0, Box{{0, 0, 0}, {7, 3, 0}}, 32, 0),
                                          patch(0, Box{{8, 0, 0}, {11, 3, 0}}, 16, 1)};
  Plan plan;
  plan.boxes = {Box{{0, 0, 0}, {3, 3, 0}}, Box{{4, 0, 0}, {7, 3, 0}}, patches[1].box};
  plan.level = {0, 0, 0};
  plan.owner = {0, 1, 0};
  plan.source = {0, 0, 1};
  ASSERT_EQ(check_plan(patches, plan, 2), "");
  const LabMetrics m = lab_metrics(patches, plan, 2);
  EXPECT_DOUBLE_EQ(m.load.imbalance, 32.0 / 24.0);  // loads 16 + 16, 16
  EXPECT_EQ(m.split, 1);
  EXPECT_EQ(m.comm_cut, 4 + 4);
  EXPECT_DOUBLE_EQ(m.migrated_pct, 100.0 * 32 / 48);
  plan.boxes[1].hi[0] = 6;  // no longer covers patch 0
  EXPECT_NE(check_plan(patches, plan, 2), "");
}
