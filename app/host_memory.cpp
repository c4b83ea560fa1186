#include "app/host_memory.hpp"

#include <sys/resource.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pw {

bool keep_freed_host_memory() {
#if defined(__GLIBC__)
  // Blocks below the mmap threshold come from the heap and go back to it when freed; a
  // set threshold also stops glibc from moving it (its dynamic threshold stops at 32
  // MiB, below a finest level's state). The trim threshold keeps freed memory at the
  // heap's top from being given back.
  const bool mmap = mallopt(M_MMAP_THRESHOLD, 256 << 20) == 1;
  const bool trim = mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
  return mmap && trim;
#else
  return false;
#endif
}

HostMemoryUse host_memory_use() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  // Linux reports ru_maxrss in KiB.
  return {1024.0 * double(u.ru_maxrss), long(u.ru_minflt)};
}

}  // namespace pw
