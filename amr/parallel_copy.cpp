#include "amr/parallel_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <utility>

#include "amr/box_index.hpp"
#include "amr/device_array.hpp"
#include "amr/field3.hpp"
#include "amr/patch_teams.hpp"

namespace pw {

// A named namespace, not an unnamed one: CUDA does not support extended lambdas in
// functions of internal linkage (the launch can fail at run time).
namespace copy_detail {

/// Every piece in one launch (a team per piece, team_copy_piece), not a launch per
/// piece: an exchange has hundreds of thin pieces, of very different sizes (faces,
/// edges, corners), hence the teams' dynamic schedule (team_policy).
void copy_pieces(const char* label, const StructArray<CopyPlan::Piece>& pieces, int n,
                 const StructArray<FabRef>& from_refs,
                 const StructArray<FabRef>& from_y_refs,
                 const StructArray<FabRef>& to_refs, double* buffer, double w, int nc,
                 int parity) {
  if (n == 0) return;
  const bool blend = from_y_refs.extent(0) > 0;
  Kokkos::parallel_for(
      label, team_policy(n, 0), KOKKOS_LAMBDA(const TeamMember& m) {
        const CopyPlan::Piece pc = pieces(m.league_rank());
        const FabRef from = pc.from >= 0 ? from_refs(pc.from) : FabRef{};
        const FabRef from_y = blend && pc.from >= 0 ? from_y_refs(pc.from) : FabRef{};
        const FabRef to = pc.to >= 0 ? to_refs(pc.to) : FabRef{};
        double* const buf = pc.buf_cell >= 0 ? buffer + pc.buf_cell * nc : nullptr;
        team_copy_piece(m, pc, from, from_y, to, buf, w, nc, parity);
      });
}

/// Whether fabs x and y have one shape: the blended copy steps through y with x's
/// strides.
bool same_shape(const Fab& x, const Fab& y) {
  const FabRef a = fab_ref(x), b = fab_ref(y);
  return x.box == y.box && a.c0.sj == b.c0.sj && a.c0.sk == b.c0.sk &&
         a.cstride == b.cstride && x.ncomp() == y.ncomp();
}

}  // namespace copy_detail

using namespace copy_detail;

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
  build_pieces();
}

int CopyPlan::FabTable::slot_of(int n, std::vector<int>& slot) {
  if (slot.size() <= size_t(n)) slot.resize(size_t(n) + 1, -1);
  if (slot[size_t(n)] < 0) {
    slot[size_t(n)] = int(fab.size());
    fab.push_back(n);
  }
  return slot[size_t(n)];
}

namespace {
bool same_ref(const FabRef& a, const FabRef& b) {
  return a.c0.p == b.c0.p && a.c0.sj == b.c0.sj && a.c0.sk == b.c0.sk &&
         a.c0.off == b.c0.off && a.cstride == b.cstride;
}
}  // namespace

bool CopyPlan::FabTable::Copy::holds(const std::vector<int>& fab,
                                     const std::vector<Fab>& fabs) const {
  if (!uploaded || refs.extent(0) != fab.size()) return false;
  for (size_t s = 0; s < fab.size(); ++s)
    if (!same_ref(host(s), fab_ref(fabs[size_t(fab[s])]))) return false;
  return true;
}

void CopyPlan::FabTable::fill(const std::vector<Fab>& fabs) {
  if (fab.empty()) return;
  if (copies[current].holds(fab, fabs)) return;
  current = 1 - current;
  Copy& c = copies[current];
  if (c.holds(fab, fabs)) return;
  if (c.refs.extent(0) != fab.size()) {
    c.refs = Refs("copy::refs", fab.size());
    c.host = Kokkos::create_mirror_view(c.refs.view());
  }
  // Where the device reads host memory (host backends, unified memory) the table is
  // written in place: the kernels of the exchange before last must be done with it.
  if (c.host.data() == c.refs.data()) Kokkos::fence();
  c.uploaded = false;  // until the copy below is done (it may throw)
  for (size_t s = 0; s < fab.size(); ++s)
    c.host(s) = fab_ref(fabs[size_t(fab[s])]);
  Kokkos::deep_copy(c.refs.view(), c.host);
  c.uploaded = true;
}

