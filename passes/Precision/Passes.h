//===- Passes.h - dsmp precision passes and pipeline ---------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_PASSES_H
#define DSMP_PASSES_PRECISION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::dsmp {

#define GEN_PASS_DECL
#include "passes/Precision/Passes.h.inc"

struct AutoMixedPrecisionPipelineOptions
    : public PassPipelineOptions<AutoMixedPrecisionPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target", llvm::cl::desc("Target description name"),
      llvm::cl::init("sm_80")};
  PassOptions::ListOption<std::string> features{
      *this, "features",
      llvm::cl::desc("Target features that add formats (+bf16, +avx512bf16)")};
  PassOptions::Option<double> tolerance{
      *this, "tolerance",
      llvm::cl::desc("Budget on each output's error (see metric)"),
      llvm::cl::init(1e-2)};
  PassOptions::Option<double> margin{
      *this, "margin",
      llvm::cl::desc("Fraction of the budget the prediction may use"),
      llvm::cl::init(0.5)};
  PassOptions::Option<std::string> calibration{
      *this, "calibration", llvm::cl::desc("Folder of calibration inputs"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> calibrationEngine{
      *this, "calibration-engine",
      llvm::cl::desc("How the analyses run the graph: auto, evaluate, compile"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> weightsDir{
      *this, "weights-dir",
      llvm::cl::desc("Folder the module's weight file is relative to "
                     "(default: beside the IR file the module was parsed "
                     "from)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> defaultFormat{
      *this, "default-format",
      llvm::cl::desc("Preferred 16-bit format: auto, f16 or bf16"),
      llvm::cl::init("auto")};
  PassOptions::ListOption<std::string> denyOps{
      *this, "deny-ops", llvm::cl::desc("Extra op types that stay f32")};
  PassOptions::ListOption<std::string> allowOps{
      *this, "allow-ops",
      llvm::cl::desc("Op types removed from the default deny list")};
  PassOptions::Option<std::string> sensitiveLayers{
      *this, "sensitive-layers",
      llvm::cl::desc("Regex of node names that stay f32"), llvm::cl::init("")};
  PassOptions::Option<unsigned> sensitivitySeeds{
      *this, "sensitivity-seeds",
      llvm::cl::desc("Random vectors the adjoint is seeded with"),
      llvm::cl::init(1)};
  PassOptions::Option<std::string> metric{
      *this, "metric",
      llvm::cl::desc("What the budget bounds: rel-l2 (each output's relative "
                     "L2 error) or max-abs (each element's absolute error)"),
      llvm::cl::init("rel-l2")};
  PassOptions::Option<double> errorFloor{
      *this, "error-floor",
      llvm::cl::desc("rel-l2's absolute floor: |y' - y| / max(|y|, floor "
                     "sqrt(n)); 0: from each output's calibrated range"),
      llvm::cl::init(0)};
  PassOptions::ListOption<int64_t> keepF32Ops{
      *this, "keep-f32-ops",
      llvm::cl::desc("Graph op indices kept in f32 (validation rounds)")};
  PassOptions::ListOption<int64_t> noF8Ops{
      *this, "no-f8-ops",
      llvm::cl::desc("Graph op indices given no f8 format (validation "
                     "rounds)")};
  PassOptions::ListOption<int64_t> carrierOps{
      *this, "carrier-ops",
      llvm::cl::desc("Graph op indices kept in f32 because a bisection "
                     "found them carrying the measured error")};
};

/// Ranges and sensitivities on the calibration inputs, then assignment,
/// casts and cast minimisation: what `dsmp-compile --tolerance` runs.
void buildAutoMixedPrecisionPipeline(
    OpPassManager &pm, const AutoMixedPrecisionPipelineOptions &options);

/// The analysis half (weights, ranges, sensitivities) and the decision half
/// (assignment, casts, minimisation), so a driver can re-run only the
/// second with other options.
/// Loads the weights and measures ranges and sensitivities on the
/// calibration inputs (one forward and one adjoint run).
void buildPrecisionAnalysisPipeline(
    OpPassManager &pm, const AutoMixedPrecisionPipelineOptions &options);
/// Chooses each op's format under the budget (dsmp-assign-precision).
void addAssignPrecisionPass(OpPassManager &pm,
                            const AutoMixedPrecisionPipelineOptions &options);
/// Makes the chosen formats types and casts, and removes redundant casts.
void addCastPasses(OpPassManager &pm);
/// addAssignPrecisionPass, then addCastPasses.
void buildPrecisionAssignmentPipeline(
    OpPassManager &pm, const AutoMixedPrecisionPipelineOptions &options);

/// Registers the passes above and `dsmp-auto-mixed-precision`.
void registerPrecisionPasses();

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_PASSES_H
