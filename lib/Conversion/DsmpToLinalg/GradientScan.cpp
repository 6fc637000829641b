//===- GradientScan.cpp - dsmp.scan_gradients as three parallel loops -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Dynamic loss scaling reads every gradient once. The whole list of
// gradients is scanned by three parallel loops on buffers (on a GPU: three
// kernels, whatever the number of gradients; two on a CPU):
//
//  1. one iteration per lane of every gradient: a lane reads its elements,
//     writes them unscaled and keeps five statistics in registers (amax,
//     underflows, infs, NaNs, sum of squares), stored once at its end;
//  2. (a GPU) one per gradient and fold slot (256 each): slot q folds
//     lanes q, q + 256, ... of its gradient;
//  3. one per gradient and column: its slots (a CPU: its lanes) into
//     `stats`.
//
// A thread finds its gradient in a balanced tree of scf.ifs.
// With `interleaved` (a GPU), a gradient has up to 16384 lanes and lane p
// reads elements p, p + L, p + 2L, ...: neighbouring threads read
// neighbouring addresses. Otherwise (a CPU) each of up to 16 lanes reads
// one contiguous chunk. The loops are written on buffers (to_buffer /
// to_tensor around them), as linalg cannot say "one loop over several
// tensors".
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"

#include <array>
#include <limits>

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

/// The columns of a row of `stats` (the op's description).
constexpr int64_t kAmax = 0, kColumns = 5;
/// Lanes per gradient: interleaved (64 blocks of 256 threads), chunked (a
/// CPU's threads); fold slots per gradient.
constexpr int64_t kInterleavedLanes = 16384, kChunkedLanes = 16,
                  kFoldSlots = 256;

using Stats = std::array<Value, kColumns>;

