// Inter-level operators: interpolation reproduces linear data and conserves, and the
// launch over many regions gives the bits of the one-fab path; averaging is the exact
// mean.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "amr/box_set.hpp"
#include "amr/device_array.hpp"
#include "amr/field3.hpp"
#include "amr/interpolate.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;
using pw::testing::HostFab;

namespace {

void check_interpolation(int dim, int ratio, Interp kind) {
  const IntVect r = IntVect::in_dims(dim, ratio, 1);
  const IntVect one = IntVect::in_dims(dim, 1, 0);
  const Box cbox{{2, 3, dim == 3 ? 1 : 0}, {5, 6, dim == 3 ? 4 : 0}};
  const Box fbox = refine(cbox, r);
  Fab crse("c", grow(cbox, one), 2);
  Fab fine("f", fbox, 2);
  // Coarse cell averages of a linear function are its values at the cell centres.
  auto linear = [&](double x, double y, double z, int c) {
    return 1.0 + (c + 1) * (0.5 * x - 0.25 * y + (dim == 3 ? 0.125 * z : 0.0));
  };
  pw::testing::set(crse, [&](int i, int j, int k, int c) {
    return linear(i + 0.5, j + 0.5, k + 0.5, c);
  });
  interpolate_to_fine(crse, fine, fbox, r, dim, kind);
  HostFab f(fine);
  for (int c = 0; c < 2; ++c)
    for (int k = fbox.lo[2]; k <= fbox.hi[2]; ++k)
      for (int j = fbox.lo[1]; j <= fbox.hi[1]; ++j)
        for (int i = fbox.lo[0]; i <= fbox.hi[0]; ++i) {
          const double x = (i + 0.5) / r[0], y = (j + 0.5) / r[1], z = (k + 0.5) / r[2];
          ASSERT_NEAR(f(i, j, k, c), linear(x, y, z, c), 1e-13);
        }
}

/// Mean over [c - h/2, c + h/2] of each direction of the quadratic
/// 1 + x - 0.5 y + 0.25 z + 0.3 x^2 - 0.2 y^2 + 0.1 z^2 + 0.4 xy - 0.3 xz + 0.2 yz.
double quadratic_mean(const double c[3], const double h[3]) {
  double x2[3];
  for (int d = 0; d < 3; ++d)
    x2[d] = c[d] * c[d] + h[d] * h[d] / 12.0;
  return 1.0 + c[0] - 0.5 * c[1] + 0.25 * c[2] + 0.3 * x2[0] - 0.2 * x2[1] + 0.1 * x2[2] +
         0.4 * c[0] * c[1] - 0.3 * c[0] * c[2] + 0.2 * c[1] * c[2];
}

void check_quadratic(int dim, int ratio) {
  const IntVect r = IntVect::in_dims(dim, ratio, 1);
  const IntVect one = IntVect::in_dims(dim, 1, 0);
  const Box cbox{{-2, 3, dim == 3 ? 1 : 0}, {1, 5, dim == 3 ? 3 : 0}};
  const Box fbox = refine(cbox, r);
  Fab crse("c", grow(cbox, one), 1);
  Fab fine("f", fbox, 1);
  // In 2D z is 0 for every cell (a zero-width direction).
  pw::testing::set(crse, [&](int i, int j, int k, int) {
    const double c[3] = {i + 0.5, j + 0.5, dim == 3 ? k + 0.5 : 0.0};
    const double h[3] = {1, 1, dim == 3 ? 1.0 : 0.0};
    return quadratic_mean(c, h);
  });
  interpolate_to_fine(crse, fine, fbox, r, dim, Interp::quadratic);
  HostFab f(fine);
  for (int k = fbox.lo[2]; k <= fbox.hi[2]; ++k)
    for (int j = fbox.lo[1]; j <= fbox.hi[1]; ++j)
      for (int i = fbox.lo[0]; i <= fbox.hi[0]; ++i) {
        const double c[3] = {(i + 0.5) / r[0], (j + 0.5) / r[1],
                             dim == 3 ? (k + 0.5) / r[2] : 0.0};
        const double h[3] = {1.0 / r[0], 1.0 / r[1], dim == 3 ? 1.0 / r[2] : 0.0};
        ASSERT_NEAR(f(i, j, k), quadratic_mean(c, h), 1e-12) << i << "," << j << "," << k;
      }
}

}  // namespace

