// The process's host memory: whether the memory a run frees stays in it for the next
// allocations (ranks.keep_freed_memory), and what the run used.
#pragma once

namespace pw {

/// Keep freed host memory in the process: glibc's malloc then serves a regrid's new
/// level from the memory the last regrid freed, rather than returning large blocks to
/// the system (munmap, or trimming the heap) and faulting fresh pages in at their next
/// first touch, which on virtual machines costs as much as the copies that write them.
/// The price is a higher peak resident memory (the heap keeps its holes). Raises
/// M_MMAP_THRESHOLD to 256 MiB (larger blocks still go back) and M_TRIM_THRESHOLD to
/// 1 GiB, for the whole process, from now on. Returns false where malloc does not take
/// both (not glibc, or a sanitizer's allocator; the first may then hold alone).
bool keep_freed_host_memory();

/// This process's peak resident memory so far and its minor page faults (first touches
/// of pages the system had to map), from getrusage.
struct HostMemoryUse {
  double peak_resident_bytes = 0;
  long minor_page_faults = 0;
};
HostMemoryUse host_memory_use();

}  // namespace pw
