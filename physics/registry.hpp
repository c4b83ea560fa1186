// Physics modules by name: the deck's physics.module picks one.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "amr/deck.hpp"
#include "amr/physics.hpp"

namespace pw {

/// Makes a module from the deck and the problem dimension (domain.dim).
using PhysicsFactory = std::function<std::unique_ptr<Physics>(const Deck&, int dim)>;

/// Every known module by name (built on each call: no static state).
std::map<std::string, PhysicsFactory> physics_registry();

/// The module named by physics.module (default "advection"), for dimension domain.dim
/// (default 2, as in read_amr_config). Throws UserError at physics.module for an unknown
/// name, listing the known ones, and whatever the module throws for its own section.
std::unique_ptr<Physics> make_physics(const Deck& deck);

}  // namespace pw
