//===- Adjoint.h - Reverse-mode differentiation --------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_ADJOINT_H
#define DSMP_PASSES_PRECISION_ADJOINT_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::dsmp {

struct Adjoint {
  /// The total gradient of each value the seeds reach.
  llvm::DenseMap<Value, Value> grads;
  /// Each op's own contribution to its operands' gradients (its VJP
  /// output), before they are summed over the operand's users; absent for
  /// operands no gradient is needed for (graph inputs, constants and data
  /// moved from them), except a matmul's or conv's activation operand 0,
  /// whose rounding the precision cost counts (not propagated further).
  llvm::DenseMap<Operation *, SmallVector<std::pair<Value, Value>>>
      operandGrads;
  /// Ops with gradients at their results and no VJP (or one that failed)
  /// through which the gradient was estimated forward (ForwardEstimate.h).
  SmallVector<Operation *> estimatedAt;
  /// Ops with gradients at their results where neither a VJP nor the
  /// forward estimate holds (an op with regions): the gradient stops there.
  SmallVector<Operation *> stoppedAt;
  /// The forward op each op of the reverse pass was built for (its VJP and
  /// the sums of the gradients it produced).
  llvm::DenseMap<Operation *, Operation *> origin;
};

/// Marks the adds that sum a value's gradient over its users (the
/// training step keeps them in f32).
inline constexpr llvm::StringLiteral kGradientSumAttr = "dsmp.gradient_sum";
/// Marks a training step's ops that stay f32 whatever the config says (the
/// loss, the sums of gradients, the unscaling and the optimizer):
/// dsmp-assign-precision gives them reason `training`.
inline constexpr llvm::StringLiteral kTrainingF32Attr = "dsmp.training_f32";
/// Marks the ops of a layer's FP32 variant in a training step
/// (LayerFallback.h): dsmp-assign-precision keeps them f32, reason
/// `fallback`.
inline constexpr llvm::StringLiteral kFallbackF32Attr = "dsmp.fallback_f32";

/// Builds, at `builder`'s insertion point, the reverse pass over `ops` (in
/// program order, all before the insertion point) for the scalar
/// sum_i <seed_i, value_i>, through VJPOpInterface. Gradients reach the
/// results of compute ops and what depends on them, and `alsoFor` (graph
/// inputs, say) and what depends on those.
Adjoint buildAdjoint(OpBuilder &builder, ArrayRef<Operation *> ops,
                     ArrayRef<std::pair<Value, Value>> seeds,
                     ValueRange alsoFor = {});

/// Whether the cost of `op` in a low format includes rounding its first
/// operand, whose gradient the adjoint therefore keeps (its operand_energy):
/// a contraction's activation, or a graph input (or data moved from one)
/// that a compute op reads (a BatchNormalization of raw features near 1e5:
/// its output's energy misses that x - mean cancels the input's leading
/// digits).
bool keepsOperandGradient(Operation *op);

/// The gradient of the seeds' scalar with respect to a contraction's
/// constant factor (MatMul's or Gemm's B, Conv's weights), given the
/// gradient at its result: the adjoint proper stops at constants. Built at
/// `builder`'s insertion point; null for a shape it does not handle
/// (ConvTranspose, a batched constant, auto_pad).
Value weightGradient(OpBuilder &builder, Operation *op, Value resultGrad);

/// The constant bias a contraction adds (Gemm's C, Conv's B) and its
/// gradient, given the gradient at the result; {} when the op has no
/// constant f32 bias. Rounding the bias is part of the weights' cost: where
/// the product is small beside it (an untrained network's logits are its
/// bias), it is most of the error.
std::pair<Value, Value> biasGradient(OpBuilder &builder, Operation *op,
                                     Value resultGrad);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_ADJOINT_H
