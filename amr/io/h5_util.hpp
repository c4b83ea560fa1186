// A thin layer over the HDF5 C API for the dump writers: owned ids, attributes
// (fixed-length strings, which yt needs), the Chombo box and IntVect compounds, and
// collective 1-D writes in which each rank supplies its own runs of elements.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "amr/box.hpp"

namespace pw::h5 {

/// An HDF5 id closed by the right H5?close when it goes out of scope.
class Id {
 public:
  using Closer = herr_t (*)(hid_t);
  Id() = default;
  Id(hid_t id, Closer close);
  ~Id() { reset(); }
  Id(Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Id& operator=(Id&& o) noexcept;
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  operator hid_t() const { return id_; }
  void reset();
  /// Close now and return H5?close's status (< 0: it failed, e.g. a file whose last
  /// writes did not reach the disk).
  herr_t close();
  /// Forget the id without closing it: for a parallel file whose close would deadlock
  /// (see UnclosableFile in amr/io/chombo_writer.hpp).
  void abandon() { id_ = -1; }

 private:
  hid_t id_ = -1;
  Closer close_ = nullptr;
};

/// HDF5's error stack printing off while in scope: a failure is reported once, as an
/// exception that names its cause, not as a page of HDF5 diagnostics per rank.
class Quiet {
 public:
  Quiet();
  ~Quiet();
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// The cause of the HDF5 call that just failed, from the error stack (the system's or
/// MPI-IO's message where HDF5 recorded one), as ": <cause>"; "" when none.
std::string error_cause();

/// File access properties for writing in HDF5's 1.8 format, whose metadata (superblock,
/// object headers, heaps, B-trees of groups and attributes) carries checksums: most
/// damage to it fails HDF5's own checks, where the earliest format's object headers are
/// parsed unchecked (HDF5 1.10 read out of bounds on a damaged one). Files stay
/// readable by HDF5 1.8 and later.
Id checked_format_access();
/// The superblock version of the HDF5 file `path` (found as HDF5 looks for it: at byte
/// 0, 512, 1024, ...), read without HDF5; -1 when no HDF5 signature can be read.
/// Version 2 and later carry metadata checksums.
int superblock_version(const std::string& path);

Id create_group(hid_t parent, const std::string& name);
/// Open `path` read-only for collective MPI-IO access by every rank of `comm`. Throws
/// std::runtime_error when it is not a readable HDF5 file.
Id open_parallel(const std::string& path, MPI_Comm comm);
/// Open the HDF5 file `path` for collective MPI-IO writes by every rank of `comm`; what
/// it creates is in the checked format. Throws std::runtime_error naming the cause when
/// it cannot be opened.
Id open_parallel_rw(const std::string& path, MPI_Comm comm);
Id open_group(hid_t parent, const std::string& name);
Id open_dataset(hid_t parent, const std::string& name);

void attr_int(hid_t obj, const std::string& name, int v);
void attr_double(hid_t obj, const std::string& name, double v);
void attr_doubles(hid_t obj, const std::string& name, const std::vector<double>& v);
/// A fixed-length, null-terminated ASCII string (a variable-length one breaks yt).
void attr_string(hid_t obj, const std::string& name, const std::string& v);
/// Chombo's box compound {lo_i, lo_j[, lo_k], hi_i, hi_j[, hi_k]} (int32).
void attr_box(hid_t obj, const std::string& name, const Box& b, int dim);
/// Chombo's IntVect compound {intvecti, intvectj[, intvectk]} (int32).
void attr_intvect(hid_t obj, const std::string& name, const IntVect& v, int dim);
void attr_ints(hid_t obj, const std::string& name, const std::vector<int>& v);
void attr_long(hid_t obj, const std::string& name, long v);
void attr_longs(hid_t obj, const std::string& name, const std::vector<long>& v);

/// Attribute readers (every rank reads the same); each throws std::runtime_error naming
/// the attribute when it is missing, of another shape or of a type that does not read
/// as the requested one. Numbers are converted to the requested type by HDF5.
int read_attr_int(hid_t obj, const std::string& name);
long read_attr_long(hid_t obj, const std::string& name);
double read_attr_double(hid_t obj, const std::string& name);
std::vector<int> read_attr_ints(hid_t obj, const std::string& name);
std::vector<long> read_attr_longs(hid_t obj, const std::string& name);
std::vector<double> read_attr_doubles(hid_t obj, const std::string& name);
std::string read_attr_string(hid_t obj, const std::string& name);
Box read_attr_box(hid_t obj, const std::string& name, int dim);

/// The box compound type for `dim` dimensions; memory and file layout are the same
/// (2*dim packed int32).
Id box_type(int dim);
/// `b` as the 2*dim int32 of box_type(dim), appended to `out`.
void append_box(std::vector<int>& out, const Box& b, int dim);

/// Create a 1-D dataset of `n` elements of `type` in `loc` (collective: every rank calls
/// it with the same arguments).
Id create_1d(hid_t loc, const std::string& name, hid_t type, hsize_t n);

/// A run of consecutive elements of a 1-D dataset.
struct Run {
  hsize_t first = 0, count = 0;
};

/// Collective write: this rank writes `buf` (the elements of its runs, in order; runs
/// ascending and disjoint) into `dset`. A rank with no runs takes part with an empty
/// selection.
void write_runs(hid_t dset, hid_t mem_type, const std::vector<Run>& runs,
                const void* buf);
/// Number of elements of a 1-D dataset.
hsize_t extent(hid_t dset);
/// Throws std::runtime_error naming `dset` when its stored type does not read as
/// `mem_type` (another class or member layout, a non-standard number: a corrupt file,
/// whose type description could crash HDF5's conversions). read_all and read_runs check.
void check_dataset_type(hid_t dset, hid_t mem_type);
/// Independent read of a whole 1-D dataset of `n` elements (every rank may call it).
void read_all(hid_t dset, hid_t mem_type, void* buf);
/// Collective read: this rank reads its runs (ascending, disjoint) of `dset` into `buf`,
/// in order. A rank with no runs takes part with an empty selection.
void read_runs(hid_t dset, hid_t mem_type, const std::vector<Run>& runs, void* buf);
/// Collective write of the whole dataset from `root` (others write nothing).
void write_all_from(hid_t dset, hid_t mem_type, hsize_t n, const void* buf, int rank,
                    int root = 0);

}  // namespace pw::h5
