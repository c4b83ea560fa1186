// CopyPlan: copies regions of source patches into destination patches, on-rank or across
// ranks with non-blocking MPI and Kokkos pack/unpack kernels. Built once per layout
// change and reused; ghost exchange, coarse-fine fills, average-down, refluxing, regrid
// fills and migration are all instances of it.
#pragma once

#include <vector>

#include "amr/comm.hpp"
#include "amr/fab.hpp"
#include "amr/field3.hpp"
#include "amr/layout.hpp"

namespace pw {

/// Copy cells `box` of destination patch `dst` from source patch `src` at box - shift.
struct CopyTag {
  int src = 0;
  int dst = 0;
  Box box;  // destination index space
  IntVect shift;
};

class CopyPlan {
 public:
  CopyPlan() = default;
  /// A plan from explicit tags. Every rank passes the same tags and owners; each keeps
  /// the ones it sends, receives or copies locally, in the order given (that order fixes
  /// message layout, so it must be the same on every rank).
  CopyPlan(const std::vector<CopyTag>& tags, const std::vector<int>& src_owner,
           const std::vector<int>& dst_owner, int my_rank);

  /// Fill `regions[i]` (destination index space) of each destination patch i from the
  /// source patches, also through the periodic images given by `shifts` (0 shift
  /// implied). Regions no source covers are left untouched.
  static CopyPlan intersecting(const LevelLayout& src,
                               const std::vector<BoxList>& regions,
                               const std::vector<int>& dst_owner,
                               const std::vector<IntVect>& shifts, int my_rank);

  /// Execute in two phases so that the caller can work while messages fly: begin() posts
  /// the receives, packs and sends, and does the on-rank copies; finish() waits and
  /// unpacks in the plan's order. src[n] / dst[n] must be allocated on their owners
  /// (others may be empty), keep the same component count, and must not change between
  /// the two calls. One exchange of a plan at a time; plans in flight together must use
  /// distinct `tag`s. Message buffers are kept between exchanges (grown when needed);
  /// MPI gets the device buffers where comm.device_buffers(), else their host mirrors.
  /// parity 0 or 1: only the destination cells with (i + j + k) % 2 == parity (one colour
  /// of a red-black sweep); -1: all.
  void begin(const std::vector<Fab>& src, std::vector<Fab>& dst, const Comm& comm,
             int tag = 7, int parity = -1);
  /// A copy's source blended in time: (1 - w) x + w y of the same cell of two states x
  /// and y of the source layout, formed where the values are read (by the sender as it
  /// packs, in the on-rank copy), so one message and one pass carry it.
  struct Blend {
    const std::vector<Fab>& x;
    const std::vector<Fab>& y;
    double w;
  };
  void begin(const Blend& src, std::vector<Fab>& dst, const Comm& comm, int tag = 7);
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
  long cells_received() const;
  /// The destination patches that receive cells from another rank (ascending).
  std::vector<int> receiving_patches() const;

  /// One piece of a batched copy: cells `box` (destination indices) from `from` at
  /// box - shift (blended with `from_y` by weight w where that is given), or from `buf`
  /// (component-major, i fastest), into `to` or into `buf`.
  struct Piece {
    Field3 from, to;  // component 0; empty when the buffer is that side
    Field3 from_y;    // the blend's second state (the same layout as from), or empty
    double w = 0.0;
    long cs_from = 0, cs_to = 0;
    double* buf = nullptr;
    Box box;
    IntVect shift;
  };

 private:
  using Buffer = Kokkos::View<double*>;
  struct Peer {
    int rank;
    std::vector<CopyTag> tags;
    long cells = 0;
    Buffer buf;  // device buffer, cells * ncomp
    // What MPI reads or writes unless it takes device memory (then empty); the same
    // memory as buf where the device is the host.
    Buffer::HostMirror host;
  };
  /// Make p's device buffer hold at least `n` doubles, and its host mirror too when
  /// `mirrored`.
  static void reserve(Peer& p, size_t n, bool mirrored);
  /// The memory MPI sends from or receives into.
  double* message(Peer& p) const { return device_mpi_ ? p.buf.data() : p.host.data(); }
  /// The pieces of one launch: built on the host each exchange (the fabs may change
  /// between exchanges), copied to the device, run as one kernel.
  struct Batch {
    std::vector<Piece> host;
    Kokkos::View<Piece*> device;
    typename Kokkos::View<Piece*>::HostMirror mirror;
  };
  void launch(const char* label, Batch& batch, int parity);
  /// Tag t as a piece from fab `from` (or buf) into fab `to` (or buf).
  static Piece piece(const CopyTag& t, const Fab* from, const Fab* to, double* buf);
  /// begin() from src, or from the blend of src and src_y by weight w where src_y.
  void begin(const std::vector<Fab>& src, const std::vector<Fab>* src_y, double w,
             std::vector<Fab>& dst, const Comm& comm, int tag, int parity);

  std::vector<CopyTag> local_;
  std::vector<Peer> sends_;  // ascending rank
  std::vector<Peer> recvs_;
  // The exchange in flight.
  std::vector<MPI_Request> requests_;
  Batch pack_, local_batch_, unpack_;
  int ncomp_ = 0;
  int parity_ = -1;
  bool device_mpi_ = false;
  double start_ = 0;
};

}  // namespace pw
