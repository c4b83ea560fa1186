#include "amr/update_refs.hpp"

#include <algorithm>

namespace pw {

UpdateRefs update_refs(const LevelUpdate& s) {
  const BoxSet& owned = s.owned();  // items: patch indices
  UpdateRefs r;
  r.n = owned.size();
  r.patch = owned.item;
  r.box = owned.box;
  r.u_old = s.u_old.refs();
  r.u_new = s.u_new.refs();
  for (int d = 0; d < 3; ++d)
    if (s.flux[d]) r.flux[d] = s.flux[d]->refs();
  if (!s.flux[0]) {  // the fluxes in each team's scratch, sized for the largest patch
    r.scratch_fluxes = true;
    r.poison = LevelData::unset_values_poisoned();
    r.flux_padding = s.flux_padding;
    r.ncomp = s.u_old.ncomp();
    const int dim = s.u_old.geom().dim;
    for (size_t p = 0; p < s.u_old.size(); ++p) {
      if (s.u_old[p].data.size() == 0) continue;
      long n = 0;
      for (int d = 0; d < dim; ++d)
        n += padded_faces(s.u_old.layout().boxes[p], d, s.flux_padding).num_cells();
      r.flux_doubles = std::max(r.flux_doubles, n * r.ncomp);
    }
  }
  if (s.reg) {
    r.to_register = true;
    r.reg = s.reg->team_adder();
  }
  return r;
}

UpdateRefs update_refs(const Box& box, const Array4& u_old, const Array4& u_new,
                       const Array4 flux[3]) {
  UpdateRefs r;
  r.n = 1;
  r.patch = one_on_device(0);
  r.box = one_on_device(box);
  r.u_old = one_on_device(fab_ref(u_old));
  r.u_new = one_on_device(fab_ref(u_new));
  for (int d = 0; d < 3; ++d)
    r.flux[d] = one_on_device(fab_ref(flux[d]));
  return r;
}

long largest_scratch_size(const Physics& physics, const LevelData& u) {
  long n = 0;
  for (size_t p = 0; p < u.size(); ++p)
    if (u[p].data.size() > 0) n = std::max(n, physics.scratch_size(u.layout().boxes[p]));
  return n;
}

}  // namespace pw
