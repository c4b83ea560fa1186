// The MUSCL-Hancock update of many patches in one launch, a team per patch running the
// stages over its cells or faces, with the limiter and the Riemann solver as template
// arguments. Its sixteen kernels (2 dimensions x 4 limiters x 2 Riemann solvers) are the
// project's slowest code to compile, so each dimension's are instantiated in a source
// file of its own (hydro_update_2d.cpp, hydro_update_3d.cpp) and the two compile side by
// side.
#pragma once

#include <type_traits>

#include "amr/patch_teams.hpp"
#include "physics/hydro_advance.hpp"

namespace pw {

// Launch helpers hold the kernels: free functions (not private members), because CUDA's
// extended lambdas may not live in private member functions; a named namespace, as
// CUDA does not allow them in functions of an unnamed one.
namespace hydro_detail {

using namespace hydro_index;

/// The cells whose primitives the predictor reads: box grown by 2 in the used directions.
template <int DIM>
KOKKOS_INLINE_FUNCTION Box prim_box(const Box& box) {
  return grow(box, IntVect::in_dims(DIM, 2, 0));
}
/// The cells whose predicted states the faces of box read: box grown by 1.
template <int DIM>
KOKKOS_INLINE_FUNCTION Box state_box(const Box& box) {
  return grow(box, IntVect::in_dims(DIM, 1, 0));
}

/// Scratch: the gas's primitive arrays over prim_box, then nv predicted-state arrays and
/// nv slope arrays per direction over state_box.
template <int DIM>
long scratch_doubles(const Box& box, int nv) {
  return nbase * prim_box<DIM>(box).num_cells() +
         nv * (1 + DIM) * state_box<DIM>(box).num_cells();
}

/// Fields over the scratch of one patch.
template <int DIM>
struct HydroScratch {
  VarFields w;        // the gas's primitives over prim_box
  VarFields ws;       // predicted (t + dt/2) primitives over state_box
  VarFields dw[DIM];  // limited slopes along each direction over state_box

