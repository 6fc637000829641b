//===- TrainStep.h - A model's training step as dsmp graphs ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A training artifact runs three graphs built from one inference model:
//
//   train_step: forward, loss, reverse-mode autodiff through VJPOpInterface
//               (Adjoint.h), unscaling, the optimizer update;
//   eval_step:  forward and the per-sample loss;
//   predict:    forward.
//
// The trainable weights are the model's float initializers, lifted to graph
// inputs so that they live in state buffers the runtime owns; so do the
// optimizer's moments. Each graph returns the new state as outputs named
// NAME:next, which the runtime swaps in (double buffering).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_TRAINING_TRAINSTEP_H
#define DSMP_PASSES_TRAINING_TRAINSTEP_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::dsmp {

/// Suffix of a graph output that replaces state tensor NAME after a step.
inline constexpr llvm::StringLiteral kNextStateSuffix = ":next";
/// Suffix of the gradient outputs (TrainStepOptions::exposeGradients).
inline constexpr llvm::StringLiteral kGradientSuffix = ":grad";

/// The weights lifted out of a model's constants.
struct LiftedWeights {
  /// Names (the ONNX initializers'), in argument order after the inputs.
  std::vector<std::string> names;
  /// Their values at compile time (f32, row-major).
  std::vector<std::vector<float>> values;
  /// The model's own inputs (before the weights).
  unsigned numInputs = 0;
};

/// Turns the f32 constants of @main_graph with at least two elements whose
/// names (their NameLoc: the ONNX initializer's) match `trainable` (a regex;
/// empty: every one) into trailing arguments named after them. Needs the
/// constants' values in memory (dsmp-load-weights). Fails when the regex is
/// invalid or nothing matches.
llvm::Expected<LiftedWeights> liftTrainableWeights(ModuleOp model,
                                                   llvm::StringRef trainable);

struct TrainStepOptions {
  /// cross_entropy (logits over the last axis, int64 class labels; a
  /// trailing Softmax/LogSoftmax is folded into the loss) or mse.
  std::string loss = "cross_entropy";
  /// adam, adamw or sgd (with `momentum`).
  std::string optimizer = "adam";
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  /// Adam and SGD: L2 added to the gradient; AdamW: decoupled decay.
  double weightDecay = 0;
  double momentum = 0;
  /// Element type of the optimizer's state: f32 or bf16 (the update itself
  /// always computes in f32).
  std::string optimizerPrecision = "f32";
  /// Also return each weight's unscaled gradient as NAME:grad (f32): what
  /// the gradient checks compare with torch's autograd.
  bool exposeGradients = false;
  /// For fault-injection tests: an input `gradient_fault` (f32, one per
  /// weight) added to each weight's gradient before the finiteness check.
  bool faultInjection = false;
  /// Also build train_step's monitored twin (TrainingModules::
  /// trainStepMonitor), which returns `grad_stats` too.
  bool monitor = false;
  /// train_step returns `grad_stats` [weights, 4]: per weight, the largest
  /// |unscaled gradient|, the fraction of its (scaled) values that are zero
  /// in the format it was computed in, and its inf and NaN counts.
  bool gradientStats = false;
  /// Carry an FP32 variant of every layer beside the configured one,
  /// chosen per step by the input `layer_fallback` (LayerFallback.h), in
  /// all three graphs; the monitored twin also returns `layer_stats`.
  bool fallback = false;
  /// The step's 16-bit format (f16, bf16): what the layer stats count as
  /// underflow.
  std::string fallbackFormat = "f16";
  /// The sensitive layers (one regex over node names; empty: none): FP32
  /// already, so no variant.
  std::string sensitiveLayers;
};

/// One tensor of the training state, in the order the graphs take them.
struct StateTensor {
  std::string name;   // "f.8.weight", "f.8.weight.adam_m"
  std::string role;   // weight, adam_m, adam_v, momentum
  std::string weight; // the weight it belongs to
  std::vector<int64_t> shape;
  std::string dtype; // f32 or bf16
  /// How a fresh initialization draws a weight, as torch's layers do:
  /// uniform (+-1/sqrt(fanIn)), normal (N(0, 1): embeddings), ones, zeros
  /// (normalization scales and shifts), or keep (the model's values).
  std::string init = "keep";
  int64_t fanIn = 0;
};

struct TrainingModules {
  OwningOpRef<ModuleOp> trainStep, evalStep, predict;
  /// With TrainStepOptions::monitor: train_step that also returns
  /// grad_stats (run every N steps by the runtime's monitor).
  OwningOpRef<ModuleOp> trainStepMonitor;
  std::vector<StateTensor> state;
  /// The label input of train_step and eval_step: its dtype (i64 or f32) and
  /// shape.
  std::string labelsDtype;
  std::vector<int64_t> labelsShape;
  /// Weights no gradient reaches (they stay as they are), by name.
  std::vector<std::string> frozen;
  /// With TrainStepOptions::fallback: the layers that may fall back to
  /// FP32, in forward order (element k of `layer_fallback`).
  std::vector<std::string> layers;
};

/// The graph input and output names the three graphs use besides the
/// model's and the state's.
namespace train_names {
inline constexpr llvm::StringLiteral kLabels = "labels";
inline constexpr llvm::StringLiteral kLossScale = "loss_scale";
inline constexpr llvm::StringLiteral kLearningRate = "learning_rate";
inline constexpr llvm::StringLiteral kStep = "step";
inline constexpr llvm::StringLiteral kLoss = "loss";
inline constexpr llvm::StringLiteral kGradNorm = "grad_norm";
inline constexpr llvm::StringLiteral kGradStats = "grad_stats";
inline constexpr llvm::StringLiteral kSampleLoss = "sample_loss";
} // namespace train_names

/// Builds the three graphs from a model whose weights were lifted
/// (liftTrainableWeights) and whose shapes are static. Loss and optimizer
/// ops carry dsmp.training_f32, and so do the adds that sum a gradient over a
/// value's users; the formats are assigned afterwards (dsmp-assign-precision
/// with policy-only). Fails, naming the node, where an op between a
/// trainable weight and the loss has no gradient model.
llvm::Expected<TrainingModules>
buildTrainingModules(ModuleOp lifted, const LiftedWeights &weights,
                     const TrainStepOptions &options);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_TRAINING_TRAINSTEP_H
