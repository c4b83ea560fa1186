#include "amr/io/h5_util.hpp"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace pw::h5 {

namespace {

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) throw std::runtime_error("HDF5: " + what + " failed" + error_cause());
  return id;
}

void check_status(herr_t s, const std::string& what) {
  if (s < 0) throw std::runtime_error("HDF5: " + what + " failed" + error_cause());
}

herr_t collect_cause(unsigned, const H5E_error2_t* e, void* out) {
  auto& causes = *static_cast<std::vector<std::string>*>(out);
  if (e->desc != nullptr) causes.emplace_back(e->desc);
  return 0;
}

/// One of the integer or IEEE float types a file may hold, in either byte order.
bool standard_number(hid_t t) {
  const hid_t known[] = {H5T_STD_I8LE,   H5T_STD_I8BE,   H5T_STD_U8LE,   H5T_STD_U8BE,
                         H5T_STD_I16LE,  H5T_STD_I16BE,  H5T_STD_U16LE,  H5T_STD_U16BE,
                         H5T_STD_I32LE,  H5T_STD_I32BE,  H5T_STD_U32LE,  H5T_STD_U32BE,
                         H5T_STD_I64LE,  H5T_STD_I64BE,  H5T_STD_U64LE,  H5T_STD_U64BE,
                         H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE};
  for (hid_t k : known)
    if (H5Tequal(t, k) > 0) return true;
  return false;
}

bool same_member_name(hid_t a, hid_t b, unsigned i) {
  char* x = H5Tget_member_name(a, i);
  char* y = H5Tget_member_name(b, i);
  const bool same = x != nullptr && y != nullptr && std::strcmp(x, y) == 0;
  H5free_memory(x);
  H5free_memory(y);
  return same;
}

/// Whether values stored as `file` convert to `mem` as this code writes them: the same
/// class, standard numbers, a compound with the same members (names, order, numbers
/// inside its size), a fixed-length string of a sane size.
bool readable_as(hid_t file, hid_t mem) {
  const H5T_class_t c = H5Tget_class(file);
  if (c == H5T_NO_CLASS || c != H5Tget_class(mem)) return false;
  switch (c) {
    case H5T_INTEGER:
    case H5T_FLOAT:
      return standard_number(file);
    case H5T_STRING:
      return H5Tis_variable_str(file) == 0 && H5Tget_size(file) <= (size_t(1) << 28);
    case H5T_COMPOUND: {
      const int n = H5Tget_nmembers(file);
      if (n < 0 || n != H5Tget_nmembers(mem)) return false;
      for (unsigned i = 0; i < unsigned(n); ++i) {
        const Id ft(H5Tget_member_type(file, i), H5Tclose);
        const Id mt(H5Tget_member_type(mem, i), H5Tclose);
        if (ft < 0 || mt < 0 || H5Tget_class(ft) == H5T_COMPOUND ||
            !same_member_name(file, mem, i) || !readable_as(ft, mt) ||
            H5Tget_member_offset(file, i) + H5Tget_size(ft) > H5Tget_size(file))
          return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/// The object's path in its file, for messages.
std::string path_of(hid_t obj) {
  char buf[256] = {0};
  return H5Iget_name(obj, buf, sizeof(buf)) > 0 ? std::string(buf) : "an object";
}

void write_attr(hid_t obj, const std::string& name, hid_t type, hid_t space,
                const void* v) {
  Id a(check(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
             "attribute " + name),
       H5Aclose);
  check_status(H5Awrite(a, type, v), "writing attribute " + name);
}

void scalar_attr(hid_t obj, const std::string& name, hid_t type, const void* v) {
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  write_attr(obj, name, type, space, v);
}

Id int_compound(const std::vector<std::string>& names) {
  Id t(H5Tcreate(H5T_COMPOUND, names.size() * sizeof(int)), H5Tclose);
  for (size_t i = 0; i < names.size(); ++i)
    H5Tinsert(t, names[i].c_str(), i * sizeof(int), H5T_NATIVE_INT32);
  return t;
}

}  // namespace

Quiet::Quiet() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Quiet::~Quiet() {
  H5Eset_auto2(H5E_DEFAULT, func_, data_);
}

std::string error_cause() {
  std::vector<std::string> causes;  // innermost (where the error arose) first
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_cause, &causes);
  // The system's or MPI's own words where HDF5 kept them, else the innermost message.
  for (const std::string& c : causes)
    if (c.find("errno") != std::string::npos ||
        c.find("MPI Error String") != std::string::npos)
      return ": " + c;
  return causes.empty() ? "" : ": " + causes.front();
}

Id::Id(hid_t id, Closer close) : id_(id), close_(close) {}

Id& Id::operator=(Id&& o) noexcept {
  if (this != &o) {
    reset();
    id_ = o.id_;
    close_ = o.close_;
    o.id_ = -1;
  }
  return *this;
}

herr_t Id::close() {
  const herr_t s = id_ >= 0 && close_ ? close_(id_) : 0;
  id_ = -1;
  return s;
}

void Id::reset() {
  if (id_ >= 0 && close_) close_(id_);
  id_ = -1;
}

Id checked_format_access() {
  Id fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
  check_status(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18),
               "H5Pset_libver_bounds");
  return fapl;
}

int superblock_version(const std::string& path) {
  static const char signature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  std::ifstream in(path, std::ios::binary);
  char head[9];
  for (std::streamoff at = 0; in.seekg(at) && in.read(head, sizeof head);
       at = at == 0 ? 512 : 2 * at)
    if (std::memcmp(head, signature, sizeof signature) == 0)
      return (unsigned char)head[8];
  return -1;
}

Id open_parallel(const std::string& path, MPI_Comm comm) {
  Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  check_status(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
  return Id(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl), "opening " + path),
            H5Fclose);
}

