//===- ForwardEstimate.cpp - Gradients through ops without a VJP ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/ForwardEstimate.h"
#include "passes/Precision/Formats.h"

#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "mlir/IR/IRMapping.h"

#include <random>

using namespace mlir;
using namespace mlir::dsmp;

namespace {
/// f16's unit roundoff: the rounding whose effect is estimated (a smaller
/// noise would drown in f32's own rounding of the op's results).
constexpr double kNoise = 0x1p-11;

bool isConstant(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->hasTrait<mlir::OpTrait::ConstantLike>();
}
} // namespace

LogicalResult mlir::dsmp::forwardEstimateVJP(
    OpBuilder &builder, Operation *op, ValueRange resultGrads,
    SmallVectorImpl<std::pair<Value, Value>> &grads) {
  if (op->getNumRegions() > 0)
    return failure();
  GraphBuilder g(builder, op->getLoc());
  Type f32 = builder.getF32Type();
  // The same signs for every run, so that a compile replays.
  std::mt19937 rng(0xe571);
  bool any = false;
  for (auto [index, a] : llvm::enumerate(op->getOperands())) {
    if (!isF32Tensor(a.getType(), /*requireStaticShape=*/true) || isConstant(a))
      continue;
    auto type = cast<RankedTensorType>(a.getType());
    std::vector<float> signs(type.getNumElements()), scaled(signs.size());
    for (size_t i = 0; i < signs.size(); ++i) {
      signs[i] = (rng() & 1) ? 1.0f : -1.0f;
      scaled[i] = static_cast<float>(1.0 + kNoise * signs[i]);
    }
    IRMapping rounded;
    rounded.map(a, g.mul(a, g.floats(type, scaled)));
    Operation *again = builder.clone(*op, rounded);
    // sum_j |dY_j|^2 |g_j|^2 / n_j
    Value spread;
    for (auto [j, grad] : llvm::enumerate(resultGrads)) {
      Value y = op->getResult(j);
      if (!grad || !isF32Tensor(y.getType(), /*requireStaticShape=*/true))
        continue;
      // Where y is infinite (a -inf mask), so is its rounded run: the
      // difference there is NaN, and such a value rounds to itself.
      Value dy = g.finiteOrZero(g.sub(again->getResult(j), y));
      int64_t n = cast<RankedTensorType>(y.getType()).getNumElements();
      Value term = g.mul(
          g.mul(g.reduceAll("dsmp.reduce_sum", g.mul(dy, dy)),
                g.reduceAll("dsmp.reduce_sum", g.mul(grad, grad))),
          g.scalar(1.0 / static_cast<double>(std::max<int64_t>(n, 1)), f32));
      spread = spread ? g.add(spread, term) : term;
    }
    if (!spread)
      return failure();
    Value finite = g.finiteOrZero(a);
    Value norm = g.add(g.reduceAll("dsmp.reduce_sum", g.mul(finite, finite)),
                       g.scalar(1e-30, f32));
    Value c =
        g.value("dsmp.sqrt",
                {g.div(spread, g.mul(norm, g.scalar(kNoise * kNoise, f32)))});
    grads.push_back({a, g.mul(g.floats(type, signs), c)});
    any = true;
  }
  return success(any);
}
