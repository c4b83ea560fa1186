#include "balance/lab/patch_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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

}  // namespace

PatchList read_patch_list(std::istream& in, const std::string& name) {
  PatchList list;
  std::vector<int> lines;  // of each patch, for messages
  int refinement = 0, dim = 0;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    text = text.substr(0, text.find('#'));
    std::istringstream fields(text);
    std::string first;
    if (!(fields >> first)) continue;
    if (first == "refinement" || first == "dim") {
      if ((first == "refinement" ? refinement : dim) != 0)
        bad(name, line, first + ": given twice");
      if (!list.patches.empty())
        bad(name, line, first + ": expected before the first patch");
      int v = 0;
      std::string extra;
      if (!(fields >> v) || (fields >> extra))
        bad(name, line, first + ": expected one integer");
      if (first == "refinement" && v < 2) bad(name, line, "refinement: expected r >= 2");
      if (first == "dim" && v != 2 && v != 3) bad(name, line, "dim: expected 2 or 3");
      (first == "refinement" ? refinement : dim) = v;
      continue;
    }
    if (refinement == 0)
      bad(name, line, "expected 'refinement r' before the first patch");
    PatchMeta p;
    std::istringstream all(text);
    if (!(all >> p.level >> p.box.lo[0] >> p.box.lo[1] >> p.box.lo[2] >> p.box.hi[0] >>
          p.box.hi[1] >> p.box.hi[2] >> p.cost))
      bad(name, line, "expected 'level lo_i lo_j lo_k hi_i hi_j hi_k cost [owner]'");
    if (!(all >> p.owner)) {
      if (!all.eof()) bad(name, line, "owner: expected an integer");
      p.owner = -1;
    }
    std::string extra;
    all.clear();
    if (all >> extra) bad(name, line, "unexpected '" + extra + "' after the owner");
    if (p.level < 0 || p.level > 30) bad(name, line, "level: expected 0..30");
    for (int d = 0; d < 3; ++d)
      if (std::abs(p.box.lo[d]) > kMaxIndex || std::abs(p.box.hi[d]) > kMaxIndex)
        bad(name, line, fmt::format("box: expected indices in [-{0}, {0}]", kMaxIndex));
    if (p.box.empty()) bad(name, line, "box: expected lo <= hi in every direction");
    if (dim == 2 && (p.box.lo[2] != 0 || p.box.hi[2] != 0))
      bad(name, line, "box: expected k = 0 in 2D (dim 2)");
    if (!(p.cost >= 0) || std::isinf(p.cost))
      bad(name, line, "cost: expected a finite number >= 0");
    if (p.owner < -1) bad(name, line, "owner: expected a rank >= 0 (or -1 for none)");
    p.refinement = 1;
    for (int l = 0; l < p.level; ++l) {
      if (p.refinement > (1 << 30) / refinement)
        bad(name, line, "level: refinement^level overflows");
      p.refinement *= refinement;
    }
    list.patches.push_back(p);
    lines.push_back(line);
  }
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
  if (!std::isfinite(sum))
    throw UserError(name + ": cost: the costs sum to " + fmt::format("{}", sum) +
                    ", expected a finite total");
  return list;
}

PatchList read_patch_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot open the patch file");
  return read_patch_list(in, path);
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
