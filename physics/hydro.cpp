// The hydro module: deck reading, boundary conditions, initial data, the time-step
// bound and tagging (the MUSCL-Hancock stages are in hydro_update.hpp).
#include "physics/hydro.hpp"

#include <fmt/format.h>

#include "amr/amr_config.hpp"
#include "physics/blast_samples.hpp"
#include "physics/deck_values.hpp"
#include "physics/hydro_advance.hpp"
#include "solver/mg_config.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace pw {

// Launch helpers hold the kernels: free functions (not private members), because CUDA's
// extended lambdas may not live in private member functions.
namespace hydro_detail {

using namespace deck_values;

using namespace hydro_index;

/// Loehner's estimator (Loehner 1987, as FLASH uses it, with the axis terms only) of
/// field q at cell (i, j, k): second differences over first differences plus a filter
/// of the magnitudes, largest over the directions' sums. Near 1 at a jump, small where
/// q is smooth.
template <class Q>
KOKKOS_INLINE_FUNCTION double loehner(const Q& q, int i, int j, int k, int dim,
                                      double filter) {
  double num = 0.0, den = 0.0;
  for (int d = 0; d < dim; ++d) {
    const int di = d == 0, dj = d == 1, dk = d == 2;
    const double qm = q(i - di, j - dj, k - dk), q0 = q(i, j, k);
    const double qp = q(i + di, j + dj, k + dk);
    const double second = qp - 2.0 * q0 + qm;
    const double first =
        kmath::abs(qp - q0) + kmath::abs(q0 - qm) +
        filter * (kmath::abs(qp) + 2.0 * kmath::abs(q0) + kmath::abs(qm));
    num += second * second;
    den += first * first;
  }
  return den > 0.0 ? kmath::sqrt(num / den) : 0.0;
}

/// The largest relative jump of q from cell (i, j, k) to a face neighbour.
template <class Q>
KOKKOS_INLINE_FUNCTION double relative_jump(const Q& q, int i, int j, int k, int dim) {
  double m = 0.0;
  const double q0 = q(i, j, k);
  for (int d = 0; d < dim; ++d) {
    const int di = d == 0, dj = d == 1, dk = d == 2;
    for (int s = -1; s <= 1; s += 2) {
      const double qn = q(i + s * di, j + s * dj, k + s * dk);
      m = kmath::max(m,
                     kmath::abs(qn - q0) /
                         kmath::max(kmath::min(kmath::abs(qn), kmath::abs(q0)), 1e-300));
    }
  }
  return m;
}

/// A (density, velocity, pressure) state with positive density and pressure.
void read_state(const Deck& deck, const std::string& key, const std::vector<double>& def,
                double* out) {
  const std::vector<double> s = numbers(deck, key, 3, def, "density, velocity, pressure");
  auto text = [](double x) {
    std::ostringstream os;
    os << x;
    return os.str();
  };
  if (!(s[0] > 0)) deck.fail(key, "expected a density > 0, got " + text(s[0]));
  if (!(s[2] > 0)) deck.fail(key, "expected a pressure > 0, got " + text(s[2]));
  for (int c = 0; c < 3; ++c)
    out[c] = s[size_t(c)];
}

/// A wave's amplitude A under 1/gamma: its pressure p0 (1 + gamma A sin) and density
/// rho0 (1 + A sin) stay positive.
void below_inverse_gamma(const Deck& deck, const std::string& key, double a,
                         double gamma) {
  if (!(gamma * a < 1.0))
    deck.fail(key,
              fmt::format("expected an amplitude below 1/gamma = {:.6g} (the pressure "
                          "at the trough, p0 (1 - gamma A), must stay positive), got {}",
                          1.0 / gamma, a));
}

int read_axis(const Deck& deck, const std::string& key, int dim) {
  const std::string a = deck.get<std::string>(key, "x");
  const std::vector<std::string> names = {"x", "y", "z"};
  for (int d = 0; d < dim; ++d)
    if (a == names[size_t(d)]) return d;
  deck.fail(key, one_of(std::vector<std::string>(names.begin(), names.begin() + dim), a));
}

}  // namespace hydro_detail

