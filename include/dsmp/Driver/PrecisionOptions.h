//===- PrecisionOptions.h - Every option of the precision flow -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One plain struct (no MLIR or LLVM types, so the Python extension can hold
// it) for what dsmp-compile --tolerance and dsmp.compile(tolerance=...)
// take. The CLI and Python fill it; the driver turns it into the
// dsmp-auto-mixed-precision pipeline's options in one place
// (precisionPipelineOptions) and reads the rest itself.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_PRECISIONOPTIONS_H
#define DSMP_DRIVER_PRECISIONOPTIONS_H

#include <string>
#include <vector>

namespace dsmp {

struct PrecisionOptions {
  // The pipeline's (dsmp-auto-mixed-precision) options.
  /// A target of the format table (sm_80, sm_90, gfx90a, gfx942, aarch64,
  /// x86_64).
  std::string target = "sm_80";
  /// Target features that add formats ("+bf16" on aarch64, ...).
  std::vector<std::string> features;
  /// Budget on each output's error against FP32, in `metric`.
  double tolerance = 1e-2;
  /// "rel-l2": |y' - y| / |y| per output; "max-abs": max |y'_i - y_i| over
  /// every output element.
  std::string metric = "rel-l2";
  /// rel-l2's absolute floor: |y' - y| / max(|y|, floor * sqrt(n)), so an
  /// output (near) zero in FP32 is judged by its absolute RMS error. 0: per
  /// output, 1e-3 of its largest magnitude on the calibration data, at least
  /// 2^-14 (passes/Precision/ErrorFloor.h).
  double errorFloor = 0;
  /// Calibration inputs: a folder of input_*.pb or of test_data_set_*.
  std::string calibration;
  /// Preferred 16-bit format: auto (f16 unless it overflows), f16, bf16.
  std::string defaultFormat = "auto";
  /// Op types (ONNX names) kept in f32, and removed from the default list.
  std::vector<std::string> denyOps, allowOps;
  /// Regex of node names kept in f32.
  std::string sensitiveLayers;
  /// Fraction of the budget the first round's prediction may use.
  double margin = 0.5;
  /// Random seed vectors of the sensitivity adjoint (one backward each).
  unsigned sensitivitySeeds = 1;

  // The validation rounds' options.
  /// Held-out inputs the budget is checked on; the calibration folder when
  /// empty.
  std::string validation;
  /// Also require every sample's arg-max (top-1 class) to stay the same.
  bool keepTop1 = false;
  /// Validation rounds after the first.
  int maxRetries = 4;
  /// Validation runs a bisection may take to find the ops that carry an
  /// error the prediction missed (0: no bisection).
  int bisectionRuns = 8;
  /// An integer input that an If branches on and that holds one value in
  /// every calibration and validation set is fixed to it (as --fix-input):
  /// the branches no set takes could not be measured. False keeps every
  /// branch (those stay f32).
  bool fixBranchInputsByData = true;
};

} // namespace dsmp

#endif // DSMP_DRIVER_PRECISIONOPTIONS_H
