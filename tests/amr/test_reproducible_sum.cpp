// ExactSum: the same bits in any order; a term that is not finite, or beyond the scale,
// makes the sum NaN without an undefined conversion to an integer (UBSan found one when
// a solve's dot product met an overflowed state).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "amr/reproducible_sum.hpp"

using pw::ExactSum;

TEST(ExactSum, OrderDoesNotChangeTheBits) {
  // Summed as doubles, these give 1e-16 forward and 2.2e-16 backward.
  const double terms[] = {1.0, 1e-16, -1.0, 1e-16};
  const double scale = pw::power_of_two_above(1.0), inv = 1.0 / scale;
  ExactSum forward, backward;
  for (double t : terms)
    forward.add(t, inv);
  for (int n = 3; n >= 0; --n)
    backward.add(terms[n], inv);
  EXPECT_EQ(forward.value(scale), backward.value(scale));
  EXPECT_NEAR(forward.value(scale), 2e-16, 1e-27);
}

TEST(ExactSum, ABadTermMakesTheSumNaN) {
  const double inv = 1.0;  // scale 1: every term must be in [-1, 1]
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity(), 2.0, -1e300}) {
    ExactSum s, t;
    s.add(0.5, inv);
    s.add(bad, inv);
    EXPECT_TRUE(std::isnan(s.value(1.0))) << bad;
    t.add(0.25, inv);
    t += s;  // joined, as a reduction joins partial sums
    EXPECT_TRUE(std::isnan(t.value(1.0))) << bad;
  }
  ExactSum fine;
  fine.add(1.0, inv);
  fine.add(-1.0, inv);
  EXPECT_EQ(fine.value(1.0), 0.0);
}

namespace {
/// The definition power_of_two_above follows: 2^e with |x| = m 2^e, 0.5 <= m < 1.
double by_frexp(double x) {
  if (!(std::fabs(x) > 0) || !std::isfinite(x)) return 1.0;
  int e = 0;
  std::frexp(x, &e);
  return std::ldexp(1.0, e);
}
}  // namespace

TEST(ExactSum, PowerOfTwoAboveIsFrexpsOverTheWholeRange) {
  // Every binade: its power of two, the doubles beside it and one inside; subnormals,
  // the largest double, zero, infinities and NaN.
  std::vector<double> xs = {0.0,
                            -0.0,
                            std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::min(),
                            std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::nan("")};
  for (int e = -1074; e <= 1023; ++e) {
    const double t = std::ldexp(1.0, e);
    xs.insert(xs.end(),
              {t, std::nextafter(t, 0.0), std::nextafter(t, 1e308), 1.37 * t, -t});
  }
  for (double x : xs)
    EXPECT_EQ(pw::power_of_two_above(x), by_frexp(x)) << x;
}
