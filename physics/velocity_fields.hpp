// The prescribed advection velocities. Swirl and rotation come from a stream function
// sampled at cell corners (nodes), so the face velocities differenced from it have an
// exactly zero discrete divergence; the uniform field is constant. Plain data, captured
// by kernels (StreamFactors holds a device View of a level's factors).
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>

#include "amr/level_geom.hpp"
#include "physics/kmath.hpp"

namespace pw {

enum class VelocityKind { uniform, rotation, swirl };

/// A stream function frozen at one time: u = -dpsi/dy, v = +dpsi/dx. Both kinds are
/// separable, psi(x, y) = combine(factor(x, xc), factor(y, yc)), so that a level finds
/// the factors once per node column and row: 2n sines for the swirl, not 2n^2.
struct StreamFunction {
  VelocityKind kind = VelocityKind::swirl;
  double a = 0.0;  // swirl: cos(pi t / T) / pi; rotation: -omega / 2
  double xc = 0.0, yc = 0.0;

  KOKKOS_INLINE_FUNCTION double factor(double x, double c) const {
    if (kind == VelocityKind::swirl) return kmath::sin(kmath::pi * x);
    const double r = x - c;
    return r * r;
  }
  KOKKOS_INLINE_FUNCTION double combine(double fx, double fy) const {
    if (kind == VelocityKind::swirl) return a * fx * fx * fy * fy;
    return a * (fx + fy);
  }
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const {
    return combine(factor(x, xc), factor(y, yc));
  }
};

/// The velocity field of the run. Every field here lies in the x-y plane or is uniform,
/// so face velocities depend on (i, j) only and w is a constant.
struct VelocityField {
  VelocityKind kind = VelocityKind::swirl;
  double period = 2.0;                  // swirl: reverses at T/2, back at T
  double omega = 2.0 * kmath::pi;       // rotation: angular speed (clockwise for > 0)
  double center[2] = {0.5, 0.5};        // rotation centre
  double uniform[3] = {1.0, 1.0, 1.0};  // uniform: (ux, uy, uz)

  /// The stream function at time t (swirl and rotation).
  StreamFunction stream_at(double t) const {
    StreamFunction s;
    s.kind = kind;
    if (kind == VelocityKind::swirl) {
      s.a = std::cos(kmath::pi * t / period) / kmath::pi;
    } else {
      s.a = -0.5 * omega;
      s.xc = center[0];
      s.yc = center[1];
    }
    return s;
  }
  double w() const { return kind == VelocityKind::uniform ? uniform[2] : 0.0; }

  /// Replace x by the point the flow carries to x in time t (the foot of the
  /// characteristic), where that is known in closed form: uniform and rotation. The swirl
  /// returns every particle home at t = n * period only, so it leaves x unchanged (exact
  /// at those times).
  KOKKOS_INLINE_FUNCTION void departure_point(double t, int dim, double x[3]) const {
    if (kind == VelocityKind::uniform) {
      for (int d = 0; d < dim; ++d)
        x[d] -= uniform[d] * t;
    } else if (kind == VelocityKind::rotation) {
      // psi = -omega r^2 / 2 turns points clockwise by omega t; undo that turn.
      const double c = kmath::cos(omega * t), s = kmath::sin(omega * t);
      const double rx = x[0] - center[0], ry = x[1] - center[1];
      x[0] = center[0] + c * rx - s * ry;
      x[1] = center[1] + s * rx + c * ry;
    }
  }
};

/// Face velocities of one patch at one time: u on x-faces and v on y-faces as (j, i)
/// planes (i contiguous), w uniform. Kernels read them only through normal<D>(), so a
/// z-dependent field would change this struct and its fill, nothing else. Plain pointers
/// with one folded offset: cheaper to index than Views with a lower corner, and simple
/// enough for the compiler to vectorize loops over i.
struct FaceVelocity {
  using Plane = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::MemoryUnmanaged>;
  const double* u = nullptr;
  const double* v = nullptr;
  long sj = 0;   // stride of j in both planes
  long off = 0;  // minus the plane offset of global (0, 0)
  double w = 0.0;

  FaceVelocity() = default;
  /// Velocities in planes u and v (same extents) whose element (0, 0) is the face of
  /// global (i, j) = (lo0, lo1).
  KOKKOS_INLINE_FUNCTION FaceVelocity(const Plane& pu, const Plane& pv, int lo0, int lo1,
                                      double w_)
      : u(pu.data()), v(pv.data()), sj(long(pu.extent(1))), w(w_) {
    off = -(lo0 + sj * lo1);
  }

  /// The velocity normal to the d-face (i, j, k) (the lo face of cell (i, j, k)).
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION double normal(int i, int j, int /*k*/) const {
    if constexpr (D == 0) {
      return u[off + i + sj * j];
    } else if constexpr (D == 1) {
      return v[off + i + sj * j];
    } else {
      return w;
    }
  }
};

/// The stream function's factors (stream_factor) at every node column and row of a level
/// that a patch's velocity planes reach: the domain's nodes and 2 more on each side.
struct StreamFactors {
  Kokkos::View<double*> fac;  // nx column factors from node x0, then the rows' from y0
  int x0 = 0, y0 = 0, nx = 0;
};

/// Entry m of the stream function's factors over the nodes of a region whose node (0, 0)
/// is global (lo0, lo1): the x factors of its ni columns, then the y factors of its rows.
/// They do not depend on time (StreamFunction::a carries that), so a level's are found
/// once.
KOKKOS_INLINE_FUNCTION void stream_factor(int m, double* fac, int ni,
                                          const StreamFunction& s, const LevelGeom& g,
                                          int lo0, int lo1) {
  fac[m] = m < ni ? s.factor(g.face(0, lo0 + m), s.xc)
                  : s.factor(g.face(1, lo1 + m - ni), s.yc);
}

/// psi at the node at plane offset (i, j), from the factors fx of the plane's columns
/// and fy of its rows.
KOKKOS_INLINE_FUNCTION void stream_node(int i, int j, const FaceVelocity::Plane& psi,
                                        const StreamFunction& s, const double* fx,
                                        const double* fy) {
  psi(j, i) = s.combine(fx[i], fy[j]);
}

KOKKOS_INLINE_FUNCTION void uniform_face_velocity(int i, int j,
                                                  const FaceVelocity::Plane& u,
                                                  const FaceVelocity::Plane& v, double ux,
                                                  double uy) {
  u(j, i) = ux;
  v(j, i) = uy;
}

/// Face velocities at plane offsets (i, j) from nodal psi: u on the x-face = -(psi(top) -
/// psi(bottom))/dy, v on the y-face = (psi(right) - psi(left))/dx, so that the discrete
/// divergence of every cell telescopes to zero. The last row of u and column of v have no
/// node beyond them and are left alone (never read).
KOKKOS_INLINE_FUNCTION void face_velocity_from_stream(int i, int j,
                                                      const FaceVelocity::Plane& u,
                                                      const FaceVelocity::Plane& v,
                                                      const FaceVelocity::Plane& psi,
                                                      double inv_dx, double inv_dy) {
  const int ni = int(psi.extent(1)), nj = int(psi.extent(0));
  if (j + 1 < nj) u(j, i) = -(psi(j + 1, i) - psi(j, i)) * inv_dy;
  if (i + 1 < ni) v(j, i) = (psi(j, i + 1) - psi(j, i)) * inv_dx;
}

}  // namespace pw
