// One launch over many patches with a team of threads per patch: the team runs the stages
// of a patch's update one after the other over its cells, each stage split among the
// team's threads, with the patch's intermediate arrays in the team's scratch. A level of
// a hundred patches costs one launch, and each patch's arrays stay in cache between its
// stages (a launch per stage over the whole level would stream them through memory).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>

#include "amr/box.hpp"
#include "amr/box_set.hpp"
#include "amr/field3.hpp"

namespace pw {

// Dynamic: patches differ in size, and a static split of them among threads leaves some
// idle.
using TeamPolicy =
    Kokkos::TeamPolicy<Kokkos::DefaultExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
using TeamMember = TeamPolicy::member_type;

/// The launch's policy: `teams` teams with `doubles` doubles of scratch each. Host
/// backends give a team one thread while there are at least as many teams as threads,
/// and share the threads among the teams otherwise (one patch still uses every thread,
/// up to the backend's largest team: 64 on OpenMP and Threads, which abort above it);
/// devices choose the team size.
inline TeamPolicy team_policy(int teams, long doubles) {
  TeamPolicy policy = [&] {
    if constexpr (detail::host_exec()) {
      const int threads = Kokkos::DefaultExecutionSpace().concurrency();
      // Found once, not at every launch (the ghost fill's copies launch here too).
      static const int largest = TeamPolicy(1, 1).team_size_max([](const TeamMember&) {},
                                                                Kokkos::ParallelForTag());
      return TeamPolicy(teams,
                        std::max(1, std::min(largest, threads / std::max(teams, 1))));
    } else {
      return TeamPolicy(teams, Kokkos::AUTO);
    }
  }();
  return policy.set_scratch_size(1, Kokkos::PerTeam(size_t(doubles) * sizeof(double)));
}

/// Run f(member, n, scratch) for n in [0, teams), one team each; scratch: the team's
/// `doubles` doubles (its contents are undefined at the start).
template <class F>
void for_each_team(const std::string& label, int teams, long doubles, const F& f) {
  if (teams == 0) return;
  const size_t bytes = size_t(doubles) * sizeof(double);
  Kokkos::parallel_for(
      label, team_policy(teams, doubles), KOKKOS_LAMBDA(const TeamMember& m) PW_FLATTEN {
        double* mem = static_cast<double*>(m.team_scratch(1).get_shmem(bytes));
        f(m, m.league_rank(), mem);
      });
}

/// Within a team: f(j, k, i0, i1) for cells i0..i1 of row (j, k), over the rows of b
/// split among the team's threads: whole rows on host backends (f's loop over i
/// vectorizes), one cell per call on devices. No barrier.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void team_rows(const TeamMember& m, const Box& b,
                                           const F& f) {
  if (b.empty()) return;
  const int lo0 = b.lo[0], lo1 = b.lo[1], lo2 = b.lo[2];
  const int n1 = b.size()[1];
  if constexpr (detail::host_exec()) {
    // A contiguous run of rows per thread, walked in (j, k) without a division per row:
    // on small patches the divisions cost a measurable share of the cheap stages.
    const int rows = n1 * b.size()[2], threads = m.team_size();
    const int chunk = (rows + threads - 1) / threads;
    const int r0 = m.team_rank() * chunk, r1 = r0 + chunk < rows ? r0 + chunk : rows;
    if (r0 >= r1) return;
    const int hi0 = b.hi[0], hi1 = b.hi[1];
    int j = lo1 + r0 % n1, k = lo2 + r0 / n1;
    for (int row = r0; row < r1; ++row) {
      f(j, k, lo0, hi0);
      if (++j > hi1) {
        j = lo1;
        ++k;
      }
    }
  } else {
    const int n0 = b.size()[0];
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, n0 * n1 * b.size()[2]), [&](int x) {
      const int i = lo0 + x % n0;
      f(lo1 + (x / n0) % n1, lo2 + x / (n0 * n1), i, i);
    });
  }
}

