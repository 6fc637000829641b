//===- Quantization.cpp - Evaluator kernels ---------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX QuantizeLinear and DequantizeLinear, per tensor or per axis (scale
// and zero point scalars or 1-D along `axis`). Integer results round half
// to even and saturate to the type; f8 results are x / scale + zero point,
// which the evaluator then rounds to the f8 type (saturating as the op's
// `saturate` says). These are the Q/DQ pairs the precision passes put
// around an f8 contraction's operands.
//
//===----------------------------------------------------------------------===//

#include "Array.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using llvm::ArrayRef;
using llvm::Error;
using llvm::MutableArrayRef;

namespace mlir::dsmp::eval {
namespace {

/// Where element k of `x` finds its scale and zero point: 0 for per-tensor
/// parameters, its coordinate along the axis otherwise.
struct ParameterIndex {
  int64_t stride = 0, dim = 1;
  int64_t operator()(int64_t k) const {
    return stride ? (k / stride) % dim : 0;
  }
};

llvm::Expected<ParameterIndex> parameterIndex(Operation *op, const Array &x,
                                              const Array &scale) {
  if (intAttr(op, "block_size", 0) != 0)
    return unsupported(op, "blocked quantization");
  if (scale.size() == 1)
    return ParameterIndex{};
  if (scale.rank() != 1)
    return unsupported(op, "a scale that is neither a scalar nor 1-D");
  int64_t axis = normalizeAxis(intAttr(op, "axis", 1), x.rank());
  if (axis < 0 || axis >= x.rank() || x.shape[axis] != scale.size())
    return unsupported(op, "the scale does not match the axis");
  return ParameterIndex{stridesOf(x.shape)[axis], x.shape[axis]};
}

Error evalQuantizeLinear(Operation *op, ArrayRef<const Array *> in,
                         MutableArrayRef<Array> out) {
  const Array &x = *in[0], &scale = *in[1];
  const Array *zero = in.size() > 2 ? in[2] : nullptr;
  Array &y = out[0];
  auto index = parameterIndex(op, x, scale);
  if (!index)
    return index.takeError();
  auto zeroAt = [&](int64_t p) { return zero ? zero->at(p) : 0.0; };
  if (y.isFloat) { // f8: rounded to the type after the kernel
    for (int64_t k = 0; k < x.size(); ++k) {
      int64_t p = (*index)(k);
      y.f[k] = x.f[k] / scale.f[p] + float(zeroAt(p));
    }
    return Error::success();
  }
  auto element =
      dyn_cast<IntegerType>(getElementTypeOrSelf(op->getResult(0).getType()));
  if (!element || element.getWidth() > 32)
    return unsupported(op, "a result that is not a float or small integer");
  unsigned bits = element.getWidth();
  double lo = element.isUnsigned() ? 0 : -std::ldexp(1.0, bits - 1);
  double hi = element.isUnsigned() ? std::ldexp(1.0, bits) - 1
                                   : std::ldexp(1.0, bits - 1) - 1;
  for (int64_t k = 0; k < x.size(); ++k) {
    int64_t p = (*index)(k);
    // x / scale in f32, as ONNX's reference; rint rounds half to even.
    double q = std::nearbyint(double(x.f[k] / scale.f[p])) + zeroAt(p);
    y.i[k] = int64_t(std::clamp(q, lo, hi));
  }
  return Error::success();
}

Error evalDequantizeLinear(Operation *op, ArrayRef<const Array *> in,
                           MutableArrayRef<Array> out) {
  const Array &x = *in[0], &scale = *in[1];
  const Array *zero = in.size() > 2 ? in[2] : nullptr;
  Array &y = out[0];
  auto index = parameterIndex(op, x, scale);
  if (!index)
    return index.takeError();
  for (int64_t k = 0; k < x.size(); ++k) {
    int64_t p = (*index)(k);
    float z = zero ? float(zero->at(p)) : 0.0f;
    // Integers subtract exactly before the product (int32 - zero point).
    float centred =
        x.isFloat ? x.f[k] - z : float(x.i[k] - (zero ? zero->i[p] : 0));
    y.f[k] = centred * scale.f[p];
  }
  return Error::success();
}
} // namespace

void addQuantizationKernels(KernelTable &table) {
  table["dsmp.quantize_linear"] = evalQuantizeLinear;
  table["dsmp.dequantize_linear"] = evalDequantizeLinear;
}

} // namespace mlir::dsmp::eval
