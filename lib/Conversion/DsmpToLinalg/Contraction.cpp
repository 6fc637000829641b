//===- Contraction.cpp - MatMul, Gemm, Conv, ConvTranspose ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Sums of products in the op's accumulation format; f32 ones as
// linalg.matmul (Conv through im2col) for the BLAS rewrite.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/Einsum.h"
#include "dialects/Dsmp/IR/ShapeInference.h"
#include "dsmp/Support/SmallFloatTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

/// Whether a contraction into `element` that accumulates in `acc` applies
/// its bias (Conv's B, Gemm's alpha and C) to the f32 sum and rounds once,
/// as a GEMM library's or cuDNN's epilogue does: a result narrower than
/// f32 (16-bit, tf32, f8) from an f32 accumulator. Rounding the sum first
/// and then the sum plus the bias doubled the rounding noise of every
/// biased 16-bit convolution.
bool biasInAccumulator(Type element, Type acc) {
  return isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32 &&
         acc.isF32();
}

/// C[M, N] = alpha * op(A) * op(B) (+ beta * C), as a contraction generic
/// and, when needed, an elementwise epilogue.
struct GemmLowering : OpRewritePattern<GemmOp> {
  GemmLowering(MLIRContext *context, bool widen)
      : OpRewritePattern(context), widen(widen) {}
  /// f16 and bf16 products as widened f32 GEMMs (computesAsF32Gemm).
  bool widen;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !isRanked(op.getA()) || !isRanked(op.getB()) ||
        !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs ranked float tensors");
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0,
                       op.getTransA() ? ArrayRef<AffineExpr>{k, m}
                                      : ArrayRef<AffineExpr>{m, k},
                       ctx),
        AffineMap::get(3, 0,
                       op.getTransB() ? ArrayRef<AffineExpr>{n, k}
                                      : ArrayRef<AffineExpr>{k, n},
                       ctx),
        AffineMap::get(3, 0, {m, n}, ctx)};
    Type element = resultType.getElementType();
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    bool hasC = !isa<NoneType>(op.getC().getType());
    bool epilogue = alpha != 1.0 || hasC;
    Type f32 = rewriter.getF32Type();
    bool wideEpilogue =
        epilogue && biasInAccumulator(element, accumulationType(op));
    Type productElement = wideEpilogue ? f32 : element;
    Value result;
    if (computesAsF32Gemm(
            op, resultType,
            cast<RankedTensorType>(op.getA().getType()).getElementType(),
            cast<RankedTensorType>(op.getB().getType()).getElementType(),
            widen)) {
      result = f32Gemm(rewriter, loc, op.getA(), op.getB(), productElement,
                       op.getTransA(), op.getTransB());
    } else {
      result = contract(
          rewriter, loc, op, op.getA(), op.getB(), maps,
          RankedTensorType::get(resultType.getShape(), productElement), 3);
    }
    if (epilogue) {
      SmallVector<Value> inputs{result};
      if (hasC)
        inputs.push_back(wideEpilogue
                             ? convertTensor(rewriter, loc, op.getC(), f32)
                             : op.getC());
      auto epilogueType =
          RankedTensorType::get(resultType.getShape(), productElement);
      result = buildElementwise(
          rewriter, loc, inputs, epilogueType, op,
          [&](OpBuilder &b, Location l, ValueRange a, Type t,
              Operation *) -> Value {
            Value y = a[0];
            if (alpha != 1.0)
              y = arith::MulFOp::create(b, l, floatConst(b, l, t, alpha), y);
            if (a.size() > 1) {
              Value c = a[1];
              if (beta != 1.0)
                c = arith::MulFOp::create(b, l, floatConst(b, l, t, beta), c);
              y = arith::AddFOp::create(b, l, y, c);
            }
            return y;
          });
      result = convertTensor(rewriter, loc, result, element);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The sum of products with the given maps; the last loop dim reduces.
  static Value contract(OpBuilder &b, Location loc, Operation *op, Value lhs,
                        Value rhs, ArrayRef<AffineMap> maps,
                        RankedTensorType resultType, unsigned loops) {
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    return sumOfProducts(b, loc, lhs, rhs, maps, iterators, resultType,
                         accumulationType(op));
  }
};

