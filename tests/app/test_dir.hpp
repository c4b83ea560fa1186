// An empty directory for one test of one job (tests run concurrently at several rank
// counts): the test's name, the rank count and rank 0's pid. Removed at the end.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "amr/comm.hpp"

namespace pw::testing {

class TestDir {
 public:
  TestDir(const Comm& comm, const std::string& prefix) : comm_(comm) {
    const long pid = comm.sum(long(comm.rank() == 0 ? ::getpid() : 0));
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = (std::filesystem::temp_directory_path() /
             (prefix + std::string(info->name()) + "_np" + std::to_string(comm.size()) +
              "_" + std::to_string(pid)))
                .string();
    if (comm.rank() == 0) {
      std::filesystem::remove_all(path_);
      std::filesystem::create_directories(path_);
    }
    comm.barrier();
  }
  ~TestDir() {
    comm_.barrier();
    if (comm_.rank() == 0) std::filesystem::remove_all(path_);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  Comm comm_;
  std::string path_;
};

}  // namespace pw::testing
