//===- ModelProfiler.h - A loaded model's profiler -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_LIB_MODELPROFILER_H
#define DSMP_RUNTIME_LIB_MODELPROFILER_H

#include "dsmp/runtime/Profiler.h"
#include "dsmp/runtime/dsmprt.h"

namespace dsmprt {

/// The counters of `model`'s artifact, or null when it was compiled without
/// --profile (for the training session, which reports its steps' profile).
const dsmp::Profiler *profilerOf(const dsmp_model *model);

} // namespace dsmprt

#endif // DSMP_RUNTIME_LIB_MODELPROFILER_H