using namespace hydro_detail;
using namespace deck_values;

Hydro::Hydro(const Deck& deck, int dim) : dim_(dim) {
  if (dim != 2 && dim != 3) deck.fail("domain.dim", "expected 2 or 3");
  hp_.gamma = deck.get<double>("hydro.gamma", 1.4);
  if (!(hp_.gamma > 1.0) || !std::isfinite(hp_.gamma))
    deck.fail("hydro.gamma", "expected a ratio of specific heats > 1");
  hp_.nscalars = deck.get<int>("hydro.nscalars", 0);
  if (hp_.nscalars < 0 || hp_.nscalars > max_scalars)
    deck.fail("hydro.nscalars",
              "expected an integer in [0, " + std::to_string(max_scalars) + "]");
  problem_.nscalars = hp_.nscalars;
  const std::string limiter = deck.get<std::string>("hydro.limiter", "mc");
  if (limiter == "first_order") {
    hp_.limiter = Limiter::first_order;
  } else if (limiter == "minmod") {
    hp_.limiter = Limiter::minmod;
  } else if (limiter == "mc") {
    hp_.limiter = Limiter::mc;
  } else if (limiter == "van_leer") {
    hp_.limiter = Limiter::van_leer;
  } else {
    deck.fail("hydro.limiter",
              one_of({"first_order", "minmod", "mc", "van_leer"}, limiter));
  }
  const std::string riemann = deck.get<std::string>("hydro.riemann", "hllc");
  if (riemann == "hllc") {
    hp_.riemann = RiemannSolver::hllc;
  } else if (riemann == "hlle") {
    hp_.riemann = RiemannSolver::hlle;
  } else {
    deck.fail("hydro.riemann", one_of({"hllc", "hlle"}, riemann));
  }
  hp_.density_floor = positive(deck, "hydro.density_floor", 1e-10);
  hp_.pressure_floor = positive(deck, "hydro.pressure_floor", 1e-10);
  problem_where_ = deck.where("hydro.problem");
  floor_where_[0] = deck.where("hydro.density_floor");
  floor_where_[1] = deck.where("hydro.pressure_floor");
  const LevelGeom geom = read_amr_config(deck).geom0;
  hp_.gravity = deck.get<bool>("hydro.gravity", false);
  for (const char* key : {"hydro.G", "hydro.jeans_cells"})
    if (!hp_.gravity && deck.has(key))
      deck.fail(key, "is a self-gravity setting, but hydro.gravity is false");
  if (hp_.gravity) {
    hp_.four_pi_G = 4.0 * kmath::pi * positive(deck, "hydro.G", 1.0);
    jeans_cells_ = deck.get<double>("hydro.jeans_cells", 4.0);
    if (!(jeans_cells_ >= 0) || !std::isfinite(jeans_cells_))
      deck.fail("hydro.jeans_cells",
                "expected a number of cells >= 0 (0: no Jeans tags)");
    for (int d = 0; d < dim; ++d)
      if (!geom.periodic[d] && !deck.has("poisson.bc_lo") && !deck.has("poisson.bc_hi"))
        deck.fail("hydro.gravity",
                  std::string("the box is not periodic along ") + "xyz"[d] +
                      ": say what phi does at the walls with poisson.bc_lo and "
                      "poisson.bc_hi (dirichlet or neumann per direction)");
  }

  const std::string tag = deck.get<std::string>("hydro.tag", "loehner");
  if (tag == "loehner") {
    tag_kind_ = TagKind::loehner;
    tag_threshold_ = positive(deck, "hydro.tag_threshold", 0.8);
    tag_filter_ = positive(deck, "hydro.tag_filter", 0.01);
  } else if (tag == "gradient") {
    tag_kind_ = TagKind::gradient;
    tag_threshold_ = positive(deck, "hydro.tag_threshold", 0.1);
  } else {
    deck.fail("hydro.tag", one_of({"loehner", "gradient"}, tag));
  }

  // The problem and its section.
  const std::string problem = deck.get<std::string>("hydro.problem", "shock_tube");
  for (const char* other :
       {"shock_tube", "blast", "shockpool", "sound_wave", "uniform", "jeans", "clumps"})
    if (problem != other)
      deck.read_only_when(other, fmt::format("hydro.problem = \"{}\" (this run's is "
                                             "\"{}\")",
                                             other, problem));
  const double g = hp_.gamma;
  bool has_inflow = false;  // the problem's exact state can flow in through lo faces
  if (problem == "shock_tube") {
    problem_.kind = HydroProblemKind::shock_tube;
    problem_.axis = read_axis(deck, "shock_tube.axis", dim);
    problem_.position = finite(deck, "shock_tube.position", 0.5);
    {  // beyond the domain the tube holds one state: no shock to follow
      const int a = problem_.axis;
      const double lo = geom.prob_lo[a], hi = geom.face(a, geom.domain.hi[a] + 1);
      if (!(problem_.position > lo && problem_.position < hi))
        deck.fail("shock_tube.position",
                  fmt::format("expected a position inside the domain along axis {}, in "
                              "({}, {}), got {}",
                              a, lo, hi, problem_.position));
    }
    read_state(deck, "shock_tube.left", {1.0, 0.0, 1.0}, problem_.state[0]);
    read_state(deck, "shock_tube.right", {0.125, 0.0, 0.1}, problem_.state[1]);
  } else if (problem == "blast") {
    problem_.kind = HydroProblemKind::blast;
    if (deck.has("blast.center")) {
      const std::vector<double> c =
          numbers(deck, "blast.center", size_t(dim), {}, "one per direction");
      for (int d = 0; d < dim; ++d) {
        // Outside, the blast would miss every cell and the run would show nothing.
        const double lo = geom.prob_lo[d], hi = geom.face(d, geom.domain.hi[d] + 1);
        if (!(c[size_t(d)] >= lo && c[size_t(d)] <= hi))
          deck.fail("blast.center", fmt::format("expected a point of the domain: "
                                                "coordinate {} in [{}, {}], got {}",
                                                d, lo, hi, c[size_t(d)]));
        problem_.center[d] = c[size_t(d)];
      }
      center_given_ = true;
    }
    problem_.radius = positive(deck, "blast.radius", 0.05);
    read_blast_volumes(deck, dim);
    problem_.energy = positive(deck, "blast.energy", 1.0);
    problem_.rho0 = positive(deck, "blast.density", 1.0);
    problem_.p0 = positive(deck, "blast.pressure", 1e-5);
  } else if (problem == "shockpool") {
    problem_.kind = HydroProblemKind::shockpool;
    // The front's normal: along `axis`, or any direction into the domain.
    if (deck.has("shockpool.normal")) {
      if (deck.has("shockpool.axis"))
        deck.fail("shockpool.axis", "give the shock's axis or its normal, not both");
      const std::vector<double> n =
          numbers(deck, "shockpool.normal", size_t(dim), {}, "one per direction");
      double norm = 0;
      for (int d = 0; d < dim; ++d) {
        if (n[size_t(d)] < 0)
          deck.fail("shockpool.normal",
                    "expected components >= 0 (the shock enters through lo faces)");
        norm += n[size_t(d)] * n[size_t(d)];
      }
      if (!(norm > 0)) deck.fail("shockpool.normal", "expected a non-zero vector");
      for (int d = 0; d < 3; ++d)
        problem_.normal[d] = d < dim ? n[size_t(d)] / std::sqrt(norm) : 0.0;
    } else {
      problem_.axis = read_axis(deck, "shockpool.axis", dim);
      for (int d = 0; d < 3; ++d)
        problem_.normal[d] = d == problem_.axis ? 1.0 : 0.0;
    }
    problem_.position = finite(deck, "shockpool.position", 0.1);
    const double mach = deck.get<double>("shockpool.mach", 2.5);
    if (!(mach > 1.0) || !std::isfinite(mach))
      deck.fail("shockpool.mach", "expected a shock Mach number > 1");
    const double r0 = positive(deck, "shockpool.density", 1.0);
    const double p0 = positive(deck, "shockpool.pressure", 1.0 / g);
    // Rankine-Hugoniot: the state behind a shock moving at mach * c0 into gas at rest.
    const double m2 = mach * mach, c0 = std::sqrt(g * p0 / r0);
    const double r1 = r0 * (g + 1) * m2 / ((g - 1) * m2 + 2);
    const double p1 = p0 * (2 * g * m2 - (g - 1)) / (g + 1);
    const double u1 = mach * c0 * (1 - r0 / r1);
    const double behind[3] = {r1, u1, p1}, ahead[3] = {r0, 0.0, p0};
    for (int c = 0; c < 3; ++c) {
      problem_.state[0][c] = behind[c];
      problem_.state[1][c] = ahead[c];
    }
    problem_.speed = mach * c0;
    has_inflow = true;
  } else if (problem == "sound_wave") {
    problem_.kind = HydroProblemKind::sound_wave;
    problem_.amplitude = positive(deck, "sound_wave.amplitude", 1e-6);
    below_inverse_gamma(deck, "sound_wave.amplitude", problem_.amplitude, g);
    std::vector<double> def(size_t(dim), 0.0);
    def[0] = 1.0;
    const std::vector<double> k =
        numbers(deck, "sound_wave.wavenumber", size_t(dim), def, "waves per unit length");
    double k2 = 0;
    for (int d = 0; d < dim; ++d) {
      problem_.wavenumber[d] = k[size_t(d)];
      k2 += k[size_t(d)] * k[size_t(d)];
    }
    if (!(k2 > 0)) deck.fail("sound_wave.wavenumber", "expected a non-zero vector");
    problem_.rho0 = positive(deck, "sound_wave.density", 1.0);
    problem_.p0 = positive(deck, "sound_wave.pressure", 1.0 / g);
  } else if (problem == "uniform") {
    problem_.kind = HydroProblemKind::uniform;
    problem_.rho0 = positive(deck, "uniform.density", 1.0);
    problem_.p0 = positive(deck, "uniform.pressure", 1.0);
    const std::vector<double> v =
        numbers(deck, "uniform.velocity", size_t(dim),
                std::vector<double>(size_t(dim), 0.0), "one per direction");
    for (int d = 0; d < dim; ++d)
      problem_.velocity[d] = v[size_t(d)];
  } else if (problem == "jeans") {
    problem_.kind = HydroProblemKind::jeans;
    problem_.amplitude = positive(deck, "jeans.amplitude", 1e-3);
    below_inverse_gamma(deck, "jeans.amplitude", problem_.amplitude, g);
    std::vector<double> def(size_t(dim), 0.0);
    def[0] = 1.0;
    const std::vector<double> k =
        numbers(deck, "jeans.wavenumber", size_t(dim), def, "waves per unit length");
    for (int d = 0; d < dim; ++d)
      problem_.wavenumber[d] = k[size_t(d)];
    problem_.rho0 = positive(deck, "jeans.density", 1.0);
    problem_.p0 = positive(deck, "jeans.pressure", 1.0 / g);
  } else if (problem == "clumps") {
    problem_.kind = HydroProblemKind::clumps;
    problem_.clumps = read_clumps(deck, geom, 0.0);
    problem_.rho0 = positive(deck, "clumps.density", 1.0);
    problem_.p0 = positive(deck, "clumps.pressure", 1.0);
    for (int c = 0; c < problem_.clumps.count; ++c)
      if (!(problem_.clumps.amplitude[c] >= 0))
        deck.fail(
            "clumps.amplitudes",
            "expected density excesses >= 0 (the gas's density must stay positive)");
  } else {
    deck.fail("hydro.problem", one_of({"shock_tube", "blast", "shockpool", "sound_wave",
                                       "uniform", "jeans", "clumps"},
                                      problem));
  }

  // Walls per face. Periodicity is the domain's: a face says "periodic" exactly where
  // domain.periodic does.
  const std::vector<bool> periodic = deck.get<std::vector<bool>>(
      "domain.periodic", std::vector<bool>(size_t(dim), true));
  const int nv = hp_.nvars();
  bcs_.assign(size_t(nv), ComponentBc());
  for (int side = 0; side < 2; ++side) {
    const std::string key = side == 0 ? "hydro.bc_lo" : "hydro.bc_hi";
    std::vector<std::string> def;
    for (int d = 0; d < dim; ++d)
      def.push_back(d < int(periodic.size()) && periodic[size_t(d)] ? "periodic"
                                                                    : "outflow");
    const std::vector<std::string> kinds = deck.get<std::vector<std::string>>(key, def);
    if (int(kinds.size()) != dim)
      deck.fail(key, "expected " + std::to_string(dim) +
                         " names (one per direction), got " +
                         std::to_string(kinds.size()));
    for (int d = 0; d < dim; ++d) {
      const std::string& k = kinds[size_t(d)];
      const bool per = d < int(periodic.size()) && periodic[size_t(d)];
      if (k == "periodic" || per) {
        if (k != "periodic" || !per)
          deck.fail(key, std::string("direction ") + "xyz"[d] + ": \"" + k +
                             "\" on an axis that domain.periodic says is " +
                             (per ? "periodic" : "not periodic"));
        continue;
      }
      for (int c = 0; c < nv; ++c) {
        FaceBc f;
        if (k == "outflow") {
          f.kind = BcKind::outflow;
        } else if (k == "reflect") {
          f.kind = c == mom + d ? BcKind::reflect_odd : BcKind::reflect_even;
        } else if (k == "inflow") {
          // The exact state at the time of each ghost fill: the shock's post-shock gas
          // (and the front itself, when it runs obliquely along the face).
          if (!has_inflow || !(problem_.normal[d] > 0) || side != 0)
            deck.fail(key,
                      std::string("direction ") + "xyz"[d] +
                          ": \"inflow\" needs a problem with an inflow state on "
                          "this face (shockpool: the lo face of a direction in which "
                          "its normal has a positive component)");
          f.kind = BcKind::exact;
        } else {
          deck.fail(key, std::string("direction ") + "xyz"[d] + ": " +
                             one_of({"periodic", "outflow", "reflect", "inflow"}, k));
        }
        (side == 0 ? bcs_[size_t(c)].lo[d] : bcs_[size_t(c)].hi[d]) = f;
      }
    }
  }
  // phi's walls are the solver's.
  if (hp_.gravity) bcs_.push_back(read_poisson_bc(deck, geom).as_bcs()[0]);
}

