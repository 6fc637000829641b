//===- LinalgToBlas.cpp - f32 matmuls as cblas_sgemm calls ----------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_LINALGTOBLASPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
constexpr int32_t kCblasRowMajor = 101, kCblasNoTrans = 111;

bool isPlainF32Matrix(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == 2 && type.getElementType().isF32() &&
         type.hasStaticShape() && type.getLayout().isIdentity();
}

struct LinalgToBlasPass final
    : mlir::dsmp::impl::LinalgToBlasPassBase<LinalgToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp op) {
      if (op.hasPureBufferSemantics() && op.getInputs().size() == 2 &&
          isPlainF32Matrix(op.getInputs()[0]) &&
          isPlainF32Matrix(op.getInputs()[1]) &&
          isPlainF32Matrix(op.getOutputs()[0]) &&
          // Default maps only (no transposes or broadcasts).
          op.getIndexingMapsArray() == op.getDefaultIndexingMaps(&getContext()))
        matmuls.push_back(op);
    });
    if (matmuls.empty())
      return;

    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
    auto sgemmType = FunctionType::get(
        ctx,
        {i32, i32, i32, i32, i32, i32, f32, ptr, i32, ptr, i32, f32, ptr, i32},
        {});
    auto sgemm = module.lookupSymbol<func::FuncOp>("cblas_sgemm");
    if (!sgemm) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      sgemm =
          func::FuncOp::create(b, module.getLoc(), "cblas_sgemm", sgemmType);
      sgemm.setPrivate();
    }

    for (linalg::MatmulOp op : matmuls) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto int32 = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
      };
      auto pointer = [&](Value memref) -> Value {
        Value index =
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
        Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
        return LLVM::IntToPtrOp::create(b, loc, ptr, i64);
      };
      auto a = cast<MemRefType>(op.getInputs()[0].getType());
      auto c = cast<MemRefType>(op.getOutputs()[0].getType());
      int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
      Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
      func::CallOp::create(
          b, loc, sgemm,
          ValueRange{int32(kCblasRowMajor), int32(kCblasNoTrans),
                     int32(kCblasNoTrans), int32(m), int32(n), int32(k), one,
                     pointer(op.getInputs()[0]), int32(k),
                     pointer(op.getInputs()[1]), int32(n), one,
                     pointer(op.getOutputs()[0]), int32(n)});
      op.erase();
    }
  }
};
} // namespace
