#include "app/run_summary.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace pw {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // fields in the order written

namespace {

/// Every rank's string, in rank order, on every rank. Collective.
std::vector<std::string> all_gather(const Comm& comm, const std::string& mine) {
  const int n = int(mine.size());
  std::vector<int> sizes(comm.size()), offsets(comm.size(), 0);
  MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm.raw());
  for (int r = 1; r < comm.size(); ++r)
    offsets[r] = offsets[r - 1] + sizes[r - 1];
  std::string all(size_t(offsets.back() + sizes.back()), '\0');
  MPI_Allgatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(),
                 MPI_CHAR, comm.raw());
  std::vector<std::string> out;
  for (int r = 0; r < comm.size(); ++r)
    out.push_back(all.substr(offsets[r], sizes[r]));
  return out;
}

std::string host_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, size_t(len));
}

/// min, mean and max of x over the ranks. Collective.
json spread(const Comm& comm, double x) {
  return {
      {"min", comm.min(x)}, {"mean", comm.sum(x) / comm.size()}, {"max", comm.max(x)}};
}

/// Every phase any rank timed (a rank that never entered one counts 0 s), sorted.
/// Collective.
json phase_spread(const Comm& comm, const std::map<std::string, double>& mine) {
  std::string names;
  for (const auto& kv : mine)
    names += kv.first + '\n';
  std::map<std::string, double> all;
  for (const std::string& list : all_gather(comm, names))
    for (size_t a = 0, b; (b = list.find('\n', a)) != std::string::npos; a = b + 1)
      all[list.substr(a, b - a)] = 0;
  json out = json::object();
  for (const auto& kv : all) {
    auto it = mine.find(kv.first);
    out[kv.first] = spread(comm, it == mine.end() ? 0.0 : it->second);
  }
  return out;
}

/// The deck as used: each value as JSON where its TOML spelling is valid JSON (numbers,
/// booleans, basic strings, arrays of those), else the TOML text as a string.
json deck_json(const Deck& deck, const RunIdentity& id) {
  json used = json::object();
  for (const auto& [key, toml] : deck.used()) {
    json v = json::parse(toml, nullptr, false);
    used[key] = v.is_discarded() ? json(toml) : v;
  }
  return {{"file", id.deck_file}, {"overrides", id.overrides}, {"used", used}};
}

json kokkos_json(const Comm& comm) {
  using Space = Kokkos::DefaultExecutionSpace;
  const char* omp = std::getenv("OMP_NUM_THREADS");
  return {{"execution_space", Space::name()},
          {"concurrency", Space().concurrency()},
          {"host_execution_space", Kokkos::DefaultHostExecutionSpace::name()},
          {"omp_num_threads", omp != nullptr ? json(omp) : json(nullptr)},
          {"gpu_aware_mpi", comm.device_buffers()}};
}

json metrics_json(const LoadMetrics& m) {
  return {{"imbalance", m.imbalance},
          {"std", m.std},
          {"idle", m.idle},
          {"estimated_balance", m.estimated_balance},
          {"uintah_i", m.uintah_i}};
}

json balance_json(const Simulation& sim, const RunResult& r) {
  const auto& events = sim.hierarchy().balance_events();
  const auto& records = sim.planner().records();
  json steps = json::array();
  for (size_t i = 0; i < events.size() && i < records.size(); ++i) {
    const BalanceEvent& e = events[i];
    const PlanRecord& p = records[i];
    json s = metrics_json(p.load);
    s.update({{"balance_step", i + 1},
              {"step", e.step},
              {"time", e.time},
              {"patches", p.patches},
              {"split", p.split},
              {"bytes_migrated", e.bytes_migrated},
              {"cut_cells", e.cut_cells},
              {"balancer_seconds", p.seconds},
              {"note", p.note}});
    steps.push_back(s);
  }
  const LoadMetrics& m = r.balance.mean;
  return {{"method", sim.planner().balancer().name()},
          {"balancing_steps", r.balance.steps},
          // Lan et al.'s names for the averages over the balancing steps (eqs. 1-3).
          {"mean",
           {{"imbalance_ratio", m.imbalance},
            {"avg_std", m.std},
            {"idle_procs", m.idle},
            {"estimated_balance", m.estimated_balance},
            {"uintah_i", m.uintah_i}}},
          {"bytes_migrated", r.bytes_migrated},
          {"mean_cut_cells", r.mean_cut_cells},
          {"patches_split", r.patches_split},
          {"balancer_seconds", r.balancer_seconds},
          {"steps", steps}};
}

json totals_json(const Simulation& sim, const RunResult& r) {
  json out = json::array();
  const auto& names = sim.physics().component_names();
  for (size_t c = 0; c < r.final_totals.size() && c < names.size(); ++c)
    out.push_back({{"component", names[c]},
                   {"initial", r.initial_totals.at(c)},
                   {"final", r.final_totals[c]}});
  return out;
}