/// Within one team over many patches: patch(n, over_rows) for n in [0, count), where
/// over_rows(box, f) calls f(j, k, i0, i1) over rows of box: on host backends with at
/// least a patch per thread, each thread takes whole patches (a plain loop over their
/// rows; splitting each small patch's rows among the threads costs more than it
/// shares); else every patch's rows are shared among the threads (team_rows). What a
/// patch's rows share is loaded once, in patch. No barrier.
template <class P>
KOKKOS_INLINE_FUNCTION void team_each_patch(const TeamMember& m, int count,
                                            const P& patch) {
  if (detail::host_exec() && count >= m.team_size()) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, count), [&](int n) {
      patch(n, [](const Box& h, const auto& f) {
        for (int k = h.lo[2]; k <= h.hi[2]; ++k)
          for (int j = h.lo[1]; j <= h.hi[1]; ++j)
            f(j, k, h.lo[0], h.hi[0]);
      });
    });
  } else {
    for (int n = 0; n < count; ++n)
      patch(n, [&](const Box& h, const auto& f) { team_rows(m, h, f); });
  }
}

/// Within a team: f(item, j, k, i0, i1) over the rows of boxes `r` of s (whole boxes,
/// s.all() for every one) split among the team's threads: whole rows on host backends,
/// one cell per call on devices (as for_each_box_row). No barrier.
template <class F>
KOKKOS_INLINE_FUNCTION void team_set_rows(const TeamMember& m, const BoxSet& s,
                                          const BoxSet::Range& r, const F& f) {
  if constexpr (detail::host_exec()) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, r.row0, r.row1), [&](long x) {
      int it, j, k, i0, i1;
      detail::row_of(s, x, it, j, k, i0, i1);
      f(it, j, k, i0, i1);
    });
  } else {
    const int nb = s.size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, r.cell0, r.cell1), [&](long x) {
      const int n = find_slot(s.first_cell, nb, x);
      int i, j, k;
      detail::cell_of(s, n, x, i, j, k);
      f(s.item(n), j, k, i, i);
    });
  }
}

/// Within a team: component 0 of every cell of boxes s (s.all(); items: patches, as a
/// LevelData's fab_boxes()) of the fabs u(item) = 0. No barrier.
template <class Refs>
KOKKOS_INLINE_FUNCTION void team_zero(const TeamMember& m, const Refs& u,
                                      const BoxSet& s) {
  team_set_rows(m, s, s.all(), [&](int p, int j, int k, int i0, int i1) {
    const Field3 a = u(p).c0;
    PW_INDEPENDENT_ITERATIONS
    for (int i = i0; i <= i1; ++i)
      a(i, j, k) = 0.0;
  });
}

/// Within a team: f(i, j, k) over the cells of b (team_rows), then a barrier, so that
/// the next stage may read what this one wrote. f must not write what another cell of b
/// reads.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void team_cells(const TeamMember& m, const Box& b,
                                            const F& f) {
  team_rows(m, b, [&](int j, int k, int i0, int i1) {
    PW_INDEPENDENT_ITERATIONS
    for (int i = i0; i <= i1; ++i)
      f(i, j, k);
  });
  m.team_barrier();
}