  KOKKOS_INLINE_FUNCTION HydroScratch(const Box& box, int nv, double* mem) {
    const Box pb = prim_box<DIM>(box), sb = state_box<DIM>(box);
    const long np = pb.num_cells(), ns = sb.num_cells();
    for (int c = 0; c < nbase; ++c)
      w.v[c] = field_over(mem + c * np, pb);
    mem += nbase * np;
    for (int c = 0; c < nv; ++c)
      ws.v[c] = field_over(mem + c * ns, sb);
    mem += nv * ns;
    for (int d = 0; d < DIM; ++d)
      for (int c = 0; c < nv; ++c)
        dw[d].v[c] = field_over(mem + (d * nv + c) * ns, sb);
  }
};

/// The predictor of cell (i, j, k): limited slopes of the gas's primitives along each
/// direction, and the state at t + dt/2 from the quasi-linear equations (with gravity's
/// acceleration from the old potential phi, when on). Falls back to
/// first order (no slopes) where a face state would lose positivity, and counts that in
/// t.n[0] for the cells of `box`. Selects throughout, and gravity a template argument: no
/// branch in the loop over a row's cells. (GCC 12 still leaves that loop scalar: it does
/// not see the stores as consecutive.)
template <int DIM, Limiter L, bool GRAVITY>
KOKKOS_FORCEINLINE_FUNCTION void predict_cell(int i, int j, int k, const HydroParams& hp,
                                              const HydroScratch<DIM>& s,
                                              const Field3& phi, const double hdt[3],
                                              const Box& box, Tally<1>& t) {
  double w[nbase], dw[DIM][nbase], change[nbase];
  PW_UNROLL
  for (int c = 0; c < nbase; ++c) {
    w[c] = s.w.v[c](i, j, k);
    change[c] = 0.0;
  }
  PW_UNROLL
  for (int d = 0; d < DIM; ++d) {
    const int di = d == 0, dj = d == 1, dk = d == 2;
    PW_UNROLL
    for (int c = 0; c < nbase; ++c) {
      const Field3& f = s.w.v[c];
      dw[d][c] = limit_slope<L>(w[c] - f(i - di, j - dj, k - dk),
                                f(i + di, j + dj, k + dk) - w[c]);
    }
    double a[nbase] = {0, 0, 0, 0, 0};
    primitive_flux_slope(hp, d, w, dw[d], a);
    PW_UNROLL
    for (int c = 0; c < nbase; ++c)
      change[c] += hdt[d] * a[c];
    // Gravity's half-step acceleration, g_d = -d phi / dx_d centred.
    if constexpr (GRAVITY)
      change[vel + d] +=
          hdt[d] * 0.5 * (phi(i + di, j + dj, k + dk) - phi(i - di, j - dj, k - dk));
  }
  double ws[nbase];
  PW_UNROLL
  for (int c = 0; c < nbase; ++c)
    ws[c] = w[c] - change[c];
  bool ok = admissible(ws);
  PW_UNROLL
  for (int d = 0; d < DIM; ++d) {
    PW_UNROLL
    for (int side = -1; side <= 1; side += 2) {
      double face[nbase];
      face[rho] = ws[rho] + 0.5 * side * dw[d][rho];
      face[pres] = ws[pres] + 0.5 * side * dw[d][pres];
      ok = ok & admissible(face);
    }
  }
  const bool inside = (i >= box.lo[0]) & (i <= box.hi[0]) & (j >= box.lo[1]) &
                      (j <= box.hi[1]) & (k >= box.lo[2]) & (k <= box.hi[2]);
  t.n[0] += long(!ok & inside);
  PW_UNROLL
  for (int c = 0; c < nbase; ++c) {
    s.ws.v[c](i, j, k) = ok ? ws[c] : w[c];
    PW_UNROLL
    for (int d = 0; d < DIM; ++d)
      s.dw[d].v[c](i, j, k) = ok ? dw[d][c] : 0.0;
  }
}

/// The predictor of the passive scalars of cell (i, j, k): limited slopes of the scalar
/// (density times scalar over density), carried by the cell's velocity for half a step.
/// (Their slopes never make the gas fall back.)
template <int DIM, Limiter L>
KOKKOS_FORCEINLINE_FUNCTION void predict_scalars(int i, int j, int k,
                                                 const HydroParams& hp,
                                                 const HydroScratch<DIM>& s,
                                                 const VarFields& u,
                                                 const double hdt[3]) {
  const Field3& r = s.w.v[rho];
  for (int c = nbase; c < hp.nvars(); ++c) {
    const double q = u.v[c](i, j, k) / r(i, j, k);
    double change = 0.0;
    for (int d = 0; d < DIM; ++d) {
      const int di = d == 0, dj = d == 1, dk = d == 2;
      const double qm = u.v[c](i - di, j - dj, k - dk) / r(i - di, j - dj, k - dk);
      const double qp = u.v[c](i + di, j + dj, k + dk) / r(i + di, j + dj, k + dk);
      const double dq = limit_slope<L>(q - qm, qp - q);
      change += hdt[d] * s.w.v[vel + d](i, j, k) * dq;
      s.dw[d].v[c](i, j, k) = dq;
    }
    s.ws.v[c](i, j, k) = q - change;
  }
}

/// The Riemann flux through the D-face (i, j, k) (the lo face of cell i) between the
/// predicted states of the cells beside it, into flux (conserved order).
template <int DIM, int D, RiemannSolver R>
KOKKOS_FORCEINLINE_FUNCTION void face_flux(int i, int j, int k, const HydroParams& hp,
                                           const HydroScratch<DIM>& s,
                                           const VarFields& flux) {
  constexpr int di = D == 0, dj = D == 1, dk = D == 2;
  double wl[nbase], wr[nbase], f[nbase];
  PW_UNROLL
  for (int c = 0; c < nbase; ++c) {
    wl[c] =
        s.ws.v[c](i - di, j - dj, k - dk) + 0.5 * s.dw[D].v[c](i - di, j - dj, k - dk);
    wr[c] = s.ws.v[c](i, j, k) - 0.5 * s.dw[D].v[c](i, j, k);
  }
  riemann_flux<R>(hp, D, wl, wr, f);
  PW_UNROLL
  for (int c = 0; c < nbase; ++c)
    flux.v[c](i, j, k) = f[c];
}

/// The passive scalars' fluxes through the D-face (i, j, k), upwind by its mass flux.
template <int DIM, int D>
KOKKOS_FORCEINLINE_FUNCTION void scalar_face_flux(int i, int j, int k,
                                                  const HydroParams& hp,
                                                  const HydroScratch<DIM>& s,
                                                  const VarFields& flux) {
  constexpr int di = D == 0, dj = D == 1, dk = D == 2;
  const double mass = flux.v[rho](i, j, k);
  for (int c = nbase; c < hp.nvars(); ++c) {
    const double sl =
        s.ws.v[c](i - di, j - dj, k - dk) + 0.5 * s.dw[D].v[c](i - di, j - dj, k - dk);
    const double sr = s.ws.v[c](i, j, k) - 0.5 * s.dw[D].v[c](i, j, k);
    flux.v[c](i, j, k) = scalar_flux(mass, sl, sr);
  }
}

/// Component c of cell (i, j, k) after the conservative update.
template <int DIM>
KOKKOS_FORCEINLINE_FUNCTION double updated(int c, int i, int j, int k, const VarFields& u,
                                           const VarFields flux[3],
                                           const double dtdx[3]) {
  double v = u.v[c](i, j, k);
  v -= dtdx[0] * (flux[0].v[c](i + 1, j, k) - flux[0].v[c](i, j, k));
  v -= dtdx[1] * (flux[1].v[c](i, j + 1, k) - flux[1].v[c](i, j, k));
  if constexpr (DIM == 3)
    v -= dtdx[2] * (flux[2].v[c](i, j, k + 1) - flux[2].v[c](i, j, k));
  return v;
}

/// The kinetic energy density of conserved state q.
KOKKOS_FORCEINLINE_FUNCTION double kinetic(const double* q) {
  using namespace hydro_index;
  return 0.5 * (q[mom] * q[mom] + q[mom + 1] * q[mom + 1] + q[mom + 2] * q[mom + 2]) /
         q[rho];
}

/// The conservative update of the gas in cell (i, j, k), then the floors, counted in
/// t.n[0] (density) and t.n[1] (pressure). With gravity, the first half of the step's
/// kick: dt/2 rho g from the old density and potential (the solver adds the second half
/// from the new ones), the energy gaining the kinetic energy it adds.
template <int DIM, bool GRAVITY>
KOKKOS_FORCEINLINE_FUNCTION void update_cell(int i, int j, int k, const HydroParams& hp,
                                             const VarFields& u, const VarFields& un,
                                             const Field3& rho_old, const Field3& phi,
                                             const VarFields flux[3],
                                             const double dtdx[3], Tally<2>& t) {
  double q[nbase];
  PW_UNROLL
  for (int c = 0; c < nbase; ++c)
    q[c] = updated<DIM>(c, i, j, k, u, flux, dtdx);
  const bool low_density = q[rho] < hp.density_floor;
  q[rho] = low_density ? hp.density_floor : q[rho];
  if constexpr (GRAVITY) {
    const double ke = kinetic(q), r = rho_old(i, j, k);
    PW_UNROLL
    for (int d = 0; d < DIM; ++d) {
      const int di = d == 0, dj = d == 1, dk = d == 2;
      q[mom + d] -= 0.25 * dtdx[d] * r *
                    (phi(i + di, j + dj, k + dk) - phi(i - di, j - dj, k - dk));
    }
    q[energy] += kinetic(q) - ke;
  }
  const double ke = kinetic(q);
  const bool low_pressure = (hp.gamma - 1.0) * (q[energy] - ke) < hp.pressure_floor;
  // Computed in every cell, so that the select below needs no branch.
  const double floor_energy = hp.pressure_floor / (hp.gamma - 1.0) + ke;
  q[energy] = low_pressure ? floor_energy : q[energy];
  t.n[0] += long(low_density);
  t.n[1] += long(low_pressure);
  PW_UNROLL
  for (int c = 0; c < nbase; ++c)
    un.v[c](i, j, k) = q[c];
}

/// The update of one patch by team m, with hydro_scratch_size doubles at mem.
template <int DIM, Limiter L, RiemannSolver R>
KOKKOS_INLINE_FUNCTION void team_advance(const TeamMember& m, const HydroParams& hp,
                                         const LevelGeom& g, const PatchRefs& pr,
                                         double dt, double* mem,
                                         const Counters& counters) {
  const Box box = pr.box;
  const int nv = hp.nvars();
  const HydroScratch<DIM> s(box, nv, mem);
  const VarFields u = fields_of(pr.u_old, nv), un = fields_of(pr.u_new, nv);
  const VarFields fl[3] = {fields_of(pr.flux[0], nv), fields_of(pr.flux[1], nv),
                           DIM == 3 ? fields_of(pr.flux[2], nv) : VarFields{}};
  const double hdt[3] = {0.5 * dt / g.dx[0], 0.5 * dt / g.dx[1], 0.5 * dt / g.dx[2]};
  const double dtdx[3] = {dt / g.dx[0], dt / g.dx[1], dt / g.dx[2]};
  const VarFields& w = s.w;
  const bool scalars = hp.nscalars > 0;
  // The potential rides along unchanged (the solver replaces it after the step) and has
  // no flux.
  const Field3 phi = hp.gravity ? pr.u_old.comp(nv) : Field3();
  if (hp.gravity) {
    const Field3 phi_new = pr.u_new.comp(nv);
    team_cells(m, box, [&](int i, int j, int k) { phi_new(i, j, k) = phi(i, j, k); });
    for (int d = 0; d < DIM; ++d) {
      const Field3 f = pr.flux[d].comp(nv);
      team_cells(m, faces(box, d), [&](int i, int j, int k) { f(i, j, k) = 0.0; });
    }
  }
  using namespace hydro_counter;
  team_cells_tally<1>(m, prim_box<DIM>(box), counters, read_floors,
                      [&](int i, int j, int k, Tally<1>& t) {
                        double q[nbase];
                        t.n[0] += to_primitive(hp, u, i, j, k, q);
                        for (int c = 0; c < nbase; ++c)
                          w.v[c](i, j, k) = q[c];
                      });
  // Gravity or not chosen here, outside the loops over cells (see predict_cell).
  if (hp.gravity) {
    team_cells_tally<1>(m, state_box<DIM>(box), counters, fallbacks,
                        [&](int i, int j, int k, Tally<1>& t) {
                          predict_cell<DIM, L, true>(i, j, k, hp, s, phi, hdt, box, t);
                        });
  } else {
    team_cells_tally<1>(m, state_box<DIM>(box), counters, fallbacks,
                        [&](int i, int j, int k, Tally<1>& t) {
                          predict_cell<DIM, L, false>(i, j, k, hp, s, phi, hdt, box, t);
                        });
  }
  if (scalars)
    team_cells(m, state_box<DIM>(box), [&](int i, int j, int k) {
      predict_scalars<DIM, L>(i, j, k, hp, s, u, hdt);
    });
  team_cells(m, faces(box, 0),
             [&](int i, int j, int k) { face_flux<DIM, 0, R>(i, j, k, hp, s, fl[0]); });
  team_cells(m, faces(box, 1),
             [&](int i, int j, int k) { face_flux<DIM, 1, R>(i, j, k, hp, s, fl[1]); });
  if constexpr (DIM == 3) {
    team_cells(m, faces(box, 2),
               [&](int i, int j, int k) { face_flux<DIM, 2, R>(i, j, k, hp, s, fl[2]); });
  }
  if (scalars) {
    team_cells(m, faces(box, 0), [&](int i, int j, int k) {
      scalar_face_flux<DIM, 0>(i, j, k, hp, s, fl[0]);
    });
    team_cells(m, faces(box, 1), [&](int i, int j, int k) {
      scalar_face_flux<DIM, 1>(i, j, k, hp, s, fl[1]);
    });
    if constexpr (DIM == 3) {
      team_cells(m, faces(box, 2), [&](int i, int j, int k) {
        scalar_face_flux<DIM, 2>(i, j, k, hp, s, fl[2]);
      });
    }
  }
  if (hp.gravity) {
    team_cells_tally<2>(
        m, box, counters, density_floors, [&](int i, int j, int k, Tally<2>& t) {
          update_cell<DIM, true>(i, j, k, hp, u, un, w.v[rho], phi, fl, dtdx, t);
        });
  } else {
    team_cells_tally<2>(
        m, box, counters, density_floors, [&](int i, int j, int k, Tally<2>& t) {
          update_cell<DIM, false>(i, j, k, hp, u, un, w.v[rho], phi, fl, dtdx, t);
        });
  }
  if (scalars)
    team_cells(m, box, [&](int i, int j, int k) {
      for (int c = nbase; c < hp.nvars(); ++c)
        un.v[c](i, j, k) = updated<DIM>(c, i, j, k, u, fl, dtdx);
    });
}

/// team_advance over the patches of refs in one launch.
template <int DIM, Limiter L, RiemannSolver R>
void advance_patches(const HydroParams& hp, const LevelGeom& g, const UpdateRefs& refs,
                     long doubles, double dt, const Counters& counters) {
  for_each_patch_update<DIM>(
      "hydro::advance", refs, doubles, dt,
      KOKKOS_LAMBDA(const TeamMember& m, const PatchRefs& pr, double* mem) {
        team_advance<DIM, L, R>(m, hp, g, pr, dt, mem, counters);
      });
}

/// advance_patches for the run's limiter and Riemann solver (template arguments, so that
/// the kernels hold no branch on them).
template <int DIM>
void advance_dispatch(const HydroParams& hp, const LevelGeom& g, const UpdateRefs& refs,
                      long doubles, double dt, const Counters& counters) {
  auto with = [&](auto lim) {
    constexpr Limiter L = decltype(lim)::value;
    if (hp.riemann == RiemannSolver::hlle) {
      advance_patches<DIM, L, RiemannSolver::hlle>(hp, g, refs, doubles, dt, counters);
    } else {
      advance_patches<DIM, L, RiemannSolver::hllc>(hp, g, refs, doubles, dt, counters);
    }
  };
  switch (hp.limiter) {
    case Limiter::first_order:
      return with(std::integral_constant<Limiter, Limiter::first_order>());
    case Limiter::minmod:
      return with(std::integral_constant<Limiter, Limiter::minmod>());
    case Limiter::van_leer:
      return with(std::integral_constant<Limiter, Limiter::van_leer>());
    case Limiter::mc:
      return with(std::integral_constant<Limiter, Limiter::mc>());
  }
}

extern template void advance_dispatch<2>(const HydroParams&, const LevelGeom&,
                                         const UpdateRefs&, long, double,
                                         const Counters&);
extern template void advance_dispatch<3>(const HydroParams&, const LevelGeom&,
                                         const UpdateRefs&, long, double,
                                         const Counters&);

}  // namespace hydro_detail

}  // namespace pw
