// Geometric multigrid for the cell-centred Poisson equation lap(phi) = f on one level.
// On a level whose patches cover the domain (AMR level 0, or a uniform grid) patches are
// coarsened by 2 while every box stays even and at least 4 cells wide; the coarsest
// patch grid is then gathered into one box held by every rank, coarsened further in
// that box, and solved there by conjugate gradients (the coarsest grid has at most a
// few hundred cells, so CG is exact in a few dozen iterations and needs no tuning; every
// rank solves the same tiny problem, which costs less than scattering a result). Where
// the patch grids end does not change the arithmetic: the same grids follow. A refined
// level (coarse-fine ghosts holding Dirichlet values) runs CG on its coarsest grid, so
// how deep its grids go is set by what every cut of it allows (the blocking factor),
// not by its smallest patch. Across ranks the patch grids below the level are held
// whole by every rank (their patches on every rank) from the first with at most
// gather_limit cells: their smoothing then takes one launch and no message; on one
// rank only a refined level's bottom is, for its CG. On its coarser
// grids the corrections are zero half a fine cell beyond the coarse-fine face, where the
// level's own ghost values sit (zero at the face made the refined levels converge three
// times slower than level 0). CG on a grid held whole is one launch (solver/team_cg.hpp),
// with the bits of CG launched step by step on a distributed grid. Smoothing is
// red-black Gauss-Seidel, restriction averages, prolongation is piecewise constant or
// linear. Every step is independent of how the level is cut into patches and which rank
// owns them, and norms and means are reduced exactly, so phi is bitwise the same at any
// rank count, patch cut and thread count. Across ranks a level of at most gather_limit
// cells is itself held whole by every rank and solved as on one rank: a small refined
// level's V-cycle then takes two launches per grid and no message, where spread over the
// ranks it took an exchange and a launch per half-sweep.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "amr/comm.hpp"
#include "amr/level_data.hpp"
#include "solver/mg_config.hpp"
#include "solver/mg_ops.hpp"
#include "solver/poisson_kernels.hpp"

namespace pw {

/// What one solve did.
struct SolveReport {
  int cycles = 0;
  double initial_residual = 0;  // |f - L phi|_max before the first cycle
  double final_residual = 0;
  double rhs_norm = 0;  // |f|_max (after removing the mean of a singular problem)
  double seconds = 0;
  bool converged = false;
  /// Whether the norms are finite (a NaN in f or phi makes them infinite: the solve
  /// stops, not converged).
  bool finite() const;
  /// (final / initial)^(1 / cycles): the mean reduction of the residual per cycle.
  double mean_reduction() const;
};

/// A solve's line, "<what>N cycles, residual ... s": printed (rank 0) when cfg.verbose;
/// a solve that did not converge warns on stderr, or throws RunFailure under
/// cfg.fail_on_divergence.
void announce(const SolveReport& rep, const std::string& what, double target,
              const MgConfig& cfg, const Comm& comm);

class Multigrid {
 public:
  /// The grids for `layout` with the domain conditions `bc`. `granule`: a size every
  /// cut of this level's cells into patches keeps, each box's corner and sizes being
  /// multiples of it (the blocking factor); needed (> 0) on a level that does not cover
  /// the domain, whose grids go as deep as it allows. depth > 0: at most `depth` grids,
  /// the coarsest smoothed (pre_smooth + post_smooth sweeps) in place of a bottom solve;
  /// for the corrections of a refined level in the composite solve, whose coarser level
  /// takes the smooth error (not for solve()). Collective over comm.
  Multigrid(const LevelLayout& layout, const LevelGeom& geom, const PoissonBc& bc,
            const MgConfig& cfg, const Comm& comm, int granule = 0, int depth = 0);
  ~Multigrid();

  /// Solve lap(phi) = f (component 0 of each) on the layout given to the constructor:
  /// phi holds the first guess and gets the solution; phi needs >= 1 ghost cell, and on a
  /// level not covering the domain its coarse-fine ghosts hold the Dirichlet values. For
  /// a singular problem the mean of f is removed first and phi is returned with zero
  /// mean. Stops at residual max(rtol |f|, atol, floor): floor is the caller's round-off
  /// level, where f is a difference of larger numbers (self-gravity's 4 pi G (rho -
  /// mean)). Prints one line (rank 0) when cfg.verbose. Throws RunFailure when it does
  /// not converge and cfg.fail_on_divergence. On return phi's ghosts beside other
  /// patches' faces (periodic images included) hold those patches' values, as
  /// phi.fill_boundary(comm, true) would set them: the last residual norm's exchange
  /// left them so (of one colour, after a last sweep of the other). Collective.
  SolveReport solve(LevelData& phi, const LevelData& f, double floor = 0.0);

