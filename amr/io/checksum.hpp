// Checksums that make a dump's corruption detectable: FNV-1a (64 bit) over bytes, the
// digest of an HDF5 object's attributes, and the "checksum" attribute stored beside each
// group and metadata dataset of a dump (see README, Output).
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace pw::h5 {

/// FNV-1a, 64 bit, over `n` bytes, continuing from `h`. Every step is a bijection of
/// the running hash, so any change to a single byte (one flipped bit included) always
/// changes the result.
std::uint64_t fnv1a(const void* data, std::size_t n,
                    std::uint64_t h = 0xcbf29ce484222325ull);

/// Name of the attribute that holds a group's or a dataset's checksum.
inline const char* checksum_attr() {
  return "checksum";
}

/// Digest of every attribute of `obj` but the checksum itself: names in increasing
/// order, each name and its stored bytes. Every rank computes the same.
std::uint64_t attributes_digest(hid_t obj);

/// Store attributes_digest(obj) as the checksum attribute of group `obj`. Collective:
/// call after its last other attribute is written.
void seal_attributes(hid_t obj);

/// Store `digest` as the checksum attribute of `obj` (collective, same on every rank).
void attr_checksum(hid_t obj, std::uint64_t digest);

/// The stored checksum of `obj`. Throws std::runtime_error "has no checksum ..." when
/// there is none (a dump written before checksums were).
std::uint64_t read_checksum(hid_t obj);

/// Throws std::runtime_error "<what>: its attributes fail their checksum ..." unless the
/// attributes of `obj` match its checksum.
void verify_attributes(hid_t obj, const std::string& what);

}  // namespace pw::h5
