#include "amr/parallel_copy.hpp"

#include <map>

#include "amr/box_index.hpp"

namespace pw {

namespace {

using Buffer = Kokkos::View<double*>;

void pack(const Fab& src, const CopyTag& t, const Buffer& buf, long offset) {
  const Array4 a = src.array();
  const Box b = t.box;
  const IntVect s = t.shift;
  const IntVect n = b.size();
  const int nc = src.ncomp();
  const long ncell = b.num_cells();
  for_each_cell(
      "copy::pack", b, KOKKOS_LAMBDA(int i, int j, int k) {
        const long cell =
            (long(k - b.lo[2]) * n[1] + (j - b.lo[1])) * n[0] + (i - b.lo[0]);
        for (int c = 0; c < nc; ++c)
          buf(offset + c * ncell + cell) = a(i - s[0], j - s[1], k - s[2], c);
      });
}

void unpack(const Buffer& buf, long offset, const CopyTag& t, const Fab& dst) {
  const Array4 a = dst.array();
  const Box b = t.box;
  const IntVect n = b.size();
  const int nc = dst.ncomp();
  const long ncell = b.num_cells();
  for_each_cell(
      "copy::unpack", b, KOKKOS_LAMBDA(int i, int j, int k) {
        const long cell =
            (long(k - b.lo[2]) * n[1] + (j - b.lo[1])) * n[0] + (i - b.lo[0]);
        for (int c = 0; c < nc; ++c)
          a(i, j, k, c) = buf(offset + c * ncell + cell);
      });
}

void copy_local(const Fab& src, const CopyTag& t, const Fab& dst) {
  const Array4 from = src.array();
  const Array4 to = dst.array();
  const IntVect s = t.shift;
  const int nc = dst.ncomp();
  for_each_cell(
      "copy::local", t.box, KOKKOS_LAMBDA(int i, int j, int k) {
        for (int c = 0; c < nc; ++c)
          to(i, j, k, c) = from(i - s[0], j - s[1], k - s[2], c);
      });
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
  const BoxIndex index(src.boxes);
  std::vector<CopyTag> tags;
  for (int d = 0; d < int(regions.size()); ++d) {
    for (const Box& r : regions[d]) {
      for (const IntVect& s : all_shifts) {
        // Source cells x fill destination cells x + s.
        const Box rs = shift(r, IntVect{0, 0, 0} - s);
        for (int n : index.query(rs)) {
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

long CopyPlan::cells_received() const {
  long n = 0;
  for (const Peer& p : recvs_)
    n += p.cells;
  return n;
}

void CopyPlan::reserve(Peer& p, size_t n) {
  if (p.buf.extent(0) >= n) return;
  p.buf = Buffer();  // free before allocating the larger one
  p.buf = Buffer(Kokkos::ViewAllocateWithoutInitializing("copy::buffer"), n);
  p.host = Kokkos::create_mirror_view(p.buf);
}

void CopyPlan::begin(const std::vector<Fab>& src, std::vector<Fab>& dst, const Comm& comm,
                     int tag) {
  // Every fab of one plan carries the same component count; read it off any local one.
  int nc = 0;
  if (!local_.empty())
    nc = dst[local_[0].dst].ncomp();
  else if (!sends_.empty())
    nc = src[sends_[0].tags[0].src].ncomp();
  else if (!recvs_.empty())
    nc = dst[recvs_[0].tags[0].dst].ncomp();
  ncomp_ = nc;
  start_ = comm.emulation() ? MPI_Wtime() : 0.0;
  requests_.clear();
  // 1. Post receives.
  for (Peer& p : recvs_) {
    reserve(p, size_t(p.cells * nc));
    requests_.emplace_back();
    MPI_Irecv(p.host.data(), int(p.cells * nc), MPI_DOUBLE, p.rank, tag, comm.raw(),
              &requests_.back());
  }
  // 2. Pack and send.
  for (Peer& p : sends_) {
    reserve(p, size_t(p.cells * nc));
    long offset = 0;
    for (const CopyTag& t : p.tags) {
      pack(src[t.src], t, p.buf, offset);
      offset += t.box.num_cells() * nc;
    }
    Kokkos::deep_copy(p.host, p.buf);  // a fence where host and device share memory
    requests_.emplace_back();
    MPI_Isend(p.host.data(), int(p.cells * nc), MPI_DOUBLE, p.rank, tag, comm.raw(),
              &requests_.back());
  }
  // 3. Local copies overlap the messages.
  for (const CopyTag& t : local_)
    copy_local(src[t.src], t, dst[t.dst]);
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
  // 4. Unpack, in the plan's order.
  for (Peer& p : recvs_) {
    Kokkos::deep_copy(p.buf, p.host);
    long offset = 0;
    for (const CopyTag& t : p.tags) {
      unpack(p.buf, offset, t, dst[t.dst]);
      offset += t.box.num_cells() * ncomp_;
    }
  }
}

}  // namespace pw