/// Folds `v` into a running statistic of column `column`: amax by maxnumf
/// (a NaN leaves it as it was), the others by addition.
Value combine(OpBuilder &b, Location loc, int64_t column, Value acc, Value v) {
  if (column == kAmax)
    return arith::MaxNumFOp::create(b, loc, acc, v);
  return arith::AddFOp::create(b, loc, acc, v);
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// One gradient as the loops see it.
struct Part {
  Value data;     // memref<n x element>
  Value unscaled; // memref<n x f32>
  int64_t size, lanes, firstLane;
};

/// A 1-D view of `buffer` (identity layout, any rank).
Value flatView(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  auto flat = MemRefType::get({type.getNumElements()}, type.getElementType());
  if (type.getRank() == 0)
    return memref::ExpandShapeOp::create(b, loc, flat.getShape(), buffer,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return memref::CollapseShapeOp::create(b, loc, buffer,
                                         ArrayRef<ReassociationIndices>{all});
}

/// Builds `body` for the one of cases [first, last) whose range
/// [begin(k), begin(k + 1)) holds `at`: a balanced tree of scf.ifs (cases in
/// order), so a thread compares log2(cases) times.
void dispatch(OpBuilder &b, Location loc, Value at, int64_t first, int64_t last,
              function_ref<int64_t(int64_t)> begin,
              function_ref<void(OpBuilder &, Location, int64_t)> body) {
  if (last - first == 1) {
    body(b, loc, first);
    return;
  }
  int64_t middle = first + (last - first) / 2;
  Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at,
                                      index(b, loc, begin(middle)));
  scf::IfOp::create(
      b, loc, below,
      [&](OpBuilder &nb, Location nl) {
        dispatch(nb, nl, at, first, middle, begin, body);
        scf::YieldOp::create(nb, nl);
      },
      [&](OpBuilder &nb, Location nl) {
        dispatch(nb, nl, at, middle, last, begin, body);
        scf::YieldOp::create(nb, nl);
      });
}

/// A loop from 0 to `count` (an index) carrying five statistics from zero;
/// `step(j, stats)` gives the next ones. Returns the last.
Stats foldLoop(
    OpBuilder &b, Location loc, Value count,
    function_ref<Stats(OpBuilder &, Location, Value, ValueRange)> step) {
  Value zero = floatConst(b, loc, b.getF32Type(), 0.0);
  SmallVector<Value> inits(kColumns, zero);
  auto loop = scf::ForOp::create(
      b, loc, index(b, loc, 0), count, index(b, loc, 1), inits,
      [&](OpBuilder &nb, Location nl, Value j, ValueRange acc) {
        Stats next = step(nb, nl, j, acc);
        scf::YieldOp::create(nb, nl, ValueRange(ArrayRef<Value>(next)));
      });
  Stats out;
  for (int64_t c = 0; c < kColumns; ++c)
    out[c] = loop.getResult(c);
  return out;
}

/// Stage 1, lane `p` of `part`: its elements unscaled, its statistics.
Stats scanLane(OpBuilder &b, Location loc, const Part &part, Value p,
               Value inverseScale, bool interleaved, double smallestNormal) {
  Type f32 = b.getF32Type();
  Value n = index(b, loc, part.size), lanes = index(b, loc, part.lanes);
  Value count, first, stride;
  if (interleaved) { // elements p, p + L, ...: ceil((n - p) / L) of them
    count = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, n, index(b, loc, part.lanes - 1)), p),
        lanes);
    first = p;
    stride = lanes;
  } else { // one chunk of ceil(n / L), the last one shorter
    int64_t chunk = (part.size + part.lanes - 1) / part.lanes;
    first = arith::MulIOp::create(b, loc, p, index(b, loc, chunk));
    Value left = arith::SubIOp::create(
        b, loc, n, arith::MinUIOp::create(b, loc, first, n));
    count = arith::MinUIOp::create(b, loc, left, index(b, loc, chunk));
    stride = index(b, loc, 1);
  }
  Value scale = memref::LoadOp::create(b, loc, inverseScale, ValueRange{});
  return foldLoop(
      b, loc, count, [&](OpBuilder &nb, Location nl, Value j, ValueRange acc) {
        auto constant = [&](double v) { return floatConst(nb, nl, f32, v); };
        auto flag = [&](arith::CmpFPredicate pred, Value lhs, Value rhs) {
          return arith::CmpFOp::create(nb, nl, pred, lhs, rhs);
        };
        auto counted = [&](Value condition) {
          return arith::SelectOp::create(nb, nl, condition, constant(1.0),
                                         constant(0.0));
        };
        Value at = arith::AddIOp::create(
            nb, nl, first, arith::MulIOp::create(nb, nl, j, stride));
        Value x = convertFloat(
            nb, nl, memref::LoadOp::create(nb, nl, part.data, ValueRange{at}),
            f32);
        Value u = arith::MulFOp::create(nb, nl, x, scale);
        memref::StoreOp::create(nb, nl, u, part.unscaled, ValueRange{at});
        Value magnitude = math::AbsFOp::create(nb, nl, x);
        Value underflow = arith::AndIOp::create(
            nb, nl, flag(arith::CmpFPredicate::OGT, magnitude, constant(0.0)),
            flag(arith::CmpFPredicate::OLT, magnitude,
                 constant(smallestNormal)));
        Value inf = flag(arith::CmpFPredicate::OEQ, magnitude,
                         constant(std::numeric_limits<double>::infinity()));
        Value nan = flag(arith::CmpFPredicate::UNO, x, x);
        Stats values{magnitude, counted(underflow), counted(inf), counted(nan),
                     arith::MulFOp::create(nb, nl, u, u)};
        Stats next;
        for (int64_t c = 0; c < kColumns; ++c)
          next[c] = combine(nb, nl, c, acc[c], values[c]);
        return next;
      });
}

struct ScanGradientsLowering : OpRewritePattern<ScanGradientsOp> {
  ScanGradientsLowering(MLIRContext *ctx, bool interleaved)
      : OpRewritePattern(ctx), interleaved(interleaved) {}

