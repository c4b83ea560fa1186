#include "amr/parallel_copy.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "amr/box_index.hpp"
#include "amr/field3.hpp"
#include "amr/patch_teams.hpp"

namespace pw {

namespace {

/// Every piece in one launch (a team per piece, its rows over the team's threads), not a
/// launch per piece: an exchange has hundreds of thin pieces, of very different sizes
/// (faces, edges, corners), hence the teams' dynamic schedule (team_policy). A row runs
/// along x, or along the piece's longest side where it is under 4 cells thick in x: a
/// ghost face normal to x (2 x 16 x 16 beside a 16^3 patch) would otherwise make rows of
/// 1 or 2 cells, each costing more to find than to copy. With a parity (0 or 1) only the
/// cells with (i + j + k) % 2 == parity (destination indices) are copied: every other
/// cell of a row.
void copy_pieces(const char* label, const Kokkos::View<CopyPlan::Piece*>& pieces, int n,
                 int nc, int parity) {
  if (n == 0) return;
  Kokkos::parallel_for(
      label, team_policy(n, 0), KOKKOS_LAMBDA(const TeamMember& m) {
        const CopyPlan::Piece pc = pieces(m.league_rank());
        const IntVect sz = pc.box.size();
        int d = 0;  // along the row
        if (sz[0] < 4) {
          if (sz[1] > sz[d]) d = 1;
          if (sz[2] > sz[d]) d = 2;
        }
        const int a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;  // across rows
        const int step = parity < 0 ? 1 : 2;
        const long ncell = pc.box.num_cells();
        const long buf_stride[3] = {1, sz[0], long(sz[0]) * sz[1]};
        const long to_stride[3] = {1, pc.to.sj, pc.to.sk};
        const long from_stride[3] = {1, pc.from.sj, pc.from.sk};
        const long bs = buf_stride[d] * step, ts = to_stride[d] * step,
                   fs = from_stride[d] * step;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, sz[a] * sz[b]), [&](int row) {
          IntVect q = pc.box.lo;  // the row's first cell to copy
          q[a] += row % sz[a];
          q[b] += row / sz[a];
          if (parity >= 0 && ((q[0] + q[1] + q[2]) & 1) != parity) ++q[d];
          const int len = (pc.box.hi[d] - q[d] + step) / step;
          if (len <= 0) return;
          const long cell =
              (q[0] - pc.box.lo[0]) +
              sz[0] * ((q[1] - pc.box.lo[1]) + long(sz[1]) * (q[2] - pc.box.lo[2]));
          const IntVect f{q[0] - pc.shift[0], q[1] - pc.shift[1], q[2] - pc.shift[2]};
          for (int c = 0; c < nc; ++c) {
            double* buf = pc.buf ? pc.buf + c * ncell + cell : nullptr;
            // The destination: the fab or the buffer.
            double* to = pc.to.p ? &pc.to(q[0], q[1], q[2]) + c * pc.cs_to : buf;
            const long st = pc.to.p ? ts : bs;
            if (!pc.from.p) {
              for (int t = 0; t < len; ++t)
                to[t * st] = buf[t * bs];
              continue;
            }
            const double* from = &pc.from(f[0], f[1], f[2]) + c * pc.cs_from;
            if (!pc.from_y.p) {
              for (int t = 0; t < len; ++t)
                to[t * st] = from[t * fs];
              continue;
            }
            // The same cell of the second state: its fab has the same shape.
            const double* y = &pc.from_y(f[0], f[1], f[2]) + c * pc.cs_from;
            const double w = pc.w;
            for (int t = 0; t < len; ++t)
              to[t * st] = (1.0 - w) * from[t * fs] + w * y[t * fs];
          }
        });
      });
}

/// Whether fabs x and y have one shape: the blended copy steps through y with x's
/// strides.
bool same_shape(const Fab& x, const Fab& y) {
  const FabRef a = fab_ref(x), b = fab_ref(y);
  return x.box == y.box && a.c0.sj == b.c0.sj && a.c0.sk == b.c0.sk &&
         a.cstride == b.cstride && x.ncomp() == y.ncomp();
}

/// Makes pc read the blend of its source and the same patch of src_y by weight w, where
/// src_y is given.
void blend_into(CopyPlan::Piece& pc, const std::vector<Fab>* src_y, const CopyTag& t,
                double w) {
  if (!src_y) return;
  pc.from_y = fab_ref((*src_y)[size_t(t.src)]).c0;
  pc.w = w;
}

}  // namespace

