//===- ContiguousExpandShapes.cpp - Dynamic expand_shape as a view -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// expand-strided-metadata (LLVM 22) crashes on a memref.expand_shape that
// splits one dim into two or more dynamic ones ([b*s, N] -> [b, s, N], the
// product of a dynamic variant's matmul). Of a contiguous buffer, that
// expansion is a row-major view of the same data: a reinterpret_cast with
// the output sizes and their running products as strides.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_CONTIGUOUSEXPANDSHAPESPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
struct ContiguousExpandShapesPass final
    : mlir::dsmp::impl::ContiguousExpandShapesPassBase<
          ContiguousExpandShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::ExpandShapeOp> expands;
    getOperation().walk([&](memref::ExpandShapeOp op) {
      MemRefType result = op.getResultType();
      bool twoDynamic = llvm::any_of(op.getReassociationIndices(),
                                     [&](const ReassociationIndices &g) {
                                       return llvm::count_if(g, [&](int64_t d) {
                                                return result.isDynamicDim(d);
                                              }) > 1;
                                     });
      if (twoDynamic && op.getSrcType().getLayout().isIdentity() &&
          result.getLayout().isIdentity())
        expands.push_back(op);
    });
    for (memref::ExpandShapeOp op : expands) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
      // Constant strides stay attributes (the result type has them).
      SmallVector<OpFoldResult> strides(sizes.size());
      OpFoldResult stride = b.getIndexAttr(1);
      for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
        strides[d] = stride;
        std::optional<int64_t> known = getConstantIntValue(stride);
        std::optional<int64_t> size = getConstantIntValue(sizes[d]);
        if (known && size)
          stride = b.getIndexAttr(*known * *size);
        else
          stride = arith::MulIOp::create(
                       b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                       getValueOrCreateConstantIndexOp(b, loc, sizes[d]))
                       .getResult();
      }
      auto view = memref::ReinterpretCastOp::create(
          b, loc, op.getResultType(), op.getSrc(), b.getIndexAttr(0), sizes,
          strides);
      op.replaceAllUsesWith(view.getResult());
      op.erase();
    }
  }
};
} // namespace