std::vector<std::string> Hydro::component_names() const {
  // The names yt's Chombo reader knows, so that it derives velocity, pressure etc.
  std::vector<std::string> names = {"density", "X-momentum", "Y-momentum", "Z-momentum",
                                    "energy-density"};
  for (int s = 0; s < hp_.nscalars; ++s)
    names.push_back("scalar" + std::to_string(s));
  if (hp_.gravity) names.push_back("phi");
  return names;
}

std::vector<Interp> Hydro::interpolation() const {
  std::vector<Interp> interp(size_t(hp_.nvars()), Interp::conservative_linear);
  for (int c = 0; c < hydro_index::nbase; ++c)
    interp[size_t(c)] = Interp::gas_state;
  if (hp_.gravity) interp.push_back(Interp::quadratic);
  return interp;
}

GravityFields Hydro::gravity() const {
  if (!hp_.gravity) return {};
  return {hp_.nvars(), rho, hp_.four_pi_G};
}

void Hydro::gravity_kick(const LevelGeom& g, LevelData& u, const LevelData& phi,
                         double dt) const {
  if (!hp_.gravity)  // no component keeps phi
    throw std::logic_error("Hydro::gravity_kick: hydro.gravity is off");
  hydro_gravity_kick(dim_, g, u.interiors(), u.refs(), phi.refs(), dt, gravity().phi);
}

