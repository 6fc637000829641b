//===- ImportFuzzer.cpp - libFuzzer target for the importer -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the ONNX importer as a model file. The importer
// must either return a module that verifies or an error, never crash, hang
// or run out of memory. Build with -DDSMP_BUILD_FUZZERS=ON (clang only);
// see docs/testing.md for the smoke run and the long run.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "dsmp/Import/ONNXImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdlib>

// LLVM's BumpPtrAllocator poisons memory from header code compiled into this
// instrumented binary that the uninstrumented libMLIR.so then writes
// legitimately (docs/testing.md): keep every other check.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::dsmp::DsmpDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Diagnostics are part of the error path under test; keep them quiet.
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::dsmp::ONNXImportOptions options;
  // Stay inside libFuzzer's memory limit: refuse tensors over 64 MiB.
  options.maxTensorBytes = uint64_t(64) << 20;
  auto module = mlir::dsmp::importONNXModelFromBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz/model.onnx", context, options);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  // A module the importer accepts must verify.
  if (mlir::failed(mlir::verify(**module)))
    std::abort();
  return 0;
}
