// Deck: a TOML file flattened to dotted keys in file order, plus command-line overrides,
// with typed, located reads and a record of every key read.
#include "amr/deck.hpp"

#include "amr/comm.hpp"
#include "amr/deck_limits.hpp"

#include <toml.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

namespace pw {

// Not in the anonymous namespace: Deck::Impl holds entries, and GCC warns of a member of
// anonymous-namespace type (-Wsubobject-linkage) where this file is included, as a unity
// build does.
namespace deck_detail {

/// One value of the deck: its dotted key, the TOML value (with its source location) and
/// where it was set, as messages print it ("x.toml:12" or "command line: argument ...").
struct Entry {
  std::string key;
  toml::value value;
  std::string where;
};

}  // namespace deck_detail

namespace {

using deck_detail::Entry;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string format_double(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // The shortest spelling that reads back to the same double.
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // TOML needs a '.' or an exponent to read a float back as a float.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string quote(const std::string& v) {
  std::string s = "\"";
  for (const char c : v) {
    switch (c) {
      case '"':
        s += "\\\"";
        break;
      case '\\':
        s += "\\\\";
        break;
      case '\n':
        s += "\\n";
        break;
      case '\t':
        s += "\\t";
        break;
      case '\r':
        s += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          s += buf;
        } else {
          s += c;
        }
    }
  }
  return s + "\"";
}

/// A TOML value spelled as in the deck, shortened when long (it is quoted in messages).
std::string format_value(const toml::value& v) {
  std::string s;
  switch (v.type()) {
    case toml::value_t::boolean:
      s = v.as_boolean() ? "true" : "false";
      break;
    case toml::value_t::integer:
      s = std::to_string(v.as_integer());
      break;
    case toml::value_t::floating:
      s = format_double(v.as_floating());
      break;
    case toml::value_t::string:
      s = quote(v.as_string().str);
      break;
    case toml::value_t::array: {
      s = "[";
      const auto& a = v.as_array();
      for (std::size_t i = 0; i < a.size(); ++i)
        s += (i ? ", " : "") + format_value(a[i]);
      s += "]";
      break;
    }
    case toml::value_t::table: {
      // Sorted, so that the spelling does not depend on hashing.
      std::map<std::string, const toml::value*> sorted;
      for (const auto& [k, x] : v.as_table())
        sorted[k] = &x;
      s = "{";
      for (const auto& [k, x] : sorted)
        s += (s.size() > 1 ? ", " : "") + k + " = " + format_value(*x);
      s += "}";
      break;
    }
    default:
      s = trim(toml::format(v));
      break;  // dates and times
  }
  if (s.size() > 80) s = s.substr(0, 76) + " ...";
  return s;
}

/// "a string (\"three\")": what the deck holds, for "expected ..., got ..." messages.
std::string describe(const toml::value& v) {
  const char* kind = "a value";
  switch (v.type()) {
    case toml::value_t::boolean:
      kind = "a boolean";
      break;
    case toml::value_t::integer:
      kind = "an integer";
      break;
    case toml::value_t::floating:
      kind = "a float";
      break;
    case toml::value_t::string:
      kind = "a string";
      break;
    case toml::value_t::array:
      kind = "an array";
      break;
    case toml::value_t::table:
      kind = "a table";
      break;
    case toml::value_t::offset_datetime:
    case toml::value_t::local_datetime:
      kind = "a date-time";
      break;
    case toml::value_t::local_date:
      kind = "a date";
      break;
    case toml::value_t::local_time:
      kind = "a time";
      break;
    default:
      break;
  }
  return std::string(kind) + " (" + format_value(v) + ")";
}

/// Why a value cannot be converted: `full` after "got " for a scalar key, `brief` inside
/// "(element i is <brief>)" for an element of an array.
struct Mismatch {
  std::string full;
  std::string brief;
};

Mismatch wrong_type(const toml::value& v) {
  std::string kind = describe(v);
  return {kind, kind.substr(0, kind.find(" ("))};
}

// Scalar conversions: the expected kind (singular and plural) and the conversion itself.
template <class T>
struct Scalar;

template <>
struct Scalar<bool> {
  static constexpr const char* one = "a boolean";
  static constexpr const char* many = "booleans";
  static std::optional<Mismatch> convert(const toml::value& v, bool& out) {
    if (!v.is_boolean()) return wrong_type(v);
    out = v.as_boolean();
    return std::nullopt;
  }
};

template <>
struct Scalar<int> {
  static constexpr const char* one = "an integer";
  static constexpr const char* many = "integers";
  static std::optional<Mismatch> convert(const toml::value& v, int& out) {
    if (!v.is_integer()) return wrong_type(v);
    const auto i = v.as_integer();
    if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max()) {
      // The parser reads a longer integer as the 64-bit extreme: say so, not that figure.
      using I64 = std::numeric_limits<decltype(i)>;
      const std::string s = std::to_string(i) + (i == I64::max()   ? " or more"
                                                 : i == I64::min() ? " or less"
                                                                   : "");
      return Mismatch{s + " (out of int range)", s + ", out of int range"};
    }
    out = static_cast<int>(i);
    return std::nullopt;
  }
};

