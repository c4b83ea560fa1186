// patchwork DECK [key=value ...]: run a deck, with any key overridden on the command
// line.
#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <Kokkos_Core.hpp>

#include <optional>

#include "app/run_summary.hpp"
#include "app/simulation.hpp"

namespace {

int run(int argc, char** argv, const pw::Comm& comm) {
  CLI::App cli{"Patchwork: block-structured AMR with pluggable load balancers"};
  std::string deck_path;
  std::vector<std::string> overrides;
  cli.add_option("deck", deck_path, "input deck (TOML)")->required();
  cli.add_option("overrides", overrides, "key=value pairs overriding deck keys");
  cli.set_version_flag("--version", "patchwork " PATCHWORK_VERSION);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (comm.rank() != 0) return e.get_exit_code() == 0 ? 0 : 2;
    const int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  const pw::RunIdentity id{"patchwork " PATCHWORK_VERSION, deck_path, overrides};
  std::optional<pw::Deck> deck;  // once loaded, an error is recorded in its output.dir
  try {
    deck = pw::Deck::load(deck_path, overrides);
    pw::Simulation sim(*deck, comm);
    // Every key as used, defaults included, so a log says exactly what ran.
    if (comm.rank() == 0)
      fmt::print("deck {} on {} ranks, as used:\n{}", deck_path, comm.size(),
                 deck->echo());
    const pw::RunResult result = sim.run(true);
    pw::write_run_summary(sim, result, *deck, id, comm);
  } catch (const pw::UserError& e) {
    if (comm.rank() == 0) {
      fmt::print(stderr, "patchwork: error: {}\n", e.what());
      if (deck) pw::write_error_summary(*deck, id, e.what(), comm.size());
    }
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    code = run(argc, argv, pw::Comm(MPI_COMM_WORLD));
  }
  MPI_Finalize();
  return code;
}
