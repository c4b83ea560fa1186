#include "app/load_history.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "amr/deck.hpp"

namespace pw {

const char* LoadHistory::header() {
  return "balance_step,step,time,rank,load,patches,imbalance,std,idle,est_balance,"
         "uintah_i,bytes_migrated,split,cut_cells,balancer_ms,method";
}

std::string LoadHistory::path(const OutputConfig& cfg) {
  return cfg.dir + "/" + cfg.prefix + "_load.csv";
}

LoadHistory::LoadHistory(const OutputConfig& cfg, const Comm& comm, bool append) {
  const std::string file = path(cfg);
  std::string error;
  if (comm.rank() == 0) {
    // A restarted run goes on with the history of the run it continues, if there is one.
    std::FILE* existing = append ? std::fopen(file.c_str(), "r") : nullptr;
    const bool has_rows = existing != nullptr && std::fgetc(existing) != EOF;
    if (existing != nullptr) std::fclose(existing);
    file_ = std::fopen(file.c_str(), has_rows ? "a" : "w");
    if (file_ == nullptr)
      error = std::strerror(errno);
    else if (!has_rows)
      fmt::print(file_, "{}\n", header());
  }
  // Every rank learns of a failure, so that none waits in a collective later on.
  if (comm.sum(long(!error.empty())) > 0)
    throw UserError("cannot write the load history " + file +
                    (error.empty() ? "" : ": " + error));
  if (file_ != nullptr) std::fflush(file_);
}

LoadHistory::~LoadHistory() {
  if (file_ != nullptr) std::fclose(file_);
}

void LoadHistory::append(int balance_step, const BalanceEvent& e, const PlanRecord& p,
                         const std::string& method) {
  if (file_ == nullptr) return;
  // Method names are identifiers, but quote anyway so that a comma cannot shift columns.
  const bool quote = method.find_first_of(",\"") != std::string::npos;
  const std::string m = quote ? "\"" + method + "\"" : method;
  for (size_t r = 0; r < p.rank_load.size(); ++r)
    fmt::print(file_,
               "{},{},{:.17g},{},{:.17g},{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{},{}"
               ",{},{:.6f},{}\n",
               balance_step, e.step, e.time, r, p.rank_load[r], p.rank_patches[r],
               p.load.imbalance, p.load.std, p.load.idle, p.load.estimated_balance,
               p.load.uintah_i, e.bytes_migrated, p.split, e.cut_cells, 1e3 * p.seconds,
               m);
  std::fflush(file_);
}

}  // namespace pw
