// Maps balance.method names to balancers.
#include <sstream>

#include "balance/balancer.hpp"
#include "balance/chop_pack.hpp"
#include "balance/enzo.hpp"
#include "balance/knapsack.hpp"
#include "balance/lan.hpp"
#include "balance/lan_distributed.hpp"
#include "balance/mlb.hpp"
#include "balance/round_robin.hpp"
#include "balance/sfc.hpp"
#include "balance/zoltan_balancer.hpp"

namespace pw {

const std::map<std::string, BalancerFactory>& balancer_registry() {
  static const std::map<std::string, BalancerFactory> registry = {
      {"round_robin",
       [](const Deck&, const SplitRules&) { return std::make_unique<RoundRobin>(); }},
      {"chop_pack", ChopPack::from_deck},
      {"enzo", make_enzo},
      {"lan", make_lan},
      {"lan_distributed", LanDistributed::from_deck},
      {"mlb", Mlb::from_deck},
      {"sfc", Sfc::from_deck},
      {"knapsack",
       [](const Deck&, const SplitRules&) { return std::make_unique<Knapsack>(); }},
      // Known with or without Zoltan in the build; without, the factory says so.
      {"zoltan_rcb", zoltan_factory(ZoltanMethod::rcb)},
      {"zoltan_rib", zoltan_factory(ZoltanMethod::rib)},
      {"zoltan_hsfc", zoltan_factory(ZoltanMethod::hsfc)},
  };
  return registry;
}

Plan whole_patches(const std::vector<PatchMeta>& patches, const std::vector<int>& owner) {
  Plan plan;
  plan.boxes.reserve(patches.size());
  plan.level.reserve(patches.size());
  plan.owner.reserve(patches.size());
  plan.source.reserve(patches.size());
  for (size_t i = 0; i < patches.size(); ++i) {
    plan.boxes.push_back(patches[i].box);
    plan.level.push_back(patches[i].level);
    plan.owner.push_back(owner[i]);
    plan.source.push_back(int(i));
  }
  return plan;
}

std::unique_ptr<Balancer> make_balancer(const Deck& deck, const SplitRules& rules) {
  const std::string method = deck.get<std::string>("balance.method", "round_robin");
  const auto& reg = balancer_registry();
  auto it = reg.find(method);
  if (it == reg.end()) {
    std::ostringstream known;
    for (const auto& [name, f] : reg)
      known << (known.tellp() > 0 ? ", " : "") << name;
    deck.fail("balance.method",
              "unknown balancer '" + method + "'; known: " + known.str());
  }
  return it->second(deck, rules);
}

}  // namespace pw
