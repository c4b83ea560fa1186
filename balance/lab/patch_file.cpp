#include "balance/lab/patch_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "amr/box_index.hpp"

namespace pw {

namespace {

[[noreturn]] void bad(const std::string& name, int line, const std::string& what) {
  throw UserError(name + ":" + std::to_string(line) + ": " + what);
}

// Indices are ints, and the balancers add sizes, grow boxes and cut them: a quarter of
// int range keeps every such sum exact (a side of 2^31 looped with growing memory).
constexpr int kMaxIndex = (1 << 29) - 1;

// Cells per box and over the file: a cube of side 2^21 has 2^63 cells, which wrapped (Lan
// crashed, comm_cut read 0). Per box 1024 times the generators' largest (1024^3); over
// the file 2 times their most (< 1.2e6 patches of 1024^3 < 2^51). Cell counts and their
// sums (pieces, cut faces, moved cells: at most 6 per cell) then stay exact in a double
// and far below long's 2^63; refinement factors enter only as divisors of coordinates.
constexpr long kMaxBoxCells = 1L << 40;
constexpr long kMaxFileCells = 1L << 52;

// Patch lines are short: a limit keeps a file with no newline (/dev/zero) from being
// read whole into memory.
constexpr std::streamsize kMaxLineBytes = 64 * 1024;

/// The next line of `in` (without its newline) into `text`; false at the end.
bool next_line(std::istream& in, std::vector<char>& buf, std::string& text,
               const std::string& name, int line) {
  buf.resize(size_t(kMaxLineBytes) + 1);
  in.getline(buf.data(), kMaxLineBytes + 1);
  if (in.fail() && !in.eof() && !in.bad() && in.gcount() == kMaxLineBytes)
    bad(name, line,
        fmt::format("a line longer than {} bytes: expected one patch per line",
                    kMaxLineBytes));
  if (in.fail()) return false;
  text.assign(buf.data(), size_t(in.gcount()) - (in.eof() ? 0 : 1));
  return true;
}

/// The box's cells when within kMaxBoxCells (sides >= 1 and < 2^30, so the products of
/// two fit in a long), else an error naming the sides.
long box_cells(const Box& b, const std::string& name, int line) {
  const IntVect s = b.size();
  if (long(s[0]) * s[1] > kMaxBoxCells / s[2])
    bad(name, line,
        fmt::format("box: expected at most 2^40 = {} cells, got {} x {} x {}",
                    kMaxBoxCells, s[0], s[1], s[2]));
  return long(s[0]) * s[1] * s[2];
}

/// Two boxes of one level that overlap (a duplicate included): the later one's line.
void check_disjoint(const std::vector<PatchMeta>& patches, const std::vector<int>& lines,
                    const std::string& name) {
  std::map<int, std::vector<int>> by_level;
  for (size_t i = 0; i < patches.size(); ++i)
    by_level[patches[i].level].push_back(int(i));
  for (const auto& [level, ids] : by_level) {
    BoxList boxes;
    for (int i : ids)
      boxes.push_back(patches[size_t(i)].box);
    const BoxIndex index(boxes);
    for (size_t a = 0; a < ids.size(); ++a)
      for (int b : index.query(boxes[a]))
        if (size_t(b) != a) {
          const size_t first = std::min(a, size_t(b)), second = std::max(a, size_t(b));
          bad(name, lines[size_t(ids[second])],
              fmt::format("box: overlaps the box of line {} on level {}{}",
                          lines[size_t(ids[first])], level,
                          boxes[first] == boxes[second] ? " (the same box)" : ""));
        }
  }
}

/// The whole of `word` as a T (from_chars: no hex, no octal, nothing after it; a leading
/// '+' allowed, as a stream allows it).
template <class T>
bool read_whole(const std::string& word, T& v) {
  const char* end = word.data() + word.size();
  const char* first =
      word.size() > 1 && word[0] == '+' && word[1] != '-' ? word.data() + 1 : word.data();
  const auto [stop, ec] = std::from_chars(first, end, v);
  return ec == std::errc() && stop == end;
}

}  // namespace

PatchList read_patch_list(std::istream& in, const std::string& name, int ranks) {
  PatchList list;
  std::vector<int> lines;  // of each patch, for messages
  int refinement = 0, dim = 0;
  std::string text;
  std::vector<char> buf;
  long cells = 0;  // over the file
  int line = 1;
  for (; next_line(in, buf, text, name, line); ++line) {
    // A UTF-8 byte-order mark, which some editors write first (a deck may have one too).
    if (line == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
    std::istringstream fields(text.substr(0, text.find('#')));
    std::vector<std::string> f;
    for (std::string word; fields >> word;)
      f.push_back(word);
    if (f.empty()) continue;
    if (f[0] == "refinement" || f[0] == "dim") {
      if ((f[0] == "refinement" ? refinement : dim) != 0)
        bad(name, line, f[0] + ": given twice");
      if (!list.patches.empty())
        bad(name, line, f[0] + ": expected before the first patch");
      long long v = 0;
      if (f.size() != 2 || !read_whole(f[1], v))
        bad(name, line, f[0] + ": expected one integer");
      if (f[0] == "refinement" && v < 2) bad(name, line, "refinement: expected r >= 2");
      if (f[0] == "refinement" && v > (1 << 30))
        bad(name, line, "refinement: expected r <= 2^30");
      if (f[0] == "dim" && v != 2 && v != 3) bad(name, line, "dim: expected 2 or 3");
      (f[0] == "refinement" ? refinement : dim) = int(v);
      continue;
    }
    if (refinement == 0)
      bad(name, line, "expected 'refinement r' before the first patch");
    if (f.size() < 8)
      bad(name, line, "expected 'level lo_i lo_j lo_k hi_i hi_j hi_k cost [owner]'");
    if (f.size() > 9) bad(name, line, "unexpected '" + f[9] + "' after the owner");
    // Each field read whole and on its own, so that a malformed one is named (a stream
    // stops inside it and blames the next field, or drops an owner that overflows).
    PatchMeta p;
    long long v = 0;
    if (!read_whole(f[0], v) || v < 0 || v > 30)
      bad(name, line, "level: expected 0..30, got " + f[0]);
    p.level = int(v);
    for (int k = 0; k < 6; ++k) {
      const std::string& word = f[size_t(k) + 1];
      if (!read_whole(word, v))
        bad(name, line, fmt::format("box: expected integer indices, got {}", word));
      if (v < -kMaxIndex || v > kMaxIndex)
        bad(name, line, fmt::format("box: expected indices in [-{0}, {0}]", kMaxIndex));
      (k < 3 ? p.box.lo : p.box.hi)[k % 3] = int(v);
    }
    if (!read_whole(f[7], p.cost) || !(p.cost >= 0) || std::isinf(p.cost))
      bad(name, line, "cost: expected a finite number >= 0, got " + f[7]);
    p.owner = -1;
    if (f.size() == 9 && (!read_whole(f[8], v) || v < -1 || v >= ranks))
      bad(name, line,
          fmt::format("owner: expected -1 (none) or a rank < {} (--ranks), got {}", ranks,
                      f[8]));
    if (f.size() == 9) p.owner = int(v);
    if (p.box.empty()) bad(name, line, "box: expected lo <= hi in every direction");
    cells += box_cells(p.box, name, line);
    if (cells > kMaxFileCells)
      bad(name, line,
          fmt::format("box: expected at most 2^52 = {} cells over the file, the boxes up "
                      "to this line hold {}",
                      kMaxFileCells, cells));
    if (dim == 2 && (p.box.lo[2] != 0 || p.box.hi[2] != 0))
      bad(name, line, "box: expected k = 0 in 2D (dim 2)");
    p.refinement = 1;
    for (int l = 0; l < p.level; ++l) {
      if (p.refinement > (1 << 30) / refinement)
        bad(name, line, "level: refinement^level overflows");
      p.refinement *= refinement;
    }
    list.patches.push_back(p);
    lines.push_back(line);
  }
  if (in.bad()) bad(name, line, "cannot read the line");
  if (refinement == 0) throw UserError(name + ": missing the 'refinement r' line");
  list.refinement = refinement;
  if (dim == 0) {
    dim = 2;
    for (const PatchMeta& p : list.patches)
      if (p.box.lo[2] != 0 || p.box.hi[2] != 0) dim = 3;
  }
  list.dim = dim;
  check_disjoint(list.patches, lines, name);
  double sum = 0;
  for (const PatchMeta& p : list.patches)
    sum += p.cost;
  // A total of 0 leaves nothing to divide among the ranks (Zoltan's HSFC fails on it).
  if (!std::isfinite(sum) || !(sum > 0))
    throw UserError(name + ": cost: the costs sum to " + fmt::format("{}", sum) +
                    ", expected a finite total > 0");
  return list;
}

PatchList read_patch_file(const std::string& path, int ranks) {
  // A directory opens as a stream that reads nothing, which would read as a file missing
  // its 'refinement' line.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UserError(path + ": is a directory, expected a patch file");
  std::ifstream in(path);
  if (!in)
    throw UserError(path + ": cannot open the patch file (" + std::strerror(errno) + ")");
  return read_patch_list(in, path, ranks);
}

void write_patch_list(std::ostream& out, const PatchList& list) {
  bool owners = false;
  for (const PatchMeta& p : list.patches)
    owners = owners || p.owner >= 0;
  out << "# balance_lab patch list: " << list.patches.size() << " patches\n"
      << "# level lo_i lo_j lo_k hi_i hi_j hi_k cost" << (owners ? " owner" : "") << "\n"
      << "refinement " << list.refinement << "\ndim " << list.dim << "\n";
  for (const PatchMeta& p : list.patches) {
    const Box& b = p.box;
    out << fmt::format("{} {} {} {} {} {} {} {}", p.level, b.lo[0], b.lo[1], b.lo[2],
                       b.hi[0], b.hi[1], b.hi[2], p.cost);
    if (owners) out << ' ' << p.owner;
    out << '\n';
  }
}

void write_patch_file(const std::string& path, const PatchList& list) {
  std::ofstream out(path);
  if (!out) throw UserError(path + ": cannot write the patch file");
  write_patch_list(out, list);
  if (!out) throw UserError(path + ": error while writing the patch file");
}

}  // namespace pw
