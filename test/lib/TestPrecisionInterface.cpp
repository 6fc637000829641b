//===- TestPrecisionInterface.cpp - Report PrecisionOpInterface -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "test/lib/Passes.h"

#include "llvm/ADT/STLExtras.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_TESTPRECISIONINTERFACEPASS
#include "test/lib/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {
struct TestPrecisionInterfacePass final
    : mlir::dsmp::impl::TestPrecisionInterfacePassBase<
          TestPrecisionInterfacePass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](PrecisionOpInterface op) {
      InFlightDiagnostic remark = op->emitRemark();
      remark << "class=" << stringifyOpClass(op.getOpClass()) << " flops=";
      if (auto flops = op.getFlopCount())
        remark << *flops;
      else
        remark << "?";
      remark << " acc=" << stringifyFormat(op.getAccumulationFormat())
             << " formats=[";
      llvm::interleave(
          op.getAllowedFormats(),
          [&](Format f) { remark << stringifyFormat(f); },
          [&] { remark << ","; });
      remark << "]";
    });
    markAllAnalysesPreserved();
  }
};
} // namespace
