#include "amr/io/checkpoint_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "amr/box_index.hpp"
#include "amr/box_list.hpp"

namespace pw {

namespace {

[[noreturn]] void bad(int l, const std::string& what) {
  throw std::runtime_error(fmt::format("level_{}: {}", l, what));
}

bool aligned(int x, int bf) {
  return ((x % bf) + bf) % bf == 0;
}

void check_level_boxes(int l, const BoxList& boxes, const AmrConfig& cfg) {
  const LevelGeom geom = cfg.geom(l);
  const int bf = cfg.blocking_factor;
  for (size_t p = 0; p < boxes.size(); ++p) {
    const Box& b = boxes[p];
    if (b.empty() || (b & geom.domain) != b)
      bad(l, fmt::format("box {} ({}) is empty or outside the domain {}", p, to_string(b),
                         to_string(geom.domain)));
    for (int d = 0; d < geom.dim; ++d)
      if (!aligned(b.lo[d], bf) || !aligned(b.hi[d] + 1, bf))
        bad(l, fmt::format("box {} ({}) is not aligned to amr.blocking_factor ({})", p,
                           to_string(b), bf));
  }
  const BoxIndex index(boxes);
  for (size_t p = 0; p < boxes.size(); ++p)
    for (int q : index.query(boxes[p]))
      if (size_t(q) != p)
        bad(l,
            fmt::format("boxes {} ({}) and {} ({}) overlap", std::min(p, size_t(q)),
                        to_string(boxes[std::min(p, size_t(q))]), std::max(p, size_t(q)),
                        to_string(boxes[std::max(p, size_t(q))])));
}

/// Level l's boxes (l >= 1) against level l-1's.
void check_nesting(int l, const BoxList& fine, const BoxList& coarse,
                   const AmrConfig& cfg, int nghost) {
  const LevelGeom cg = cfg.geom(l - 1);
  const int r = cfg.ref_ratio[size_t(l - 1)];
  // As the regrid (Hierarchy::tag_and_cluster) keeps it at least.
  const int reach = (nghost + r - 1) / r + 1;
  const IntVect g = IntVect::in_dims(cg.dim, reach, 0);
  BoxList images = coarse;
  for (const IntVect& s : periodic_shifts(cg.domain, cg.periodic))
    for (const Box& b : coarse)
      images.push_back(shift(b, s));
  Box allowed = cg.domain;  // beyond a periodic side, the images hold the data
  for (int d = 0; d < cg.dim; ++d)
    if (cg.periodic[d]) allowed = grow(allowed, d, reach);
  const BoxIndex index(images);
  for (size_t p = 0; p < fine.size(); ++p) {
    const Box need = grow(coarsen(fine[p], cfg.ratio(l - 1)), g) & allowed;
    BoxList near;
    for (int q : index.query(need))
      near.push_back(images[size_t(q)]);
    if (!difference(BoxList{need}, near).empty())
      bad(l,
          fmt::format(
              "box {} ({}) is not properly nested in level {} (its coarse cells and {} "
              "around them must lie on level-{} boxes)",
              p, to_string(fine[p]), l - 1, reach, l - 1));
  }
}

}  // namespace

void check_layouts(const std::vector<LevelLayout>& layouts, const AmrConfig& cfg,
                   int nghost) {
  for (size_t l = 0; l < layouts.size(); ++l)
    check_level_boxes(int(l), layouts[l].boxes, cfg);
  for (size_t l = 1; l < layouts.size(); ++l)
    check_nesting(int(l), layouts[l].boxes, layouts[l - 1].boxes, cfg, nghost);
}

void check_clocks(const RestoreState& state, int step) {
  if (step < 0)
    throw std::runtime_error(fmt::format("checkpoint: step is {}, expected >= 0", step));
  if (state.cell_updates < 0)
    throw std::runtime_error(
        fmt::format("checkpoint: cell_updates is {}, expected >= 0", state.cell_updates));
  if (state.regrids < 0)
    throw std::runtime_error(
        fmt::format("checkpoint: regrids is {}, expected >= 0", state.regrids));
  for (long n : state.physics_counters)
    if (n < 0)
      throw std::runtime_error(
          fmt::format("checkpoint: a physics counter is {}, expected >= 0", n));
  for (size_t l = 0; l < state.clocks.size(); ++l) {
    const LevelClock& c = state.clocks[l];
    const int L = int(l);
    if (c.steps < 0) bad(L, fmt::format("steps is {}, expected >= 0", c.steps));
    if (c.last_regrid_step < 0 || c.last_regrid_step > c.steps)
      bad(L, fmt::format("last_regrid_step is {}, expected 0 to steps ({})",
                         c.last_regrid_step, c.steps));
    if (!std::isfinite(c.t_old) || !std::isfinite(c.t_new))
      bad(L, fmt::format("t_old = {} and t_new = {}: expected finite times", c.t_old,
                         c.t_new));
    if (!(0 <= c.t_old && c.t_old <= c.t_new))
      bad(L, fmt::format("t_old = {:.17g} and t_new = {:.17g}: expected 0 <= t_old <= "
                         "t_new",
                         c.t_old, c.t_new));
  }
  if (state.clocks.empty()) return;
  const LevelClock& c0 = state.clocks.front();
  if (c0.steps != step)
    bad(0, fmt::format("steps is {}, the checkpoint's step is {}: expected the same",
                       c0.steps, step));
  for (size_t l = 1; l < state.clocks.size(); ++l) {
    const double t = state.clocks[l].t_new;
    if (std::abs(t - c0.t_new) > 1e-9 * std::abs(c0.t_new))
      bad(int(l), fmt::format("t_new = {:.17g} differs from level 0's ({:.17g}): a dump "
                              "holds every level at the same time",
                              t, c0.t_new));
  }
}

}  // namespace pw