Id open_parallel_rw(const std::string& path, MPI_Comm comm) {
  Id fapl = checked_format_access();
  check_status(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
  return Id(check(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl), "opening " + path),
            H5Fclose);
}

Id open_group(hid_t parent, const std::string& name) {
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0)
    throw std::runtime_error("missing group " + name);
  return Id(check(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), "group " + name),
            H5Gclose);
}

Id open_dataset(hid_t parent, const std::string& name) {
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0)
    throw std::runtime_error("missing dataset " + name);
  return Id(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "dataset " + name),
            H5Dclose);
}

Id create_group(hid_t parent, const std::string& name) {
  return Id(check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  "group " + name),
            H5Gclose);
}

void attr_int(hid_t obj, const std::string& name, int v) {
  scalar_attr(obj, name, H5T_NATIVE_INT, &v);
}

void attr_double(hid_t obj, const std::string& name, double v) {
  scalar_attr(obj, name, H5T_NATIVE_DOUBLE, &v);
}

void attr_doubles(hid_t obj, const std::string& name, const std::vector<double>& v) {
  const hsize_t n = v.size();
  Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  write_attr(obj, name, H5T_NATIVE_DOUBLE, space, v.data());
}

void attr_string(hid_t obj, const std::string& name, const std::string& v) {
  Id t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, v.size() + 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  scalar_attr(obj, name, t, v.c_str());
}

void attr_ints(hid_t obj, const std::string& name, const std::vector<int>& v) {
  const hsize_t n = v.size();
  Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  write_attr(obj, name, H5T_NATIVE_INT, space, v.data());
}

void attr_long(hid_t obj, const std::string& name, long v) {
  scalar_attr(obj, name, H5T_NATIVE_LONG, &v);
}

void attr_longs(hid_t obj, const std::string& name, const std::vector<long>& v) {
  const hsize_t n = v.size();
  Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  write_attr(obj, name, H5T_NATIVE_LONG, space, v.data());
}

namespace {

/// Open attribute `name` of `obj` and check that it holds `n` elements (any number when
/// n < 0) of a type that reads as `mem_type` (a corrupt type description can crash
/// HDF5's conversions).
Id open_attr(hid_t obj, const std::string& name, hssize_t n, hid_t mem_type) {
  if (H5Aexists(obj, name.c_str()) <= 0)
    throw std::runtime_error("missing attribute " + name);
  Id a(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "attribute " + name), H5Aclose);
  const Id type(H5Aget_type(a), H5Tclose);
  if (type < 0 || !readable_as(type, mem_type))
    throw std::runtime_error("attribute " + name + " has an unexpected type");
  Id space(H5Aget_space(a), H5Sclose);
  if (n >= 0 && H5Sget_simple_extent_npoints(space) != n)
    throw std::runtime_error("attribute " + name + " has an unexpected size");
  return a;
}

hssize_t attr_size(hid_t a) {
  Id space(H5Aget_space(a), H5Sclose);
  return H5Sget_simple_extent_npoints(space);
}

template <class T>
T read_scalar(hid_t obj, const std::string& name, hid_t type) {
  T v{};
  Id a = open_attr(obj, name, 1, type);
  check_status(H5Aread(a, type, &v), "reading attribute " + name);
  return v;
}

template <class T>
std::vector<T> read_vector(hid_t obj, const std::string& name, hid_t type) {
  Id a = open_attr(obj, name, -1, type);
  std::vector<T> v(size_t(attr_size(a)));
  if (!v.empty()) check_status(H5Aread(a, type, v.data()), "reading attribute " + name);
  return v;
}

}  // namespace

int read_attr_int(hid_t obj, const std::string& name) {
  return read_scalar<int>(obj, name, H5T_NATIVE_INT);
}

long read_attr_long(hid_t obj, const std::string& name) {
  return read_scalar<long>(obj, name, H5T_NATIVE_LONG);
}

double read_attr_double(hid_t obj, const std::string& name) {
  return read_scalar<double>(obj, name, H5T_NATIVE_DOUBLE);
}

std::vector<int> read_attr_ints(hid_t obj, const std::string& name) {
  return read_vector<int>(obj, name, H5T_NATIVE_INT);
}

std::vector<long> read_attr_longs(hid_t obj, const std::string& name) {
  return read_vector<long>(obj, name, H5T_NATIVE_LONG);
}