CopyPlan::CopyPlan(const std::vector<CopyTag>& tags, const std::vector<int>& src_owner,
                   const std::vector<int>& dst_owner, int my_rank) {
  std::map<int, Peer> sends, recvs;
  for (const CopyTag& t : tags) {
    const int from = src_owner[t.src];
    const int to = dst_owner[t.dst];
    if (from == my_rank && to == my_rank) {
      local_.push_back(t);
    } else if (from == my_rank) {
      Peer& p = sends[to];
      p.rank = to;
      p.tags.push_back(t);
      p.cells += t.box.num_cells();
    } else if (to == my_rank) {
      Peer& p = recvs[from];
      p.rank = from;
      p.tags.push_back(t);
      p.cells += t.box.num_cells();
    }
  }
  for (auto& [r, p] : sends)
    sends_.push_back(std::move(p));
  for (auto& [r, p] : recvs)
    recvs_.push_back(std::move(p));
}

CopyPlan CopyPlan::intersecting(const LevelLayout& src,
                                const std::vector<BoxList>& regions,
                                const std::vector<int>& dst_owner,
                                const std::vector<IntVect>& shifts, int my_rank) {
  std::vector<IntVect> all_shifts{IntVect{0, 0, 0}};
  all_shifts.insert(all_shifts.end(), shifts.begin(), shifts.end());
  std::vector<int> hits;
  // Only the destinations this rank takes part in are searched: its own, and those whose
  // regions' bounding box meets one of its source patches (or an image). Searching beside
  // every destination made each rank's share of a plan grow with the whole level, not
  // with its own part.
  std::vector<char> involved;
  {
    BoxList hulls(regions.size()), mine;
    for (size_t d = 0; d < regions.size(); ++d)
      if (dst_owner[d] != my_rank) hulls[d] = bounding_box(regions[d]);
    for (size_t n = 0; n < src.boxes.size(); ++n)
      if (src.owner[n] == my_rank) mine.push_back(src.boxes[n]);
    involved = meeting(hulls, mine, shifts);
    for (size_t d = 0; d < regions.size(); ++d)
      involved[d] |= dst_owner[d] == my_rank;
  }
  const BoxIndex index(src.boxes);
  std::vector<CopyTag> tags;
  for (int d = 0; d < int(regions.size()); ++d) {
    if (!involved[size_t(d)]) continue;
    for (const Box& r : regions[d]) {
      for (const IntVect& s : all_shifts) {
        // Source cells x fill destination cells x + s.
        const Box rs = shift(r, IntVect{0, 0, 0} - s);
        index.query(rs, hits);
        for (int n : hits) {
          const Box piece = shift(rs & src.boxes[n], s);
          // Only tags this rank takes part in are kept, so skip the rest early.
          if (src.owner[n] != my_rank && dst_owner[d] != my_rank) continue;
          tags.push_back({n, d, piece, s});
        }
      }
    }
  }
  return CopyPlan(tags, src.owner, dst_owner, my_rank);
}

std::vector<int> CopyPlan::receiving_patches() const {
  std::vector<int> out;
  for (const Peer& p : recvs_)
    for (const CopyTag& t : p.tags)
      out.push_back(t.dst);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

long CopyPlan::cells_received() const {
  long n = 0;
  for (const Peer& p : recvs_)
    n += p.cells;
  return n;
}

void CopyPlan::reserve(Peer& p, size_t n, bool mirrored) {
  if (p.buf.extent(0) < n) {
    p.buf = Buffer();  // free before allocating the larger one
    p.host = Buffer::HostMirror();
    p.buf = Buffer(Kokkos::ViewAllocateWithoutInitializing("copy::buffer"), n);
  }
  if (mirrored && p.host.extent(0) != p.buf.extent(0))
    p.host = Kokkos::create_mirror_view(p.buf);
}

CopyPlan::Piece CopyPlan::piece(const CopyTag& t, const Fab* from, const Fab* to,
                                double* buf) {
  Piece pc;
  if (from) {
    const FabRef r = fab_ref(*from);
    pc.from = r.c0;
    pc.cs_from = r.cstride;
  }
  if (to) {
    const FabRef r = fab_ref(*to);
    pc.to = r.c0;
    pc.cs_to = r.cstride;
  }
  pc.buf = buf;
  pc.box = t.box;
  pc.shift = t.shift;
  return pc;
}

void CopyPlan::launch(const char* label, Batch& batch, int parity) {
  const int n = int(batch.host.size());
  if (n == 0) return;
  if (int(batch.device.extent(0)) < n) {
    batch.device = Kokkos::View<Piece*>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "copy::pieces"), size_t(n));
    batch.mirror = Kokkos::create_mirror_view(batch.device);
  }
  for (int i = 0; i < n; ++i)
    batch.mirror(i) = batch.host[size_t(i)];
  Kokkos::deep_copy(batch.device, batch.mirror);
  copy_pieces(label, batch.device, n, ncomp_, parity);
}

