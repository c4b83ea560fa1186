// balance_lab: runs balancers offline on patch lists (read from files or generated like
// the seed papers' datasets) and prints one CSV row of metrics per (workload, balancer,
// ranks).
#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <set>

#include "balance/balancer.hpp"
#include "balance/lab/lab_metrics.hpp"
#include "balance/lab/patch_file.hpp"
#include "balance/lab/workloads.hpp"
#include "balance/patch_family.hpp"
#include "cli/cli_numbers.hpp"

namespace {

using namespace pw;
using pw::cli::int_in;
using pw::cli::number;

constexpr const char* kFooter = R"(
Patch file (--patches, --write): one patch per line,
  level lo_i lo_j lo_k hi_i hi_j hi_k cost [owner]
with inclusive cell indices in the level's own index space (k = 0..0 in 2D) and owner
the current rank (optional; when every patch has one, migrated_cost_pct is reported).
'#' starts a comment. Header lines: 'refinement r' (required, before the patches: the
ratio between consecutive levels) and 'dim d' (optional; 2 when every box has k = 0..0).

Workloads (--workload, about --patches-count patches, all with cost = cells * 2^level):
  clustered  AMR64-like: a few compact regions refined deeply, large coarse patches
             (one alone about 8.5x the average load at 4096 ranks, 10^4 patches, 3D)
  plane      ShockPool3D-like: refinement along a tilted plane (--time moves it in x)
  bubble     a band around a sphere (circle in 2D) rising with --time in [0, 1]

CSV columns: workload, patches, ranks, balancer, imbalance (max/avg load; with --speed,
max of cost/speed over total cost/total speed), std, idle_pct, est_balance_pct, uintah_i,
lower_bound (max(1, largest patch / avg load), the same normalisation),
patches_out, split, comm_cut (same-level ghost faces between ranks), migrated_cost_pct
(empty without input owners), plan_ms (median of --repeat plan() calls).
See balance/lab/README.md.)";

struct Options {
  std::vector<std::string> files, workloads, balancers, params;
  std::vector<int> ranks, max_size;
  int count = 10000, dim = 3, repeat = 1, blocking_factor = 8;
  std::uint64_t seed = 1;
  double time = 0;
  std::string write;
  int group_size = 0;          // consecutive ranks per group; 0: see groups
  int groups = 1;              // else this many groups of consecutive ranks
  std::vector<double> speeds;  // per rank, repeating; empty: all 1
  RunMeasurements measured{1.0, 5e-5, 1e-9, 0.0, 8.0};
};

/// p ranks with the --group-size groups, the --speed pattern and the measurements.
RankInfo lab_ranks(const Options& o, int p) {
  RankInfo r = RankInfo::uniform(p);
  for (int k = 0; k < p; ++k) {
    if (!o.speeds.empty()) r.speed[size_t(k)] = o.speeds[size_t(k) % o.speeds.size()];
    r.group[size_t(k)] =
        o.group_size > 0 ? k / o.group_size : int(long(k) * o.groups / p);
  }
  r.measured = o.measured;
  return r;
}

/// Parent owners from the patches' own owners (when the input has them), as the app
/// gives them.
void set_parent_owners(std::vector<PatchMeta>& patches) {
  const std::vector<int> parent = parents_in(patches, patches);
  for (size_t i = 0; i < patches.size(); ++i)
    patches[i].parent_owner = parent[i] >= 0 ? patches[size_t(parent[i])].owner : -1;
}

/// The largest load (cost / speed) a rank may get: beyond it loads and their sums
/// overflow, and the metrics would read inf.
constexpr double kLabMaxLoad = 1e300;

struct Input {
  std::string name;
  PatchList list;
};

std::vector<Input> load_inputs(const Options& o) {
  std::vector<Input> in;
  for (const std::string& f : o.files)
    in.push_back({f.substr(f.find_last_of('/') + 1),
                  read_patch_file(f, *std::min_element(o.ranks.begin(), o.ranks.end()))});
  const double slowest =
      o.speeds.empty() ? 1.0 : *std::min_element(o.speeds.begin(), o.speeds.end());
  for (size_t k = 0; k < in.size(); ++k) {
    double sum = 0;
    for (const PatchMeta& p : in[k].list.patches)
      sum += p.cost;
    if (!(sum / slowest <= kLabMaxLoad))
      throw UserError(fmt::format(
          "{}: cost: the costs sum to {:.3g} and the slowest --speed is {:.3g}: a rank's "
          "load (cost / speed) could pass {:.0e}, where the metrics overflow",
          o.files[k], sum, slowest, kLabMaxLoad));
    set_parent_owners(in[k].list.patches);
  }
  for (const std::string& w : o.workloads) {
    WorkloadSpec spec;
    spec.kind = w;
    spec.count = o.count;
    spec.dim = o.dim;
    spec.seed = o.seed;
    spec.time = o.time;
    spec.blocking_factor = o.blocking_factor;
    spec.max_size = o.max_size;
    in.push_back({w, make_workload(spec)});
  }
  if (in.empty()) throw UserError("no input: give --patches FILE or --workload KIND");
  return in;
}

