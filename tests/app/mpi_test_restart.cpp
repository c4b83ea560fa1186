// Restart at 1, 2 and 4 ranks: a run continued from one of its dumps ends with the
// uninterrupted run's fingerprint, cell-update count and regrid count, at the same and at
// another rank count; a missing, damaged or mismatched restart file is a UserError naming
// the file and the problem, before any work (tests/app/hostile_restarts.cmake has the
// catalogue of damaged files); a restart with nothing left to run writes nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/app/run_testing.hpp"
#include "tests/app/test_dir.hpp"

using namespace pw;
using pw::testing::run_deck;
using pw::testing::swirl_deck;

/// This file's test directories.
struct TestDir : pw::testing::TestDir {
  explicit TestDir(const Comm& c) : pw::testing::TestDir(c, "pw_restart_") {}
};

namespace fs = std::filesystem;

namespace {

/// Overrides that write a dump every `interval` coarse steps into `dir`.
std::vector<std::string> dumps(const std::string& dir, int interval,
                               std::vector<std::string> more = {}) {
  more.push_back("output.write=true");
  more.push_back("output.interval=" + std::to_string(interval));
  more.push_back("output.dir=\"" + dir + "\"");
  return more;
}

std::string dump_at(const std::string& dir, int step) {
  char name[32];
  std::snprintf(name, sizeof name, "/plt_%05d.h5", step);
  return dir + name;
}

/// `same_ranks`: both runs on the same rank count, where the totals (sums over ranks)
/// are bitwise equal too; on others they agree to round-off.
void expect_same_run(const RunResult& restarted, const RunResult& full,
                     const std::string& what, bool same_ranks = true) {
  EXPECT_EQ(restarted.fingerprint, full.fingerprint) << what;
  EXPECT_EQ(restarted.cell_updates, full.cell_updates) << what;
  EXPECT_EQ(restarted.regrids, full.regrids) << what;
  EXPECT_EQ(restarted.steps, full.steps) << what;
  EXPECT_EQ(restarted.time, full.time) << what;
  EXPECT_EQ(restarted.finest_level, full.finest_level) << what;
  if (same_ranks) {
    EXPECT_EQ(restarted.initial_totals, full.initial_totals) << what;
    EXPECT_EQ(restarted.final_totals, full.final_totals) << what;
  }
  ASSERT_EQ(restarted.final_totals.size(), full.final_totals.size()) << what;
  for (size_t c = 0; c < full.final_totals.size(); ++c) {
    EXPECT_NEAR(restarted.initial_totals[c], full.initial_totals[c],
                1e-13 * std::abs(full.initial_totals[c]))
        << what;
    EXPECT_NEAR(restarted.final_totals[c], full.final_totals[c],
                1e-13 * std::abs(full.final_totals[c]))
        << what;
  }
}

/// The UserError message of a Simulation made from the 2D swirl deck (or `deck`) with
/// `overrides`, or "" when there is none.
std::string restart_error(const std::vector<std::string>& overrides, const Comm& comm,
                          const std::string& deck = swirl_deck(2)) {
  try {
    Simulation sim(Deck::parse(deck, "test.toml", pw::testing::quiet(overrides)), comm);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

/// Restarting the swirl deck from each dump in `steps` of a run that dumped every step
/// ends as the uninterrupted run did.
void check_restarts(int dim, int max_step, const std::vector<int>& steps) {
  const Comm world;
  const TestDir dir(world);
  const std::vector<std::string> base = {"time.max_step=" + std::to_string(max_step)};
  const RunResult full =
      run_deck(swirl_deck(dim), world, dumps(dir.sub("full"), 1, base));
  ASSERT_EQ(full.finest_level, 2);
  for (int k : steps) {
    const std::string out = dir.sub("from" + std::to_string(k));
    const RunResult r = run_deck(
        swirl_deck(dim), world,
        dumps(out, 1, {base[0], "restart=\"" + dump_at(dir.sub("full"), k) + "\""}));
    expect_same_run(r, full, "restart from step " + std::to_string(k));
    // The continued run dumps steps k+1..max_step only.
    EXPECT_EQ(r.dumps.size(), size_t(max_step - k));
    if (!r.dumps.empty()) EXPECT_EQ(r.dumps.front(), dump_at(out, k + 1));
  }
}

}  // namespace

TEST(Restart, ContinuesA2DMultiLevelRunToTheSameFingerprint) {
  // After a regrid step (4), before one (5), and the first step.
  check_restarts(2, 12, {1, 4, 5});
}

TEST(Restart, ContinuesA3DMultiLevelRunToTheSameFingerprint) {
  check_restarts(3, 6, {3});
}

TEST(Restart, ContinuesOnAnotherRankCount) {
  // 2D and 3D dumps written by all ranks, continued on groups of 1 (and 2) ranks; and a
  // dump written by one rank alone continued on all ranks.
  const Comm world;
  const TestDir dir(world);
  for (int dim : {2, 3}) {
    const std::vector<std::string> base = {"time.max_step=" +
                                           std::string(dim == 2 ? "8" : "4")};
    const std::string d = std::to_string(dim) + "d";
    const RunResult full = run_deck(swirl_deck(dim), world, dumps(dir.sub(d), 2, base));
    const std::string file = dump_at(dir.sub(d), 2);
    for (int group : {1, 2}) {
      if (group > world.size() || world.size() % group != 0) continue;
      MPI_Comm sub;
      MPI_Comm_split(world.raw(), world.rank() / group, world.rank(), &sub);
      const std::string out = dir.sub(d + "_g" + std::to_string(group) + "_" +
                                      std::to_string(world.rank() / group));
      const RunResult r = run_deck(swirl_deck(dim), Comm(sub),
                                   dumps(out, 2, {base[0], "restart=\"" + file + "\""}));
      MPI_Comm_free(&sub);
      expect_same_run(r, full, d + " on groups of " + std::to_string(group),
                      group == world.size());
    }
    // One rank writes, all continue.
    MPI_Comm self;
    MPI_Comm_split(world.raw(), world.rank(), 0, &self);
    const std::string own = dir.sub(d + "_self" + std::to_string(world.rank()));
    run_deck(swirl_deck(dim), Comm(self), dumps(own, 2, base));
    MPI_Comm_free(&self);
    world.barrier();
    const RunResult r = run_deck(
        swirl_deck(dim), world,
        dumps(dir.sub(d + "_all"), 2,
              {base[0], "restart=\"" + dump_at(dir.sub(d + "_self0"), 2) + "\""}));
    expect_same_run(r, full, d + " written by 1 rank, continued on all",
                    world.size() == 1);
  }
}

TEST(Restart, ContinuesAPoissonRunToTheSameFingerprint) {
  // The restored phi is the converged solution, which the re-solve after the restore
  // leaves bit for bit; the later steps then solve from it as the uninterrupted run did.
  const Comm world;
  const TestDir dir(world);
  const std::string deck = pw::testing::clumps_deck(2);
  const RunResult full = run_deck(deck, world, dumps(dir.sub("full"), 1));
  ASSERT_EQ(full.finest_level, 2);
  for (int k : {1, 2}) {
    const RunResult r =
        run_deck(deck, world,
                 dumps(dir.sub("from" + std::to_string(k)), 1,
                       {"restart=\"" + dump_at(dir.sub("full"), k) + "\""}));
    expect_same_run(r, full, "poisson restart from step " + std::to_string(k));
  }
}

TEST(Restart, ContinuesASelfGravitatingRunToTheSameFingerprint) {
  // phi is part of the state: the restored levels hold the phi their last steps solved
  // for, and nothing is re-solved at the restore, as nothing is between two coarse steps.
  const Comm world;
  const TestDir dir(world);
  std::ifstream in(std::string(PW_SOURCE_DIR) + "/inputs/clumps_3d.toml");
  const std::string deck((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  const std::vector<std::string> small = {"time.max_step=4", "domain.n_cell=[16,16,16]",
                                          "amr.blocking_factor=8", "amr.max_grid_size=16",
                                          "amr.max_level=2"};
  const RunResult full = run_deck(deck, world, dumps(dir.sub("full"), 2, small));
  ASSERT_EQ(full.finest_level, 2);
  std::vector<std::string> o = small;
  o.push_back("restart=\"" + dump_at(dir.sub("full"), 2) + "\"");
  const RunResult r = run_deck(deck, world, dumps(dir.sub("from2"), 2, o));
  expect_same_run(r, full, "self-gravity restart from step 2");
}

TEST(Restart, DamagedOrMismatchedFileIsAUserErrorNamingIt) {
  const Comm world;
  const TestDir dir(world);
  run_deck(swirl_deck(2), world, dumps(dir.sub("2d"), 2, {"time.max_step=2"}));
  run_deck(swirl_deck(3), world, dumps(dir.sub("3d"), 1, {"time.max_step=1"}));
  const std::string good = dump_at(dir.sub("2d"), 2);
  const std::string truncated = dir.sub("truncated.h5"), garbage = dir.sub("garbage.h5");
  if (world.rank() == 0) {
    fs::copy_file(good, truncated);
    fs::resize_file(truncated, fs::file_size(good) / 2);
    std::ofstream(garbage) << "this is not an HDF5 file\n";
  }
  world.barrier();
  const auto restart = [](const std::string& f) { return "restart=\"" + f + "\""; };
  // The good file restarts without complaint.
  EXPECT_EQ(restart_error({restart(good)}, world), "");
  struct Case {
    std::string what;
    std::vector<std::string> overrides;
    std::string deck, expected;
  };
  const std::vector<Case> cases = {
      {"missing", {restart(dir.sub("nowhere.h5"))}, swirl_deck(2), "no such file"},
      {"truncated", {restart(truncated)}, swirl_deck(2), "truncated or corrupt"},
      {"garbage", {restart(garbage)}, swirl_deck(2), "not an HDF5 file"},
      {"3D dump, 2D deck",
       {restart(dump_at(dir.sub("3d"), 1))},
       swirl_deck(2),
       "holds a 3D run, the deck asks for 2D"},
      {"too many levels",
       {restart(good), "amr.max_level=1", "advection.tag_threshold=[1.05]"},
       swirl_deck(2),
       "holds 3 levels, amr.max_level = 1 allows at most 2"},
      {"components",
       {restart(good), "advection.ncomp=1"},
       swirl_deck(2),
       "holds the components"},
      {"ratio",
       {restart(good), "amr.ref_ratio=4", "amr.blocking_factor=8"},
       swirl_deck(2),
       "refinement ratio between levels 0 and 1 is 2, amr.ref_ratio gives 4"},
      {"domain", {restart(good), "domain.n_cell=[64, 64]"}, swirl_deck(2), "domain"},
  };
  for (const Case& c : cases) {
    const std::string e = restart_error(c.overrides, world, c.deck);
    EXPECT_NE(e.find(c.expected), std::string::npos) << c.what << ": got \"" << e << "\"";
    EXPECT_EQ(e.rfind("restart: ", 0), 0u) << c.what << ": " << e;
    EXPECT_NE(e.find(".h5"), std::string::npos) << c.what << ": names the file: " << e;
  }
}

TEST(Restart, AtOrBeyondMaxStepSaysSoAndWritesNothing) {
  const Comm world;
  const TestDir dir(world);
  const std::string out = dir.sub("run");
  run_deck(swirl_deck(2), world, dumps(out, 1, {"time.max_step=2"}));
  world.barrier();
  const auto listing = [&] {
    std::vector<std::pair<std::string, std::uintmax_t>> files;
    for (const auto& e : fs::directory_iterator(out))
      files.emplace_back(e.path().filename().string(), fs::file_size(e.path()));
    std::sort(files.begin(), files.end());
    return files;
  };
  const auto before = listing();
  for (int max_step : {2, 1}) {
    // Into the same directory, where a dump of step 2 would replace the one restarted
    // from.
    const RunResult r = run_deck(swirl_deck(2), world,
                                 dumps(out, 1,
                                       {"time.max_step=" + std::to_string(max_step),
                                        "restart=\"" + dump_at(out, 2) + "\""}));
    EXPECT_EQ(r.steps, 2) << max_step;
    EXPECT_TRUE(r.dumps.empty()) << max_step;
    world.barrier();
    EXPECT_EQ(listing(), before) << "max_step " << max_step << ": nothing written";
  }
  // The message says why.
  Simulation sim(Deck::parse(swirl_deck(2), "test.toml",
                             {"output.write=false", "time.max_step=2",
                              "restart=\"" + dump_at(out, 2) + "\""}),
                 world);
  ::testing::internal::CaptureStdout();
  sim.run(true);
  const std::string said = ::testing::internal::GetCapturedStdout();
  if (world.rank() == 0)
    EXPECT_NE(
        said.find("plt_00002.h5: the dump is at step 2, time.max_step is 2: nothing "
                  "to run, no file written"),
        std::string::npos)
        << said;
}
