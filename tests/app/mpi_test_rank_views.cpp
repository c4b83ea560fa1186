// Inputs that not every rank can read (a file system that differs between nodes, a deck
// edited while the job starts), at 1, 2 and 4 ranks: the deck is read by rank 0 alone and
// every rank runs its text; a restart file that some rank cannot see is a UserError on
// every rank, naming that rank. Both hung before: the ranks that could read went on into
// a collective the others never reached. Each rank is given a path of its own here to
// stand for its view of the file system.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/app/run_testing.hpp"
#include "tests/app/test_dir.hpp"

using namespace pw;
using pw::testing::swirl_deck;

struct TestDir : pw::testing::TestDir {
  explicit TestDir(const Comm& c) : pw::testing::TestDir(c, "pw_rank_views_") {}
};

TEST(RankViews, TheDeckIsRankZerosOnEveryRank) {
  const Comm world;
  const TestDir dir(world);
  const std::string deck = dir.sub("deck.toml"), other = dir.sub("other.toml");
  if (world.rank() == 0) {
    std::ofstream(deck) << swirl_deck(2);
    std::ofstream(other) << swirl_deck(3);
  }
  world.barrier();
  // Rank 0 sees the 2D deck; the others a missing file, or a 3D deck.
  for (const std::string& theirs : {dir.sub("missing.toml"), other}) {
    const std::string mine = world.rank() == 0 ? deck : theirs;
    const Deck d = Deck::load(mine, {"amr.max_level=1"}, world);
    EXPECT_EQ(d.require<int>("domain.dim"), 2) << theirs;
    EXPECT_EQ(d.require<int>("amr.max_level"), 1) << theirs;
    EXPECT_EQ(d.file(), mine);
  }
  // Rank 0 cannot read it: the same error on every rank.
  const std::string mine = world.rank() == 0 ? dir.sub("missing.toml") : deck;
  try {
    Deck::load(mine, {}, world);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), dir.sub("missing.toml") + ": cannot open deck file");
  }
}

TEST(RankViews, ARestartFileSomeRankCannotSeeIsAnErrorOnEveryRank) {
  const Comm world;
  const TestDir dir(world);
  pw::testing::run_deck(swirl_deck(2), world,
                        {"output.write=true", "output.interval=2", "time.max_step=2",
                         "output.dir=\"" + dir.path() + "\""});
  const std::string dump = dir.sub("plt_00002.h5");
  // Only the last rank is given `theirs` (at 1 rank, rank 0 is the last): the error of
  // the restart, the same on every rank, naming that rank.
  const std::string last = world.size() == 1
                               ? std::string()
                               : " (on rank " + std::to_string(world.size() - 1) + ")";
  const auto restart_error = [&](const std::string& theirs) {
    const std::string mine = world.rank() == world.size() - 1 ? theirs : dump;
    try {
      Simulation sim(Deck::parse(swirl_deck(2), "test.toml",
                                 {"output.write=false", "restart=\"" + mine + "\""}),
                     world);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string gone = dir.sub("gone.h5");
  const std::string mine = world.rank() == world.size() - 1 ? gone : dump;
  EXPECT_EQ(restart_error(gone), "restart: " + mine + ": no such file" + last);
  // A path the file system cannot resolve (a symbolic link to itself): the check threw
  // on that rank alone and left the others waiting.
  if (world.rank() == 0)
    std::filesystem::create_directory_symlink("loop", dir.sub("loop"));
  world.barrier();
  const std::string looped = dir.sub("loop/x.h5");
  EXPECT_EQ(restart_error(looped),
            "restart: " + (world.rank() == world.size() - 1 ? looped : dump) +
                ": cannot be read: Too many levels of symbolic links" + last);
}

TEST(RankViews, ADumpSomeRankCannotOpenIsAnErrorOnEveryRank) {
  const Comm world;
  if (world.size() == 1) GTEST_SKIP() << "needs a rank that is not rank 0";
  const TestDir dir(world);
  // Rank 0 writes where the others cannot see (their folder does not exist): they
  // waited in the collective open, rank 0 in its first collective write.
  const std::string mine = world.rank() == 0 ? dir.sub("out") : dir.sub("elsewhere/out");
  std::string error;
  try {
    pw::testing::run_deck(
        swirl_deck(2), world,
        {"output.write=true", "time.max_step=1", "output.dir=\"" + mine + "\""});
  } catch (const UserError& e) {
    error = e.what();
  }
  const std::string tmp = dir.sub("elsewhere/out/plt_00001.h5.tmp");
  EXPECT_EQ(error, "cannot write the dump " + mine +
                       "/plt_00001.h5: rank 1 cannot open " + tmp +
                       " for writing: No such file or directory");
  // Rank 0's temporary file is gone, no dump was published.
  world.barrier();
  EXPECT_FALSE(std::filesystem::exists(dir.sub("out/plt_00001.h5.tmp")));
  EXPECT_FALSE(std::filesystem::exists(dir.sub("out/plt_00001.h5")));
}