template <>
struct Scalar<double> {
  static constexpr const char* one = "a number";
  static constexpr const char* many = "numbers";
  static std::optional<Mismatch> convert(const toml::value& v, double& out) {
    if (v.is_floating()) {
      out = v.as_floating();
    } else if (v.is_integer()) {
      out = static_cast<double>(v.as_integer());
    } else {
      return wrong_type(v);
    }
    return std::nullopt;
  }
};

template <>
struct Scalar<std::string> {
  static constexpr const char* one = "a string";
  static constexpr const char* many = "strings";
  static std::optional<Mismatch> convert(const toml::value& v, std::string& out) {
    if (!v.is_string()) return wrong_type(v);
    out = v.as_string().str;
    // File names and HDF5 names would be cut at a NUL.
    if (out.find('\0') != std::string::npos)
      return Mismatch{quote(out) + " (a NUL character, \\u0000, in a string)",
                      "a string holding a NUL character"};
    return std::nullopt;
  }
};

/// Conversion of a deck value to T, a scalar or a std::vector of scalars. Returns the
/// text after "expected " when the value does not fit.
template <class T>
struct Convert {
  static std::string expected() { return Scalar<T>::one; }
  static std::optional<std::string> apply(const toml::value& v, T& out) {
    if (auto m = Scalar<T>::convert(v, out))
      return "expected " + expected() + ", got " + m->full;
    return std::nullopt;
  }
};

template <class T>
struct Convert<std::vector<T>> {
  static std::string expected() { return std::string("an array of ") + Scalar<T>::many; }
  static std::optional<std::string> apply(const toml::value& v, std::vector<T>& out) {
    if (!v.is_array()) return "expected " + expected() + ", got " + describe(v);
    const auto& a = v.as_array();
    out.clear();
    for (std::size_t i = 0; i < a.size(); ++i) {
      T x{};
      if (auto m = Scalar<T>::convert(a[i], x)) {
        return "expected " + expected() + ", got " + format_value(v) + " (element " +
               std::to_string(i) + " is " + m->brief + ")";
      }
      out.push_back(x);
    }
    return std::nullopt;
  }
};

/// Levenshtein distance, for did-you-mean suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] =
          std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string section_of(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? "" : key.substr(0, dot);
}

/// A command-line key: bare TOML keys ([A-Za-z0-9_-]+) joined by dots.
bool valid_key(const std::string& key) {
  if (key.empty() || key.front() == '.' || key.back() == '.') return false;
  if (key.find("..") != std::string::npos) return false;
  if (std::count(key.begin(), key.end(), '.') >= kMaxKeyParts) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.';
  });
}

