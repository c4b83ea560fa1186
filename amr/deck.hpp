// Deck: the run's parameters (a TOML file plus key=value overrides), read and checked by
// each component for its own section. Every error names the file, the line, the key and
// what was expected; every key read is remembered (with its value, defaults included) for
// the log.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace pw {

class Comm;

/// A mistake of the user's (deck, command line, restart file): printed once, exit code 2.
/// what() reads "<file>:<line>: <key>: <what was expected>".
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Deck {
 public:
  /// Parse `path` and apply `overrides` ("section.key=value", value in TOML syntax; a
  /// bare word that is not valid TOML is taken as a string). Throws UserError on a syntax
  /// error or a missing file.
  static Deck load(const std::string& path,
                   const std::vector<std::string>& overrides = {});
  /// Same, collective over `comm`: rank 0 reads the file and every rank parses its text,
  /// so that all ranks run one deck and meet the same errors (a rank that could not read
  /// the file, or read it after an edit, left the others waiting in a collective).
  static Deck load(const std::string& path, const std::vector<std::string>& overrides,
                   const Comm& comm);
  /// The text of the deck file `path` (at most kMaxDeckBytes + 1 bytes of it); throws
  /// UserError when it cannot be read.
  static std::string read_file(const std::string& path);
  /// Same, from text; `name` stands for the file name in messages.
  static Deck parse(const std::string& text, const std::string& name,
                    const std::vector<std::string>& overrides = {});

  Deck();
  ~Deck();
  Deck(Deck&&) noexcept;
  Deck& operator=(Deck&&) noexcept;

  /// True when `key` is set (by the file or an override), as a value or as a section.
  bool has(const std::string& key) const;
  /// True when `key` is set to an array (for keys that take a scalar or a list).
  bool is_array(const std::string& key) const;

  /// The value of a dotted key ("amr.max_level"), or `def` when absent. Throws UserError
  /// when the value has the wrong type. T: bool, int, double (an integer is accepted),
  /// std::string, std::vector of int, double, bool or std::string.
  template <class T>
  T get(const std::string& key, const T& def) const;
  /// As get(), but an absent key is an error ("<file>: <key>: missing required key ...").
  template <class T>
  T require(const std::string& key) const;

  /// Record `key` as one the run knows though it reads it only when set (no default to
  /// echo), so that check_all_used() can suggest it for a misspelt key.
  void know(const std::string& key) const;

  /// Record that the keys of `section` are read only under `condition` (a sentence such
  /// as `hydro.problem = "blast"`): check_all_used() then says so for a key of that
  /// section nobody read, instead of calling it unknown.
  void read_only_when(const std::string& section, const std::string& condition) const;

  /// "<file>:<line>" where `key` is set (or the file alone when absent), for a message
  /// about the key composed later than the deck is read.
  std::string where(const std::string& key) const;
  /// Throw UserError "<file>:<line>: <key>: <what>" pointing at the key's definition (or
  /// at the file alone when the key is absent).
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

  /// Throw UserError for the first key (in file order, overrides last) that no component
  /// read, suggesting the closest key read (edit distance <= 3), preferably of its
  /// section. With a section ("units"), only the keys directly in it: for a reader whose
  /// own error would otherwise hide a misspelt key of its section.
  void check_all_used(const std::string& section = "") const;

  /// Every key read, sorted, as "key = value" lines (defaults included): the deck as
  /// used.
  std::string echo() const;
  /// The same as (key, TOML-formatted value) pairs.
  std::map<std::string, std::string> used() const;

  const std::string& file() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The TOML spelling of a value, as echo() prints it (doubles in the shortest form that
/// reads back exactly, always with a '.' or an exponent). For the values quoted in error
/// messages.
std::string to_toml(bool v);
std::string to_toml(int v);
std::string to_toml(double v);
std::string to_toml(const std::string& v);
std::string to_toml(const char* v);
template <class T>
std::string to_toml(const std::vector<T>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ", ";
    s += to_toml(static_cast<T>(v[i]));
  }
  return s + "]";
}

}  // namespace pw
