//===- CPUTarget.h - LLVM dialect to a host or cross CPU --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_TARGET_CPUTARGET_H
#define DSMP_TARGET_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class Triple;
} // namespace llvm

namespace mlir::dsmp {

/// One CPU the artifact runs on: an LLVM triple, CPU and features.
struct CPUTargetSpec {
  std::string name; // "x86_64" or "aarch64", as the user and manifest say
  std::string triple;
  std::string cpu;
  std::string features;
  /// f32 matmuls call cblas_sgemm from this BLAS (a -l name), or loops
  /// when empty.
  std::string blasLibrary;
  /// Loop nests with enough parallel work run on libgomp's threads (the
  /// OpenMP runtime oneDNN already brings; OMP_NUM_THREADS sets how many).
  bool parallelLoops = false;
  /// 2: LLVM IR and codegen optimizations (artifacts); 1: IR only (the
  /// precision passes' programs, which run once: codegen optimization
  /// would dominate their time); 0: neither.
  unsigned optLevel = 2;
  /// The code launches GPU kernels (a device artifact's host side): the
  /// library links the mgpu* entry points that forward to libdsmprt's GPU
  /// backend (gpu_launch_shim.c).
  bool deviceLaunches = false;
};

/// The spec for a target name, or nullopt when dsmp has no CPU target of
/// that name. `cpu` "native" means the host CPU where the host is that
/// target, and a portable baseline otherwise.
std::optional<CPUTargetSpec> lookupCPUTarget(llvm::StringRef name,
                                             llvm::StringRef cpu = "native");

/// The buffer cache every artifact links (artifact_allocator.c: the
/// lowered code's _mlir_memref_to_llvm_alloc/_free, and
/// dsmp_release_buffers, which the runtime calls when it frees a model) as
/// an LLVM module for `triple`'s CPU.
llvm::Expected<std::unique_ptr<llvm::Module>>
parseArtifactAllocator(const llvm::Triple &triple, llvm::LLVMContext &context);

/// The CPU targets lookupCPUTarget knows, for error messages.
/// gpu_launch_shim.c's IR for `triple` (x86-64 or AArch64).
llvm::Expected<std::unique_ptr<llvm::Module>>
parseGpuLaunchShim(const llvm::Triple &triple, llvm::LLVMContext &context);

llvm::StringRef knownCPUTargets();

/// Translates an LLVM-dialect module to LLVM IR, optimizes it for the target
/// and writes ELF object files: `stem`.o, or, for a module large enough, one
/// `stem`.partN.o per part of its functions (up to 8), optimized and compiled
/// in parallel (at most `threads` at a time, 0: one per core; one where the
/// module's context has multithreading disabled). Local symbols of a split
/// module become hidden ones prefixed with `stem`'s file name, so each module
/// linked into one library needs a stem of its own. Returns the objects' paths.
/// `dumpable`: whether DSMP_DUMP_LLVM=FILE writes its IR (the model's code;
/// not the artifact's bookkeeping objects).
llvm::Expected<std::vector<std::string>>
emitObjectFiles(ModuleOp module, const CPUTargetSpec &target,
                llvm::StringRef stem, unsigned threads = 0,
                bool dumpable = true);

/// Links object files and the artifact allocator into a shared library for
/// the target with clang and lld (the cross C library for AArch64 comes
/// from Debian's packages).
llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> objectPaths,
                              llvm::StringRef libraryPath,
                              const CPUTargetSpec &target);

} // namespace mlir::dsmp

#endif // DSMP_TARGET_CPUTARGET_H
