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
          ScalarMath m{b, l, f32};
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
          Value offset = m.f(halfPixel ? 0.5 : 0.0);
          Value startW = m.sub(m.mul(corner(0), m.f(scale)), offset);
          Value startH = m.sub(m.mul(corner(1), m.f(scale)), offset);
          Value roiW =
              m.sub(m.sub(m.mul(corner(2), m.f(scale)), offset), startW);
          Value roiH =
              m.sub(m.sub(m.mul(corner(3), m.f(scale)), offset), startH);
          if (!halfPixel) {
            roiW = arith::MaximumFOp::create(b, l, roiW, m.f(1));
            roiH = arith::MaximumFOp::create(b, l, roiH, m.f(1));
          }
          Value binH = m.div(roiH, m.f(double(outH)));
          Value binW = m.div(roiW, m.f(double(outW)));
          // Samples per side: sampling_ratio, or ceil(bin size) in
          // [0, kMaxGrid] (0 for a NaN).
          auto grid = [&](Value extent, int64_t bins) -> Value {
            if (ratio > 0)
              return int64(ratio);
            Value points =
                math::CeilOp::create(b, l, m.div(extent, m.f(double(bins))));
            Value capped = m.select(
                m.cmp(arith::CmpFPredicate::OGE, points, m.f(kMaxGrid)),
                m.f(kMaxGrid),
                m.select(m.cmp(arith::CmpFPredicate::OGT, points, m.f(0)),
                         points, m.f(0)));
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
          Value yBase = m.add(startH, m.mul(ph, binH));
          Value xBase = m.add(startW, m.mul(pw, binW));
          Value first = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          auto rows = scf::ForOp::create(
              b, l, zero, arith::IndexCastOp::create(b, l, index, gridH), one,
              ValueRange{m.f(0), first},
              [&](OpBuilder &b, Location l, Value iy, ValueRange outer) {
                auto cols = scf::ForOp::create(
                    b, l, zero, arith::IndexCastOp::create(b, l, index, gridW),
                    one, outer,
                    [&](OpBuilder &b, Location l, Value ix, ValueRange acc) {
                      Value y = m.add(
                          yBase, m.div(m.mul(m.add(toF32(iy), m.f(0.5)), binH),
                                       gridHf));
                      Value xx = m.add(
                          xBase, m.div(m.mul(m.add(toF32(ix), m.f(0.5)), binW),
                                       gridWf));
                      // Inside [-1, size] on both axes (false for a NaN).
                      Value inside = both(
                          both(m.cmp(arith::CmpFPredicate::OGE, y, m.f(-1)),
                               m.cmp(arith::CmpFPredicate::OLE, y,
                                     m.f(double(height)))),
                          both(m.cmp(arith::CmpFPredicate::OGE, xx, m.f(-1)),
                               m.cmp(arith::CmpFPredicate::OLE, xx,
                                     m.f(double(width)))));
                      // Clamped into [0, size - 1]: the last pixel's row
                      // or column where onnxruntime pins y_low there.
                      auto clampTo = [&](Value v, int64_t size) -> Value {
                        v = m.select(inside, v, m.f(0));
                        return arith::MinimumFOp::create(
                            b, l, arith::MaximumFOp::create(b, l, v, m.f(0)),
                            m.f(double(size - 1)));
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
                      Value ly = m.sub(yc, toF32(yLow)),
                            lx = m.sub(xc, toF32(xLow));
                      Value hy = m.sub(m.f(1), ly), hx = m.sub(m.f(1), lx);
                      auto tap = [&](Value weight, Value row, Value col) {
                        Value at = tensor::ExtractOp::create(
                            b, l, x,
                            ValueRange{
                                n, c,
                                arith::IndexCastOp::create(b, l, index, row),
                                arith::IndexCastOp::create(b, l, index, col)});
                        return m.mul(m.select(inside, weight, m.f(0)),
                                     convertFloat(b, l, at, f32));
                      };
                      Value v1 = tap(m.mul(hy, hx), yLow, xLow);
                      Value v2 = tap(m.mul(hy, lx), yLow, xHigh);
                      Value v3 = tap(m.mul(ly, hx), yHigh, xLow);
                      Value v4 = tap(m.mul(ly, lx), yHigh, xHigh);
                      Value next;
                      if (isMax) {
                        auto max = [&](Value a, Value d) -> Value {
                          return arith::MaximumFOp::create(b, l, a, d);
                        };
                        Value largest = max(max(max(v1, v2), v3), v4);
                        next = m.select(acc[1], largest, max(acc[0], largest));
                      } else {
                        next =
                            m.add(acc[0], m.add(m.add(m.add(v1, v2), v3), v4));
                      }
                      Value notFirst =
                          arith::ConstantOp::create(b, l, b.getBoolAttr(false));
                      scf::YieldOp::create(b, l, ValueRange{next, notFirst});
                    });
                scf::YieldOp::create(b, l, cols.getResults());
              });
          Value result = rows.getResult(0);
          if (!isMax)
            result = m.div(result, count);
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
