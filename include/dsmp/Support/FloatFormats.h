//===- FloatFormats.h - Exact f32 <-> low-precision conversions -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Bit-exact conversions between IEEE f32 and the formats dsmp assigns, for
// the runtime and host emulation (header-only, no MLIR or LLVM dependency):
//
//   f16, bf16      round to nearest, ties to even; overflow gives inf
//   f8E4M3FN       OCP FP8 E4M3 (no inf, NaN = S.1111.111, max 448)
//   f8E5M2         OCP FP8 E5M2 (IEEE-like, max 57344)
//   f8E4M3FNUZ,    the "fnuz" variants (AMD): one NaN (0x80), no -0,
//   f8E5M2FNUZ     exponent bias one higher
//   tf32           f32 storage, mantissa rounded to 10 bits with ties away
//                  from zero, as PTX cvt.rna.tf32.f32 does
//
// The f8 conversions take ONNX Cast's `saturate` (ONNX's reference
// implementation agrees): when set, values beyond the largest finite value,
// +-inf included, become +-that value; when clear they become +-inf (E5M2)
// or NaN.
// NaN inputs give the format's quiet NaN with the input's sign.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_SUPPORT_FLOATFORMATS_H
#define DSMP_SUPPORT_FLOATFORMATS_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace dsmp::formats {

inline uint32_t bitsOf(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

inline float floatOf(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

/// Layout of a small binary float format.
struct SmallFloat {
  int exponentBits;
  int mantissaBits;
  int bias;
  bool hasInf;        // all-ones exponent with zero mantissa is inf
  bool ieeeNaN;       // all-ones exponent with nonzero mantissa is NaN
  bool hasNegZero;    // false for fnuz: 0x80 is the only NaN
  uint32_t maxFinite; // code of the largest finite magnitude
};

inline constexpr SmallFloat kF16{5, 10, 15, true, true, true, 0x7BFF};
inline constexpr SmallFloat kF8E4M3FN{4, 3, 7, false, false, true, 0x7E};
inline constexpr SmallFloat kF8E5M2{5, 2, 15, true, true, true, 0x7B};
inline constexpr SmallFloat kF8E4M3FNUZ{4, 3, 8, false, false, false, 0x7F};
inline constexpr SmallFloat kF8E5M2FNUZ{5, 2, 16, false, false, false, 0x7F};

/// The code of the format's quiet NaN with sign `sign`.
inline uint32_t nanCode(const SmallFloat &f, uint32_t sign) {
  int width = 1 + f.exponentBits + f.mantissaBits;
  if (!f.hasNegZero)
    return 1u << (width - 1); // fnuz: the "negative zero" pattern
  uint32_t expMask = ((1u << f.exponentBits) - 1) << f.mantissaBits;
  uint32_t quiet =
      f.ieeeNaN ? 1u << (f.mantissaBits - 1) : (1u << f.mantissaBits) - 1;
  return (sign << (width - 1)) | expMask | quiet;
}

/// Rounds the f32 `x` to the format, ties to even, and returns its code.
inline uint32_t encode(const SmallFloat &f, float x, bool saturate) {
  uint32_t bits = bitsOf(x);
  uint32_t sign = bits >> 31;
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  int width = 1 + f.exponentBits + f.mantissaBits;
  uint32_t signBit = sign << (width - 1);
  uint32_t infCode = ((1u << f.exponentBits) - 1) << f.mantissaBits;
  if (magnitude > 0x7F800000u)
    return nanCode(f, sign);
  auto overflow = [&]() -> uint32_t {
    if (saturate)
      return signBit | f.maxFinite;
    return f.hasInf ? signBit | infCode : nanCode(f, sign);
  };
  if (magnitude == 0x7F800000u)
    return overflow();
  int biased = static_cast<int>(magnitude >> 23);
  if (biased == 0) // f32 subnormals lie far below every small format's range
    return f.hasNegZero ? signBit : 0;
  int exponent = biased - 127 + f.bias; // target biased exponent
  uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u; // 24 bits
  int shift = 23 - f.mantissaBits + (exponent >= 1 ? 0 : 1 - exponent);
  if (shift > 24)
    return f.hasNegZero ? signBit : 0;
  uint32_t kept = significand >> shift;
  uint32_t rest = significand & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1)))
    ++kept;
  // A carry out of the mantissa moves into the exponent by itself.
  uint32_t code = exponent >= 1
                      ? (static_cast<uint32_t>(exponent) << f.mantissaBits) +
                            (kept - (1u << f.mantissaBits))
                      : kept;
  if (code > f.maxFinite)
    return overflow();
  if (code == 0 && !f.hasNegZero)
    return 0;
  return signBit | code;
}

