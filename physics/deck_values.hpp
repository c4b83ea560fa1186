// Checked reads of a physics module's deck values: each failure is a UserError naming the
// file, line and key (Deck::fail) and what was expected.
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "amr/deck.hpp"

namespace pw::deck_values {

/// "expected one of a, b, c, got 'x'".
inline std::string one_of(const std::vector<std::string>& names, const std::string& got) {
  std::ostringstream os;
  os << "expected one of ";
  for (size_t n = 0; n < names.size(); ++n)
    os << (n ? ", " : "") << names[n];
  os << ", got '" << got << "'";
  return os.str();
}

/// A finite number > 0 at key (def when absent).
inline double positive(const Deck& deck, const std::string& key, double def) {
  const double x = deck.get<double>(key, def);
  if (!(x > 0.0) || !std::isfinite(x)) deck.fail(key, "expected a number > 0");
  return x;
}

/// A finite number at key.
inline double finite(const Deck& deck, const std::string& key, double def) {
  const double x = deck.get<double>(key, def);
  if (!std::isfinite(x)) deck.fail(key, "expected a finite number");
  return x;
}

/// Exactly n finite numbers at key; `what` says what they are ("one per direction").
inline std::vector<double> numbers(const Deck& deck, const std::string& key, size_t n,
                                   const std::vector<double>& def,
                                   const std::string& what) {
  const std::vector<double> v = deck.get<std::vector<double>>(key, def);
  if (v.size() != n)
    deck.fail(key, "expected " + std::to_string(n) + " numbers (" + what + "), got " +
                       std::to_string(v.size()));
  for (double x : v)
    if (!std::isfinite(x)) deck.fail(key, "expected finite numbers");
  return v;
}

}  // namespace pw::deck_values