namespace copy_detail {

/// The indices of the non-empty boxes, ordered by patch (the given order within a
/// patch); std::logic_error for a patch beyond [0, patches).
std::vector<size_t> by_patch(const std::vector<int>& patch, const std::vector<Box>& box,
                             size_t patches) {
  std::vector<size_t> order;
  for (size_t n = 0; n < patch.size(); ++n)
    if (!box[n].empty()) order.push_back(n);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return patch[a] < patch[b]; });
  if (!order.empty() && (patch[order.front()] < 0 || patch[order.back()] >= int(patches)))
    throw std::logic_error("CopiesByPatch: a copy with a patch beyond the layout");
  return order;
}

}  // namespace copy_detail

CopiesByPatch::CopiesByPatch(CopyPlan& plan, int ncomp, size_t patches) {
  const std::vector<CopyTag>& local = plan.on_rank_tags();
  std::vector<int> dst;
  std::vector<Box> box;
  for (const CopyTag& t : local) {
    dst.push_back(t.dst);
    box.push_back(t.box);
  }
  std::vector<CopyTag> sorted;
  std::vector<Box> boxes;  // box n is entry n's (BoxSet's default items)
  std::vector<int> sorted_dst;
  for (size_t n : by_patch(dst, box, patches)) {
    sorted.push_back(local[n]);
    boxes.push_back(box[n]);
    sorted_dst.push_back(dst[n]);
  }
  tags = device_copy("copy::by_patch::tags", sorted);
  this->boxes = BoxSet(boxes);
  of_patch = device_copy("copy::by_patch::runs", item_runs(boxes, sorted_dst, patches));

  const std::vector<CopyPlan::Received> in = plan.received(ncomp);
  dst.clear();
  box.clear();
  for (const CopyPlan::Received& r : in) {
    dst.push_back(r.dst);
    box.push_back(r.box);
  }
  std::vector<long> at;
  boxes.clear();
  sorted_dst.clear();
  for (size_t n : by_patch(dst, box, patches)) {
    at.push_back(in[n].at);
    boxes.push_back(box[n]);
    sorted_dst.push_back(dst[n]);
  }
  received_boxes = BoxSet(boxes);
  received_at = device_copy("copy::by_patch::received_at", at);
  received_dst = device_copy("copy::by_patch::received_dst", sorted_dst);
  received_of_patch =
      device_copy("copy::by_patch::received_runs", item_runs(boxes, sorted_dst, patches));
  if (plan.messages()) received = plan.receive_buffer(ncomp);

  const std::vector<CopyPlan::Piece> out = plan.sent();
  std::vector<int> src;
  box.clear();
  for (const CopyPlan::Piece& pc : out) {
    src.push_back(pc.from);
    box.push_back(pc.box);
  }
  std::vector<CopyPlan::Piece> pieces;
  std::vector<int> first(patches + 1, 0);
  for (size_t n : by_patch(src, box, patches)) {
    pieces.push_back(out[n]);
    ++first[size_t(src[n]) + 1];
  }
  for (size_t p = 0; p < patches; ++p)
    first[p + 1] += first[p];
  sent_pieces = device_copy("copy::by_patch::sent_pieces", pieces);
  sent_first = device_copy("copy::by_patch::sent_first", first);
  this->ncomp = ncomp;
  if (plan.messages()) sent = plan.send_buffer(ncomp);
}

