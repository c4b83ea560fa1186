// The Poisson workload: a time-dependent elliptic benchmark. The state is phi, the
// right-hand side f (a sum of moving Gaussian clumps) and the residual; the time stepper
// moves the clumps and, once every level is at the new time, the elliptic solver
// re-solves lap(phi) = f from the previous phi. Refined levels follow the clumps.
#pragma once

#include <string>
#include <vector>

#include "amr/deck.hpp"
#include "amr/physics.hpp"
#include "physics/clumps.hpp"

namespace pw {

/// Deck section [clumps] (defaults in brackets): count [8] (at most 64), seed [1],
/// width [0.05] (Gaussian e-folding radius), amplitude [1.0] (the largest; each clump
/// draws one in [amplitude/2, amplitude]), speed [0.5] (each clump moves at this speed in
/// a random direction); or explicit lists centers (count x dim numbers), velocities,
/// amplitudes, widths. [poisson] tag_threshold [0.01]: a cell of level l is tagged where
/// |f| dx_l^2 exceeds it times the largest clump amplitude times dx_0^2, so finer levels
/// need larger |f| (the undivided Laplacian |lap phi| dx^2). The walls of phi are the
/// solver's (poisson.bc_lo / bc_hi, read by read_poisson_bc).
class PoissonWorkload : public Physics {
 public:
  PoissonWorkload(const Deck& deck, int dim);

  std::vector<std::string> component_names() const override {
    return {"phi", "f", "res"};
  }
  int nghost() const override { return 1; }
  /// phi: the solver's walls (Dirichlet / Neumann values); f and res: outflow.
  BcSet boundary_conditions() const override { return bcs_; }
  /// phi: quadratic (a smooth potential; the level-by-level solve's coarse-fine values);
  /// f and res: limited linear.
  std::vector<Interp> interpolation() const override;
  EllipticFields elliptic() const override { return {0, 1, 2}; }
  long scratch_size(const Box&) const override { return 0; }

  using Physics::initial_data;
  void initial_data(const LevelGeom& g, const BoxSet& cells, const StructArray<FabRef>& u,
                    double time) const override;
  /// The clumps move at most one cell of this level per step (at CFL 1).
  double stable_dt(const LevelGeom& g, const Box& box, const Array4& u, double time,
                   const Scratch& scratch) const override;
  /// phi and res carried over, f at time + dt; zero fluxes (nothing to reflux).
  void advance(const LevelGeom& g, const Box& box, const Array4& u_old,
               const Array4& u_new, const Array4 flux[3], double time, double dt,
               const Scratch& scratch, const Counters& counters) const override;
  /// The same for every patch of s.owned() in one launch. The fluxes are zero, so the
  /// flux register is left as reset (zero): nothing to reflux.
  void advance_level(const LevelGeom& g, const LevelUpdate& s, double time, double dt,
                     const Counters& counters) const override;
  void tag(const LevelGeom& g, const LevelTags& tags, const StructArray<FabRef>& u,
           int level, double time) const override;

 private:
  int dim_;
  Clumps clumps_;
  double max_speed_ = 0;
  double tag_threshold_ = 0.01;
  double dx0_ = 1;  // level 0's cell size, for the tagging scale
  BcSet bcs_;
};

}  // namespace pw
