#include "solver/composite_poisson.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "amr/level_plans.hpp"
#include "solver/mg_ops.hpp"

namespace pw {

struct CompositePoisson::Level {
  CompositeLevel shape;
  PoissonStencil stencil;    // with the domain's values
  LevelData* phi = nullptr;  // the caller's, during solve()
  LevelData f, res;          // f less the removed mean; the composite residual
  LevelData e;               // a correction (one ghost layer)
  LevelData up;              // level l - 1's correction interpolated to this level
  LevelData crse_interp;     // level l - 1 interpolated into `ratio` ghost layers
  mg::CfGhostRule cf_rule;   // the coarse-fine ghosts of a correction
  std::unique_ptr<CoarseFineFill> prolong;  // level l - 1's correction -> up
  LevelData grad[3];                        // face gradients of phi
  FluxRegister reg;               // this level's boundary faces, for level l - 1
  std::unique_ptr<Multigrid> mg;  // homogeneous conditions: corrections

  FluxRegister::Refs grad_refs[3];  // grad's; grad[2]'s is not read in 2D
};

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
      L->up = L->f.like("composite::up");
      L->crse_interp = LevelData("composite::crse_interp", s.layout, s.geom, 1,
                                 IntVect::in_dims(s.geom.dim, below.ratio[0], 0), me);
      L->cf_rule = mg::composite_cf_rule(below.ratio[0]);
      std::vector<BoxList> whole;
      for (const Box& b : s.layout.boxes)
        whole.push_back({b});
      L->prolong = std::make_unique<CoarseFineFill>(L->up, whole, below.layout,
                                                    below.geom, below.ratio, me);
    }
    L->mg = std::make_unique<Multigrid>(s.layout, s.geom, bc.homogeneous(), quiet, comm);
    levels_.push_back(std::move(L));
  }
}

CompositePoisson::~CompositePoisson() = default;

void CompositePoisson::level_residual(size_t l) {
  Level& L = *levels_[l];
  LevelData& phi = *L.phi;
  phi.fill_boundary(comm_, true);
  if (l > 0) {
    const Level& below = *levels_[l - 1];
    L.crse_interp.fill_from_coarse(*below.phi, *below.phi, 1.0, below.shape.ratio,
                                   {Interp::quadratic}, bc_.as_bcs(), comm_);
    mg::composite_cf_ghosts(phi, L.crse_interp, below.shape.ratio[0]);
  }
  mg::residual(L.res, phi, L.f, L.stencil);
  mg::face_gradients(L.grad, phi);
  if (l + 1 < levels_.size()) {
    Level& above = *levels_[l + 1];
    above.reg.reflux(L.res.refs(), L.grad_refs, 1.0, comm_);
    above.res.average_down_to(L.res, L.shape.ratio, comm_);
  }
  if (l > 0) {
    L.reg.reset();
    L.reg.add_fine(L.grad_refs, 1.0);
  }
}

void CompositePoisson::residuals_down_to(size_t l) {
  for (size_t m = levels_.size(); m-- > l;)
    level_residual(m);
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
  while (rep.final_residual > target && rep.cycles < cfg_.max_cycles) {
    // Down: each refined level corrected for its residual, finest first; the level
    // below then sees the new fine values (averaged down) and fluxes in its residual.
    for (size_t l = n - 1; l > 0; --l) {
      Level& L = *levels_[l];
      if (l + 1 < n) residuals_down_to(l);
      L.mg->correct(L.e, L.res, cfg_.level_cycles, &L.cf_rule);
      mg::axpy(*L.phi, 1.0, L.e.refs());
      if (l + 1 < n)  // its covered cells stay the finer level's mean
        levels_[l + 1]->phi->average_down_to(*L.phi, L.shape.ratio, comm_);
      L.phi->average_down_to(*levels_[l - 1]->phi, levels_[l - 1]->shape.ratio, comm_);
    }
    // Level 0, then up: each level takes the correction below, interpolated, and is
    // corrected for the residual left (its ghosts from the corrected values below).
    for (size_t l = 0; l < n; ++l) {
      Level& L = *levels_[l];
      if (l > 0) {
        L.prolong->fill(L.up, levels_[l - 1]->e, levels_[l - 1]->e, 1.0, {Interp::linear},
                        zero_bcs_, comm_);
        mg::axpy(*L.phi, 1.0, L.up.refs());
      }
      if (n > 1) residuals_down_to(l);
      L.mg->correct(L.e, L.res, cfg_.level_cycles, &L.cf_rule);
      mg::axpy(*L.phi, 1.0, L.e.refs());
      if (l > 0) mg::axpy(L.e, 1.0, L.up.refs());  // what this level took in all
    }
    average_down(true);
    ++rep.cycles;
    rep.final_residual = composite_residual();
  }
  rep.converged = rep.final_residual <= target;
  if (singular_ && rep.cycles > 0) {  // zero composite mean (phi is averaged down)
    const double m = level_mean(*levels_[0]->phi, comm_);
    for (size_t l = 0; l < n; ++l)
      mg::add_constant(*levels_[l]->phi, -m);
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
