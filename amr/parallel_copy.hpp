// CopyPlan: copies regions of source patches into destination patches, on-rank or across
// ranks with non-blocking MPI and Kokkos pack/unpack kernels. Built once per layout
// change and reused; ghost exchange, coarse-fine fills, average-down, refluxing, regrid
// fills and migration are all instances of it.
#pragma once

#include <vector>

#include "amr/box_set.hpp"
#include "amr/comm.hpp"
#include "amr/fab.hpp"
#include "amr/field3.hpp"
#include "amr/layout.hpp"
#include "amr/patch_teams.hpp"

namespace pw {

/// Copy cells `box` of destination patch `dst` from source patch `src` at box - shift,
/// times `scale`, plus scale2 times src at box - shift2 when scale2 is not 0 (a
/// multigrid correction's coarse-fine ghosts follow one or two cells inside: a copy
/// within the patch). A plan with a second term is never blended (CopyPlan::Blend; a
/// rank holding such a tag refuses: a mistake of the caller's, not of input).
struct CopyTag {
  int src = 0;
  int dst = 0;
  Box box;  // destination index space
  IntVect shift;
  double scale = 1.0;
  IntVect shift2;
  double scale2 = 0.0;
};

/// Tag c's cells i0, i0 + step, ... up to i1 of row (j, k) of `to`, from `from` (one
/// component each; the kernels that make a plan's on-rank copies themselves).
KOKKOS_FORCEINLINE_FUNCTION void copy_tag_cells(const CopyTag& c, const Field3& to,
                                                const Field3& from, int j, int k, int i0,
                                                int i1, int step) {
  const int j1 = j - c.shift[1], k1 = k - c.shift[2];
  if (c.scale2 == 0.0) {
    PW_INDEPENDENT_ITERATIONS
    for (int i = i0; i <= i1; i += step)
      to(i, j, k) = c.scale * from(i - c.shift[0], j1, k1);
    return;
  }
  const int j2 = j - c.shift2[1], k2 = k - c.shift2[2];
  PW_INDEPENDENT_ITERATIONS
  for (int i = i0; i <= i1; i += step)
    to(i, j, k) =
        c.scale * from(i - c.shift[0], j1, k1) + c.scale2 * from(i - c.shift2[0], j2, k2);
}

class CopyPlan {
 public:
  /// Which copies an exchange makes: all, or only its messages (packed, sent and
  /// received; a launch then makes the on-rank copies and unpacks what came:
  /// CopiesByPatch), or only sends and receives them (`packed`: the send buffer already
  /// holds this exchange's cells, packed by the caller's last launch from the cells as
  /// they are now, with this exchange's parity: CopiesByPatch's sent pieces), or sends
  /// and receives them and unpacks what came (`unpacks`: the caller's last launch packed
  /// the send buffer as for `packed` and made the on-rank copies beside).
  enum class Copies { all, messages, packed, unpacks };

  CopyPlan() = default;
  /// A plan from explicit tags. Every rank passes the same owners and the tags it takes
  /// part in (or all of them); each keeps the ones it sends, receives or copies locally,
  /// in the order given (that order fixes message layout, so the tags two ranks share
  /// must come in the same order on both).
  CopyPlan(const std::vector<CopyTag>& tags, const std::vector<int>& src_owner,
           const std::vector<int>& dst_owner, int my_rank);

  /// Fill `regions[i]` (destination index space) of each destination patch i from the
  /// source patches, also through the periodic images given by `shifts` (0 shift
  /// implied). Regions no source covers are left untouched. `extra`: copies this rank
  /// makes besides, after those (into cells no region holds).
  static CopyPlan intersecting(const LevelLayout& src,
                               const std::vector<BoxList>& regions,
                               const std::vector<int>& dst_owner,
                               const std::vector<IntVect>& shifts, int my_rank,
                               const std::vector<CopyTag>& extra = {});