std::vector<double> read_attr_doubles(hid_t obj, const std::string& name) {
  return read_vector<double>(obj, name, H5T_NATIVE_DOUBLE);
}

std::string read_attr_string(hid_t obj, const std::string& name) {
  Id a = open_attr(obj, name, 1, H5T_C_S1);
  Id ftype(H5Aget_type(a), H5Tclose);
  const size_t n = H5Tget_size(ftype);
  Id t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, n + 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  std::vector<char> buf(n + 1, '\0');
  check_status(H5Aread(a, t, buf.data()), "reading attribute " + name);
  return std::string(buf.data());
}

Box read_attr_box(hid_t obj, const std::string& name, int dim) {
  const Id type = box_type(dim);
  Id a = open_attr(obj, name, 1, type);
  std::vector<int> v(size_t(2 * dim));
  check_status(H5Aread(a, type, v.data()), "reading attribute " + name);
  Box b(IntVect{0, 0, 0}, IntVect{0, 0, 0});  // unused directions: one cell
  for (int d = 0; d < dim; ++d) {
    b.lo[d] = v[size_t(d)];
    b.hi[d] = v[size_t(dim + d)];
  }
  return b;
}

Id box_type(int dim) {
  std::vector<std::string> names;
  for (const char* side : {"lo_", "hi_"})
    for (int d = 0; d < dim; ++d)
      names.push_back(side + std::string(1, "ijk"[d]));
  return int_compound(names);
}

void append_box(std::vector<int>& out, const Box& b, int dim) {
  for (int d = 0; d < dim; ++d)
    out.push_back(b.lo[d]);
  for (int d = 0; d < dim; ++d)
    out.push_back(b.hi[d]);
}

void attr_box(hid_t obj, const std::string& name, const Box& b, int dim) {
  std::vector<int> v;
  append_box(v, b, dim);
  scalar_attr(obj, name, box_type(dim), v.data());
}

void attr_intvect(hid_t obj, const std::string& name, const IntVect& v, int dim) {
  std::vector<std::string> names;
  std::vector<int> values;
  for (int d = 0; d < dim; ++d) {
    names.push_back(std::string("intvect") + "ijk"[d]);
    values.push_back(v[d]);
  }
  scalar_attr(obj, name, int_compound(names), values.data());
}

Id create_1d(hid_t loc, const std::string& name, hid_t type, hsize_t n) {
  Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  return Id(check(H5Dcreate2(loc, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT),
                  "dataset " + name),
            H5Dclose);
}

namespace {

/// The file selection of `runs` in dset, a matching memory space and a collective
/// transfer list; a rank with nothing to move takes part with empty selections.
struct RunSelection {
  Id file, mem, xfer;
  hsize_t total = 0;
};

RunSelection select_runs(hid_t dset, const std::vector<Run>& runs) {
  RunSelection s{Id(H5Dget_space(dset), H5Sclose), Id(), Id()};
  H5Sselect_none(s.file);
  for (const Run& r : runs) {
    if (r.count == 0) continue;
    check_status(
        H5Sselect_hyperslab(s.file, H5S_SELECT_OR, &r.first, nullptr, &r.count, nullptr),
        "hyperslab");
    s.total += r.count;
  }
  const hsize_t mem_n = s.total > 0 ? s.total : 1;
  s.mem = Id(H5Screate_simple(1, &mem_n, nullptr), H5Sclose);
  if (s.total == 0) H5Sselect_none(s.mem);
  s.xfer = Id(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  H5Pset_dxpl_mpio(s.xfer, H5FD_MPIO_COLLECTIVE);
  return s;
}

}  // namespace

void write_runs(hid_t dset, hid_t mem_type, const std::vector<Run>& runs,
                const void* buf) {
  const RunSelection s = select_runs(dset, runs);
  check_status(H5Dwrite(dset, mem_type, s.mem, s.file, s.xfer, buf), "collective write");
}

hsize_t extent(hid_t dset) {
  Id space(H5Dget_space(dset), H5Sclose);
  return hsize_t(H5Sget_simple_extent_npoints(space));
}

void check_dataset_type(hid_t dset, hid_t mem_type) {
  const Id type(H5Dget_type(dset), H5Tclose);
  if (type < 0 || !readable_as(type, mem_type))
    throw std::runtime_error(path_of(dset) + " has an unexpected type");
}

void read_all(hid_t dset, hid_t mem_type, void* buf) {
  check_dataset_type(dset, mem_type);
  check_status(H5Dread(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), "read");
}

void read_runs(hid_t dset, hid_t mem_type, const std::vector<Run>& runs, void* buf) {
  check_dataset_type(dset, mem_type);  // the same verdict on every rank
  const RunSelection s = select_runs(dset, runs);
  double dummy = 0;
  check_status(H5Dread(dset, mem_type, s.mem, s.file, s.xfer, s.total > 0 ? buf : &dummy),
               "collective read");
}

void write_all_from(hid_t dset, hid_t mem_type, hsize_t n, const void* buf, int rank,
                    int root) {
  std::vector<Run> runs;
  if (rank == root) runs.push_back({0, n});
  write_runs(dset, mem_type, runs, buf);
}

}  // namespace pw::h5
