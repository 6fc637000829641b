//===- ArtifactAllocator.cpp - The artifacts' buffer cache ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// artifact_allocator.c, compiled to LLVM IR by the build for each CPU target
// (ArtifactAllocatorIR.inc), read back for the target when an artifact is
// linked. It used to be compiled by a clang run of its own for every
// artifact: 0.06 s with clang in the page cache, over a second without.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/CPUTarget.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Triple.h"

#include "ArtifactAllocatorIR.inc"

llvm::Expected<std::unique_ptr<llvm::Module>>
mlir::dsmp::parseArtifactAllocator(const llvm::Triple &triple,
                                   llvm::LLVMContext &context) {
  const char *ir =
      triple.getArch() == llvm::Triple::x86_64    ? kAllocatorIR_x86_64
      : triple.getArch() == llvm::Triple::aarch64 ? kAllocatorIR_aarch64
                                                  : nullptr;
  if (!ir)
    return llvm::createStringError("no artifact allocator for " + triple.str());
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> allocator =
      llvm::parseAssemblyString(ir, diagnostic, context);
  if (!allocator)
    return llvm::createStringError("the artifact allocator's IR: " +
                                   diagnostic.getMessage().str());
  allocator->setTargetTriple(triple);
  return allocator;
}
