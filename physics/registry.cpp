// The registry of physics modules: add a module by adding one line to physics_registry().
#include "physics/registry.hpp"

#include <sstream>

#include "physics/advection.hpp"
#include "physics/hydro.hpp"
#include "physics/poisson.hpp"

namespace pw {

std::map<std::string, PhysicsFactory> physics_registry() {
  return {
      {"advection",
       [](const Deck& deck, int dim) { return std::make_unique<Advection>(deck, dim); }},
      {"hydro",
       [](const Deck& deck, int dim) { return std::make_unique<Hydro>(deck, dim); }},
      {"poisson", [](const Deck& deck,
                     int dim) { return std::make_unique<PoissonWorkload>(deck, dim); }},
  };
}

std::unique_ptr<Physics> make_physics(const Deck& deck) {
  const int dim = deck.get<int>("domain.dim", 2);  // the default of read_amr_config
  const std::string name = deck.get<std::string>("physics.module", "advection");
  const std::map<std::string, PhysicsFactory> registry = physics_registry();
  const auto it = registry.find(name);
  if (it == registry.end()) {
    std::ostringstream os;
    os << "expected one of ";
    for (auto m = registry.begin(); m != registry.end(); ++m)
      os << (m == registry.begin() ? "" : ", ") << m->first;
    os << ", got '" << name << "'";
    deck.fail("physics.module", os.str());
  }
  // The sections named after a module ([poisson] is self-gravity's too).
  for (const char* other : {"advection", "hydro"})
    if (name != other)
      deck.read_only_when(other, "physics.module = \"" + std::string(other) +
                                     "\" (this run's is \"" + name + "\")");
  return it->second(deck, dim);
}

}  // namespace pw
