#include "amr/cluster.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace pw {

namespace {

using TagIter = std::vector<IntVect>::iterator;

Box tag_bounds(TagIter first, TagIter last) {
  Box b{*first, *first};
  for (TagIter it = first; it != last; ++it) {
    b.lo = min(b.lo, *it);
    b.hi = max(b.hi, *it);
  }
  return b;
}

/// A cut of a box along `dir`: cells with index < `at` go to the lower part.
struct Cut {
  int dir = -1;
  int at = 0;
  long strength = 0;  // inflections only: jump of the Laplacian across the cut
  int balance = -1;   // cells on the smaller side: how near the middle the cut is
};

/// Stronger first, then nearer the middle; equal cuts keep the earlier (lower direction).
bool better(const Cut& a, const Cut& b) {
  if (b.dir < 0) return true;
  if (a.strength != b.strength) return a.strength > b.strength;
  return a.balance > b.balance;
}

/// signature[d][i]: number of tags in plane lo[d] + i of box b.
std::vector<std::vector<long>> signatures(TagIter first, TagIter last, const Box& b,
                                          int dim) {
  std::vector<std::vector<long>> sig(dim);
  for (int d = 0; d < dim; ++d)
    sig[d].assign(b.size()[d], 0);
  for (TagIter it = first; it != last; ++it)
    for (int d = 0; d < dim; ++d)
      ++sig[d][(*it)[d] - b.lo[d]];
  return sig;
}

/// The empty plane nearest the middle. The box is tight, so end planes are never empty.
Cut find_hole(const std::vector<std::vector<long>>& sig, const Box& b) {
  Cut best;
  for (int d = 0; d < int(sig.size()); ++d) {
    const int n = int(sig[d].size());
    for (int i = 1; i < n - 1; ++i) {
      if (sig[d][i] != 0) continue;
      const Cut c{d, b.lo[d] + i, 0, std::min(i, n - 1 - i)};
      if (better(c, best)) best = c;
    }
  }
  return best;
}

/// The largest sign change of the signature's Laplacian: an edge of a tagged feature.
Cut find_inflection(const std::vector<std::vector<long>>& sig, const Box& b) {
  Cut best;
  for (int d = 0; d < int(sig.size()); ++d) {
    const std::vector<long>& s = sig[d];
    const int n = int(s.size());
    // The cut between planes i and i+1 compares the Laplacians at i and i+1.
    for (int i = 1; i + 2 < n; ++i) {
      const long l0 = s[i - 1] - 2 * s[i] + s[i + 1];
      const long l1 = s[i] - 2 * s[i + 1] + s[i + 2];
      if ((l0 < 0 && l1 > 0) || (l0 > 0 && l1 < 0)) {
        const Cut c{d, b.lo[d] + i + 1, std::labs(l1 - l0), std::min(i + 1, n - 1 - i)};
        if (better(c, best)) best = c;
      }
    }
  }
  return best;
}

/// Halve the longest used direction; no cut (dir < 0) for a single cell.
Cut find_bisection(const Box& b, int dim) {
  const IntVect s = b.size();
  int d = 0;
  for (int e = 1; e < dim; ++e)
    if (s[e] > s[d]) d = e;
  if (s[d] < 2) return Cut{};
  return Cut{d, b.lo[d] + s[d] / 2, 0, s[d] / 2};
}

Cut choose_cut(TagIter first, TagIter last, const Box& b, int dim) {
  const std::vector<std::vector<long>> sig = signatures(first, last, b, dim);
  Cut c = find_hole(sig, b);
  if (c.dir < 0) c = find_inflection(sig, b);
  if (c.dir < 0) c = find_bisection(b, dim);
  return c;
}

}  // namespace

BoxList berger_rigoutsos(std::vector<IntVect> tags, double efficiency, int dim) {
  // The counts, and so the cuts, must see the set of tags: no duplicates, no order.
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());

  BoxList out;
  // An explicit stack: lopsided cuts can nest deeper than the call stack should.
  std::vector<std::pair<TagIter, TagIter>> work;
  if (!tags.empty()) work.emplace_back(tags.begin(), tags.end());
  while (!work.empty()) {
    const auto [first, last] = work.back();
    work.pop_back();
    const Box b = tag_bounds(first, last);
    const double n_tags = double(last - first);
    if (n_tags >= efficiency * double(b.num_cells())) {
      out.push_back(b);
      continue;
    }
    const Cut c = choose_cut(first, last, b, dim);
    if (c.dir < 0) {
      out.push_back(b);
      continue;
    }
    // Both parts hold tags: every cut leaves a non-empty end plane on each side.
    const TagIter mid =
        std::partition(first, last, [&c](const IntVect& p) { return p[c.dir] < c.at; });
    work.emplace_back(mid, last);
    work.emplace_back(first, mid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pw
