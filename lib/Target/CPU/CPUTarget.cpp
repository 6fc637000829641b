//===- CPUTarget.cpp - LLVM dialect to a host or cross CPU library -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/CPUTarget.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using llvm::Error;
using llvm::StringRef;

namespace mlir::dsmp {

namespace {
bool hostIs(StringRef arch) {
  return llvm::Triple(llvm::sys::getProcessTriple()).getArchName() == arch;
}

} // namespace

StringRef knownCPUTargets() { return "x86_64, aarch64"; }

std::optional<CPUTargetSpec> lookupCPUTarget(StringRef name, StringRef cpu) {
  CPUTargetSpec spec;
  spec.name = name.str();
  bool native = cpu == "native";
  if (name == "x86_64") {
    spec.triple = "x86_64-unknown-linux-gnu";
#ifdef DSMP_X86_BLAS
    spec.blasLibrary = DSMP_X86_BLAS; // Debian's oneDNN or OpenBLAS
    spec.parallelLoops = spec.blasLibrary == "dnnl";
#endif
    spec.cpu = native ? (hostIs("x86_64") ? llvm::sys::getHostCPUName().str()
                                          : "x86-64-v2")
                      : cpu.str();
    // Loops over short rows (14 wide into a padded 16) otherwise vectorize
    // across rows with gathers and scatters, several times slower than
    // the row loop itself.
    spec.features = "+prefer-no-gather,+prefer-no-scatter";
  } else if (name == "aarch64") {
    spec.triple = "aarch64-unknown-linux-gnu";
    // ARMv8.2-A with FP16 arithmetic: what the aarch64+fp16 format table
    // assumes, and what qemu-aarch64 -cpu max runs.
    spec.cpu = native ? (hostIs("aarch64") ? llvm::sys::getHostCPUName().str()
                                           : "generic")
                      : cpu.str();
    spec.features = "+v8.2a,+neon,+fullfp16";
  } else {
    return std::nullopt;
  }
  return spec;
}

Error emitObjectFile(ModuleOp module, const CPUTargetSpec &target,
                     StringRef objectPath) {
  static const bool initialized = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    return true;
  }();
  (void)initialized;

  std::string message;
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!llvmTarget)
    return llvm::createStringError("target '" + target.triple +
                                   "': " + message);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
      std::nullopt,
      // Level 1 keeps the IR optimizations (vectorized loops) but skips
      // the codegen ones: Loop Strength Reduction alone takes most of the
      // time on graphs with hundreds of loop nests.
      target.optLevel >= 2 ? llvm::CodeGenOptLevel::Aggressive
                           : llvm::CodeGenOptLevel::None));
  if (!machine)
    return llvm::createStringError("cannot create a target machine for " +
                                   target.triple);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "dsmp_model");
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  if (Error err = makeOptimizingTransformer(target.optLevel >= 1 ? 2 : 0, 0,
                                            machine.get())(llvmModule.get()))
    return err;

  std::error_code ec;
  // DSMP_DUMP_LLVM=FILE keeps the optimized LLVM IR, for inspection.
  if (const char *dump = std::getenv("DSMP_DUMP_LLVM")) {
    llvm::raw_fd_ostream os(dump, ec);
    if (!ec)
      llvmModule->print(os, nullptr);
  }
  llvm::ToolOutputFile out(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + objectPath +
                                   "': " + ec.message());
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, out.os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  codegen.run(*llvmModule);
  out.keep();
  return Error::success();
}

Error linkSharedLibrary(llvm::ArrayRef<std::string> objectPaths,
                        StringRef libraryPath, const CPUTargetSpec &target) {
  auto clang =
      llvm::sys::findProgramByName(DSMP_CLANG_NAME, {DSMP_LLVM_TOOLS_DIR});
  if (!clang)
    return llvm::createStringError("cannot find " DSMP_CLANG_NAME
                                   " in " DSMP_LLVM_TOOLS_DIR
                                   " to link the library");
  std::string targetFlag = "--target=" + target.triple;
  std::string errorMessage;
  // The buffer cache the lowered code allocates through, compiled for the
  // target beside the library and linked in.
  std::string allocatorSource = (libraryPath + ".alloc.c").str();
  std::string allocatorObject = (libraryPath + ".alloc.o").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream source(allocatorSource, ec);
    if (ec)
      return llvm::createStringError("cannot write '" + allocatorSource +
                                     "': " + ec.message());
    source << artifactAllocatorSource();
  }
  llvm::SmallVector<StringRef> compileArgs = {
      *clang, targetFlag,      "-O2", "-fPIC",
      "-c",   allocatorSource, "-o",  allocatorObject};
  int compiled = llvm::sys::ExecuteAndWait(*clang, compileArgs, std::nullopt,
                                           {}, 0, 0, &errorMessage);
  (void)llvm::sys::fs::remove(allocatorSource);
  if (compiled != 0) {
    (void)llvm::sys::fs::remove(allocatorObject);
    return llvm::createStringError(
        "compiling the artifact's allocator with " + *clang + " failed" +
        (errorMessage.empty() ? "" : ": " + errorMessage));
  }
  llvm::SmallVector<StringRef> args = {*clang,         targetFlag, "-shared",
                                       "-fuse-ld=lld", "-o",       libraryPath};
  args.append(objectPaths.begin(), objectPaths.end());
  args.push_back(allocatorObject);
  std::string blas = "-l" + target.blasLibrary;
  if (!target.blasLibrary.empty())
    args.push_back(blas);
  if (target.parallelLoops)
    args.push_back("-lgomp");
  args.append({"-lm", "-Wl,-z,now", "-Wl,--as-needed"});
  int rc = llvm::sys::ExecuteAndWait(*clang, args, std::nullopt, {}, 0, 0,
                                     &errorMessage);
  (void)llvm::sys::fs::remove(allocatorObject);
  if (rc != 0)
    return llvm::createStringError(
        "linking '" + libraryPath + "' with " + *clang + " failed" +
        (errorMessage.empty() ? "" : ": " + errorMessage));
  return Error::success();
}

} // namespace mlir::dsmp
