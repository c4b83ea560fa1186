#include "amr/fine_boxes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "amr/cluster.hpp"

namespace pw {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("make_fine_boxes: " + what);
}

/// Level-l cells per clustering block, so that a block refines to one blocking-factor
/// block of level l+1 (or to one refined cell when the ratio is the larger).
IntVect block_size(const FineBoxParams& p, const LevelGeom& geom) {
  require(geom.dim >= 1 && geom.dim <= 3, "dim must be 1, 2 or 3");
  require(p.blocking_factor >= 1, "blocking_factor must be >= 1");
  require(
      p.max_grid_size >= p.blocking_factor && p.max_grid_size % p.blocking_factor == 0,
      "max_grid_size must be a multiple of blocking_factor");
  require(p.n_error_buf >= 0 && p.n_proper >= 0, "n_error_buf and n_proper must be >= 0");
  IntVect c = IntVect::uniform(1);
  for (int d = 0; d < 3; ++d)
    require(d < geom.dim ? p.ratio[d] >= 1 : p.ratio[d] == 1,
            "ratio must be >= 1, and 1 in unused directions");
  for (int d = 0; d < geom.dim; ++d) {
    const int r = p.ratio[d];
    require(p.blocking_factor % r == 0 || r % p.blocking_factor == 0,
            "blocking_factor and ratio must divide one another");
    c[d] = std::max(1, p.blocking_factor / r);
    const int lo = geom.domain.lo[d];
    require(lo - floor_div(lo, c[d]) * c[d] == 0 && geom.domain.size()[d] % c[d] == 0,
            "level domain not aligned to blocking_factor / ratio");
    // Nesting looks only at the nearest periodic images.
    require(!geom.periodic[d] || p.n_proper <= geom.domain.size()[d],
            "n_proper longer than a periodic domain");
  }
  return c;
}

/// Periodicity of the directions in use: a 2D run must not see images in z.
void used_periodicity(const LevelGeom& geom, bool per[3]) {
  for (int d = 0; d < 3; ++d)
    per[d] = d < geom.dim && geom.periodic[d];
}

/// Wrap q into box dom along periodic directions; false if it lies outside otherwise.
bool wrap_into(IntVect& q, const Box& dom, const bool per[3]) {
  for (int d = 0; d < 3; ++d) {
    const int n = dom.size()[d];
    if (per[d])
      q[d] = dom.lo[d] + (q[d] - dom.lo[d] - floor_div(q[d] - dom.lo[d], n) * n);
  }
  return dom.contains(q);
}

/// The blocks of the domain's block grid that given (unwrapped) blocks wrap to, periodic
/// images wrapped and blocks beyond a physical boundary dropped: marks on the grid, or a
/// list sorted at the end when the grid is too big to mark. The domain is block-aligned,
/// so wrapping blocks is the same as wrapping cells.
class BlockMarks {
 public:
  BlockMarks(const LevelGeom& geom, const IntVect& c)
      : cdom_(coarsen(geom.domain, c)), n_(cdom_.size()) {
    used_periodicity(geom, per_);
    dense_ = cdom_.num_cells() <= (long(1) << 26);
    if (dense_) mark_.assign(size_t(cdom_.num_cells()), 0);
  }
  /// Every block of cb.
  void add(const Box& cb) {
    for (int k = cb.lo[2]; k <= cb.hi[2]; ++k)
      for (int j = cb.lo[1]; j <= cb.hi[1]; ++j)
        for (int i = cb.lo[0]; i <= cb.hi[0]; ++i) {
          IntVect q{i, j, k};
          if (!wrap_into(q, cdom_, per_)) continue;
          if (!dense_) {
            list_.push_back(q);
            continue;
          }
          const IntVect o = q - cdom_.lo;
          mark_[size_t((long(o[2]) * n_[1] + o[1]) * n_[0] + o[0])] = 1;
        }
  }
  /// The blocks added, in canonical order, without duplicates.
  std::vector<IntVect> sorted() {
    if (!dense_) {
      std::sort(list_.begin(), list_.end());
      list_.erase(std::unique(list_.begin(), list_.end()), list_.end());
      return list_;
    }
    std::vector<IntVect> blocks;
    for (int k = 0; k < n_[2]; ++k)
      for (int j = 0; j < n_[1]; ++j)
        for (int i = 0; i < n_[0]; ++i)
          if (mark_[size_t((long(k) * n_[1] + j) * n_[0] + i)])
            blocks.push_back(cdom_.lo + IntVect{i, j, k});
    return blocks;
  }

 private:
  Box cdom_;
  IntVect n_;
  bool per_[3];
  bool dense_;
  std::vector<char> mark_;
  std::vector<IntVect> list_;
};

