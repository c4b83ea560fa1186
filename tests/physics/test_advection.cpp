// The advection module on one periodic patch covering the domain, without the AMR layer:
// conservation, second-order convergence, free-stream preservation, flux/update
// consistency, tagging and deck errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "amr/deck.hpp"
#include "physics/advection.hpp"
#include "physics/registry.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;

// Device lambdas live in free functions of a named namespace: CUDA allows no extended
// lambda in a private member function, and a gtest TestBody is one.
namespace advection_test {

/// Fill the ghost cells of `f` (a grown copy of the whole periodic domain) from their
/// periodic images inside the domain, edges and corners included.
void fill_periodic(const Fab& f, const Box& domain) {
  const Array4 u = f.array();
  const int nc = f.ncomp();
  const IntVect lo = domain.lo, n = domain.size();
  for_each_cell(
      "test::fill_periodic", f.box, KOKKOS_LAMBDA(int i, int j, int k) {
        if (domain.contains(IntVect{i, j, k})) return;
        auto wrap = [](int a, int l, int m) { return l + ((a - l) % m + m) % m; };
        const int ii = wrap(i, lo[0], n[0]), jj = wrap(j, lo[1], n[1]),
                  kk = wrap(k, lo[2], n[2]);
        for (int c = 0; c < nc; ++c)
          u(i, j, k, c) = u(ii, jj, kk, c);
      });
}

/// One patch covering the domain, with ghost cells, its fluxes, and a physics module.
struct PeriodicPatch {
  LevelGeom g;
  Advection adv;
  Fab u, u_new, flux[3];
  Scratch scratch;

