//===- RoiAlign.cpp - Lowering RoiAlign -------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A generic over Y [R, C, output_height, output_width] whose body reads its
// region (tensor.extract of rois and batch_indices), and loops (scf.for)
// over the bin's sample grid, whose size an adaptive sampling_ratio takes
// from the region at run time (at most 256 per side). Each sample is
// bilinear over four taps of X, in f32 and in the order onnxruntime's
// kernel and the reference evaluator (lib/Execution/Evaluator/RoiAlign.cpp)
// compute it; taps are clamped into X, so a region outside X or a NaN
// reads zeros, never past X.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

/// The most samples per side of a bin an adaptive grid takes (the
/// evaluator's kMaxGrid).
constexpr int64_t kMaxGrid = 256;

struct RoiAlignLowering : OpRewritePattern<RoiAlignOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RoiAlignOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    if (!type || !type.hasStaticShape() || !xType || !xType.hasStaticShape() ||
        !isStatic(op.getRois()) || !isStatic(op.getBatchIndices()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t images = xType.getDimSize(0), height = xType.getDimSize(2),
            width = xType.getDimSize(3);
    int64_t outH = op.getOutputHeight(), outW = op.getOutputWidth();
    int64_t ratio = op.getSamplingRatio();
    bool halfPixel = op.getCoordinateTransformationMode() == "half_pixel";
    bool isMax = op.getMode() == "max";
    float scale = op.getSpatialScale().convertToFloat();
    Value x = op.getX(), rois = op.getRois(), batch = op.getBatchIndices();
    MLIRContext *ctx = getContext();
    Type f32 = rewriter.getF32Type(), element = type.getElementType();
    Location loc = op.getLoc();
    Value init =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), element);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(4, ctx)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          auto f = [&](double v) { return floatConst(b, l, f32, v); };
          auto add = [&](Value a, Value c) -> Value {
            return arith::AddFOp::create(b, l, a, c);
          };
          auto sub = [&](Value a, Value c) -> Value {
            return arith::SubFOp::create(b, l, a, c);
          };
          auto mul = [&](Value a, Value c) -> Value {
            return arith::MulFOp::create(b, l, a, c);
          };
          auto div = [&](Value a, Value c) -> Value {
            return arith::DivFOp::create(b, l, a, c);
          };
          auto cmp = [&](arith::CmpFPredicate p, Value a, Value c) -> Value {
            return arith::CmpFOp::create(b, l, p, a, c);
          };
          auto select = [&](Value c, Value t, Value e) -> Value {
            return arith::SelectOp::create(b, l, c, t, e);
          };
          auto both = [&](Value a, Value c) -> Value {
            return arith::AndIOp::create(b, l, a, c);
          };
          Type i64 = b.getI64Type(), index = b.getIndexType();
          auto int64 = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
          };
          auto toF32 = [&](Value i) -> Value {
            if (i.getType().isIndex())
              i = arith::IndexCastOp::create(b, l, i64, i);
            return arith::SIToFPOp::create(b, l, f32, i);
          };
          Value r = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value ph = toF32(linalg::IndexOp::create(b, l, 2));
          Value pw = toF32(linalg::IndexOp::create(b, l, 3));
          auto corner = [&](int64_t k) -> Value {
            Value at = arith::ConstantIndexOp::create(b, l, k);
            Value v = tensor::ExtractOp::create(b, l, rois, ValueRange{r, at});
            return convertFloat(b, l, v, f32);
          };
          // The region in input pixels.
          Value offset = f(halfPixel ? 0.5 : 0.0);
          Value startW = sub(mul(corner(0), f(scale)), offset);
          Value startH = sub(mul(corner(1), f(scale)), offset);
          Value roiW = sub(sub(mul(corner(2), f(scale)), offset), startW);
          Value roiH = sub(sub(mul(corner(3), f(scale)), offset), startH);
          if (!halfPixel) {
            roiW = arith::MaximumFOp::create(b, l, roiW, f(1));
            roiH = arith::MaximumFOp::create(b, l, roiH, f(1));
          }
          Value binH = div(roiH, f(double(outH)));
          Value binW = div(roiW, f(double(outW)));
          // Samples per side: sampling_ratio, or ceil(bin size) in
          // [0, kMaxGrid] (0 for a NaN).
          auto grid = [&](Value extent, int64_t bins) -> Value {
            if (ratio > 0)
              return int64(ratio);
            Value points =
                math::CeilOp::create(b, l, div(extent, f(double(bins))));
            Value capped =
                select(cmp(arith::CmpFPredicate::OGE, points, f(kMaxGrid)),
                       f(kMaxGrid),
                       select(cmp(arith::CmpFPredicate::OGT, points, f(0)),
                              points, f(0)));
            return arith::FPToSIOp::create(b, l, i64, capped);
          };
          Value gridH = grid(roiH, outH), gridW = grid(roiW, outW);
          Value gridHf = toF32(gridH), gridWf = toF32(gridW);
          Value count = toF32(arith::MaxSIOp::create(
              b, l, arith::MulIOp::create(b, l, gridH, gridW), int64(1)));
          // The image, clamped into X (the verifier-free data may lie).
          Value image = tensor::ExtractOp::create(b, l, batch, ValueRange{r});
          if (image.getType() != i64) // i32 indices
            image = arith::ExtSIOp::create(b, l, i64, image);
          image = arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, image, int64(0)),
              int64(images - 1));
          Value n = arith::IndexCastOp::create(b, l, index, image);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value yBase = add(startH, mul(ph, binH));
          Value xBase = add(startW, mul(pw, binW));
          Value first = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          auto rows = scf::ForOp::create(
              b, l, zero, arith::IndexCastOp::create(b, l, index, gridH), one,
              ValueRange{f(0), first},
              [&](OpBuilder &b, Location l, Value iy, ValueRange outer) {
                auto cols = scf::ForOp::create(
                    b, l, zero, arith::IndexCastOp::create(b, l, index, gridW),
                    one, outer,
                    [&](OpBuilder &b, Location l, Value ix, ValueRange acc) {
                      Value y =
                          add(yBase,
                              div(mul(add(toF32(iy), f(0.5)), binH), gridHf));
                      Value xx =
                          add(xBase,
                              div(mul(add(toF32(ix), f(0.5)), binW), gridWf));
                      // Inside [-1, size] on both axes (false for a NaN).
                      Value inside =
                          both(both(cmp(arith::CmpFPredicate::OGE, y, f(-1)),
                                    cmp(arith::CmpFPredicate::OLE, y,
                                        f(double(height)))),
                               both(cmp(arith::CmpFPredicate::OGE, xx, f(-1)),
                                    cmp(arith::CmpFPredicate::OLE, xx,
                                        f(double(width)))));
                      // Clamped into [0, size - 1]: the last pixel's row
                      // or column where onnxruntime pins y_low there.
                      auto clampTo = [&](Value v, int64_t size) -> Value {
                        v = select(inside, v, f(0));
                        return arith::MinimumFOp::create(
                            b, l, arith::MaximumFOp::create(b, l, v, f(0)),
                            f(double(size - 1)));
                      };
                      Value yc = clampTo(y, height), xc = clampTo(xx, width);
                      Value yLow = arith::FPToSIOp::create(b, l, i64, yc);
                      Value xLow = arith::FPToSIOp::create(b, l, i64, xc);
                      Value yHigh = arith::MinSIOp::create(
                          b, l, arith::AddIOp::create(b, l, yLow, int64(1)),
                          int64(height - 1));
                      Value xHigh = arith::MinSIOp::create(
                          b, l, arith::AddIOp::create(b, l, xLow, int64(1)),
                          int64(width - 1));
                      Value ly = sub(yc, toF32(yLow)),
                            lx = sub(xc, toF32(xLow));
                      Value hy = sub(f(1), ly), hx = sub(f(1), lx);
                      auto tap = [&](Value weight, Value row, Value col) {
                        Value at = tensor::ExtractOp::create(
                            b, l, x,
                            ValueRange{
                                n, c,
                                arith::IndexCastOp::create(b, l, index, row),
                                arith::IndexCastOp::create(b, l, index, col)});
                        return mul(select(inside, weight, f(0)),
                                   convertFloat(b, l, at, f32));
                      };
                      Value v1 = tap(mul(hy, hx), yLow, xLow);
                      Value v2 = tap(mul(hy, lx), yLow, xHigh);
                      Value v3 = tap(mul(ly, hx), yHigh, xLow);
                      Value v4 = tap(mul(ly, lx), yHigh, xHigh);
                      Value next;
                      if (isMax) {
                        auto max = [&](Value a, Value d) -> Value {
                          return arith::MaximumFOp::create(b, l, a, d);
                        };
                        Value m = max(max(max(v1, v2), v3), v4);
                        next = select(acc[1], m, max(acc[0], m));
                      } else {
                        next = add(acc[0], add(add(add(v1, v2), v3), v4));
                      }
                      Value notFirst =
                          arith::ConstantOp::create(b, l, b.getBoolAttr(false));
                      scf::YieldOp::create(b, l, ValueRange{next, notFirst});
                    });
                scf::YieldOp::create(b, l, cols.getResults());
              });
          Value result = rows.getResult(0);
          if (!isMax)
            result = div(result, count);
          linalg::YieldOp::create(b, l, convertFloat(b, l, result, element));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dsmp::lowering::populateRoiAlignPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RoiAlignLowering>(patterns.getContext());
}
