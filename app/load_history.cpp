#include "app/load_history.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "amr/deck.hpp"
#include "amr/io/rank_errors.hpp"

namespace pw {

namespace {

/// The existing history's text up to its last complete row, without the rows of
/// balancing steps after `balance_steps` or, when that is -1, of step `from` on (counted
/// in `later`); "" (and `why` set) when it is not a load history with `header`.
/// `dropped`: a partial last row was cut.
std::string complete_rows(const std::string& file, const std::string& header, int from,
                          int balance_steps, std::string& why, bool& dropped,
                          int& later) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  if (text.empty()) return text;
  if (text.compare(0, header.size() + 1, header + "\n") != 0) {
    why = "its first line is not the header " + header + " (not a load history)";
    return "";
  }
  const size_t end = text.rfind('\n') + 1;
  dropped = end != text.size();
  text.resize(end);
  // A run restarted from a dump takes the balancing steps after it again: the history's
  // rows of those belong to the run it continues past that point, and would come
  // twice. A dump records how many it follows; without that count, the steps of step S
  // on for the dump of step S (a regrid at step S comes while step S + 1 is taken,
  // after the dump; this also drops the rows of a rebalance at step S before the dump,
  // and from the dump of step 0 the initial layout's).
  std::string kept = header + "\n";
  later = 0;
  const auto fields = [](const std::string& r) {
    return std::count(r.begin(), r.end(), ',') + 1;
  };
  int line = 1;
  for (size_t at = header.size() + 1; at < text.size();) {
    const size_t next = text.find('\n', at) + 1;
    const std::string row = text.substr(at, next - at);
    ++line;
    // A row the run did not write would stay in the history it goes on with.
    char* end = nullptr;
    const long number = std::strtol(row.c_str(), &end, 10);
    const bool first_ok = end != row.c_str() && *end == ',';
    const long step = first_ok ? std::strtol(end + 1, &end, 10) : 0;
    if (!first_ok || *end != ',' || fields(row) != fields(header)) {
      why = fmt::format(
          "line {}: expected a row of {} comma-separated values starting with the "
          "balancing step and the step (integers), as the header says, got \"{}\"",
          line, fields(header), row.substr(0, std::min<size_t>(row.size() - 1, 80)));
      return "";
    }
    if (balance_steps >= 0 ? number > balance_steps : step >= from)
      ++later;
    else
      kept += row;
    at = next;
  }
  return later > 0 ? kept : text;
}

}  // namespace

const char* LoadHistory::header() {
  return "balance_step,step,time,rank,load,patches,imbalance,std,idle,est_balance,"
         "uintah_i,bytes_migrated,split,cut_cells,balancer_ms,method";
}

std::string LoadHistory::path(const OutputConfig& cfg) {
  return cfg.dir + "/" + cfg.prefix + "_load.csv";
}

LoadHistory::LoadHistory(const OutputConfig& cfg, const Comm& comm, int restart_step,
                         int balance_steps)
    : path_(path(cfg)), comm_(comm) {
  const bool append = restart_step >= 0;
  std::string why;
  if (comm.rank() == 0) {
    // A restarted run goes on with the history of the run it continues, if there is one,
    // without a row that a crash cut short; the repaired file replaces it whole.
    bool dropped = false;
    int later = 0;
    const std::string rows = append ? complete_rows(path_, header(), restart_step,
                                                    balance_steps, why, dropped, later)
                                    : std::string();
    const bool rewrite = rows.empty() || dropped || later > 0;
    if (why.empty()) {
      const std::string tmp = path_ + ".tmp";
      file_ = std::fopen((rewrite ? tmp : path_).c_str(), rewrite ? "w" : "a");
      if (file_ == nullptr)
        why = std::strerror(errno);
      else
        std::fseek(file_, 0, SEEK_END);  // where write() measures the rows from
    }
    if (why.empty() && rewrite) {
      // The history on disk is replaced only with the run's first row: a run that stops
      // before (bad input found at its first step) leaves an earlier run's as it was,
      // and a restart's repair waits for it too.
      rename_pending_ = true;
      why = write(rows.empty() ? std::string(header()) + "\n" : rows);
    }
    if (why.empty() && dropped)
      fmt::print(stderr,
                 "patchwork: warning: load history {}: dropped a partial last row (a "
                 "crash while it was written)\n",
                 path_);
    if (why.empty() && later > 0)
      fmt::print(
          stderr,
          "patchwork: warning: load history {}: dropped {} rows of the balancing steps "
          "after the dump of step {} (the run takes them again)\n",
          path_, later, restart_step);
  }
  // Every rank learns of a failure, so that none waits in a collective later on.
  why = first_error(comm, why);
  if (!why.empty()) {
    close();  // no destructor runs after a constructor throws
    throw UserError("cannot write the load history " + path_ + ": " + why);
  }
}

LoadHistory::~LoadHistory() {
  close();
}

void LoadHistory::close() {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  if (rename_pending_) std::remove((path_ + ".tmp").c_str());
  rename_pending_ = false;
}

std::string LoadHistory::publish() {
  if (std::rename((path_ + ".tmp").c_str(), path_.c_str()) != 0)
    return std::strerror(errno);  // the .tmp is the destructor's to remove
  rename_pending_ = false;
  return "";
}

std::string LoadHistory::still_there() const {
  const std::string name = rename_pending_ ? path_ + ".tmp" : path_;
  struct stat open = {};
  struct stat named = {};
  if (::fstat(::fileno(file_), &open) != 0) return std::strerror(errno);
  // Rows written to a file no name reaches would be lost without a word.
  if (::stat(name.c_str(), &named) != 0)
    return "the file was removed while the run went on (was output.dir deleted?)";
  if (open.st_nlink == 0 || open.st_dev != named.st_dev || open.st_ino != named.st_ino)
    return "the file was replaced while the run went on";
  return "";
}

std::string LoadHistory::write(const std::string& text) {
  const long before = std::ftell(file_);
  if (std::fwrite(text.data(), 1, text.size(), file_) == text.size() &&
      std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0)
    return "";
  const std::string why = std::strerror(errno);
  // Cut off what part of the rows got out, so that the file ends in a whole row.
  std::clearerr(file_);
  if (before >= 0 && ::ftruncate(::fileno(file_), before) == 0)
    std::fseek(file_, before, SEEK_SET);
  return why;
}

void LoadHistory::append(int balance_step, const BalanceEvent& e, const PlanRecord& p,
                         const std::string& method) {
  std::string why;
  if (file_ != nullptr) {
    // Method names are identifiers, but quote anyway so that a comma cannot shift
    // columns.
    const bool quote = method.find_first_of(",\"") != std::string::npos;
    const std::string m = quote ? "\"" + method + "\"" : method;
    std::string rows;
    for (size_t r = 0; r < p.rank_load.size(); ++r)
      rows += fmt::format(
          "{},{},{:.17g},{},{:.17g},{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{},{}"
          ",{},{:.6f},{}\n",
          balance_step, e.step, e.time, r, p.rank_load[r], p.rank_patches[r],
          p.load.imbalance, p.load.std, p.load.idle, p.load.estimated_balance,
          p.load.uintah_i, e.bytes_migrated, p.split, e.cut_cells, 1e3 * p.seconds, m);
    why = still_there();  // before the rename, which would fail for want of the .tmp
    if (why.empty() && rename_pending_) why = publish();
    if (why.empty()) why = write(rows);
  }
  why = first_error(comm_, why);
  if (!why.empty())
    throw UserError("cannot write the load history " + path_ + ": " + why);
}

}  // namespace pw