TEST(Interpolate, ExactForLinearData2DRatio2) {
  for (Interp kind : {Interp::conservative_linear, Interp::linear, Interp::quadratic})
    check_interpolation(2, 2, kind);
}
TEST(Interpolate, ExactForLinearData2DRatio4) {
  for (Interp kind : {Interp::conservative_linear, Interp::linear, Interp::quadratic})
    check_interpolation(2, 4, kind);
}
TEST(Interpolate, ExactForLinearData3DRatio2) {
  for (Interp kind : {Interp::conservative_linear, Interp::linear, Interp::quadratic})
    check_interpolation(3, 2, kind);
}
TEST(Interpolate, QuadraticIsExactForQuadraticCellAverages) {
  check_quadratic(2, 2);
  check_quadratic(2, 4);
  check_quadratic(3, 2);
}

TEST(Interpolate, ConservesAndAverageDownIsExactMean) {
  for (Interp kind : {Interp::conservative_linear, Interp::linear, Interp::quadratic}) {
    const int dim = 3;
    const IntVect r{2, 2, 2};
    const Box cbox{{0, 0, 0}, {3, 3, 3}};
    Fab crse("c", grow(cbox, IntVect{1, 1, 1}), 1);
    pw::testing::set(crse, [](int i, int j, int k, int) {
      return std::sin(1.3 * i) + std::cos(0.7 * j * k) + (i == 2 ? 3.0 : 0.0);
    });
    Fab fine("f", refine(cbox, r), 1);
    interpolate_to_fine(crse, fine, fine.box, r, dim, kind);
    Fab back("b", cbox, 1);
    average_to_coarse(fine, back, cbox, r);
    HostFab c(crse), b(back);
    for (int k = 0; k <= 3; ++k)
      for (int j = 0; j <= 3; ++j)
        for (int i = 0; i <= 3; ++i)
          ASSERT_NEAR(b(i, j, k), c(i, j, k), 1e-14);
  }
}

TEST(Interpolate, LimitedSlopesMakeNoNewExtrema) {
  const IntVect r{4, 4, 1};
  const Box cbox{{0, 0, 0}, {5, 5, 0}};
  Fab crse("c", grow(cbox, IntVect{1, 1, 0}), 1);
  pw::testing::set(crse,
                   [](int i, int j, int, int) { return (i >= 3 && j >= 2) ? 1.0 : 0.0; });
  Fab fine("f", refine(cbox, r), 1);
  interpolate_to_fine(crse, fine, fine.box, r, 2);
  HostFab f(fine);
  for (int j = fine.box.lo[1]; j <= fine.box.hi[1]; ++j)
    for (int i = fine.box.lo[0]; i <= fine.box.hi[0]; ++i) {
      EXPECT_GE(f(i, j, 0), -1e-15);
      EXPECT_LE(f(i, j, 0), 1.0 + 1e-15);
    }
}

namespace {

/// interpolate_regions of crse into one fine fab per box of `boxes` (each covering fbox,
/// -7 outside its region), interp[c] for component c.
std::vector<Fab> fill_regions(const Fab& crse, const Box& fbox,
                              const std::vector<Box>& boxes, const IntVect& r, int dim,
                              const std::vector<Interp>& interp) {
  const int nc = int(interp.size());
  std::vector<Fab> fines;
  std::vector<FineRegion> regions;
  std::vector<Box> cells;
  for (size_t n = 0; n < boxes.size(); ++n) {
    fines.emplace_back("f", fbox, nc);
    pw::testing::set(fines.back(), [](int, int, int, int) { return -7.0; });
    regions.push_back({int(n), boxes[n]});
    cells.push_back(coarsen(boxes[n], r));
  }
  const std::vector<Fab> crses(boxes.size(), crse);
  interpolate_regions(fab_refs(crses), fab_refs(fines), device_copy("regions", regions),
                      BoxSet(cells), r, dim, interp, nc);
  return fines;
}

}  // namespace