/// The blocks that the tags reach (TagReach), wrapped, sorted, without duplicates.
std::vector<IntVect> buffered_blocks(const std::vector<IntVect>& tags,
                                     const LevelGeom& geom, const TagReach& reach) {
  BlockMarks marks(geom, reach.block_size);
  // Tags mostly come row by row (a patch's cells in order), and neighbours in a row
  // mostly reach the same blocks: a tag whose blocks are the previous tag's adds nothing.
  Box last;
  for (const IntVect& t : tags) {
    const Box cb = reach.blocks(t);
    if (cb == last) continue;
    last = cb;
    marks.add(cb);
  }
  return marks.sorted();
}

BoxList nested_blocks(const BoxList& coarse_boxes, const LevelGeom& geom, int n_proper,
                      const IntVect& c) {
  bool per[3];
  used_periodicity(geom, per);
  std::vector<IntVect> shifts = periodic_shifts(geom.domain, per);
  shifts.push_back(IntVect{0, 0, 0});
  const IntVect g = IntVect::in_dims(geom.dim, n_proper, 0);
  BoxList cuts;
  for (const Box& u : difference(BoxList{geom.domain}, coarse_boxes))
    for (const IntVect& s : shifts) {
      const Box near = grow(shift(u, s), g) & geom.domain;
      if (!near.empty()) cuts.push_back(coarsen(near, c));
    }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return difference(BoxList{coarsen(geom.domain, c)}, cuts);
}

/// The sorted blocks that lie in the disjoint boxes of `region`, found row by row so the
/// cost follows the region's rows, not blocks x boxes.
std::vector<IntVect> blocks_in(const std::vector<IntVect>& blocks,
                               const BoxList& region) {
  std::vector<IntVect> kept;
  for (const Box& b : region)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j) {
        auto it = std::lower_bound(blocks.begin(), blocks.end(), IntVect{b.lo[0], j, k});
        for (;
             it != blocks.end() && (*it)[2] == k && (*it)[1] == j && (*it)[0] <= b.hi[0];
             ++it)
          kept.push_back(*it);
      }
  return kept;
}

}  // namespace

TagReach tag_reach(const FineBoxParams& p, const LevelGeom& geom) {
  TagReach r;
  r.block_size = block_size(p, geom);
  r.buf = IntVect::in_dims(geom.dim, p.n_error_buf, 0);
  // Unbounded where a grown cell wraps; clipped where it would leave the domain for
  // good, or cover a periodic direction whole (then its cost is the domain's blocks,
  // not the buffer's).
  const int far = 1 << 29;
  r.clip = Box{IntVect::uniform(-far), IntVect::uniform(far)};
  bool per[3];
  used_periodicity(geom, per);
  for (int d = 0; d < geom.dim; ++d)
    if (!per[d] || 2 * p.n_error_buf + 1 >= geom.domain.size()[d]) {
      r.clip.lo[d] = geom.domain.lo[d];
      r.clip.hi[d] = geom.domain.hi[d];
    }
  return r;
}

namespace {

/// make_fine_boxes from the sorted blocks the buffered tags reach.
BoxList fine_boxes_of(const std::vector<IntVect>& blocks, const BoxList& coarse_boxes,
                      const LevelGeom& geom, const FineBoxParams& p, const IntVect& c) {
  const BoxList allowed = nested_blocks(coarse_boxes, geom, p.n_proper, c);
  const std::vector<IntVect> nested = blocks_in(blocks, allowed);
  if (nested.empty()) return {};

  const IntVect to_fine = c * p.ratio;
  const IntVect max_size = IntVect::in_dims(geom.dim, p.max_grid_size, 1);
  const IntVect blocking = IntVect::in_dims(geom.dim, p.blocking_factor, 1);
  BoxList out;
  // Clusters are disjoint and so are the allowed boxes, hence so are all the pieces.
  for (const Box& cluster : berger_rigoutsos(nested, p.grid_eff, geom.dim))
    for (const Box& piece : intersection(allowed, cluster)) {
      const BoxList chopped = chop(refine(piece, to_fine), max_size, blocking);
      out.insert(out.end(), chopped.begin(), chopped.end());
    }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

BoxList make_fine_boxes(const std::vector<IntVect>& tags, const BoxList& coarse_boxes,
                        const LevelGeom& geom, const FineBoxParams& p) {
  const TagReach reach = tag_reach(p, geom);
  if (tags.empty()) return {};
  return fine_boxes_of(buffered_blocks(tags, geom, reach), coarse_boxes, geom, p,
                       reach.block_size);
}

BoxList make_fine_boxes_from_blocks(const std::vector<IntVect>& blocks,
                                    const BoxList& coarse_boxes, const LevelGeom& geom,
                                    const FineBoxParams& p) {
  const IntVect c = block_size(p, geom);
  if (blocks.empty()) return {};
  BlockMarks marks(geom, c);
  for (const IntVect& b : blocks)
    marks.add(Box{b, b});
  return fine_boxes_of(marks.sorted(), coarse_boxes, geom, p, c);
}

}  // namespace pw
