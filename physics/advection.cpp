// The advection module: deck reading, and the CTU update of many patches in one launch,
// a team per patch running the stages over its cells.
#include "physics/advection.hpp"

#include "amr/patch_teams.hpp"
#include "amr/update_refs.hpp"

#include "physics/deck_values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace pw {

// Launch helpers hold the kernels: free functions (not private members), because CUDA's
// extended lambdas may not live in private member functions.
namespace advection_detail {

using Plane = FaceVelocity::Plane;

/// Nodes of the velocity planes of `box` in x and y: those of the box grown by `halo`
/// (2: what the update reads).
KOKKOS_INLINE_FUNCTION IntVect plane_nodes(const Box& box, int halo = 2) {
  const Box p = grow(box, IntVect{halo, halo, 0});
  return {p.size()[0] + 1, p.size()[1] + 1, 1};
}

/// Doubles that team_face_velocity needs for `box` (with any halo up to 2): two velocity
/// planes and the nodal stream function.
KOKKOS_INLINE_FUNCTION long velocity_size(const Box& box) {
  const IntVect n = plane_nodes(box);
  return 3L * n[0] * n[1];
}

/// The factors of level g's stream function s, in one launch.
StreamFactors stream_factors(const LevelGeom& g, const StreamFunction& s) {
  StreamFactors t;
  const Box nodes =
      grow(Box{g.domain.lo, g.domain.hi + IntVect{1, 1, 0}}, IntVect{2, 2, 0});
  t.x0 = nodes.lo[0];
  t.y0 = nodes.lo[1];
  t.nx = nodes.size()[0];
  const int n = t.nx + nodes.size()[1];
  t.fac = Kokkos::View<double*>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "advection::stream_factors"),
      size_t(n));
  double* fac = t.fac.data();
  const int nx = t.nx, x0 = t.x0, y0 = t.y0;
  Kokkos::parallel_for(
      "advection::stream_factors",
      Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, n),
      KOKKOS_LAMBDA(int m) { stream_factor(m, fac, nx, s, g, x0, y0); });
  return t;
}

/// The velocity field frozen at one time, as the kernels read it.
struct FrozenVelocity {
  bool uniform = false;
  double ux = 0, uy = 0, w = 0;
  StreamFunction s;
  const double* fac = nullptr;  // the level's StreamFactors
  int x0 = 0, y0 = 0, nx = 0;
};

/// The field f at `time`, on a level whose stream factors are `factors` (unless
/// uniform).
FrozenVelocity freeze(const VelocityField& f, double time, const StreamFactors& factors) {
  FrozenVelocity v;
  v.uniform = f.kind == VelocityKind::uniform;
  v.ux = f.uniform[0];
  v.uy = f.uniform[1];
  v.w = f.w();
  if (v.uniform) return v;
  v.s = f.stream_at(time);
  v.fac = factors.fac.data();
  v.x0 = factors.x0;
  v.y0 = factors.y0;
  v.nx = factors.nx;
  return v;
}

/// Face velocities over the faces of box grown by `halo` (0 to 2) in x and y, filled by
/// team m in velocity_size(box) doubles at mem: the first `columns` columns of faces (at
/// most plane_nodes(box, halo)[0]; fewer give planes whose rows are as long as those of
/// other arrays). A face's velocity does not depend on the halo.
KOKKOS_INLINE_FUNCTION FaceVelocity team_face_velocity(const TeamMember& m,
                                                       const LevelGeom& g,
                                                       const FrozenVelocity& f,
                                                       const Box& box, double* mem,
                                                       int halo, int columns) {
  const Box p = grow(box, IntVect{halo, halo, 0});
  const int ni = plane_nodes(box, halo)[0], nj = plane_nodes(box, halo)[1];
  const long n = long(ni) * nj;
  const Plane u(mem, nj, columns), v(mem + n, nj, columns);
  const FaceVelocity vel(u, v, p.lo[0], p.lo[1], f.w);
  const Box faces{{0, 0, 0}, {columns - 1, nj - 1, 0}};  // plane offsets
  if (f.uniform) {
    team_cells(m, faces,
               [&](int i, int j, int) { uniform_face_velocity(i, j, u, v, f.ux, f.uy); });
    return vel;
  }
  const Plane psi(mem + 2 * n, nj, ni);
  const double* fx = f.fac + (p.lo[0] - f.x0);
  const double* fy = f.fac + f.nx + (p.lo[1] - f.y0);
  const double inv_dx = 1.0 / g.dx[0], inv_dy = 1.0 / g.dx[1];
  const Box nodes{{0, 0, 0}, {ni - 1, nj - 1, 0}};
  team_cells(m, nodes, [&](int i, int j, int) { stream_node(i, j, psi, f.s, fx, fy); });
  team_cells(m, faces, [&](int i, int j, int) {
    face_velocity_from_stream(i, j, u, v, psi, inv_dx, inv_dy);
  });
  return vel;
}

