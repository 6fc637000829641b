//===- dsmp-opt.cpp - dsmp pass driver ----------------------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::dsmp::registerAllDialects(registry);
  mlir::dsmp::registerAllPasses();
  // Generic cleanups that dsmp pipelines use (canonicalize, cse, ...).
  mlir::registerTransformsPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "dsmp optimizer driver: dsmp dialect and passes\n",
      registry));
}
