// The 2D kernels of the hydro update (hydro_update.hpp).
#include "physics/hydro_update.hpp"

namespace pw::hydro_detail {

template void advance_dispatch<2>(const HydroParams&, const LevelGeom&, const UpdateRefs&,
                                  long, double, const Counters&);

}  // namespace pw::hydro_detail
