//===- CPUTarget.cpp - LLVM dialect to a host or cross CPU ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/CPUTarget.h"

#include "dsmp/Target/SplitModule.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
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

namespace {
void initializeLLVMTargets() {
  static const bool initialized = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    return true;
  }();
  (void)initialized;
}

/// A target machine for `target` (one per thread: code generation
/// changes its state).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CPUTargetSpec &target) {
  std::string message;
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!llvmTarget)
    return llvm::createStringError("target '" + target.triple +
                                   "': " + message);
  llvm::TargetOptions options;
  // Constructors (a device artifact's code-object registration) in
  // .init_array, which the dynamic loader runs; .ctors needs crtbegin's
  // walker, which lld's output does not have.
  options.UseInitArray = true;
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
  return machine;
}

/// Optimizes `module` and writes it as an object file; the optimized IR
/// goes to `optimizedIR` where that is given.
Error optimizeAndEmit(llvm::Module &module, llvm::TargetMachine &machine,
                      const CPUTargetSpec &target, StringRef objectPath,
                      std::string *optimizedIR) {
  if (Error err = makeOptimizingTransformer(target.optLevel >= 1 ? 2 : 0, 0,
                                            &machine)(&module))
    return err;
  if (optimizedIR) {
    llvm::raw_string_ostream os(*optimizedIR);
    module.print(os, nullptr);
  }
  std::error_code ec;
  llvm::ToolOutputFile out(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + objectPath +
                                   "': " + ec.message());
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, out.os(), nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  codegen.run(module);
  out.keep();
  return Error::success();
}

/// A module is split into one part per this many instructions, at most
/// kMaxParts of them whatever the machine (so an artifact does not depend on
/// the cores of the machine that built it). Smaller modules also compile in
/// less time all told: oww_embedding's 10.7k instructions took 0.96 s as
/// one module, 0.91 s as eight parts on one thread, 0.45 s on two.
constexpr uint64_t kInstructionsPerPart = 1500;
constexpr uint64_t kMaxParts = 8;
} // namespace

llvm::Expected<std::vector<std::string>>
emitObjectFiles(ModuleOp module, const CPUTargetSpec &target, StringRef stem,
                unsigned threads, bool dumpable) {
  initializeLLVMTargets();
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "dsmp_model");
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  llvmModule->setTargetTriple(llvm::Triple(target.triple));
  llvmModule->setDataLayout((*machine)->createDataLayout());

  // DSMP_DUMP_LLVM=FILE keeps the optimized LLVM IR (each part's, in
  // order), for inspection.
  const char *dump = dumpable ? std::getenv("DSMP_DUMP_LLVM") : nullptr;
  // --mlir-disable-threading keeps this on one thread too.
  unsigned cores =
      module.getContext()->isMultithreadingEnabled()
          ? llvm::hardware_concurrency(threads).compute_thread_count()
          : 1;
  unsigned parts = static_cast<unsigned>(std::min<uint64_t>(
      kMaxParts, 1 + countInstructions(*llvmModule) / kInstructionsPerPart));
  std::vector<llvm::SmallString<0>> bitcode;
  if (parts > 1)
    bitcode =
        splitIntoBitcode(*llvmModule, parts, llvm::sys::path::filename(stem));
  std::vector<std::string> objects, irs(std::max<size_t>(1, bitcode.size()));
  if (bitcode.size() <= 1) {
    objects.push_back((stem + ".o").str());
    if (Error err = optimizeAndEmit(*llvmModule, **machine, target,
                                    objects.back(), dump ? &irs[0] : nullptr))
      return std::move(err);
  } else {
    // Each part in an LLVM context of its own (a context is not shared
    // between threads), read back from its bitcode.
    llvmModule.reset();
    std::vector<std::string> errors(bitcode.size());
    for (size_t i = 0; i < bitcode.size(); ++i)
      objects.push_back((stem + ".part" + llvm::Twine(i) + ".o").str());
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(cores));
    for (size_t i = 0; i < bitcode.size(); ++i)
      pool.async([&, i] {
        auto compilePart = [&]() -> Error {
          llvm::LLVMContext context;
          auto part = llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(bitcode[i], "part"), context);
          if (!part)
            return part.takeError();
          auto partMachine = createTargetMachine(target);
          if (!partMachine)
            return partMachine.takeError();
          return optimizeAndEmit(**part, **partMachine, target, objects[i],
                                 dump ? &irs[i] : nullptr);
        };
        if (Error err = compilePart())
          errors[i] = llvm::toString(std::move(err));
      });
    pool.wait();
    for (const std::string &message : errors)
      if (!message.empty()) {
        for (const std::string &object : objects)
          (void)llvm::sys::fs::remove(object);
        return llvm::createStringError(message);
      }
  }
  if (dump) {
    std::error_code ec;
    llvm::raw_fd_ostream os(dump, ec);
    for (const std::string &ir : irs)
      if (!ec)
        os << ir;
  }
  return objects;
}