std::vector<std::string> Hydro::counter_names() const {
  return {"hydro_fallbacks", "hydro_density_floors", "hydro_pressure_floors",
          "hydro_read_floors"};
}

long Hydro::scratch_size(const Box& box) const {
  return hydro_scratch_size(hp_, dim_, box);
}

namespace {

/// x rounded up to 4 significant digits: a bound printed as it is checked.
double round_up(double x) {
  const double scale = std::pow(10.0, std::floor(std::log10(x)) - 3);
  return std::ceil(x / scale) * scale;
}

}  // namespace

void Hydro::read_blast_volumes(const Deck& deck, int dim) {
  const AmrConfig amr = read_amr_config(deck);
  const LevelGeom& g0 = amr.geom0;
  const double r = problem_.radius;
  // A smaller ball could fall between level 0's initial-data samples and the explosion
  // be lost; with this radius one always lies inside, wherever the centre.
  double diagonal = 0.0, domain = 0.0;
  for (int d = 0; d < dim; ++d) {
    diagonal += std::pow(g0.dx[d] / kInitialSamples, 2);
    domain += std::pow(g0.dx[d] * g0.domain.size()[d], 2);
  }
  const double least = round_up(std::sqrt(diagonal)), most = std::sqrt(domain);
  if (r < least)
    deck.fail("blast.radius",
              fmt::format("expected at least {}, the diagonal of the {}^{} samples of a "
                          "level-0 cell's initial data (a smaller ball can fall between "
                          "them), got {}",
                          least, kInitialSamples, dim, r));
  if (r > most)
    deck.fail(
        "blast.radius",
        fmt::format("expected at most the domain's diagonal, {:.6g}, got {}", most, r));
  // Counted row by row along x: (2 r / sample width)^(dim - 1) rows, about 36 ns each
  // (3e6 rows took 0.11 s). A level past 4e6 rows takes the exact volume: each finer
  // level has 4 times the rows in 3D, and the start would grow by seconds; there the
  // ball spans over 2000 samples, and the samples' rounding of its volume is small.
  for (int l = 0; l <= amr.max_level; ++l) {
    const LevelGeom g = amr.geom(l);
    double rows = 1.0;
    for (int d = 1; d < dim; ++d)
      rows *= 2.0 * r / (g.dx[d] / kInitialSamples) + 3.0;
    if (rows > 4e6) break;
    double c[3];
    blast_center(g, c);
    blast_volumes_.emplace_back(g.dx[0], sampled_ball_volume(g, c, r, kInitialSamples));
  }
}

