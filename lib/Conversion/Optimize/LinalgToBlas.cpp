//===- LinalgToBlas.cpp - f32 matmuls as cblas_sgemm calls ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_LINALGTOBLASPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
constexpr int32_t kCblasRowMajor = 101, kCblasNoTrans = 111, kCblasTrans = 112;

bool isPlainF32Matrix(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isF32())
    return false;
  // Sizes known at run time only (a dynamic variant) are read from the
  // buffer.
  if (type.getLayout().isIdentity())
    return true;
  // Dense rows at an offset (one sample's slice of a batch).
  auto strided = dyn_cast<StridedLayoutAttr>(type.getLayout());
  return type.hasStaticShape() && strided && strided.getStrides().size() == 2 &&
         strided.getStrides()[1] == 1 &&
         strided.getStrides()[0] == type.getDimSize(1);
}

/// Whether A and B are read transposed ([K, M], [N, K]), or nullopt when the
/// maps are not those of a plain or transposed product.
std::optional<std::pair<bool, bool>> transposes(linalg::MatmulOp op) {
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  auto map = [&](AffineExpr i, AffineExpr j) {
    return AffineMap::get(3, 0, {i, j}, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[2] != map(m, n))
    return std::nullopt;
  bool ta = maps[0] == map(k, m), tb = maps[1] == map(n, k);
  if ((!ta && maps[0] != map(m, k)) || (!tb && maps[1] != map(k, n)))
    return std::nullopt;
  return std::make_pair(ta, tb);
}

/// The zero fill of the matmul's output just before it (nothing between
/// touches that buffer), which beta = 0 makes unnecessary.
linalg::FillOp zeroFillBefore(linalg::MatmulOp op) {
  Value output = op.getOutputs()[0];
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.getOutputs()[0] == output) {
      FloatAttr value;
      if (matchPattern(fill.getInputs()[0], m_Constant(&value)) &&
          value.getValue().isZero())
        return fill;
      return {};
    }
    if (llvm::is_contained(prev->getOperands(), output) ||
        prev->getNumRegions() > 0)
      return {};
  }
  return {};
}

struct LinalgToBlasPass final
    : mlir::dsmp::impl::LinalgToBlasPassBase<LinalgToBlasPass> {
  using LinalgToBlasPassBase::LinalgToBlasPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp op) {
      if (op.hasPureBufferSemantics() && op.getInputs().size() == 2 &&
          isPlainF32Matrix(op.getInputs()[0]) &&
          isPlainF32Matrix(op.getInputs()[1]) &&
          isPlainF32Matrix(op.getOutputs()[0]) && transposes(op))
        matmuls.push_back(op);
    });
    if (matmuls.empty())
      return;

    if (api != "cblas" && api != "dnnl") {
      module.emitError("dsmp-linalg-to-blas: unknown api '")
          << api << "' (cblas or dnnl)";
      return signalPassFailure();
    }
    bool dnnl = api == "dnnl";
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
    // Sizes: CBLAS int, oneDNN dnnl_dim_t (int64_t). oneDNN's char flags
    // are passed as i32, which the C calling conventions pass the same way.
    Type size = dnnl ? Type(IntegerType::get(ctx, 64)) : i32;
    StringRef name = dnnl ? "dnnl_sgemm" : "cblas_sgemm";
    FunctionType sgemmType =
        dnnl ? FunctionType::get(ctx,
                                 {i32, i32, size, size, size, f32, ptr, size,
                                  ptr, size, f32, ptr, size},
                                 {i32})
             : FunctionType::get(ctx,
                                 {i32, i32, i32, i32, i32, i32, f32, ptr, i32,
                                  ptr, i32, f32, ptr, i32},
                                 {});
    auto sgemm = module.lookupSymbol<func::FuncOp>(name);
    if (!sgemm) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      sgemm = func::FuncOp::create(b, module.getLoc(), name, sgemmType);
      sgemm.setPrivate();
    }

    for (linalg::MatmulOp op : matmuls) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto int32 = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
      };
      // Dim `d` of `memref` as a BLAS size: a constant where static.
      auto dim = [&](Value memref, int64_t d) -> Value {
        auto type = cast<MemRefType>(memref.getType());
        if (!type.isDynamicDim(d))
          return arith::ConstantOp::create(
              b, loc, b.getIntegerAttr(size, type.getDimSize(d)));
        return arith::IndexCastOp::create(
            b, loc, size, memref::DimOp::create(b, loc, memref, d));
      };
      auto pointer = [&](Value memref) -> Value {
        Value index =
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
        if (!cast<MemRefType>(memref.getType()).getLayout().isIdentity()) {
          // The first element: the aligned base plus the offset in floats.
          auto metadata =
              memref::ExtractStridedMetadataOp::create(b, loc, memref);
          Value bytes = arith::MulIOp::create(
              b, loc, metadata.getOffset(),
              arith::ConstantIndexOp::create(b, loc, sizeof(float)));
          index = arith::AddIOp::create(b, loc, index, bytes);
        }
        Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
        return LLVM::IntToPtrOp::create(b, loc, ptr, i64);
      };
      auto [transA, transB] = *transposes(op);
      Value a = op.getInputs()[0], bMatrix = op.getInputs()[1],
            c = op.getOutputs()[0];
      Value m = dim(c, 0), n = dim(c, 1), k = dim(a, transA ? 0 : 1);
      Value lda = dim(a, 1), ldb = dim(bMatrix, 1);
      Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
      // C = A B + beta C; beta = 0 replaces a zero fill of C.
      Value beta = one;
      if (linalg::FillOp fill = zeroFillBefore(op)) {
        fill.erase();
        beta = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
      }
      Value lhs = pointer(op.getInputs()[0]), rhs = pointer(op.getInputs()[1]),
            out = pointer(op.getOutputs()[0]);
      if (dnnl)
        // Row-major; the status is always success for valid sizes.
        func::CallOp::create(b, loc, sgemm,
                             ValueRange{int32(transA ? 'T' : 'N'),
                                        int32(transB ? 'T' : 'N'), m, n, k, one,
                                        lhs, lda, rhs, ldb, beta, out, n});
      else
        func::CallOp::create(
            b, loc, sgemm,
            ValueRange{int32(kCblasRowMajor),
                       int32(transA ? kCblasTrans : kCblasNoTrans),
                       int32(transB ? kCblasTrans : kCblasNoTrans), m, n, k,
                       one, lhs, lda, rhs, ldb, beta, out, n});
      op.erase();
    }
  }
};
} // namespace
