//===- ForwardEstimate.h - Gradients through ops without a VJP -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Where an op has no VJP model (CumSum, TopK, LRN, ...) or its model does
// not cover its attributes, the adjoint would stop there and every op
// upstream would go unmeasured. Instead the rounding noise is propagated
// forward through the op: it is evaluated once more on each float input
// rounded to f16's unit roundoff u with random signs r (a (1 + u r)), and
// how far its results move, |dY_j|, sets the size of a random-sign gradient
// for that input. For a relative noise of variance s^2 on a, the outputs'
// error variance is about s^2 sum_j |dY_j|^2 |g_j|^2 / (u^2 n_j) (dY_j
// spread over Y_j's n_j elements, g_j the gradient at Y_j), which the
// gradient c r reproduces (sum (c r a)^2 = c^2 |a|^2) for
//   c^2 = sum_j |dY_j|^2 |g_j|^2 / (n_j u^2 |a|^2).
// One extra evaluation of the op per float input; the adjoint then
// continues upstream as from any VJP.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_FORWARDESTIMATE_H
#define DSMP_PASSES_PRECISION_FORWARDESTIMATE_H

#include "mlir/IR/Builders.h"

namespace mlir::dsmp {

/// Appends to `grads` the estimated gradient of each float operand of `op`
/// (static f32 tensors; constants get none) from `resultGrads` (one per
/// result, null where none flows). Fails for ops with regions and where no
/// operand or no result qualifies.
LogicalResult
forwardEstimateVJP(OpBuilder &builder, Operation *op, ValueRange resultGrads,
                   SmallVectorImpl<std::pair<Value, Value>> &grads);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_FORWARDESTIMATE_H
