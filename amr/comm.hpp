// The small MPI wrapper the AMR layer talks through: rank, size and the few collectives
// used.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
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
  /// Rank `root`'s `text`, on every rank.
  std::string broadcast(const std::string& text, int root = 0) const;
  void barrier() const;

  /// Whether MPI is handed device memory: exchange buffers stay on the device (an MPI
  /// that reads GPU memory), else they pass through a host mirror (the same memory where
  /// the device is the host). The default is the build's PATCHWORK_GPU_AWARE_MPI.
  bool device_buffers() const { return device_buffers_; }
  void set_device_buffers(bool on) { device_buffers_ = on; }

  /// Emulated heterogeneity, shared by the copies of this Comm; null when none.
  const Emulation* emulation() const { return emulation_.get(); }
  void set_emulation(std::shared_ptr<const Emulation> e) { emulation_ = std::move(e); }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  bool device_buffers_;
  std::shared_ptr<const Emulation> emulation_;
};

}  // namespace pw