/// numpy matmul of operands of rank >= 2, batch dims broadcast.
struct MatMulLowering : OpRewritePattern<MatMulOp> {
  MatMulLowering(MLIRContext *context, bool anyFormatAsGemm, bool widen)
      : OpRewritePattern(context), anyFormatAsGemm(anyFormatAsGemm),
        widen(widen) {}
  /// [batch..., M, K] x [K, N] as one 2-D GEMM in every format, not only
  /// f32 (the GPU path: one tensor-core GEMM).
  bool anyFormatAsGemm;
  /// f16 and bf16 products as widened f32 GEMMs (computesAsF32Gemm).
  bool widen;

  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !isRanked(op.getA()) || !isRanked(op.getB()) ||
        !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs ranked float tensors");
    auto a = cast<RankedTensorType>(op.getA().getType());
    auto b = cast<RankedTensorType>(op.getB().getType());
    if (a.getRank() < 2 || b.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "1-D operands not lowered yet");
    MLIRContext *ctx = getContext();
    // [batch..., M, K] x [K, N]: one matmul over the collapsed rows.
    bool named = computesAsF32Gemm(op, resultType, a.getElementType(),
                                   b.getElementType(), widen);
    if ((named || anyFormatAsGemm) && b.getRank() == 2) {
      Location loc = op.getLoc();
      Value lhs = op.getA();
      ReassociationIndices leading;
      for (int64_t i = 0; i + 1 < a.getRank(); ++i)
        leading.push_back(i);
      int64_t rows = collapsedShape(a, {leading, {a.getRank() - 1}})[0];
      if (a.getRank() > 2)
        lhs = collapse(rewriter, loc, lhs, {rows, a.getShape().back()},
                       {leading, {a.getRank() - 1}});
      Value product;
      if (named) {
        product =
            f32Gemm(rewriter, loc, lhs, op.getB(), resultType.getElementType());
      } else {
        auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
        SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                                       AffineMap::get(3, 0, {d(2), d(1)}, ctx),
                                       AffineMap::get(3, 0, {d(0), d(1)}, ctx)};
        product = sumOfProducts(
            rewriter, loc, lhs, op.getB(), maps,
            {utils::IteratorType::parallel, utils::IteratorType::parallel,
             utils::IteratorType::reduction},
            RankedTensorType::get({rows, b.getShape().back()},
                                  resultType.getElementType()),
            accumulationType(op));
      }
      if (resultType.getRank() > 2) {
        // [batch..., M] from A, N from B.
        SmallVector<OpFoldResult> sizes;
        for (int64_t i = 0; i + 1 < a.getRank(); ++i)
          sizes.push_back(tensor::getMixedSize(rewriter, loc, op.getA(), i));
        sizes.push_back(tensor::getMixedSize(rewriter, loc, op.getB(), 1));
        product = expand(rewriter, loc, product, resultType,
                         {leading, {resultType.getRank() - 1}}, sizes);
      }
      rewriter.replaceOp(op, product);
      return success();
    }
    // Run-time sizes (a dynamic variant's attention), all f32: a
    // linalg.batch_matmul, one GEMM call per batch element after
    // dsmp-linalg-to-blas (loops with run-time extents run 2-3x slower).
    if (named && !resultType.hasStaticShape() && a.getRank() == 3 &&
        b.getRank() == 3 && a.getElementType().isF32() &&
        b.getElementType().isF32() && resultType.getElementType().isF32()) {
      Location loc = op.getLoc();
      // The batch: the larger of the two (one of them may be 1).
      Value batch =
          a.getDimSize(0) == 1 ? dimSize(rewriter, loc, op.getB(), 0)
          : b.getDimSize(0) == 1
              ? dimSize(rewriter, loc, op.getA(), 0)
              : Value(arith::MaxSIOp::create(
                    rewriter, loc, dimSize(rewriter, loc, op.getA(), 0),
                    dimSize(rewriter, loc, op.getB(), 0)));
      Value sizes[] = {batch, dimSize(rewriter, loc, op.getA(), 1),
                       dimSize(rewriter, loc, op.getB(), 2)};
      SmallVector<Value> dynamic;
      for (int64_t d = 0; d < 3; ++d)
        if (resultType.isDynamicDim(d))
          dynamic.push_back(sizes[d]);
      Type f32 = rewriter.getF32Type();
      Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                           f32, dynamic);
      init = linalg::FillOp::create(
                 rewriter, loc, ValueRange{floatConst(rewriter, loc, f32, 0)},
                 ValueRange{init})
                 .getResult(0);
      rewriter.replaceOp(op,
                         linalg::BatchMatmulOp::create(
                             rewriter, loc, TypeRange{resultType},
                             ValueRange{op.getA(), op.getB()}, ValueRange{init})
                             .getResult(0));
      return success();
    }
    int64_t rank = resultType.getRank(); // batch dims + M + N
    unsigned loops = rank + 1;           // + K
    AffineExpr k = getAffineDimExpr(rank, ctx);
    auto operandMap = [&](RankedTensorType t, bool isLhs) {
      SmallVector<AffineExpr> exprs;
      int64_t batch = t.getRank() - 2;
      for (int64_t i = 0; i < batch; ++i) {
        int64_t dim = rank - 2 - batch + i;
        exprs.push_back(t.getDimSize(i) == 1 && resultType.getDimSize(dim) != 1
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(dim, ctx));
      }
      if (isLhs) {
        exprs.push_back(getAffineDimExpr(rank - 2, ctx));
        exprs.push_back(k);
      } else {
        exprs.push_back(k);
        exprs.push_back(getAffineDimExpr(rank - 1, ctx));
      }
      return AffineMap::get(loops, 0, exprs, ctx);
    };
    SmallVector<AffineMap> maps = {
        operandMap(a, true), operandMap(b, false),
        AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank)};
    Value result = GemmLowering::contract(rewriter, op.getLoc(), op, op.getA(),
                                          op.getB(), maps, resultType, loops);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The result [N, ...] of `perSample` on each sample [1, ...] of `input`
/// (an scf.for to the input's batch, its results inserted in turn):
/// `perSample` gets the sample, the type of its result and that result's
/// dims. `sizes` are the whole result's dims.
Value forEachSample(
    OpBuilder &b, Location loc, Value input, RankedTensorType resultType,
    ArrayRef<OpFoldResult> sizes,
    function_ref<Value(OpBuilder &, Location, Value, RankedTensorType,
                       ArrayRef<OpFoldResult>)>
        perSample) {
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank(), resultRank = resultType.getRank();
  SmallVector<int64_t> oneIn(inType.getShape()), oneOut(resultType.getShape());
  oneIn[0] = oneOut[0] = 1;
  auto sampleIn = RankedTensorType::get(oneIn, inType.getElementType());
  auto sampleOut = RankedTensorType::get(oneOut, resultType.getElementType());
  Value init = emptyOfSizes(b, loc, resultType, sizes);
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = dimSize(b, loc, input, 0);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lower, upper, step, ValueRange{init},
      [&](OpBuilder &nb, Location nl, Value n, ValueRange acc) {
        auto at = [&](int64_t r) {
          SmallVector<OpFoldResult> offsets(r, nb.getIndexAttr(0));
          offsets[0] = n;
          return offsets;
        };
        SmallVector<OpFoldResult> inSizes{nb.getIndexAttr(1)},
            outSizes{nb.getIndexAttr(1)};
        for (int64_t d = 1; d < rank; ++d)
          inSizes.push_back(dimFold(nb, nl, input, d));
        for (int64_t d = 1; d < resultRank; ++d)
          outSizes.push_back(sizes[d]);
        Value sample = tensor::ExtractSliceOp::create(
            nb, nl, sampleIn, input, at(rank), inSizes,
            SmallVector<OpFoldResult>(rank, nb.getIndexAttr(1)));
        Value result = perSample(nb, nl, sample, sampleOut, outSizes);
        Value next = tensor::InsertSliceOp::create(
            nb, nl, result, acc[0], at(resultRank), outSizes,
            SmallVector<OpFoldResult>(resultRank, nb.getIndexAttr(1)));
        scf::YieldOp::create(nb, nl, next);
      });
  return loop.getResult(0);
}