void CopyPlan::begin(const std::vector<Fab>& src, std::vector<Fab>& dst, const Comm& comm,
                     int tag, int parity) {
  begin(src, nullptr, 0.0, dst, comm, tag, parity);
}

void CopyPlan::begin(const Blend& src, std::vector<Fab>& dst, const Comm& comm, int tag) {
  begin(src.x, &src.y, src.w, dst, comm, tag, -1);
}

void CopyPlan::begin(const std::vector<Fab>& src, const std::vector<Fab>* src_y, double w,
                     std::vector<Fab>& dst, const Comm& comm, int tag, int parity) {
  // Checked before any message is posted, so that a refusal leaves nothing in flight.
  if (src_y) {
    const auto check = [&](const CopyTag& t) {
      if (!same_shape(src[size_t(t.src)], (*src_y)[size_t(t.src)]))
        throw std::logic_error("CopyPlan: a blend's two states differ in shape");
    };
    for (const CopyTag& t : local_)
      check(t);
    for (const Peer& p : sends_)
      for (const CopyTag& t : p.tags)
        check(t);
  }
  parity_ = parity;
  // Every fab of one plan carries the same component count; read it off any local one.
  int nc = 0;
  if (!local_.empty())
    nc = dst[local_[0].dst].ncomp();
  else if (!sends_.empty())
    nc = src[sends_[0].tags[0].src].ncomp();
  else if (!recvs_.empty())
    nc = dst[recvs_[0].tags[0].dst].ncomp();
  ncomp_ = nc;
  device_mpi_ = comm.device_buffers();
  // MPI will write the receive buffers, which the last finish()'s unpack may still read
  // on a device (the host mirrors' copy in finish() waits for it on the other path).
  if (device_mpi_ && !recvs_.empty()) Kokkos::fence();
  start_ = comm.emulation() ? MPI_Wtime() : 0.0;
  requests_.clear();
  // 1. Post receives.
  for (Peer& p : recvs_) {
    reserve(p, size_t(p.cells * nc), !device_mpi_);
    requests_.emplace_back();
    MPI_Irecv(message(p), int(p.cells * nc), MPI_DOUBLE, p.rank, tag, comm.raw(),
              &requests_.back());
  }
  // 2. Pack (one launch for every peer) and send.
  pack_.host.clear();
  for (Peer& p : sends_) {
    reserve(p, size_t(p.cells * nc), !device_mpi_);
    long offset = 0;
    for (const CopyTag& t : p.tags) {
      pack_.host.push_back(piece(t, &src[t.src], nullptr, p.buf.data() + offset));
      blend_into(pack_.host.back(), src_y, t, w);
      offset += t.box.num_cells() * nc;
    }
  }
  launch("copy::pack", pack_, parity);
  // MPI reads the packed buffers: on the device once the pack has run, else their host
  // copies (deep_copy fences, and only fences where host and device share memory).
  if (device_mpi_ && !sends_.empty()) Kokkos::fence();
  for (Peer& p : sends_) {
    if (!device_mpi_) Kokkos::deep_copy(p.host, p.buf);
    requests_.emplace_back();
    MPI_Isend(message(p), int(p.cells * nc), MPI_DOUBLE, p.rank, tag, comm.raw(),
              &requests_.back());
  }
  // 3. Local copies (one launch) overlap the messages.
  local_batch_.host.clear();
  for (const CopyTag& t : local_) {
    local_batch_.host.push_back(piece(t, &src[t.src], &dst[t.dst], nullptr));
    blend_into(local_batch_.host.back(), src_y, t, w);
  }
  launch("copy::local", local_batch_, parity);
}

void CopyPlan::finish(std::vector<Fab>& dst, const Comm& comm) {
  MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
  const Emulation* emulation = comm.emulation();
  if (emulation && emulation->latency > 0) {
    // A message between groups arrives `latency` after the exchange began.
    bool remote = false;
    for (const Peer& p : sends_)
      remote = remote || emulation->crosses(comm.rank(), p.rank);
    for (const Peer& p : recvs_)
      remote = remote || emulation->crosses(comm.rank(), p.rank);
    if (remote) spin_until(start_ + emulation->latency);
  }
  // 4. Unpack (one launch for every peer), in the plan's order.
  unpack_.host.clear();
  for (Peer& p : recvs_) {
    if (!device_mpi_) Kokkos::deep_copy(p.buf, p.host);
    long offset = 0;
    for (const CopyTag& t : p.tags) {
      // The sender applied the shift when it packed.
      Piece pc = piece(t, nullptr, &dst[t.dst], p.buf.data() + offset);
      pc.shift = IntVect{};
      unpack_.host.push_back(pc);
      offset += t.box.num_cells() * ncomp_;
    }
  }
  launch("copy::unpack", unpack_, parity_);
}

}  // namespace pw
