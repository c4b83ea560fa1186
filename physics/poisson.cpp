#include "physics/poisson.hpp"

#include <cmath>

#include "amr/amr_config.hpp"
#include "physics/deck_values.hpp"
#include "solver/mg_config.hpp"

namespace pw {

using deck_values::positive;

namespace poisson_detail {

/// One cell's step: phi and res carried over from u_old, f = the clumps at time t.
template <class A>
KOKKOS_INLINE_FUNCTION void step_cell(const Clumps& c, const LevelGeom& g, int dim,
                                      double t, const A& u_old, const A& u_new, int i,
                                      int j, int k) {
  const double x[3] = {g.center(0, i), g.center(1, j), g.center(2, k)};
  u_new(i, j, k, 0) = u_old(i, j, k, 0);
  u_new(i, j, k, 1) = c(x, dim, t);
  u_new(i, j, k, 2) = u_old(i, j, k, 2);
}

}  // namespace poisson_detail

using poisson_detail::step_cell;

PoissonWorkload::PoissonWorkload(const Deck& deck, int dim) : dim_(dim) {
  const AmrConfig amr = read_amr_config(deck);
  const LevelGeom& g = amr.geom0;
  dx0_ = g.dx[0];
  clumps_ = read_clumps(deck, g, 0.5);
  const int n = clumps_.count;
  double amax = 0;
  for (int k = 0; k < n; ++k) {
    double v2 = 0;
    for (int d = 0; d < dim; ++d)
      v2 += clumps_.velocity[k][d] * clumps_.velocity[k][d];
    max_speed_ = std::max(max_speed_, std::sqrt(v2));
    amax = std::max(amax, std::abs(clumps_.amplitude[k]));
  }
  tag_threshold_ = positive(deck, "poisson.tag_threshold", 0.01) * amax * dx0_ * dx0_;
  // phi's walls are the solver's; f and res are only ever read inside the domain.
  const PoissonBc bc = read_poisson_bc(deck, g);
  bcs_ = bc.as_bcs();
  bcs_.push_back(ComponentBc());
  bcs_.push_back(ComponentBc());
}

std::vector<Interp> PoissonWorkload::interpolation() const {
  return {Interp::quadratic, Interp::conservative_linear, Interp::conservative_linear};
}

void PoissonWorkload::initial_data(const LevelGeom& g, const BoxSet& cells,
                                   const StructArray<FabRef>& u, double time) const {
  const Clumps c = clumps_;
  const int dim = dim_;
  for_each_box_cell(
      "poisson::initial_data", cells, KOKKOS_LAMBDA(int it, int i, int j, int k) {
        const FabRef a = u(it);
        const double x[3] = {g.center(0, i), g.center(1, j), g.center(2, k)};
        a(i, j, k, 0) = 0.0;
        a(i, j, k, 1) = c(x, dim, time);
        a(i, j, k, 2) = 0.0;
      });
}

double PoissonWorkload::stable_dt(const LevelGeom& g, const Box&, const Array4&, double,
                                  const Scratch&) const {
  double dx = g.dx[0];
  for (int d = 1; d < dim_; ++d)
    dx = std::min(dx, g.dx[d]);
  return max_speed_ > 0 ? dx / max_speed_ : 1e300;
}

void PoissonWorkload::advance(const LevelGeom& g, const Box& box, const Array4& u_old,
                              const Array4& u_new, const Array4 flux[3], double time,
                              double dt, const Scratch&, const Counters&) const {
  const Clumps c = clumps_;
  const int dim = dim_;
  const double t = time + dt;
  for_each_cell(
      "poisson::advance", box, KOKKOS_LAMBDA(int i, int j, int k) {
        step_cell(c, g, dim, t, u_old, u_new, i, j, k);
      });
  for (int d = 0; d < dim_; ++d) {
    const Array4 f = flux[d];
    for_each_cell(
        "poisson::zero_flux", faces(box, d), KOKKOS_LAMBDA(int i, int j, int k) {
          for (int n = 0; n < 3; ++n)
            f(i, j, k, n) = 0.0;
        });
  }
}

void PoissonWorkload::advance_level(const LevelGeom& g, const LevelUpdate& s, double time,
                                    double dt, const Counters& /*counters*/) const {
  const Clumps c = clumps_;
  const int dim = dim_;
  const double t = time + dt;
  const StructArray<FabRef> u_old = s.u_old.refs(), u_new = s.u_new.refs();
  const StructArray<Box> boxes = s.u_old.patch_boxes();
  const StructArray<FabRef> none;
  const StructArray<FabRef> flux[3] = {s.flux[0] ? s.flux[0]->refs() : none,
                                       s.flux[1] ? s.flux[1]->refs() : none,
                                       s.flux[2] ? s.flux[2]->refs() : none};
  for_each_box_cell(
      "poisson::advance", s.owned(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        step_cell(c, g, dim, t, u_old(p), u_new(p), i, j, k);
        // The faces of the patch's cells: each cell's low face, and the high one past
        // the patch's last cell.
        const Box b = boxes(p);
        const int at[3] = {i, j, k};
        for (int d = 0; d < dim; ++d) {
          if (flux[d].extent(0) == 0) continue;
          const FabRef f = flux[d](p);
          for (int n = 0; n < 3; ++n)
            f(i, j, k, n) = 0.0;
          if (at[d] == b.hi[d])
            for (int n = 0; n < 3; ++n)
              f(i + (d == 0), j + (d == 1), k + (d == 2), n) = 0.0;
        }
      });
}

void PoissonWorkload::tag(const LevelGeom& g, const LevelTags& tags,
                          const StructArray<FabRef>& u, int /*level*/,
                          double /*time*/) const {
  // |f| dx^2 = |lap phi| dx^2 once solved: the undivided Laplacian.
  const double thr = tag_threshold_ / (g.dx[0] * g.dx[0]);
  for_each_box_cell(
      "poisson::tag", tags.cells(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        const double f = u(p)(i, j, k, 1);
        if ((f < 0 ? -f : f) > thr) tags.of(p)(i, j, k) = 1;
      });
}

}  // namespace pw