/// The fields every summary has, ok or error.
json head(const RunIdentity& id, const Deck& deck, int nranks) {
  return {{"schema", "patchwork-run-summary"},
          {"schema_version", kRunSummaryVersion},
          {"status", nullptr},  // set by the caller
          {"error", nullptr},
          {"code_version", id.code_version},
          {"deck", deck_json(deck, id)},
          {"ranks", {{"count", nranks}}}};
}

/// Write through a temporary file beside `path` and a rename: readers see the whole
/// file or none. Creates the directory if missing (output.write=false makes none).
/// Throws std::runtime_error (filesystem_error) with the reason.
void write_atomically(const std::string& path, const json& j) {
  const fs::path dir = fs::path(path).parent_path();
  if (!dir.empty()) fs::create_directories(dir);
  const std::string tmp = fmt::format("{}.tmp{}", path, long(getpid()));
  std::error_code ec, removed;
  {
    std::ofstream f(tmp);
    f << j.dump(2) << '\n';
    f.close();
    if (!f) {
      fs::remove(tmp, removed);  // a full disk: no partial file left behind
      throw std::runtime_error("cannot write " + tmp);
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, removed);  // its own error code: the rename's is the one to report
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " +
                             ec.message());
  }
}

/// A failing run loses no earlier output: a summary at `path` that is not itself an
/// error's (an earlier run's results) is moved to PREFIX_summary.previous.json first.
void keep_earlier_summary(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return;
  std::ifstream in(path);
  const json old = json::parse(in, nullptr, false);  // no exception on a bad file
  if (old.is_object() && old.value("status", "") == "error") return;
  const std::string kept =
      path.substr(0, path.size() - std::string(".json").size()) + ".previous.json";
  fs::rename(path, kept, ec);
  if (ec) throw std::runtime_error("cannot keep " + path + ": " + ec.message());
}

}  // namespace

std::string summary_path(const OutputConfig& cfg) {
  return (fs::path(cfg.dir) / (cfg.prefix + "_summary.json")).string();
}

void write_run_summary(const Simulation& sim, const RunResult& r, const Deck& deck,
                       const RunIdentity& id, const Comm& comm) {
  // Collective parts first, on every rank.
  const std::vector<std::string> hosts = all_gather(comm, host_name());
  const json phases = phase_spread(comm, sim.phase_times());
  const json wall = spread(comm, r.wall_seconds);
  const json memory = {{"keep_freed", sim.keeps_freed_memory()},
                       {"peak_resident_bytes", spread(comm, r.peak_resident_bytes)},
                       {"minor_page_faults", spread(comm, double(r.minor_page_faults))}};
  if (comm.rank() != 0) return;
  const RankInfo& ranks = sim.planner().ranks();
  json j = head(id, deck, comm.size());
  j["status"] = "ok";
  j["ranks"].update(
      {{"hostnames", hosts}, {"groups", ranks.group}, {"speeds", ranks.speed}});
  j["kokkos"] = kokkos_json(comm);
  j["run"] = {{"steps", r.steps},
              {"time", r.time},
              {"finest_level", r.finest_level},
              {"regrids", r.regrids},
              {"dumps", r.dumps}};
  j["wall_seconds"] = wall;
  j["phases"] = phases;
  j["host_memory"] = memory;
  j["cell_updates"] = r.cell_updates;
  // As the log's line: rank 0's wall time.
  j["cell_updates_per_second"] =
      r.wall_seconds > 0 ? double(r.cell_updates) / r.wall_seconds : 0.0;
  j["balance"] = balance_json(sim, r);
  j["totals"] = totals_json(sim, r);
  if (r.solves > 0)
    j["solver"] = {
        {"mode", r.solve_mode}, {"solves", r.solves}, {"cycles", r.solve_cycles}};
  if (!r.physics_counters.empty()) {
    json counters = json::object();
    for (const auto& [name, count] : r.physics_counters)
      counters[name] = count;
    j["physics_counters"] = counters;
  }
  j["fingerprint"] = fmt::format("{:016x}", r.fingerprint);
  const std::string path = summary_path(sim.output());
  try {
    write_atomically(path, j);
  } catch (const std::exception& e) {
    throw UserError(fmt::format("run summary {}: {}", path, e.what()));
  }
}

bool write_error_summary(const Deck& deck, const RunIdentity& id,
                         const std::string& error, int nranks) noexcept {
  try {
    const OutputConfig cfg = read_output_config(deck);
    json j = head(id, deck, nranks);
    j["status"] = "error";
    j["error"] = error;
    const std::string path = summary_path(cfg);
    keep_earlier_summary(path);
    write_atomically(path, j);
    return true;
  } catch (...) {  // no usable output.dir: the message on stderr is all there is
    return false;
  }
}

}  // namespace pw
