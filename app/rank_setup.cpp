#include "app/rank_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace pw {

namespace {

/// The largest emulated slowdown and latency (s): what the seed papers' experiments use
/// is far below (2 to 8 times, milliseconds).
constexpr double kMaxSlowdown = 1000;
constexpr double kMaxLatency = 10;

template <class T>
void check_length(const Deck& deck, const std::string& key, const std::vector<T>& v,
                  int nranks) {
  if (int(v.size()) != nranks)
    deck.fail(key, "expected one entry per rank (" + std::to_string(nranks) +
                       " ranks in this run), got " + std::to_string(v.size()));
}

/// Group ids are labels: lan_distributed and the emulation only compare them, so [0, 7]
/// is two groups. A negative id is refused: -1 reads as "none" (as owners use it).
void check_group_ids(const Deck& deck, const std::vector<int>& group) {
  for (size_t k = 0; k < group.size(); ++k)
    if (group[k] < 0)
      deck.fail("ranks.groups",
                fmt::format("expected group ids >= 0 (ranks with the same id form a "
                            "group), got {} for rank {}",
                            group[k], k));
}

/// Ranks in [0, nranks), each once: a repeat is a typo, not a double slowdown.
void check_slow_ranks(const Deck& deck, std::vector<int> slow, int nranks) {
  for (int k : slow)
    if (k < 0 || k >= nranks)
      deck.fail("ranks.slow", "expected ranks in [0, " + std::to_string(nranks) +
                                  "), got " + std::to_string(k));
  std::sort(slow.begin(), slow.end());
  const auto twice = std::adjacent_find(slow.begin(), slow.end());
  if (twice != slow.end())
    deck.fail("ranks.slow",
              fmt::format("expected each rank once, got rank {} twice", *twice));
}

/// The lab's range: beyond it loads and their sums overflow (1e-308 printed
/// "imbalance inf" and a NaN summary).
void check_speeds(const Deck& deck, const std::vector<double>& speed) {
  for (size_t k = 0; k < speed.size(); ++k)
    if (!(speed[k] >= kMinRankSpeed && speed[k] <= kMaxRankSpeed))
      deck.fail("ranks.speed",
                fmt::format("expected relative speeds in {} (beyond, loads and their "
                            "sums overflow), got {} for rank {}",
                            kRankSpeedRange, to_toml(speed[k]), k));
}

}  // namespace

RankSetup read_rank_setup(const Deck& deck, int nranks, int my_rank) {
  RankSetup s;
  s.ranks = RankInfo::uniform(nranks);
  RankInfo& r = s.ranks;

  if (deck.has("ranks.group_size") && deck.has("ranks.groups"))
    deck.fail("ranks.groups", "give ranks.groups or ranks.group_size, not both");
  if (deck.has("ranks.groups")) {
    r.group = deck.get<std::vector<int>>("ranks.groups", {});
    check_length(deck, "ranks.groups", r.group, nranks);
    check_group_ids(deck, r.group);
  } else {
    const int size = deck.get<int>("ranks.group_size", nranks);
    if (size < 1)
      deck.fail("ranks.group_size",
                "expected a number of consecutive ranks per group >= 1, got " +
                    std::to_string(size));
    for (int k = 0; k < nranks; ++k)
      r.group[size_t(k)] = k / size;
  }

  const std::vector<int> slow = deck.get<std::vector<int>>("ranks.slow", {});
  check_slow_ranks(deck, slow, nranks);
  const double slowdown = deck.get<double>("ranks.slowdown", 1.0);
  // Beyond these bounds the busy waits would outlast any run (1e300: forever).
  if (!(slowdown >= 1 && slowdown <= kMaxSlowdown))
    deck.fail("ranks.slowdown",
              fmt::format("expected a factor in [1, {:g}] (kernels take this many times "
                          "longer), got {}",
                          kMaxSlowdown, to_toml(slowdown)));
  if (slowdown > 1 && slow.empty())
    deck.fail("ranks.slowdown", "ranks.slow lists no rank to slow down");
  const double latency = deck.get<double>("ranks.latency", 0.0);
  if (!(latency >= 0 && latency <= kMaxLatency))
    deck.fail("ranks.latency",
              fmt::format("expected seconds in [0, {:g}] added to exchanges between "
                          "groups, got {}",
                          kMaxLatency, to_toml(latency)));
  const bool is_slow = std::count(slow.begin(), slow.end(), my_rank) > 0;

  if (deck.has("ranks.speed")) {
    r.speed = deck.get<std::vector<double>>("ranks.speed", {});
    check_length(deck, "ranks.speed", r.speed, nranks);
    check_speeds(deck, r.speed);
  } else {
    for (int k : slow)
      r.speed[size_t(k)] = 1.0 / slowdown;
  }

  if ((is_slow && slowdown > 1) || latency > 0) {
    auto e = std::make_shared<Emulation>();
    e->group = r.group;
    e->latency = latency;
    e->slowdown = is_slow ? slowdown : 1.0;
    s.emulation = std::move(e);
  }
  return s;
}

}  // namespace pw