  /// Execute in two phases so that the caller can work while messages fly: begin() posts
  /// the receives, packs and sends, and does the on-rank copies; finish() waits and
  /// unpacks in the plan's order (which = Copies::messages: neither, the caller's launch
  /// makes them; Copies::packed: nor the pack, the caller's last launch made it;
  /// Copies::unpacks: the caller's last launch packed and made the on-rank copies, and
  /// finish() unpacks; for either of the last two a logic_error where no launch was lent
  /// the send buffer). src[n] / dst[n] must be
  /// allocated on their owners
  /// (others may be empty), keep the same component count, and must not change between
  /// the two calls. One exchange of a plan at a time; plans in flight together must use
  /// distinct `tag`s. Message buffers are kept between exchanges (grown when needed, but
  /// not one lent to a launch: receive_buffer(), send_buffer());
  /// MPI gets the device buffers where comm.device_buffers(), else their host mirrors.
  /// parity 0 or 1: only the destination cells with (i + j + k) % 2 == parity (one colour
  /// of a red-black sweep); -1: all.
  void begin(const std::vector<Fab>& src, std::vector<Fab>& dst, const Comm& comm,
             int tag = 7, int parity = -1, Copies which = Copies::all);
  /// A copy's source blended in time: (1 - w) x + w y of the same cell of two states x
  /// and y of the source layout, formed where the values are read (by the sender as it
  /// packs, in the on-rank copy), so one message and one pass carry it.
  struct Blend {
    const std::vector<Fab>& x;
    const std::vector<Fab>& y;
    double w;
  };
  void begin(const Blend& src, std::vector<Fab>& dst, const Comm& comm, int tag = 7,
             Copies which = Copies::all);
  /// The messages only, of fields of `ncomp` components (a begin() of Copies::messages
  /// with no destination fabs): for a launch that reads the on-rank tags' sources and
  /// the receive buffer where they are, after finish() (of any dst).
  void begin_messages(const std::vector<Fab>& src, int ncomp, const Comm& comm,
                      int tag = 7);
  void finish(std::vector<Fab>& dst, const Comm& comm);
  /// begin() then finish().
  void copy(const std::vector<Fab>& src, std::vector<Fab>& dst, const Comm& comm,
            int tag = 7) {
    begin(src, dst, comm, tag);
    finish(dst, comm);
  }
  void copy(const Blend& src, std::vector<Fab>& dst, const Comm& comm, int tag = 7) {
    begin(src, dst, comm, tag);
    finish(dst, comm);
  }

  bool empty() const { return local_.empty() && sends_.empty() && recvs_.empty(); }
  /// Whether this rank sends or receives anything.
  bool messages() const { return !sends_.empty() || !recvs_.empty(); }
  /// The copies between patches of this rank, in the plan's order (a kernel that makes
  /// them itself applies their scale).
  const std::vector<CopyTag>& on_rank_tags() const { return local_; }
  long cells_received() const;
  /// The cells this rank receives, in the plan's order: each piece's destination patch
  /// and box, and where it starts in receive_buffer() (component 0; component c, c
  /// times its cells later), its cells in order, i fastest (the sender applied the
  /// tag's shift and scales).
  struct Received {
    int dst = 0;
    Box box;
    long at = 0;
  };
  std::vector<Received> received(int ncomp) const;
  /// The device buffer an exchange of `ncomp` components receives into, for a launch
  /// that unpacks it (Copies::messages): allocated now, and never reallocated after (an
  /// exchange of more components is refused).
  Kokkos::View<double*> receive_buffer(int ncomp);
  /// The device buffer an exchange of `ncomp` components sends from, for a launch that
  /// packs it (Copies::packed or unpacks): as receive_buffer().
  Kokkos::View<double*> send_buffer(int ncomp);
  /// The destination patches that receive cells from another rank (ascending).
  std::vector<int> receiving_patches() const;

