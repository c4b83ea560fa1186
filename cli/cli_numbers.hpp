// Checks of numeric command-line options that read what the user wrote and say in one
// line what they expected. CLI11 2.1 reads integers with strtoll's base 0 ("010" is 8,
// "0x10" is 16, in sizes too), and CLI::Range lets NaN through and prints DBL_MAX in
// full; these read decimal only and name the range.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

namespace pw::cli {

/// Reads all of `text` as a decimal integer of type T (leading zeros allowed; a sign
/// only '-', and only for a signed T).
template <class T>
bool read_decimal(const std::string& text, T& v) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v, 10);
  return r.ec == std::errc() && r.ptr == end;
}

/// An integer option in [lo, hi], read in decimal as a T. A transform, not a check: it
/// writes the digits back without leading zeros so that CLI11's own reading cannot take
/// them for octal.
template <class T>
CLI::Validator int_in(T lo, T hi) {
  const bool unbounded = hi == std::numeric_limits<T>::max();
  return CLI::Validator(
      [=](std::string& text) {
        T v = 0;
        if (!read_decimal(text, v) || v < lo || v > hi)
          return unbounded ? fmt::format("expected an integer >= {}, got {}", lo, text)
                           : fmt::format("expected an integer in [{}, {}], got {}", lo,
                                         hi, text);
        text = std::to_string(v);
        return std::string();
      },
      unbounded ? fmt::format(">= {}", lo) : fmt::format("in [{}, {}]", lo, hi));
}

/// A floating-point option that is finite and passes `ok`.
template <class T>
CLI::Validator number(const std::string& expected, std::function<bool(T)> ok,
                      const std::string& description) {
  return CLI::Validator(
      [=](std::string& text) {
        T v{};
        return CLI::detail::lexical_cast(text, v) && std::isfinite(double(v)) && ok(v)
                   ? std::string()
                   : "expected " + expected + ", got " + text;
      },
      description);
}

/// A size in bytes, "16GB", "512MiB" or "1000000", as a count of bytes; an empty string
/// if `text` is not one or is 0. Its digits are read in decimal (CLI::AsSizeValue alone
/// reads "010GB" as 8 GB).
inline std::string size_in_bytes(std::string text) {
  std::size_t end = text.find_first_not_of("0123456789");
  if (text.empty() || end == 0) return {};
  if (end == std::string::npos) end = text.size();
  if (text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ",
                             end) != std::string::npos)
    return {};  // "0x10GB", "1.5GiB": only a unit may follow the digits
  // The digits in decimal, without leading zeros (CLI11 would read "010" as octal, and
  // cap a count beyond 64 bits instead of refusing it).
  std::uint64_t count = 0;
  if (!read_decimal(text.substr(0, end), count) || count == 0) return {};
  text = std::to_string(count) + text.substr(end);
  try {
    if (!CLI::AsSizeValue(true)(text).empty()) return {};
  } catch (const CLI::ValidationError&) {
    return {};
  }
  return text;
}

/// An option giving a size (see size_in_bytes), replaced by its count of bytes.
inline CLI::Validator size_value() {
  return CLI::Validator(
      [](std::string& text) {
        const std::string bytes = size_in_bytes(text);
        if (bytes.empty())
          return "expected a size > 0 such as 16GB, 512MiB or 1000000 (bytes), got " +
                 text;
        text = bytes;
        return std::string();
      },
      "SIZE");
}

}  // namespace pw::cli
