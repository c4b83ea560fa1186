// The load history (DIR/PREFIX_load.csv) of a short multi-level run at 1, 2 and 4 ranks:
// one row per rank per balancing step, the documented columns, and per-rank loads that
// add up to the hierarchy's total cost and agree with the step's metrics; a partial last
// row (a crash) dropped on append, a foreign file refused, a failed write an error on
// every rank that leaves whole rows.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/load_history.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ','))
    out.push_back(cell);
  return out;
}

// A directory of its own for this run: rank 0's pid, shared with every rank.
std::filesystem::path unique_dir(const Comm& comm) {
  const long pid = comm.sum(long(comm.rank() == 0 ? ::getpid() : 0));
  return std::filesystem::temp_directory_path() /
         ("pw_load_history_" + std::to_string(pid) + "_np" + std::to_string(comm.size()));
}

/// The whole text of `file`.
std::string contents(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A history "lh" in dir.
OutputConfig history_in(const std::filesystem::path& dir) {
  OutputConfig cfg;
  cfg.dir = dir.string();
  cfg.prefix = "lh";
  return cfg;
}

/// Append balancing step `balance_step` (of `step`), one row per rank; returns the
/// file's text afterwards (every rank). The repair of a restart's history is written with
/// the first row, not before.
std::string append_and_read(LoadHistory& h, const Comm& comm, const std::string& file,
                            int balance_step, int step) {
  BalanceEvent e;
  e.step = step;
  PlanRecord p;
  p.rank_load.assign(size_t(comm.size()), 1.0);
  p.rank_patches.assign(size_t(comm.size()), 1);
  h.append(balance_step, e, p, "sfc");
  comm.barrier();
  return contents(file);
}

/// Writes beyond `bytes` of a file fail (EFBIG, SIGXFSZ ignored) while it lives, as on a
/// full disk.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) : handler_(std::signal(SIGXFSZ, SIG_IGN)) {
    getrlimit(RLIMIT_FSIZE, &old_);
    rlimit low = old_;
    low.rlim_cur = bytes;
    EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &low), 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, handler_);
  }

 private:
  rlimit old_{};
  void (*handler_)(int);
};

/// The UserError an append throws ("" if none).
std::string append_error(LoadHistory& h, const Comm& comm, const std::string& file,
                         int balance_step, int step) {
  try {
    append_and_read(h, comm, file, balance_step, step);
  } catch (const UserError& err) {
    return err.what();
  }
  return "";
}

/// `text` ends with one row per rank of `balance_step` and `step` after `before`.
void expect_rows_after(const std::string& text, const std::string& before,
                       int balance_step, int step, int ranks) {
  ASSERT_EQ(text.compare(0, before.size(), before), 0) << text;
  std::istringstream rest(text.substr(before.size()));
  std::string line;
  int n = 0;
  while (std::getline(rest, line)) {
    EXPECT_EQ(
        line.rfind(std::to_string(balance_step) + "," + std::to_string(step) + ",", 0),
        0u)
        << line;
    ++n;
  }
  EXPECT_EQ(n, ranks);
}

/// The header and one row, of step 0.
std::string header_and_step_0() {
  return std::string(LoadHistory::header()) + "\n" +
         "1,0,0,0,1,1,1,0,0,1,0,0,0,0,0.1,sfc\n";
}

}  // namespace

TEST(LoadHistory, OneRowPerRankPerBalancingStepAndLoadsSumToTheTotalCost) {
  const Comm comm;
  const auto dir = unique_dir(comm);
  const Deck deck =
      Deck::parse(pw::testing::swirl_deck(2), "test.toml",
                  {"output.write=true", "output.dir=\"" + dir.string() + "\"",
                   "output.prefix=\"lh\"", "time.max_step=6"});
  Simulation sim(deck, comm);
  const RunResult r = sim.run(false);
  comm.barrier();  // rank 0 has flushed every row

  std::ifstream in(dir / "lh_load.csv");
  ASSERT_TRUE(in.good()) << dir / "lh_load.csv";
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, LoadHistory::header());
  const std::vector<std::string> columns = split(line);
  ASSERT_EQ(columns.size(), 16u);

  const int nranks = comm.size();
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line))
    rows.push_back(split(line));
  ASSERT_GT(r.balance.steps, 1);
  ASSERT_EQ(int(rows.size()), nranks * r.balance.steps);

  for (int s = 0; s < r.balance.steps; ++s) {
    double sum = 0, max = 0;
    for (int q = 0; q < nranks; ++q) {
      const auto& row = rows[size_t(s * nranks + q)];
      ASSERT_EQ(row.size(), columns.size());
      EXPECT_EQ(std::stoi(row[0]), s + 1);               // balance_step
      EXPECT_EQ(std::stoi(row[3]), q);                   // rank
      EXPECT_EQ(row[15], rows[size_t(s * nranks)][15]);  // one method per step
      sum += std::stod(row[4]);
      max = std::max(max, std::stod(row[4]));
    }
    // The step's imbalance column is MaxLoad / AvgLoad of the loads in its rows.
    EXPECT_NEAR(std::stod(rows[size_t(s * nranks)][6]), max / (sum / nranks), 1e-12);
  }

  // The last balancing step made the final layout: its loads add up to the hierarchy's
  // cost (cells x substeps, every rank of speed 1) and its patch counts to its patches.
  const Hierarchy& h = sim.hierarchy();
  double total = 0, substeps = 1;
  long patches = 0;
  for (int l = 0; l <= h.finest_level(); ++l) {
    if (l > 0) substeps *= 2;  // ref_ratio = 2
    total += double(h.level(l).num_cells()) * substeps;
    patches += long(h.level(l).layout.size());
  }
  double last_sum = 0;
  long last_patches = 0;
  for (int q = 0; q < nranks; ++q) {
    const auto& row = rows[size_t((r.balance.steps - 1) * nranks + q)];
    last_sum += std::stod(row[4]);
    last_patches += std::stol(row[5]);
  }
  EXPECT_NEAR(last_sum, total, 1e-9 * total);
  EXPECT_EQ(last_patches, patches);

  comm.barrier();
  if (comm.rank() == 0) std::filesystem::remove_all(dir);
}

