// ranks.keep_freed_memory's promise: a block freed and asked for again comes back
// without the system faulting its pages in anew; and what the run summary reports.
#include <gtest/gtest.h>
#include <sys/prctl.h>

#include <cstdlib>

#include "app/host_memory.hpp"

namespace {

constexpr size_t kPage = 4096;

/// Writes one byte per page, which the compiler may not drop.
void touch(char* p, size_t n) {
  for (size_t i = 0; i < n; i += kPage)
    static_cast<volatile char*>(p)[i] = 1;
}

/// The minor page faults of allocating n bytes, writing them and freeing them.
long faults_of_a_block(size_t n) {
  char* p = static_cast<char*>(std::malloc(n));
  if (p == nullptr) return -1;
  const long before = pw::host_memory_use().minor_page_faults;
  touch(p, n);
  const long faults = pw::host_memory_use().minor_page_faults - before;
  std::free(p);
  return faults;
}

}  // namespace

TEST(HostMemory, AFreedBlockComesBackWithoutPageFaults) {
  // With transparent huge pages a fresh block would fault once per 2 MiB, not per page.
  prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
  // Above glibc's own mmap threshold (at most 32 MiB): by default it goes back.
  const size_t n = size_t(64) << 20;
  const long pages = long(n / kPage);
  // The control: given back, the same block faults its pages in again.
  ASSERT_GT(faults_of_a_block(n), pages / 2);
  ASSERT_GT(faults_of_a_block(n), pages / 2);
  if (!pw::keep_freed_host_memory())
    GTEST_SKIP() << "malloc did not take the settings (not glibc, or a sanitizer's)";
  faults_of_a_block(n);  // taken from the system once more, then kept
  EXPECT_LT(faults_of_a_block(n), pages / 100);
}

TEST(HostMemory, PeakResidentMemoryCountsWhatWasTouched) {
  const size_t n = size_t(48) << 20;
  char* a = static_cast<char*>(std::malloc(n));
  ASSERT_NE(a, nullptr);
  touch(a, n);
  const pw::HostMemoryUse use = pw::host_memory_use();
  std::free(a);
  EXPECT_GE(use.peak_resident_bytes, double(n));
}