/// Grouped N-d convolution as one linalg.generic over (n, m, out spatial...,
/// c, kernel...), the input channel being (m floordiv M/group) * C/group + c,
/// then the bias.
struct ConvLowering : OpRewritePattern<ConvOp> {
  ConvLowering(MLIRContext *context, bool anyFormatAsGemm, bool widen)
      : OpRewritePattern(context), anyFormatAsGemm(anyFormatAsGemm),
        widen(widen) {}
  bool anyFormatAsGemm;
  /// f16 and bf16 convolutions as widened f32 GEMMs (computesAsF32Gemm).
  bool widen;

  /// A one-group convolution as W[F, C*K] x col[C*K, N*O] (im2col; a 1x1
  /// stride-1 convolution at batch 1 uses the input as col directly); at
  /// batch N > 1 the product [F, N, O] is then transposed to [N, F, O].
  /// `sizes` are the result's dims; the output window's may be sized at run
  /// time at batch 1.
  template <typename Window>
  static Value convAsMatmul(OpBuilder &b, Location loc, Value input, Value w,
                            RankedTensorType resultType, const Window &window,
                            Type acc, ArrayRef<OpFoldResult> sizes) {
    MLIRContext *ctx = b.getContext();
    auto inType = cast<RankedTensorType>(input.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    int64_t batch = inType.getDimSize(0);
    int64_t spatial = resultType.getRank() - 2;
    int64_t channels = wType.getDimSize(1), filters = wType.getDimSize(0);
    ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
    ArrayRef<int64_t> outSpatial = resultType.getShape().drop_front(2);
    int64_t kernelSize = 1, outSize = 1;
    for (int64_t k : kernel)
      kernelSize *= k;
    for (int64_t o : outSpatial)
      outSize *= o;
    if (llvm::any_of(outSpatial, ShapedType::isDynamic))
      outSize = ShapedType::kDynamic; // at batch 1 only
    int64_t columns = batch == 1 ? outSize : batch * outSize;
    bool pointwise = batch == 1 && kernelSize == 1 &&
                     llvm::equal(inType.getShape().drop_front(2), outSpatial);
    for (int64_t i = 0; i < spatial; ++i)
      pointwise &= window.strides[i] == 1;
    ReassociationIndices spatialDims, kernelDims;
    for (int64_t i = 0; i < spatial; ++i)
      spatialDims.push_back(2 + i);
    Value col;
    if (pointwise) {
      // [1, C, O...] -> [C, O]
      ReassociationIndices rest;
      for (int64_t i = 0; i < spatial; ++i)
        rest.push_back(2 + i);
      col = collapse(b, loc, input, {channels, outSize}, {{0, 1}, rest});
    } else {
      // col[c, k..., (n,) o...] = input[n, c, o * stride + k * dilation]
      // (n only at batch > 1).
      unsigned batchDims = batch > 1 ? 1 : 0;
      unsigned loops = 1 + 2 * spatial + batchDims;
      auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
      SmallVector<AffineExpr> inExprs{
          batchDims ? d(1 + spatial) : getAffineConstantExpr(0, ctx), d(0)};
      SmallVector<int64_t> colShape{channels};
      SmallVector<OpFoldResult> colSizes{b.getIndexAttr(channels)};
      for (int64_t i = 0; i < spatial; ++i) {
        colShape.push_back(kernel[i]);
        colSizes.push_back(b.getIndexAttr(kernel[i]));
      }
      if (batchDims) {
        colShape.push_back(batch);
        colSizes.push_back(b.getIndexAttr(batch));
      }
      for (int64_t i = 0; i < spatial; ++i) {
        colShape.push_back(outSpatial[i]);
        colSizes.push_back(sizes[2 + i]);
        inExprs.push_back(d(1 + spatial + batchDims + i) * window.strides[i] +
                          d(1 + i) * window.dilations[i]);
      }
      col =
          copyThroughMap(b, loc, input, AffineMap::get(loops, 0, inExprs, ctx),
                         colShape, colSizes);
      ReassociationIndices first{0}, last;
      for (int64_t i = 0; i < spatial; ++i)
        first.push_back(1 + i);
      for (unsigned i = 0; i < spatial + batchDims; ++i)
        last.push_back(1 + spatial + i);
      col = collapse(b, loc, col, {channels * kernelSize, columns},
                     {first, last});
    }
    ReassociationIndices wRest{1};
    for (int64_t i = 0; i < spatial; ++i)
      wRest.push_back(2 + i);
    Value weights =
        collapse(b, loc, w, {filters, channels * kernelSize}, {{0}, wRest});
    Value product;
    if (resultType.getElementType().isF32() && acc.isF32() &&
        wType.getElementType().isF32()) {
      product = namedMatmul(b, loc, weights, col);
    } else {
      // Another format: the operands converted to `acc`, accumulated there
      // and rounded once to the result's type (as every contraction).
      auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
      SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                                     AffineMap::get(3, 0, {d(2), d(1)}, ctx),
                                     AffineMap::get(3, 0, {d(0), d(1)}, ctx)};
      product = sumOfProducts(
          b, loc, weights, col, maps,
          {utils::IteratorType::parallel, utils::IteratorType::parallel,
           utils::IteratorType::reduction},
          RankedTensorType::get({filters, columns},
                                resultType.getElementType()),
          acc);
    }
    if (batch == 1)
      return expand(b, loc, product, resultType, {{0, 1}, spatialDims}, sizes);
    // [F, N*O] -> [F, N, O...] -> [N, F, O...]
    SmallVector<int64_t> byFilter{filters, batch};
    llvm::append_range(byFilter, outSpatial);
    ReassociationIndices batchAndPlane{1};
    for (int64_t i = 0; i < spatial; ++i)
      batchAndPlane.push_back(2 + i);
    auto byFilterType =
        RankedTensorType::get(byFilter, resultType.getElementType());
    Value grouped = expand(b, loc, product, byFilterType, {{0}, batchAndPlane});
    SmallVector<AffineExpr> read{getAffineDimExpr(1, ctx),
                                 getAffineDimExpr(0, ctx)};
    for (int64_t i = 0; i < spatial; ++i)
      read.push_back(getAffineDimExpr(2 + i, ctx));
    return copyThroughMap(b, loc, grouped,
                          AffineMap::get(resultType.getRank(), 0, read, ctx),
                          resultType.getShape());
  }