void Hydro::blast_center(const LevelGeom& g, double c[3]) const {
  for (int d = 0; d < 3; ++d)
    c[d] = center_given_
               ? problem_.center[d]
               : g.prob_lo[d] + 0.5 * (g.domain.lo[d] + g.domain.hi[d] + 1) * g.dx[d];
}

HydroProblem Hydro::problem_for(const LevelGeom& g) const {
  HydroProblem p = problem_;
  if (p.kind == HydroProblemKind::blast) {
    blast_center(g, p.center);
    for (const auto& [dx, volume] : blast_volumes_)
      if (dx == g.dx[0]) p.blast_volume = volume;
  }
  return p;
}

void Hydro::initial_data(const LevelGeom& g, const BoxSet& cells,
                         const StructArray<FabRef>& u, double time) const {
  if (cells.empty()) return;
  const HydroProblem p = problem_for(g);
  const double gamma = hp_.gamma;
  // Sub-cell samples: 4 per direction, so that a blast's energy and an interface that
  // cuts cells are deposited in proportion to the volume they cover.
  const HydroProblem::SideAverages sides = p.side_averages(g.dim, gamma, kInitialSamples);
  for_each_box_cell(
      "hydro::initial_data", cells, KOKKOS_LAMBDA(int it, int i, int j, int k) {
        p.cell_average(g, i, j, k, gamma, time, kInitialSamples, sides, u(it));
      });
}

