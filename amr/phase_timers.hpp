// Wall time per phase of a run (advance, ghost fill, regrid, balance, output, ...).
// Phases nest (a regrid fills ghosts); each second is charged to the innermost phase
// only, so the phases add up to the time measured.
#pragma once

#include <mpi.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pw {

class PhaseTimers {
 public:
  class Scope {
   public:
    Scope(PhaseTimers& t, const char* phase) : t_(t) { t_.push(phase); }
    ~Scope() { t_.pop(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseTimers& t_;
  };

  const std::map<std::string, double>& seconds() const { return seconds_; }

 private:
  void push(const char* phase) {
    const double now = MPI_Wtime();
    if (!open_.empty()) seconds_[open_.back().first] += now - open_.back().second;
    open_.emplace_back(phase, now);
  }
  void pop() {
    const double now = MPI_Wtime();
    seconds_[open_.back().first] += now - open_.back().second;
    open_.pop_back();
    if (!open_.empty()) open_.back().second = now;
  }
  std::map<std::string, double> seconds_;
  std::vector<std::pair<std::string, double>> open_;  // phase, start of its current slice
};

}  // namespace pw
