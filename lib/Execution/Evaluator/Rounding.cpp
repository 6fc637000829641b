//===- Rounding.cpp - How the evaluator holds narrow floats --- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The evaluator keeps every float tensor in f32 storage. A tensor of a
// narrower type holds values of that type: each kernel computes in f32 and
// its result is rounded once to the result type, as the lowered code does
// (dsmp-convert-to-linalg widens 16-bit operands, computes in f32 and
// truncates). tf32 is f32 storage that only a cast rounds (to a 10-bit
// mantissa, ties away from zero): the lowering treats every other tf32
// value as f32. The roundings are dsmp::formats', bit-exact against
// ml_dtypes; f16 uses the CPU's F16C conversions where it has them (the
// same round-to-nearest-even, 8 values at a time).
//
//===----------------------------------------------------------------------===//

#include "Array.h"

#include "dsmp/Support/FloatFormats.h"

#include "mlir/IR/BuiltinTypes.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mlir::dsmp::eval {

namespace formats = ::dsmp::formats;

namespace {
float roundF16(float x) { return formats::fromF16(formats::toF16(x)); }

#if defined(__x86_64__)
__attribute__((target("f16c"))) float roundF16C(float x) {
  return _cvtsh_ss(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}

__attribute__((target("avx,f16c"))) void roundF16CInPlace(float *v, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i half =
        _mm256_cvtps_ph(_mm256_loadu_ps(v + i), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_ps(v + i, _mm256_cvtph_ps(half));
  }
  for (; i < n; ++i)
    v[i] = roundF16C(v[i]);
}

bool hasF16C() { return formats::detail::hasF16C(); }
#else
bool hasF16C() { return false; }
#endif
float roundBF16(float x) { return formats::fromBF16(formats::toBF16(x)); }
float roundTF32(float x) { return formats::roundToTF32(x); }
template <const formats::SmallFloat &F, bool Saturate> float roundF8(float x) {
  return formats::decode(F, formats::encode(F, x, Saturate));
}
} // namespace

Rounding roundingFor(Type element, bool saturate) {
  if (isa<Float16Type>(element)) {
#if defined(__x86_64__)
    if (hasF16C())
      return roundF16C;
#endif
    return roundF16;
  }
  if (isa<BFloat16Type>(element))
    return roundBF16;
  if (isa<Float8E4M3FNType>(element))
    return saturate ? roundF8<formats::kF8E4M3FN, true>
                    : roundF8<formats::kF8E4M3FN, false>;
  if (isa<Float8E5M2Type>(element))
    return saturate ? roundF8<formats::kF8E5M2, true>
                    : roundF8<formats::kF8E5M2, false>;
  if (isa<Float8E4M3FNUZType>(element))
    return saturate ? roundF8<formats::kF8E4M3FNUZ, true>
                    : roundF8<formats::kF8E4M3FNUZ, false>;
  if (isa<Float8E5M2FNUZType>(element))
    return saturate ? roundF8<formats::kF8E5M2FNUZ, true>
                    : roundF8<formats::kF8E5M2FNUZ, false>;
  return nullptr;
}

Rounding castRoundingFor(Type element, bool saturate) {
  return isa<FloatTF32Type>(element) ? roundTF32
                                     : roundingFor(element, saturate);
}

bool isHeldInF32(Type element) {
  return element.isF32() || isa<FloatTF32Type>(element) ||
         roundingFor(element) != nullptr;
}

void roundInPlace(Rounding rounding, std::vector<float> &values) {
  if (!rounding)
    return;
#if defined(__x86_64__)
  if (rounding == roundF16C) {
    roundF16CInPlace(values.data(), values.size());
    return;
  }
#endif
  for (float &v : values)
    v = rounding(v);
}

} // namespace mlir::dsmp::eval