  /// Batches whose im2col matrix for the whole batch stays within this many
  /// elements (16 MB in f32) and whose samples have few outputs each are
  /// convolved as one GEMM: a sample's own GEMM would have fewer than
  /// kMaxBatchedPlane columns (the digits CNN's 8x8, a weight gradient's
  /// 3x3), where the library runs far below its peak.
  static constexpr int64_t kMaxBatchedIm2col = int64_t(1) << 22;
  static constexpr int64_t kMaxBatchedPlane = 1024;
  static bool convolvesBatchAsOneGemm(RankedTensorType resultType,
                                      RankedTensorType wType) {
    int64_t plane = 1, window = 1;
    for (int64_t o : resultType.getShape().drop_front(2))
      plane *= o;
    for (int64_t k : wType.getShape().drop_front(1))
      window *= k;
    int64_t batch = resultType.getDimSize(0);
    return plane < kMaxBatchedPlane &&
           window * plane * batch <= kMaxBatchedIm2col;
  }

  /// convAsMatmul for each sample of a batch: an scf.for whose body
  /// convolves one sample (an im2col GEMM the BLAS rewrite calls) and
  /// inserts it into the batch's result. The same per-sample arithmetic as
  /// at batch 1, where the generic nest was ~4x slower per image (resnet18).
  /// With run-time sizes (`sizes`, the result's dims) the loop runs to the
  /// input's batch and each sample's window may be sized at run time.
  template <typename Window>
  static Value convEachSample(OpBuilder &b, Location loc, Value input, Value w,
                              RankedTensorType resultType, const Window &window,
                              Type accType, ArrayRef<OpFoldResult> sizes) {
    return forEachSample(b, loc, input, resultType, sizes,
                         [&](OpBuilder &nb, Location nl, Value sample,
                             RankedTensorType sampleType,
                             ArrayRef<OpFoldResult> sampleSizes) {
                           return convAsMatmul(nb, nl, sample, w, sampleType,
                                               window, accType, sampleSizes);
                         });
  }

  /// Windows of at most this many products per output (a depthwise 3x3 or
  /// 5x5) are unrolled into the body of an all-parallel generic.
  static constexpr int64_t kMaxUnrolledWindow = 32;
  /// Independent partial sums per output in an unrolled window.
  static constexpr int64_t kPartialSums = 4;
  /// Ungrouped convolutions with at most this many products per output
  /// (1x1 over <= 24 channels) unroll too: beyond it the weights no longer
  /// fit in vector registers and the GEMM is faster.
  static constexpr int64_t kMaxUnrolledDot = 24;

