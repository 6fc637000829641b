//===- Training.h - Compile a model's training step ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `dsmp-compile MODEL.onnx --train -o ART` and the trainers' compile: the
// model's float initializers become FP32 master weights in state buffers,
// passes/Training builds train_step, eval_step and predict, the formats are
// assigned as autocast would (dsmp-assign-precision{policy-only}) from the
// precision config, and each graph becomes an ordinary artifact inside ART
// beside training.txt and state.bin (include/dsmp/runtime/TrainingManifest.h).
// The folder appears whole or not at all.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_TRAINING_H
#define DSMP_DRIVER_TRAINING_H

#include "dsmp/Driver/Artifact.h"

#include <string>
#include <vector>

namespace mlir::dsmp {

struct TrainingCompileOptions {
  /// The host the code runs on, and `force` (variants and batch sizes are
  /// ignored: the step is compiled for `batch`).
  CompileOptions artifact;
  /// cross_entropy or mse.
  std::string loss = "cross_entropy";
  /// adam, adamw, sgd; `momentum` for sgd.
  std::string optimizer = "adam";
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  /// Adam, SGD: L2 on the gradient; AdamW: decoupled (default 0.01 there).
  double weightDecay = -1; // -1: the optimizer's default
  double momentum = 0;
  double learningRate = 1e-3; // the trainers' default; a step input
  /// Regex over initializer names; empty: every float initializer.
  std::string trainable;
  int64_t batch = 32;
  /// Other dynamic input dims (a sequence length): NAME -> shape.
  InputShapes shapes;
  /// Precision config: fp32, tf32, fp16 or bf16 for the forward and
  /// backward ops the policy lets through.
  std::string defaultFormat = "fp32";
  /// Node names or regexes (each matching whole names) kept in f32; one
  /// that matches no node gets a warning that names it.
  std::vector<std::string> sensitiveLayers;
  /// f32 or bf16 for the optimizer's state.
  std::string optimizerPrecision = "f32";
  /// The target whose format table applies (sm_80, gfx90a, aarch64, ...;
  /// `artifact.target` says which CPU runs the code).
  std::string target = "sm_80";
  /// train_step also returns each weight's unscaled gradient (NAME:grad).
  bool emitGradients = false;
  /// train_step takes `gradient_fault` (one f32 per weight, added to its
  /// gradient before the unscaling scan): fault-injection tests of the
  /// loss scaler.
  bool faultInjection = false;
  /// Also compile train_step_monitor (train_step returning grad_stats), the
  /// runtime's gradient monitor's sampled steps.
  bool monitor = false;
  /// Each graph carries an FP32 variant of every layer, chosen at run time
  /// (the runtime's per-layer fallback; LayerFallback.h); implies
  /// `monitor` (its twin returns layer_stats). Needs a 16-bit or tf32
  /// default format.
  bool fallback = false;
  /// Also write train_step's graph with its formats (dsmp IR) here.
  std::string emitTrainStep;
  /// Receives warnings (a sensitive-layer pattern that matches nothing,
  /// weights no gradient reaches).
  std::vector<std::string> *warnings = nullptr;
};

/// Compiles `modelPath` (.onnx) into a training artifact at `outputDir`.
llvm::Error compileTrainingArtifact(llvm::StringRef modelPath,
                                    llvm::StringRef outputDir,
                                    const TrainingCompileOptions &options,
                                    MLIRContext &context);

} // namespace mlir::dsmp

#endif // DSMP_DRIVER_TRAINING_H