namespace hydro_detail {

/// 1 / sum_d (|u_d| + c) / dx_d at one cell: the time step the cell allows.
struct CellDt {
  HydroParams hp;
  int dim;
  double inv[3];

  CellDt(const HydroParams& p, int d, const LevelGeom& g)
      : hp(p), dim(d), inv{1.0 / g.dx[0], 1.0 / g.dx[1], 1.0 / g.dx[2]} {}

  KOKKOS_INLINE_FUNCTION double operator()(const VarFields& f, int i, int j,
                                           int k) const {
    double w[max_vars];
    to_primitive(hp, f, i, j, k, w);
    const double c = kmath::sqrt(hp.gamma * w[pres] / w[rho]);
    double rate = 0.0;
    for (int d = 0; d < dim; ++d)
      rate += (kmath::abs(w[vel + d]) + c) * inv[d];
    return 1.0 / rate;
  }
};

}  // namespace hydro_detail

double Hydro::stable_dt(const LevelGeom& g, const Box& box, const Array4& u,
                        double /*time*/, const Scratch& /*scratch*/) const {
  const CellDt cell_dt(hp_, dim_, g);
  const VarFields f = fields_of(u, hp_.nvars());
  return min_over_cells(
      "hydro::stable_dt", box,
      KOKKOS_LAMBDA(int i, int j, int k) { return cell_dt(f, i, j, k); });
}

