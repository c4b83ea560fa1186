#include "amr/io/code_units.hpp"

#include <cmath>

namespace pw {

CodeUnits read_code_units(const Deck& deck) {
  struct Key {
    const char* name;
    const char* unit;
    double CodeUnits::*value;
  };
  const Key keys[] = {{"units.length", "cm", &CodeUnits::length},
                      {"units.time", "s", &CodeUnits::time},
                      {"units.mass", "g", &CodeUnits::mass}};
  CodeUnits u;
  const char* given = nullptr;  // the first key set, for the message on a missing one
  for (const Key& k : keys) {
    deck.know(k.name);
    if (!deck.has(k.name)) continue;
    const double v = deck.get<double>(k.name, 0.0);
    if (!(v > 0) || !std::isnormal(v))
      deck.fail(k.name, std::string("expected a positive finite number of ") + k.unit +
                            " (what one code unit is), got " + to_toml(v));
    u.*k.value = v;
    if (given == nullptr) given = k.name;
  }
  // Half a unit system would leave yt assuming cm, s or g for the rest: all or none.
  // A misspelt one ("units.lenght") is named as such, not as the one missing.
  if (given != nullptr) deck.check_all_used("units");
  for (const Key& k : keys)
    if (given != nullptr && !deck.has(k.name))
      deck.fail(given, std::string("expected ") + k.name + " too (in " + k.unit +
                           "): set length, time and mass together, or none of them "
                           "(dimensionless code units)");
  return u;
}

}  // namespace pw
