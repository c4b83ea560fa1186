// The exact solution of the Riemann problem of the Euler equations for an ideal gas
// (Toro, "Riemann Solvers and Numerical Methods for Fluid Dynamics", chapter 4): the
// star pressure by Newton iteration on the pressure function, then the self-similar
// solution sampled at x/t. For tests.
#pragma once

#include <algorithm>
#include <cmath>

namespace pw::testing {

struct GasState {
  double rho, u, p;
};

class ExactRiemann {
 public:
  ExactRiemann(GasState left, GasState right, double gamma)
      : l_(left), r_(right), g_(gamma) {
    cl_ = std::sqrt(g_ * l_.p / l_.rho);
    cr_ = std::sqrt(g_ * r_.p / r_.rho);
    // Newton from the two-rarefaction guess (Toro 4.46), to round-off.
    double p = std::pow((cl_ + cr_ - 0.5 * (g_ - 1) * (r_.u - l_.u)) /
                            (cl_ / std::pow(l_.p, z()) + cr_ / std::pow(r_.p, z())),
                        1.0 / z());
    for (int it = 0; it < 100; ++it) {
      double fl, dl, fr, dr;
      side(l_, cl_, p, fl, dl);
      side(r_, cr_, p, fr, dr);
      const double next = std::max(p - (fl + fr + r_.u - l_.u) / (dl + dr), 1e-14);
      const bool done = std::abs(next - p) < 1e-15 * (next + p);
      p = next;
      if (done) break;
    }
    ps_ = p;
    double fl, dl, fr, dr;
    side(l_, cl_, p, fl, dl);
    side(r_, cr_, p, fr, dr);
    us_ = 0.5 * (l_.u + r_.u) + 0.5 * (fr - fl);
  }

  double star_pressure() const { return ps_; }
  double star_velocity() const { return us_; }

  /// The state at similarity coordinate s = (x - x0) / t.
  GasState sample(double s) const {
    if (s <= us_) return sample_side(l_, cl_, s, -1.0);
    return sample_side(r_, cr_, s, 1.0);
  }

 private:
  double z() const { return (g_ - 1) / (2 * g_); }

  /// The pressure function f_K(p) and its derivative (Toro 4.6-4.7, 4.37).
  void side(const GasState& k, double c, double p, double& f, double& df) const {
    if (p > k.p) {  // shock
      const double a = 2 / ((g_ + 1) * k.rho), b = (g_ - 1) / (g_ + 1) * k.p;
      const double q = std::sqrt(a / (p + b));
      f = (p - k.p) * q;
      df = q * (1 - 0.5 * (p - k.p) / (b + p));
    } else {  // rarefaction
      f = 2 * c / (g_ - 1) * (std::pow(p / k.p, z()) - 1);
      df = 1 / (k.rho * c) * std::pow(p / k.p, -(g_ + 1) / (2 * g_));
    }
  }

  /// The state at s on the side of the contact of k (sign -1: left, +1: right).
  GasState sample_side(const GasState& k, double c, double s, double sign) const {
    const double g = g_;
    const double pr = ps_ / k.p;
    if (ps_ > k.p) {  // a shock
      const double speed =
          k.u + sign * c * std::sqrt((g + 1) / (2 * g) * pr + (g - 1) / (2 * g));
      if (sign * (s - speed) >= 0) return k;
      const double rho = k.rho * (pr + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * pr + 1);
      return {rho, us_, ps_};
    }
    // A rarefaction: head, tail, and the fan between.
    const double cs = c * std::pow(pr, z());
    const double head = k.u + sign * c, tail = us_ + sign * cs;
    if (sign * (s - head) >= 0) return k;
    if (sign * (s - tail) <= 0) return {k.rho * std::pow(pr, 1 / g), us_, ps_};
    const double u = 2 / (g + 1) * (-sign * c + (g - 1) / 2 * k.u + s);
    const double cf = 2 / (g + 1) * (c - sign * (g - 1) / 2 * (k.u - s));
    const double rho = k.rho * std::pow(cf / c, 2 / (g - 1));
    return {rho, u, k.p * std::pow(cf / c, 2 * g / (g - 1))};
  }

  GasState l_, r_;
  double g_, cl_, cr_, ps_ = 0, us_ = 0;
};

}  // namespace pw::testing
