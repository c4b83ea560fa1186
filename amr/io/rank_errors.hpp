// Errors that one rank meets and all must act on: a collective agreement, so that every
// rank throws together instead of some waiting in a collective that others left.
#pragma once

#include <string>

#include "amr/comm.hpp"

namespace pw {

/// Collective over `comm`. `mine`: this rank's error message, empty when none. Returns
/// "" when no rank has one, else the message of the lowest rank that has one (the same
/// on every rank).
std::string first_error(const Comm& comm, const std::string& mine);

}  // namespace pw
