#include "balance/sfc_curve.hpp"

namespace pw {

namespace {

/// x's low 32 bits spread to the even bits of the result: bit b goes to bit 2b.
std::uint64_t spread2(std::uint32_t v) {
  std::uint64_t x = v;
  x = (x | x << 16) & 0x0000FFFF0000FFFFull;
  x = (x | x << 8) & 0x00FF00FF00FF00FFull;
  x = (x | x << 4) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | x << 2) & 0x3333333333333333ull;
  return (x | x << 1) & 0x5555555555555555ull;
}

/// x's low 21 bits spread to every third bit: bit b goes to bit 3b.
std::uint64_t spread3(std::uint32_t v) {
  std::uint64_t x = v & 0x1FFFFFu;
  x = (x | x << 32) & 0x001F00000000FFFFull;
  x = (x | x << 16) & 0x001F0000FF0000FFull;
  x = (x | x << 8) & 0x100F00F00F00F00Full;
  x = (x | x << 4) & 0x10C30C30C30C30C3ull;
  return (x | x << 2) & 0x1249249249249249ull;
}

/// The bits of x[0..N-1] interleaved, bit b of x[i] at bit N * b + (N - 1 - i) when
/// `first_high` (axis 0 most significant), else at N * b + i.
template <int N>
std::uint64_t interleave(const std::uint32_t (&x)[N], bool first_high) {
  std::uint64_t key = 0;
  for (int i = 0; i < N; ++i)
    key |= (N == 2 ? spread2(x[i]) : spread3(x[i])) << (first_high ? N - 1 - i : i);
  return key;
}

/// Skilling's AxestoTranspose: turns n coordinates of b bits into the "transposed"
/// Hilbert index, whose bits read across the axes (axis 0 most significant) give the key.
/// Written without branches on the bits, which are unpredictable.
template <int N>
std::uint64_t hilbert_n(std::uint32_t (&x)[N], int bits) {
  const std::uint32_t m = std::uint32_t(1) << (bits - 1);
  for (std::uint32_t q = m; q > 1; q >>= 1) {  // inverse undo
    const std::uint32_t p = q - 1;
    for (int i = 0; i < N; ++i) {
      // Bit q of x[i] set: invert the low bits of x[0]; else exchange them with x[i]'s.
      const std::uint32_t set = 0u - std::uint32_t((x[i] & q) != 0);
      const std::uint32_t t = (x[0] ^ x[i]) & p & ~set;
      x[0] ^= (p & set) | t;
      x[i] ^= t;
    }
  }
  for (int i = 1; i < N; ++i)  // Gray encode
    x[i] ^= x[i - 1];
  // t ^= q - 1 for every bit q > 1 set in x[N - 1]: bit j of t is the parity of the
  // bits of x[N - 1] above j.
  std::uint32_t t = x[N - 1] >> 1;
  t ^= t >> 1;
  t ^= t >> 2;
  t ^= t >> 4;
  t ^= t >> 8;
  t ^= t >> 16;
  for (int i = 0; i < N; ++i)
    x[i] ^= t;
  return interleave(x, true);
}

template <int N>
std::uint64_t morton_n(const std::uint32_t (&x)[N]) {
  return interleave(x, false);
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

std::uint64_t morton_key(std::uint32_t x, std::uint32_t y, int /*bits*/) {
  const std::uint32_t c[2] = {x, y};
  return morton_n(c);
}

std::uint64_t morton_key(std::uint32_t x, std::uint32_t y, std::uint32_t z,
                         int /*bits*/) {
  const std::uint32_t c[3] = {x, y, z};
  return morton_n(c);
}

}  // namespace pw