Error linkSharedLibrary(llvm::ArrayRef<std::string> objectPaths,
                        StringRef libraryPath, const CPUTargetSpec &target) {
  auto clang =
      llvm::sys::findProgramByName(DSMP_CLANG_NAME, {DSMP_LLVM_TOOLS_DIR});
  if (!clang)
    return llvm::createStringError("cannot find " DSMP_CLANG_NAME
                                   " in " DSMP_LLVM_TOOLS_DIR
                                   " to link the library");
  initializeLLVMTargets();
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  // The buffer cache the lowered code allocates through, compiled for the
  // target beside the library and linked in.
  std::string allocatorObject = (libraryPath + ".alloc.o").str();
  std::string shimObject = (libraryPath + ".gpu.o").str();
  auto emitEmbedded = [&](auto parse, const std::string &objectPath) -> Error {
    llvm::LLVMContext context;
    auto module = parse(llvm::Triple(target.triple), context);
    if (!module)
      return module.takeError();
    (*module)->setDataLayout((*machine)->createDataLayout());
    return optimizeAndEmit(**module, **machine, target, objectPath, nullptr);
  };
  if (Error err = emitEmbedded(parseArtifactAllocator, allocatorObject))
    return err;
  // A device artifact's launches reach libdsmprt's GPU backend through it.
  if (target.deviceLaunches)
    if (Error err = emitEmbedded(parseGpuLaunchShim, shimObject))
      return err;
  std::string targetFlag = "--target=" + target.triple;
  std::string errorMessage;
  llvm::SmallVector<StringRef> args = {*clang,         targetFlag, "-shared",
                                       "-fuse-ld=lld", "-o",       libraryPath};
  args.append(objectPaths.begin(), objectPaths.end());
  args.push_back(allocatorObject);
  if (target.deviceLaunches)
    args.push_back(shimObject);
  // compiler-rt's builtins for the target, where the toolchain has them:
  // LLVM lowers f32 -> bf16 on x86-64 (without AVX512-BF16) to a call of
  // __truncsfbf2, which libgcc before GCC 13 does not define. A static
  // archive: only what the objects call is linked.
  llvm::SmallString<256> builtins(DSMP_CLANG_RESOURCE_DIR);
  llvm::sys::path::append(builtins, "lib", "linux",
                          "libclang_rt.builtins-" +
                              llvm::Triple(target.triple).getArchName() + ".a");
  if (!builtins.empty() && llvm::sys::fs::exists(builtins))
    args.push_back(builtins);
  std::string blas = "-l" + target.blasLibrary;
  if (!target.blasLibrary.empty())
    args.push_back(blas);
  if (target.parallelLoops)
    args.push_back("-lgomp");
  args.append({"-lm", "-Wl,-z,now", "-Wl,--as-needed"});
  int rc = llvm::sys::ExecuteAndWait(*clang, args, std::nullopt, {}, 0, 0,
                                     &errorMessage);
  (void)llvm::sys::fs::remove(allocatorObject);
  (void)llvm::sys::fs::remove(shimObject);
  if (rc != 0)
    return llvm::createStringError(
        "linking '" + libraryPath + "' with " + *clang + " failed" +
        (errorMessage.empty() ? "" : ": " + errorMessage));
  return Error::success();
}

} // namespace mlir::dsmp
