// The small MPI wrapper the AMR layer talks through: rank, size and the few collectives
// used.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "amr/emulation.hpp"

namespace pw {

class Comm {
 public:
  explicit Comm(MPI_Comm c = MPI_COMM_WORLD);
  MPI_Comm raw() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  double min(double x) const;
  double max(double x) const;
  double sum(double x) const;
  long sum(long x) const;
  std::uint64_t sum(std::uint64_t x) const;
  /// Element-wise sums of a vector.
  std::vector<double> sum(const std::vector<double>& x) const;
  /// Concatenation of every rank's vector, in rank order.
  std::vector<int> all_gather(const std::vector<int>& mine) const;
  void barrier() const;

  /// Emulated heterogeneity, shared by the copies of this Comm; null when none.
  const Emulation* emulation() const { return emulation_.get(); }
  void set_emulation(std::shared_ptr<const Emulation> e) { emulation_ = std::move(e); }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::shared_ptr<const Emulation> emulation_;
};

}  // namespace pw
