#include "solver/composite_poisson.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "amr/level_plans.hpp"
#include "solver/mg_ops.hpp"

namespace pw {

struct CompositePoisson::Level {
  CompositeLevel shape;
  PoissonStencil stencil;    // with the domain's values
  PoissonStencil zero;       // with zero values (corrections)
  LevelData* phi = nullptr;  // the caller's, during solve()
  LevelData f, res;          // f less the removed mean; the composite residual
  LevelData e;     // a correction (one ghost layer); on a refined level its exchange sets
                   // the coarse-fine ghosts of a correction whose coarse part is zero
  LevelData up;    // level l - 1's correction interpolated to this level
  LevelData held;  // the down pass's correction (levels between)
  LevelData crse_interp;  // level l - 1 interpolated into `ratio` ghost layers
  std::unique_ptr<CoarseFineFill> prolong;  // level l - 1's correction -> up
  LevelData grad[3];                        // face gradients of phi
  BoxSet flux_faces;  // where the registers read them: coarse-fine faces only (items
                      // 3 p + d: patch p, normal d)
  FluxRegister reg;   // this level's boundary faces, for level l - 1
  std::unique_ptr<Multigrid> mg;  // homogeneous conditions: corrections

  FluxRegister::Refs grad_refs[3];  // grad's; grad[2]'s is not read in 2D
};

// A named namespace, not an unnamed one: CUDA does not support extended lambdas in
// functions of internal linkage.
namespace composite_detail {

/// y += x on y's interiors and, with keep, keep = x there: one launch.
void add_and_keep(const LevelData& y, const LevelData& x, const LevelData* keep) {
  const mg::Refs yr = y.refs(), xr = x.refs(), kr = keep ? keep->refs() : mg::Refs();
  const bool keeps = keep != nullptr;
  for_each_box_row(
      "composite::add_and_keep", y.interiors(),
      KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const Field3 ya = yr(p).c0, xa = xr(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          ya(i, j, k) += xa(i, j, k);
        if (!keeps) return;
        const Field3 ka = kr(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          ka(i, j, k) = xa(i, j, k);
      });
}

/// The way up's sums on the interiors, in one launch, each as mg::axpy with 1 (the same
/// bits): phi += up, then phi += e; with held, e += up, then e += held.
void add_up(const LevelData& phi, const LevelData& up, const LevelData& e,
            const LevelData* held) {
  const mg::Refs pr = phi.refs(), ur = up.refs(), er = e.refs(),
                 hr = held ? held->refs() : mg::Refs();
  const bool holds = held != nullptr;
  for_each_box_row(
      "composite::add_up", phi.interiors(),
      KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const Field3 pa = pr(p).c0, ua = ur(p).c0, ea = er(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i) {
          pa(i, j, k) += ua(i, j, k);
          pa(i, j, k) += ea(i, j, k);
        }
        if (!holds) return;
        const Field3 ha = hr(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i) {
          ea(i, j, k) += ua(i, j, k);
          ea(i, j, k) += ha(i, j, k);
        }
      });
}

}  // namespace composite_detail

namespace {

/// log2 of a refinement ratio (a power of two).
int log2_of(int ratio) {
  int k = 0;
  while ((1 << k) < ratio)
    ++k;
  return k;
}

}  // namespace

CompositePoisson::CompositePoisson(const std::vector<CompositeLevel>& levels,
                                   const PoissonBc& bc, const MgConfig& cfg,
                                   const Comm& comm)
    : cfg_(cfg),
      bc_(bc),
      zero_bcs_(bc.homogeneous().as_bcs()),
      comm_(comm),
      singular_(bc.singular(levels.at(0).geom)) {
  const int me = comm.rank();
  MgConfig quiet = cfg;
  quiet.verbose = false;
  for (size_t l = 0; l < levels.size(); ++l) {
    const CompositeLevel& s = levels[l];
    auto L = std::make_unique<Level>();
    L->shape = s;
    L->stencil = mg::stencil(s.geom, bc);
    L->zero = mg::stencil(s.geom, bc.homogeneous());
    L->f = LevelData("composite::f", s.layout, s.geom, 1, IntVect{}, me);
    L->res = L->f.like("composite::res");
    L->e = LevelData("composite::e", s.layout, s.geom, 1,
                     IntVect::in_dims(s.geom.dim, 1, 0), me);
    for (int d = 0; d < s.geom.dim; ++d)
      L->grad[d] = LevelData("composite::grad", s.layout, s.geom, 1, IntVect{}, me, d);
    for (int d = 0; d < 3; ++d)
      L->grad_refs[d] = L->grad[d < s.geom.dim ? d : 0].refs();
    if (l > 0) {
      const CompositeLevel& below = levels[l - 1];
      L->reg = FluxRegister(s.layout, below.layout, below.geom, below.ratio, 1, me);
      // Not like(e): its coarse-fine ghosts come from the correction below.
      L->up = LevelData("composite::up", s.layout, s.geom, 1,
                        IntVect::in_dims(s.geom.dim, 1, 0), me);
      const LevelData::InsideRule rule = mg::composite_cf_rule(below.ratio[0]);
      L->e.set_coarse_fine_from_inside(rule.w1, rule.w2);
      if (l + 1 < levels.size()) L->held = L->e.like("composite::held");
      L->crse_interp = LevelData("composite::crse_interp", s.layout, s.geom, 1,
                                 IntVect::in_dims(s.geom.dim, below.ratio[0], 0), me);
      std::vector<BoxList> whole;
      for (const Box& b : s.layout.boxes)
        whole.push_back({b});
      L->prolong = std::make_unique<CoarseFineFill>(L->up, whole, below.layout,
                                                    below.geom, below.ratio, me);
    }
    // A refined level's corrections smooth on grids down to its coarser level's
    // resolution (none below its own at ratio 2), as MLMG's do: that level takes the
    // rest.
    const int depth = l > 0 ? log2_of(levels[l - 1].ratio[0]) : 0;
    L->mg = std::make_unique<Multigrid>(s.layout, s.geom, bc.homogeneous(), quiet, comm,
                                        s.granule, depth);
    levels_.push_back(std::move(L));
  }
  for (size_t l = 0; l < levels_.size(); ++l) {
    std::vector<Box> boxes;
    std::vector<int> items;
    for (int d = 0; d < levels[l].geom.dim; ++d) {
      std::vector<int> patches;
      if (l > 0) levels_[l]->reg.fine_faces(d, boxes, patches);
      if (l + 1 < levels_.size()) levels_[l + 1]->reg.crse_faces(d, boxes, patches);
      for (int p : patches)
        items.push_back(3 * p + d);
    }
    levels_[l]->flux_faces = BoxSet(boxes, items);
  }
}

CompositePoisson::~CompositePoisson() = default;

mg::CompositeCfStage CompositePoisson::fill_ghosts(size_t l, bool coarse_changed,
                                                   LevelData::Copies which) {
  Level& L = *levels_[l];
  L.phi->fill_boundary(comm_, true, -1, which);
  if (l == 0) return {};
  const Level& below = *levels_[l - 1];
  if (coarse_changed)
    L.crse_interp.fill_from_coarse(*below.phi, *below.phi, 1.0, below.shape.ratio,
                                   {Interp::quadratic}, bc_.as_bcs(), comm_);
  const int ratio = below.shape.ratio[0];
  if (which == LevelData::Copies::messages)
    return mg::CompositeCfStage(*L.phi, L.crse_interp, ratio);
  mg::composite_cf_ghosts(*L.phi, L.crse_interp, ratio);
  return {};
}

void CompositePoisson::level_fluxes(size_t l) {
  Level& L = *levels_[l];
  mg::face_gradients(L.grad, *L.phi, L.flux_faces);
  if (l > 0) L.reg.add_fine(L.grad_refs, 1.0, /*replace=*/true);
}

void CompositePoisson::level_residual(size_t l) {
  Level& L = *levels_[l];
  // The exchange's on-rank copies, its unpacking and the coarse-fine ghosts in the
  // residual's launch.
  const mg::CompositeCfStage cf = fill_ghosts(l, true, LevelData::Copies::messages);
  mg::residual_with_copies(L.res, *L.phi, L.phi->copies_by_patch(true), L.f, L.stencil,
                           cf);
  level_fluxes(l);
  if (l + 1 < levels_.size()) {
    Level& above = *levels_[l + 1];
    above.reg.reflux(L.res.refs(), L.grad_refs, 1.0, comm_);
    above.res.average_down_to(L.res, L.shape.ratio, comm_);
  }
}

void CompositePoisson::less_laplacian(size_t l, LevelData& e, const LevelData* crse) {
  Level& L = *levels_[l];
  // Without crse e's exchange sets the coarse-fine ghosts; its on-rank copies and
  // unpacking (and with crse the coarse-fine ghosts) are made in the residual's launch.
  e.fill_boundary(comm_, true, -1, LevelData::Copies::messages);
  mg::CompositeCfStage cf;
  if (crse) {
    const IntVect& ratio = levels_[l - 1]->shape.ratio;
    L.crse_interp.fill_from_coarse(*crse, *crse, 1.0, ratio, {Interp::quadratic},
                                   zero_bcs_, comm_);
    cf = mg::CompositeCfStage(e, L.crse_interp, ratio[0]);
  }
  mg::residual_with_copies(L.res, e, e.copies_by_patch(true), L.res, L.zero, cf);
}

void CompositePoisson::cycle() {
  const size_t n = levels_.size();
  // Down: each refined level smooths its correction, finest first, and keeps the
  // correction's residual; the level below then sees the new values in its fluxes and
  // that residual on its covered cells.
  for (size_t l = n - 1; l > 0; --l) {
    Level& L = *levels_[l];
    L.mg->correct(L.e, L.res, 1);
    // phi += e; the levels between keep e for the way up.
    composite_detail::add_and_keep(*L.phi, L.e, l + 1 < n ? &L.held : nullptr);
    less_laplacian(l, L.e, nullptr);
    fill_ghosts(l, false);  // level l - 1 is as at its last fill (residuals above)
    level_fluxes(l);
    level_residual(l - 1);
  }
  Level& base = *levels_[0];
  base.mg->correct(base.e, base.res, cfg_.level_cycles);
  mg::axpy(*base.phi, 1.0, base.e.refs());
  // Up: each level takes the correction below, interpolated; its residual loses what
  // that correction does (coarse-fine ghosts from the correction below), and it smooths
  // the rest. What it passes up is all it took in this cycle.
  for (size_t l = 1; l < n; ++l) {
    Level& L = *levels_[l];
    const Level& below = *levels_[l - 1];
    L.prolong->fill(L.up, below.e, below.e, 1.0, {Interp::linear}, zero_bcs_, comm_, 0);
    less_laplacian(l, L.up, &below.e);
    L.mg->correct(L.e, L.res, 1);
    // phi takes up and e (neither step above reads phi); the levels between pass up
    // e + up + held.
    composite_detail::add_up(*L.phi, L.up, L.e, l + 1 < n ? &L.held : nullptr);
  }
  average_down(true);
}

double CompositePoisson::composite_residual() {
  double norm = 0.0;
  for (size_t l = levels_.size(); l-- > 0;) {
    level_residual(l);
    // Covered cells hold means of finer residuals, never larger than the finer max.
    norm = std::max(norm, mg::max_abs(levels_[l]->res));
  }
  return comm_.max(norm);
}

void CompositePoisson::average_down(bool of_phi) {
  for (size_t l = levels_.size() - 1; l > 0; --l) {
    Level &fine = *levels_[l], &crse = *levels_[l - 1];
    if (of_phi)
      fine.phi->average_down_to(*crse.phi, crse.shape.ratio, comm_);
    else
      fine.f.average_down_to(crse.f, crse.shape.ratio, comm_);
  }
}

namespace {

/// The mean of u's interiors over a level covering the domain, summed exactly.
double level_mean(const LevelData& u, const Comm& comm) {
  const double scale = power_of_two_above(comm.max(mg::max_abs(u)));
  const ExactSum s = mg::exact_sum(u, 1.0 / scale);
  return all_ranks(s, comm).value(scale) / double(num_cells(u.layout().boxes));
}

}  // namespace

SolveReport CompositePoisson::solve(const std::vector<LevelData*>& phi,
                                    const std::vector<const LevelData*>& f) {
  const double start = MPI_Wtime();
  const size_t n = levels_.size();
  for (size_t l = 0; l < n; ++l) {
    levels_[l]->phi = phi.at(l);
    levels_[l]->f.copy_component(0, *f.at(l), 0);
  }
  average_down(false);
  shift_ = singular_ ? level_mean(levels_[0]->f, comm_) : 0.0;
  SolveReport rep;
  for (size_t l = 0; l < n; ++l) {
    if (shift_ != 0.0) mg::add_constant(levels_[l]->f, -shift_);
    rep.rhs_norm = std::max(rep.rhs_norm, mg::max_abs(levels_[l]->f));
  }
  rep.rhs_norm = comm_.max(rep.rhs_norm);
  const double target = std::max(cfg_.rtol * rep.rhs_norm, cfg_.atol);

  average_down(true);
  rep.initial_residual = composite_residual();
  rep.final_residual = rep.initial_residual;
  while (rep.final_residual > target && rep.cycles < cfg_.max_cycles && rep.finite()) {
    cycle();
    ++rep.cycles;
    rep.final_residual = composite_residual();
  }
  rep.converged = rep.finite() && rep.final_residual <= target;
  if (singular_ && rep.cycles > 0) {  // zero composite mean (phi is averaged down)
    const double m = level_mean(*levels_[0]->phi, comm_);
    for (size_t l = 0; l < n; ++l)
      mg::add_constant(*levels_[l]->phi, -m);
    // Covered cells again the mean of the finer ones: mean(fine - m) and mean(fine) - m
    // differ in their last bits, and a restart's re-solve, which averages down first,
    // would start from the other (the next regrid fills new fine cells from them).
    average_down(true);
  }
  for (size_t l = 0; l < n; ++l)
    levels_[l]->phi = nullptr;
  Kokkos::fence();
  rep.seconds = comm_.max(MPI_Wtime() - start);
  announce(rep, fmt::format("poisson: composite, {} levels: ", n), target, cfg_, comm_);
  return rep;
}

void CompositePoisson::residual(const std::vector<LevelData*>& res) const {
  for (size_t l = 0; l < levels_.size(); ++l)
    res.at(l)->copy_component(0, levels_[l]->res, 0);
}

}  // namespace pw