  /// One piece of a batched copy: cells `box` (destination indices) from source fab
  /// `from` at box - shift, times scale, or from the message buffer at cell `buf_cell`
  /// (component-major, i fastest), into destination fab `to` or into the buffer. Fabs are
  /// slots of the plan's tables of the fabs it reads and writes (-1: the buffer is that
  /// side). Pieces depend on the tags only, so they are built and put on the device once
  /// per plan.
  struct Piece {
    int from = -1, to = -1;
    long buf_cell = -1;  // cells before the piece's in the buffer
    Box box;
    IntVect shift;
    double scale = 1.0;  // applied where a source fab is read (the sender's pack)
    IntVect shift2;      // the tag's second term (scale2 not 0)
    double scale2 = 0.0;
  };
  /// The pieces this rank sends, in the plan's order, `from` their source patch (not a
  /// slot), buf_cell their place in send_buffer().
  std::vector<Piece> sent() const;

 private:
  using Buffer = Kokkos::View<double*>;
  using Refs = StructArray<FabRef>;
  struct Peer {
    int rank;
    std::vector<CopyTag> tags;
    long first = 0;  // cells before the peer's in the send or receive buffer
    long cells = 0;
  };
  /// The pieces of one launch, on the device.
  struct Batch {
    StructArray<Piece> pieces;
    int size = 0;
  };
  /// Fabs by slot, the FabRefs of a fab set at each exchange (the fabs may change between
  /// exchanges): a few per patch, where the pieces are a few dozen per patch. The tables
  /// of the last two fab sets stay on the device (a level's old and new states take
  /// turns), so an exchange of either uploads nothing.
  struct FabTable {
    std::vector<int> fab;  // slot -> fab index
    struct Copy {
      Refs refs;
      Refs::View::HostMirror host;
      bool uploaded = false;  // refs holds what host does (false while rewritten)
      bool holds(const std::vector<int>& fab, const std::vector<Fab>& fabs) const;
    };
    Copy copies[2];
    int current = 0;
    const Refs& refs() const { return copies[current].refs; }
    /// The slot of fab n, added if new (`slot` maps fab indices to slots, -1: none yet).
    int slot_of(int n, std::vector<int>& slot);
    /// Make refs() the FabRefs of fabs[fab[s]]: one of the two copies if it holds them,
    /// else the older copy rewritten (allocated at its first use).
    void fill(const std::vector<Fab>& fabs);
  };
  /// A message buffer for all peers of one direction (device), and where MPI reads or
  /// writes unless it takes device memory, its host mirror (the same memory where the
  /// device is the host).
  struct MessageBuffer {
    Buffer buf;
    Buffer::HostMirror host;
    bool lent = false;  // to a launch that packs or unpacks it: buf stays
    /// Hold at least n doubles; the host mirror too when `mirrored`.
    void reserve(size_t n, bool mirrored);
  };
  /// The memory MPI sends from or receives into, for peer p.
  double* message(MessageBuffer& m, const Peer& p) const {
    return (device_mpi_ ? m.buf.data() : m.host.data()) + p.first * ncomp_;
  }
  /// The pieces of the four batches, the fab tables' slots, and whether a local copy
  /// writes cells a sent piece reads (by the constructor).
  void build_pieces();
  /// Whether one launch may pack and make the on-rank copies: no cell the pack reads is
  /// one an on-rank copy writes (teams run in any order). Either the copies write fabs
  /// apart in memory from those the pack reads, or the plan copies within one fab set
  /// and no on-rank tag writes where a sent piece reads (ghosts from interiors).
  bool packs_with_local(const std::vector<Fab>& src, const std::vector<Fab>* src_y,
                        const std::vector<Fab>& dst) const;
  void launch(const char* label, const Batch& batch, const Refs& from, const Refs& from_y,
              const Refs& to, double* buf, double w, int parity) const;
  /// begin() from src, or from the blend of src and src_y by weight w where src_y, into
  /// dst (none: Copies::messages only), fields of nc components.
  void begin(const std::vector<Fab>& src, const std::vector<Fab>* src_y, double w,
             const std::vector<Fab>* dst, int nc, const Comm& comm, int tag, int parity,
             Copies which);
  /// The component count of an exchange from src into dst (any fab's: a plan's fabs all
  /// have the same).
  int components(const std::vector<Fab>& src, const std::vector<Fab>& dst) const;