/// toml11's multi-line syntax error (message, then source lines with underlines)
/// condensed to
/// "<file>:<line>: syntax error: <message> (<remark>)" and the offending source line.
std::string condense_syntax_error(const std::string& what, const std::string& file,
                                  unsigned fallback_line) {
  std::istringstream in(what);
  std::string line, message, remark, source;
  unsigned line_no = fallback_line;
  std::string last_no, last_text;
  while (std::getline(in, line)) {
    if (message.empty() && !trim(line).empty()) {
      message = trim(line);
      if (message.rfind("[error]", 0) == 0) message = trim(message.substr(7));
      // Drop toml11's function name ("toml::parse_array: ").
      if (message.rfind("toml::", 0) == 0) {
        const auto colon = message.find(": ");
        if (colon != std::string::npos) message = message.substr(colon + 2);
      }
      continue;
    }
    const auto bar = line.find(" | ");
    if (bar == std::string::npos) continue;
    const std::string num = trim(line.substr(0, bar));
    const std::string text = line.substr(bar + 3);
    if (!num.empty() && std::all_of(num.begin(), num.end(),
                                    [](char c) { return c >= '0' && c <= '9'; })) {
      last_no = num;
      last_text = text;
    } else if (const std::string t = trim(text);
               !t.empty() && (t[0] == '^' || t[0] == '~')) {
      // An underline ("^--- remark" or "~~~ remark"); the last one is where parsing
      // stopped.
      if (!last_no.empty()) line_no = static_cast<unsigned>(std::stoul(last_no));
      const auto r = t.find_first_not_of("^~-");
      remark = r == std::string::npos ? "" : trim(t.substr(r));
      source = trim(last_text);
    }
  }
  // "value already exists." (remark) reads better without the periods.
  if (!message.empty() && message.back() == '.') message.pop_back();
  if (!remark.empty() && remark.back() == '.') remark.pop_back();
  if (message.empty()) message = "invalid TOML";
  std::string s = file + ":" + std::to_string(line_no) + ": syntax error: " + message;
  if (!remark.empty() && remark != "here") s += " (" + remark + ")";
  if (!source.empty()) s += "\n    " + source;
  return s;
}

}  // namespace

struct Deck::Impl {
  std::string file;
  std::vector<Entry> entries;                   // file order, then new keys of overrides
  std::map<std::string, std::size_t> index;     // key -> position in entries
  std::map<std::string, std::string> sections;  // table key -> where it is defined
  // Key read -> TOML spelling of the value used; reads are const, so this is mutable.
  mutable std::map<std::string, std::string> used;
  // Optional keys without a default, known for did-you-mean while absent (not echoed).
  mutable std::set<std::string> known;
  // Key given on the command line -> its argument: a second one is a mistake, not a
  // silent override of the first.
  std::map<std::string, std::string> overridden;
  // Section -> when its keys are read (read_only_when).
  mutable std::map<std::string, std::string> conditions;

  std::string where_of(const std::string& key) const {
    if (auto it = index.find(key); it != index.end()) return entries[it->second].where;
    if (auto it = sections.find(key); it != sections.end()) return it->second;
    return file.empty() ? "deck" : file;
  }

  /// The value of a key, or null when absent. A section is not a value: reading one is an
  /// error `expected` names.
  const toml::value* find(const Deck& deck, const std::string& key,
                          const std::string& expected) const {
    if (auto it = index.find(key); it != index.end()) return &entries[it->second].value;
    if (sections.count(key)) deck.fail(key, "expected " + expected + ", got a table");
    return nullptr;
  }

  /// Flatten the table `t` (key prefix `prefix`) into leaves; sections are recorded too.
  void flatten(const toml::value& t, const std::string& prefix,
               std::vector<std::tuple<unsigned, unsigned, Entry>>& out) {
    for (const auto& [k, v] : t.as_table()) {
      const std::string key = prefix.empty() ? k : prefix + "." + k;
      if (k.find('\0') != std::string::npos) {
        throw UserError(file + ":" + std::to_string(v.location().line()) +
                        ": a key holding a NUL character (\\u0000): " + quote(key));
      }
      const auto loc = v.location();
      const std::string where = file + ":" + std::to_string(loc.line());
      if (v.is_table()) {
        sections.emplace(key, where);
        flatten(v, key, out);
      } else {
        out.emplace_back(loc.line(), loc.column(), Entry{key, v, where});
      }
    }
  }

  void apply_override(const std::string& arg);
};

