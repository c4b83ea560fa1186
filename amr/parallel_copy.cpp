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

void CopyPlan::copy(const std::vector<Fab>& src, std::vector<Fab>& dst,
                    const Comm& comm) const {
  // Every fab of one plan carries the same component count; read it off any local one.
  int nc = 0;
  if (!local_.empty())
    nc = dst[local_[0].dst].ncomp();
  else if (!sends_.empty())
    nc = src[sends_[0].tags[0].src].ncomp();
  else if (!recvs_.empty())
    nc = dst[recvs_[0].tags[0].dst].ncomp();

  const Emulation* emulation = comm.emulation();
  const double start = emulation ? MPI_Wtime() : 0.0;
  // 1. Post receives.
  std::vector<Buffer> rbuf(recvs_.size());
  std::vector<Buffer::HostMirror> rhost(recvs_.size());
  std::vector<MPI_Request> requests;
  for (size_t p = 0; p < recvs_.size(); ++p) {
    rbuf[p] = Buffer(Kokkos::ViewAllocateWithoutInitializing("copy::recv"),
                     size_t(recvs_[p].cells * nc));
    rhost[p] = Kokkos::create_mirror_view(rbuf[p]);
    requests.emplace_back();
    MPI_Irecv(rhost[p].data(), int(rhost[p].size()), MPI_DOUBLE, recvs_[p].rank, 7,
              comm.raw(), &requests.back());
  }
  // 2. Pack and send.
  std::vector<Buffer> sbuf(sends_.size());
  std::vector<Buffer::HostMirror> shost(sends_.size());
  for (size_t p = 0; p < sends_.size(); ++p) {
    sbuf[p] = Buffer(Kokkos::ViewAllocateWithoutInitializing("copy::send"),
                     size_t(sends_[p].cells * nc));
    long offset = 0;
    for (const CopyTag& t : sends_[p].tags) {
      pack(src[t.src], t, sbuf[p], offset);
      offset += t.box.num_cells() * nc;
    }
    shost[p] = Kokkos::create_mirror_view(sbuf[p]);
    Kokkos::deep_copy(shost[p], sbuf[p]);
    requests.emplace_back();
    MPI_Isend(shost[p].data(), int(shost[p].size()), MPI_DOUBLE, sends_[p].rank, 7,
              comm.raw(), &requests.back());
  }
  // 3. Local copies overlap the messages.
  for (const CopyTag& t : local_)
    copy_local(src[t.src], t, dst[t.dst]);
  // 4. Finish and unpack, in the plan's order.
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (emulation && emulation->latency > 0) {
    // A message between groups arrives `latency` after the exchange began.
    bool remote = false;
    for (const Peer& p : sends_)
      remote = remote || emulation->crosses(comm.rank(), p.rank);
    for (const Peer& p : recvs_)
      remote = remote || emulation->crosses(comm.rank(), p.rank);
    if (remote) spin_until(start + emulation->latency);
  }
  for (size_t p = 0; p < recvs_.size(); ++p) {
    Kokkos::deep_copy(rbuf[p], rhost[p]);
    long offset = 0;
    for (const CopyTag& t : recvs_[p].tags) {
      unpack(rbuf[p], offset, t, dst[t.dst]);
      offset += t.box.num_cells() * nc;
    }
  }
}

}  // namespace pw