/// The columns of the update's velocity planes, faces box.lo - 2 to box.hi + 2 (the
/// stages read lo - 1 to hi + 1), and of its state arrays (state_box): as many as the
/// columns of the patch's data with its two ghost cells each side.
KOKKOS_INLINE_FUNCTION int frame_columns(const Box& box) {
  return box.size()[0] + 4;
}

/// Face states live on the faces of box grown by one cell in the used directions, and the
/// per-cell terms on its cells (the same arrays, one slot larger than needed). In x they
/// span frame_columns, as the velocity planes and the patch's data: with rows of one
/// length, team_plane_cells can run a stage plane by plane.
template <int DIM>
KOKKOS_INLINE_FUNCTION Box state_box(const Box& box) {
  const IntVect one = IntVect::in_dims(DIM, 1, 0);
  Box b{box.lo - one, box.hi + one * 2};
  b.lo[0] = box.lo[0] - 2;
  b.hi[0] = b.lo[0] + frame_columns(box) - 1;
  return b;
}

/// Arrays of scratch that team_advance<DIM> needs after the velocity planes: the normal
/// predictors and transverse terms, and in 3D the two flux corrections.
template <int DIM>
KOKKOS_INLINE_FUNCTION long state_size(const Box& box) {
  return (DIM == 2 ? 4 : 8) * state_box<DIM>(box).num_cells();
}

