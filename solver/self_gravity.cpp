#include "solver/self_gravity.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "solver/mg_ops.hpp"

namespace pw {

namespace {
/// The residual a solve of 4 pi G (rho - mean) can reach, relative to 4 pi G |rho|: a
/// few dozen round-offs of f (the residual sums 2 dim + 1 terms of phi / dx^2 too).
constexpr double kRoundOff = 1e-14;
}  // namespace

struct SelfGravitySolve::Cached {
  LevelLayout layout, crse_layout;
  std::unique_ptr<Multigrid> mg;
  LevelData phi, f;  // one component each; phi with one ghost layer
};

SelfGravitySolve::SelfGravitySolve(const Physics& physics, const MgConfig& cfg,
                                   const PoissonBc& bc)
    : PoissonHook(cfg, bc), physics_(physics), fields_(physics.gravity()) {}

SelfGravitySolve::~SelfGravitySolve() = default;

SelfGravitySolve::Cached& SelfGravitySolve::cached(Hierarchy& h, int l) {
  const Level& L = h.level(l);
  const LevelLayout crse = l > 0 ? h.level(l - 1).layout : LevelLayout();
  if (levels_.size() <= size_t(l)) levels_.resize(size_t(l) + 1);
  std::unique_ptr<Cached>& c = levels_[size_t(l)];
  if (c && c->layout == L.layout && c->crse_layout == crse) return *c;
  const Comm& comm = h.comm();
  c = std::make_unique<Cached>();
  c->layout = L.layout;
  c->crse_layout = crse;
  const IntVect one = IntVect::in_dims(L.geom.dim, 1, 0);
  c->phi = LevelData("gravity::phi", L.layout, L.geom, 1, one, comm.rank());
  c->f = LevelData("gravity::f", L.layout, L.geom, 1, IntVect{}, comm.rank());
  MgConfig quiet = cfg_;
  quiet.verbose = false;  // one line per coarse step instead
  c->mg = std::make_unique<Multigrid>(L.layout, L.geom, bc_, quiet, comm,
                                      h.config().blocking_factor);
  return *c;
}

void SelfGravitySolve::solve_level(Hierarchy& h, int l, bool keep) {
  Level& L = h.level(l);
  Cached& c = cached(h, l);
  const Comm& comm = h.comm();
  // f = 4 pi G rho, less level 0's mean on the finer levels (level 0's solver removes
  // it itself where the problem is singular, and says how much); phi's first guess is
  // the state's phi, copied in the same launch.
  const double scale = fields_.four_pi_G, shift = l > 0 ? f_mean_ : 0.0;
  // Of 4 pi G rho, whose round-off bounds the residual.
  const double f_max = scale * mg::scaled_copy(c.f, L.u_new, fields_.density, scale,
                                               -shift, &c.phi, fields_.phi);
  if (l > 0) {  // the coarse phi under the coarse-fine ghosts, read from the states
    const Level& C = h.level(l - 1);
    const double span = C.t_new - C.t_old;
    const double a = span > 0 ? std::clamp((L.t_new - C.t_old) / span, 0.0, 1.0) : 1.0;
    c.phi.fill_from_coarse(C.u_old, C.u_new, a, h.config().ratio(l - 1),
                           {Interp::quadratic}, bc_.as_bcs(), comm, fields_.phi);
  }
  const double start = MPI_Wtime();
  const SolveReport r = c.mg->solve(c.phi, c.f, kRoundOff * comm.max(f_max));  // fenced
  h.add_measured_seconds(l, MPI_Wtime() - start);
  if (l == 0) f_mean_ = c.mg->removed_mean();
  ++solves_;
  cycles_ += r.cycles;
  ++step_solves_;
  step_cycles_ += r.cycles;
  step_seconds_ += r.seconds;
  if (r.rhs_norm > 0) step_worst_ = std::max(step_worst_, r.final_residual / r.rhs_norm);
  // The kick's centred differences read phi's face ghosts: those beside other patches
  // hold their values already (Multigrid::solve), the coarse-fine ones the Dirichlet
  // values the solve used; those beyond walls are set here.
  c.phi.fill_physical_boundary(bc_.as_bcs());
  if (keep) L.u_new.copy_component(fields_.phi, c.phi, 0);
}

void SelfGravitySolve::at_sync(Hierarchy& h, SyncPoint when) {
  if (when == SyncPoint::built) {
    PhaseTimers::Scope timer(h.timers(), "gravity");
    for (int l = 0; l <= h.finest_level(); ++l)
      solve_level(h, l, /*keep=*/true);
  }
  if (when != SyncPoint::restored && cfg_.verbose && h.comm().rank() == 0)
    fmt::print(
        "gravity: {} level solves, {} cycles, worst residual {:.2e} |f|, {:.3f} s\n",
        step_solves_, step_cycles_, step_worst_, step_seconds_);
  step_solves_ = step_cycles_ = 0;
  step_worst_ = step_seconds_ = 0;
}

void SelfGravitySolve::after_level_step(Hierarchy& h, int l, double dt) {
  PhaseTimers::Scope timer(h.timers(), "gravity");
  solve_level(h, l, /*keep=*/false);  // the kick keeps phi in the state
  Level& L = h.level(l);
  physics_.gravity_kick(L.geom, L.u_new, levels_[size_t(l)]->phi, 0.5 * dt);
}

}  // namespace pw