double Hydro::stable_dt_level(const LevelGeom& g, const LevelData& u, double /*time*/,
                              const Scratch& /*scratch*/) const {
  // One reduction over the level's owned patches, not one per patch (each a launch and,
  // on a device, a wait for its result). The minimum is exact in any order.
  const BoxSet& owned = u.interiors();
  if (owned.empty()) return std::numeric_limits<double>::infinity();
  const CellDt cell_dt(hp_, dim_, g);
  const StructArray<FabRef> refs = u.refs();
  const int nv = hp_.nvars();
  return reduce_over_box_rows<double, Kokkos::Min<double>>(
      "hydro::stable_dt_level", owned,
      KOKKOS_LAMBDA(double& acc, int p, int j, int k, int i0, int i1) {
        const VarFields f = fields_of(refs(p), nv);
        for (int i = i0; i <= i1; ++i) {
          const double dt = cell_dt(f, i, j, k);
          acc = dt < acc ? dt : acc;
        }
      });
}

void Hydro::advance(const LevelGeom& g, const Box& box, const Array4& u_old,
                    const Array4& u_new, const Array4 flux[3], double /*time*/, double dt,
                    const Scratch& /*scratch*/, const Counters& counters) const {
  if (box.empty()) return;
  hydro_advance(hp_, dim_, g, update_refs(box, u_old, u_new, flux), scratch_size(box), dt,
                counters);
}

void Hydro::advance_level(const LevelGeom& g, const LevelUpdate& s, double /*time*/,
                          double dt, const Counters& counters) const {
  hydro_advance(hp_, dim_, g, update_refs(s), largest_scratch_size(*this, s.u_old), dt,
                counters);
}