TEST(LoadHistory, APartialLastRowIsDroppedAndAForeignFileRefused) {
  const Comm comm;
  const auto dir = unique_dir(comm) / "partial";
  const OutputConfig cfg = history_in(dir);
  const std::string file = LoadHistory::path(cfg);
  const std::string whole = header_and_step_0();
  for (const std::string& tail : {std::string(), std::string("2,2,0.5,0,1")}) {
    if (comm.rank() == 0) {
      std::filesystem::create_directories(dir);
      std::ofstream(file, std::ios::binary) << whole << tail;
    }
    comm.barrier();
    {
      LoadHistory h(cfg, comm, /*restart_step=*/1);
      comm.barrier();
      EXPECT_EQ(contents(file), whole + tail) << "before the first row";
      comm.barrier();
      expect_rows_after(append_and_read(h, comm, file, 2, 1), whole, 2, 1, comm.size());
    }
    comm.barrier();  // every rank has read it before rank 0 writes the next
  }
  // Not a load history: refused on every rank, left as it was.
  if (comm.rank() == 0) std::ofstream(file) << "x,y\n1,2\n";
  comm.barrier();
  std::string e;
  try {
    LoadHistory h(cfg, comm, /*restart_step=*/1);
  } catch (const UserError& err) {
    e = err.what();
  }
  EXPECT_NE(e.find("cannot write the load history " + file), std::string::npos) << e;
  EXPECT_NE(e.find("not a load history"), std::string::npos) << e;
  comm.barrier();
  if (comm.rank() == 0) std::filesystem::remove_all(dir.parent_path());
}

TEST(LoadHistory, ARestartFromAnEarlierDumpDropsTheLaterRows) {
  // Rows of steps 0, 2 and 4; a restart from the dump of step 2 takes the balancing
  // steps of step 2 (while step 3 is taken) and later ones again: it keeps step 0's.
  const Comm comm;
  const auto dir = unique_dir(comm) / "rewind";
  const OutputConfig cfg = history_in(dir);
  const std::string file = LoadHistory::path(cfg);
  const std::string kept = header_and_step_0();
  if (comm.rank() == 0) {
    std::filesystem::create_directories(dir);
    std::ofstream(file, std::ios::binary)
        << kept << "2,2,0.5,0,1,1,1,0,0,1,0,0,0,0,0.1,sfc\n"
        << "3,4,1.0,0,1,1,1,0,0,1,0,0,0,0,0.1,sfc\n";
  }
  comm.barrier();
  {
    LoadHistory h(cfg, comm, /*restart_step=*/2);
    expect_rows_after(append_and_read(h, comm, file, 2, 2), kept, 2, 2, comm.size());
  }
  comm.barrier();
  if (comm.rank() == 0) std::filesystem::remove_all(dir.parent_path());
}

