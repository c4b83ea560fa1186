// check_deck_text: each limit refused at the line that breaks it, and brackets, dots and
// '=' inside strings and comments counted for nothing (a deck must not be refused for
// what its strings say).
#include <gtest/gtest.h>

#include <string>

#include "amr/deck.hpp"
#include "amr/deck_limits.hpp"

namespace pw {
namespace {

std::string limit_error(const std::string& text) {
  try {
    check_deck_text(text, "t.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

TEST(DeckLimits, RefusesEachLimitAtItsLine) {
  EXPECT_EQ(limit_error("a = 1\nb = " + repeat("[", 17) + repeat("]", 17)),
            "t.toml:2: arrays and tables nested more than 16 deep");
  EXPECT_EQ(limit_error("x = 1\n\n[a.b.c.d.e.f.g.h.i]"),
            "t.toml:3: a dotted key of more than 8 parts");
  EXPECT_EQ(limit_error("t = {" + repeat("k = 1, ", 257) + "}"),
            "t.toml:1: more than 256 keys on one line");
  EXPECT_EQ(limit_error("a = 1\nb = [" + repeat("1, ", 6000) + "]\n"),
            "t.toml:2: a line longer than 16 KiB (split long arrays over several lines)");
  EXPECT_EQ(limit_error(std::string("a = 1\n#\0\n", 9)),
            "t.toml:2: a NUL byte: expected a deck (a TOML text file)");
  EXPECT_EQ(limit_error(std::string(kMaxDeckBytes + 1, ' ')),
            "t.toml: longer than 64 KiB (a deck is a TOML file of a few KB)");
}

TEST(DeckLimits, AcceptsWhatStringsAndCommentsHoldAndNormalDecks) {
  const std::string brackets = repeat("[{", 20);
  EXPECT_EQ(
      limit_error("a = \"" + brackets + "\"\n# " + brackets + "\nb = '" + brackets +
                  "'\nc = \"\"\"\n" + brackets + "\\\"\"\"\n\"\"\"\nd = '''" +
                  repeat("a.", 20) + "'''\n" + "[x.y.z]\ne.f.g.h.i.j.k.l = [1.5, 2.5]"),
      "(no error)");
  // Floats' dots are not key parts; nesting closes.
  EXPECT_EQ(limit_error(repeat("v = [" + repeat("[1.0, 2.0], ", 10) + "]\n", 20)),
            "(no error)");
  // A line of the scanner's own counting ends at the newline inside a multi-line string.
  EXPECT_EQ(
      limit_error("s = \"\"\"\n" + repeat(std::string(1000, 'x') + "\n", 30) + "\"\"\""),
      "(no error)");
}

TEST(DeckLimits, DeckRefusesNulInStringsAndKeys) {
  try {
    Deck::parse("[output]\ndir = \"a\\u0000b\"\n", "t.toml")
        .get<std::string>("output.dir", "");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.toml:2: output.dir: expected a string, got \"a\\u0000b\" (a NUL "
              "character, \\u0000, in a string)");
  }
  try {
    Deck::parse("\"a\\u0000b\" = 1\n", "t.toml");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.toml:1: a key holding a NUL character (\\u0000): \"a\\u0000b\"");
  }
}

}  // namespace
}  // namespace pw
