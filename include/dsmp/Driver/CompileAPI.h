//===- CompileAPI.h - dsmp-compile as a plain C++ call -------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The driver's compile with standard-library types only, for callers that
// must not include MLIR or LLVM headers (the Python extension, built with
// exceptions and RTTI, which libMLIR is not).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_COMPILEAPI_H
#define DSMP_DRIVER_COMPILEAPI_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dsmp {

using ShapeMap = std::map<std::string, std::vector<int64_t>>;

/// Compiles `modelPath` (.onnx or .mlir) for `target` into the artifact
/// folder `outputDir`, one variant per entry of `variants` (input name ->
/// shape; unnamed dynamic dims become 1). Returns "" on success, else the
/// error message.
/// `fixed`: integer inputs compiled for one value each (dsmp-compile
/// --fix-input), by name.
std::string compileModel(const std::string &modelPath,
                         const std::string &outputDir,
                         const std::string &target,
                         const std::vector<ShapeMap> &variants,
                         const ShapeMap &fixed = {});

/// What `dsmp-compile --tolerance` takes (docs/precision.md).
struct PrecisionRequest {
  double tolerance = 1e-2;
  std::string metric = "rel-l2"; // or "max-abs" (--error-metric)
  std::string calibration;
  std::string validation; // the calibration folder when empty
  std::string report;     // JSON (and HTML beside it) when not empty
  std::string defaultFormat = "auto";
  std::vector<std::string> denyOps, allowOps;
  std::string sensitiveLayers;
  ShapeMap fixed; // integer inputs compiled for one value (--fix-input)
};

/// Chooses formats for the precision target `target` (sm_80, gfx90a,
/// aarch64, ...) within the request's budget and compiles the result into
/// `outputDir` for `target` if it is a CPU, else for the host (which then
/// emulates the formats). Returns "" on success (budget met), else the
/// error message.
std::string compileModelWithPrecision(const std::string &modelPath,
                                      const std::string &outputDir,
                                      const std::string &target,
                                      const std::vector<ShapeMap> &variants,
                                      const PrecisionRequest &request);

} // namespace dsmp

#endif // DSMP_DRIVER_COMPILEAPI_H
