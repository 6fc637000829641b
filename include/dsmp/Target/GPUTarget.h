//===- GPUTarget.h - The GPUs dsmp generates kernels for --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A device artifact's kernels are made for one GPU: NVIDIA's as a fatbin
// (SASS for the chip and PTX that the driver compiles for newer ones), AMD's
// as a HSACO code object. The toolkits that make them are found here, so a
// compile without one fails up front, naming what is missing.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_TARGET_GPUTARGET_H
#define DSMP_TARGET_GPUTARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir::dsmp {

struct GPUTargetSpec {
  std::string chip; // sm_80 | sm_90 | gfx90a | gfx942
  bool nvidia = false;
  /// What gpu-module-to-binary makes: fatbin (NVIDIA) or bin (HSACO).
  std::string binaryFormat;
  /// The toolkit folder gpu-module-to-binary runs its tools from.
  std::string toolkit;
};

std::optional<GPUTargetSpec> lookupGPUTarget(llvm::StringRef chip);

llvm::StringRef knownGPUTargets();

/// Fails, naming the missing tool and where it was looked for, when this
/// build cannot make `target`'s code objects.
llvm::Error checkGPUToolkit(const GPUTargetSpec &target);

} // namespace mlir::dsmp

#endif // DSMP_TARGET_GPUTARGET_H