  /// An approximate correction for the composite solve (solver/composite_poisson.hpp):
  /// `cycles` cycles on lap(e) = r from e = 0 (its ghosts included), with the conditions
  /// given to the constructor (homogeneous, for corrections). On a refined level the
  /// coarse-fine ghosts of the level's own grid follow the rule e's exchange sets
  /// (LevelData::set_coarse_fine_from_inside; left at 0 without one), those of its
  /// coarser grids are zero at the face. For a singular problem r's mean is removed
  /// first. Collective.
  void correct(LevelData& e, const LevelData& r, int cycles);

  /// The mean the last solve removed from f (a singular problem; else 0).
  double removed_mean() const { return shift_; }
  /// Number of grids (distributed and gathered) from fine to coarse (of the solver on
  /// one rank, for a level held whole), for tests.
  int num_grids() const;

  /// max |f - L phi| over the level (with the domain values of bc). swept: phi's last
  /// change was this solver's smoothing (see residual_ghosts).
  double residual_norm(LevelData& phi, const LevelData& f, bool swept = false);
  /// r = f - L phi on the interiors (r: one component, the level's layout), less the
  /// mean the last solve removed from f for a singular problem.
  void residual(LevelData& phi, const LevelData& f, LevelData& r);

 private:
  struct Grid;
  /// A `next` of smooth() and cycle(): the prolongation stage's exchange of the grid's
  /// phi (every ghost, every parity; copies_by_patch(false)), not a parity of the
  /// faces' exchange.
  static constexpr int prolongation_exchange = 2;
  /// One V-cycle (or F-cycle) from grid k down, on grid k's phi and rhs; fresh,
  /// next and fed: as smooth()'s, for grid k's first and last smoothing (fed: or its
  /// bottom solve). Returns what its last launch packed, as smooth().
  std::optional<int> cycle(size_t k, bool f_cycle, bool fresh = false,
                           std::optional<int> next = std::nullopt,
                           const mg::FeedStage& fed = {});
  /// The mean of u's interiors over the level (exact: the same on every rank).
  double mean(const LevelData& u) const;
  /// The coarser grids' coarse-fine rules (of the cell inside) handed to their fields'
  /// exchanges (LevelData::set_coarse_fine_from_inside): on a refined level's correction
  /// grids every exchange sets the coarse-fine ghosts too.
  void exchange_cf_rules();
  /// All of u's ghosts a residual reads on grid g: the face ghosts (on a refined level's
  /// correction grids the coarse-fine ghosts among them). swept: u's last change was
  /// smooth() on g, whose last sweep is of colour 1; then only colour 1's face ghosts are
  /// exchanged, as colour 0's were before that sweep and the cells they copy have not
  /// changed since (unless a periodic seam of odd length mixes the colours, or the
  /// exchange sets coarse-fine ghosts, which follow cells of both colours).
  void residual_ghosts(Grid& g, LevelData& u, bool swept);
  /// The parity of the face ghosts residual_ghosts exchanges (1, or -1 for all).
  static int residual_parity(const Grid& g, bool swept);
  /// `sweeps` red-black sweeps on grid g, after the prolongation `before` and then the
  /// restriction `after` (if any; in the sweeps' launches where they can). fresh:
  /// phi's ghosts hold what an exchange would give them, or will once fed.zero has
  /// zeroed phi, ghosts included (no prolongation before), so the first half-sweep takes
  /// none. next (no restriction after): the parity of the
  /// exchange after the smoothing (or prolongation_exchange), which its last launch
  /// then packs. before.packed: the coarse grid's last launch packed its exchange. fed
  /// (no prolongation before): what a coarse grid takes first where the restriction into
  /// it did not set it (phi = 0, f's copies from its feed), in the first launch where it
  /// can. Returns the parity the last launch packed for the exchange after it (or
  /// prolongation_exchange; none: it packed nothing, that exchange takes
  /// Copies::messages).
  std::optional<int> smooth(Grid& g, LevelData& phi, const LevelData& f, int sweeps,
                            const mg::ProlongStage& before = {},
                            const mg::RestrictStage& after = {}, bool fresh = false,
                            std::optional<int> next = std::nullopt,
                            const mg::FeedStage& fed = {});
  /// residual_norm, where the last launch packed what the exchange sends (packed: its
  /// parity), in one launch with the exchange's copies.
  double residual_norm(LevelData& phi, const LevelData& f, bool swept,
                       std::optional<int> packed);
  void residual(Grid& g, LevelData& phi, const LevelData& f, LevelData& r);
  /// rhs of grid k + 1 (or what is gathered into it) = the restriction of grid k's
  /// residual f - L phi, as a stage of the smoothing before it (zeroing phi of grid
  /// k + 1, unless that is fed by a copy: then its first launch does); none (crse
  /// null) where it cannot be one. swept: as for residual_norm.
  mg::RestrictStage restriction_stage(size_t k, bool swept);
  /// The same in launches of its own, where restriction_stage gives none.
  void restrict_residual(size_t k, LevelData& phi, const LevelData& f, bool swept);
  /// After either: the copy into grid k + 1 where it is fed by one (Grid::Feed; only
  /// its messages where its first launch makes the copies: feed_stage).
  void finish_restriction(size_t k);
  /// What grid k + 1's first launch takes first, after the restriction `down` into it.
  mg::FeedStage feed_stage(size_t k, const mg::RestrictStage& down);
  /// phi of grid k + 1 -> added to phi of grid k, as a stage of the post-smoothing
  /// (its ghosts filled in that launch); none (crse null) where it cannot be one.
  mg::ProlongStage prolongation_stage(size_t k);
  /// The same in launches of its own, where prolongation_stage gives none.
  void prolong_from(size_t k);
  /// How grid k + 1's correction reaches grid k.
  Prolong prolongation(const Grid& c) const;
  /// fed: as smooth()'s (in the one-launch CG where it runs).
  void bottom_solve(Grid& g, LevelData& x, const LevelData& rhs,
                    const mg::FeedStage& fed = {});
  /// Makes the last grid (its patches L, as the level's owners hold them) one that
  /// every rank holds whole; `first`: the first such grid, fed across ranks by the
  /// owners of the grid above (Grid::Feed::shared), on one rank coarsened from it as
  /// the grids below are.
  void hold_whole(const LevelLayout& L, bool first);
  /// f less c on the interiors, in f_used_.
  const LevelData& less_constant(const LevelData& f, double c);