  /// An f32 convolution with few products per output (depthwise, or a 1x1
  /// over a few channels): one all-parallel generic over the output whose
  /// body reads the window from the (padded) input and the weights directly
  /// and adds the bias. No zero-filled output, no separate bias pass, no
  /// loop-carried output load and store: LLVM vectorizes the output's
  /// innermost dim, and an activation after it fuses into the same loop.
  /// The products (channels, then the window) go into kPartialSums partial
  /// sums, added pairwise, then the bias.
  template <typename Window>
  static Value
  unrolledWindowConv(OpBuilder &b, Location loc, Value input, Value w,
                     Value bias, RankedTensorType resultType, int64_t group,
                     const Window &window, ArrayRef<OpFoldResult> sizes) {
    MLIRContext *ctx = b.getContext();
    auto wType = cast<RankedTensorType>(w.getType());
    int64_t rank = resultType.getRank(), spatial = rank - 2;
    int64_t cPerGroup = wType.getDimSize(1);
    int64_t mPerGroup = resultType.getDimSize(1) / group;
    ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
    SmallVector<AffineMap> maps;
    SmallVector<Value> inputs;
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Type f32 = b.getF32Type();
    Value init = emptyOfSizes(
        b, loc, RankedTensorType::get(resultType.getShape(), f32), sizes);
    return linalg::GenericOp::create(
               b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
               SmallVector<utils::IteratorType>(rank,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 auto index = [&](int64_t v) -> Value {
                   return arith::ConstantIndexOp::create(nb, nl, v);
                 };
                 SmallVector<Value> out;
                 for (int64_t d = 0; d < rank; ++d)
                   out.push_back(linalg::IndexOp::create(nb, nl, d));
                 // First input channel of m's group (0 without groups: the
                 // reads then do not depend on m, which
                 // dsmp-order-loops-for-locality uses).
                 Value channel0 =
                     group == 1 ? index(0)
                                : arith::MulIOp::create(
                                      nb, nl,
                                      arith::DivUIOp::create(nb, nl, out[1],
                                                             index(mPerGroup)),
                                      index(cPerGroup))
                                      .getResult();
                 SmallVector<Value> base;
                 for (int64_t i = 0; i < spatial; ++i)
                   base.push_back(arith::MulIOp::create(
                       nb, nl, out[2 + i], index(window.strides[i])));
                 // Products go round-robin into a few partial sums, so the
                 // vectorized loop is not one long chain of dependent adds.
                 // Explicit FMAs: LLVM contracting mul + add by itself would
                 // pick different pairs on x86-64 and AArch64, whose
                 // results must agree.
                 int64_t products = cPerGroup;
                 for (int64_t k : kernel)
                   products *= k;
                 SmallVector<Value> partial(
                     std::min<int64_t>(kPartialSums, products));
                 int64_t next = 0;
                 int64_t taps = 1;
                 for (int64_t k : kernel)
                   taps *= k;
                 for (int64_t c = 0; c < cPerGroup; ++c) {
                   Value ic = arith::AddIOp::create(nb, nl, channel0, index(c));
                   for (int64_t t = 0; t < taps; ++t) {
                     // t as kernel coordinates, row-major.
                     SmallVector<int64_t> k(spatial);
                     for (int64_t i = spatial - 1, r = t; i >= 0; --i) {
                       k[i] = r % kernel[i];
                       r /= kernel[i];
                     }
                     SmallVector<Value> at{out[0], ic};
                     SmallVector<Value> wAt{out[1], index(c)};
                     for (int64_t i = 0; i < spatial; ++i) {
                       at.push_back(arith::AddIOp::create(
                           nb, nl, base[i], index(k[i] * window.dilations[i])));
                       wAt.push_back(index(k[i]));
                     }
                     Value x = tensor::ExtractOp::create(nb, nl, input, at);
                     Value y = tensor::ExtractOp::create(nb, nl, w, wAt);
                     Value &acc = partial[next++ % partial.size()];
                     acc =
                         acc ? math::FmaOp::create(nb, nl, x, y, acc)
                                   .getResult()
                             : arith::MulFOp::create(nb, nl, x, y).getResult();
                   }
                 }
                 // Pairwise: (p0 + p1) + (p2 + p3).
                 while (partial.size() > 1) {
                   SmallVector<Value> halved;
                   for (size_t i = 0; i + 1 < partial.size(); i += 2)
                     halved.push_back(arith::AddFOp::create(nb, nl, partial[i],
                                                            partial[i + 1]));
                   if (partial.size() % 2)
                     halved.push_back(partial.back());
                   partial = std::move(halved);
                 }
                 Value sum = partial.front();
                 if (bias)
                   sum = arith::AddFOp::create(nb, nl, sum, args[0]);
                 linalg::YieldOp::create(nb, nl, sum);
               })
        .getResult(0);
  }

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !isRanked(op.getX()) || !isStatic(op.getW()) ||
        !isFloat(resultType) || resultType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "needs ranked float shapes");
    auto wType = cast<RankedTensorType>(op.getW().getType());
    int64_t spatial = resultType.getRank() - 2;
    // Batch and window dims may be sized at run time (a dynamic variant).
    bool dynamic = !resultType.hasStaticShape() || !isStatic(op.getX());
    auto window = windowOf(
        op, spatial, wType.getShape().drop_front(2),
        cast<RankedTensorType>(op.getX().getType()).getShape().drop_front(2),
        resultType.getShape().drop_front(2));
    if (failed(window))
      return rewriter.notifyMatchFailure(
          op, "auto_pad not lowered (SAME at a stride over a run-time size)");
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value input = padSpatial(rewriter, loc, op.getX(), window->pads, 0.0);
    SmallVector<OpFoldResult> sizes = windowResultSizes(
        rewriter, loc, input, resultType, wType.getShape().drop_front(2),
        window->strides, window->dilations);
    int64_t group = op.getGroup();
    int64_t mPerGroup = resultType.getDimSize(1) / group;
    int64_t cPerGroup = wType.getDimSize(1);
    int64_t windowSize = cPerGroup;
    for (int64_t k : wType.getShape().drop_front(2))
      windowSize *= k;
    // Ungrouped (a 1x1 over a few channels): at stride 1 only, where the
    // vectorized loop reads contiguous rows (a strided first layer would
    // gather; im2col + GEMM is faster there).
    bool unitStrides =
        llvm::all_of(window->strides, [](int64_t s) { return s == 1; });
    bool unroll = group > 1 ? windowSize <= kMaxUnrolledWindow
                            : unitStrides && windowSize <= kMaxUnrolledDot;
    if (unroll && usesNamedMatmul(op, resultType) &&
        wType.getElementType().isF32()) {
      Value bias = isa<NoneType>(op.getB().getType()) ? Value() : op.getB();
      rewriter.replaceOp(op, unrolledWindowConv(rewriter, loc, input, op.getW(),
                                                bias, resultType, group,
                                                *window, sizes));
      return success();
    }
    // Loops: n, m, o_0..o_s-1, c, k_0..k_s-1.
    unsigned loops = 3 + 2 * spatial;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineExpr n = d(0), m = d(1), c = d(2 + spatial);
    SmallVector<AffineExpr> inExprs{n, m.floorDiv(mPerGroup) * cPerGroup + c};
    SmallVector<AffineExpr> wExprs{m, c};
    SmallVector<AffineExpr> outExprs{n, m};
    for (int64_t i = 0; i < spatial; ++i) {
      AffineExpr o = d(2 + i), k = d(3 + spatial + i);
      inExprs.push_back(o * window->strides[i] + k * window->dilations[i]);
      wExprs.push_back(k);
      outExprs.push_back(o);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, wExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::reduction);
    for (unsigned i = 0; i < 2 + spatial; ++i)
      iterators[i] = utils::IteratorType::parallel;
    Type element = resultType.getElementType();
    Value result;
    bool asF32Gemm = computesAsF32Gemm(
        op, resultType,
        cast<RankedTensorType>(op.getX().getType()).getElementType(),
        wType.getElementType(), widen);
    bool asMatmul = group == 1 && (anyFormatAsGemm || asF32Gemm);
    Type acc = accumulationType(op);
    bool hasBias = !isa<NoneType>(op.getB().getType());
    bool wideBias = hasBias && biasInAccumulator(element, acc);
    // A 16-bit one as the f32 GEMMs (computesAsF32Gemm): the input and the
    // weights widened once, the sum rounded once to the result type.
    Value weights = op.getW();
    RankedTensorType productType = resultType;
    Type f32 = rewriter.getF32Type();
    if (asF32Gemm) {
      input = convertTensor(rewriter, loc, input, f32);
      weights = convertTensor(rewriter, loc, weights, f32);
    }
    if (asF32Gemm || wideBias)
      productType = RankedTensorType::get(resultType.getShape(), f32);
    // A batch sized at run time, or a window sized at run time at batch > 1,
    // goes sample by sample.
    bool oneGemm = resultType.getDimSize(0) == 1 ||
                   (!dynamic && convolvesBatchAsOneGemm(resultType, wType));
    if (asMatmul && oneGemm)
      result = convAsMatmul(rewriter, loc, input, weights, productType, *window,
                            acc, sizes);
    else if (asMatmul)
      result = convEachSample(rewriter, loc, input, weights, productType,
                              *window, acc, sizes);
    else
      result = sumOfProducts(rewriter, loc, input, op.getW(), maps, iterators,
                             productType, acc, sizes);
    if (!wideBias)
      result = convertTensor(rewriter, loc, result, element);
    if (hasBias) {
      // The bias [M] broadcasts along dim 1.
      SmallVector<AffineMap> biasMaps = {
          AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx),
          AffineMap::get(resultType.getRank(), 0, {d(1)}, ctx),
          AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx)};
      Value out = emptyOfSizes(rewriter, loc, resultType, sizes);
      result =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{resultType},
              ValueRange{result, op.getB()}, ValueRange{out}, biasMaps,
              SmallVector<utils::IteratorType>(resultType.getRank(),
                                               utils::IteratorType::parallel),
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value sum = args[0], bias = args[1];
                if (wideBias)
                  bias = convertFloat(b, l, bias, f32);
                Value y = arith::AddFOp::create(b, l, sum, bias);
                linalg::YieldOp::create(b, l, convertFloat(b, l, y, element));
              })
              .getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ConvTranspose as a convolution: the input spread out by the strides with