namespace {

/// An override's value: TOML when it parses as one value, else the text as a string.
toml::value parse_override_value(const std::string& text, const std::string& where) {
  const std::string line = "v = " + text + "\n";
  check_deck_text(line, where,
                  false);  // toml11 is as slow on a hostile argument as on a file
  std::istringstream in(line);
  try {
    const toml::value t = toml::parse(in, where);
    if (t.is_table() && t.as_table().size() == 1 && t.contains("v")) return t.at("v");
  } catch (const std::exception&) {
    // Not TOML: a bare word.
  }
  return toml::value(text);
}

}  // namespace

void Deck::Impl::apply_override(const std::string& arg) {
  // A hostile argument may be 128 KiB long: messages quote its start.
  const std::string where = "command line: argument \"" +
                            (arg.size() > 100 ? arg.substr(0, 96) + " ..." : arg) + "\"";
  const auto eq = arg.find('=');
  if (eq == std::string::npos)
    throw UserError(where + ": expected \"section.key=value\" (no '=' found)");
  const std::string key = trim(arg.substr(0, eq));
  const std::string text = trim(arg.substr(eq + 1));
  if (!valid_key(key)) {
    throw UserError(
        where + ": expected \"section.key=value\" with a key of letters, digits, " +
        "'_' or '-' joined by at most " + std::to_string(kMaxKeyParts - 1) +
        " dots, got \"" + (key.size() > 80 ? key.substr(0, 76) + " ..." : key) + "\"");
  }
  if (text.empty()) throw UserError(where + ": " + key + ": expected a value after '='");
  if (auto it = overridden.find(key); it != overridden.end())
    throw UserError(where + ": " + key + ": given twice on the command line (also " +
                    it->second + ")");
  overridden.emplace(key, where.substr(std::string("command line: ").size()));
  if (sections.count(key)) {
    throw UserError(where + ": " + key +
                    ": is a section of the deck, expected a key of it (\"" + key +
                    ".name=value\")");
  }
  for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1)) {
    const std::string outer = key.substr(0, dot);
    if (index.count(outer)) {
      throw UserError(where + ": " + key + ": " + outer + " is a value (" +
                      entries[index.at(outer)].where + "), not a section");
    }
  }
  toml::value value = parse_override_value(text, where);
  if (auto it = index.find(key); it != index.end()) {
    entries[it->second].value = std::move(value);
    entries[it->second].where = where;
    return;
  }
  for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1))
    sections.emplace(key.substr(0, dot), where);
  index[key] = entries.size();
  entries.push_back(Entry{key, std::move(value), where});
}

Deck::Deck() : impl_(std::make_unique<Impl>()) {}
Deck::~Deck() = default;
Deck::Deck(Deck&&) noexcept = default;
Deck& Deck::operator=(Deck&&) noexcept = default;

Deck Deck::load(const std::string& path, const std::vector<std::string>& overrides) {
  return parse(read_file(path), path, overrides);
}

Deck Deck::load(const std::string& path, const std::vector<std::string>& overrides,
                const Comm& comm) {
  std::string text, why;
  if (comm.rank() == 0) {
    try {
      text = read_file(path);
    } catch (const UserError& e) {
      why = e.what();
    }
  }
  why = comm.broadcast(why);
  if (!why.empty()) throw UserError(why);
  return parse(comm.broadcast(text), path, overrides);
}

std::string Deck::read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  // A directory opens as a stream, but does not read.
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec))
    throw UserError(path + ": cannot open deck file");
  // Read one byte more than a deck may hold, not the whole of a huge file or /dev/zero.
  std::string text(kMaxDeckBytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(std::size_t(in.gcount()));
  return text;
}

Deck Deck::parse(const std::string& text, const std::string& name,
                 const std::vector<std::string>& overrides) {
  Deck deck;
  Impl& d = *deck.impl_;
  d.file = name;
  check_deck_text(text, name);
  toml::value root;
  try {
    std::istringstream in(text);
    root = toml::parse(in, name);
  } catch (const toml::syntax_error& e) {
    throw UserError(condense_syntax_error(e.what(), name, e.location().line()));
  }
  // toml11 keeps tables unordered: sort the leaves by their position in the file.
  std::vector<std::tuple<unsigned, unsigned, Entry>> leaves;
  if (root.is_table()) d.flatten(root, "", leaves);
  std::stable_sort(leaves.begin(), leaves.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b));
  });
  for (auto& leaf : leaves) {
    d.index[std::get<2>(leaf).key] = d.entries.size();
    d.entries.push_back(std::move(std::get<2>(leaf)));
  }
  for (const auto& arg : overrides)
    d.apply_override(arg);
  return deck;
}

