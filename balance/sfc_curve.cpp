#include "balance/sfc_curve.hpp"

namespace pw {

namespace {

/// Skilling's AxestoTranspose: turns n coordinates of b bits into the "transposed"
/// Hilbert index, whose bits read across the axes (axis 0 most significant) give the key.
template <int N>
std::uint64_t hilbert_n(std::uint32_t (&x)[N], int bits) {
  const std::uint32_t m = std::uint32_t(1) << (bits - 1);
  for (std::uint32_t q = m; q > 1; q >>= 1) {  // inverse undo
    const std::uint32_t p = q - 1;
    for (int i = 0; i < N; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const std::uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (int i = 1; i < N; ++i)  // Gray encode
    x[i] ^= x[i - 1];
  std::uint32_t t = 0;
  for (std::uint32_t q = m; q > 1; q >>= 1)
    if (x[N - 1] & q) t ^= q - 1;
  for (int i = 0; i < N; ++i)
    x[i] ^= t;
  std::uint64_t key = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int i = 0; i < N; ++i)
      key = (key << 1) | ((x[i] >> b) & 1u);
  return key;
}

template <int N>
std::uint64_t morton_n(const std::uint32_t (&x)[N], int bits) {
  std::uint64_t key = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int i = N - 1; i >= 0; --i)
      key = (key << 1) | ((x[i] >> b) & 1u);
  return key;
}

}  // namespace

std::uint64_t hilbert_key(std::uint32_t x, std::uint32_t y, int bits) {
  // Skilling's axis 0 is the most significant; feeding (y, x) makes the curve leave
  // (0, 0) along x, the usual picture.
  std::uint32_t c[2] = {y, x};
  return hilbert_n(c, bits);
}

std::uint64_t hilbert_key(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits) {
  std::uint32_t c[3] = {z, y, x};
  return hilbert_n(c, bits);
}

std::uint64_t morton_key(std::uint32_t x, std::uint32_t y, int bits) {
  const std::uint32_t c[2] = {x, y};
  return morton_n(c, bits);
}

std::uint64_t morton_key(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits) {
  const std::uint32_t c[3] = {x, y, z};
  return morton_n(c, bits);
}

}  // namespace pw