/// The CTU update of every component of one patch by team m, with the face velocities at
/// the half step and the face states in velocity_size + state_size doubles at mem. Index
/// ranges are the least each later stage reads (see nghost()), for either upwind
/// direction: every value that a select may discard has been computed too.
template <int DIM>
KOKKOS_INLINE_FUNCTION void team_advance(const TeamMember& m, const LevelGeom& g,
                                         const FrozenVelocity& fv, const PatchRefs& pr,
                                         double dt, int ncomp, double* mem) {
  const Box box = pr.box;
  const FaceVelocity vel = team_face_velocity(m, g, fv, box, mem, 2, frame_columns(box));
  mem += velocity_size(box);
  const Box sb = state_box<DIM>(box);
  const long ns = sb.num_cells(), row = sb.size()[0];  // row: also the planes' (vel.sj)
  CtuStates st;
  for (int d = 0; d < DIM; ++d) {
    st.p[d] = field_over(mem + d * ns, sb);
    st.t[d] = field_over(mem + (DIM + d) * ns, sb);
  }
  const Field3 px = st.p[0], py = st.p[1], pz = st.p[2];
  const Field3 tx = st.t[0], ty = st.t[1], tz = st.t[2];
  // 3D: the flux corrections of the cells beside the faces of one direction at a time.
  Field3 a1, a2;
  if constexpr (DIM == 3) {
    a1 = field_over(mem + 6 * ns, sb);
    a2 = field_over(mem + 7 * ns, sb);
  }
  const double dtdx = dt / g.dx[0], dtdy = dt / g.dx[1], dtdz = dt / g.dx[2];
  const double dt3[3] = {dtdx / 3.0, dtdy / 3.0, dtdz / 3.0};
  const double hdt[3] = {0.5 * dtdx, 0.5 * dtdy, 0.5 * dtdz};
  const IntVect ex = IntVect::unit(0), ey = IntVect::unit(1), ez = IntVect::unit(2);
  const IntVect one = IntVect::in_dims(DIM, 1, 0);

  for (int c = 0; c < ncomp; ++c) {
    const Field3 u = pr.u_old.comp(c), un = pr.u_new.comp(c);
    const Field3 fx = pr.flux[0].comp(c), fy = pr.flux[1].comp(c),
                 fz = DIM == 3 ? pr.flux[2].comp(c) : Field3{};
    // The stages run plane by plane (team_plane_cells) where all they read and write has
    // rows of one length: always for those on the state arrays and velocities alone, the
    // predictors too unless a caller gives the data other ghosts, and the fluxes where
    // their fabs have the state's rows (a level's do on host backends: flux_padding). The
    // update stays row by row: a plane loop would write the new state's ghost columns
    // (and gave a mixed result: a level of 16^3 patches 7% faster, one patch 3-5%
    // slower).
    const bool frame = u.sj == row;
    const auto plane = [&](const Box& b, const auto& f) {
      team_plane_cells(m, b, row, f);
    };
    const auto rows_if = [&](bool same_rows, const Box& b, const auto& f) {
      if constexpr (detail::host_exec()) {
        if (same_rows) {
          team_plane_cells(m, b, row, f);
          return;
        }
      }
      team_cells(m, b, f);
    };
    const auto stage = [&](const Box& b, const auto& f) { rows_if(frame, b, f); };
    const auto flux_stage = [&](const Field3& f, const Box& b, const auto& body) {
      rows_if(f.sj == row, b, body);
    };
    // Normal predictors on the faces of box grown by one sideways (the corner terms read
    // the upwind cell's neighbours), then the transverse terms of the cells beside them.
    stage(faces(grow(box, one - ex), 0),
          [&](int i, int j, int k) { predict_face<0>(i, j, k, px, u, vel, dtdx); });
    stage(faces(grow(box, one - ey), 1),
          [&](int i, int j, int k) { predict_face<1>(i, j, k, py, u, vel, dtdy); });
    if constexpr (DIM == 3) {
      stage(faces(grow(box, one - ez), 2),
            [&](int i, int j, int k) { predict_face<2>(i, j, k, pz, u, vel, dtdz); });
    }
    plane(grow(box, one - ex),
          [&](int i, int j, int k) { transverse_cell<0>(i, j, k, tx, px, vel); });
    plane(grow(box, one - ey),
          [&](int i, int j, int k) { transverse_cell<1>(i, j, k, ty, py, vel); });
    if constexpr (DIM == 2) {
      const double hx = hdt[0], hy = hdt[1];
      flux_stage(fx, faces(box, 0), [&](int i, int j, int k) {
        ctu_flux_2d<0>(i, j, k, fx, px, ty, vel, hy);
      });
      flux_stage(fy, faces(box, 1), [&](int i, int j, int k) {
        ctu_flux_2d<1>(i, j, k, fy, py, tx, vel, hx);
      });
    } else {
      plane(grow(box, one - ez),
            [&](int i, int j, int k) { transverse_cell<2>(i, j, k, tz, pz, vel); });
      // Per direction D: the corrections of the cells beside D-faces, then the fluxes.
      plane(grow(box, ex), [&](int i, int j, int k) {
        ctu_corrections<1, 2>(i, j, k, a1, a2, st, vel, dt3, hdt);
      });
      flux_stage(fx, faces(box, 0),
                 [&](int i, int j, int k) { ctu_flux<0>(i, j, k, fx, px, a1, a2, vel); });
      plane(grow(box, ey), [&](int i, int j, int k) {
        ctu_corrections<0, 2>(i, j, k, a1, a2, st, vel, dt3, hdt);
      });
      flux_stage(fy, faces(box, 1),
                 [&](int i, int j, int k) { ctu_flux<1>(i, j, k, fy, py, a1, a2, vel); });
      plane(grow(box, ez), [&](int i, int j, int k) {
        ctu_corrections<0, 1>(i, j, k, a1, a2, st, vel, dt3, hdt);
      });
      flux_stage(fz, faces(box, 2),
                 [&](int i, int j, int k) { ctu_flux<2>(i, j, k, fz, pz, a1, a2, vel); });
    }
    team_cells(m, box, [&](int i, int j, int k) {
      conservative_update<DIM>(i, j, k, un, u, fx, fy, fz, dtdx, dtdy, dtdz);
    });
  }
}

