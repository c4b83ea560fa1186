// Compressible gas dynamics: the Euler equations of an ideal gas with passive scalars,
// by an unsplit MUSCL-Hancock scheme (limited linear reconstruction of the primitive
// variables, a half-step predictor in all directions at once, one Riemann solve per
// face: HLLC or HLLE).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "amr/deck.hpp"
#include "amr/physics.hpp"
#include "physics/hydro_kernels.hpp"
#include "physics/hydro_problems.hpp"

namespace pw {

/// Deck section [hydro] (defaults in brackets): gamma [1.4] (> 1); nscalars [0] (at most
/// 8); limiter = "first_order" | "minmod" | ["mc"] | "van_leer" (first_order:
/// Godunov's method, for comparisons); riemann = ["hllc"] | "hlle";
/// density_floor, pressure_floor [1e-10]; bc_lo, bc_hi: one of "periodic", "outflow",
/// "reflect", "inflow" per direction [periodic where domain.periodic, else outflow]
/// ("inflow": the problem's exact state at the time of each ghost fill, BcKind::exact);
/// tag = ["loehner"] | "gradient" on density and pressure: loehner refines where
/// Loehner's error estimator exceeds tag_threshold [0.8] with noise filter tag_filter
/// [0.01]; gradient where a relative jump to a neighbour exceeds tag_threshold [0.1];
/// gravity [false]: self-gravity, lap(phi) = 4 pi G (rho - mean) solved after each level
/// step (solver/self_gravity.hpp) with the [poisson] solver settings and walls (on a box
/// that is not periodic everywhere, poisson.bc_lo / bc_hi must be given); then G [1] and
/// jeans_cells [4]: also refine where the Jeans length sqrt(pi c^2 / (G rho)) spans
/// fewer cells (Truelove et al. 1997; 0: off);
/// problem = ["shock_tube"] | "blast" | "shockpool" | "sound_wave" | "uniform" | "jeans"
/// | "clumps", each with its section:
///   [shock_tube] axis ["x"], position [0.5], left [1, 0, 1], right [0.125, 0, 0.1]
///     (density, velocity along the axis, pressure: Sod's tube by default);
///   [blast] center [domain centre], radius [0.05], energy [1], density [1],
///     pressure [1e-5];
///   [shockpool] axis ["x"] or normal (one number >= 0 per direction), mach [2.5],
///     position [0.1] (of the front along the normal), density [1], pressure
///     [1/gamma]: a plane shock moving along the normal into gas at rest, the exact
///     state (post-shock, and the front where it runs along a face) flowing in through
///     the lo faces of the directions the normal has a component in (bc_lo "inflow");
///   [sound_wave] amplitude [1e-6], wavenumber [1, 0(, 0)], density [1], pressure
///     [1/gamma];
///   [uniform] density [1], pressure [1], velocity [0, 0(, 0)];
///   [jeans] amplitude [1e-3], wavenumber [1, 0(, 0)], density [1], pressure [1/gamma];
///   [clumps] physics/clumps.hpp's keys (speed [0]: at rest), density [1] (the
///     background's), pressure [1].
class Hydro : public Physics {
 public:
  /// Reads and checks [hydro] and the problem's section; throws UserError naming the key.
  Hydro(const Deck& deck, int dim);

  std::vector<std::string> component_names() const override;
  /// 2: a face's states come from the limited slopes of the cells beside it, each of
  /// which reads its own neighbours.
  int nghost() const override { return 2; }
  BcSet boundary_conditions() const override { return bcs_; }
  bool fluxes_in_scratch() const override { return true; }
  /// Limited (MC) linear on the conserved variables, conservative and free of new
  /// extrema, where it keeps every fine cell's internal energy positive; a coarse cell
  /// where it would not gives its fine cells its own state (Interp::gas_state). Scalars
  /// limited linear, phi quadratic (smooth).
  std::vector<Interp> interpolation() const override;
  std::vector<std::string> counter_names() const override;
  /// phi (after the scalars) and density, when hydro.gravity is on.
  GravityFields gravity() const override;
  void gravity_kick(const LevelGeom& g, LevelData& u, const LevelData& phi,
                    double dt) const override;
  long scratch_size(const Box& box) const override;

  using Physics::initial_data;
  void initial_data(const LevelGeom& g, const BoxSet& cells, const StructArray<FabRef>& u,
                    double time) const override;
  /// 1 / sum_d (|u_d| + c) / dx_d: the unsplit predictor's bound.
  double stable_dt(const LevelGeom& g, const Box& box, const Array4& u, double time,
                   const Scratch& scratch) const override;
  /// The same over the owned patches of u, in one reduction.
  double stable_dt_level(const LevelGeom& g, const LevelData& u, double time,
                         const Scratch& scratch) const override;
  void advance(const LevelGeom& g, const Box& box, const Array4& u_old,
               const Array4& u_new, const Array4 flux[3], double time, double dt,
               const Scratch& scratch, const Counters& counters) const override;
  /// All owned patches in one launch, a team per patch.
  void advance_level(const LevelGeom& g, const LevelUpdate& s, double time, double dt,
                     const Counters& counters) const override;
  void tag(const LevelGeom& g, const LevelTags& tags, const StructArray<FabRef>& u,
           int level, double time) const override;
  /// A floor above the initial gas's least density or pressure is a deck error: the
  /// floor would change the problem from the first step (mass or energy out of nothing).
  void check_initial_state(const LevelData& u, int level,
                           const Comm& comm) const override;

  const HydroParams& params() const { return hp_; }
  const HydroProblem& problem() const { return problem_; }

 private:
  enum class TagKind { loehner, gradient };

  /// The problem with defaults that depend on the domain (the blast's centre) filled in.
  HydroProblem problem_for(const LevelGeom& g) const;
  /// Checks blast.radius and counts the blast's sampled volume on each level.
  void read_blast_volumes(const Deck& deck, int dim);
  /// The blast's centre on level g: the deck's, or the domain's centre.
  void blast_center(const LevelGeom& g, double c[3]) const;

  int dim_;
  HydroParams hp_;
  HydroProblem problem_;
  std::string floor_where_[2];  // "<file>:<line>" of hydro.density_floor, pressure_floor
  std::string problem_where_;   // of hydro.problem
  bool center_given_ = false;
  // The blast's sampled volume per level of the deck (by cell width), counted once here:
  // a level's patches each ask for it. Levels whose ball spans too many samples to count
  // take the exact volume.
  std::vector<std::pair<double, double>> blast_volumes_;
  BcSet bcs_;
  TagKind tag_kind_ = TagKind::loehner;
  double tag_threshold_ = 0.8, tag_filter_ = 0.01;
  double jeans_cells_ = 0;  // with gravity: refine where lambda_J < jeans_cells dx
};

}  // namespace pw