  /// A level of at most gather_limit cells across ranks (not truncated) held whole by
  /// every rank: solved there by a Multigrid on this rank alone (what one rank does, and
  /// so its bits), between a gather of phi and f and a copy of this rank's patches back.
  struct Whole;
  void hold_level_whole(const LevelLayout& layout, const LevelGeom& geom, int granule);
  SolveReport solve_whole(LevelData& phi, const LevelData& f, double floor);
  void correct_whole(LevelData& e, const LevelData& r, int cycles);
  /// The residual a solve stops at: max(rtol |f|, atol, floor).
  double stop_at(double rhs_norm, double floor) const;
  /// A solve's last steps on every path: a fence, its time (the slowest rank's) in rep,
  /// its line (announce) unless this solver is a level held whole's inner one.
  void finish(SolveReport& rep, double start, double target) const;
  /// Throws unless u (phi or e) has the whole copy's shape, which the copy back fills.
  void fits_whole(const LevelData& u) const;
  std::unique_ptr<Whole> whole_;
  bool announces_ = true;  // false: the solver of a level held whole (its caller does)

  MgConfig cfg_;
  PoissonBc bc_;
  Comm comm_;
  bool covers_domain_ = true;  // else a refined level: no one-box grids; CG at the
                               // bottom unless truncated
  bool truncated_ = false;     // smoothing at the bottom (see the constructor)
  bool singular_ = false;
  double shift_ = 0.0;  // the mean removed from f by the last solve (singular problems)
  ComponentBc walls_;   // the coarser grids' conditions (homogeneous)
  std::vector<std::unique_ptr<Grid>> grids_;  // 0: the level itself
  LevelData* top_phi_ = nullptr;              // grid 0's phi and f, during solve()
  const LevelData* top_f_ = nullptr;
  double top_target_ = 0.0;  // solve()'s max-norm target, while it runs
  LevelData f_used_;         // f less its mean, for a singular problem
};

}  // namespace pw
