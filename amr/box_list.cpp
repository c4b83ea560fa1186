#include "amr/box_list.hpp"

#include <sstream>

#include <algorithm>
#include <ostream>

namespace pw {

std::ostream& operator<<(std::ostream& os, const Box& b) {
  return os << '[' << b.lo << ' ' << b.hi << ']';
}

std::string to_string(const Box& b) {
  std::ostringstream os;
  os << b;
  return os.str();
}

namespace {

/// Append the cells of a not in b to out, as at most 6 disjoint boxes.
void append_difference(const Box& a, const Box& b, BoxList& out) {
  if (a.empty()) return;
  if (!intersects(a, b)) {
    out.push_back(a);
    return;
  }
  Box rest = a;
  // Peel off slabs below and above b in each direction, z first.
  for (int d = 2; d >= 0; --d) {
    if (rest.lo[d] < b.lo[d]) {
      Box s = rest;
      s.hi[d] = b.lo[d] - 1;
      out.push_back(s);
      rest.lo[d] = b.lo[d];
    }
    if (rest.hi[d] > b.hi[d]) {
      Box s = rest;
      s.lo[d] = b.hi[d] + 1;
      out.push_back(s);
      rest.hi[d] = b.hi[d];
    }
  }
}

}  // namespace

BoxList difference(const Box& a, const Box& b) {
  BoxList out;
  append_difference(a, b, out);
  return out;
}

BoxList difference(const BoxList& a, const BoxList& b) {
  // Two lists swapped cut after cut keep their capacity: no allocation per piece.
  BoxList cur = a, next;
  for (const Box& cut : b) {
    next.clear();
    for (const Box& x : cur)
      append_difference(x, cut, next);
    cur.swap(next);
  }
  return cur;
}

BoxList intersection(const BoxList& a, const Box& b) {
  BoxList out;
  for (const Box& x : a) {
    Box i = x & b;
    if (!i.empty()) out.push_back(i);
  }
  return out;
}

long num_cells(const BoxList& a) {
  long n = 0;
  for (const Box& b : a)
    n += b.num_cells();
  return n;
}

Box bounding_box(const BoxList& a) {
  Box h;
  for (const Box& b : a)
    h = hull(h, b);
  return h;
}

BoxList chop(const Box& b, const IntVect& max_size, const IntVect& blocking) {
  BoxList cur{b};
  for (int d = 0; d < 3; ++d) {
    BoxList next;
    for (const Box& x : cur) {
      const int n = x.size()[d];
      if (n <= max_size[d]) {
        next.push_back(x);
        continue;
      }
      // Split into the fewest pieces that fit, with sizes in units of the blocking factor
      // spread as evenly as possible.
      const int blocks = n / blocking[d];
      const int max_blocks = std::max(1, max_size[d] / blocking[d]);
      const int pieces = (blocks + max_blocks - 1) / max_blocks;
      int start = x.lo[d];
      for (int p = 0; p < pieces; ++p) {
        const int nb = blocks / pieces + (p < blocks % pieces ? 1 : 0);
        Box piece = x;
        piece.lo[d] = start;
        piece.hi[d] = start + nb * blocking[d] - 1;
        start = piece.hi[d] + 1;
        next.push_back(piece);
      }
    }
    cur.swap(next);
  }
  return cur;
}

std::vector<IntVect> periodic_shifts(const Box& domain, const bool periodic[3]) {
  std::vector<IntVect> shifts;
  const IntVect len = domain.size();
  for (int sz = -1; sz <= 1; ++sz)
    for (int sy = -1; sy <= 1; ++sy)
      for (int sx = -1; sx <= 1; ++sx) {
        const int s[3] = {sx, sy, sz};
        bool ok = !(sx == 0 && sy == 0 && sz == 0);
        for (int d = 0; d < 3; ++d)
          if (s[d] != 0 && !periodic[d]) ok = false;
        if (ok) shifts.push_back({sx * len[0], sy * len[1], sz * len[2]});
      }
  return shifts;
}

}  // namespace pw