bool Deck::has(const std::string& key) const {
  return impl_->index.count(key) > 0 || impl_->sections.count(key) > 0;
}

bool Deck::is_array(const std::string& key) const {
  const auto it = impl_->index.find(key);
  return it != impl_->index.end() && impl_->entries[it->second].value.is_array();
}

template <class T>
T Deck::get(const std::string& key, const T& def) const {
  const toml::value* v = impl_->find(*this, key, Convert<T>::expected());
  if (v == nullptr) {
    impl_->used[key] = to_toml(def);
    return def;
  }
  T out{};
  if (auto why = Convert<T>::apply(*v, out)) fail(key, *why);
  impl_->used[key] = to_toml(out);
  return out;
}

template <class T>
T Deck::require(const std::string& key) const {
  if (impl_->find(*this, key, Convert<T>::expected()) == nullptr)
    fail(key, "missing required key (expected " + Convert<T>::expected() + ")");
  return get<T>(key, T{});
}

#define PW_DECK_INSTANTIATE(T)                                 \
  template T Deck::get<T>(const std::string&, const T&) const; \
  template T Deck::require<T>(const std::string&) const;
PW_DECK_INSTANTIATE(bool)
PW_DECK_INSTANTIATE(int)
PW_DECK_INSTANTIATE(double)
PW_DECK_INSTANTIATE(std::string)
PW_DECK_INSTANTIATE(std::vector<int>)
PW_DECK_INSTANTIATE(std::vector<double>)
PW_DECK_INSTANTIATE(std::vector<bool>)
PW_DECK_INSTANTIATE(std::vector<std::string>)
#undef PW_DECK_INSTANTIATE

std::string Deck::where(const std::string& key) const {
  return impl_->where_of(key);
}

void Deck::know(const std::string& key) const {
  impl_->known.insert(key);
}

void Deck::read_only_when(const std::string& section,
                          const std::string& condition) const {
  impl_->conditions[section] = condition;
}

void Deck::fail(const std::string& key, const std::string& what) const {
  throw UserError(impl_->where_of(key) + ": " + key + ": " + what);
}

void Deck::check_all_used(const std::string& section) const {
  const Impl& d = *impl_;
  for (const Entry& e : d.entries) {
    if (d.used.count(e.key)) continue;
    if (!section.empty() && section_of(e.key) != section) continue;
    // A section left from another problem or module (a deck switched on the command
    // line): not a misspelling.
    if (auto c = d.conditions.find(section_of(e.key)); c != d.conditions.end())
      fail(e.key, "the [" + c->first + "] section is read only when " + c->second);
    // The closest key read, preferring the same section; ties go to the first in sorted
    // order.
    std::set<std::string> candidates = d.known;
    for (const auto& kv : d.used)
      candidates.insert(kv.first);
    std::string best;
    std::size_t best_dist = 4;
    for (const bool same_section : {true, false}) {
      for (const std::string& key : candidates) {
        if (same_section && section_of(key) != section_of(e.key)) continue;
        const std::size_t dist = edit_distance(e.key, key);
        if (dist < best_dist) {
          best_dist = dist;
          best = key;
        }
      }
      if (!best.empty()) break;
    }
    std::string what = "unknown key";
    if (!best.empty()) what += " (did you mean " + best + "?)";
    fail(e.key, what);
  }
}

std::string Deck::echo() const {
  std::string s;
  for (const auto& [key, value] : impl_->used)
    s += key + " = " + value + "\n";
  return s;
}

std::map<std::string, std::string> Deck::used() const {
  return impl_->used;
}

const std::string& Deck::file() const {
  return impl_->file;
}

std::string to_toml(bool v) {
  return v ? "true" : "false";
}
std::string to_toml(int v) {
  return std::to_string(v);
}
std::string to_toml(double v) {
  return format_double(v);
}
std::string to_toml(const std::string& v) {
  return quote(v);
}
std::string to_toml(const char* v) {
  return quote(v);
}

}  // namespace pw