  PeriodicPatch(const std::string& deck_text, int dim, int n)
      : g(pw::testing::unit_geom(dim, n)), adv(Deck::parse(deck_text, "test.toml"), dim) {
    const Box grown = grow(g.domain, IntVect::in_dims(dim, adv.nghost(), 0));
    u = Fab("u", grown, adv.ncomp());
    u_new = Fab("u_new", grown, adv.ncomp());
    for (int d = 0; d < dim; ++d)
      flux[d] = Fab("flux", faces(g.domain, d), adv.ncomp());
    adv.initial_data(g, g.domain, u.array(), 0.0);
    scratch = Scratch("scratch", size_t(adv.scratch_size(g.domain)));
  }
  /// One step of u from `time` over dt (u_new holds the result, then is swapped into u).
  void step(double time, double dt) {
    fill_periodic(u, g.domain);
    const Array4 fl[3] = {flux[0].array(), flux[1].array(), flux[2].array()};
    adv.advance(g, g.domain, u.array(), u_new.array(), fl, time, dt, scratch, Counters());
    std::swap(u, u_new);
  }
  double stable_dt(double time) {
    return adv.stable_dt(g, g.domain, u.array(), time, scratch);
  }
};

double sum_component(const Array4& a, const Box& b, int c) {
  return sum_over_cells(
      "test::sum", b, KOKKOS_LAMBDA(int i, int j, int k) { return a(i, j, k, c); });
}

/// |x|, or 1e300 for NaN (which a min reduction would otherwise skip).
KOKKOS_INLINE_FUNCTION double magnitude(double x) {
  return x == x ? kmath::abs(x) : 1e300;
}

/// max |a(c) - value| over b.
double max_deviation(const Array4& a, const Box& b, int c, double value) {
  return -min_over_cells(
      "test::deviation", b,
      KOKKOS_LAMBDA(int i, int j, int k) { return -magnitude(a(i, j, k, c) - value); });
}

/// max |b(c) - a(c)| over box.
double max_difference(const Array4& a, const Array4& b, const Box& box, int c) {
  return -min_over_cells(
      "test::difference", box, KOKKOS_LAMBDA(int i, int j, int k) {
        return -magnitude(b(i, j, k, c) - a(i, j, k, c));
      });
}

/// max |(u_new - u_old) + dt sum_d (F_hi - F_lo)/dx_d| over the domain, for component c.
double flux_update_mismatch(const LevelGeom& g, const Array4& o, const Array4& nw,
                            const Array4 fl[3], double dt, int c) {
  const Array4 fx = fl[0], fy = fl[1], fz = fl[2];
  return -min_over_cells(
      "test::flux_match", g.domain, KOKKOS_LAMBDA(int i, int j, int k) {
        double div = (fx(i + 1, j, k, c) - fx(i, j, k, c)) / g.dx[0] +
                     (fy(i, j + 1, k, c) - fy(i, j, k, c)) / g.dx[1];
        if (g.dim == 3) div += (fz(i, j, k + 1, c) - fz(i, j, k, c)) / g.dx[2];
        return -magnitude((nw(i, j, k, c) - o(i, j, k, c)) + dt * div);
      });
}

void copy_cells(const Array4& dst, const Array4& src, const Box& b, int nc) {
  for_each_cell(
      "test::copy", b, KOKKOS_LAMBDA(int i, int j, int k) {
        for (int c = 0; c < nc; ++c)
          dst(i, j, k, c) = src(i, j, k, c);
      });
}

/// L1 norm (per unit volume) of component c of u minus the exact data at `time`.
double l1_error(PeriodicPatch& p, int c, double time) {
  Fab exact("exact", p.g.domain, p.adv.ncomp());
  p.adv.initial_data(p.g, p.g.domain, exact.array(), time);
  const Array4 a = p.u.array(), e = exact.array();
  const double vol = p.g.cell_volume();
  return sum_over_cells(
      "test::l1", p.g.domain, KOKKOS_LAMBDA(int i, int j, int k) {
        return kmath::abs(a(i, j, k, c) - e(i, j, k, c)) * vol;
      });
}

std::string dim_line(int dim) {
  return "[domain]\ndim = " + std::to_string(dim) + "\n";
}

/// Error of the sine profile carried once around the unit box by a uniform velocity.
double uniform_round_trip_error(int dim, int n) {
  const std::string deck = dim_line(dim) +
                           "[advection]\nvelocity = \"uniform\"\ninitial = \"sine\"\n" +
                           (dim == 2 ? "velocity_uniform = [1.0, 0.5]\n"
                                     : "velocity_uniform = [1.0, 0.5, 0.25]\n");
  PeriodicPatch p(deck, dim, n);
  const double t_end = dim == 2 ? 2.0 : 4.0;  // every direction returns home
  const int steps = int(std::ceil(t_end / (0.8 * p.stable_dt(0.0))));
  const double dt = t_end / steps;
  for (int s = 0; s < steps; ++s)
    p.step(s * dt, dt);
  return l1_error(p, 0, 0.0);
}

void expect_second_order(int dim, const std::vector<int>& ns) {
  std::vector<double> err;
  for (int n : ns)
    err.push_back(uniform_round_trip_error(dim, n));
  for (size_t r = 0; r < ns.size(); ++r) {
    std::printf("  %dD N=%4d  L1 error %.4e", dim, ns[r], err[r]);
    if (r > 0) std::printf("  order %.3f", std::log2(err[r - 1] / err[r]));
    std::printf("\n");
  }
  for (size_t r = 1; r < ns.size(); ++r)
    EXPECT_GE(std::log2(err[r - 1] / err[r]), 1.8);
}

}  // namespace advection_test

using namespace advection_test;

TEST(Advection, AdvectionConservesEachComponentOnPeriodicPatch) {
  for (int dim : {2, 3}) {
    PeriodicPatch p(dim_line(dim) + "[advection]\nncomp = 2\n", dim, dim == 2 ? 32 : 16);
    const double s0[2] = {sum_component(p.u.array(), p.g.domain, 0),
                          sum_component(p.u.array(), p.g.domain, 1)};
    double t = 0.0;
    for (int s = 0; s < 50; ++s) {
      const double dt = 0.9 * p.stable_dt(t);
      p.step(t, dt);
      t += dt;
    }
    for (int c = 0; c < 2; ++c) {
      const double rel =
          std::fabs(sum_component(p.u.array(), p.g.domain, c) - s0[c]) / s0[c];
      std::printf("  %dD component %d: relative change of the sum %.2e\n", dim, c, rel);
      EXPECT_LT(rel, 1e-13) << dim << "D component " << c;
    }
  }
}

