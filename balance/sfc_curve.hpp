// Hilbert and Morton keys of integer cell coordinates in 2D and 3D: the position of a
// cell along the curve that fills the 2^bits-per-side cube, for ordering patches (sfc).
#pragma once

#include <cstdint>

namespace pw {

/// Largest `bits` per axis whose key fits in 64 bits.
constexpr int kSfcMaxBits2 = 32;
constexpr int kSfcMaxBits3 = 21;

/// Hilbert index of (x, y) on the 2^bits x 2^bits grid (Skilling's transpose algorithm,
/// "Programming the Hilbert curve", 2004). Cells consecutive in key are face neighbours;
/// the curve starts at (0, 0) and ends at a neighbouring corner ((2^bits - 1, 0) for odd
/// bits, (0, 2^bits - 1) for even bits).
/// Pre: 1 <= bits <= kSfcMaxBits2, x and y < 2^bits.
std::uint64_t hilbert_key(std::uint32_t x, std::uint32_t y, int bits);
/// The same in 3D. Pre: 1 <= bits <= kSfcMaxBits3, coordinates < 2^bits.
std::uint64_t hilbert_key(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits);

/// hilbert_key of n cells at once, faster than one by one: keys[k] = the key of
/// (cells[3k], cells[3k + 1], cells[3k + 2]) in 3D (dim = 3), of (cells[3k],
/// cells[3k + 1]) in 2D (cells[3k + 2] unread). Same preconditions as hilbert_key.
void hilbert_keys(const std::uint32_t* cells, int n, int dim, int bits,
                  std::uint64_t* keys);

/// Morton (Z-order) index: the bits of the coordinates interleaved, x least significant,
/// so a 2x2 grid reads (0,0) (1,0) (0,1) (1,1). Same preconditions as hilbert_key.
std::uint64_t morton_key(std::uint32_t x, std::uint32_t y, int bits);
std::uint64_t morton_key(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits);

}  // namespace pw