TEST(LoadHistory, ARestartKeepsTheBalancingStepsItsDumpRecords) {
  // Balancing steps 1 (step 0, the initial layout), 2 (while step 2 is taken, before
  // the dump of step 2), 3 (step 2, after that dump) and 4. A dump records how many
  // steps it follows: the dump of step 2 keeps 1 and 2, that of step 0 keeps 1.
  const Comm comm;
  const auto dir = unique_dir(comm) / "recorded";
  const OutputConfig cfg = history_in(dir);
  const std::string file = LoadHistory::path(cfg);
  const std::string row2 = "2,2,0.5,0,1,1,1,0,0,1,0,0,0,0,0.1,sfc\n";
  const std::string later =
      "3,2,0.5,0,1,1,1,0,0,1,0,0,0,0,0.1,sfc\n"
      "4,4,1.0,0,1,1,1,0,0,1,0,0,0,0,0.1,sfc\n";
  for (const auto& [step, count] : {std::pair{2, 2}, std::pair{0, 1}}) {
    if (comm.rank() == 0) {
      std::filesystem::create_directories(dir);
      std::ofstream(file, std::ios::binary) << header_and_step_0() << row2 << later;
    }
    comm.barrier();
    {
      LoadHistory h(cfg, comm, step, count);
      expect_rows_after(append_and_read(h, comm, file, count + 1, step),
                        header_and_step_0() + (count == 2 ? row2 : ""), count + 1, step,
                        comm.size());
    }
    comm.barrier();
  }
  if (comm.rank() == 0) std::filesystem::remove_all(dir.parent_path());
}

TEST(LoadHistory, AFailedAppendIsAUserErrorOnEveryRankAndLeavesWholeRows) {
  const Comm comm;
  const auto dir = unique_dir(comm) / "full";
  // Writes past the header and 10 bytes fail (EFBIG, the signal ignored), as on a full
  // disk: the first row is cut short.
  std::string e;
  {
    const FileSizeLimit limit(std::strlen(LoadHistory::header()) + 1 + 10);
    try {
      pw::testing::run_deck(pw::testing::swirl_deck(2), comm,
                            {"output.write=true", "output.interval=0",
                             "output.dir=\"" + dir.string() + "\"",
                             "output.prefix=\"lh\"", "time.max_step=6"});
    } catch (const UserError& err) {
      e = err.what();
    }
  }
  EXPECT_NE(e.find("cannot write the load history " + (dir / "lh_load.csv").string()),
            std::string::npos)
      << e;
  comm.barrier();
  // The cut row is gone again: the header alone.
  EXPECT_EQ(contents(dir / "lh_load.csv"), std::string(LoadHistory::header()) + "\n");
  comm.barrier();
  if (comm.rank() == 0) std::filesystem::remove_all(dir.parent_path());
}

TEST(LoadHistory, AHistoryRemovedOrReplacedWhileTheRunGoesIsAnError) {
  // Rows appended to a file no name reaches any more would be lost without a word.
  const Comm comm;
  const auto dir = unique_dir(comm) / "removed";
  const OutputConfig cfg = history_in(dir);
  const std::string file = LoadHistory::path(cfg);
  {
    // Before the first row: the temporary that would replace the history is gone.
    if (comm.rank() == 0) std::filesystem::create_directories(dir);
    comm.barrier();
    LoadHistory h(cfg, comm);
    comm.barrier();
    if (comm.rank() == 0) std::filesystem::remove_all(dir);
    comm.barrier();
    const std::string e = append_error(h, comm, file, 1, 0);
    EXPECT_NE(e.find("cannot write the load history " + file + ": the file was removed"),
              std::string::npos)
        << e;
  }
  for (const std::string what : {"removed", "replaced"}) {
    if (comm.rank() == 0) std::filesystem::create_directories(dir);
    comm.barrier();
    LoadHistory h(cfg, comm);
    append_and_read(h, comm, file, 1, 0);
    if (comm.rank() == 0) {
      if (what == "removed") {
        std::filesystem::remove_all(dir);
      } else {
        std::ofstream(file + ".new") << LoadHistory::header() << "\n";
        std::filesystem::rename(file + ".new", file);
      }
    }
    comm.barrier();
    const std::string e = append_error(h, comm, file, 2, 2);
    EXPECT_NE(e.find("cannot write the load history " + file + ": the file was " + what),
              std::string::npos)
        << e;
    comm.barrier();
  }
  if (comm.rank() == 0) std::filesystem::remove_all(dir.parent_path());
}

TEST(LoadHistory, AHistoryThatCannotStartLeavesNoTemporary) {
  // The header cannot be written (a file-size limit below it, as on a full disk): an
  // error on every rank, the earlier history as it was, and no .tmp left behind.
  const Comm comm;
  const auto dir = unique_dir(comm) / "nostart";
  const OutputConfig cfg = history_in(dir);
  const std::string file = LoadHistory::path(cfg);
  if (comm.rank() == 0) {
    std::filesystem::create_directories(dir);
    std::ofstream(file, std::ios::binary) << header_and_step_0();
  }
  comm.barrier();
  std::string e;
  {
    const FileSizeLimit limit(10);
    try {
      LoadHistory h(cfg, comm);
    } catch (const UserError& err) {
      e = err.what();
    }
  }
  EXPECT_NE(e.find("cannot write the load history " + file), std::string::npos) << e;
  comm.barrier();
  EXPECT_EQ(contents(file), header_and_step_0());
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  comm.barrier();
  if (comm.rank() == 0) std::filesystem::remove_all(dir.parent_path());
}
