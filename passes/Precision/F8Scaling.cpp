//===- F8Scaling.cpp - Per-tensor scales of f8 operands ------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/F8Scaling.h"

#include "passes/Precision/Formats.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::dsmp;

bool mlir::dsmp::isF8(Format format) {
  return format == Format::f8E4M3FN || format == Format::f8E5M2 ||
         format == Format::f8E4M3FNUZ || format == Format::f8E5M2FNUZ;
}

bool mlir::dsmp::constantFloats(ConstantOp op, SmallVectorImpl<float> &values) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
    return false;
  Attribute value = op.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat()) {
      values.assign(type.getNumElements(), dense.getSplatValue<float>());
    } else {
      ArrayRef<char> raw = dense.getRawData(); // little-endian floats
      values.resize(type.getNumElements());
      std::memcpy(values.data(), raw.data(), values.size() * sizeof(float));
    }
    return true;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return false;
  ArrayRef<char> bytes = blob->getData();
  if (bytes.size() != type.getNumElements() * sizeof(float))
    return false;
  values.resize(type.getNumElements());
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return true;
}

double F8Operand::scale(Format format) const {
  return amax > 0 ? amax / largestValue(format) : 1.0;
}

std::optional<F8Operand> mlir::dsmp::measureF8Operand(Value operand,
                                                      Format format) {
  // A widening cast (an f16 producer's result cast back to f32, inserted
  // before this op's turn) holds its input's values: measure the producer.
  while (auto cast = operand.getDefiningOp<CastOp>())
    operand = cast.getInput();
  Operation *def = operand.getDefiningOp();
  // Scaled by amax / largest, a value is below the format's normals when
  // it is below amax * ratio.
  double ratio = smallestNormal(format) / largestValue(format);
  F8Operand result;
  if (auto constant = dyn_cast_or_null<ConstantOp>(def)) {
    SmallVector<float> values;
    if (!constantFloats(constant, values))
      return std::nullopt;
    for (float v : values)
      result.amax = std::max(result.amax, double(std::fabs(v)));
    int64_t nonzero = 0, below = 0;
    for (float v : values) {
      double a = std::fabs(v);
      nonzero += a > 0;
      below += a > 0 && a < result.amax * ratio;
    }
    result.underflowFraction = nonzero ? double(below) / nonzero : 0.0;
    return result;
  }
  DictionaryAttr range = rangeOf(operand); // a producer's or a graph input's
  auto amax = range ? range.getAs<FloatAttr>("amax") : nullptr;
  auto hist = range ? range.getAs<DenseI64ArrayAttr>("hist") : nullptr;
  if (!amax)
    return std::nullopt;
  result.amax = amax.getValueAsDouble();
  if (!hist) // a range without a histogram: nothing known to underflow
    return result;
  // A bin lies below the threshold when its upper edge does.
  ArrayRef<int64_t> bins = hist.asArrayRef();
  int64_t nonzero = 0, below = 0;
  double threshold = result.amax * ratio;
  for (auto [i, count] : llvm::enumerate(bins)) {
    nonzero += count;
    if (i + 1 < bins.size() &&
        std::ldexp(1.0, int(i) + kRangeHistLowestExponent + 1) <= threshold)
      below += count;
  }
  result.underflowFraction = nonzero ? double(below) / nonzero : 0.0;
  return result;
}
