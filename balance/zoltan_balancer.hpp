// Zoltan's geometric partitioners (RCB, RIB, HSFC) as reference balancers: patches are
// points at their centroids in level-0 index space, weighted by cost. Built only with
// Zoltan (PATCHWORK_HAVE_ZOLTAN); without it zoltan_factory still names the methods and
// reports that the build lacks Zoltan. zoltan.h stays in the .cpp.
#pragma once

#include <string>

#include "balance/balancer.hpp"

namespace pw {

enum class ZoltanMethod { rcb, rib, hsfc };

/// "zoltan_rcb", "zoltan_rib" or "zoltan_hsfc": the balance.method name.
inline std::string zoltan_name(ZoltanMethod m) {
  switch (m) {
    case ZoltanMethod::rcb:
      return "zoltan_rcb";
    case ZoltanMethod::rib:
      return "zoltan_rib";
    case ZoltanMethod::hsfc:
      return "zoltan_hsfc";
  }
  return "zoltan_?";
}

class ZoltanBalancer : public Balancer {
 public:
  /// dim: coordinates used (the run's dimension, 1 to 3); imbalance_tol: Zoltan's
  /// IMBALANCE_TOL (max load / average load it aims for, >= 1).
  ZoltanBalancer(ZoltanMethod method, int dim = 3, double imbalance_tol = 1.1);
  std::string name() const override { return zoltan_name(method_); }
  /// Runs Zoltan on MPI_COMM_SELF with every patch as a local object, so that each rank
  /// gets the same plan without communicating. Pre: MPI is initialised. Part sizes follow
  /// ranks.speed. No splitting: the plan's boxes are the input boxes, in order. Throws
  /// std::runtime_error when Zoltan fails.
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override;

 private:
  ZoltanMethod method_;
  int dim_;
  double imbalance_tol_;
};

/// The registry's factory for `method`: reads balance.<name>.imbalance_tol (default 1.1,
/// at least 1). In a build without Zoltan it fails on balance.method, saying so.
inline BalancerFactory zoltan_factory(ZoltanMethod method) {
  return
      [method](const Deck& deck, const SplitRules& rules) -> std::unique_ptr<Balancer> {
        const std::string name = zoltan_name(method);
#if PATCHWORK_HAVE_ZOLTAN
        const std::string key = "balance." + name + ".imbalance_tol";
        const double tol = deck.get<double>(key, 1.1);
        if (!(tol >= 1.0))
          deck.fail(key, "expected a number >= 1.0, got " + to_toml(tol));
        return std::make_unique<ZoltanBalancer>(method, rules.dim, tol);
#else
        (void)rules;
        deck.fail("balance.method",
                  name +
                      " needs Zoltan, which this build does not have "
                      "(install libtrilinos-zoltan-dev and reconfigure)");
#endif
      };
}

}  // namespace pw
