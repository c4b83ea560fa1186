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
        std::vector<Fab> fines;
        std::vector<FineRegion> regions;
        std::vector<Box> cells;
        for (size_t n = 0; n < boxes.size(); ++n) {
          fines.emplace_back("f", fbox, 2);
          pw::testing::set(fines.back(), [](int, int, int, int) { return -7.0; });
          regions.push_back({int(n), boxes[n]});
          cells.push_back(coarsen(boxes[n], r));
        }
        const std::vector<Fab> crses(boxes.size(), crse);
        interpolate_regions(fab_refs(crses), fab_refs(fines),
                            device_copy("regions", regions), BoxSet(cells), r, dim,
                            {kind, kind}, 2);
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
