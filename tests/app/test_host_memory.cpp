// ranks.keep_freed_memory's promise: a block freed and asked for again comes back
// without the system faulting its pages in anew; and what the run summary reports.
#include <gtest/gtest.h>

#include <cstdlib>

#include "app/host_memory.hpp"

namespace {

constexpr size_t kPage = 4096;

/// Writes one byte per page, which the compiler may not drop.
void touch(char* p, size_t n) {
  for (size_t i = 0; i < n; i += kPage)
    static_cast<volatile char*>(p)[i] = 1;
}

}  // namespace

TEST(HostMemory, AFreedBlockComesBackWithoutPageFaults) {
  if (!pw::keep_freed_host_memory()) GTEST_SKIP() << "the C library is not glibc";
  // Above glibc's own mmap threshold (at most 32 MiB), which would give it back.
  const size_t n = size_t(64) << 20;
  char* a = static_cast<char*>(std::malloc(n));
  ASSERT_NE(a, nullptr);
  touch(a, n);
  std::free(a);
  const long before = pw::host_memory_use().minor_page_faults;
  char* b = static_cast<char*>(std::malloc(n));
  ASSERT_NE(b, nullptr);
  touch(b, n);
  const long faults = pw::host_memory_use().minor_page_faults - before;
  std::free(b);
  // 16,384 pages: given back, each would fault again.
  EXPECT_LT(faults, long(n / kPage / 100));
}

TEST(HostMemory, PeakResidentMemoryCountsWhatWasTouched) {
  const size_t n = size_t(48) << 20;
  char* a = static_cast<char*>(std::malloc(n));
  ASSERT_NE(a, nullptr);
  touch(a, n);
  const pw::HostMemoryUse use = pw::host_memory_use();
  std::free(a);
  EXPECT_GE(use.peak_resident_bytes, double(n));
  EXPECT_GT(use.minor_page_faults, 0);
}
