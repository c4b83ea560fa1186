// Small tables (boxes, references to patches, plan entries) copied from the host to the
// default memory space. Allocated without initialization: the copy writes every entry,
// and a zeroing launch per table would add a kernel launch to every plan a regrid builds.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace pw {

/// A device array of n entries whose values are left undefined until written.
template <class T>
Kokkos::View<T*> device_array(const std::string& label, size_t n) {
  return Kokkos::View<T*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
}

/// A device copy of `host`.
template <class T>
Kokkos::View<T*> device_copy(const std::string& label, const std::vector<T>& host) {
  Kokkos::View<T*> d = device_array<T>(label, host.size());
  Kokkos::deep_copy(
      d,
      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          host.data(), host.size()));
  return d;
}

}  // namespace pw
