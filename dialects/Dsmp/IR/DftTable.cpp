//===- DftTable.cpp - A DFT as a product by a table ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DftTable.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::dsmp;

std::vector<float> mlir::dsmp::buildDftTable(int64_t length, int64_t parts,
                                             bool inverse, bool onesided) {
  int64_t bins = dftBins(length, onesided);
  double sign = inverse ? -1.0 : 1.0;
  double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
  std::vector<float> table(static_cast<size_t>(length * parts * bins * 2));
  for (int64_t n = 0; n < length; ++n)
    for (int64_t k = 0; k < bins; ++k) {
      // k n reduced mod length first, so that long transforms keep their
      // accuracy.
      double angle = 2.0 * llvm::numbers::pi *
                     static_cast<double>((k * n) % length) /
                     static_cast<double>(length);
      double c = std::cos(angle) * scale;
      double s = std::sin(angle) * scale * sign;
      // (xr + i xi)(cos -+ i sin): real part xr cos +- xi sin, imaginary
      // part xi cos -+ xr sin.
      size_t row = static_cast<size_t>(n * parts * bins * 2);
      size_t column = static_cast<size_t>(k * 2);
      table[row + column] = static_cast<float>(c);
      table[row + column + 1] = static_cast<float>(-s);
      if (parts == 2) {
        row += static_cast<size_t>(bins * 2);
        table[row + column] = static_cast<float>(s);
        table[row + column + 1] = static_cast<float>(c);
      }
    }
  return table;
}

std::vector<float> mlir::dsmp::buildInverseRealDftTable(int64_t length,
                                                        int64_t parts) {
  int64_t bins = dftBins(length, /*onesided=*/true);
  std::vector<float> table(static_cast<size_t>(bins * parts * length));
  for (int64_t k = 0; k < bins; ++k) {
    // Bins other than 0 and Nyquist stand for their conjugates too.
    bool single = k == 0 || 2 * k == length;
    double weight = (single ? 1.0 : 2.0) / static_cast<double>(length);
    for (int64_t n = 0; n < length; ++n) {
      double angle = 2.0 * llvm::numbers::pi *
                     static_cast<double>((k * n) % length) /
                     static_cast<double>(length);
      // Re(X e^{i angle}) = Re X cos - Im X sin.
      size_t row = static_cast<size_t>(k * parts);
      table[row * length + n] = static_cast<float>(weight * std::cos(angle));
      if (parts == 2)
        table[(row + 1) * length + n] =
            single ? 0.0f : static_cast<float>(-weight * std::sin(angle));
    }
  }
  return table;
}

LogicalResult DftTableOp::verify() {
  int64_t parts = getParts();
  if (parts != 1 && parts != 2)
    return emitOpError("parts must be 1 (real) or 2 (complex), not ") << parts;
  if (getOnesided() && (getInverse() || parts != 1))
    return emitOpError("a onesided table needs a forward transform of a real "
                       "signal");
  auto length = cast<RankedTensorType>(getLength().getType());
  if (length.hasStaticShape() && length.getNumElements() != 1)
    return emitOpError("length must hold one value");
  if (auto table = dyn_cast<RankedTensorType>(getTable().getType());
      !table || table.getRank() != 2)
    return emitOpError("gives a ranked 2-D table");
  return success();
}

/// The constant `length` holds, where it is one within the bounds.
static std::optional<int64_t> knownLength(DftTableOp op) {
  DenseIntElementsAttr attr;
  if (!matchPattern(op.getLength(), m_Constant(&attr)) ||
      attr.getNumElements() != 1)
    return std::nullopt;
  int64_t length = (*attr.getValues<APInt>().begin()).getSExtValue();
  // Out of bounds: left for the lowering to refuse.
  if (!dftTableFits(length, op.getParts(), op.getOnesided()))
    return std::nullopt;
  return length;
}

RankedTensorType DftTableOp::knownType() {
  std::optional<int64_t> length = knownLength(*this);
  if (!length)
    return {};
  return RankedTensorType::get(
      {*length * static_cast<int64_t>(getParts()),
       dftBins(*length, getOnesided()) * 2},
      cast<RankedTensorType>(getTable().getType()).getElementType());
}

namespace {
/// The table as a constant once dsmp-refine-shapes has given it its static
/// type (so that every user sees the type it saw).
struct FoldKnownLength : OpRewritePattern<DftTableOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DftTableOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.knownType();
    if (!type || type != op.getTable().getType())
      return failure();
    auto element = cast<FloatType>(type.getElementType());
    SmallVector<APFloat> values;
    for (float v : buildDftTable(*knownLength(op), op.getParts(),
                                 op.getInverse(), op.getOnesided())) {
      APFloat f(v);
      bool lost;
      f.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(f);
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, type, DenseElementsAttr::get(type, values));
    return success();
  }
};
} // namespace

void DftTableOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<FoldKnownLength>(context);
}