/// The names asked for, `all` expanded to the registry in its order; unknown names are a
/// UserError listing the known ones.
std::vector<std::string> balancer_names(const std::vector<std::string>& asked) {
  const auto& reg = balancer_registry();
  std::vector<std::string> names;
  for (const std::string& a : asked) {
    if (a == "all") {
      for (const auto& [name, f] : reg)
        names.push_back(name);
      continue;
    }
    if (reg.count(a) == 0) {
      std::string known;
      for (const auto& [name, f] : reg)
        known += (known.empty() ? "" : ", ") + name;
      throw UserError("--balancer: unknown '" + a + "'; known: all, " + known);
    }
    names.push_back(a);
  }
  return names;
}

/// The balancers of `asked` that can be made, after every registered factory has read
/// its section of `deck` (so that a --param no balancer knows is an error before any
/// output, while one for a balancer not asked for is not). A factory that fails on an
/// empty deck too is unavailable (e.g. Zoltan not built): noted on stderr and skipped;
/// one that fails only with the --param values is an error.
std::vector<std::string> available(const std::vector<std::string>& asked,
                                   const Deck& deck, int dim, const Options& o) {
  const SplitRules rules{dim, o.blocking_factor, o.blocking_factor};
  const Deck empty = Deck::parse("", "--param");
  std::set<std::string> unavailable;
  for (const auto& [name, factory] : balancer_registry()) {
    try {
      factory(deck, rules);
    } catch (const UserError& e) {
      try {
        factory(empty, rules);
      } catch (const UserError&) {
        unavailable.insert(name);
        if (std::count(asked.begin(), asked.end(), name) > 0)
          fmt::print(stderr, "balance_lab: skipping {}: {}\n", name, e.what());
        continue;
      }
      if (std::count(asked.begin(), asked.end(), name) > 0) throw;
    }
  }
  deck.check_all_used();
  std::vector<std::string> names;
  for (const std::string& a : asked)
    if (unavailable.count(a) == 0 &&
        std::find(names.begin(), names.end(), a) == names.end())
      names.push_back(a);
  return names;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void run_lab(const Options& o) {
  std::vector<Input> inputs = load_inputs(o);
  if (!o.write.empty()) {
    if (inputs.size() != 1) throw UserError("--write: expected exactly one input");
    write_patch_file(o.write, inputs[0].list);
  }
  const std::vector<std::string> asked = balancer_names(o.balancers);
  const Deck deck = Deck::parse("", "--param", o.params);
  const std::vector<std::string> names = available(asked, deck, inputs[0].list.dim, o);
  fmt::print(
      "workload,patches,ranks,balancer,imbalance,std,idle_pct,est_balance_pct,uintah_i,"
      "lower_bound,patches_out,split,comm_cut,migrated_cost_pct,plan_ms\n");
  for (const Input& in : inputs) {
    const SplitRules rules{in.list.dim, o.blocking_factor, o.blocking_factor};
    for (const std::string& name : names) {
      const std::unique_ptr<Balancer> b = balancer_registry().at(name)(deck, rules);
      for (int p : o.ranks) {
        const RankInfo ranks = lab_ranks(o, p);
        std::vector<double> ms;
        Plan plan;
        try {
          for (int k = 0; k < o.repeat; ++k) {
            const auto t0 = std::chrono::steady_clock::now();
            plan = b->plan(in.list.patches, ranks);
            ms.push_back(std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - t0)
                             .count());
          }
        } catch (const std::exception& e) {
          fmt::print(stderr, "balance_lab: {} on {} ranks, {}: plan failed: {}\n", name,
                     p, in.name, e.what());
          continue;
        }
        const std::string broken = check_plan(in.list.patches, plan, p);
        if (!broken.empty()) {
          fmt::print(stderr, "balance_lab: {} on {} ranks, {}: bad plan: {}\n", name, p,
                     in.name, broken);
          continue;
        }
        const LabMetrics m = lab_metrics(in.list.patches, plan, ranks.speed);
        fmt::print(
            "{},{},{},{},{:.4f},{:.4f},{},{},{:.4f},{:.4f},{},{},{},{},{:.3f}\n", in.name,
            in.list.patches.size(), p, name, m.load.imbalance, m.load.std,
            percent(m.load.idle), percent(m.load.estimated_balance), m.load.uintah_i,
            m.lower_bound, m.patches_out, m.split, m.comm_cut,
            m.migrated_pct < 0 ? std::string() : fmt::format("{:.2f}", m.migrated_pct),
            median(ms));
        std::fflush(stdout);
      }
    }
  }
}

