#include "amr/launch_counter.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>

namespace pw {

namespace {

long count = 0;
bool installed = false;

void on_launch(const char*, const std::uint32_t, std::uint64_t*) {
  ++count;
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
  count = 0;
  install(true);
}

LaunchCounter::~LaunchCounter() {
  install(false);
  installed = false;
}

long LaunchCounter::launches() const {
  return count;
}

long LaunchCounter::so_far() {
  return installed ? count : -1;
}

}  // namespace pw
