// Regridding: tag level l, cluster the tags of all ranks into level-(l+1) boxes (the same
// on every rank, whatever the rank count), fill the new level, and repeat up the
// hierarchy, each new level filled on the owners the planner would give it; then the
// planner decides owners for the whole hierarchy and the data moves, if it must.
#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "amr/fine_boxes.hpp"
#include "amr/hierarchy.hpp"
#include "amr/run_failure.hpp"

namespace pw {

BoxList Hierarchy::tag_and_cluster(int l) {
  Level& L = levels_[l];
  if (physics_.tag_reads_ghosts()) fill_ghosts(l, L.t_new);
  std::vector<int> owned;
  for (size_t p = 0; p < L.layout.size(); ++p)
    if (L.owns(int(p), comm_.rank())) owned.push_back(int(p));
  const LevelTags flags(L.layout.boxes, owned);
  physics_.tag(L.geom, flags, L.u_new.refs(), l, L.t_new);
  FineBoxParams p;
  p.ratio = cfg_.ratio(l);
  p.blocking_factor = cfg_.blocking_factor;
  p.max_grid_size = cfg_.max_grid_size;
  p.n_error_buf = cfg_.n_error_buf;
  // Coarse-fine ghost interpolation reads one coarse cell beyond the ghosts' coarse
  // cells, and those must lie on level l.
  p.n_proper =
      std::max(cfg_.n_proper, (nghost_ + cfg_.ref_ratio[l] - 1) / cfg_.ref_ratio[l] + 1);
  p.grid_eff = cfg_.grid_eff;
  // Every rank gathers the blocks the tags reach, reduced on each owner's device: one
  // entry per patch and block, where a run's dense tags gave one per cell (and
  // make_fine_boxes cost 2-3% of a run going through those).
  const std::vector<int> all =
      comm_.all_gather(flags.reached_blocks(tag_reach(p, L.geom)));  // (i, j, k)
  std::vector<IntVect> blocks(all.size() / 3);
  for (size_t n = 0; n < blocks.size(); ++n)
    blocks[n] = {all[3 * n], all[3 * n + 1], all[3 * n + 2]};
  // The order depends on the rank count; make_fine_boxes_from_blocks does not depend on
  // it.
  return make_fine_boxes_from_blocks(blocks, L.layout.boxes, L.geom, p);
}

void Hierarchy::check_budget(int l, const BoxList& boxes, const std::string& when) const {
  if (budget_.bytes_per_node <= 0) return;
  const int dim = cfg_.geom0.dim;
  double bytes = 0, cells = 0;
  for (const Box& b : boxes) {
    bytes += patch_bytes(b, dim, ncomp_, nghost_, flux_storage(l));
    cells += double(b.num_cells());
  }
  for (int m = 0; m <= finest_level(); ++m)
    if (m != l)
      for (const Box& b : levels_[m].layout.boxes)
        bytes += patch_bytes(b, dim, ncomp_, nghost_, flux_storage(m));
  const std::string why = exceeds_budget(bytes, budget_);
  if (!why.empty())  // the same verdict on every rank: every rank knows every box
    throw RunFailure(fmt::format(
        "{}: level {} would have {:.4g} cells in {} patches, and the hierarchy would "
        "then need {}",
        when, l, cells, boxes.size(), why));
}

LevelLayout Hierarchy::placed(int l, BoxList boxes) {
  LevelLayout next;
  next.boxes = std::move(boxes);
  next.owner.assign(next.boxes.size(), -1);
  if (l <= finest_level()) {
    const LevelLayout& old = levels_[l].layout;
    for (size_t p = 0; p < next.boxes.size(); ++p) {
      auto it = std::find(old.boxes.begin(), old.boxes.end(), next.boxes[p]);
      if (it != old.boxes.end())
        next.owner[p] = old.owner[size_t(it - old.boxes.begin())];
    }
  }
  if (std::find(next.owner.begin(), next.owner.end(), -1) == next.owner.end())
    return next;
  std::vector<LevelLayout> levels;
  for (int m = 0; m < l; ++m)
    levels.push_back(levels_[m].layout);
  levels.push_back(next);
  std::vector<int> owner = planner_.place(levels, l);
  if (!owner.empty() && owner.size() != next.size())
    throw std::logic_error("LayoutPlanner::place: one owner per box expected");
  for (size_t p = 0; p < next.size(); ++p) {
    // A patch that exists keeps its owner: moving it is the balancing step's to do (and
    // to count).
    if (next.owner[p] >= 0) continue;
    next.owner[p] = owner.empty() ? int(p % size_t(comm_.size())) : owner[p];
    if (next.owner[p] < 0 || next.owner[p] >= comm_.size())
      throw std::logic_error("LayoutPlanner::place: owner out of range");
  }
  return next;
}

void Hierarchy::regrid(int base) {
  report_costs();
  {
    PhaseTimers::Scope timer(timers_, "regrid");
    for (int l = base; l < cfg_.max_level && l <= finest_level(); ++l) {
      BoxList boxes = tag_and_cluster(l);
      if (boxes.empty()) {
        levels_.resize(size_t(l + 1));
        break;
      }
      check_budget(l + 1, boxes, fmt::format("regridding at step {}", levels_[0].steps));
      const LevelLayout next = placed(l + 1, std::move(boxes));
      const bool exists = l + 1 <= finest_level();
      if (!exists) {
        Level fresh = make_level(l + 1, LevelLayout{});
        fresh.t_old = fresh.t_new = levels_[l].t_new;
        levels_.push_back(std::move(fresh));
      }
      if (next != levels_[l + 1].layout) remap(l + 1, next);
      ++regrids_;
    }
    for (int l = base; l <= finest_level(); ++l)
      levels_[l].last_regrid_step = levels_[l].steps;
  }
  // Level 0 has no coarser level waiting on it at the start of its step; any other base
  // level is mid-way through a coarser step and keeps its layout.
  balance(base == 0 ? 0 : base + 1);
}

}  // namespace pw