/// team_cells for a body f whose arrays all have rows of `row` elements (the same j
/// stride) and hold b's rows: on host backends each z plane of b runs as one loop, from
/// b's first cell to its last with j fixed at b.lo[1] and i running on past the end of
/// a row into the next (same address), so f also runs on the cells between b's rows
/// (the arrays' other columns). A loop per row costs about as much as 20 cells of a
/// stage of the advection update (tools/bench_kernel_sizes), so on small patches the
/// extra cells cost less than the rows. f's results there must be ones nobody reads;
/// its reads there stay inside the arrays (between those of b's first and last cells),
/// but may find values nobody wrote, which can only cost time. Devices run b's cells
/// only. Ends with a barrier.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void team_plane_cells(const TeamMember& m, const Box& b,
                                                  long row, const F& f) {
  if constexpr (detail::host_exec()) {
    if (b.empty()) {
      m.team_barrier();
      return;
    }
    const long span = (b.hi[0] - b.lo[0]) + row * (b.hi[1] - b.lo[1]) + 1;
    const long total = span * b.size()[2];  // the flat index: plane, then cell
    const int threads = m.team_size();
    const long chunk = (total + threads - 1) / threads;
    const long c0 = m.team_rank() * chunk, c1 = c0 + chunk < total ? c0 + chunk : total;
    const int j = b.lo[1];
    for (long c = c0; c < c1;) {
      const long plane = c / span, first = c - plane * span;
      const long last = first + (c1 - c) < span ? first + (c1 - c) : span;  // one past
      const int k = b.lo[2] + int(plane), i0 = b.lo[0] + int(first);
      const int i1 = b.lo[0] + int(last);
      PW_INDEPENDENT_ITERATIONS
      for (int i = i0; i < i1; ++i)
        f(i, j, k);
      c += last - first;
    }
    m.team_barrier();
  } else {
    team_cells(m, b, f);
  }
}

/// team_cells for a body f(i, j, k, Tally<N>&) that counts events: a row's counts are
/// summed in registers and added to counters(first .. first + N - 1) once per row (so
/// counting keeps the loop vectorizable and costs no reduction); dropped when counters
/// has fewer slots.
template <int N, class F>
KOKKOS_FORCEINLINE_FUNCTION void team_cells_tally(const TeamMember& m, const Box& b,
                                                  const Kokkos::View<long*>& counters,
                                                  int first, const F& f) {
  const bool counting = counters.extent(0) >= size_t(first + N);
  team_rows(m, b, [&](int j, int k, int i0, int i1) {
    Tally<N> sum = {};
    PW_INDEPENDENT_ITERATIONS
    for (int i = i0; i <= i1; ++i) {
      Tally<N> t = {};
      f(i, j, k, t);
      for (int c = 0; c < N; ++c)
        sum.n[c] += t.n[c];
    }
    for (int c = 0; c < N; ++c)
      if (counting && sum.n[c] != 0) Kokkos::atomic_add(&counters(first + c), sum.n[c]);
  });
  m.team_barrier();
}

/// Within a team: the reduction with reducer R (of doubles) of f(acc, j, k, i0, i1),
/// which takes into acc something of cells i0..i1 of row (j, k), over the rows of b
/// split as team_rows splits them (whole rows on host backends, one cell per call on
/// devices); `empty` for an empty box. The same value on every thread of the team.
template <class R, class F>
KOKKOS_FORCEINLINE_FUNCTION double team_reduce_rows(const TeamMember& m, const Box& b,
                                                    double empty, const F& f) {
  double out = empty;
  if (b.empty()) return out;
  const int lo0 = b.lo[0], lo1 = b.lo[1], lo2 = b.lo[2];
  const int n0 = b.size()[0], n1 = b.size()[1];
  const int per = detail::host_exec() ? n0 : 1;  // cells per work item
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(m, int(b.num_cells() / per)),
      [&](int x, double& acc) {
        const long c0 = long(x) * per;
        const int j = lo1 + int((c0 / n0) % n1), k = lo2 + int(c0 / (long(n0) * n1));
        const int i0 = lo0 + int(c0 % n0);
        f(acc, j, k, i0, i0 + per - 1);
      },
      R(out));
  return out;
}

/// Within a team: the minimum of f(i, j, k) over the cells of b (+inf for an empty box),
/// the same value on every thread of the team.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION double team_min_cells(const TeamMember& m, const Box& b,
                                                  const F& f) {
  return team_reduce_rows<Kokkos::Min<double>>(
      m, b, Kokkos::reduction_identity<double>::min(),
      [&](double& acc, int j, int k, int i0, int i1) {
        for (int i = i0; i <= i1; ++i) {
          const double v = f(i, j, k);
          acc = v < acc ? v : acc;
        }
      });
}

}  // namespace pw
