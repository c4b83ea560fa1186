// The small interface a physics module implements. It sees one patch at a time, or all
// owned patches of a level at once for the update and the tags, with filled ghost cells,
// and never MPI; the AMR layer calls it from the time stepper and the regridder.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "amr/boundary.hpp"
#include "amr/fab.hpp"
#include "amr/flux_register.hpp"
#include "amr/interpolate.hpp"
#include "amr/level_data.hpp"
#include "amr/level_geom.hpp"
#include "amr/level_tags.hpp"
#include "amr/memory_budget.hpp"

namespace pw {

/// Scratch memory a module's per-patch work may use (in the default memory space),
/// owned by the caller, so that the module holds no mutable state and patches can be
/// advanced concurrently, each with its own scratch.
using Scratch = Kokkos::View<double*>;

/// Events a module's kernels count (floors applied, fallbacks taken), one slot per
/// Physics::counter_names() entry, owned by the caller and added to atomically: counting
/// costs no reduction or fence in the time step, and the sums are exact at any order.
using Counters = Kokkos::View<long*>;

/// The state's components that an elliptic solve works on when every level is at one
/// time: lap(phi) = rhs, the residual stored in res (-1: not stored). phi < 0: no solve.
struct EllipticFields {
  int phi = -1, rhs = -1, res = -1;
};

/// A module whose matter feels its own gravity: after each level step the solver finds
/// lap(phi) = four_pi_G (rho - rho_mean) on that level (rho_mean: the domain's mean
/// where the walls leave the problem singular, else 0) and calls gravity_kick(), which
/// keeps phi in component `phi` of the state. phi < 0: no self-gravity.
struct GravityFields {
  int phi = -1, density = -1;
  double four_pi_G = 0;
};

/// One level's owned patches at one step, for an update of all of them at once: from
/// u_old (ghosts filled at the step's time) to u_new, writing the face fluxes
/// flux[d] (faces(box, d) of each patch, widened to padded_faces(box, d, flux_padding)
/// where the physics asks; flux[2] is null in 2D), and on a refined level
/// adding dt times them to the level's flux register (a module whose fluxes are zero
/// may leave it as reset). Where no later step reads a level's fluxes (it has no finer
/// level to reflux) and the module keeps them in scratch (Physics::fluxes_in_scratch),
/// flux[] is all null: each patch's fluxes live in its team's scratch, padded by
/// flux_padding as a level's would be.
struct LevelUpdate {
  const LevelData& u_old;
  const LevelData& u_new;
  const LevelData* flux[3];
  int flux_padding = 0;  // of the fluxes in scratch (a stored one's are its own)
  /// scratch_size() of the largest owned patch, for a module that goes patch by patch.
  Scratch scratch;
  FluxRegister* reg = nullptr;  // null on level 0
  /// The owned patches to update (items: patch indices); null: all of them.
  const BoxSet* patches = nullptr;
  const BoxSet& owned() const { return patches ? *patches : u_old.interiors(); }
};

class Physics {
 public:
  virtual ~Physics() = default;

  virtual std::vector<std::string> component_names() const = 0;
  int ncomp() const { return int(component_names().size()); }
  /// Ghost layers the update needs (in each used direction).
  virtual int nghost() const = 0;
  /// Columns each side in x by which a level's face fluxes are widened (0: none). A
  /// module whose update runs a plane of its state and fluxes as one loop
  /// (team_plane_cells) asks for nghost(), so that their rows have one length; the
  /// columns beyond faces(box, d) are then scratch that advance() may overwrite. They
  /// cost memory (23% more flux on 16^3 patches with 2 ghost layers), so only a module
  /// that uses them asks.
  virtual int flux_padding() const { return 0; }
  /// Whether advance_level() can keep each patch's fluxes in its team's scratch where
  /// the level stores none (LevelUpdate::flux null): a module updating through
  /// for_each_patch_update can. Then a level without a finer one stores no fluxes: they
  /// stay in cache from the flux stages to the update and the register, and the finest
  /// level, most of a run's patches, does without their memory (for advection's padded
  /// fluxes on 16^3 patches, as much as its old and new states together).
  virtual bool fluxes_in_scratch() const { return false; }
  /// How a level stores its fluxes, given whether it has (or, for an estimate, may get)
  /// a finer level: the one rule of Hierarchy::fit_fluxes and the memory estimates.
  FluxStorage flux_storage(bool finer_level) const {
    return {finer_level || !fluxes_in_scratch(), flux_padding()};
  }
  /// Physical boundary conditions of each component on each non-periodic face.
  virtual BcSet boundary_conditions() const = 0;
  /// Coarse-to-fine interpolation of each component (ghost cells and new fine patches).
  virtual std::vector<Interp> interpolation() const = 0;
  /// The components the time stepper solves lap(phi) = rhs for (none by default: a
  /// hyperbolic module).
  virtual EllipticFields elliptic() const { return {}; }
  /// The components self-gravity works on (none by default).
  virtual GravityFields gravity() const { return {}; }
  /// The impulse of gravity over dt on the owned patches of u (in one launch):
  /// momenta += dt rho g with g = -grad phi (centred differences of component 0 of phi,
  /// the same layout, its first ghost layer filled), and the total energy gains the
  /// kinetic energy that adds; u's component gravity().phi takes phi (the interiors),
  /// in the same launch. The solver calls it after each level's solve; only modules
  /// with gravity() implement it.
  virtual void gravity_kick(const LevelGeom& /*g*/, LevelData& /*u*/,
                            const LevelData& /*phi*/, double /*dt*/) const {}
  /// The events advance() counts (none by default); the run summary prints their sums.
  virtual std::vector<std::string> counter_names() const { return {}; }
  /// Doubles of scratch that stable_dt() and advance() need for `box`.
  virtual long scratch_size(const Box& box) const = 0;

