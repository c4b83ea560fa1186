#include "solver/team_cg.hpp"

#include <limits>
#include <stdexcept>
#include <vector>

#include "amr/patch_teams.hpp"
#include "solver/cg_rows.hpp"

namespace pw::mg {

// A named namespace, not an unnamed one: CUDA does not support extended lambdas in
// functions of internal linkage (the launch can fail at run time).
namespace team_cg_detail {

/// Within a team: the reduction with reducer R (value type T) of g(acc, item, j, k, i0,
/// i1) over the rows of s, as team_set_rows splits them; every thread gets the result.
template <class T, class R, class G>
KOKKOS_INLINE_FUNCTION T team_set_reduce(const TeamMember& m, const BoxSet& s,
                                         const G& g) {
  T out;
  if constexpr (detail::host_exec()) {
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(m, s.rows()),
        [&](long r, T& acc) {
          int it, j, k, i0, i1;
          detail::row_of(s, r, it, j, k, i0, i1);
          g(acc, it, j, k, i0, i1);
        },
        R(out));
  } else {
    const int nb = s.size();
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(m, s.cells()),
        [&](long x, T& acc) {
          const int n = find_slot(s.first_cell, nb, x);
          int i, j, k;
          detail::cell_of(s, n, x, i, j, k);
          g(acc, s.item(n), j, k, i, i);
        },
        R(out));
  }
  return out;
}

}  // namespace team_cg_detail

using namespace team_cg_detail;

TeamCg::TeamCg(LevelData& u, const PoissonStencil& s)
    : stencil_(s), interiors_(u.interiors()) {
  for (size_t p = 0; p < u.size(); ++p)
    if (!u.owns(p)) throw std::logic_error("TeamCg: a layout this rank holds whole");
  const CopiesByPatch& copies = u.copies_by_patch(/*cross=*/true);
  copies_ = copies.boxes;
  tags_ = copies.tags;
}

void TeamCg::solve(const LevelData& x, const LevelData& rhs, const LevelData& r,
                   const LevelData& p, const LevelData& q, double rtol, int max_iter,
                   const FeedStage& fed) const {
  const Refs xr = x.refs(), fr = rhs.refs(), rr = r.refs(), pr = p.refs(), qr = q.refs();
  const FeedOps first(x, rhs, fed);
  const PoissonStencil s = stencil_;
  const InteriorStencil in = interior(s);
  const BoxSet cells = interiors_, copies = copies_;
  const StructArray<CopyTag> tags = tags_;
  const double rtol2 = rtol * rtol;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Kokkos::parallel_for(
      "mg::team_cg", team_policy(1, 0), KOKKOS_LAMBDA(const TeamMember& m) PW_FLATTEN {
        // u's face ghosts: the copies from the patches beside and a refined level's
        // coarse-fine ghosts, scaled copies of the cell inside (a scale of 1 gives the
        // plain copy's bits). They read interiors only.
        const auto ghosts = [&](const Refs& u) {
          team_set_rows(m, copies, copies.all(),
                        [&](int t, int j, int k, int i0, int i1) {
                          const CopyTag c = tags(t);
                          copy_tag_cells(c, u(c.dst).c0, u(c.src).c0, j, k, i0, i1, 1);
                        });
          m.team_barrier();
        };
        const auto largest_product = [&](const Refs& a, const Refs& c) {
          return team_set_reduce<double, Kokkos::Max<double>>(
              m, cells, [&](double& acc, int n, int j, int k, int i0, int i1) {
                largest_product_row(acc, j, k, i0, i1, a(n).c0, c(n).c0);
              });
        };
        // The exact sum of a c on the scale of the largest |a c|.
        const auto dot = [&](const Refs& a, const Refs& c, double largest) {
          const double scale = power_of_two_above(largest), inv = 1.0 / scale;
          const ExactSum sum = team_set_reduce<ExactSum, Kokkos::Sum<ExactSum>>(
              m, cells, [&](ExactSum& acc, int n, int j, int k, int i0, int i1) {
                dot_row(acc, j, k, i0, i1, a(n).c0, c(n).c0, inv);
              });
          return sum.bad() ? nan : sum.good_value(scale);
        };

        if (first.on()) {
          team_feed(m, first);
          m.team_barrier();
        }
        // r = rhs - L x; p = r (as 0 + 1 r: the launches zero p, then add r to it).
        ghosts(xr);
        team_set_rows(m, cells, cells.all(), [&](int n, int j, int k, int i0, int i1) {
          const Field3 ra = rr(n).c0, pa = pr(n).c0;
          residual_row(j, k, i0, i1, ra, xr(n).c0, fr(n).c0, s, in);
          PW_INDEPENDENT_ITERATIONS
          for (int i = i0; i <= i1; ++i)
            pa(i, j, k) = 0.0 + 1.0 * ra(i, j, k);
        });
        m.team_barrier();
        double rho = dot(rr, rr, largest_product(rr, rr));
        const double target = rtol2 * dot(fr, fr, largest_product(fr, fr));
        for (int it = 0; it < max_iter && rho > target; ++it) {
          ghosts(pr);
          const double largest_pq = team_set_reduce<double, Kokkos::Max<double>>(
              m, cells, [&](double& acc, int n, int j, int k, int i0, int i1) {
                laplacian_row(acc, j, k, i0, i1, qr(n).c0, pr(n).c0, s, in);
              });
          m.team_barrier();
          const double pq = dot(pr, qr, largest_pq);
          if (pq == 0.0) break;
          const double alpha = rho / pq, minus_alpha = -alpha;
          const double largest_rr = team_set_reduce<double, Kokkos::Max<double>>(
              m, cells, [&](double& acc, int n, int j, int k, int i0, int i1) {
                cg_step_row(acc, j, k, i0, i1, xr(n).c0, rr(n).c0, pr(n).c0, qr(n).c0,
                            alpha, minus_alpha);
              });
          m.team_barrier();
          const double rho_new = dot(rr, rr, largest_rr);
          const double beta = rho_new / rho;
          team_set_rows(m, cells, cells.all(), [&](int n, int j, int k, int i0, int i1) {
            xpby_row(j, k, i0, i1, pr(n).c0, rr(n).c0, beta);
          });
          m.team_barrier();
          rho = rho_new;
        }
      });
}

}  // namespace pw::mg
