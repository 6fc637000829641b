//===- GPUTarget.cpp - The GPUs dsmp generates kernels for ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/GPUTarget.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

namespace mlir::dsmp {

llvm::StringRef knownGPUTargets() { return "sm_80, sm_90, gfx90a, gfx942"; }

std::optional<GPUTargetSpec> lookupGPUTarget(llvm::StringRef chip) {
  GPUTargetSpec spec;
  spec.chip = chip.str();
  if (chip == "sm_80" || chip == "sm_90") {
    spec.nvidia = true;
    spec.binaryFormat = "fatbin";
    // DSMP_CUDA_TOOLKIT in the environment overrides the build's.
    const char *cuda = std::getenv("DSMP_CUDA_TOOLKIT");
    spec.toolkit = cuda && *cuda ? cuda : DSMP_CUDA_TOOLKIT;
  } else if (chip == "gfx90a" || chip == "gfx942") {
    spec.binaryFormat = "bin";
    spec.toolkit = DSMP_ROCM_TOOLKIT;
  } else {
    return std::nullopt;
  }
  return spec;
}

llvm::Error checkGPUToolkit(const GPUTargetSpec &target) {
  auto need = [&](std::initializer_list<llvm::StringRef> parts,
                  llvm::StringRef what) -> llvm::Error {
    llvm::SmallString<256> path(target.toolkit);
    for (llvm::StringRef part : parts)
      llvm::sys::path::append(path, part);
    if (llvm::sys::fs::can_execute(path))
      return llvm::Error::success();
    return llvm::createStringError(
        "this dsmp cannot make " + target.chip + " code objects: no " + what +
        " at '" + path + "' (" +
        (target.nvidia ? "install CUDA there, or point DSMP_CUDA_TOOLKIT "
                         "(environment or CMake) at it"
                       : "the build links LLVM's ld.lld there when it has "
                         "one") +
        ")");
  };
  if (target.nvidia) {
    if (llvm::Error err = need({"bin", "ptxas"}, "ptxas"))
      return err;
    return need({"bin", "fatbinary"}, "fatbinary");
  }
  return need({"llvm", "bin", "ld.lld"}, "ld.lld");
}

} // namespace mlir::dsmp