/// zeros between, padded by dilation * (kernel - 1) minus the pads (plus
/// output_padding at the end), convolved at stride 1 in the same groups with
/// the weights [C, F/g, k..] regrouped to [F, C/g, k..] and flipped. The
/// dsmp.conv it builds is then lowered by ConvLowering.
struct ConvTransposeLowering : OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  /// Whether a one-group f32 ConvTranspose's kernel tiles the output
  /// exactly (strides == kernel, no dilation, pads or output padding: the
  /// 2x2 stride-2 upsampling of segmentation heads).
  template <typename Window>
  static bool tilesOutput(ConvTransposeOp op, const Window &window,
                          ArrayRef<int64_t> outputPadding,
                          RankedTensorType resultType) {
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto wType = cast<RankedTensorType>(op.getW().getType());
    int64_t spatial = xType.getRank() - 2;
    if (op.getGroup() != 1 || !xType.getElementType().isF32() ||
        !wType.getElementType().isF32() || !usesNamedMatmul(op, resultType))
      return false;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = xType.getDimSize(2 + i), out = resultType.getDimSize(2 + i);
      if (window.strides[i] != window.kernel[i] || window.dilations[i] != 1 ||
          window.pads[i] != 0 || window.pads[spatial + i] != 0 ||
          outputPadding[i] != 0 ||
          (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(out) &&
           out != in * window.kernel[i]))
        return false;
    }
    return true;
  }

  /// A ConvTranspose that tilesOutput on one sample x [1, C, H..]: each
  /// input pixel writes its own K0 x K1 block, so the result is one product
  /// W'[F*K, C] x X[C, H*W] and a depth-to-space, with the bias, in one
  /// generic. The general path would convolve an input spread out with
  /// zeros (im2col over K times the output: 157 MB for ppocr_det_v4's last
  /// layer). `sizes` are the result's dims (H, W may be sized at run time).
  template <typename Window>
  static Value tiledConvTranspose(OpBuilder &b, Location loc, Value x, Value w,
                                  Value bias, const Window &window,
                                  RankedTensorType resultType,
                                  ArrayRef<OpFoldResult> sizes) {
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    int64_t rank = xType.getRank(), spatial = rank - 2;
    int64_t kernelSize = 1, pixels = 1;
    for (int64_t i = 0; i < spatial; ++i) {
      kernelSize *= window.kernel[i];
      pixels *= xType.getDimSize(2 + i);
    }
    if (!xType.hasStaticShape())
      pixels = ShapedType::kDynamic;
    MLIRContext *ctx = b.getContext();
    int64_t channels = wType.getDimSize(0), filters = wType.getDimSize(1);
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // w'[f, k.., c] = w[c, f, k..]
    SmallVector<int64_t> permutedShape{filters};
    for (int64_t i = 0; i < spatial; ++i)
      permutedShape.push_back(window.kernel[i]);
    permutedShape.push_back(channels);
    SmallVector<AffineExpr> read{d(rank - 1), d(0)};
    for (int64_t i = 0; i < spatial; ++i)
      read.push_back(d(1 + i));
    Value permuted = copyThroughMap(
        b, loc, w, AffineMap::get(rank, 0, read, ctx), permutedShape);
    ReassociationIndices rows, xRest;
    for (int64_t i = 0; i < rank - 1; ++i)
      rows.push_back(i);
    for (int64_t i = 0; i < spatial; ++i)
      xRest.push_back(2 + i);
    Value lhs = collapse(b, loc, permuted, {filters * kernelSize, channels},
                         {rows, {rank - 1}});
    Value rhs = collapse(b, loc, x, {channels, pixels}, {{0, 1}, xRest});
    Value product = namedMatmul(b, loc, lhs, rhs);
    // product[f, k.., h..] as a tensor, read at (f, o mod K.., o div K..).
    SmallVector<int64_t> blockShape{filters};
    SmallVector<OpFoldResult> blockSizes{b.getIndexAttr(filters)};
    for (int64_t i = 0; i < spatial; ++i) {
      blockShape.push_back(window.kernel[i]);
      blockSizes.push_back(b.getIndexAttr(window.kernel[i]));
    }
    for (int64_t i = 0; i < spatial; ++i) {
      blockShape.push_back(xType.getDimSize(2 + i));
      blockSizes.push_back(dimFold(b, loc, x, 2 + i));
    }
    ReassociationIndices first{0}, last;
    for (int64_t i = 0; i < spatial; ++i) {
      first.push_back(1 + i);
      last.push_back(1 + spatial + i);
    }
    Value blocks = expand(b, loc, product,
                          RankedTensorType::get(blockShape, b.getF32Type()),
                          {first, last}, blockSizes);
    SmallVector<AffineExpr> blockRead{d(1)};
    for (int64_t i = 0; i < spatial; ++i)
      blockRead.push_back(d(2 + i) % window.kernel[i]);
    for (int64_t i = 0; i < spatial; ++i)
      blockRead.push_back(d(2 + i).floorDiv(window.kernel[i]));
    SmallVector<Value> inputs{blocks};
    SmallVector<AffineMap> maps{AffineMap::get(rank, 0, blockRead, ctx)};
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(AffineMap::get(rank, 0, {d(1)}, ctx));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    return linalg::GenericOp::create(
               b, loc, TypeRange{resultType}, inputs,
               ValueRange{emptyOfSizes(b, loc, resultType, sizes)}, maps,
               SmallVector<utils::IteratorType>(rank,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value y = args[0];
                 if (bias)
                   y = arith::AddFOp::create(nb, l, y, args[1]);
                 linalg::YieldOp::create(nb, l, y);
               })
        .getResult(0);
  }

  LogicalResult matchAndRewrite(ConvTransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !isRanked(op.getX()) || !isStatic(op.getW()) ||
        !isFloat(resultType) || resultType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "needs ranked float shapes");
    // Batch and spatial dims may be sized at run time (a dynamic variant),
    // where the pads do not depend on them.
    bool dynamic = !resultType.hasStaticShape() || !isStatic(op.getX());
    if (dynamic &&
        (op.getOutputShapeAttr() || op.getAutoPad().starts_with("SAME")))
      return rewriter.notifyMatchFailure(
          op, "output_shape or SAME pads of run-time sizes");
    int64_t group = op.getGroup();
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto wType = cast<RankedTensorType>(op.getW().getType());
    int64_t spatial = xType.getRank() - 2;
    ArrayRef<int64_t> inDims = xType.getShape().drop_front(2),
                      outDims = resultType.getShape().drop_front(2);
    auto window =
        windowOf(op, spatial, wType.getShape().drop_front(2), inDims, outDims);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "unknown auto_pad");
    SmallVector<int64_t> outputPadding(spatial, 0);
    if (auto attr = op.getOutputPaddingAttr())
      outputPadding.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
    // output_shape or SAME auto_pad: ConvTranspose's own padding rule
    // (ONNX's reference; floor division, so a total of -1 pads nothing in
    // front and the last row comes from the end).
    StringRef autoPad = op.getAutoPad();
    if (op.getOutputShapeAttr() || autoPad.starts_with("SAME")) {
      for (int64_t i = 0; i < spatial; ++i) {
        int64_t total =
            window->strides[i] * (inDims[i] - 1) + outputPadding[i] +
            (window->kernel[i] - 1) * window->dilations[i] + 1 - outDims[i];
        int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
        int64_t begin = autoPad == "SAME_UPPER" ? half : total - half;
        window->pads[i] = begin;
        window->pads[spatial + i] = total - begin;
      }
    }
    SmallVector<int64_t> pads(2 * spatial);
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t reach = window->dilations[i] * (window->kernel[i] - 1);
      pads[i] = reach - window->pads[i];
      pads[spatial + i] = reach - window->pads[spatial + i] + outputPadding[i];
      if (pads[i] < 0 || pads[spatial + i] < 0)
        return rewriter.notifyMatchFailure(op, "pads wider than the kernel");
    }
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type element = xType.getElementType();

    if (tilesOutput(op, *window, outputPadding, resultType)) {
      // The result's dims: the input's batch, each spatial dim K times.
      SmallVector<OpFoldResult> sizes;
      for (int64_t i = 0; i < resultType.getRank(); ++i) {
        if (!resultType.isDynamicDim(i))
          sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(i)));
        else if (i == 0)
          sizes.push_back(dimFold(rewriter, loc, op.getX(), 0));
        else
          sizes.push_back(Value(arith::MulIOp::create(
              rewriter, loc, dimSize(rewriter, loc, op.getX(), i),
              arith::ConstantIndexOp::create(rewriter, loc,
                                             window->kernel[i - 2]))));
      }
      Value bias = isa<NoneType>(op.getB().getType()) ? Value() : op.getB();
      auto tiled = [&](OpBuilder &b, Location l, Value sample,
                       RankedTensorType sampleType,
                       ArrayRef<OpFoldResult> sampleSizes) {
        return tiledConvTranspose(b, l, sample, op.getW(), bias, *window,
                                  sampleType, sampleSizes);
      };
      rewriter.replaceOp(
          op, resultType.getDimSize(0) == 1
                  ? tiled(rewriter, loc, op.getX(), resultType, sizes)
                  : forEachSample(rewriter, loc, op.getX(), resultType, sizes,
                                  tiled));
      return success();
    }

    // The input spread out by the strides.
    SmallVector<int64_t> upShape(xType.getShape());
    SmallVector<OpFoldResult> offsets, sizes, strides, upSizes;
    for (int64_t i = 0; i < xType.getRank(); ++i) {
      int64_t stride = i < 2 ? 1 : window->strides[i - 2];
      OpFoldResult size = dimFold(rewriter, loc, op.getX(), i);
      upSizes.push_back(size);
      if (i >= 2 && !xType.isDynamicDim(i)) {
        upShape[i] = (xType.getDimSize(i) - 1) * stride + 1;
      } else if (i >= 2) {
        Value index = getValueOrCreateConstantIndexOp(rewriter, loc, size);
        Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
        upSizes.back() = Value(arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(
                rewriter, loc, arith::SubIOp::create(rewriter, loc, index, one),
                arith::ConstantIndexOp::create(rewriter, loc, stride)),
            one));
      }
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(size);
      strides.push_back(rewriter.getIndexAttr(stride));
    }
    Value up = emptyOfSizes(rewriter, loc,
                            RankedTensorType::get(upShape, element), upSizes);
    up = linalg::FillOp::create(
             rewriter, loc, ValueRange{floatConst(rewriter, loc, element, 0)},
             ValueRange{up})
             .getResult(0);
    up = tensor::InsertSliceOp::create(rewriter, loc, op.getX(), up, offsets,
                                       sizes, strides);

    // w'[f, c, k..] = w[(f / (F/g)) * (C/g) + c, f mod (F/g), K - 1 - k..]
    int64_t channels = wType.getDimSize(0), perGroupOut = wType.getDimSize(1);
    if (group < 1 || channels % group != 0)
      return rewriter.notifyMatchFailure(op, "channels not divisible by group");
    int64_t perGroupIn = channels / group;
    SmallVector<int64_t> flippedShape(wType.getShape());
    flippedShape[0] = perGroupOut * group;
    flippedShape[1] = perGroupIn;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> read{d(0).floorDiv(perGroupOut) * perGroupIn + d(1),
                                 d(0) % perGroupOut};
    for (int64_t i = 0; i < spatial; ++i)
      read.push_back(window->kernel[i] - 1 - d(2 + i));
    Value flipped = copyThroughMap(
        rewriter, loc, op.getW(), AffineMap::get(wType.getRank(), 0, read, ctx),
        flippedShape);

    OperationState state(loc, ConvOp::getOperationName());
    state.addOperands({up, flipped, op.getB()});
    state.addTypes(resultType);
    state.addAttribute("pads", rewriter.getDenseI64ArrayAttr(pads));
    state.addAttribute("dilations",
                       rewriter.getDenseI64ArrayAttr(window->dilations));
    state.addAttribute("kernel_shape",
                       rewriter.getDenseI64ArrayAttr(window->kernel));
    if (group != 1)
      state.addAttribute("group", rewriter.getI64IntegerAttr(group));
    if (Attribute acc = op->getAttr("acc"))
      state.addAttribute("acc", acc);
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

