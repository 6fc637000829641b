//===- IRFuzzer.cpp - libFuzzer target for dsmp IR --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Arbitrary bytes as what dsmp-opt reads: dsmp IR text (ConstantOp's custom
// form, #dsmp.external, #dsmp.format, every op's assembly format) or MLIR
// bytecode. Parsing must succeed or fail with a diagnostic, and a module
// that parses is verified (a verifier must not crash on what the parser
// let through) and printed again.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

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
  context.loadAllAvailableDialects();
  // Diagnostics are the error path under test; keep them quiet.
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (!module)
    return 0;
  if (mlir::succeeded(mlir::verify(*module))) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
  }
  return 0;
}
