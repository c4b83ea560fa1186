// check_deck_text: one pass over the text that tracks only what the limits need — the
// nesting of brackets, whether a key may start, the parts of the key being read — and
// skips strings and comments, so that a '[' or a '.' inside them counts for nothing.
#include "amr/deck_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "amr/deck.hpp"

namespace pw {

namespace {

class Scanner {
 public:
  Scanner(const std::string& text, const std::string& name, bool lines)
      : s_(text), name_(name), lines_(lines) {}

  void run() {
    for (i_ = 0; i_ < s_.size(); ++i_) {
      const char c = s_[i_];
      switch (c) {
        case '\n':
          end_line();
          keys_on_line_ = 0;
          if (open_.empty()) start_key();
          break;
        case '#':
          skip_to_end_of_line();
          break;
        case '"':
        case '\'':
          skip_string(c);
          break;
        case '[':
        case '{':
          open_.push_back(c);
          if (int(open_.size()) > kMaxDeckNesting)
            fail(fmt::format("arrays and tables nested more than {} deep",
                             kMaxDeckNesting));
          if (c == '{') start_key();
          break;
        case ']':
        case '}':
          if (!open_.empty()) open_.pop_back();
          if (c == '}') in_key_ = false;
          break;
        case ',':
          if (!open_.empty() && open_.back() == '{') start_key();
          break;
        case '=':
          if (++keys_on_line_ > kMaxKeysPerLine)
            fail(fmt::format("more than {} keys on one line", kMaxKeysPerLine));
          in_key_ = false;
          break;
        case '.':
          if (in_key_ && ++key_parts_ > kMaxKeyParts)
            fail(fmt::format("a dotted key of more than {} parts", kMaxKeyParts));
          break;
        default:
          break;
      }
    }
    end_line();  // the last line may have no '\n'
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(lines_ ? fmt::format("{}:{}: {}", name_, line_, what)
                           : fmt::format("{}: {}", name_, what));
  }
  void end_line() { end_line_at(i_); }
  void end_line_at(std::size_t nl) {
    if (nl - line_start_ > std::size_t(kMaxLineBytes))
      fail(fmt::format("a line longer than {} KiB (split long arrays over several lines)",
                       kMaxLineBytes / 1024));
    ++line_;
    line_start_ = nl + 1;
  }
  void start_key() {
    in_key_ = true;
    key_parts_ = 1;
  }
  bool at(std::size_t k, const char* what) const { return s_.compare(k, 3, what) == 0; }
  void skip_to_end_of_line() {
    const auto nl = s_.find('\n', i_);
    i_ = (nl == std::string::npos ? s_.size() : nl) - 1;  // the loop sees the '\n'
  }
  /// From the opening quote to the closing one (a string left open ends at its line's
  /// end, as toml11 will report). Basic strings ('"') have backslash escapes.
  void skip_string(char q) {
    const char triple[4] = {q, q, q, '\0'};
    const bool multi = at(i_, triple);
    for (i_ += multi ? 3 : 1; i_ < s_.size(); ++i_) {
      const char c = s_[i_];
      if (c == '\\' && q == '"') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == '\n') end_line_at(i_ + 1);
        ++i_;
      } else if (c == '\n') {
        if (!multi) break;
        end_line_at(i_);
      } else if (c == q && (!multi || at(i_, triple))) {
        if (multi) i_ += 2;
        return;
      }
    }
    --i_;  // the loop sees the '\n' (or the end)
  }

  const std::string& s_;
  const std::string& name_;
  const bool lines_;
  std::size_t i_ = 0;
  unsigned line_ = 1;
  std::size_t line_start_ = 0;
  std::vector<char> open_;  // '[' and '{' not yet closed
  bool in_key_ = true;      // a key may be being read here
  int key_parts_ = 1;
  int keys_on_line_ = 0;
};

}  // namespace

void check_deck_text(const std::string& text, const std::string& name, bool lines) {
  if (text.size() > kMaxDeckBytes)
    throw UserError(
        fmt::format("{}: longer than {} KiB (a deck is a TOML file of a few KB)", name,
                    kMaxDeckBytes / 1024));
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + long(nul), '\n');
    throw UserError(
        fmt::format("{}:{}: a NUL byte: expected a deck (a TOML text file)", name, line));
  }
  Scanner(text, name, lines).run();
}

}  // namespace pw