// The region launch unrolls the usual ratios (FixedRatio) for the coarse cells whose fine
// cells all lie in their region: its values must be those of the one-fab path, bit for
// bit, for whole blocks, for regions thinner than a coarse cell or not aligned to one
// (slabs and columns), for each kind of interpolation, and for a ratio it does not
// unroll (3).
TEST(Interpolate, RegionsGiveTheBitsOfTheOneFabPath) {
  for (int dim : {2, 3})
    for (int ratio : {2, 3, 4})
      for (Interp kind :
           {Interp::conservative_linear, Interp::linear, Interp::quadratic}) {
        const IntVect r = IntVect::in_dims(dim, ratio, 1);
        const IntVect one = IntVect::in_dims(dim, 1, 0);
        const Box cbox{{-2, 1, dim == 3 ? -1 : 0}, {3, 5, dim == 3 ? 2 : 0}};
        const Box fbox = refine(cbox, r);
        // Rough data, so the limiter cuts many slopes; two components.
        Fab crse("c", grow(cbox, one), 2);
        pw::testing::set(crse, [](int i, int j, int k, int c) {
          return std::sin(1.3 * i + c) + std::cos(0.7 * j * (k + 2)) +
                 (i == 1 ? 3.0 : 0.0);
        });
        // Regions: the fine box in whole blocks, a slab one fine cell thick in x, a
        // column one fine cell thick in x and y, and a box whose corners fall inside
        // coarse cells.
        const std::vector<Box> boxes = {
            Box{fbox.lo, fbox.lo + r * 2 - IntVect::uniform(1)} & fbox,
            Box{IntVect{fbox.hi[0], fbox.lo[1], fbox.lo[2]}, fbox.hi},
            Box{IntVect{fbox.lo[0], fbox.hi[1], fbox.lo[2]},
                IntVect{fbox.lo[0], fbox.hi[1], fbox.hi[2]}},
            Box{fbox.lo + one, fbox.hi - one}};
        const std::vector<Fab> fines =
            fill_regions(crse, fbox, boxes, r, dim, {kind, kind});
        for (size_t n = 0; n < boxes.size(); ++n) {
          Fab want("w", fbox, 2);
          pw::testing::set(want, [](int, int, int, int) { return -7.0; });
          interpolate_to_fine(crse, want, boxes[n], r, dim, kind);
          HostFab got(fines[n]), w(want);
          for (int c = 0; c < 2; ++c)
            for (int k = fbox.lo[2]; k <= fbox.hi[2]; ++k)
              for (int j = fbox.lo[1]; j <= fbox.hi[1]; ++j)
                for (int i = fbox.lo[0]; i <= fbox.hi[0]; ++i)
                  ASSERT_EQ(got(i, j, k, c), w(i, j, k, c))
                      << "dim " << dim << " ratio " << ratio << " region " << n
                      << " cell " << i << "," << j << "," << k;
        }
      }
}

namespace {

/// A gas state (density, three momenta, total energy) per coarse cell: density and a
/// warm pressure smooth everywhere; where `fast`, gas streaming along x at a speed that
/// grows with i, so cold that limited slopes give some fine cells a negative internal
/// energy; elsewhere slow.
double gas(int i, int j, int k, int c, bool fast) {
  const double rho = 1.0 + 0.1 * i + 0.05 * j + 0.02 * k;
  const double u = fast && i >= 2 ? 5.0 * i : 0.1 * i - 0.05 * j;
  const double v = 0.2 + 0.03 * j, w = -0.1 + 0.01 * k;
  const double p = fast && i >= 2 ? 0.01 : 1.0 + 0.02 * j;
  const double e = p / 0.4 + 0.5 * rho * (u * u + v * v + w * w);
  const double q[5] = {rho, rho * u, rho * v, rho * w, e};
  return q[c];
}

double internal_energy(const HostFab& f, int i, int j, int k) {
  const double m2 = f(i, j, k, 1) * f(i, j, k, 1) + f(i, j, k, 2) * f(i, j, k, 2) +
                    f(i, j, k, 3) * f(i, j, k, 3);
  return f(i, j, k, 4) - 0.5 * m2 / f(i, j, k, 0);
}

}  // namespace