void CopyPlan::build_pieces() {
  std::vector<int> src_slot, dst_slot;
  const auto upload = [](Batch& b, const std::vector<Piece>& host, const char* label) {
    b.size = int(host.size());
    b.pieces = device_copy(label, host);
  };
  std::vector<Piece> host;
  const auto second = [](const CopyTag& t) { return t.scale2 != 0.0; };
  second_terms_ = std::any_of(local_.begin(), local_.end(), second);
  for (const Peer& p : sends_)
    second_terms_ |= std::any_of(p.tags.begin(), p.tags.end(), second);
  long first = 0;
  for (Peer& p : sends_) {
    p.first = first;
    first += p.cells;
  }
  send_cells_ = first;
  std::vector<Piece> packed = sent();
  for (Piece& piece : packed)
    piece.from = src_.slot_of(piece.from, src_slot);
  upload(pack_, packed, "copy::pack_pieces");
  for (const CopyTag& t : local_)
    host.push_back({src_.slot_of(t.src, src_slot), dst_.slot_of(t.dst, dst_slot), -1,
                    t.box, t.shift, t.scale, t.shift2, t.scale2});
  upload(local_batch_, host, "copy::local_pieces");
  if (!packed.empty() && !host.empty()) {
    host.insert(host.end(), packed.begin(), packed.end());
    upload(pack_and_local_, host, "copy::pack_and_local_pieces");
  }
  host.clear();
  // The cells the sent pieces read, by source patch, against those the on-rank tags
  // write (for packs_with_local within one fab set).
  std::map<int, std::vector<Box>> reads;
  for (const Peer& p : sends_)
    for (const CopyTag& t : p.tags) {
      std::vector<Box>& r = reads[t.src];
      r.push_back(shift(t.box, IntVect{0, 0, 0} - t.shift));
      if (t.scale2 != 0.0) r.push_back(shift(t.box, IntVect{0, 0, 0} - t.shift2));
    }
  for (const auto& [patch, boxes] : reads)
    sent_fabs_.push_back(patch);
  for (const CopyTag& t : local_) {
    local_dst_fabs_.push_back(t.dst);
    const auto r = reads.find(t.dst);
    if (r == reads.end()) continue;
    for (const Box& b : r->second)
      local_meets_sent_ = local_meets_sent_ || intersects(t.box, b);
  }
  std::sort(local_dst_fabs_.begin(), local_dst_fabs_.end());
  local_dst_fabs_.erase(std::unique(local_dst_fabs_.begin(), local_dst_fabs_.end()),
                        local_dst_fabs_.end());
  first = 0;
  for (Peer& p : recvs_) {
    p.first = first;
    // The sender applied the shift when it packed.
    for (const CopyTag& t : p.tags) {
      host.push_back({-1, dst_.slot_of(t.dst, dst_slot), first, t.box, IntVect{}});
      first += t.box.num_cells();
    }
  }
  recv_cells_ = first;
  upload(unpack_, host, "copy::unpack_pieces");
  src_y_.fab = src_.fab;
}

