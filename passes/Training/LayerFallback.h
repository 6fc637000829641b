//===- LayerFallback.h - Per-layer FP32 variants of a step -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A training step that carries two variants of each layer, chosen per step
// by the runtime: the configured format and FP32. A layer is a trainable
// weight's contraction (Conv, ConvTranspose, Gemm, MatMul) and the forward
// ops after it up to the next layer's contraction, with the reverse-pass ops
// built for them (Adjoint::origin). Each run of consecutive ops of one layer
// becomes
//
//   %r = dsmp.if %fallback_k {  clones marked dsmp.fallback_f32  }
//        else               {  the ops as they were              }
//
// on element k of the f32 input `layer_fallback` (1: FP32). The formats are
// assigned afterwards; the marked clones stay f32 (reason `fallback`). The
// master weights and the optimizer's state are outside the layers, so a
// switch keeps them.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_TRAINING_LAYERFALLBACK_H
#define DSMP_PASSES_TRAINING_LAYERFALLBACK_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir::dsmp {

namespace fallback_names {
/// f32 [layers]: 1 runs layer k's FP32 variant.
inline constexpr llvm::StringLiteral kLayerFallback = "layer_fallback";
/// f32 [layers], with fault injection: the 16-bit variant of layer k
/// multiplies its contraction's result by fault[k] and divides it again
/// (1 changes nothing; 65504 overflows f16 wherever |value| > 1).
inline constexpr llvm::StringLiteral kLayerFault = "layer_fault";
/// f32 [layers, 4], in the monitored step: per layer, the largest |value|
/// its forward runs yield, 1 when any of those is inf or NaN (else 0), the
/// same for the gradients its reverse runs yield, and the fraction of the
/// non-zero gradient values entering its first reverse run (its output's
/// gradient) that the layer's format rounds to zero.
inline constexpr llvm::StringLiteral kLayerStats = "layer_stats";
} // namespace fallback_names

struct LayerFallbackOptions {
  /// The 16-bit format of the step ("f16", "bf16"): what underflow means.
  std::string format = "f16";
  bool faultInjection = false;
  /// Return kLayerStats.
  bool layerStats = false;
};

struct FallbackLayers {
  /// Layer names (their contraction's ONNX node), in forward order.
  std::vector<std::string> names;
  /// With LayerFallbackOptions::layerStats: the stats to return.
  Value stats;
};

/// Tags the ops of each layer: `forward` (the forward pass, in program
/// order), the reverse-pass ops `origin` maps to them, given the trainable
/// `weights` (the lifted arguments). A contraction whose node name matches
/// `keptF32` (the sensitive layers' regex; empty: none) is FP32 already:
/// it and the ops after it up to the next layer get no variant. Returns
/// the layers' names. Tags are attributes, so erasing dead ops afterwards
/// is safe.
std::vector<std::string>
markFallbackLayers(llvm::ArrayRef<Operation *> forward,
                   const llvm::DenseMap<Operation *, Operation *> &origin,
                   llvm::ArrayRef<BlockArgument> weights,
                   llvm::StringRef keptF32 = "");

/// Wraps the tagged layers of `func` in their two variants, adding the
/// inputs named above, and removes the tags.
FallbackLayers addFallbackVariants(func::FuncOp func,
                                   llvm::ArrayRef<std::string> layerNames,
                                   const LayerFallbackOptions &options);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_TRAINING_LAYERFALLBACK_H
