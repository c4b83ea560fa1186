// Small tables (boxes, references to patches, plan entries) copied from the host to the
// default memory space. Allocated without initialization: the copy writes every entry,
// and a zeroing launch per table would add a kernel launch to every plan a regrid builds.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace pw {

/// A device array of n scalars whose values are left undefined until written (structs:
/// StructArray).
template <class T>
Kokkos::View<T*> device_array(const std::string& label, size_t n) {
  static_assert(std::is_scalar_v<T>, "a device array of structs is a StructArray");
  return Kokkos::View<T*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
}

/// A device array of structs that need no destructor, left undefined until written, used
/// as a Kokkos::View<T*> is. Its entries live in an array of bytes: Kokkos 3.4 makes a
/// launch and a fence whenever the last view of a type that is not scalar goes, even one
/// allocated without initialization, and every plan a regrid or a new solver replaces
/// holds several such tables. Holds the bytes' view alone, so that a kernel capturing
/// it carries no more than a Kokkos::View would.
template <class T>
class StructArray {
  // Kokkos's allocations start 64-byte aligned, the data after a header of 128 bytes.
  static_assert(!std::is_scalar_v<T> && std::is_trivially_destructible_v<T> &&
                std::is_trivially_copyable_v<T> && alignof(T) <= 64);

 public:
  using View = Kokkos::View<T*, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  StructArray() = default;
  StructArray(const std::string& label, size_t n)
      : bytes_(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n * sizeof(T)) {}

  KOKKOS_FORCEINLINE_FUNCTION T& operator()(size_t i) const { return data()[i]; }
  KOKKOS_INLINE_FUNCTION size_t size() const { return bytes_.extent(0) / sizeof(T); }
  KOKKOS_INLINE_FUNCTION size_t extent(int r) const { return r == 0 ? size() : 1; }
  KOKKOS_INLINE_FUNCTION T* data() const { return reinterpret_cast<T*>(bytes_.data()); }
  /// An unmanaged view of the entries (for deep_copy and mirrors; lives no longer than
  /// this array's bytes).
  View view() const { return View(data(), size()); }

 private:
  Kokkos::View<unsigned char*> bytes_;
};

/// A device copy of `host`: a Kokkos::View of scalars, a StructArray of structs.
template <class T>
auto device_copy(const std::string& label, const std::vector<T>& host) {
  using Host =
      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  if constexpr (std::is_scalar_v<T>) {
    Kokkos::View<T*> d = device_array<T>(label, host.size());
    Kokkos::deep_copy(d, Host(host.data(), host.size()));
    return d;
  } else {
    StructArray<T> d(label, host.size());
    Kokkos::deep_copy(d.view(), Host(host.data(), host.size()));
    return d;
  }
}

}  // namespace pw