CopyPlan CopyPlan::intersecting(const LevelLayout& src,
                                const std::vector<BoxList>& regions,
                                const std::vector<int>& dst_owner,
                                const std::vector<IntVect>& shifts, int my_rank,
                                const std::vector<CopyTag>& extra) {
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
  std::vector<IntVect> near;
  for (int d = 0; d < int(regions.size()); ++d) {
    if (!involved[size_t(d)]) continue;
    // The images through which this destination's regions can reach a source patch:
    // only the identity for a patch away from the periodic boundaries. The others would
    // find nothing, at a query per region and image (in 2D with 16^2 patches, those
    // queries were 4% of a run).
    near.clear();
    const Box hull = bounding_box(regions[size_t(d)]);
    for (const IntVect& s : all_shifts)
      if (intersects(shift(hull, IntVect{0, 0, 0} - s), index.extent()))
        near.push_back(s);
    for (const Box& r : regions[d]) {
      for (const IntVect& s : near) {
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
  tags.insert(tags.end(), extra.begin(), extra.end());
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

std::vector<CopyPlan::Received> CopyPlan::received(int ncomp) const {
  std::vector<Received> out;
  long first = 0;
  for (const Peer& p : recvs_)
    for (const CopyTag& t : p.tags) {
      if (!t.box.empty()) out.push_back({t.dst, t.box, first * ncomp});
      first += t.box.num_cells();
    }
  return out;
}

std::vector<CopyPlan::Piece> CopyPlan::sent() const {
  std::vector<Piece> out;
  long first = 0;
  for (const Peer& p : sends_)
    for (const CopyTag& t : p.tags) {
      out.push_back({t.src, -1, first, t.box, t.shift, t.scale, t.shift2, t.scale2});
      first += t.box.num_cells();
    }
  return out;
}

Kokkos::View<double*> CopyPlan::send_buffer(int ncomp) {
  send_buf_.reserve(size_t(send_cells_ * ncomp), false);
  send_buf_.lent = true;
  return send_buf_.buf;
}

Kokkos::View<double*> CopyPlan::receive_buffer(int ncomp) {
  recv_buf_.reserve(size_t(recv_cells_ * ncomp), false);
  recv_buf_.lent = true;
  return recv_buf_.buf;
}

long CopyPlan::cells_received() const {
  long n = 0;
  for (const Peer& p : recvs_)
    n += p.cells;
  return n;
}

void CopyPlan::MessageBuffer::reserve(size_t n, bool mirrored) {
  if (buf.extent(0) < n) {
    if (lent)
      throw std::logic_error("CopyPlan: a message buffer lent to a launch cannot grow");
    buf = Buffer();  // free before allocating the larger one
    host = Buffer::HostMirror();
    buf = Buffer(Kokkos::ViewAllocateWithoutInitializing("copy::buffer"), n);
  }
  if (mirrored && host.extent(0) != buf.extent(0)) host = Kokkos::create_mirror_view(buf);
}

namespace {

/// The bytes [first, last) the given fabs of `fabs` span (an empty range for none).
std::pair<uintptr_t, uintptr_t> memory_hull(const std::vector<Fab>& fabs,
                                            const std::vector<int>& which) {
  std::pair<uintptr_t, uintptr_t> h(UINTPTR_MAX, 0);
  for (int n : which) {
    const View4& v = fabs[size_t(n)].data;
    const auto p = reinterpret_cast<uintptr_t>(v.data());
    h.first = std::min(h.first, p);
    h.second = std::max(h.second, p + v.span() * sizeof(double));
  }
  return h;
}

bool apart(std::pair<uintptr_t, uintptr_t> a, std::pair<uintptr_t, uintptr_t> b) {
  return a.second <= b.first || b.second <= a.first || a.first >= a.second ||
         b.first >= b.second;
}

}  // namespace

bool CopyPlan::packs_with_local(const std::vector<Fab>& src,
                                const std::vector<Fab>* src_y,
                                const std::vector<Fab>& dst) const {
  if (&src == &dst && !src_y) return !local_meets_sent_;
  const auto written = memory_hull(dst, local_dst_fabs_);
  return apart(memory_hull(src, sent_fabs_), written) &&
         (!src_y || apart(memory_hull(*src_y, sent_fabs_), written));
}

void CopyPlan::launch(const char* label, const Batch& batch, const Refs& from,
                      const Refs& from_y, const Refs& to, double* buf, double w,
                      int parity) const {
  copy_pieces(label, batch.pieces, batch.size, from, from_y, to, buf, w, ncomp_, parity);
}

int CopyPlan::components(const std::vector<Fab>& src, const std::vector<Fab>& dst) const {
  if (!local_.empty()) return dst[size_t(local_[0].dst)].ncomp();
  if (!sends_.empty()) return src[size_t(sends_[0].tags[0].src)].ncomp();
  if (!recvs_.empty()) return dst[size_t(recvs_[0].tags[0].dst)].ncomp();
  return 0;
}

void CopyPlan::begin(const std::vector<Fab>& src, std::vector<Fab>& dst, const Comm& comm,
                     int tag, int parity, Copies which) {
  begin(src, nullptr, 0.0, &dst, components(src, dst), comm, tag, parity, which);
}

void CopyPlan::begin(const Blend& src, std::vector<Fab>& dst, const Comm& comm, int tag,
                     Copies which) {
  begin(src.x, &src.y, src.w, &dst, components(src.x, dst), comm, tag, -1, which);
}

void CopyPlan::begin_messages(const std::vector<Fab>& src, int ncomp, const Comm& comm,
                              int tag) {
  begin(src, nullptr, 0.0, nullptr, ncomp, comm, tag, -1, Copies::messages);
}

void CopyPlan::begin(const std::vector<Fab>& src, const std::vector<Fab>* src_y, double w,
                     const std::vector<Fab>* dst, int nc, const Comm& comm, int tag,
                     int parity, Copies which) {
  // Checked before any message is posted, so that a refusal leaves nothing in flight.
  const bool caller_packs = which == Copies::packed || which == Copies::unpacks;
  if (caller_packs && !sends_.empty() && !send_buf_.lent)
    throw std::logic_error(
        "CopyPlan: Copies::packed or unpacks, but no launch packs the messages");
  if (src_y) {
    for (int n : src_.fab)
      if (!same_shape(src[size_t(n)], (*src_y)[size_t(n)]))
        throw std::logic_error("CopyPlan: a blend's two states differ in shape");
    if (second_terms_)
      throw std::logic_error("CopyPlan: a blend of tags with a second term");
  }
  parity_ = parity;
  which_ = which;
  ncomp_ = nc;
  device_mpi_ = comm.device_buffers();
  // MPI will write the receive buffer, which the last exchange's unpacking (finish()'s,
  // or a launch's) may still read on a device: where MPI writes the device buffer, or a
  // host mirror that is the same memory (unified memory; free on host backends).
  if (!recvs_.empty() && (device_mpi_ || recv_buf_.host.data() == recv_buf_.buf.data()))
    Kokkos::fence();
  start_ = comm.emulation() ? MPI_Wtime() : 0.0;
  requests_.clear();
  // What may allocate comes before any message is posted, as the checks above: a
  // failure then leaves nothing in flight. The destination tables serve finish() too.
  src_.fill(src);
  if (src_y) src_y_.fill(*src_y);
  if (dst) dst_.fill(*dst);
  const Refs y = src_y ? src_y_.refs() : Refs();
  if (!recvs_.empty()) recv_buf_.reserve(size_t(recv_cells_ * nc), !device_mpi_);
  if (!sends_.empty()) send_buf_.reserve(size_t(send_cells_ * nc), !device_mpi_);
  // 1. Post receives.
  for (Peer& p : recvs_) {
    requests_.emplace_back();
    MPI_Irecv(message(recv_buf_, p), int(p.cells * nc), MPI_DOUBLE, p.rank, tag,
              comm.raw(), &requests_.back());
  }
  // 2. Pack (one launch for every peer, unless the caller's last launch did; with the
  // on-rank copies where they write no cell it reads) and send.
  const bool with_local = which == Copies::all && pack_and_local_.size > 0 &&
                          packs_with_local(src, src_y, *dst);
  if (!sends_.empty()) {
    if (with_local)
      launch("copy::pack_and_local", pack_and_local_, src_.refs(), y, dst_.refs(),
             send_buf_.buf.data(), w, parity);
    else if (!caller_packs)
      launch("copy::pack", pack_, src_.refs(), y, Refs(), send_buf_.buf.data(), w,
             parity);
    // MPI reads the packed buffer: on the device once the pack has run, else its host
    // copy (deep_copy fences, and only fences where host and device share memory).
    const std::pair<long, long> range(0, send_cells_ * nc);
    if (device_mpi_)
      Kokkos::fence();
    else
      Kokkos::deep_copy(Kokkos::subview(send_buf_.host, range),
                        Kokkos::subview(send_buf_.buf, range));
  }
  for (Peer& p : sends_) {
    requests_.emplace_back();
    MPI_Isend(message(send_buf_, p), int(p.cells * nc), MPI_DOUBLE, p.rank, tag,
              comm.raw(), &requests_.back());
  }
  // 3. Local copies (one launch) overlap the messages.
  if (local_batch_.size > 0 && which == Copies::all && !with_local)
    launch("copy::local", local_batch_, src_.refs(), y, dst_.refs(), nullptr, w, parity);
}

void CopyPlan::finish(std::vector<Fab>& /*dst: begin() took its table*/,
                      const Comm& comm) {
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
  // 4. Unpack (one launch for every peer), in the plan's order, unless the caller's
  // launch does.
  if (recvs_.empty()) return;
  if (!device_mpi_) {
    const std::pair<long, long> range(0, recv_cells_ * ncomp_);
    Kokkos::deep_copy(Kokkos::subview(recv_buf_.buf, range),
                      Kokkos::subview(recv_buf_.host, range));
  }
  if (which_ != Copies::all && which_ != Copies::unpacks) return;
  launch("copy::unpack", unpack_, Refs(), Refs(), dst_.refs(), recv_buf_.buf.data(), 0.0,
         parity_);
}

}  // namespace pw