  /// Fill the cells of `cells` with the state at `time` (initial data, and exact
  /// solutions where the problem has one), box n's in patch u(item n), in one launch.
  /// Also called on the ghost cells beyond a face whose condition is BcKind::exact, at
  /// the time of the ghost fill.
  virtual void initial_data(const LevelGeom& g, const BoxSet& cells,
                            const StructArray<FabRef>& u, double time) const = 0;
  /// The same on cells `box` of one patch's data u (tests and tools; it allocates).
  void initial_data(const LevelGeom& g, const Box& box, const Array4& u,
                    double time) const;

  /// The largest dt for which the update of `box` is stable at CFL number 1 (the caller
  /// applies its CFL factor). u has valid interior values.
  virtual double stable_dt(const LevelGeom& g, const Box& box, const Array4& u,
                           double time, const Scratch& scratch) const = 0;

  /// Advance interior `box` from u_old (ghosts filled at `time`) to u_new over dt. Writes
  /// the face fluxes it used: flux[d](i, j, k, c) on the faces(box, d), the lo face of
  /// cell i, in conserved units per area and time, so u_new = u_old - dt/dx * (F_hi -
  /// F_lo) summed over d. Refluxing relies on that identity. In 2D flux[2] is not
  /// touched. Where flux[d] spans flux_padding() more columns each side in x, advance()
  /// may overwrite the values there. `scratch` holds at least scratch_size(box) doubles;
  /// `counters` has one slot per counter_names() entry.
  virtual void advance(const LevelGeom& g, const Box& box, const Array4& u_old,
                       const Array4& u_new, const Array4 flux[3], double time, double dt,
                       const Scratch& scratch, const Counters& counters) const = 0;

  /// The least stable_dt() over the owned patches of level data u (+inf for none). The
  /// default goes patch by patch; a module overrides it to reduce in one launch.
  virtual double stable_dt_level(const LevelGeom& g, const LevelData& u, double time,
                                 const Scratch& scratch) const;

  /// advance() on every patch of s.owned() (all owned patches of a level, or the group
  /// the stepper updates now), then their fluxes into s.reg when set. The default goes
  /// patch by patch; a module overrides it to update them in one launch
  /// (for_each_patch_update, which also fills the register; PoissonWorkload's fluxes are
  /// zero and skip it).
  virtual void advance_level(const LevelGeom& g, const LevelUpdate& s, double time,
                             double dt, const Counters& counters) const;

  /// Experiment harness (advection.extra_work): does the module add uneven extra work
  /// per patch? The stepper times emulated_work() patch by patch, so that measured costs
  /// see it while the update itself runs level-wide; with none, no timing per patch.
  virtual bool emulates_work() const { return false; }
  /// The extra work on `box` of the updated state u (answer-neutral), in
  /// scratch_size(box) doubles of scratch.
  virtual void emulated_work(const Box& /*box*/, const Array4& /*u*/,
                             const Scratch& /*scratch*/) const {}

  /// Whether tag() reads ghost cells: a regrid fills them first only then (a criterion
  /// on each cell's own values needs no ghost fill).
  virtual bool tag_reads_ghosts() const { return true; }
  /// Set tags.of(p)(i, j, k) = 1 where cell (i, j, k) of patch p of level `level` needs
  /// refinement, for every cell of tags.cells() (the owned patches' interiors, item p),
  /// in one launch. u(p) is patch p's state, its ghost cells filled where
  /// tag_reads_ghosts() (so gradient criteria may look one cell out). Tags are
  /// pre-zeroed.
  virtual void tag(const LevelGeom& g, const LevelTags& tags,
                   const StructArray<FabRef>& u, int level, double time) const = 0;
  /// Called on each level of a new hierarchy (not a restart's) once its initial data is
  /// in, before any step: a UserError where the deck's settings contradict the state it
  /// made (a hydro floor above the gas's density). Collective over comm.
  virtual void check_initial_state(const LevelData& /*u*/, int /*level*/,
                                   const Comm& /*comm*/) const {}
};

}  // namespace pw
