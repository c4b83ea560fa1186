#include "app/rank_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
  for (int k : slow)
    if (k < 0 || k >= nranks)
      deck.fail("ranks.slow", "expected ranks in [0, " + std::to_string(nranks) +
                                  "), got " + std::to_string(k));
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
    for (double v : r.speed)
      if (!(v > 0) || std::isinf(v))
        deck.fail("ranks.speed",
                  "expected finite relative speeds > 0, got " + to_toml(v));
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
