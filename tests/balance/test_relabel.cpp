// Renaming ranks keeps data in place without changing any rank's load.
#include <gtest/gtest.h>

#include "balance/relabel.hpp"

using namespace pw;

TEST(Relabel, KeepsPatchesOnTheirOwnersWhenOnlyTheNamesDiffer) {
  std::vector<PatchMeta> patches;
  Plan plan;
  for (int i = 0; i < 6; ++i) {
    const Box b{{i, 0, 0}, {i, 0, 0}};
    patches.push_back({b, 0, i % 3, 1.0 + i});
    plan.boxes.push_back(b);
    plan.level.push_back(0);
    plan.owner.push_back((i + 1) % 3);  // the same groups under other names
    plan.source.push_back(i);
  }
  keep_data_in_place(plan, patches, RankInfo::uniform(3));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(plan.owner[i], patches[i].owner);
}

TEST(Relabel, NewPatchesAndUnevenRanksAreLeftAlone) {
  std::vector<PatchMeta> patches{{Box{{0, 0, 0}, {0, 0, 0}}, 0, 1, 1.0}};
  Plan plan{{patches[0].box}, {0}, {0}, {0}};
  RankInfo uneven = RankInfo::uniform(2);
  uneven.speed = {1.0, 2.0};
  keep_data_in_place(plan, patches, uneven);
  EXPECT_EQ(plan.owner[0], 0);
  keep_data_in_place(plan, patches, RankInfo::uniform(2));
  EXPECT_EQ(plan.owner[0], 1);
}