/// Einsum: one linalg.generic whose loops are the equation's labels (the
/// result's parallel, the others reductions); each operand's map sends a
/// dim to its label's loop (a repeated label: a diagonal; a size-1 dim
/// against a larger label: 0, a broadcast). The product of the operands
/// accumulates in the accumulation format, converted once to the result.
struct EinsumLowering : OpRewritePattern<EinsumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(EinsumOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs a static float result");
    SmallVector<int64_t> ranks;
    SmallVector<ArrayRef<int64_t>> shapes;
    for (Value input : op.getInputs()) {
      if (!isStatic(input))
        return rewriter.notifyMatchFailure(op, "needs static operands");
      auto type = cast<RankedTensorType>(input.getType());
      ranks.push_back(type.getRank());
      shapes.push_back(type.getShape());
    }
    auto eq = EinsumEquation::parse(op.getEquation(), ranks);
    if (!eq)
      return rewriter.notifyMatchFailure(op, llvm::toString(eq.takeError()));
    auto sizes = eq->loopSizes(shapes);
    if (!sizes)
      return rewriter.notifyMatchFailure(op, llvm::toString(sizes.takeError()));
    MLIRContext *ctx = getContext();
    unsigned loops = eq->loops.size();
    SmallVector<AffineMap> maps;
    for (auto [labels, shape] : llvm::zip(eq->operands, shapes)) {
      SmallVector<AffineExpr> exprs;
      for (auto [label, dim] : llvm::zip(labels, shape)) {
        size_t loop = eq->loopOf(label);
        exprs.push_back(dim == 1 && (*sizes)[loop] != 1
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(loop, ctx));
      }
      maps.push_back(AffineMap::get(loops, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> resultExprs;
    for (size_t i = 0; i < eq->numResultLoops(); ++i)
      resultExprs.push_back(getAffineDimExpr(i, ctx));
    maps.push_back(AffineMap::get(loops, 0, resultExprs, ctx));
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::reduction);
    for (size_t i = 0; i < eq->numResultLoops(); ++i)
      iterators[i] = utils::IteratorType::parallel;

    Location loc = op.getLoc();
    Type acc = accumulationType(op);
    auto accType = RankedTensorType::get(resultType.getShape(), acc);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, accType.getShape(), acc);
    init = linalg::FillOp::create(rewriter, loc,
                                  ValueRange{floatConst(rewriter, loc, acc, 0)},
                                  ValueRange{init})
               .getResult(0);
    size_t n = op.getInputs().size();
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{accType}, op.getInputs(), ValueRange{init},
            maps, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value term = convertFloat(b, l, args[0], acc);
              for (size_t k = 1; k < n; ++k)
                term = arith::MulFOp::create(b, l, term,
                                             convertFloat(b, l, args[k], acc));
              linalg::YieldOp::create(
                  b, l, Value(arith::AddFOp::create(b, l, args[n], term)));
            })
            .getResult(0);
    Type element = resultType.getElementType();
    if (acc != element) {
      Value out = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                          element);
      unsigned rank = resultType.getRank();
      sum = linalg::GenericOp::create(
                rewriter, loc, TypeRange{resultType}, ValueRange{sum},
                ValueRange{out},
                SmallVector<AffineMap>(
                    2, AffineMap::getMultiDimIdentityMap(rank, ctx)),
                SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
                [&](OpBuilder &b, Location l, ValueRange args) {
                  linalg::YieldOp::create(b, l,
                                          convertFloat(b, l, args[0], element));
                })
                .getResult(0);
    }
    rewriter.replaceOp(op, sum);
    return success();
  }
};

} // namespace

