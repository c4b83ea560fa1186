// Linear advection of passive scalars by a prescribed, discretely divergence-free
// velocity, with the unsplit second-order CTU Godunov scheme of AMReX's
// Advection_AmrCore.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "amr/deck.hpp"
#include "amr/physics.hpp"
#include "physics/advection_kernels.hpp"
#include "physics/velocity_fields.hpp"

namespace pw {

struct UpdateRefs;
namespace advection_detail {
struct FrozenVelocity;
}  // namespace advection_detail

/// Deck section [advection] (defaults in brackets):
///   ncomp [1]; velocity = "uniform" | "rotation" | ["swirl"];
///   swirl: period [2.0]; rotation: omega [2 pi], center [domain centre];
///   uniform: velocity_uniform [1, 1(, 1)];
///   initial = ["gaussian"] | "sine"; background [1.0]; amplitude [1.0];
///   gaussian: blob_center [0.5, 0.75(, 0.5)], width [0.1], blob_3d [false];
///   extra_work [0], extra_work_above [1.1]: that many extra iterations of answer-neutral
///   arithmetic in each cell whose phi0 exceeds the bound, so that the cost per cell is
///   not uniform (as in Morris's workload, seed 002) and cost models matter; tag =
///   ["threshold"] | "gradient"; threshold: tag_threshold [1.01, 1.1, 1.5] (per level,
///   the last for deeper levels); gradient: tag_gradient [0.05].
/// Only the keys of the chosen options are read, so a key set for another option is
/// reported by Deck::check_all_used.
class Advection : public Physics {
 public:
  /// Reads and checks the [advection] section; throws UserError naming the bad key.
  Advection(const Deck& deck, int dim);

  std::vector<std::string> component_names() const override;
  /// 2: the normal predictor of a face reads two cells on each side (the slope of the
  /// upwind cell), and the corner terms read one cell sideways. AMReX's example uses 3
  /// because it computes every stage on boxes grown by one more cell than needed.
  int nghost() const override { return 2; }
  int flux_padding() const override;
  bool fluxes_in_scratch() const override { return true; }
  /// Outflow walls for every component.
  BcSet boundary_conditions() const override;
  /// Limited (MC) linear: conservative, and no new extrema.
  std::vector<Interp> interpolation() const override;
  long scratch_size(const Box& box) const override;

  using Physics::initial_data;
  void initial_data(const LevelGeom& g, const BoxSet& cells, const StructArray<FabRef>& u,
                    double time) const override;
  double stable_dt(const LevelGeom& g, const Box& box, const Array4& u, double time,
                   const Scratch& scratch) const override;
  /// All owned patches in one reduction, a team per patch.
  double stable_dt_level(const LevelGeom& g, const LevelData& u, double time,
                         const Scratch& scratch) const override;
  void advance(const LevelGeom& g, const Box& box, const Array4& u_old,
               const Array4& u_new, const Array4 flux[3], double time, double dt,
               const Scratch& scratch, const Counters& counters) const override;
  /// All owned patches in one launch, a team per patch.
  void advance_level(const LevelGeom& g, const LevelUpdate& s, double time, double dt,
                     const Counters& counters) const override;
  bool emulates_work() const override { return extra_work_ > 0; }
  void emulated_work(const Box& box, const Array4& u,
                     const Scratch& scratch) const override;
  /// The threshold criterion reads each cell alone; the gradient one its neighbours.
  bool tag_reads_ghosts() const override { return tag_kind_ == TagKind::gradient; }
  void tag(const LevelGeom& g, const LevelTags& tags, const StructArray<FabRef>& u,
           int level, double time) const override;

 private:
  enum class TagKind { threshold, gradient };

  /// The field with defaults that depend on the level (the domain centre) filled in.
  VelocityField field_for(const LevelGeom& g) const;
  /// field_for(g) at `time` as kernels read it, with the level's stream factors (found
  /// at a level's first use, kept in factors_: they reach the domain's nodes and 2
  /// beyond, so a box must lie in the domain).
  advection_detail::FrozenVelocity frozen(const LevelGeom& g, double time) const;
  /// Throws std::logic_error unless box lies in g's domain (what a patch's velocity
  /// planes may read of the level's stream factors).
  static void inside_domain(const LevelGeom& g, const Box& box, const char* what);
  /// The least stable dt over boxes box(0 .. n - 1), with `doubles` of scratch per team.
  double min_dt(const LevelGeom& g, const StructArray<Box>& box, int n, long doubles,
                double time) const;
  /// The update of the patches of refs, with `doubles` of scratch per team.
  void launch(const LevelGeom& g, const UpdateRefs& refs, long doubles, double time,
              double dt) const;

  int dim_;
  int ncomp_;
  VelocityField field_;
  bool center_given_ = false;
  InitialProfile profile_;
  TagKind tag_kind_ = TagKind::threshold;
  std::vector<double> tag_threshold_;
  double tag_gradient_ = 0.05;
  int extra_work_ = 0;  // extra iterations per cell where phi0 > extra_work_above_
  double extra_work_above_ = 1.1;
  mutable std::vector<std::pair<LevelGeom, StreamFactors>> factors_;
};

}  // namespace pw
