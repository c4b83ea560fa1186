#include "amr/io/checksum.hpp"

#include <stdexcept>
#include <vector>

#include "amr/io/h5_util.hpp"

namespace pw::h5 {

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h) {
  const auto* b = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

herr_t digest_one(hid_t obj, const char* name, const H5A_info_t*, void* op_data) {
  if (std::string(name) == checksum_attr()) return 0;
  auto& h = *static_cast<std::uint64_t*>(op_data);
  h = fnv1a(name, std::string(name).size() + 1, h);
  const Id a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  const Id type(H5Aget_type(a), H5Tclose);
  const Id space(H5Aget_space(a), H5Sclose);
  if (a < 0 || type < 0 || space < 0) return -1;
  // The stored bytes, read with the file's own type (no conversion).
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  const double bytes = double(H5Tget_size(type)) * double(n > 0 ? n : 0);
  if (bytes > double(1 << 28))
    return -1;  // a corrupt size: no attribute here is this big
  std::vector<unsigned char> raw(static_cast<size_t>(bytes));
  if (!raw.empty() && H5Aread(a, type, raw.data()) < 0) return -1;
  h = fnv1a(raw.data(), raw.size(), h);
  return 0;
}

}  // namespace

std::uint64_t attributes_digest(hid_t obj) {
  std::uint64_t h = fnv1a(nullptr, 0);
  hsize_t idx = 0;
  if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, digest_one, &h) < 0)
    throw std::runtime_error("HDF5: reading attributes failed");
  return h;
}

void attr_checksum(hid_t obj, std::uint64_t digest) {
  const Id space(H5Screate(H5S_SCALAR), H5Sclose);
  const Id a(
      H5Acreate2(obj, checksum_attr(), H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose);
  if (a < 0 || H5Awrite(a, H5T_NATIVE_UINT64, &digest) < 0)
    throw std::runtime_error("HDF5: writing attribute checksum failed");
}

void seal_attributes(hid_t obj) {
  attr_checksum(obj, attributes_digest(obj));
}

std::uint64_t read_checksum(hid_t obj) {
  if (H5Aexists(obj, checksum_attr()) <= 0)
    throw std::runtime_error(
        "has no checksum (written by a patchwork older than checksums, or not by "
        "patchwork): it cannot be verified");
  std::uint64_t v = 0;
  const Id a(H5Aopen(obj, checksum_attr(), H5P_DEFAULT), H5Aclose);
  if (a < 0 || H5Aread(a, H5T_NATIVE_UINT64, &v) < 0)
    throw std::runtime_error("HDF5: reading attribute checksum failed");
  return v;
}

void verify_attributes(hid_t obj, const std::string& what) {
  std::uint64_t stored = 0;
  try {
    stored = read_checksum(obj);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(what + ": " + e.what());
  }
  if (attributes_digest(obj) != stored)
    throw std::runtime_error(
        what + ": its attributes fail their checksum (the file is corrupt)");
}

}  // namespace pw::h5