void Hydro::check_initial_state(const LevelData& u, int level, const Comm& comm) const {
  const HydroParams hp = hp_;
  const int nv = hp.nvars();
  const StructArray<FabRef> refs = u.refs();
  const char* names[2] = {"density", "pressure"};
  const double floors[2] = {hp.density_floor, hp.pressure_floor};
  for (int which = 0; which < 2; ++which) {
    const double least = comm.min(reduce_over_box_cells<double, Kokkos::Min<double>>(
        "hydro::least_initial_state", u.interiors(),
        KOKKOS_LAMBDA(double& acc, double v) { acc = v < acc ? v : acc; },
        KOKKOS_LAMBDA(int p, int i, int j, int k) {
          const VarFields f = fields_of(refs(p), nv);
          const double r = f.v[hydro_index::rho](i, j, k);
          if (which == 0) return r;
          double m2 = 0.0;
          for (int d = 0; d < 3; ++d)
            m2 += f.v[hydro_index::mom + d](i, j, k) * f.v[hydro_index::mom + d](i, j, k);
          return (hp.gamma - 1.0) * (f.v[hydro_index::energy](i, j, k) - 0.5 * m2 / r);
        }));
    if (!(least > 0))  // the problem's settings, not the floor (deck checks should stop
                       // this first)
      throw UserError(
          fmt::format("{}: hydro.problem: the initial gas's least {} is {} "
                      "(level {}): expected a positive {} everywhere",
                      problem_where_, names[which], least, level, names[which]));
    // A few units of round-off above the gas's own value (a floor set to it) is not.
    if (floors[which] > least * (1.0 + 8 * std::numeric_limits<double>::epsilon()))
      throw UserError(fmt::format(
          "{}: hydro.{}_floor: {} is above the initial gas's least {}, {} (level {}): "
          "the floor would change the problem from the first step; expected a floor "
          "below it (the default is 1e-10)",
          floor_where_[which], names[which], floors[which], names[which], least, level));
  }
}

void Hydro::tag(const LevelGeom& g, const LevelTags& tags, const StructArray<FabRef>& u,
                int /*level*/, double /*time*/) const {
  const HydroParams hp = hp_;
  const int nv = hp.nvars();
  const int dim = dim_;
  const double thr = tag_threshold_, filter = tag_filter_;
  const bool loehner_kind = tag_kind_ == TagKind::loehner;
  // Jeans: lambda_J^2 = pi gamma p / (G rho^2) = 4 pi^2 gamma p / (4 pi G rho^2) below
  // (jeans_cells dx)^2, dx the largest spacing.
  const bool jeans = hp.gravity && jeans_cells_ > 0;
  double dx = g.dx[0];
  for (int d = 1; d < dim; ++d)
    dx = std::max(dx, g.dx[d]);
  const double jeans_len2 = jeans_cells_ * jeans_cells_ * dx * dx;
  const double jeans_coef =
      jeans ? 4.0 * kmath::pi * kmath::pi * hp.gamma / hp.four_pi_G : 0.0;
  for_each_box_cell(
      "hydro::tag", tags.cells(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        const VarFields f = fields_of(u(p), nv);
        auto density = [&](int a, int b, int c) { return f.v[rho](a, b, c); };
        auto pressure = [&](int a, int b, int c) {
          double w[max_vars];
          to_primitive(hp, f, a, b, c, w);
          return w[pres];
        };
        const double e = loehner_kind
                             ? kmath::max(loehner(density, i, j, k, dim, filter),
                                          loehner(pressure, i, j, k, dim, filter))
                             : kmath::max(relative_jump(density, i, j, k, dim),
                                          relative_jump(pressure, i, j, k, dim));
        bool unresolved = false;
        if (jeans) {
          const double r = f.v[rho](i, j, k);
          unresolved = jeans_coef * pressure(i, j, k) < jeans_len2 * r * r;
        }
        if (e > thr || unresolved) tags.of(p)(i, j, k) = 1;
      });
}

}  // namespace pw
