// patchwork DECK [key=value ...]: run a deck, with any key overridden on the command
// line (--check: only check them). Every way out is one line on stderr and an exit code
// of app/exit_codes.hpp.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <Kokkos_Core.hpp>

#include <exception>
#include <new>
#include <optional>

#include "amr/code_version.hpp"
#include "amr/diagnostics.hpp"
#include "amr/io/chombo_writer.hpp"
#include "amr/launch_counter.hpp"
#include "app/exit_codes.hpp"
#include "app/run_summary.hpp"
#include "app/simulation.hpp"
#include "cli/cli_numbers.hpp"

namespace {

/// A message on one line: Kokkos's and CLI11's span several.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ')
    s.pop_back();
  return s;
}

/// s without its leading and trailing blanks (as the deck reads an override's key).
std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

/// An exception nobody expected, possibly on this rank alone: the other ranks may wait in
/// a collective, so a parallel run is aborted rather than left to hang.
int internal_error(const std::string& what) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  fmt::print(stderr, "patchwork: internal error (rank {}): {}\n", rank, one_line(what));
  std::fflush(stderr);
  if (size > 1) MPI_Abort(MPI_COMM_WORLD, pw::kExitInternalError);
  return pw::kExitInternalError;
}

/// The --count-launches line: the run's launches, and those of its time steps per level
/// step (their regrids, balancing and dumps included; set-up, the dumps before and after
/// the steps and the end-of-run diagnostics not), where issue 12's target is under 100.
/// Each the most on one rank.
void print_launches(const pw::LaunchCounter& counter, const pw::RunResult& r,
                    const pw::Comm& comm) {
  const double most = comm.max(double(counter.launches()));
  std::string line = fmt::format("kernel launches: {:.0f} (the most on one rank)", most);
  const long level_steps = r.total_level_steps();
  if (r.launches_before_steps >= 0 && level_steps > 0) {
    const double steps =
        comm.max(double(r.launches_after_steps - r.launches_before_steps));
    const size_t n = r.level_steps.size();
    line += fmt::format("; {:.0f} in its {} coarse steps, {:.1f} per level step", steps,
                        r.level_steps[0], steps / double(level_steps));
    if (n > 1)
      line += fmt::format(" ({} level steps: {} on levels 0 to {})", level_steps,
                          fmt::join(r.level_steps, ", "), n - 1);
  }
  if (comm.rank() == 0) fmt::print("{}\n", line);
}

int run(int argc, char** argv, const pw::Comm& comm) {
  CLI::App cli{"Patchwork: block-structured AMR with pluggable load balancers"};
  std::string deck_path;
  std::vector<std::string> overrides;
  cli.add_option("deck", deck_path, "input deck (TOML)")->required();
  cli.add_option("overrides", overrides, "key=value pairs overriding deck keys");
  std::string max_memory;
  cli.add_option("--max-memory", max_memory,
                 "memory a node gives the run (bytes, or a size: 16GB, 512MiB; sets "
                 "ranks.memory_per_node; default: the node's physical memory)")
      ->transform(pw::cli::size_value());
  bool count_launches = false;
  cli.add_flag("--count-launches", count_launches,
               "count the Kokkos kernels each rank launches and print the largest count "
               "(through Kokkos Tools callbacks: not with a profiling tool loaded)");
  bool check_only = false;
  auto* check_flag =
      cli.add_flag("--check", check_only,
                   "check the deck, the overrides and any restart file as a run would, "
                   "print \"deck OK\" and stop: no output written, nothing run (for "
                   "scripts that launch many runs)");
  int check_ranks = 0;
  cli.add_option("--ranks", check_ranks,
                 "with --check: check for a run on this many ranks (what depends on the "
                 "rank count; the memory per node is then left to the run)")
      ->transform(pw::cli::int_in(1, 1 << 24))
      ->needs(check_flag);
  cli.set_version_flag("--version", pw::code_version());
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      if (comm.rank() == 0) cli.exit(e);
      return pw::kExitOk;
    }
    if (comm.rank() == 0)
      fmt::print(stderr, "patchwork: error: command line: {} (see --help)\n",
                 one_line(e.what()));
    return pw::kExitBadInput;
  }
  if (!max_memory.empty()) {
    for (const std::string& o : overrides) {
      if (trimmed(o.substr(0, o.find('='))) == "ranks.memory_per_node") {
        if (comm.rank() == 0)
          fmt::print(stderr,
                     "patchwork: error: command line: --max-memory sets "
                     "ranks.memory_per_node, which argument \"{}\" gives too\n",
                     o.size() > 100 ? o.substr(0, 96) + " ..." : o);
        return pw::kExitBadInput;
      }
    }
    overrides.push_back("ranks.memory_per_node=\"" + max_memory + "\"");
  }
  const pw::RunIdentity id{pw::code_version(), deck_path, overrides};
  std::optional<pw::Deck> deck;  // once loaded, an error is recorded in its output.dir
  const auto fail = [&](const char* kind, const std::string& what, int code) {
    if (comm.rank() == 0) {
      fmt::print(stderr, "patchwork: {}: {}\n", kind, what);
      if (deck && !check_only) pw::write_error_summary(*deck, id, what, comm.size());
    }
    return code;
  };
  try {
    deck = pw::Deck::load(deck_path, overrides, comm);
    pw::Simulation sim(*deck, comm, check_ranks);
    if (check_only) {  // everything a run reads before its work has been read
      if (sim.output().write) pw::check_output_dir(sim.output(), comm);
      if (comm.rank() == 0) fmt::print("deck OK: {}\n", deck_path);
      return pw::kExitOk;
    }
    // Every key as used, defaults included, so a log says exactly what ran.
    if (comm.rank() == 0)
      fmt::print("deck {} on {} ranks, as used:\n{}", deck_path, comm.size(),
                 deck->echo());
    std::optional<pw::LaunchCounter> counter;
    if (count_launches) counter.emplace();
    const pw::RunResult result = sim.run(true);
    if (counter) print_launches(*counter, result, comm);
    // A restart with nothing to run leaves the summary of the run it restarts as it was.
    if (result.ran) pw::write_run_summary(sim, result, *deck, id, comm);
  } catch (const pw::UserError& e) {
    return fail("error", e.what(), pw::kExitBadInput);
  } catch (const pw::RunFailure& e) {
    return fail("run failed", e.what(), pw::kExitRunFailed);
  } catch (const pw::UnclosableFile& e) {
    // Every rank is here. HDF5 holds a file it cannot close, and MPI_Finalize would
    // wait for it forever: report, then stop every rank.
    fail("error", e.what(), pw::kExitBadInput);
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Barrier(comm.raw());
    MPI_Abort(comm.raw(), pw::kExitBadInput);
    return pw::kExitBadInput;  // not reached
  }
  return pw::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = pw::kExitOk;
  try {
    Kokkos::ScopeGuard kokkos(argc, argv);
    code = run(argc, argv, pw::Comm(MPI_COMM_WORLD));
  } catch (const std::bad_alloc&) {
    code = internal_error("out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    code = internal_error(e.what());
  } catch (...) {
    code = internal_error("an exception of unknown type");
  }
  MPI_Finalize();
  return code;
}
