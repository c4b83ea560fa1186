#include "amr/physics.hpp"

#include <algorithm>
#include <limits>

namespace pw {

double Physics::stable_dt_level(const LevelGeom& g, const LevelData& u, double time,
                                const Scratch& scratch) const {
  double dt = std::numeric_limits<double>::infinity();
  for (size_t p = 0; p < u.size(); ++p)
    if (u[p].data.size() > 0)
      dt = std::min(dt, stable_dt(g, u.layout().boxes[p], u[p].array(), time, scratch));
  return dt;
}

void Physics::advance_level(const LevelGeom& g, const LevelUpdate& s, double time,
                            double dt, const Counters& counters) const {
  for (size_t p = 0; p < s.u_old.size(); ++p) {
    const Fab& u_old = s.u_old[p];
    if (u_old.data.size() == 0) continue;  // not owned
    Array4 flux[3];
    for (int d = 0; d < 3; ++d)
      if (s.flux[d]) flux[d] = (*s.flux[d])[p].array();
    advance(g, s.u_old.layout().boxes[p], u_old.array(), s.u_new[p].array(), flux, time,
            dt, s.scratch, counters);
  }
  if (s.reg) {
    const FluxRegister::Refs flux[3] = {
        s.flux[0]->refs(), s.flux[1]->refs(),
        s.flux[2] ? s.flux[2]->refs() : FluxRegister::Refs()};
    s.reg->add_fine(flux, dt);
  }
}

}  // namespace pw
