#include "solver/level_poisson.hpp"

#include <fmt/format.h>

#include "solver/mg_ops.hpp"

namespace pw {

struct LevelByLevelPoisson::Cached {
  LevelLayout layout;
  std::unique_ptr<Multigrid> mg;
  LevelData phi, f, res;  // one component each; phi with one ghost layer
};

LevelByLevelPoisson::LevelByLevelPoisson(const MgConfig& cfg, const PoissonBc& bc,
                                         EllipticFields fields)
    : PoissonHook(cfg, bc), fields_(fields) {}

LevelByLevelPoisson::~LevelByLevelPoisson() = default;

void LevelByLevelPoisson::at_sync(Hierarchy& h, SyncPoint /*when*/) {
  PhaseTimers::Scope timer(h.timers(), "solve");
  const Comm& comm = h.comm();
  levels_.resize(size_t(h.finest_level() + 1));
  for (int l = 0; l <= h.finest_level(); ++l) {
    Level& L = h.level(l);
    std::unique_ptr<Cached>& c = levels_[size_t(l)];
    if (!c || c->layout != L.layout) {
      c = std::make_unique<Cached>();
      c->layout = L.layout;
      const IntVect one = IntVect::in_dims(L.geom.dim, 1, 0);
      c->phi = LevelData("poisson::phi", L.layout, L.geom, 1, one, comm.rank());
      c->f = LevelData("poisson::f", L.layout, L.geom, 1, IntVect{}, comm.rank());
      c->res = c->f.like("poisson::res");
      MgConfig quiet = cfg_;
      quiet.verbose = false;  // one line per level below, with the level
      c->mg = std::make_unique<Multigrid>(L.layout, L.geom, bc_, quiet, comm,
                                          h.config().blocking_factor);
    }
    c->phi.copy_component(0, L.u_new, fields_.phi);
    c->f.copy_component(0, L.u_new, fields_.rhs);
    if (l > 0) {
      const Cached& below = *levels_[size_t(l - 1)];
      c->phi.fill_from_coarse(below.phi, below.phi, 1.0, h.config().ratio(l - 1),
                              {Interp::quadratic}, bc_.as_bcs(), comm);
    }
    const double start = MPI_Wtime();
    const SolveReport r = c->mg->solve(c->phi, c->f);  // fenced
    h.add_measured_seconds(l, MPI_Wtime() - start);
    ++solves_;
    cycles_ += r.cycles;
    if (cfg_.verbose && comm.rank() == 0)
      fmt::print(
          "poisson: level {}: {} cycles, residual {:.3e} -> {:.3e} (|f| {:.3e}), mean "
          "reduction {:.3f} per cycle, {:.3f} s\n",
          l, r.cycles, r.initial_residual, r.final_residual, r.rhs_norm,
          r.mean_reduction(), r.seconds);
    L.u_new.copy_component(fields_.phi, c->phi, 0);
    if (fields_.res >= 0) {
      c->mg->residual(c->phi, c->f, c->res);
      L.u_new.copy_component(fields_.res, c->res, 0);
    }
  }
}

}  // namespace pw
