#include "app/memory_check.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace pw {

namespace {

/// Bytes `deck` gives a node, or 0 for "physical" (the default).
double memory_per_node(const Deck& deck) {
  const std::string key = "ranks.memory_per_node";
  std::string text = deck.get<std::string>(key, "physical");
  if (text == "physical") return 0;
  const std::string given = text;
  std::string why;
  try {
    why = CLI::AsSizeValue(true)(text);  // "16GB" -> "16000000000"
  } catch (const CLI::ValidationError& e) {
    why = e.what();
  }
  double bytes = 0;
  if (why.empty()) bytes = std::strtod(text.c_str(), nullptr);
  if (!why.empty() || !(bytes > 0))
    deck.fail(key,
              "expected \"physical\" or a size such as \"16GB\", \"512MiB\" or "
              "\"1000000\" (bytes), got " +
                  to_toml(given));
  return bytes;
}

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

/// "39.5 GB", "151 kB": three digits and a decimal unit.
std::string size_text(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000 && u < 6) {
    bytes /= 1000;
    ++u;
  }
  return fmt::format("{:.3g} {}", bytes, units[u]);
}

}  // namespace

double level0_bytes(const AmrConfig& cfg, int ncomp, int nghost) {
  const LevelGeom& g = cfg.geom0;
  // chop() cuts each direction into about N / max_grid_size pieces; every piece adds
  // its ghost layers and one face of fluxes. Doubles: nothing here overflows.
  double n[3], pieces[3];
  for (int d = 0; d < g.dim; ++d) {
    n[d] = g.domain.size()[d];
    pieces[d] = std::ceil(n[d] / cfg.max_grid_size);
  }
  double state = 2, fluxes = 0;
  for (int d = 0; d < g.dim; ++d)
    state *= n[d] + 2.0 * nghost * pieces[d];
  for (int f = 0; f < g.dim; ++f) {
    double faces = 1;
    for (int d = 0; d < g.dim; ++d)
      faces *= n[d] + (d == f ? pieces[d] : 0.0);
    fluxes += faces;
  }
  return 8.0 * ncomp * (state + fluxes);
}

void check_memory(const Deck& deck, const AmrConfig& cfg, int ncomp, int nghost,
                  const Comm& comm) {
  const double given = memory_per_node(deck);
  // Every rank must reach the same verdict: the smallest node's memory counts.
  const double budget = given > 0 ? given : comm.min(physical_memory());
  const int busiest = ranks_on_busiest_node(comm);
  const double total = level0_bytes(cfg, ncomp, nghost);
  const double per_node = total / comm.size() * busiest;
  if (per_node <= budget) return;
  double cells = 1;
  for (int d = 0; d < cfg.geom0.dim; ++d)
    cells *= cfg.geom0.domain.size()[d];
  deck.fail("domain.n_cell",
            fmt::format("level 0 ({:.4g} cells, {} component{}, {} ghost layers) needs "
                        "about {} of field data, {} on a node with {} of the {} ranks: "
                        "more than the {} {} (set ranks.memory_per_node or --max-memory "
                        "to change)",
                        cells, ncomp, ncomp == 1 ? "" : "s", nghost, size_text(total),
                        size_text(per_node), busiest, comm.size(), size_text(budget),
                        given > 0 ? "of ranks.memory_per_node" : "of the node's memory"));
}

}  // namespace pw
