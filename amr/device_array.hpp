// Small tables (boxes, references to patches, plan entries) copied from the host to the
// default memory space. Allocated without initialization: the copy writes every entry,
// and a zeroing launch per table would add a kernel launch to every plan a regrid builds.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace pw {

/// A device array of n entries whose values are left undefined until written.
template <class T>
Kokkos::View<T*> device_array(const std::string& label, size_t n) {
  return Kokkos::View<T*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
}

/// A device array of structs that need no destructor, left undefined until written, used
/// as a Kokkos::View<T*> is. Its entries live in an array of bytes, seen through an
/// unmanaged view: Kokkos 3.4 makes a launch and a fence whenever the last view of a
/// type that is not scalar goes, even one allocated without initialization, and every
/// plan a regrid replaces holds several such tables.
template <class T>
class StructArray {
  static_assert(!std::is_scalar_v<T> && std::is_trivially_destructible_v<T> &&
                std::is_trivially_copyable_v<T>);

 public:
  using View = Kokkos::View<T*, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  StructArray() = default;
  StructArray(const std::string& label, size_t n)
      : bytes_(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n * sizeof(T)),
        view_(reinterpret_cast<T*>(bytes_.data()), n) {}

  KOKKOS_FORCEINLINE_FUNCTION T& operator()(size_t i) const { return view_(i); }
  KOKKOS_INLINE_FUNCTION size_t extent(int r) const { return view_.extent(r); }
  KOKKOS_INLINE_FUNCTION size_t size() const { return view_.size(); }
  KOKKOS_INLINE_FUNCTION T* data() const { return view_.data(); }
  const View& view() const { return view_; }

 private:
  Kokkos::View<unsigned char*> bytes_;  // Kokkos aligns allocations to 64 bytes at least
  View view_;
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