TEST(Advection, AdvectionConvergesSecondOrderUniform2D) {
  expect_second_order(2, {32, 64, 128});
}

TEST(Advection, AdvectionConvergesSecondOrderUniform3D) {
  expect_second_order(3, {16, 32, 64});
}

TEST(Advection, AdvectionPreservesConstantInSwirl) {
  for (int dim : {2, 3}) {
    PeriodicPatch p(dim_line(dim) + "[advection]\namplitude = 0.0\nbackground = 3.0\n",
                    dim, dim == 2 ? 32 : 16);
    double t = 0.0;
    for (int s = 0; s < 20; ++s) {
      const double dt = 0.9 * p.stable_dt(t);
      p.step(t, dt);
      t += dt;
    }
    EXPECT_LT(max_deviation(p.u.array(), p.g.domain, 0, 3.0), 1e-13) << dim << "D";
  }
}

TEST(Advection, AdvectionFluxesMatchUpdate) {
  for (int dim : {2, 3}) {
    PeriodicPatch p(dim_line(dim) + "[advection]\nncomp = 2\n", dim, dim == 2 ? 32 : 16);
    const double dt = 0.9 * p.stable_dt(0.1);
    fill_periodic(p.u, p.g.domain);
    const Array4 fl[3] = {p.flux[0].array(), p.flux[1].array(), p.flux[2].array()};
    p.adv.advance(p.g, p.g.domain, p.u.array(), p.u_new.array(), fl, 0.1, dt, p.scratch,
                  Counters());
    for (int c = 0; c < 2; ++c) {
      EXPECT_LT(flux_update_mismatch(p.g, p.u.array(), p.u_new.array(), fl, dt, c), 1e-14)
          << dim << "D component " << c;
    }
    // The fluxes are not trivially zero.
    const double moved = max_difference(p.u.array(), p.u_new.array(), p.g.domain, 0);
    EXPECT_GT(moved, 1e-3);
  }
}

TEST(Advection, AdvectionOfAnInnerPatchReadsOnlyNghostGhostLayers) {
  // A patch away from the origin, with one more ghost layer than nghost() holding NaN:
  // its result must equal, bit for bit, that of the whole domain advanced at once.
  for (int dim : {2, 3}) {
    PeriodicPatch whole(dim_line(dim) + "[advection]\nncomp = 2\n", dim, 16);
    const double dt = 0.9 * whole.stable_dt(0.3);
    fill_periodic(whole.u, whole.g.domain);
    const Array4 wf[3] = {whole.flux[0].array(), whole.flux[1].array(),
                          whole.flux[2].array()};
    whole.adv.advance(whole.g, whole.g.domain, whole.u.array(), whole.u_new.array(), wf,
                      0.3, dt, whole.scratch, Counters());

    const Box sub{{4, 8, dim == 3 ? 2 : 0}, {11, 15, dim == 3 ? 9 : 0}};
    const int ng = whole.adv.nghost();
    Fab u("sub_u", grow(sub, IntVect::in_dims(dim, ng + 1, 0)), 2);
    Fab u_new("sub_u_new", sub, 2), flux[3];
    Kokkos::deep_copy(u.data, std::nan(""));
    copy_cells(u.array(), whole.u.array(), grow(sub, IntVect::in_dims(dim, ng, 0)), 2);
    for (int d = 0; d < dim; ++d)
      flux[d] = Fab("sub_flux", faces(sub, d), 2);
    const Array4 sf[3] = {flux[0].array(), flux[1].array(), flux[2].array()};
    whole.adv.advance(whole.g, sub, u.array(), u_new.array(), sf, 0.3, dt, whole.scratch,
                      Counters());
    for (int c = 0; c < 2; ++c) {
      EXPECT_EQ(max_difference(u_new.array(), whole.u_new.array(), sub, c), 0.0) << dim;
      for (int d = 0; d < dim; ++d)
        EXPECT_EQ(max_difference(sf[d], wf[d], faces(sub, d), c), 0.0) << dim << " " << d;
    }
  }
}