  LogicalResult matchAndRewrite(ScanGradientsOp op,
                                PatternRewriter &rewriter) const override {
    for (Value v : op->getOperands())
      if (!isStatic(v))
        return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type f32 = b.getF32Type();
    auto readOnly = b.getUnitAttr();
    double smallestNormal =
        llvm::APFloat::getSmallestNormalized(
            cast<FloatType>(op.getFormat()).getFloatSemantics())
            .convertToDouble();
    auto bufferOf = [&](Value tensor) {
      auto type = cast<RankedTensorType>(tensor.getType());
      return bufferization::ToBufferOp::create(
          b, loc, MemRefType::get(type.getShape(), type.getElementType()),
          tensor, readOnly);
    };
    Value scaleTensor =
        reshapeTo(b, loc, op.getInverseScale(), RankedTensorType::get({}, f32));
    Value inverseScale = bufferOf(scaleTensor);

    SmallVector<Part> parts;
    SmallVector<Value> unscaledBuffers;
    int64_t lanesInAll = 0;
    for (Value gradient : op.getGradients()) {
      auto type = cast<RankedTensorType>(gradient.getType());
      int64_t n = type.getNumElements();
      int64_t lanes = interleaved ? int64_t(llvm::bit_floor(uint64_t(
                                        std::min(n, kInterleavedLanes))))
                                  : std::min(n, kChunkedLanes);
      // Allocated in the result's shape, so that a result is written where
      // its caller wants it (no copy), and scanned through a flat view.
      Value unscaled = memref::AllocOp::create(
          b, loc, MemRefType::get(type.getShape(), f32));
      unscaledBuffers.push_back(unscaled);
      parts.push_back({flatView(b, loc, bufferOf(gradient)),
                       flatView(b, loc, unscaled), n, lanes, lanesInAll});
      lanesInAll += lanes;
    }
    int64_t count = parts.size();
    // Lanes' results, then fold slots' ([column, lane]: neighbouring lanes
    // store to neighbouring addresses), then `stats`.
    Value laneStats = memref::AllocOp::create(
        b, loc,
        MemRefType::get({kColumns, std::max<int64_t>(lanesInAll, 1)}, f32));
    Value slotStats =
        interleaved
            ? Value(memref::AllocOp::create(
                  b, loc, MemRefType::get({kColumns, count * kFoldSlots}, f32)))
            : Value();
    Value stats = memref::AllocOp::create(
        b, loc, MemRefType::get({count, kColumns}, f32));
    auto store = [&](OpBuilder &nb, Location nl, const Stats &values,
                     Value buffer, Value at) {
      for (int64_t c = 0; c < kColumns; ++c)
        memref::StoreOp::create(nb, nl, values[c], buffer,
                                ValueRange{index(nb, nl, c), at});
    };
    auto parallel = [&](int64_t trips,
                        function_ref<void(OpBuilder &, Location, Value)> body) {
      scf::ParallelOp::create(b, loc, ValueRange{index(b, loc, 0)},
                              ValueRange{index(b, loc, trips)},
                              ValueRange{index(b, loc, 1)},
                              [&](OpBuilder &nb, Location nl, ValueRange ivs) {
                                body(nb, nl, ivs[0]);
                              });
    };

    // 1. Every lane of every gradient (a gradient without elements has no
    // lanes).
    SmallVector<int64_t> scanned;
    for (auto [k, part] : llvm::enumerate(parts))
      if (part.lanes > 0)
        scanned.push_back(k);
    if (!scanned.empty())
      parallel(lanesInAll, [&](OpBuilder &nb, Location nl, Value lane) {
        dispatch(
            nb, nl, lane, 0, scanned.size(),
            [&](int64_t k) { return parts[scanned[k]].firstLane; },
            [&](OpBuilder &bb, Location bl, int64_t k) {
              const Part &part = parts[scanned[k]];
              Value p = arith::SubIOp::create(bb, bl, lane,
                                              index(bb, bl, part.firstLane));
              store(bb, bl,
                    scanLane(bb, bl, part, p, inverseScale, interleaved,
                             smallestNormal),
                    laneStats, lane);
            });
      });

    // 2. (A GPU's many lanes.) Fold slot q of gradient k: its lanes q,
    // q + 256, ...
    if (interleaved)
      parallel(count * kFoldSlots, [&](OpBuilder &nb, Location nl, Value slot) {
        dispatch(
            nb, nl, slot, 0, count, [&](int64_t k) { return k * kFoldSlots; },
            [&](OpBuilder &bb, Location bl, int64_t k) {
              const Part &part = parts[k];
              Value q = arith::SubIOp::create(bb, bl, slot,
                                              index(bb, bl, k * kFoldSlots));
              // ceil((lanes - q) / 256) lanes, none where q >= lanes.
              Value lanes = index(bb, bl, part.lanes);
              Value left = arith::SubIOp::create(
                  bb, bl, lanes, arith::MinUIOp::create(bb, bl, q, lanes));
              Value trips = arith::DivUIOp::create(
                  bb, bl,
                  arith::AddIOp::create(bb, bl, left,
                                        index(bb, bl, kFoldSlots - 1)),
                  index(bb, bl, kFoldSlots));
              Stats folded = foldLoop(
                  bb, bl, trips,
                  [&](OpBuilder &lb, Location ll, Value j, ValueRange acc) {
                    Value at = arith::AddIOp::create(
                        lb, ll,
                        arith::AddIOp::create(lb, ll,
                                              index(lb, ll, part.firstLane), q),
                        arith::MulIOp::create(lb, ll, j,
                                              index(lb, ll, kFoldSlots)));
                    Stats next;
                    for (int64_t c = 0; c < kColumns; ++c)
                      next[c] = combine(lb, ll, c, acc[c],
                                        memref::LoadOp::create(
                                            lb, ll, laneStats,
                                            ValueRange{index(lb, ll, c), at}));
                    return next;
                  });
              store(bb, bl, folded, slotStats, slot);
            });
      });

    // 3. Each gradient's row, column by column: its 256 fold slots (a
    // GPU), or its lanes (a CPU's at most 16, read where they are).
    parallel(count * kColumns, [&](OpBuilder &nb, Location nl, Value cell) {
      Value row = arith::DivUIOp::create(nb, nl, cell, index(nb, nl, kColumns));
      Value column =
          arith::RemUIOp::create(nb, nl, cell, index(nb, nl, kColumns));
      Value isMax = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                          column, index(nb, nl, kAmax));
      auto foldRow = [&](OpBuilder &fb, Location fl, Value source, Value first,
                         Value trips) {
        auto loop = scf::ForOp::create(
            fb, fl, index(fb, fl, 0), trips, index(fb, fl, 1),
            ValueRange{floatConst(fb, fl, f32, 0.0)},
            [&](OpBuilder &lb, Location ll, Value q, ValueRange acc) {
              Value v = memref::LoadOp::create(
                  lb, ll, source,
                  ValueRange{column, arith::AddIOp::create(lb, ll, first, q)});
              Value next = arith::SelectOp::create(
                  lb, ll, isMax, combine(lb, ll, kAmax, acc[0], v),
                  combine(lb, ll, kColumns - 1, acc[0], v));
              scf::YieldOp::create(lb, ll, next);
            });
        memref::StoreOp::create(fb, fl, loop.getResult(0), stats,
                                ValueRange{row, column});
      };
      if (interleaved) {
        foldRow(nb, nl, slotStats,
                arith::MulIOp::create(nb, nl, row, index(nb, nl, kFoldSlots)),
                index(nb, nl, kFoldSlots));
        return;
      }
      dispatch(
          nb, nl, row, 0, count, [](int64_t k) { return k; },
          [&](OpBuilder &bb, Location bl, int64_t k) {
            foldRow(bb, bl, laneStats, index(bb, bl, parts[k].firstLane),
                    index(bb, bl, parts[k].lanes));
          });
    });

    SmallVector<Value> results;
    for (auto [buffer, unscaled] : llvm::zip(unscaledBuffers, op.getUnscaled()))
      results.push_back(bufferization::ToTensorOp::create(
          b, loc, unscaled.getType(), buffer, /*restrict=*/true,
          /*writable=*/true));
    results.push_back(bufferization::ToTensorOp::create(
        b, loc, op.getStats().getType(), stats, /*restrict=*/true,
        /*writable=*/true));
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  bool interleaved;
};

} // namespace

namespace mlir::dsmp::lowering {

void populateGradientScanPatterns(RewritePatternSet &patterns,
                                  bool interleaved) {
  patterns.add<ScanGradientsLowering>(patterns.getContext(), interleaved);
}

} // namespace mlir::dsmp::lowering
