// The limits a deck's text is held to before toml11 parses it. toml11 3.x recurses once
// per nesting level (arrays nested 10^5 deep overflow the stack), is quadratic in the
// parts of a dotted key and in the keys of an inline table, and parses ~0.2 MB/s, so a
// hostile deck would crash it or keep it busy for minutes. Real decks are a few KB,
// nested two deep.
#pragma once

#include <cstddef>
#include <string>

namespace pw {

constexpr std::size_t kMaxDeckBytes = 64 * 1024;  // parsed in well under a second
constexpr int kMaxDeckNesting = 16;  // arrays and inline tables inside one another
constexpr int kMaxKeyParts = 8;      // a.b.c: parts of one dotted key or table header
constexpr int kMaxLineBytes =
    16 * 1024;                        // toml11 takes longer per value on a longer line
constexpr int kMaxKeysPerLine = 256;  // key = value pairs on one line (inline tables)

/// Throws UserError "<name>:<line>: <what>" (no line when `lines` is false: a
/// command-line value) for a text longer than kMaxDeckBytes, a NUL byte, or a limit above
/// exceeded (strings and comments are skipped).
void check_deck_text(const std::string& text, const std::string& name, bool lines = true);

}  // namespace pw