TEST(Advection, AdvectionTagsAboveThresholdOnTheOwnedPatchesInOrder) {
  // Four 16^2 patches of one 32^2 field, the third owned by another rank: the tagged
  // cells come back patch by patch (owned ones only), i fastest, as the host finds them.
  PeriodicPatch p(dim_line(2) + "[advection]\ntag_threshold = [1.5, 1.9]\n", 2, 32);
  const std::vector<Box> boxes = {
      Box({0, 0, 0}, {15, 15, 0}), Box({16, 0, 0}, {31, 15, 0}),
      Box({0, 16, 0}, {15, 31, 0}), Box({16, 16, 0}, {31, 31, 0})};
  const std::vector<int> owned = {0, 1, 3};
  const StructArray<FabRef> u = fab_refs(std::vector<Fab>(boxes.size(), p.u));
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.u.data);
  for (int level : {0, 1, 7}) {
    const double thr = level == 0 ? 1.5 : 1.9;  // deeper levels use the last entry
    const LevelTags tags(boxes, owned);
    p.adv.tag(p.g, tags, u, level, 0.0);
    std::vector<int> expected;
    for (int q : owned) {
      const Box& b = boxes[size_t(q)];
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i)
          if (host(0, 0, j - p.u.box.lo[1], i - p.u.box.lo[0]) > thr)
            expected.insert(expected.end(), {i, j, 0});
    }
    EXPECT_GT(expected.size(), 0u) << "level " << level;
    EXPECT_LT(expected.size(), 3u * 3 * 16 * 16) << "level " << level;
    EXPECT_EQ(tags.tagged_cells(), expected) << "level " << level;
  }
}

TEST(Advection, AdvectionRejectsUnknownVelocityNamingTheKey) {
  const Deck deck = Deck::parse("[advection]\nvelocity = \"vortex\"\n", "test.toml");
  try {
    make_physics(deck);
    FAIL() << "no error for an unknown velocity";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("advection.velocity"), std::string::npos) << what;
    EXPECT_NE(what.find("swirl"), std::string::npos) << what;
    EXPECT_NE(what.find("vortex"), std::string::npos) << what;
  }
}

TEST(Advection, AdvectionRegistryRejectsUnknownModuleListingKnownOnes) {
  const Deck deck = Deck::parse("[physics]\nmodule = \"mhd\"\n", "test.toml");
  try {
    make_physics(deck);
    FAIL() << "no error for an unknown module";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("physics.module"), std::string::npos) << what;
    for (const char* known : {"advection", "hydro", "poisson"})
      EXPECT_NE(what.find(known), std::string::npos) << what;
  }
}

TEST(Advection, AdvectionRejectsBadValuesNamingTheKey) {
  const char* bad[][2] = {{"ncomp = 0", "advection.ncomp"},
                          {"width = -1.0", "advection.width"},
                          {"tag_threshold = []", "advection.tag_threshold"},
                          {"initial = \"square\"", "advection.initial"}};
  for (const auto& b : bad) {
    const Deck deck =
        Deck::parse(std::string("[advection]\n") + b[0] + "\n", "test.toml");
    try {
      Advection adv(deck, 2);
      ADD_FAILURE() << "no error for " << b[0];
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(b[1]), std::string::npos) << e.what();
    }
  }
}

TEST(Advection, AdvectionRotationFollowsItsExactSolution) {
  // A quarter turn of the blob: the error against initial_data(t) (the blob turned back
  // by omega t) falls at second order, which also checks the turning direction.
  std::vector<double> err;
  for (int n : {32, 64, 128}) {
    PeriodicPatch p(dim_line(2) + "[advection]\nvelocity = \"rotation\"\n", 2, n);
    const double t_end = 0.25;
    const int steps = int(std::ceil(t_end / (0.8 * p.stable_dt(0.0))));
    const double dt = t_end / steps;
    for (int s = 0; s < steps; ++s)
      p.step(s * dt, dt);
    err.push_back(l1_error(p, 0, t_end));
    std::printf("  rotation N=%4d  L1 error %.4e\n", n, err.back());
  }
  for (size_t r = 1; r < err.size(); ++r)
    EXPECT_GE(std::log2(err[r - 1] / err[r]), 1.8);
}
