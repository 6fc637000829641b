//===- count-dsmp-ops.cpp - Use the installed dsmp dialect ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Parses a .mlir file with the dsmp dialect and prints how many dsmp ops and
// how many FLOPs (PrecisionOpInterface) it holds.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: count-dsmp-ops FILE.mlir\n";
    return 2;
  }
  mlir::MLIRContext context;
  context.loadDialect<mlir::dsmp::DsmpDialect, mlir::func::FuncDialect>();
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  int64_t ops = 0, flops = 0;
  module->walk([&](mlir::Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "dsmp")
      ++ops;
    if (auto precision = llvm::dyn_cast<mlir::dsmp::PrecisionOpInterface>(op))
      flops += precision.getFlopCount().value_or(0);
  });
  llvm::outs() << "dsmp ops: " << ops << ", flops: " << flops << "\n";
  return 0;
}
