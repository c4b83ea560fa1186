#include "app/memory_check.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "cli/cli_numbers.hpp"

namespace pw {

double memory_per_node(const Deck& deck) {
  const std::string key = "ranks.memory_per_node";
  const std::string text = deck.get<std::string>(key, "physical");
  if (text == "physical") return 0;
  const std::string bytes = cli::size_in_bytes(text);  // "16GB" -> "16000000000"
  const double value = bytes.empty() ? 0 : std::strtod(bytes.c_str(), nullptr);
  if (!(value > 0))
    deck.fail(key,
              "expected \"physical\" or a size such as \"16GB\", \"512MiB\" or "
              "\"1000000\" (bytes), got " +
                  to_toml(text));
  return value;
}

namespace {

double physical_memory() {
  return double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
}

/// Ranks on the node (shared-memory domain) with the most of them.
int ranks_on_busiest_node(const Comm& comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm.raw(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL,
                      &node);
  int here = 1;
  MPI_Comm_size(node, &here);
  MPI_Comm_free(&node);
  return int(comm.max(double(here)));
}

}  // namespace

double level0_bytes(const AmrConfig& cfg, int ncomp, int nghost, FluxStorage flux) {
  const LevelGeom& g = cfg.geom0;
  // chop() cuts each direction into about N / max_grid_size pieces; every piece adds
  // its ghost layers and one face of fluxes (or its padding in x). Doubles: nothing
  // here overflows.
  double n[3], pieces[3];
  for (int d = 0; d < g.dim; ++d) {
    n[d] = g.domain.size()[d];
    pieces[d] = std::ceil(n[d] / cfg.max_grid_size);
  }
  double state = 2, fluxes = 0;
  for (int d = 0; d < g.dim; ++d)
    state *= n[d] + 2.0 * nghost * pieces[d];
  for (int f = 0; f < g.dim && flux.stored; ++f) {
    // What each piece adds: one cell's fluxes beyond the cell (a face, or the padding).
    const IntVect one = padded_faces(Box{{0, 0, 0}, {0, 0, 0}}, f, flux.padding).size();
    double faces = 1;
    for (int d = 0; d < g.dim; ++d)
      faces *= n[d] + (one[d] - 1) * pieces[d];
    fluxes += faces;
  }
  return 8.0 * ncomp * (state + fluxes);
}

MemoryBudget check_memory(const Deck& deck, const AmrConfig& cfg, int ncomp, int nghost,
                          FluxStorage fluxes, const Comm& comm) {
  MemoryBudget budget;
  const double given = memory_per_node(deck);
  // Every rank must reach the same verdict: the smallest node's memory counts.
  budget.bytes_per_node = given > 0 ? given : comm.min(physical_memory());
  budget.source = given > 0 ? "of ranks.memory_per_node" : "of the node's memory";
  budget.ranks_per_node = ranks_on_busiest_node(comm);
  budget.ranks = comm.size();
  const std::string why =
      exceeds_budget(level0_bytes(cfg, ncomp, nghost, fluxes), budget);
  if (why.empty()) return budget;
  double cells = 1;
  for (int d = 0; d < cfg.geom0.dim; ++d)
    cells *= cfg.geom0.domain.size()[d];
  deck.fail(
      "domain.n_cell",
      fmt::format("level 0 ({:.4g} cells, {} component{}, {} ghost layers) needs {}",
                  cells, ncomp, ncomp == 1 ? "" : "s", nghost, why));
}

}  // namespace pw
