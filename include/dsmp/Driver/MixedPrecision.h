//===- MixedPrecision.h - Choose formats, validate, report ---- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What `dsmp-compile --tolerance` does around the precision pipeline: the
// analyses once, then assignment and a validation run on held-out inputs
// against the FP32 model, raising the precision of the largest predicted
// contributors while the measured error exceeds the budget (a bounded
// number of times), then the report.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_MIXEDPRECISION_H
#define DSMP_DRIVER_MIXEDPRECISION_H

#include "dsmp/Driver/Artifact.h"
#include "dsmp/Driver/PrecisionOptions.h"
#include "dsmp/Driver/Progress.h"
#include "dsmp/runtime/TensorFile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <string>

namespace mlir::dsmp {

struct AutoMixedPrecisionPipelineOptions;

/// The precision flow's options and where it runs.
struct MixedPrecisionOptions : ::dsmp::PrecisionOptions {
  /// Folder a .mlir model's weight file is relative to.
  std::string weightsDir = ".";
  /// Where the phases' times go (--mlir-timing); none when null.
  TimingScope *timing = nullptr;
  /// Where the phases are announced (stderr progress lines); none when null.
  Progress *progress = nullptr;
};

/// The dsmp-auto-mixed-precision pipeline's options for `options`: the one
/// place the flow's options become the pipeline's.
llvm::Expected<std::unique_ptr<AutoMixedPrecisionPipelineOptions>>
precisionPipelineOptions(const MixedPrecisionOptions &options);

struct MixedPrecisionResult {
  OwningOpRef<ModuleOp> module;
  llvm::json::Object report;
  /// Whether the final model met the budget on the validation inputs.
  bool met = false;
  /// The passes that made `module` from the FP32 model (the analyses and
  /// the final round's assignment), as textual pipeline elements.
  std::string pipeline;
  /// Under rel-l2, each output's floor the budget was measured with.
  std::vector<double> errorFloors;
  /// The FP32 model's outputs on each validation input set: what the rounds
  /// (and compileWithPrecision's run of the artifact) are measured against.
  std::vector<std::vector<::dsmp::runtime::HostTensor>> reference;
};

/// Runs the precision flow on `fp32` (its weights in memory). The source
/// module is not changed.
llvm::Expected<MixedPrecisionResult>
runMixedPrecision(ModuleOp fp32, const MixedPrecisionOptions &options);

/// What dsmp-compile --tolerance and the Python API do with a model file:
/// load it (weights in memory; a .mlir model's weights are found beside
/// it), run the flow, write the report to `reportPath` if it is not empty,
/// and compile the chosen formats into the artifact folder `outputDir` for
/// `compile.target` (one variant per `compile.variants` entry; the
/// calibration inputs' shapes when there are none). The report's summary
/// records each variant's whole pipeline (`pipeline`).
llvm::Expected<MixedPrecisionResult>
compileWithPrecision(llvm::StringRef modelPath, llvm::StringRef outputDir,
                     MixedPrecisionOptions options, CompileOptions compile,
                     llvm::StringRef reportPath, MLIRContext &context);

/// Writes the report as JSON to `path`, and as a self-contained HTML page
/// beside it (.html; lib/Driver/ReportPage.h). `-` writes the JSON alone
/// to stdout.
llvm::Error writePrecisionReport(const llvm::json::Object &report,
                                 llvm::StringRef path);

} // namespace mlir::dsmp

#endif // DSMP_DRIVER_MIXEDPRECISION_H
