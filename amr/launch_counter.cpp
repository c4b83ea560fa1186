#include "amr/launch_counter.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace pw {

namespace {

long count = 0, free_launches = 0;
bool installed = false;

void on_launch(const char* name, const std::uint32_t, std::uint64_t*) {
  // Not Kokkos's own copies between host arrays, which a threaded host backend makes
  // with a kernel above 80 kB (a table's upload crosses that as a level grows; on a
  // device it is a memcpy).
  constexpr char host_copy[] = "Kokkos::Impl::host_space_deepcopy";
  if (std::strncmp(name, host_copy, sizeof(host_copy) - 1) == 0) return;
  ++count;
  constexpr char destruction[] = "Kokkos::View::destruction";
  if (std::strncmp(name, destruction, sizeof(destruction) - 1) == 0) ++free_launches;
}

void install(bool on) {
  namespace T = Kokkos::Tools::Experimental;
  T::set_begin_parallel_for_callback(on ? on_launch : nullptr);
  T::set_begin_parallel_reduce_callback(on ? on_launch : nullptr);
  T::set_begin_parallel_scan_callback(on ? on_launch : nullptr);
}

}  // namespace

LaunchCounter::LaunchCounter() {
  if (installed) throw std::logic_error("LaunchCounter: one at a time");
  installed = true;
  count = free_launches = 0;
  install(true);
}

LaunchCounter::~LaunchCounter() {
  install(false);
  installed = false;
}

long LaunchCounter::launches() const {
  return count;
}

long LaunchCounter::frees() const {
  return free_launches;
}

long LaunchCounter::so_far() {
  return installed ? count : -1;
}

}  // namespace pw
