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

#include "dsmp/Execution/Compile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include "mlir/Support/Timing.h"

#include <string>
#include <vector>

namespace mlir::dsmp {

struct MixedPrecisionOptions {
  /// A target of the format table (sm_80, sm_90, gfx90a, aarch64, ...).
  std::string target = "sm_80";
  /// Target features that add formats ("+bf16" on aarch64, ...).
  std::vector<std::string> features;
  /// Budget on each output's error against FP32, in `metric`.
  double tolerance = 1e-2;
  /// "rel-l2": |y' - y| / |y| per output; "max-abs": max |y'_i - y_i| over
  /// every output element (the prediction is then the absolute L2 error,
  /// an upper bound, and validation measures the real maximum).
  std::string metric = "rel-l2";
  /// Also require every sample's arg-max (top-1 class) to stay the same.
  bool keepTop1 = false;
  std::string calibration;
  /// Held-out inputs for validation; the calibration folder when empty.
  std::string validation;
  std::string defaultFormat = "auto";
  std::vector<std::string> denyOps, allowOps;
  std::string sensitiveLayers;
  double margin = 0.5;
  /// Validation rounds after the first.
  int maxRetries = 4;
  /// Random seed vectors of the sensitivity adjoint (one backward each).
  unsigned sensitivitySeeds = 1;
  /// Folder a .mlir model's weight file is relative to.
  std::string weightsDir = ".";
  /// Where the phases' times go (--mlir-timing); none when null.
  TimingScope *timing = nullptr;
};

struct MixedPrecisionResult {
  OwningOpRef<ModuleOp> module;
  llvm::json::Object report;
  /// Whether the final model met the budget on the validation inputs.
  bool met = false;
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
/// calibration inputs' shapes when there are none).
llvm::Expected<MixedPrecisionResult>
compileWithPrecision(llvm::StringRef modelPath, llvm::StringRef outputDir,
                     MixedPrecisionOptions options, CompileOptions compile,
                     llvm::StringRef reportPath, MLIRContext &context);

/// Writes the report as JSON to `path`, and as a self-contained HTML page
/// (per-op sensitivity, the format map, the budget) beside it (.html).
llvm::Error writePrecisionReport(const llvm::json::Object &report,
                                 llvm::StringRef path);

} // namespace mlir::dsmp

#endif // DSMP_DRIVER_MIXEDPRECISION_H
