//===- ExpandStridedCopies.cpp - Strided copies as loops --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_EXPANDSTRIDEDCOPIESPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
struct ExpandStridedCopiesPass final
    : mlir::dsmp::impl::ExpandStridedCopiesPassBase<ExpandStridedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> strided;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (source && target &&
          (everyCopy || !source.getLayout().isIdentity() ||
           !target.getLayout().isIdentity()))
        strided.push_back(copy);
    });
    for (memref::CopyOp copy : strided) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};
} // namespace
