#include "solver/composite_hook.hpp"

namespace pw {

CompositePoissonHook::CompositePoissonHook(const MgConfig& cfg, const PoissonBc& bc,
                                           EllipticFields fields)
    : PoissonHook(cfg, bc), fields_(fields) {}

CompositePoissonHook::~CompositePoissonHook() = default;

void CompositePoissonHook::at_sync(Hierarchy& h, SyncPoint /*when*/) {
  PhaseTimers::Scope timer(h.timers(), "solve");
  const Comm& comm = h.comm();
  const size_t n = size_t(h.finest_level() + 1);
  bool same = layouts_.size() == n;
  for (size_t l = 0; same && l < n; ++l)
    same = layouts_[l] == h.level(int(l)).layout;
  if (!same) {
    layouts_.clear();
    phi_.clear();
    f_.clear();
    res_.clear();
    std::vector<CompositeLevel> levels;
    for (size_t l = 0; l < n; ++l) {
      const Level& L = h.level(int(l));
      layouts_.push_back(L.layout);
      const IntVect ratio =  // unused on the finest level
          l + 1 < n ? h.config().ratio(int(l)) : IntVect::in_dims(L.geom.dim, 1, 1);
      levels.push_back({L.layout, L.geom, ratio, h.config().blocking_factor});
      const IntVect one = IntVect::in_dims(L.geom.dim, 1, 0);
      phi_.emplace_back("poisson::phi", L.layout, L.geom, 1, one, comm.rank());
      phi_.back().set_val(0.0);
      f_.emplace_back("poisson::f", L.layout, L.geom, 1, IntVect{}, comm.rank());
      res_.push_back(f_.back().like("poisson::res"));
    }
    solver_ = std::make_unique<CompositePoisson>(levels, bc_, cfg_, comm);
  }
  std::vector<LevelData*> phi, res;
  std::vector<const LevelData*> f;
  for (size_t l = 0; l < n; ++l) {
    const Level& L = h.level(int(l));
    phi_[l].copy_component(0, L.u_new, fields_.phi);
    f_[l].copy_component(0, L.u_new, fields_.rhs);
    phi.push_back(&phi_[l]);
    f.push_back(&f_[l]);
    res.push_back(&res_[l]);
  }
  const double start = MPI_Wtime();
  const SolveReport r = solver_->solve(phi, f);  // fenced
  // This rank's time, shared among the levels by cells (each level's corrections are
  // cycles of its own multigrid), then among each level's patches.
  const double elapsed = MPI_Wtime() - start;
  double cells = 0;
  for (size_t l = 0; l < n; ++l)
    cells += double(phi_[l].interiors().cells());
  for (size_t l = 0; l < n && cells > 0; ++l)
    h.add_measured_seconds(int(l), elapsed * double(phi_[l].interiors().cells()) / cells);
  ++solves_;
  cycles_ += r.cycles;
  if (fields_.res >= 0) solver_->residual(res);
  for (size_t l = 0; l < n; ++l) {
    Level& L = h.level(int(l));
    L.u_new.copy_component(fields_.phi, phi_[l], 0);
    if (fields_.res >= 0) L.u_new.copy_component(fields_.res, res_[l], 0);
  }
}

}  // namespace pw
