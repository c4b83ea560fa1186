// Dumps that cannot be written, at 1, 2 and 4 ranks: a file-size limit standing in for a
// full disk (the room a dump reserves before any rank writes cannot be had), and names
// taken by directories (the .h5 or .xmf temporary, the final name). Each is a UserError
// naming the dump and the cause on every rank, without a deadlock; the earlier dumps stay
// as they were and no final name holds an incomplete file. These work as root, unlike
// permission bits.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/app/run_testing.hpp"
#include "tests/app/test_dir.hpp"

using namespace pw;
using pw::testing::run_deck;
using pw::testing::swirl_deck;

/// This file's test directories.
struct TestDir : pw::testing::TestDir {
  explicit TestDir(const Comm& c) : pw::testing::TestDir(c, "pw_failed_dump_") {}
};

namespace fs = std::filesystem;

namespace {

std::vector<std::string> dumps(const std::string& dir, std::vector<std::string> more) {
  more.push_back("output.write=true");
  more.push_back("output.interval=1");
  more.push_back("output.dir=\"" + dir + "\"");
  return more;
}

/// Every regular file in `dir` and its bytes.
std::map<std::string, std::string> contents(const std::string& dir) {
  std::map<std::string, std::string> all;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) {
      std::ifstream in(e.path(), std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      all[e.path().filename().string()] = s.str();
    }
  return all;
}

/// The UserError message of the run, or "" when it ends without one.
std::string run_error(const Comm& comm, const std::vector<std::string>& overrides) {
  try {
    run_deck(swirl_deck(2), comm, overrides);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

/// Files of `before` that are gone or changed in `after`.
std::vector<std::string> changed(const std::map<std::string, std::string>& before,
                                 const std::map<std::string, std::string>& after) {
  std::vector<std::string> out;
  for (const auto& [name, bytes] : before) {
    auto it = after.find(name);
    if (it == after.end() || it->second != bytes) out.push_back(name);
  }
  return out;
}

}  // namespace

TEST(FailedDump, AFullDiskIsAUserErrorOnEveryRankAndEarlierDumpsStay) {
  const Comm world;
  const TestDir dir(world);
  run_deck(swirl_deck(2), world, dumps(dir.path(), {"time.max_step=2"}));
  world.barrier();
  const auto before = contents(dir.path());
  ASSERT_EQ(before.count("plt_00002.h5"), 1u);
  // Files cannot grow past half a dump (EFBIG, the signal ignored): the next dump cannot
  // be written, the load history (far smaller) still can.
  const rlim_t limit = before.at("plt_00002.h5").size() / 2;
  ASSERT_GT(limit, before.at("plt_load.csv").size() + 8192);
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit low = old;
  low.rlim_cur = limit;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &low), 0);
  const std::string e = run_error(
      world, dumps(dir.path(),
                   {"time.max_step=4", "restart=\"" + dir.path() + "/plt_00002.h5\""}));
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  world.barrier();
  // Every rank has the error (none is left waiting), naming the dump.
  EXPECT_NE(e.find("cannot write the dump " + dir.path() + "/plt_00003.h5: "),
            std::string::npos)
      << e;
  const auto after = contents(dir.path());
  EXPECT_EQ(changed(before, after), std::vector<std::string>{"plt_load.csv"});
  for (const auto& [name, bytes] : after)
    EXPECT_TRUE(before.count(name) > 0 || name == "plt_load.csv") << name << " is new";
  // The dumps left are whole: a restart verifies them and runs on.
  EXPECT_EQ(run_deck(swirl_deck(2), world,
                     {"time.max_step=3", "restart=\"" + dir.path() + "/plt_00002.h5\""})
                .steps,
            3);
}

TEST(FailedDump, ANameTakenByADirectoryIsAUserErrorAndLeavesNoPartialFile) {
  const Comm world;
  // Each name in turn is a directory (with a file in it, so that no rename can replace
  // it) before the run, so the dump of step 1 fails at that point.
  for (const std::string taken :
       {"plt_00001.h5.tmp", "plt_00001.xmf.tmp", "plt_00001.h5", "plt_00001.xmf"}) {
    const TestDir dir(world);
    if (world.rank() == 0) {
      fs::create_directories(dir.path() + "/" + taken);
      std::ofstream(dir.path() + "/" + taken + "/keep") << "x";
    }
    world.barrier();
    const std::string e = run_error(world, dumps(dir.path(), {"time.max_step=2"}));
    world.barrier();
    EXPECT_NE(e.find("cannot write the dump " + dir.path() + "/plt_00001.h5: "),
              std::string::npos)
        << taken << ": " << e;
    EXPECT_NE(e.find(taken), std::string::npos) << "names the file: " << e;
    // The dump of step 0 is whole; nothing of step 1 is left but the directory.
    const auto files = contents(dir.path());
    EXPECT_EQ(files.count("plt_00000.h5"), 1u) << taken;
    EXPECT_EQ(files.count("plt_00000.xmf"), 1u) << taken;
    for (const auto& [name, bytes] : files)
      EXPECT_EQ(name.find("plt_00001"), std::string::npos) << taken << ": " << name;
  }
}
