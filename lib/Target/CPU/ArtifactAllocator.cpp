//===- ArtifactAllocator.cpp - C linked into every artifact ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// artifact_allocator.c and gpu_launch_shim.c, compiled to LLVM IR by the
// build for each CPU target (ArtifactAllocatorIR.inc, GpuLaunchShimIR.inc),
// read back for the target when an artifact is linked. The allocator used
// to be compiled by a clang run of its own for every artifact: 0.06 s with
// clang in the page cache, over a second without.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/CPUTarget.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Triple.h"

#include "ArtifactAllocatorIR.inc"
#include "GpuLaunchShimIR.inc"

namespace {
/// One of the embedded C files' IR for `triple`'s architecture.
llvm::Expected<std::unique_ptr<llvm::Module>>
parseEmbedded(const char *x86_64, const char *aarch64, llvm::StringRef what,
              const llvm::Triple &triple, llvm::LLVMContext &context) {
  const char *ir = triple.getArch() == llvm::Triple::x86_64    ? x86_64
                   : triple.getArch() == llvm::Triple::aarch64 ? aarch64
                                                               : nullptr;
  if (!ir)
    return llvm::createStringError("no " + what + " for " + triple.str());
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, diagnostic, context);
  if (!module)
    return llvm::createStringError("the " + what +
                                   "'s IR: " + diagnostic.getMessage().str());
  module->setTargetTriple(triple);
  return module;
}
} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
mlir::dsmp::parseArtifactAllocator(const llvm::Triple &triple,
                                   llvm::LLVMContext &context) {
  return parseEmbedded(kAllocatorIR_x86_64, kAllocatorIR_aarch64,
                       "artifact allocator", triple, context);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
mlir::dsmp::parseGpuLaunchShim(const llvm::Triple &triple,
                               llvm::LLVMContext &context) {
  return parseEmbedded(kGpuLaunchShimIR_x86_64, kGpuLaunchShimIR_aarch64,
                       "GPU launch shim", triple, context);
}
