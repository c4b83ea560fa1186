#include "amr/memory_budget.hpp"

#include <fmt/format.h>

namespace pw {

double patch_bytes(const Box& box, int dim, int ncomp, int nghost, FluxStorage fluxes) {
  double state = 2, faces = 0;  // doubles: nothing here overflows
  for (int d = 0; d < dim; ++d)
    state *= box.size()[d] + 2.0 * nghost;
  for (int f = 0; f < dim && fluxes.stored; ++f)
    faces += double(padded_faces(box, f, fluxes.padding).num_cells());
  return 8.0 * ncomp * (state + faces);
}

std::string size_text(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000 && u < 6) {
    bytes /= 1000;
    ++u;
  }
  return fmt::format("{:.3g} {}", bytes, units[u]);
}

std::string exceeds_budget(double bytes, const MemoryBudget& budget) {
  const double per_node = bytes / budget.ranks * budget.ranks_per_node;
  if (budget.bytes_per_node <= 0 || per_node <= budget.bytes_per_node) return {};
  return fmt::format(
      "about {} of field data, {} on a node with {} of the {} ranks: more "
      "than the {} {} (set ranks.memory_per_node or --max-memory to change)",
      size_text(bytes), size_text(per_node), budget.ranks_per_node, budget.ranks,
      size_text(budget.bytes_per_node), budget.source);
}

}  // namespace pw
