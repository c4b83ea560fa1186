#include "balance/sfc_curve.hpp"

#include <algorithm>

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

/// Skilling's AxestoTranspose on L cells at once (x[i][l]: axis i of cell l): turns the
/// coordinates of b bits into the "transposed" Hilbert index, whose bits read across the
/// axes (axis 0 most significant) give the key. Written without branches on the bits,
/// which are unpredictable, and lane by lane, which compilers vectorize.
template <int N, int L>
void hilbert_lanes(std::uint32_t (&x)[N][L], int bits, std::uint64_t* keys) {
  for (int s = bits - 1; s > 0; --s) {  // inverse undo, bit q = 2^s
    const std::uint32_t p = (std::uint32_t(1) << s) - 1;
    // Bit q of axis i set: invert the low bits of axis 0; else exchange them with
    // axis i's (for i = 0, nothing). Lane loops innermost, for the vectorizer.
    for (int l = 0; l < L; ++l)
      x[0][l] ^= p & (0u - ((x[0][l] >> s) & 1u));
    for (int i = 1; i < N; ++i)
      for (int l = 0; l < L; ++l) {
        const std::uint32_t a = x[0][l], b = x[i][l];
        const std::uint32_t set = 0u - ((b >> s) & 1u);
        const std::uint32_t t = (a ^ b) & p & ~set;
        x[0][l] = a ^ ((p & set) | t);
        x[i][l] = b ^ t;
      }
  }
  for (int l = 0; l < L; ++l) {
    std::uint32_t c[N];
    c[0] = x[0][l];
    for (int i = 1; i < N; ++i)  // Gray encode
      c[i] = x[i][l] ^ c[i - 1];
    // t ^= q - 1 for every bit q > 1 set in the last axis: bit j of t is the parity of
    // its bits above j.
    std::uint32_t t = c[N - 1] >> 1;
    t ^= t >> 1;
    t ^= t >> 2;
    t ^= t >> 4;
    t ^= t >> 8;
    t ^= t >> 16;
    for (int i = 0; i < N; ++i)
      c[i] ^= t;
    keys[l] = interleave(c, true);
  }
}

template <int N>
std::uint64_t hilbert_n(const std::uint32_t (&c)[N], int bits) {
  std::uint32_t x[N][1];
  for (int i = 0; i < N; ++i)
    x[i][0] = c[i];
  std::uint64_t key;
  hilbert_lanes(x, bits, &key);
  return key;
}

/// Keys of cells[3k..3k+2] = (x, y, z) for k < n, kLanes at a time, axes fed as
/// hilbert_key does (z, y, x; in 2D y, x).
template <int N>
void hilbert_many(const std::uint32_t* cells, int n, int bits, std::uint64_t* keys) {
  constexpr int kLanes = 16;
  for (int k0 = 0; k0 < n; k0 += kLanes) {
    const int m = std::min(kLanes, n - k0);
    std::uint32_t x[N][kLanes] = {};
    for (int l = 0; l < m; ++l)
      for (int i = 0; i < N; ++i)
        x[i][l] = cells[3 * (k0 + l) + N - 1 - i];
    std::uint64_t out[kLanes];
    hilbert_lanes(x, bits, out);
    std::copy(out, out + m, keys + k0);
  }
}

template <int N>
std::uint64_t morton_n(const std::uint32_t (&x)[N]) {
  return interleave(x, false);
}

}  // namespace

std::uint64_t hilbert_key(std::uint32_t x, std::uint32_t y, int bits) {
  // Skilling's axis 0 is the most significant; feeding (y, x) makes the curve leave
  // (0, 0) along x, the usual picture.
  const std::uint32_t c[2] = {y, x};
  return hilbert_n(c, bits);
}

std::uint64_t hilbert_key(std::uint32_t x, std::uint32_t y, std::uint32_t z, int bits) {
  const std::uint32_t c[3] = {z, y, x};
  return hilbert_n(c, bits);
}

void hilbert_keys(const std::uint32_t* cells, int n, int dim, int bits,
                  std::uint64_t* keys) {
  if (dim == 3)
    hilbert_many<3>(cells, n, bits, keys);
  else
    hilbert_many<2>(cells, n, bits, keys);
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