/// team_advance over the patches of refs in one launch.
template <int DIM>
void advance_patches(const LevelGeom& g, const FrozenVelocity& fv, const UpdateRefs& refs,
                     long doubles, double dt, int ncomp) {
  for_each_patch_update<DIM>(
      "advection::advance", refs, doubles, dt,
      KOKKOS_LAMBDA(const TeamMember& m, const PatchRefs& pr, double* mem) {
        team_advance<DIM>(m, g, fv, pr, dt, ncomp, mem);
      });
}

/// The least stable dt over boxes(0 .. n - 1) of a level of dimension dim, with `doubles`
/// of scratch per team.
double min_dt(const LevelGeom& g, const FrozenVelocity& fv, int dim,
              const StructArray<Box>& boxes, int n, long doubles) {
  const double ix = 1.0 / g.dx[0], iy = 1.0 / g.dx[1], iz = 1.0 / g.dx[2];
  const size_t bytes = size_t(doubles) * sizeof(double);
  double dt = std::numeric_limits<double>::infinity();
  if (n == 0) return dt;
  Kokkos::parallel_reduce(
      "advection::stable_dt", team_policy(n, doubles),
      KOKKOS_LAMBDA(const TeamMember& m, double& out) {
        const Box box = boxes(m.league_rank());
        double* mem = static_cast<double*>(m.team_scratch(1).get_shmem(bytes));
        // Transit times read the faces of the box's cells only.
        const FaceVelocity vel =
            team_face_velocity(m, g, fv, box, mem, 0, plane_nodes(box, 0)[0]);
        // Face velocities depend on (i, j) only, so the box's lowest z plane has every
        // transit time of the box.
        Box plane = box;
        plane.hi[2] = plane.lo[2];
        const double t = team_min_cells(m, plane, [&](int i, int j, int k) {
          return cell_transit_time(i, j, k, dim, vel, ix, iy, iz);
        });
        out = t < out ? t : out;
      },
      Kokkos::Min<double>(dt));
  return dt;
}

}  // namespace advection_detail

using namespace advection_detail;
using namespace deck_values;

Advection::Advection(const Deck& deck, int dim) : dim_(dim) {
  if (dim != 2 && dim != 3) deck.fail("domain.dim", "expected 2 or 3");
  ncomp_ = deck.get<int>("advection.ncomp", 1);
  // Bounded before the names are built: 2^31 - 1 components would take minutes to name
  // before the memory estimate could refuse them.
  if (ncomp_ < 1 || ncomp_ > 10'000'000)
    deck.fail("advection.ncomp", "expected an integer in [1, 10000000]");
  extra_work_ = deck.get<int>("advection.extra_work", 0);
  if (extra_work_ < 0) deck.fail("advection.extra_work", "expected an integer >= 0");
  if (extra_work_ > 0)
    extra_work_above_ = finite(deck, "advection.extra_work_above", 1.1);

  const std::string velocity = deck.get<std::string>("advection.velocity", "swirl");
  if (velocity == "swirl") {
    field_.kind = VelocityKind::swirl;
    field_.period = positive(deck, "advection.period", 2.0);
  } else if (velocity == "rotation") {
    field_.kind = VelocityKind::rotation;
    field_.omega = finite(deck, "advection.omega", 2.0 * kmath::pi);
    if (deck.has("advection.center")) {
      const std::vector<double> c =
          numbers(deck, "advection.center", size_t(dim), {}, "one per direction");
      field_.center[0] = c[0];
      field_.center[1] = c[1];
      center_given_ = true;
    }
  } else if (velocity == "uniform") {
    field_.kind = VelocityKind::uniform;
    const std::vector<double> v =
        numbers(deck, "advection.velocity_uniform", size_t(dim),
                std::vector<double>(dim, 1.0), "one per direction");
    for (int d = 0; d < 3; ++d)
      field_.uniform[d] = d < dim ? v[d] : 0.0;
  } else {
    deck.fail("advection.velocity", one_of({"uniform", "rotation", "swirl"}, velocity));
  }

  const std::string initial = deck.get<std::string>("advection.initial", "gaussian");
  profile_.background = finite(deck, "advection.background", 1.0);
  profile_.amplitude = finite(deck, "advection.amplitude", 1.0);
  if (initial == "gaussian") {
    profile_.kind = InitialProfile::gaussian;
    const std::vector<double> def =
        dim == 2 ? std::vector<double>{0.5, 0.75} : std::vector<double>{0.5, 0.75, 0.5};
    const std::vector<double> b =
        numbers(deck, "advection.blob_center", size_t(dim), def, "one per direction");
    for (int d = 0; d < dim; ++d)
      profile_.blob[d] = b[d];
    const double w = positive(deck, "advection.width", 0.1);
    profile_.inv_width2 = 1.0 / (w * w);
    if (dim == 3) profile_.blob_3d = deck.get<bool>("advection.blob_3d", false);
  } else if (initial == "sine") {
    profile_.kind = InitialProfile::sine;
  } else {
    deck.fail("advection.initial", one_of({"gaussian", "sine"}, initial));
  }

  const std::string tag = deck.get<std::string>("advection.tag", "threshold");
  if (tag == "threshold") {
    tag_kind_ = TagKind::threshold;
    tag_threshold_ =
        deck.get<std::vector<double>>("advection.tag_threshold", {1.01, 1.1, 1.5});
    if (tag_threshold_.empty())
      deck.fail("advection.tag_threshold", "expected a non-empty list");
    for (double x : tag_threshold_)
      if (!std::isfinite(x))
        deck.fail("advection.tag_threshold", "expected finite numbers");
  } else if (tag == "gradient") {
    tag_kind_ = TagKind::gradient;
    tag_gradient_ = positive(deck, "advection.tag_gradient", 0.05);
  } else {
    deck.fail("advection.tag", one_of({"threshold", "gradient"}, tag));
  }
}

