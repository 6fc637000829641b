//===- CompileAPI.h - dsmp-compile as a plain C++ call ----------*- C++ -*-===//
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

#include "dsmp/Driver/PrecisionOptions.h"

#include <atomic>
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
/// `cancel`: once another thread sets it, the compile's long steps are
/// declined (a step under way finishes first) and the call returns
/// kInterrupted with nothing written at `outputDir` (unless the compile had
/// already finished: then it succeeds).
/// `profile`: time every op (dsmp-compile --profile; CPU code only).
std::string
compileModel(const std::string &modelPath, const std::string &outputDir,
             const std::string &target, const std::vector<ShapeMap> &variants,
             const ShapeMap &fixed = {},
             const std::atomic<bool> *cancel = nullptr, bool profile = false);

/// What the compile calls return when `cancel` stopped them.
inline constexpr const char *kInterrupted = "interrupted";

/// Chooses formats for `options.target` (sm_80, gfx90a, aarch64, ...)
/// within the budget and compiles the result into `outputDir` for that
/// target if it is a CPU, else for the host (which then emulates the
/// formats); writes the report to `report` (JSON, and HTML beside it) when
/// it is not empty. `fixed`, `cancel` and `profile` as for compileModel.
/// Returns "" on success (budget met), else the error message.
std::string compileModelWithPrecision(
    const std::string &modelPath, const std::string &outputDir,
    const std::vector<ShapeMap> &variants, const PrecisionOptions &options,
    const std::string &report = "", const ShapeMap &fixed = {},
    const std::atomic<bool> *cancel = nullptr, bool profile = false);

} // namespace dsmp

#endif // DSMP_DRIVER_COMPILEAPI_H
