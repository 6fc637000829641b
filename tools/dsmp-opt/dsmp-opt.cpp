//===- dsmp-opt.cpp - dsmp pass driver ------------------------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with dsmp's dialect, passes and pipelines: any dsmp-compile run
// can be replayed pass by pass. The precision passes compile and run
// calibration inputs on the host, so the context has what the lowering to
// LLVM needs as well.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Registration.h"
#include "dsmp/Execution/Compile.h"
#include "lib/Conversion/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::dsmp::registerDriverDialects(registry);
  mlir::dsmp::registerDriverPasses();
  mlir::dsmp::registerDsmpConversionPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "dsmp optimizer driver: dsmp dialect and passes\n",
      registry));
}