std::vector<std::string> Advection::component_names() const {
  std::vector<std::string> names;
  for (int c = 0; c < ncomp_; ++c)
    names.push_back("phi" + std::to_string(c));
  return names;
}

void Advection::inside_domain(const LevelGeom& g, const Box& box, const char* what) {
  if (!g.domain.contains(box))
    throw std::logic_error(std::string("Advection::") + what + ": box " + to_string(box) +
                           " outside the level's domain " + to_string(g.domain));
}

advection_detail::FrozenVelocity Advection::frozen(const LevelGeom& g,
                                                   double time) const {
  const VelocityField f = field_for(g);
  if (f.kind == VelocityKind::uniform) return freeze(f, time, StreamFactors{});
  const auto same = [&](const LevelGeom& h) {
    bool eq = h.domain == g.domain;
    for (int d = 0; d < 3; ++d)
      eq = eq && h.dx[d] == g.dx[d] && h.prob_lo[d] == g.prob_lo[d];
    return eq;
  };
  // A level's geometry, and so its factors, stay for the run; the rotation's centre
  // depends on the level's geometry only.
  for (const auto& [geom, factors] : factors_)
    if (same(geom)) return freeze(f, time, factors);
  factors_.emplace_back(g, stream_factors(g, f.stream_at(time)));
  return freeze(f, time, factors_.back().second);
}

VelocityField Advection::field_for(const LevelGeom& g) const {
  VelocityField f = field_;
  if (f.kind == VelocityKind::rotation && !center_given_) {
    for (int d = 0; d < 2; ++d)
      f.center[d] = g.prob_lo[d] + 0.5 * (g.domain.lo[d] + g.domain.hi[d] + 1) * g.dx[d];
  }
  return f;
}

BcSet Advection::boundary_conditions() const {
  return BcSet(size_t(ncomp_), ComponentBc::all({BcKind::outflow, 0.0}));
}

std::vector<Interp> Advection::interpolation() const {
  return std::vector<Interp>(size_t(ncomp_), Interp::conservative_linear);
}

int Advection::flux_padding() const {
  // team_advance runs the flux stages plane by plane on host backends, where the fluxes'
  // rows are frame_columns long as the state's (nghost() columns each side of the box).
  return detail::host_exec() ? nghost() : 0;
}