int run(int argc, char** argv) {
  Options o;
  CLI::App cli{
      "balance_lab: run Patchwork's balancers offline on patch lists and print their "
      "metrics as CSV (one row per workload, balancer and rank count)"};
  cli.footer(kFooter);
  const CLI::Validator non_negative = number<double>(
      "a finite number >= 0", [](double v) { return v >= 0; }, "NONNEGATIVE");
  auto* files = cli.add_option("--patches", o.files, "patch file(s) to balance");
  cli.add_option("--workload", o.workloads,
                 "generated workload(s): clustered|plane|bubble")
      ->check(CLI::IsMember(workload_kinds()))
      ->excludes(files);
  cli.add_option("--patches-count", o.count, "about this many patches per workload")
      ->transform(int_in(1, 1000000))
      ->capture_default_str();
  cli.add_option("--dim", o.dim, "dimension of generated workloads")
      ->transform(int_in(2, 3))
      ->capture_default_str();
  cli.add_option("--seed", o.seed, "seed of generated workloads")
      ->transform(int_in<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max()))
      ->capture_default_str();
  cli.add_option("--time", o.time, "position of the moving features, in [0, 1]")
      ->check(number<double>(
          "a number in [0, 1]", [](double t) { return t >= 0 && t <= 1; }, "in [0, 1]"))
      ->capture_default_str();
  cli.add_option("--blocking-factor", o.blocking_factor,
                 "alignment of generated boxes and of the pieces of balancers that split")
      ->transform(int_in(4, 16))
      ->check(CLI::IsMember({4, 8, 16}))
      ->capture_default_str();
  cli.add_option("--max-size", o.max_size,
                 "largest patch side per level of generated workloads, the last value "
                 "repeating (default: clustered 112 64 32 16, plane and bubble 32)")
      ->transform(int_in(4, 1024));
  cli.add_option("--write", o.write, "write the (single) input patch list to this file");
  o.balancers = {"all"};
  cli.add_option("--balancer", o.balancers,
                 "balancer name(s) from the registry, or 'all' (unavailable ones, e.g. "
                 "Zoltan not built, are skipped with a note on stderr)")
      ->capture_default_str();
  o.ranks = {64};
  cli.add_option("--ranks", o.ranks, "rank count(s), 1..65536")
      ->transform(int_in(1, kLabMaxRanks))
      ->capture_default_str();
  cli.add_option("--param", o.params,
                 "key=value deck override for the balancers, e.g. "
                 "balance.lan.threshold=1.1");
  cli.add_option("--repeat", o.repeat, "time plan() this many times, report the median")
      ->transform(int_in(1, 100000))
      ->capture_default_str();
  auto* group_size =
      cli.add_option("--group-size", o.group_size,
                     "consecutive ranks per group (node) for balancers that use groups")
          ->transform(int_in(1, kLabMaxRanks));
  cli.add_option("--groups", o.groups,
                 "or: this many groups of consecutive ranks, as equal as can be")
      ->transform(int_in(1, kLabMaxRanks))
      ->excludes(group_size)
      ->capture_default_str();
  cli.add_option("--speed", o.speeds,
                 "relative rank speeds, repeated over the ranks (e.g. 1 0.5: every other "
                 "rank at half speed); loads are cost / speed")
      ->check(number<double>(
          "a positive finite number", [](double v) { return v > 0; }, ""))
      // Beyond this, cost / speed and the sum of speeds overflow or underflow (1e-320:
      // NaN metrics; 1 1e-300: an imbalance of 1e300).
      ->check(number<double>(
          std::string("a relative speed in ") + kRankSpeedRange,
          [](double v) { return v >= kMinRankSpeed && v <= kMaxRankSpeed; },
          std::string("in ") + kRankSpeedRange));
  cli.add_option("--step-seconds", o.measured.step_seconds,
                 "lan_distributed: T, the time of a level-0 step (seed 001 eq. 4)")
      ->check(non_negative)
      ->capture_default_str();
  cli.add_option("--alpha", o.measured.alpha,
                 "lan_distributed: latency between groups, s (eq. 1)")
      ->check(non_negative)
      ->capture_default_str();
  cli.add_option(
         "--beta", o.measured.beta,
         "lan_distributed: seconds per byte between groups, 8 bytes per cell (eq. 1)")
      ->check(non_negative)
      ->capture_default_str();
  cli.add_option("--overhead", o.measured.overhead_seconds,
                 "lan_distributed: delta, the last redistribution's own time, s (eq. 1)")
      ->check(non_negative)
      ->capture_default_str();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return cli.exit(e);  // --help
    fmt::print(stderr, "balance_lab: error: {} (see --help)\n", e.what());
    return 2;
  }
  for (int m : o.max_size)  // the workload's own check cannot name the options
    if (m % o.blocking_factor != 0) {
      fmt::print(stderr,
                 "balance_lab: error: --max-size: expected multiples of "
                 "--blocking-factor ({}), got {} (see --help)\n",
                 o.blocking_factor, m);
      return 2;
    }
  try {
    run_lab(o);
  } catch (const UserError& e) {
    fmt::print(stderr, "balance_lab: error: {}\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Only the Zoltan balancers need MPI (on MPI_COMM_SELF); the lab is one process.
  MPI_Init(&argc, &argv);
  const int rc = run(argc, argv);
  MPI_Finalize();
  return rc;
}
