//===- Pipelines.cpp - dsmp-auto-mixed-precision -------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/Transforms/Passes.h"
#include "dsmp/Target/TargetDescription.h"
#include "passes/Precision/F8Scaling.h"
#include "passes/Precision/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::dsmp {
#define GEN_PASS_REGISTRATION
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// Whether the target offers an f8 format to any op class (sm_90, gfx942).
bool mayAssignF8(const AutoMixedPrecisionPipelineOptions &options) {
  SmallVector<std::string> features(options.features.begin(),
                                    options.features.end());
  auto target = getTargetDescription(options.target, features);
  if (!target) {
    // dsmp-assign-precision reports an unknown target.
    llvm::consumeError(target.takeError());
    return false;
  }
  for (const auto &[cls, formats] : target->formats)
    if (llvm::any_of(formats, isF8))
      return true;
  return false;
}

} // namespace

void mlir::dsmp::buildPrecisionAnalysisPipeline(
    OpPassManager &pm, const AutoMixedPrecisionPipelineOptions &options) {
  // The analyses read weight values, and calibration runs need them in memory.
  LoadWeightsPassOptions weights;
  weights.weightsDir = options.weightsDir;
  pm.addPass(createLoadWeightsPass(weights));
  // A model that computes in 16 bits itself is measured as its f32 lift.
  pm.addPass(createLiftSixteenBitPass());
  // Math on weights alone (weight standardisation) becomes the weight.
  pm.addPass(createFoldConstantMathPass());
  // A Loop whose trip count is known already (tf2onnx's Keras GRU over a
  // fixed sequence length) unrolls, so that each iteration's ops are
  // measured and assigned like any other; its body would stay f32, outside
  // the analysis.
  pm.addNestedPass<func::FuncOp>(createUnrollLoopsPass());
  // How much each op's rounding moves the outputs (one forward + adjoint
  // run), and where values lie, which decides the formats that can hold
  // them: dsmp-analyze-ranges' attributes from that run's forward half
  // (record-ranges; the same values as running that pass first, one
  // calibration run instead of two).
  AnalyzeSensitivityPassOptions sensitivity;
  sensitivity.calibration = options.calibration;
  sensitivity.engine = options.calibrationEngine;
  sensitivity.seeds = options.sensitivitySeeds;
  sensitivity.metric = options.metric;
  sensitivity.errorFloor = options.errorFloor;
  sensitivity.recordRanges = true;
  // An f8 format's per-tensor scale makes even a saturated 6 round.
  sensitivity.exactValues = !mayAssignF8(options);
  pm.addPass(createAnalyzeSensitivityPass(sensitivity));
}

void mlir::dsmp::addAssignPrecisionPass(
    OpPassManager &pm, const AutoMixedPrecisionPipelineOptions &options) {
  // Decide per op under the budget, from the analyses' attributes.
  AssignPrecisionPassOptions assign;
  assign.target = options.target;
  assign.features.assign(options.features.begin(), options.features.end());
  assign.tolerance = options.tolerance;
  assign.margin = options.margin;
  assign.defaultFormat = options.defaultFormat;
  assign.denyOps.assign(options.denyOps.begin(), options.denyOps.end());
  assign.allowOps.assign(options.allowOps.begin(), options.allowOps.end());
  assign.sensitiveLayers = options.sensitiveLayers;
  assign.keepF32Ops.assign(options.keepF32Ops.begin(),
                           options.keepF32Ops.end());
  assign.noF8Ops.assign(options.noF8Ops.begin(), options.noF8Ops.end());
  assign.carrierOps.assign(options.carrierOps.begin(),
                           options.carrierOps.end());
  pm.addPass(createAssignPrecisionPass(assign));
}

void mlir::dsmp::addCastPasses(OpPassManager &pm) {
  // Make the decisions types, then remove what they made redundant.
  pm.addNestedPass<func::FuncOp>(createInsertCastsPass());
  pm.addNestedPass<func::FuncOp>(createMinimizeCastsPass());
  // Identical casts that minimisation left in different places are shared.
  pm.addPass(createCSEPass());
}

void mlir::dsmp::buildPrecisionAssignmentPipeline(
    OpPassManager &pm, const AutoMixedPrecisionPipelineOptions &options) {
  addAssignPrecisionPass(pm, options);
  addCastPasses(pm);
}

void mlir::dsmp::buildAutoMixedPrecisionPipeline(
    OpPassManager &pm, const AutoMixedPrecisionPipelineOptions &options) {
  buildPrecisionAnalysisPipeline(pm, options);
  buildPrecisionAssignmentPipeline(pm, options);
}

void mlir::dsmp::registerPrecisionPasses() {
  registerDsmpPrecisionPasses();
  PassPipelineRegistration<AutoMixedPrecisionPipelineOptions>(
      "dsmp-auto-mixed-precision",
      "Calibrate, measure sensitivities, assign formats under a budget, "
      "insert and minimise casts",
      buildAutoMixedPrecisionPipeline);
}