  std::vector<CopyTag> local_;
  std::vector<Peer> sends_;  // ascending rank
  std::vector<Peer> recvs_;
  Batch pack_, local_batch_, unpack_;
  Batch pack_and_local_;             // local_batch_'s pieces, then pack_'s
  std::vector<int> sent_fabs_;       // the source patches of the sent pieces
  std::vector<int> local_dst_fabs_;  // the destination patches of the on-rank tags
  bool local_meets_sent_ = false;    // an on-rank tag writes where a sent piece reads
  FabTable src_, src_y_, dst_;       // src_y_: the blend's second state, src_'s slots
  MessageBuffer send_buf_, recv_buf_;
  long send_cells_ = 0, recv_cells_ = 0;  // of all peers
  // The exchange in flight.
  std::vector<MPI_Request> requests_;
  int ncomp_ = 0;
  int parity_ = -1;
  Copies which_ = Copies::all;
  bool device_mpi_ = false;
  bool second_terms_ = false;  // a tag this rank reads for has scale2 (no blend then)
  double start_ = 0;
};

/// Within a team: piece pc's cells from fab `from` (blended with `from_y` by w where it
/// has data) or, where `from` has none, from `buf`, into fab `to` or, where it has none,
/// into `buf` (the piece's place in a message buffer: nc components one after another, i
/// fastest); its rows over the team's threads. With a parity (0 or 1) only the cells
/// with (i + j + k) % 2 == parity (destination indices): every other cell of a row. A
/// row runs along x, or along the piece's longest side where it is under 4 cells thick
/// in x: a ghost face normal to x (2 x 16 x 16 beside a 16^3 patch) would otherwise make
/// rows of 1 or 2 cells, each costing more to find than to copy. The piece's scale
/// multiplies what is read from a fab (not 1: a branch per row, so that plain copies
/// stay plain). No barrier.
KOKKOS_FORCEINLINE_FUNCTION void team_copy_piece(const TeamMember& m,
                                                 const CopyPlan::Piece& pc,
                                                 const FabRef& from, const FabRef& from_y,
                                                 const FabRef& to, double* buf, double w,
                                                 int nc, int parity) {
  const bool blend = from_y.c0.p != nullptr;
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
  const long to_stride[3] = {1, to.c0.sj, to.c0.sk};
  const long from_stride[3] = {1, from.c0.sj, from.c0.sk};
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
      double* const bc = buf ? buf + c * ncell + cell : nullptr;
      // The destination: the fab or the buffer.
      double* dst = to.c0.p ? &to(q[0], q[1], q[2], c) : bc;
      const long st = to.c0.p ? ts : bs;
      if (!from.c0.p) {
        for (int t = 0; t < len; ++t)
          dst[t * st] = bc[t * bs];
        continue;
      }
      const double* src = &from(f[0], f[1], f[2], c);
      if (pc.scale2 != 0.0) {  // a second cell of the same source (not blended)
        const double* src2 =
            &from(q[0] - pc.shift2[0], q[1] - pc.shift2[1], q[2] - pc.shift2[2], c);
        for (int t = 0; t < len; ++t)
          dst[t * st] = pc.scale * src[t * fs] + pc.scale2 * src2[t * fs];
        continue;
      }
      if (!blend && pc.scale == 1.0) {
        for (int t = 0; t < len; ++t)
          dst[t * st] = src[t * fs];
        continue;
      }
      if (!blend) {
        for (int t = 0; t < len; ++t)
          dst[t * st] = pc.scale * src[t * fs];
        continue;
      }
      // The same cell of the second state: its fab has the same shape.
      const double* y = &from_y(f[0], f[1], f[2], c);
      for (int t = 0; t < len; ++t)
        dst[t * st] = pc.scale * ((1.0 - w) * src[t * fs] + w * y[t * fs]);
    }
  });
}

