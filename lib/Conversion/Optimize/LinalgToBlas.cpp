//===- LinalgToBlas.cpp - f32 matmuls as cblas_sgemm calls ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
linalg::FillOp zeroFillBefore(Operation *op, Value output) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.getOutputs()[0] == output) {
      FloatAttr value;
      if (matchPattern(fill.getInputs()[0], m_Constant(&value)) &&
          value.getValue().isZero())
        return fill;
      return {};
    }
    // Reading the buffer's sizes (run-time sizes) does not touch its data.
    if (isa<memref::DimOp>(prev))
      continue;
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
    // Batched products of dense row-major f32 buffers (a dynamic variant's
    // attention): one call per batch element.
    SmallVector<linalg::BatchMatmulOp> batched;
    module.walk([&](linalg::BatchMatmulOp op) {
      auto dense = [](Value v) {
        auto type = dyn_cast<MemRefType>(v.getType());
        return type && type.getRank() == 3 && type.getElementType().isF32() &&
               type.getLayout().isIdentity();
      };
      if (op.hasPureBufferSemantics() && op.getInputs().size() == 2 &&
          dense(op.getInputs()[0]) && dense(op.getInputs()[1]) &&
          dense(op.getOutputs()[0]) && !op.hasUserDefinedMaps())
        batched.push_back(op);
    });
    if (matmuls.empty() && batched.empty())
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

    // C = op(A) op(B) + beta C for row-major A, B, C at `lhs`, `rhs`, `out`
    // with leading dims lda, ldb and n (BLAS sizes).
    auto call = [&](OpBuilder &b, Location loc, bool transA, bool transB,
                    Value m, Value n, Value k, Value lhs, Value lda, Value rhs,
                    Value ldb, Value beta, Value out) {
      auto int32 = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
      };
      Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
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
    };
    // Dim `d` of `memref` as an index: a constant where static.
    auto indexDim = [](OpBuilder &b, Location loc, Value memref,
                       int64_t d) -> Value {
      auto type = cast<MemRefType>(memref.getType());
      if (!type.isDynamicDim(d))
        return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
      return memref::DimOp::create(b, loc, memref, d);
    };
    auto blasSize = [&](OpBuilder &b, Location loc, Value index) -> Value {
      if (std::optional<int64_t> known = getConstantIntValue(index))
        return arith::ConstantOp::create(b, loc,
                                         b.getIntegerAttr(size, *known));
      return arith::IndexCastOp::create(b, loc, size, index);
    };
    // The address of the buffer's first element plus `elements` floats.
    auto pointer = [&](OpBuilder &b, Location loc, Value memref,
                       Value elements = {}) -> Value {
      Value index =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
      Value offset = elements;
      if (!cast<MemRefType>(memref.getType()).getLayout().isIdentity()) {
        auto metadata =
            memref::ExtractStridedMetadataOp::create(b, loc, memref);
        offset =
            offset ? arith::AddIOp::create(b, loc, offset, metadata.getOffset())
                         .getResult()
                   : metadata.getOffset();
      }
      if (offset)
        index = arith::AddIOp::create(
            b, loc, index,
            arith::MulIOp::create(
                b, loc, offset,
                arith::ConstantIndexOp::create(b, loc, sizeof(float))));
      Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
      return LLVM::IntToPtrOp::create(b, loc, ptr, i64);
    };
    // beta = 0 replaces a zero fill of C just before the product.
    auto betaFor = [](OpBuilder &b, Location loc, Operation *op,
                      Value output) -> Value {
      linalg::FillOp fill = zeroFillBefore(op, output);
      if (fill)
        fill.erase();
      return arith::ConstantOp::create(b, loc,
                                       b.getF32FloatAttr(fill ? 0.0f : 1.0f));
    };

    for (linalg::MatmulOp op : matmuls) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto [transA, transB] = *transposes(op);
      Value a = op.getInputs()[0], bMatrix = op.getInputs()[1],
            c = op.getOutputs()[0];
      Value beta = betaFor(b, loc, op, c);
      auto dim = [&](Value memref, int64_t d) {
        return blasSize(b, loc, indexDim(b, loc, memref, d));
      };
      call(b, loc, transA, transB, dim(c, 0), dim(c, 1), dim(a, transA ? 0 : 1),
           pointer(b, loc, a), dim(a, 1), pointer(b, loc, bMatrix),
           dim(bMatrix, 1), beta, pointer(b, loc, c));
      op.erase();
    }
    for (linalg::BatchMatmulOp op : batched) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value a = op.getInputs()[0], bMatrix = op.getInputs()[1],
            c = op.getOutputs()[0];
      Value beta = betaFor(b, loc, op, c);
      Value m = indexDim(b, loc, c, 1), n = indexDim(b, loc, c, 2),
            k = indexDim(b, loc, a, 2);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      // An operand whose batch is 1 is read by every element (broadcast).
      auto batchStride = [&](Value memref, Value rows, Value columns) {
        Value single = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             indexDim(b, loc, memref, 0), one);
        return arith::SelectOp::create(
            b, loc, single, zero, arith::MulIOp::create(b, loc, rows, columns));
      };
      Value strideA = batchStride(a, m, k),
            strideB = batchStride(bMatrix, k, n);
      Value strideC = arith::MulIOp::create(b, loc, m, n);
      Value mSize = blasSize(b, loc, m), nSize = blasSize(b, loc, n),
            kSize = blasSize(b, loc, k);
      scf::ForOp::create(
          b, loc, zero, indexDim(b, loc, c, 0), one, ValueRange{},
          [&](OpBuilder &lb, Location ll, Value i, ValueRange) {
            auto at = [&](Value memref, Value stride) {
              return pointer(lb, ll, memref,
                             arith::MulIOp::create(lb, ll, i, stride));
            };
            call(lb, ll, false, false, mSize, nSize, kSize, at(a, strideA),
                 kSize, at(bMatrix, strideB), nSize, beta, at(c, strideC));
            scf::YieldOp::create(lb, ll);
          });
      op.erase();
    }
  }
};
} // namespace
