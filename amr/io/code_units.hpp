// The deck's [units] section: what one code unit of length, time and mass is in cgs, for
// the dumps' readers (yt). The run itself computes in code units and never uses them.
#pragma once

#include "amr/deck.hpp"

namespace pw {

struct CodeUnits {
  // units.length (cm), units.time (s), units.mass (g); 0: not set, the code units are
  // dimensionless (the default).
  double length = 0, time = 0, mass = 0;

  bool set() const { return length > 0; }
};

/// Read units.length, units.time and units.mass: all three or none, each a positive
/// finite number (normal, so that its inverse is finite too). Throws UserError
/// "<file>:<line>: units.KEY: ..." otherwise; an unknown key of [units] is caught by
/// Deck::check_all_used like any other.
CodeUnits read_code_units(const Deck& deck);

}  // namespace pw