long Advection::scratch_size(const Box& box) const {
  // Face velocities and the CTU face states, carved out of one allocation (the extra
  // work's box.num_cells() results, when on, fit in less).
  const long ns = dim_ == 2 ? state_size<2>(box) : state_size<3>(box);
  return velocity_size(box) + ns;
}

void Advection::initial_data(const LevelGeom& g, const BoxSet& cells,
                             const StructArray<FabRef>& u, double time) const {
  const InitialProfile p = profile_;
  const VelocityField f = field_for(g);
  const int nc = ncomp_;
  for_each_box_cell(
      "advection::initial_data", cells, KOKKOS_LAMBDA(int it, int i, int j, int k) {
        initial_cell(i, j, k, u(it), nc, g, p, f, time);
      });
}

double Advection::min_dt(const LevelGeom& g, const StructArray<Box>& boxes, int n,
                         long doubles, double time) const {
  return advection_detail::min_dt(g, frozen(g, time), dim_, boxes, n, doubles);
}

double Advection::stable_dt(const LevelGeom& g, const Box& box, const Array4& /*u*/,
                            double time, const Scratch& /*scratch*/) const {
  inside_domain(g, box, "stable_dt");
  return min_dt(g, one_on_device(box), 1, velocity_size(box), time);
}

double Advection::stable_dt_level(const LevelGeom& g, const LevelData& u, double time,
                                  const Scratch& /*scratch*/) const {
  const BoxSet& owned = u.interiors();
  long doubles = 0;
  for (size_t p = 0; p < u.size(); ++p)
    if (u[p].data.size() > 0)
      doubles = std::max(doubles, velocity_size(u.layout().boxes[p]));
  return min_dt(g, owned.box, owned.size(), doubles, time);
}

void Advection::advance(const LevelGeom& g, const Box& box, const Array4& u_old,
                        const Array4& u_new, const Array4 flux[3], double time, double dt,
                        const Scratch& /*scratch*/, const Counters& /*counters*/) const {
  if (box.empty()) return;
  inside_domain(g, box, "advance");
  launch(g, update_refs(box, u_old, u_new, flux), scratch_size(box), time, dt);
}

void Advection::advance_level(const LevelGeom& g, const LevelUpdate& s, double time,
                              double dt, const Counters& /*counters*/) const {
  launch(g, update_refs(s), largest_scratch_size(*this, s.u_old), time, dt);
}

void Advection::launch(const LevelGeom& g, const UpdateRefs& refs, long doubles,
                       double time, double dt) const {
  // Face velocities at the half step: the predictor and the fluxes are centred there.
  const FrozenVelocity fv = frozen(g, time + 0.5 * dt);
  if (dim_ == 2)
    advance_patches<2>(g, fv, refs, doubles, dt, ncomp_);
  else
    advance_patches<3>(g, fv, refs, doubles, dt, ncomp_);
}

void Advection::emulated_work(const Box& box, const Array4& u,
                              const Scratch& scratch) const {
  double* sink = scratch.data();
  const Box b = box;
  const IntVect n = box.size();
  const double above = extra_work_above_;
  const int iters = extra_work_;
  for_each_cell(
      "advection::extra_work", box, KOKKOS_LAMBDA(int i, int j, int k) {
        sink[(long(k - b.lo[2]) * n[1] + (j - b.lo[1])) * n[0] + (i - b.lo[0])] =
            extra_work(u(i, j, k, 0), above, iters);
      });
}

void Advection::tag(const LevelGeom& /*g*/, const LevelTags& tags,
                    const StructArray<FabRef>& u, int level, double /*time*/) const {
  if (tag_kind_ == TagKind::threshold) {
    const int n = int(tag_threshold_.size());
    const double thr = tag_threshold_[level < n ? level : n - 1];
    for_each_box_cell(
        "advection::tag_threshold", tags.cells(),
        KOKKOS_LAMBDA(int p, int i, int j, int k) {
          tag_above(i, j, k, tags.of(p), u(p), thr);
        });
  } else {
    const double thr = tag_gradient_;
    const int dim = dim_;
    for_each_box_cell(
        "advection::tag_gradient", tags.cells(),
        KOKKOS_LAMBDA(int p, int i, int j, int k) {
          tag_gradient(i, j, k, dim, tags.of(p), u(p), thr);
        });
  }
}

}  // namespace pw