// Limited slopes one component at a time can give a cold, fast gas a negative pressure
// in a fine cell (the hydro's ghost cells did on clumps_3d.toml); Interp::gas_state then
// gives that coarse cell's fine cells its own state, and is conservative_linear bit for
// bit wherever every fine cell stays positive.
TEST(Interpolate, GasStateKeepsTheInternalEnergyPositive) {
  for (int dim : {2, 3})
    for (int ratio : {2, 4}) {
      const IntVect r = IntVect::in_dims(dim, ratio, 1);
      const IntVect one = IntVect::in_dims(dim, 1, 0);
      const Box cbox{{0, 0, 0}, {7, 3, dim == 3 ? 2 : 0}};
      const Box fbox = refine(cbox, r);
      for (bool fast : {true, false}) {
        Fab crse("c", grow(cbox, one), 5);
        pw::testing::set(
            crse, [&](int i, int j, int k, int c) { return gas(i, j, k, c, fast); });
        Fab plain("p", fbox, 5), guarded("g", fbox, 5);
        interpolate_to_fine(crse, plain, fbox, r, dim, Interp::conservative_linear);
        interpolate_to_fine(crse, guarded, fbox, r, dim, Interp::gas_state);
        HostFab c(crse), p(plain), g(guarded);
        int negative = 0, kept = 0;
        for (int kc = cbox.lo[2]; kc <= cbox.hi[2]; ++kc)
          for (int jc = cbox.lo[1]; jc <= cbox.hi[1]; ++jc)
            for (int ic = cbox.lo[0]; ic <= cbox.hi[0]; ++ic) {
              const Box block = refine(Box{{ic, jc, kc}, {ic, jc, kc}}, r);
              bool bad = false;
              double sum[5] = {0, 0, 0, 0, 0};
              for (int k = block.lo[2]; k <= block.hi[2]; ++k)
                for (int j = block.lo[1]; j <= block.hi[1]; ++j)
                  for (int i = block.lo[0]; i <= block.hi[0]; ++i) {
                    bad = bad || internal_energy(p, i, j, k) <= 0;
                    EXPECT_GT(internal_energy(g, i, j, k), 0) << i << "," << j;
                    for (int n = 0; n < 5; ++n)
                      sum[n] += g(i, j, k, n);
                  }
              negative += bad;
              for (int k = block.lo[2]; k <= block.hi[2]; ++k)
                for (int j = block.lo[1]; j <= block.hi[1]; ++j)
                  for (int i = block.lo[0]; i <= block.hi[0]; ++i)
                    for (int n = 0; n < 5; ++n) {
                      const double want = bad ? c(ic, jc, kc, n) : p(i, j, k, n);
                      ASSERT_EQ(g(i, j, k, n), want)
                          << "dim " << dim << " ratio " << ratio;
                    }
              kept += !bad;
              for (int n = 0; n < 5; ++n)
                EXPECT_NEAR(sum[n] / double(block.num_cells()), c(ic, jc, kc, n),
                            1e-14 * (1 + std::abs(c(ic, jc, kc, n))));
            }
        // The fast gas does make negative pressures, and not everywhere.
        if (fast) {
          EXPECT_GT(negative, 0) << "dim " << dim << " ratio " << ratio;
          EXPECT_GT(kept, 0);
        } else {
          EXPECT_EQ(negative, 0);
        }
      }
    }
}

// A fine cell's value must not depend on the region it is filled in (a ghost slab or a
// whole patch): the region launch gives the one-fab path's bits for gas states too.
TEST(Interpolate, GasStateRegionsGiveTheBitsOfTheOneFabPath) {
  for (int dim : {2, 3})
    for (int ratio : {2, 4}) {
      const IntVect r = IntVect::in_dims(dim, ratio, 1);
      const IntVect one = IntVect::in_dims(dim, 1, 0);
      const Box cbox{{0, 0, 0}, {7, 3, dim == 3 ? 2 : 0}};
      const Box fbox = refine(cbox, r);
      // Gas at unit density streaming along x at u = i + 1, its pressure 0.004, but
      // for hot gas in coarse cells i = 5: there the energy's slope is limited (to 9,
      // against the momentum's 1), which leaves the fine cells of i = 4 at
      // 0.01 + 4x - x^2 / 2 of internal energy, x the offset from its centre: negative
      // on its low side only.
      Fab crse("c", grow(cbox, one), 5);
      pw::testing::set(crse, [&](int i, int, int, int c) {
        const double u = i + 1.0;
        const double q[5] = {1.0, u, 0.0, 0.0, i == 5 ? 28.0 : 0.5 * u * u + 0.01};
        return q[c];
      });
      // A slab one fine cell thick in x on the high side of i = 4, where every fine
      // cell is positive, a column, and a box whose corners fall inside coarse cells.
      const std::vector<Box> boxes = {Box{IntVect{5 * ratio - 1, fbox.lo[1], fbox.lo[2]},
                                          IntVect{5 * ratio - 1, fbox.hi[1], fbox.hi[2]}},
                                      Box{IntVect{fbox.lo[0], fbox.hi[1], fbox.lo[2]},
                                          IntVect{fbox.hi[0], fbox.hi[1], fbox.lo[2]}},
                                      Box{fbox.lo + one, fbox.hi - one}};
      const std::vector<Fab> fines = fill_regions(
          crse, fbox, boxes, r, dim, std::vector<Interp>(5, Interp::gas_state));
      Fab whole("w", fbox, 5);
      interpolate_to_fine(crse, whole, fbox, r, dim, Interp::gas_state);
      const HostFab w(whole);
      for (size_t n = 0; n < boxes.size(); ++n) {
        const HostFab got(fines[n]);
        for (int c = 0; c < 5; ++c)
          for (int k = fbox.lo[2]; k <= fbox.hi[2]; ++k)
            for (int j = fbox.lo[1]; j <= fbox.hi[1]; ++j)
              for (int i = fbox.lo[0]; i <= fbox.hi[0]; ++i)
                ASSERT_EQ(got(i, j, k, c),
                          boxes[n].contains(IntVect{i, j, k}) ? w(i, j, k, c) : -7.0)
                    << "dim " << dim << " ratio " << ratio << " region " << n;
      }
    }
}