/// Copies on the device grouped by destination patch, for a launch with a team per patch
/// that makes its own patch's copies before it reads them (patch p's:
/// amr/patch_teams.hpp's team_set_rows(member, boxes, of_patch(p), f), and the same over
/// received_boxes): a plan's on-rank copies and, after its exchange of Copies::messages,
/// the unpacking of what other ranks sent (received_cells); and the packing, by source
/// patch, of what this rank sends in its next exchange of Copies::packed
/// (team_copy_piece over sent_pieces).
struct CopiesByPatch {
  CopiesByPatch() = default;
  /// plan's into patches 0 .. patches - 1, for fields of ncomp components.
  CopiesByPatch(CopyPlan& plan, int ncomp, size_t patches);
  StructArray<CopyTag> tags;  // on-rank, by destination patch, each's in plan order
  BoxSet boxes;               // their boxes; items: their index in tags
  StructArray<BoxSet::Range> of_patch;  // by destination patch: its run of boxes
  // The cells received, by destination patch: where each piece starts in the plan's
  // receive buffer `received` (component 0), and its patch.
  BoxSet received_boxes;  // items: their index in received_at and received_dst
  Kokkos::View<long*> received_at;
  Kokkos::View<int*> received_dst;
  StructArray<BoxSet::Range> received_of_patch;
  Kokkos::View<double*> received;
  // The pieces sent (CopyPlan::sent()), by source patch: patch p's are sent_first(p) to
  // sent_first(p + 1) - 1; their cells go to the plan's send buffer `sent`.
  StructArray<CopyPlan::Piece> sent_pieces;
  Kokkos::View<int*> sent_first;
  Kokkos::View<double*> sent;
  int ncomp = 1;
};

/// Piece n of c's received cells i0, i0 + step, ... up to i1 of row (j, k), into u's
/// patch (component 0; as copy_tag_cells).
KOKKOS_FORCEINLINE_FUNCTION void received_cells(const CopiesByPatch& c, int n,
                                                const StructArray<FabRef>& u, int j,
                                                int k, int i0, int i1, int step) {
  const Field3 from =
      field_over(c.received.data() + c.received_at(n), c.received_boxes.box(n));
  const Field3 to = u(c.received_dst(n)).c0;
  PW_INDEPENDENT_ITERATIONS
  for (int i = i0; i <= i1; i += step)
    to(i, j, k) = from(i, j, k);
}

/// Within a team: patch p's copies of c (p < 0: every patch's), from patches of this
/// rank and from the messages received, their cells of parity `parity` (0 or 1; -1:
/// all). No barrier.
KOKKOS_FORCEINLINE_FUNCTION void team_copies(const TeamMember& m, const CopiesByPatch& c,
                                             int p, const StructArray<FabRef>& u,
                                             int parity) {
  const int step = parity < 0 ? 1 : 2;
  // Row (j, k)'s first cell of the parity from i0.
  const auto first = [&](int i0, int j, int k) {
    return parity < 0 ? i0 : i0 + ((parity - i0 - j - k) & 1);
  };
  team_set_rows(m, c.boxes, p < 0 ? c.boxes.all() : c.of_patch(p),
                [&](int t, int j, int k, int i0, int i1) {
                  const CopyTag tag = c.tags(t);
                  copy_tag_cells(tag, u(tag.dst).c0, u(tag.src).c0, j, k, first(i0, j, k),
                                 i1, step);
                });
  const BoxSet& in = c.received_boxes;
  team_set_rows(m, in, p < 0 ? in.all() : c.received_of_patch(p),
                [&](int n, int j, int k, int i0, int i1) {
                  received_cells(c, n, u, j, k, first(i0, j, k), i1, step);
                });
}

}  // namespace pw
