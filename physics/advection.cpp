// The advection module: deck reading, and the launches of the CTU stages over one patch.
#include "physics/advection.hpp"

#include <cmath>
#include <sstream>

namespace pw {

// Launch helpers hold the kernels: free functions (not private members), because CUDA's
// extended lambdas may not live in private member functions.
namespace advection_detail {

using Plane = FaceVelocity::Plane;

/// Doubles in one velocity plane of `box`: the nodes of the box grown by 2 in x and y.
long plane_size(const Box& box) {
  const Box p = grow(box, IntVect{2, 2, 0});
  return long(p.size()[0] + 1) * (p.size()[1] + 1);
}

/// Face velocities of field f at time t over the faces of box grown by 2 in x and y, in
/// 3 * plane_size(box) doubles at mem (two planes and the nodal stream function).
FaceVelocity fill_face_velocity(const LevelGeom& g, const VelocityField& f,
                                const Box& box, double t, double* mem) {
  const Box p = grow(box, IntVect{2, 2, 0});
  const int ni = p.size()[0] + 1, nj = p.size()[1] + 1;
  const long n = long(ni) * nj;
  FaceVelocity vel;
  vel.u = Plane(mem, nj, ni);
  vel.v = Plane(mem + n, nj, ni);
  vel.lo0 = p.lo[0];
  vel.lo1 = p.lo[1];
  vel.w = f.w();
  const Plane u = vel.u, v = vel.v;
  const Box nodes{{0, 0, 0}, {ni - 1, nj - 1, 0}};  // plane offsets
  if (f.kind == VelocityKind::uniform) {
    const double ux = f.uniform[0], uy = f.uniform[1];
    for_each_cell(
        "advection::uniform_velocity", nodes,
        KOKKOS_LAMBDA(int i, int j, int) { uniform_face_velocity(i, j, u, v, ux, uy); });
    return vel;
  }
  const Plane psi(mem + 2 * n, nj, ni);
  const StreamFunction s = f.stream_at(t);
  const int lo0 = p.lo[0], lo1 = p.lo[1];
  const double inv_dx = 1.0 / g.dx[0], inv_dy = 1.0 / g.dx[1];
  for_each_cell(
      "advection::stream_nodes", nodes,
      KOKKOS_LAMBDA(int i, int j, int) { stream_node(i, j, psi, s, g, lo0, lo1); });
  for_each_cell(
      "advection::face_velocity", nodes, KOKKOS_LAMBDA(int i, int j, int) {
        face_velocity_from_stream(i, j, u, v, psi, inv_dx, inv_dy);
      });
  return vel;
}

/// Face states live on the faces of box grown by one cell in the used directions.
template <int DIM>
Box state_box(const Box& box) {
  const IntVect one = IntVect::in_dims(DIM, 1, 0);
  return {box.lo - one, box.hi + one * 2};
}

/// Doubles of scratch that advance_patch<DIM> needs after the velocity planes.
template <int DIM>
long state_size(const Box& box) {
  return (DIM == 2 ? 2 : 9) * state_box<DIM>(box).num_cells();
}

/// The CTU update of every component of `box`, with face states in state_size doubles at
/// mem. Index ranges are the least each later stage reads (see nghost()).
template <int DIM>
void advance_patch(const LevelGeom& g, const Box& box, const Array4& u_old,
                   const Array4& u_new, const Array4 flux[3], double dt, int ncomp,
                   const FaceVelocity& vel, double* mem) {
  const Box sb = state_box<DIM>(box);
  const long ns = sb.num_cells();
  Scratch3 st[9];
  for (int n = 0; n < (DIM == 2 ? 2 : 9); ++n) {
    st[n].v = Scratch3::View(mem + n * ns, sb.size()[2], sb.size()[1], sb.size()[0]);
    st[n].lo = sb.lo;
  }
  // Normal predictors, then (3D) pD_T: the D-face state corrected by direction T.
  const Scratch3 px = st[0], py = st[1], pz = st[2];
  const Scratch3 pxy = st[3], pxz = st[4], pyx = st[5], pyz = st[6], pzx = st[7],
                 pzy = st[8];
  const Array4 fx = flux[0], fy = flux[1], fz = flux[2];
  const double dtdx = dt / g.dx[0], dtdy = dt / g.dx[1], dtdz = dt / g.dx[2];
  const IntVect ex = IntVect::unit(0), ey = IntVect::unit(1), ez = IntVect::unit(2);
  const IntVect one = IntVect::in_dims(DIM, 1, 0);

  for (int c = 0; c < ncomp; ++c) {
    // Normal predictors on the faces of box grown by one sideways (the corner terms read
    // the upwind cell's neighbours).
    for_each_cell(
        "advection::predict_x", faces(grow(box, one - ex), 0),
        KOKKOS_LAMBDA(int i, int j, int k) {
          predict_face<0>(i, j, k, px, u_old, c, vel, dtdx);
        });
    for_each_cell(
        "advection::predict_y", faces(grow(box, one - ey), 1),
        KOKKOS_LAMBDA(int i, int j, int k) {
          predict_face<1>(i, j, k, py, u_old, c, vel, dtdy);
        });
    if constexpr (DIM == 2) {
      for_each_cell(
          "advection::flux_x", faces(box, 0), KOKKOS_LAMBDA(int i, int j, int k) {
            ctu_flux<0, 1, -1>(i, j, k, fx, c, px, py, py, vel, 0.5 * dtdy, 0.0);
          });
      for_each_cell(
          "advection::flux_y", faces(box, 1), KOKKOS_LAMBDA(int i, int j, int k) {
            ctu_flux<1, 0, -1>(i, j, k, fy, c, py, px, px, vel, 0.5 * dtdx, 0.0);
          });
    } else {
      for_each_cell(
          "advection::predict_z", faces(grow(box, one - ez), 2),
          KOKKOS_LAMBDA(int i, int j, int k) {
            predict_face<2>(i, j, k, pz, u_old, c, vel, dtdz);
          });
      // pD_T is read by the final D' flux (D' the third direction) in the upwind cells of
      // D' faces, so it is needed on the D-faces of box grown by one along D' only.
      const double tx = dtdx / 3.0, ty = dtdy / 3.0, tz = dtdz / 3.0;
      for_each_cell(
          "advection::corner_xy", faces(grow(box, ez), 0),
          KOKKOS_LAMBDA(int i, int j, int k) {
            transverse_third<0, 1>(i, j, k, pxy, px, py, vel, ty);
          });
      for_each_cell(
          "advection::corner_xz", faces(grow(box, ey), 0),
          KOKKOS_LAMBDA(int i, int j, int k) {
            transverse_third<0, 2>(i, j, k, pxz, px, pz, vel, tz);
          });
      for_each_cell(
          "advection::corner_yx", faces(grow(box, ez), 1),
          KOKKOS_LAMBDA(int i, int j, int k) {
            transverse_third<1, 0>(i, j, k, pyx, py, px, vel, tx);
          });
      for_each_cell(
          "advection::corner_yz", faces(grow(box, ex), 1),
          KOKKOS_LAMBDA(int i, int j, int k) {
            transverse_third<1, 2>(i, j, k, pyz, py, pz, vel, tz);
          });
      for_each_cell(
          "advection::corner_zx", faces(grow(box, ey), 2),
          KOKKOS_LAMBDA(int i, int j, int k) {
            transverse_third<2, 0>(i, j, k, pzx, pz, px, vel, tx);
          });
      for_each_cell(
          "advection::corner_zy", faces(grow(box, ex), 2),
          KOKKOS_LAMBDA(int i, int j, int k) {
            transverse_third<2, 1>(i, j, k, pzy, pz, py, vel, ty);
          });
      const double hx = 0.5 * dtdx, hy = 0.5 * dtdy, hz = 0.5 * dtdz;
      for_each_cell(
          "advection::flux_x", faces(box, 0), KOKKOS_LAMBDA(int i, int j, int k) {
            ctu_flux<0, 1, 2>(i, j, k, fx, c, px, pyz, pzy, vel, hy, hz);
          });
      for_each_cell(
          "advection::flux_y", faces(box, 1), KOKKOS_LAMBDA(int i, int j, int k) {
            ctu_flux<1, 0, 2>(i, j, k, fy, c, py, pxz, pzx, vel, hx, hz);
          });
      for_each_cell(
          "advection::flux_z", faces(box, 2), KOKKOS_LAMBDA(int i, int j, int k) {
            ctu_flux<2, 0, 1>(i, j, k, fz, c, pz, pxy, pyx, vel, hx, hy);
          });
    }
    for_each_cell(
        "advection::update", box, KOKKOS_LAMBDA(int i, int j, int k) {
          conservative_update<DIM>(i, j, k, c, u_new, u_old, fx, fy, fz, dtdx, dtdy,
                                   dtdz);
        });
  }
}

std::string one_of(const std::vector<std::string>& names, const std::string& got) {
  std::ostringstream os;
  os << "expected one of ";
  for (size_t n = 0; n < names.size(); ++n)
    os << (n ? ", " : "") << names[n];
  os << ", got '" << got << "'";
  return os.str();
}

/// A list of `dim` finite numbers at `key`, or fail.
std::vector<double> point(const Deck& deck, const std::string& key, int dim,
                          const std::vector<double>& def) {
  std::vector<double> p = deck.get<std::vector<double>>(key, def);
  if (int(p.size()) != dim) {
    deck.fail(key, "expected " + std::to_string(dim) +
                       " numbers (one per direction), got " + std::to_string(p.size()));
  }
  for (double x : p)
    if (!std::isfinite(x)) deck.fail(key, "expected finite numbers");
  return p;
}

double positive(const Deck& deck, const std::string& key, double def) {
  const double x = deck.get<double>(key, def);
  if (!(x > 0.0) || !std::isfinite(x)) deck.fail(key, "expected a number > 0");
  return x;
}

double finite(const Deck& deck, const std::string& key, double def) {
  const double x = deck.get<double>(key, def);
  if (!std::isfinite(x)) deck.fail(key, "expected a finite number");
  return x;
}

}  // namespace advection_detail

using namespace advection_detail;

Advection::Advection(const Deck& deck, int dim) : dim_(dim) {
  if (dim != 2 && dim != 3) deck.fail("domain.dim", "expected 2 or 3");
  ncomp_ = deck.get<int>("advection.ncomp", 1);
  if (ncomp_ < 1) deck.fail("advection.ncomp", "expected an integer >= 1");

  const std::string velocity = deck.get<std::string>("advection.velocity", "swirl");
  if (velocity == "swirl") {
    field_.kind = VelocityKind::swirl;
    field_.period = positive(deck, "advection.period", 2.0);
  } else if (velocity == "rotation") {
    field_.kind = VelocityKind::rotation;
    field_.omega = finite(deck, "advection.omega", 2.0 * kmath::pi);
    if (deck.has("advection.center")) {
      const std::vector<double> c = point(deck, "advection.center", dim, {});
      field_.center[0] = c[0];
      field_.center[1] = c[1];
      center_given_ = true;
    }
  } else if (velocity == "uniform") {
    field_.kind = VelocityKind::uniform;
    const std::vector<double> v =
        point(deck, "advection.velocity_uniform", dim, std::vector<double>(dim, 1.0));
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
    const std::vector<double> b = point(deck, "advection.blob_center", dim, def);
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

VelocityField Advection::field_for(const LevelGeom& g) const {
  VelocityField f = field_;
  if (f.kind == VelocityKind::rotation && !center_given_) {
    for (int d = 0; d < 2; ++d)
      f.center[d] = g.prob_lo[d] + 0.5 * (g.domain.lo[d] + g.domain.hi[d] + 1) * g.dx[d];
  }
  return f;
}

double* Advection::scratch(long total) const {
  if (long(pool_.extent(0)) < total) {
    pool_ = Kokkos::View<double*>();  // free before allocating the larger pool
    pool_ = Kokkos::View<double*>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "advection::scratch"), total);
  }
  return pool_.data();
}

void Advection::initial_data(const LevelGeom& g, const Box& box, const Array4& u,
                             double time) const {
  const InitialProfile p = profile_;
  const VelocityField f = field_for(g);
  const int nc = ncomp_;
  for_each_cell(
      "advection::initial_data", box, KOKKOS_LAMBDA(int i, int j, int k) {
        initial_cell(i, j, k, u, nc, g, p, f, time);
      });
}

double Advection::stable_dt(const LevelGeom& g, const Box& box, const Array4& /*u*/,
                            double time) const {
  double* mem = scratch(3 * plane_size(box));
  const FaceVelocity vel = fill_face_velocity(g, field_for(g), box, time, mem);
  const int dim = dim_;
  const double ix = 1.0 / g.dx[0], iy = 1.0 / g.dx[1], iz = 1.0 / g.dx[2];
  return min_over_cells(
      "advection::stable_dt", box, KOKKOS_LAMBDA(int i, int j, int k) {
        return cell_transit_time(i, j, k, dim, vel, ix, iy, iz);
      });
}

void Advection::advance(const LevelGeom& g, const Box& box, const Array4& u_old,
                        const Array4& u_new, const Array4 flux[3], double time,
                        double dt) const {
  if (box.empty()) return;
  const long np = 3 * plane_size(box);
  const long ns = dim_ == 2 ? state_size<2>(box) : state_size<3>(box);
  double* mem = scratch(np + ns);
  // Face velocities at the half step: the predictor and the fluxes are centred there.
  const FaceVelocity vel = fill_face_velocity(g, field_for(g), box, time + 0.5 * dt, mem);
  if (dim_ == 2) {
    advance_patch<2>(g, box, u_old, u_new, flux, dt, ncomp_, vel, mem + np);
  } else {
    advance_patch<3>(g, box, u_old, u_new, flux, dt, ncomp_, vel, mem + np);
  }
}

void Advection::tag(const LevelGeom& /*g*/, const Box& box, const Array4& u,
                    const TagArray& tags, int level, double /*time*/) const {
  if (tag_kind_ == TagKind::threshold) {
    const int n = int(tag_threshold_.size());
    const double thr = tag_threshold_[level < n ? level : n - 1];
    for_each_cell(
        "advection::tag_threshold", box,
        KOKKOS_LAMBDA(int i, int j, int k) { tag_above(i, j, k, tags, u, thr); });
  } else {
    const double thr = tag_gradient_;
    const int dim = dim_;
    for_each_cell(
        "advection::tag_gradient", box,
        KOKKOS_LAMBDA(int i, int j, int k) { tag_gradient(i, j, k, dim, tags, u, thr); });
  }
}

}  // namespace pw
