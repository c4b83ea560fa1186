// corrupt_dump GOOD OUT CASE: copy the good dump GOOD to OUT and damage it as CASE says,
// for the catalogue of hostile restart files (hostile_restarts.cmake). Cases named
// "*_bit" flip a bit and leave the checksums (ours and HDF5's) as they were (what a bad
// disk does); the others rewrite the checksums to fit (what a buggy writer or a hand edit
// does), so that the restart's semantic checks, not its checksums, must catch them.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "amr/io/checksum.hpp"
#include "amr/io/h5_util.hpp"

using namespace pw;

namespace {

struct Dump {
  h5::Id file;
  int dim = 0;
};

h5::Id level(const Dump& d, int l) {
  return h5::open_group(d.file, "level_" + std::to_string(l));
}

/// The whole 1-D dataset `name` of `g`, as bytes of its own type.
std::vector<unsigned char> read_raw(hid_t g, const std::string& name, hid_t* type_out) {
  const h5::Id ds = h5::open_dataset(g, name);
  const h5::Id type(H5Dget_type(ds), H5Tclose);
  std::vector<unsigned char> raw(h5::extent(ds) * H5Tget_size(type));
  H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
  if (type_out != nullptr) *type_out = H5Tcopy(type);
  return raw;
}

/// Write `raw` back to dataset `name` of `g`; with `reseal`, store its new checksum.
void write_raw(hid_t g, const std::string& name, const std::vector<unsigned char>& raw,
               bool reseal) {
  const h5::Id ds = h5::open_dataset(g, name);
  const h5::Id type(H5Dget_type(ds), H5Tclose);
  if (H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0)
    throw std::runtime_error("cannot write " + name);
  if (!reseal) return;
  H5Adelete(ds, h5::checksum_attr());
  h5::attr_checksum(ds, h5::fnv1a(raw.data(), raw.size()));
}

template <class T>
std::vector<T> as(const std::vector<unsigned char>& raw) {
  std::vector<T> v(raw.size() / sizeof(T));
  std::memcpy(v.data(), raw.data(), raw.size());
  return v;
}

template <class T>
std::vector<unsigned char> bytes(const std::vector<T>& v) {
  std::vector<unsigned char> raw(v.size() * sizeof(T));
  std::memcpy(raw.data(), v.data(), raw.size());
  return raw;
}

/// Replace a scalar attribute of `obj`; with `reseal`, its checksum too.
template <class T>
void set_attr(hid_t obj, const std::string& name, T v, bool reseal = true) {
  H5Adelete(obj, name.c_str());
  if constexpr (std::is_same_v<T, double>)
    h5::attr_double(obj, name, v);
  else
    h5::attr_int(obj, name, v);
  if (!reseal) return;
  H5Adelete(obj, h5::checksum_attr());
  h5::seal_attributes(obj);
}

void flip_attr_bit(hid_t obj, const std::string& name) {
  const h5::Id a(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  const h5::Id type(H5Aget_type(a), H5Tclose);
  std::vector<unsigned char> raw(H5Tget_size(type));
  H5Aread(a, type, raw.data());
  raw[0] ^= 0x10;
  H5Awrite(a, type, raw.data());
}

/// Boxes of level l as {lo..., hi...} per box.
std::vector<int> boxes(const Dump& d, int l) {
  return as<int>(read_raw(level(d, l), "boxes", nullptr));
}

/// Level l's value `i` of data:datatype=0 set to `v`, with the patch checksums made to
/// fit.
void set_value(const Dump& d, int l, size_t i, double v) {
  const h5::Id g = level(d, l);
  std::vector<double> data = as<double>(read_raw(g, "data:datatype=0", nullptr));
  const std::vector<std::int64_t> off =
      as<std::int64_t>(read_raw(g, "data:offsets=0", nullptr));
  data[i] = v;
  write_raw(g, "data:datatype=0", bytes(data), false);
  std::vector<std::uint64_t> sums =
      as<std::uint64_t>(read_raw(g, "data:checksums", nullptr));
  for (size_t p = 0; p + 1 < off.size(); ++p)
    if (std::int64_t(i) >= off[p] && std::int64_t(i) < off[p + 1])
      sums[p] = h5::fnv1a(data.data() + off[p], size_t(off[p + 1] - off[p]) * 8);
  write_raw(g, "data:checksums", bytes(sums), true);
}

bool overlaps(const int* a, const int* b, int dim) {
  for (int k = 0; k < dim; ++k)
    if (a[k] > b[dim + k] || b[k] > a[dim + k]) return false;
  return true;
}

/// Move box p of level l so that its lower corner is at `lo` (same size).
void place(std::vector<int>& bx, size_t p, const int* lo, int dim) {
  for (int k = 0; k < dim; ++k) {
    const int n = bx[2 * dim * p + dim + k] - bx[2 * dim * p + k];
    bx[2 * dim * p + k] = lo[k];
    bx[2 * dim * p + dim + k] = lo[k] + n;
  }
}

int domain_hi(const Dump& d, int l, int k) {
  return h5::read_attr_box(level(d, l), "prob_domain", d.dim).hi[k];
}

/// The catalogue's damages by name.
std::map<std::string, std::function<void(const Dump&)>> cases() {
  return {
      {"data_bit",
       [](const Dump& d) {
         const h5::Id g = level(d, 1);
         std::vector<unsigned char> raw = read_raw(g, "data:datatype=0", nullptr);
         raw[5 * 8 + 2] ^= 0x04;  // a low mantissa bit of value 5
         write_raw(g, "data:datatype=0", raw, false);
       }},
      {"box_bit",
       [](const Dump& d) {
         const h5::Id g = level(d, 1);
         std::vector<unsigned char> raw = read_raw(g, "boxes", nullptr);
         raw[0] ^= 0x04;  // box 0's lo_i
         write_raw(g, "boxes", raw, false);
       }},
      {"time_bit", [](const Dump& d) { flip_attr_bit(level(d, 0), "t_new"); }},
      {"step_bit",
       [](const Dump& d) {
         flip_attr_bit(h5::open_group(d.file, "checkpoint"), "step");
       }},
      {"no_checksums", [](const Dump& d) { H5Adelete(d.file, h5::checksum_attr()); }},
      {"unaligned_box",
       [](const Dump& d) {
         std::vector<int> bx = boxes(d, 1);
         const int s = bx[size_t(d.dim)] < domain_hi(d, 1, 0) ? 1 : -1;
         bx[0] += s;
         bx[size_t(d.dim)] += s;
         write_raw(level(d, 1), "boxes", bytes(bx), true);
       }},
      {"overlapping_boxes",
       [](const Dump& d) {
         std::vector<int> bx = boxes(d, 1);
         const size_t n = bx.size() / size_t(2 * d.dim);
         for (size_t a = 0; a < n; ++a)
           for (size_t b = 0; b < n; ++b) {
             if (a == b) continue;
             bool fits = true;
             for (int k = 0; k < d.dim; ++k)
               fits = fits && bx[2 * d.dim * a + k] + bx[2 * d.dim * b + d.dim + k] -
                                      bx[2 * d.dim * b + k] <=
                                  domain_hi(d, 1, k);
             if (!fits) continue;
             const std::vector<int> lo(bx.begin() + long(2 * d.dim * a),
                                       bx.begin() + long(2 * d.dim * a + d.dim));
             place(bx, b, lo.data(), d.dim);
             write_raw(level(d, 1), "boxes", bytes(bx), true);
             return;
           }
         throw std::runtime_error("no two level-1 boxes to overlap");
       }},
      {"unnested_box",
       [](const Dump& d) {
         // Level-2 box 0 moved, by whole blocks of its size, to where no level-1 box is.
         std::vector<int> fine = boxes(d, 2);
         const std::vector<int> coarse = boxes(d, 1);
         const int dim = d.dim;
         const int step = fine[size_t(dim)] - fine[0] + 1;  // box 0's i size
         std::vector<int> lo(size_t(dim), 0);
         for (lo[1] = 0; lo[1] + step <= domain_hi(d, 2, 1) + 1; lo[1] += step)
           for (lo[0] = 0; lo[0] + step <= domain_hi(d, 2, 0) + 1; lo[0] += step) {
             std::vector<int> moved = fine;
             place(moved, 0, lo.data(), dim);
             std::vector<int> c(size_t(2 * dim));
             for (int k = 0; k < 2 * dim; ++k)
               c[size_t(k)] = moved[size_t(k)] / 2;  // ref_ratio 2
             bool free = true;
             for (size_t q = 0; 2 * dim * q < coarse.size(); ++q)
               free = free && !overlaps(c.data(), coarse.data() + 2 * dim * q, dim);
             for (size_t q = 1; 2 * dim * q < fine.size(); ++q)
               free = free && !overlaps(moved.data(), fine.data() + 2 * dim * q, dim);
             if (!free) continue;
             write_raw(level(d, 2), "boxes", bytes(moved), true);
             return;
           }
         throw std::runtime_error("no place for an unnested level-2 box");
       }},
      {"nan_data",
       [](const Dump& d) {
         set_value(d, 0, 0, std::numeric_limits<double>::quiet_NaN());
       }},
      {"inf_data",
       [](const Dump& d) {
         set_value(d, 1, 7, std::numeric_limits<double>::infinity());
       }},
      {"nan_time",
       [](const Dump& d) {
         set_attr(level(d, 1), "t_new", std::numeric_limits<double>::quiet_NaN());
       }},
      {"inf_time",
       [](const Dump& d) {
         set_attr(level(d, 0), "t_old", std::numeric_limits<double>::infinity());
       }},
      {"unordered_times",
       [](const Dump& d) {
         const h5::Id g = level(d, 0);
         set_attr(g.operator hid_t(), "t_old", h5::read_attr_double(g, "t_new") + 1.0);
       }},
      {"levels_disagree",
       [](const Dump& d) {
         const h5::Id g = level(d, 2);
         set_attr(g.operator hid_t(), "t_new", h5::read_attr_double(g, "t_new") + 0.25);
       }},
      {"negative_step",
       [](const Dump& d) { set_attr(h5::open_group(d.file, "checkpoint"), "step", -1); }},
      {"negative_level_steps", [](const Dump& d) { set_attr(level(d, 1), "steps", -3); }},
      {"inconsistent_steps",
       [](const Dump& d) {
         const h5::Id g = level(d, 0);
         set_attr(g.operator hid_t(), "steps", h5::read_attr_int(g, "steps") + 1);
       }},
      // The conservation figures' baseline: it printed "initial nan" and a summary
      // that broke its schema.
      {"nan_initial_totals",
       [](const Dump& d) {
         const h5::Id ck = h5::open_group(d.file, "checkpoint");
         std::vector<double> t = h5::read_attr_doubles(ck, "initial_totals");
         t.at(0) = std::numeric_limits<double>::quiet_NaN();
         H5Adelete(ck, "initial_totals");
         h5::attr_doubles(ck, "initial_totals", t);
         H5Adelete(ck, h5::checksum_attr());
         h5::seal_attributes(ck);
       }},
      // One level fewer than the file holds: the finest was dropped without a word.
      {"extra_level",
       [](const Dump& d) {
         set_attr(d.file.operator hid_t(), "num_levels",
                  h5::read_attr_int(d.file, "num_levels") - 1);
       }},
  };
}

/// Bob Jenkins' lookup3 hash (hashlittle), which HDF5 stores after each piece of its
/// metadata in the 1.8 file format: a writer's bug must come with checksums that fit.
std::uint32_t lookup3(const unsigned char* k, size_t length) {
  auto rot = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  std::uint32_t a, b, c;
  a = b = c = 0xdeadbeef + std::uint32_t(length);
  auto word = [&](size_t i, size_t n) {  // n bytes from k[i], little endian
    std::uint32_t w = 0;
    for (size_t j = 0; j < n; ++j)
      w |= std::uint32_t(k[i + j]) << (8 * j);
    return w;
  };
  while (length > 12) {
    a += word(0, 4), b += word(4, 4), c += word(8, 4);
    a -= c, a ^= rot(c, 4), c += b, b -= a, b ^= rot(a, 6), a += c;
    c -= b, c ^= rot(b, 8), b += a, a -= c, a ^= rot(c, 16), c += b;
    b -= a, b ^= rot(a, 19), a += c, c -= b, c ^= rot(b, 4), b += a;
    length -= 12, k += 12;
  }
  if (length == 0) return c;
  a += word(0, std::min<size_t>(length, 4));
  if (length > 4) b += word(4, std::min<size_t>(length - 4, 4));
  if (length > 8) c += word(8, length - 8);
  c ^= b, c -= rot(b, 14), a ^= c, a -= rot(c, 11), b ^= a, b -= rot(a, 25);
  c ^= b, c -= rot(b, 16), a ^= c, a -= rot(c, 4), b ^= a, b -= rot(a, 14);
  c ^= b, c -= rot(b, 24);
  return c;
}

/// The bytes [begin, end) of the version-2 object header (its first chunk) holding
/// byte `at`, the checksum excluded; {0, 0} when `at` is in none (a heap block).
std::pair<size_t, size_t> object_header(const std::vector<char>& f, size_t at) {
  const size_t begin = std::string_view(f.data(), at).rfind("OHDR");
  if (begin == std::string_view::npos || begin + 6 > f.size()) return {0, 0};
  const auto flags = static_cast<unsigned char>(f[begin + 5]);
  size_t p = begin + 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
  const size_t width = size_t(1) << (flags & 3);
  size_t size = 0;
  for (size_t j = 0; j < width && p + j < f.size(); ++j)
    size |= size_t(static_cast<unsigned char>(f[p + j])) << (8 * j);
  const size_t end = p + width + size;
  if (at >= end || end + 4 > f.size()) return {0, 0};
  return {begin, end};
}

std::uint32_t stored_u32(const std::vector<char>& f, size_t at) {
  std::uint32_t v;
  std::memcpy(&v, &f[at], 4);  // little endian, as HDF5 stores it (and x86 reads it)
  return v;
}

/// Flip the high bit of the byte offset of member hi_i of every box type an object
/// header holds (8 or 12 becomes 136 or 140, beyond the type's 16 or 24 bytes), with
/// the header's checksum made to fit or not. In the 1.8 format a member is its
/// null-terminated name, then its offset in as few bytes as the type's size needs (one).
void bend_box_types(std::vector<char>& f, bool reseal) {
  const std::string name("hi_i\0", 5);
  int bent = 0;
  for (size_t at = 0; at + 6 <= f.size(); ++at) {
    if (std::memcmp(&f[at], name.data(), name.size()) != 0) continue;
    const auto [begin, end] = object_header(f, at);
    if (end == 0) continue;
    const auto* bytes = reinterpret_cast<const unsigned char*>(f.data());
    // The header as found fits its checksum: what checks this tool's hash.
    if (reseal && lookup3(bytes + begin, end - begin) != stored_u32(f, end))
      throw std::runtime_error("an object header's checksum does not fit");
    f[at + 5] ^= char(0x80);
    ++bent;
    if (!reseal) continue;
    const std::uint32_t sum = lookup3(bytes + begin, end - begin);
    std::memcpy(&f[end], &sum, 4);
  }
  if (bent == 0) throw std::runtime_error("no box type found");
}

/// Damages to the file's bytes (not through HDF5): what a fuzzer found.
std::map<std::string, std::function<void(std::vector<char>&)>> byte_cases() {
  return {
      // The box compound type's member hi_i bent beyond the type's size where an object
      // header holds it (the boxes datasets), with the header's checksum made to fit:
      // HDF5's conversion to the reader's type then read out of bounds and crashed (a
      // segfault).
      {"bent_member_offset", [](std::vector<char>& f) { bend_box_types(f, true); }},
      // The same on a bad disk: HDF5's checksum of the object header finds it.
      {"box_type_bit", [](std::vector<char>& f) { bend_box_types(f, false); }},
      // The object headers holding box types with their signature's first byte made 1:
      // HDF5 then parses them as version-1 headers, which carry no checksum, so the
      // 1.8 format's checksums cannot find this (the one damage of a byte they miss).
      {"header_version_1",
       [](std::vector<char>& f) {
         const std::string name("hi_i\0", 5);
         int damaged = 0;
         for (size_t at = 0; at + 5 <= f.size(); ++at)
           if (std::memcmp(&f[at], name.data(), name.size()) == 0)
             if (const auto [begin, end] = object_header(f, at); end != 0) {
               f[begin] = 1;
               ++damaged;
             }
         // Else the file is whole: say so here, not as a restart that did not fail.
         if (damaged == 0) throw std::runtime_error("no object header with a box type");
       }},
      // A good dump whose superblock says version 0 (the earliest format, whose
      // metadata has no checksums, as the dumps before 2026-12-02): refused on that
      // byte, before HDF5 parses anything (it crashed on a damaged v0 object header).
      {"earliest_format", [](std::vector<char>& f) { f.at(8) = 0; }},
  };
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 0;
  try {
    if (argc != 4) throw std::runtime_error("usage: corrupt_dump GOOD OUT CASE");
    const std::string c = argv[3];
    const auto all = cases();
    auto it = all.find(c);
    const auto bytes_all = byte_cases();
    auto bytes_it = bytes_all.find(c);
    if (bytes_it != bytes_all.end()) {
      std::ifstream in(argv[1], std::ios::binary);
      std::vector<char> f((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
      bytes_it->second(f);
      std::ofstream(argv[2], std::ios::binary).write(f.data(), std::streamsize(f.size()));
      MPI_Finalize();
      return 0;
    }
    if (it == all.end()) throw std::runtime_error("unknown case " + c);
    std::filesystem::copy_file(argv[1], argv[2],
                               std::filesystem::copy_options::overwrite_existing);
    Dump d;
    d.file = h5::Id(H5Fopen(argv[2], H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (d.file < 0) throw std::runtime_error(std::string("cannot open ") + argv[2]);
    d.dim = h5::read_attr_int(h5::open_group(d.file, "Chombo_global"), "SpaceDim");
    it->second(d);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "corrupt_dump: %s\n", e.what());
    code = 1;
  }
  MPI_Finalize();
  return code;
}