/// The f32 value of a code (exact: every small-format value is an f32).
inline float decode(const SmallFloat &f, uint32_t code) {
  int width = 1 + f.exponentBits + f.mantissaBits;
  uint32_t sign = (code >> (width - 1)) & 1;
  uint32_t magnitude = code & ((1u << (width - 1)) - 1);
  uint32_t expField = magnitude >> f.mantissaBits;
  uint32_t mantissa = magnitude & ((1u << f.mantissaBits) - 1);
  uint32_t allOnes = (1u << f.exponentBits) - 1;
  if (!f.hasNegZero && sign && magnitude == 0)
    return floatOf(0x7FC00000u);
  if (f.hasInf && expField == allOnes)
    return floatOf((sign << 31) | (mantissa ? 0x7FC00000u : 0x7F800000u));
  if (!f.hasInf && f.hasNegZero &&
      magnitude == ((allOnes << f.mantissaBits) | ((1u << f.mantissaBits) - 1)))
    return floatOf((sign << 31) | 0x7FC00000u);
  float value;
  if (expField == 0) {
    value = static_cast<float>(mantissa);
    for (int i = 0; i < f.bias - 1 + f.mantissaBits; ++i)
      value *= 0.5f;
  } else {
    uint32_t bits =
        ((expField - f.bias + 127) << 23) | (mantissa << (23 - f.mantissaBits));
    value = floatOf(bits);
  }
  return sign ? -value : value;
}

/// f32 -> bf16 code, ties to even (NaN stays a quiet NaN).
inline uint16_t toBF16(float x) {
  uint32_t bits = bitsOf(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7FFFu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

inline float fromBF16(uint16_t code) {
  return floatOf(static_cast<uint32_t>(code) << 16);
}

/// f32 rounded to tf32 (10-bit mantissa, ties away from zero), in f32.
inline float roundToTF32(float x) {
  uint32_t bits = bitsOf(x);
  if ((bits & 0x7F800000u) == 0x7F800000u)
    return x; // inf and NaN pass through
  bits = (bits + 0x1000u) & ~0x1FFFu;
  return floatOf(bits);
}

/// f32 -> f16 code, ties to even, overflow to inf: the same codes as
/// encode(kF16, x, false) (test/Formats checks both), without its general
/// shifts, since millions of weights go through it per compile.
inline uint16_t toF16(float x) {
  uint32_t bits = bitsOf(x);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u)
    return sign | 0x7E00u;      // quiet NaN
  if (magnitude >= 0x477FF000u) // 65520 and up round past 65504
    return sign | 0x7C00u;
  if (magnitude < 0x38800000u) {
    // Below f16's smallest normal (2^-14): adding 0.5 (whose f32 ulp is
    // f16's subnormal step 2^-24) rounds to that step, ties to even; the
    // low bits are then the subnormal code (0x400 is the smallest normal).
    float shifted = floatOf(magnitude) + 0.5f;
    return sign | static_cast<uint16_t>(bitsOf(shifted) - 0x3F000000u);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits
  // to nearest even; a mantissa carry moves into the exponent by itself.
  uint32_t odd = (magnitude >> 13) & 1u;
  magnitude += 0xC8000FFFu + odd;
  return sign | static_cast<uint16_t>(magnitude >> 13);
}

/// f16 code -> f32 (exact; NaN gives a quiet NaN with the code's sign).
inline float fromF16(uint16_t code) {
  uint32_t sign = static_cast<uint32_t>(code & 0x8000u) << 16;
  uint32_t exponent = (code >> 10) & 0x1Fu;
  uint32_t mantissa = code & 0x3FFu;
  if (exponent == 0x1F)
    return floatOf(sign | (mantissa ? 0x7FC00000u : 0x7F800000u));
  if (exponent == 0) { // subnormal or zero: mantissa * 2^-24, exact
    float value = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -value : value;
  }
  return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// Bulk toF16 / fromF16 over n values, the same codes and values (millions
/// of weights per compile go through them). On x86-64 CPUs with F16C, eight
/// at a time with vcvtps2ph / vcvtph2ps (IEEE round to nearest even, as
/// toF16); a group holding a NaN goes through the scalar functions, whose
/// NaN is the canonical quiet one where F16C would keep the payload.
namespace detail {
#if defined(__x86_64__)
inline bool hasF16C() {
  static const bool has =
      __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return has;
}

/// The leading multiple of 8 done; the caller finishes the tail.
__attribute__((target("avx,f16c"))) inline size_t
toF16ByF16C(const float *in, uint16_t *out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(in + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q))) {
      for (size_t j = i; j < i + 8; ++j)
        out[j] = toF16(in[j]);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i),
                     _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
  }
  return i;
}

__attribute__((target("avx,f16c"))) inline size_t
fromF16ByF16C(const uint16_t *in, float *out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_cvtph_ps(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i)));
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q))) {
      for (size_t j = i; j < i + 8; ++j)
        out[j] = fromF16(in[j]);
      continue;
    }
    _mm256_storeu_ps(out + i, x);
  }
  return i;
}
#endif
} // namespace detail

inline void toF16(const float *in, uint16_t *out, size_t n) {
  size_t i = 0;
#if defined(__x86_64__)
  if (detail::hasF16C())
    i = detail::toF16ByF16C(in, out, n);
#endif
  for (; i < n; ++i)
    out[i] = toF16(in[i]);
}

inline void fromF16(const uint16_t *in, float *out, size_t n) {
  size_t i = 0;
#if defined(__x86_64__)
  if (detail::hasF16C())
    i = detail::fromF16ByF16C(in, out, n);
#endif
  for (; i < n; ++i)
    out[i] = fromF16(in[i]);
}

} // namespace dsmp::formats

#endif // DSMP_SUPPORT_FLOATFORMATS_H