namespace {
/// An f8 operand the precision passes made: dequantize_linear of f8 codes
/// with one constant scale and a zero zero point.
struct F8Operand {
  Value codes;
  double scale;
};
std::optional<F8Operand> f8Operand(Value v) {
  auto dq = v.getDefiningOp<DequantizeLinearOp>();
  if (!dq || !smallFloatOf(getElementTypeOrSelf(dq.getX().getType())) ||
      !isNoneOrZero(dq.getXZeroPoint()))
    return std::nullopt;
  DenseFPElementsAttr scale;
  if (!matchPattern(dq.getXScale(), m_Constant(&scale)) ||
      scale.getNumElements() != 1)
    return std::nullopt;
  return F8Operand{dq.getX(),
                   (*scale.getValues<APFloat>().begin()).convertToDouble()};
}
} // namespace

void mlir::dsmp::lowering::foldF8OperandsIntoGemms(func::FuncOp func) {
  func.walk([](GemmOp op) {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return;
    auto a = f8Operand(op.getA()), b = f8Operand(op.getB());
    if (!a || !b ||
        getElementTypeOrSelf(a->codes.getType()) !=
            getElementTypeOrSelf(b->codes.getType()))
      return;
    // sum (a sa)(b sb) = sa sb sum a b: the codes' product, scaled once.
    double alpha = op.getAlpha().convertToDouble() * a->scale * b->scale;
    op.getAMutable().assign(a->codes);
    op.getBMutable().assign(b->codes);
    op.setAlphaAttr(FloatAttr::get(Float32Type::get(op.getContext()), alpha));
  });
}

void mlir::dsmp::lowering::populateContractionPatterns(
    RewritePatternSet &patterns, bool convAsGemm, bool widen16BitGemm) {
  patterns.add<ConvTransposeLowering, EinsumLowering>(patterns.getContext());
  patterns.add<GemmLowering>(patterns.getContext(), widen16BitGemm);
  patterns.add<ConvLowering, MatMulLowering>(patterns.getContext(), convAsGemm,
                                             widen16BitGemm);
}
