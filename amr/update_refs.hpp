// What a team reads of the patches it updates (amr/patch_teams.hpp): a physics module's
// level update runs one team per owned patch, and finds the patch's box and data here.
#pragma once

#include <Kokkos_Core.hpp>
#include <limits>
#include <vector>

#include "amr/field3.hpp"
#include "amr/patch_teams.hpp"
#include "amr/physics.hpp"

namespace pw {

/// One patch's data in an update: interior `box`, the state before and after, and the
/// face fluxes (flux[2] empty in 2D).
struct PatchRefs {
  Box box;
  FabRef u_old, u_new, flux[3];
};

/// The patches of one update: team t updates interior box(t) of patch patch(t), whose
/// data is u_old(patch(t)) etc. Views the level's data caches, so nothing is allocated
/// per step.
struct UpdateRefs {
  int n = 0;
  Kokkos::View<int*> patch;
  StructArray<Box> box;
  StructArray<FabRef> u_old, u_new, flux[3];  // flux[2] empty in 2D
  bool to_register = false;                   // a refined level: fluxes go into reg too
  FluxRegister::TeamAdder reg;
  /// Where the level stores no fluxes (flux[] empty): each team keeps its patch's
  /// fluxes in flux_doubles of its scratch, after the module's, padded_faces(box, d,
  /// flux_padding) with ncomp components each; set to NaN first when unset values are
  /// poisoned (LevelData::poison_unset_values, for tests).
  bool scratch_fluxes = false, poison = false;
  long flux_doubles = 0;
  int flux_padding = 0, ncomp = 0;

  /// Team t's patch; its fluxes at flux_mem where the level stores none.
  template <int DIM>
  KOKKOS_INLINE_FUNCTION PatchRefs at(int t, double* flux_mem) const {
    const int p = patch(t);
    PatchRefs pr{box(t), u_old(p), u_new(p), {}};
    for (int d = 0; d < DIM; ++d) {
      if (!scratch_fluxes) {
        pr.flux[d] = flux[d](p);
        continue;
      }
      const Box fb = padded_faces(pr.box, d, flux_padding);
      pr.flux[d] = {field_over(flux_mem, fb), fb.num_cells()};
      flux_mem += ncomp * fb.num_cells();
    }
    return pr;
  }
};

/// A one-element device array holding x.
template <class T>
auto one_on_device(const T& x) {
  return device_copy("one_on_device", std::vector<T>{x});
}

/// The owned patches of a level update.
UpdateRefs update_refs(const LevelUpdate& s);
/// One patch (per-patch callers: tests, the kernel benchmark); allocates.
UpdateRefs update_refs(const Box& box, const Array4& u_old, const Array4& u_new,
                       const Array4 flux[3]);
/// Launch body(m, PatchRefs, scratch) with a team per patch of refs (for_each_team with
/// `doubles` of scratch each, and the fluxes after them where the level stores none); on
/// a refined level the team then adds dt times its patch's fluxes to the flux register,
/// while they are in cache.
template <int DIM, class F>
void for_each_patch_update(const std::string& label, const UpdateRefs& refs, long doubles,
                           double dt, const F& body) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for_each_team(
      label, refs.n, doubles + refs.flux_doubles,
      KOKKOS_LAMBDA(const TeamMember& m, int t, double* mem) {
        const PatchRefs pr = refs.template at<DIM>(t, mem + doubles);
        if (refs.poison) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, refs.flux_doubles),
                               [&](long i) { mem[doubles + i] = nan; });
          m.team_barrier();
        }
        body(m, pr, mem);
        if (refs.to_register) refs.reg.add(m, refs.patch(t), pr.flux, dt);
      });
}

/// The largest physics.scratch_size() over the owned patches of u.
long largest_scratch_size(const Physics& physics, const LevelData& u);

}  // namespace pw
