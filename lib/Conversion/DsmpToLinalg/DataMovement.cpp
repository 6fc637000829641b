//===- DataMovement.cpp - Shapes, copies and constants ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Transpose, reshapes, constants, Identity, Concat, Slice, Split, Trilu,
// Gather, Expand, ConstantOfShape.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !isRanked(op.getData()))
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    SmallVector<int64_t> perm;
    if (auto given = op.getPerm())
      perm.assign(given->begin(), given->end());
    else
      for (int64_t i = resultType.getRank() - 1; i >= 0; --i)
        perm.push_back(i);
    SmallVector<Value> dynamic;
    for (int64_t i = 0; i < resultType.getRank(); ++i)
      if (resultType.isDynamicDim(i))
        dynamic.push_back(
            dimSize(rewriter, op.getLoc(), op.getData(), perm[i]));
    Value init =
        tensor::EmptyOp::create(rewriter, op.getLoc(), resultType.getShape(),
                                resultType.getElementType(), dynamic);
    auto transpose = linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                 op.getData(), init, perm);
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

/// Reshape, Flatten, Squeeze and Unsqueeze with a static result: a
/// tensor.reshape to that shape (their shape operands are not needed).
struct StaticReshapeLowering : RewritePattern {
  StaticReshapeLowering(StringRef opName, MLIRContext *ctx)
      : RewritePattern(opName, 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape() ||
        !isStatic(op->getOperand(0)))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op->getLoc();
    auto shapeType =
        RankedTensorType::get({resultType.getRank()}, rewriter.getI64Type());
    Value shape = arith::ConstantOp::create(
        rewriter, loc,
        DenseIntElementsAttr::get(shapeType, resultType.getShape()));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, resultType,
                                                   op->getOperand(0), shape);
    return success();
  }
};

struct ConstantLowering : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<ElementsAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(
          op, "weights still in the weight file: run dsmp-load-weights");
    auto type = cast<RankedTensorType>(value.getType());
    auto integer = dyn_cast<IntegerType>(type.getElementType());
    if (!integer || integer.isSignless()) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op,
                                                     cast<TypedAttr>(value));
      return success();
    }
    // arith constants are signless: the same bits as iN, then retyped
    // elementwise (the body's casts vanish in LLVM), as unsigned graph
    // inputs are read (buildElementwise).
    auto signlessType =
        type.clone(IntegerType::get(rewriter.getContext(), integer.getWidth()));
    TypedAttr bits;
    if (auto dense = dyn_cast<DenseElementsAttr>(value))
      bits = dense.bitcast(signlessType.getElementType());
    else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
      bits =
          DenseResourceElementsAttr::get(signlessType, resource.getRawHandle());
    else
      return rewriter.notifyMatchFailure(op, "unsupported unsigned constant");
    Value constant = arith::ConstantOp::create(rewriter, op.getLoc(), bits);
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(), {constant}, type, op,
                             [](OpBuilder &, Location, ValueRange args, Type,
                                Operation *) { return args[0]; }));
    return success();
  }
};

struct IdentityLowering : OpRewritePattern<IdentityOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IdentityOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

/// Dropout at inference: the input, and a mask of all true where one is
/// asked for. Training mode (a true training_mode input) is not inference.
struct DropoutLowering : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<NoneType>(op.getTrainingMode().getType())) {
      auto mode = getConstantInts(op.getTrainingMode());
      if (!mode || mode->size() != 1 || mode->front() != 0)
        return rewriter.notifyMatchFailure(op, "training mode");
    }
    SmallVector<Value> results{op.getData()};
    Value mask = op.getMask();
    if (auto type = dyn_cast<RankedTensorType>(mask.getType())) {
      if (!type.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "needs a static mask shape");
      results.push_back(arith::ConstantOp::create(
          rewriter, op.getLoc(),
          DenseElementsAttr::get(type, rewriter.getBoolAttr(true))));
    } else {
      results.push_back(NoneOp::create(rewriter, op.getLoc()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Inputs of a concat lowered as one chain of insert_slices. One-shot
/// bufferization's conflict analysis walks such a chain back to its start
/// for every use of every value in it, so its time grows with the cube of
/// the chain's length: an unrolled recurrence's output of 189 steps took
/// a minute. Longer concats are concats of concats of this many inputs.
constexpr size_t kMaxConcatChain = 16;

/// Concat: each input inserted at its offset along the axis. Dims sized at
/// run time (a dynamic variant) take their sizes and offsets from the
/// inputs' dims.
struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !llvm::all_of(op.getInputs(), isRanked))
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    Location loc = op.getLoc();
    if (op.getInputs().size() > kMaxConcatChain && type.hasStaticShape() &&
        llvm::all_of(op.getInputs(), [](Value input) {
          return cast<RankedTensorType>(input.getType()).hasStaticShape();
        })) {
      SmallVector<Value> chunks;
      for (ValueRange chunk = op.getInputs(); !chunk.empty();
           chunk = chunk.drop_front(std::min(chunk.size(), kMaxConcatChain))) {
        ValueRange inputs = chunk.take_front(kMaxConcatChain);
        SmallVector<int64_t> shape(type.getShape());
        shape[axis] = 0;
        for (Value input : inputs)
          shape[axis] +=
              cast<RankedTensorType>(input.getType()).getDimSize(axis);
        chunks.push_back(ConcatOp::create(rewriter, loc, type.clone(shape),
                                          inputs, op.getAxisAttr()));
      }
      rewriter.replaceOpWithNewOp<ConcatOp>(op, type, chunks, op.getAxisAttr());
      return success();
    }
    // The result's dims: the axis the sum of the inputs', the others any
    // input's (they agree), a static one where an input has it static.
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) {
        OpFoldResult total = rewriter.getIndexAttr(0);
        for (Value input : op.getInputs())
          total =
              addFold(rewriter, loc, total, dimFold(rewriter, loc, input, d));
        sizes.push_back(total);
        continue;
      }
      Value sizing = op.getInputs().front();
      for (Value input : op.getInputs())
        if (!cast<RankedTensorType>(input.getType()).isDynamicDim(d))
          sizing = input;
      sizes.push_back(dimFold(rewriter, loc, sizing, d));
    }
    Value result = emptyOfSizes(rewriter, loc, type, sizes);
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (Value input : op.getInputs()) {
      auto inType = cast<RankedTensorType>(input.getType());
      // An empty piece adds nothing (Phi-3's rotary pass-through part is 0
      // wide), and its slice would start past the end.
      if (inType.hasStaticShape() && inType.getNumElements() == 0)
        continue;
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> pieceSizes,
          strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = offset;
      // The piece's own dims, so its type and the slice's agree.
      for (int64_t d = 0; d < rank; ++d)
        pieceSizes.push_back(dimFold(rewriter, loc, input, d));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, pieceSizes, strides);
      offset = addFold(rewriter, loc, offset, pieceSizes[axis]);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Split: each result a slice along the axis, one after the other. The
/// parts' sizes along the axis are the results' where static, else the
/// `split` input's values, else equal parts of the axis (the last one
/// shorter); the other dims are the input's.
struct SplitLowering : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!type || !llvm::all_of(op.getOutputs(), isRanked))
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    Location loc = op.getLoc();
    Value input = op.getInput();
    bool hasSplit = !isa<NoneType>(op.getSplit().getType());
    int64_t parts = op.getOutputs().size();
    SmallVector<OpFoldResult> partSizes;
    Value whole, part; // equal parts: the axis, and ceil(axis / parts)
    for (auto [k, output] : llvm::enumerate(op.getOutputs())) {
      auto outType = cast<RankedTensorType>(output.getType());
      if (!outType.isDynamicDim(axis)) {
        partSizes.push_back(rewriter.getIndexAttr(outType.getDimSize(axis)));
      } else if (hasSplit) {
        Value element = tensor::ExtractOp::create(
            rewriter, loc, op.getSplit(),
            ValueRange{arith::ConstantIndexOp::create(rewriter, loc, k)});
        partSizes.push_back(Value(arith::IndexCastOp::create(
            rewriter, loc, rewriter.getIndexType(), element)));
      } else {
        // Equal parts of ceil(axis / parts), the last one what is left.
        if (!part) {
          whole = dimSize(rewriter, loc, input, axis);
          part = arith::CeilDivSIOp::create(
              rewriter, loc, whole,
              arith::ConstantIndexOp::create(rewriter, loc, parts));
        }
        Value start = arith::MulIOp::create(
            rewriter, loc, part,
            arith::ConstantIndexOp::create(rewriter, loc, k));
        Value left = arith::MaxSIOp::create(
            rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
            arith::SubIOp::create(rewriter, loc, whole, start));
        partSizes.push_back(
            Value(arith::MinSIOp::create(rewriter, loc, part, left)));
      }
    }
    int64_t covered = 0;
    for (OpFoldResult partSize : partSizes)
      covered += getConstantIntValue(partSize).value_or(0);
    if (!type.isDynamicDim(axis) &&
        llvm::all_of(
            partSizes,
            [](auto size) { return getConstantIntValue(size).has_value(); }) &&
        covered != type.getDimSize(axis))
      return rewriter.notifyMatchFailure(op, "parts do not cover the axis");
    SmallVector<Value> results;
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (auto [output, partSize] : llvm::zip(op.getOutputs(), partSizes)) {
      auto outType = cast<RankedTensorType>(output.getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = offset;
      // Static where the result's type is, so the two agree.
      for (int64_t d = 0; d < rank; ++d)
        sizes.push_back(!outType.isDynamicDim(d)
                            ? rewriter.getIndexAttr(outType.getDimSize(d))
                        : d == axis ? partSize
                                    : dimFold(rewriter, loc, input, d));
      if (outType.hasStaticShape() && outType.getNumElements() == 0)
        // nothing to read, maybe no offset
        results.push_back(tensor::EmptyOp::create(
            rewriter, loc, outType.getShape(), outType.getElementType()));
      else
        results.push_back(tensor::ExtractSliceOp::create(
            rewriter, loc, outType, input, offsets, sizes, strides));
      offset = addFold(rewriter, loc, offset, partSize);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Trilu with a constant k: each element of the last two dims (row i,
/// column j) is kept where j - i >= k (upper) or j - i <= k (lower), else 0.
struct TriluLowering : OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TriluOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    int64_t k = 0;
    if (!isa<NoneType>(op.getK().getType())) {
      auto values = getConstantInts(op.getK());
      if (!values || values->size() != 1)
        return rewriter.notifyMatchFailure(op, "needs a constant k");
      k = values->front();
    }
    bool upper = op.getUpper() != 0;
    int64_t rank = type.getRank();
    Value result = buildElementwise(
        rewriter, op.getLoc(), ValueRange{op.getInput()}, type, op,
        [=](OpBuilder &b, Location l, ValueRange a, Type t,
            Operation *) -> Value {
          Value i = linalg::IndexOp::create(b, l, rank - 2);
          Value j = linalg::IndexOp::create(b, l, rank - 1);
          Value diagonal = arith::SubIOp::create(b, l, j, i);
          Value kth = arith::ConstantIndexOp::create(b, l, k);
          Value keep = arith::CmpIOp::create(b, l,
                                             upper ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle,
                                             diagonal, kth);
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(t));
          return arith::SelectOp::create(b, l, keep, a[0], zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// OneHot: a generic over the result that reads the index at every dim but
/// `axis` and selects on (values[1]) where it names the position along
/// `axis`, else off (values[0]); negative indices count from depth, float
/// ones are truncated.
struct OneHotLowering : OpRewritePattern<OneHotOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(OneHotOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto indicesType = dyn_cast<RankedTensorType>(op.getIndices().getType());
    auto valuesType = dyn_cast<RankedTensorType>(op.getValues().getType());
    if (!type || !type.hasStaticShape() || !indicesType ||
        !indicesType.hasStaticShape() || !valuesType ||
        !valuesType.hasStaticShape() || valuesType.getRank() != 1 ||
        valuesType.getNumElements() != 2 ||
        indicesType.getRank() + 1 != type.getRank())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = type.getRank();
    auto axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto valueAt = [&](int64_t i) -> Value {
      Value index = arith::ConstantIndexOp::create(rewriter, loc, i);
      return tensor::ExtractOp::create(rewriter, loc, op.getValues(),
                                       ValueRange{index});
    };
    Value off = valueAt(0), on = valueAt(1);
    SmallVector<AffineExpr> indexDims;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        indexDims.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps{AffineMap::get(rank, 0, indexDims, ctx),
                                AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    int64_t depth = type.getDimSize(axis);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{op.getIndices()},
            ValueRange{init}, maps,
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Type i64 = b.getI64Type();
              Value index = args[0];
              if (isa<FloatType>(index.getType()))
                index = arith::FPToSIOp::create(b, l, i64, index);
              else if (index.getType().getIntOrFloatBitWidth() < 64)
                index = arith::ExtSIOp::create(b, l, i64, index);
              else if (index.getType().getIntOrFloatBitWidth() > 64)
                index = arith::TruncIOp::create(b, l, i64, index);
              Value zero =
                  arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0));
              Value wrapped = arith::SelectOp::create(
                  b, l,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, index,
                                        zero),
                  arith::AddIOp::create(b, l, index,
                                        arith::ConstantOp::create(
                                            b, l, b.getI64IntegerAttr(depth))),
                  index);
              Value position = arith::IndexCastOp::create(
                  b, l, i64, linalg::IndexOp::create(b, l, axis));
              Value hot = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                wrapped, position);
              linalg::YieldOp::create(
                  b, l, Value(arith::SelectOp::create(b, l, hot, on, off)));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Slice with constant starts/ends/axes and positive steps.
struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    if (!type || !type.hasStaticShape() || !inType || !inType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    auto starts = getConstantInts(op.getStarts());
    auto ends = getConstantInts(op.getEnds());
    std::optional<SmallVector<int64_t>> axes, steps;
    if (!isa<NoneType>(op.getAxes().getType()))
      axes = getConstantInts(op.getAxes());
    if (!isa<NoneType>(op.getSteps().getType()))
      steps = getConstantInts(op.getSteps());
    if (!starts || !ends || (!isa<NoneType>(op.getAxes().getType()) && !axes) ||
        (!isa<NoneType>(op.getSteps().getType()) && !steps))
      return rewriter.notifyMatchFailure(op, "needs constant slice operands");
    int64_t rank = inType.getRank();
    // Nothing to read: an empty result.
    if (type.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    SmallVector<int64_t> first(rank, 0), step(rank, 1);
    for (size_t i = 0; i < starts->size(); ++i) {
      int64_t axis = axes ? (*axes)[i] : static_cast<int64_t>(i);
      if (axis < 0)
        axis += rank;
      if (axis < 0 || axis >= rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
      int64_t s = steps ? (*steps)[i] : 1;
      if (s == 0)
        return rewriter.notifyMatchFailure(op, "zero step");
      int64_t size = inType.getDimSize(axis);
      int64_t start = (*starts)[i] < 0 ? (*starts)[i] + size : (*starts)[i];
      first[axis] = s > 0 ? std::clamp<int64_t>(start, 0, size)
                          : std::clamp<int64_t>(start, 0, size - 1);
      step[axis] = s;
    }
    if (llvm::all_of(step, [](int64_t s) { return s > 0; })) {
      SmallVector<OpFoldResult> offsets, strides, sizes;
      for (int64_t d = 0; d < rank; ++d) {
        offsets.push_back(rewriter.getIndexAttr(first[d]));
        strides.push_back(rewriter.getIndexAttr(step[d]));
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
      }
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, type, op.getData(), offsets, sizes, strides);
      return success();
    }
    // Negative steps read backwards: element o of a dim is first + o*step.
    Value data = op.getData();
    rewriter.replaceOp(
        op, generateElements(
                rewriter, op.getLoc(), type, [&](OpBuilder &b, Location l) {
                  SmallVector<Value> coords;
                  for (int64_t d = 0; d < rank; ++d) {
                    Value scaled = arith::MulIOp::create(
                        b, l, linalg::IndexOp::create(b, l, d),
                        arith::ConstantIndexOp::create(b, l, step[d]));
                    coords.push_back(arith::AddIOp::create(
                        b, l, scaled,
                        arith::ConstantIndexOp::create(b, l, first[d])));
                  }
                  return Value(tensor::ExtractOp::create(b, l, data, coords));
                }));
    return success();
  }
};

/// Gather along `axis`: a generic over the output that reads the index and
/// extracts from the data (negative indices count from the end).
struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dataType = dyn_cast<RankedTensorType>(op.getData().getType());
    auto indexType = dyn_cast<RankedTensorType>(op.getIndices().getType());
    if (!type || !dataType || !indexType)
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    MLIRContext *ctx = getContext();
    int64_t rank = type.getRank(), q = indexType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += dataType.getRank();
    if (axis < 0 || axis >= dataType.getRank() ||
        rank != dataType.getRank() - 1 + q)
      return rewriter.notifyMatchFailure(op, "ranks do not line up");
    SmallVector<AffineExpr> indexExprs;
    for (int64_t i = 0; i < q; ++i)
      indexExprs.push_back(getAffineDimExpr(axis + i, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Value data = op.getData();
    Location loc = op.getLoc();
    Value size = dimSize(rewriter, loc, data, axis);
    // Result dims: the data's before the axis, the indices', the data's after.
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      dynamic.push_back(d < axis ? dimSize(rewriter, loc, data, d)
                        : d < axis + q
                            ? dimSize(rewriter, loc, op.getIndices(), d - axis)
                            : dimSize(rewriter, loc, data, d - q + 1));
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType(), dynamic);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{op.getIndices()},
        ValueRange{init}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value index =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value negative = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, index, zero);
          index = arith::SelectOp::create(
              b, l, negative, arith::AddIOp::create(b, l, index, size), index);
          SmallVector<Value> coords;
          for (int64_t i = 0; i < axis; ++i)
            coords.push_back(linalg::IndexOp::create(b, l, i));
          coords.push_back(index);
          for (int64_t i = axis + q; i < rank; ++i)
            coords.push_back(linalg::IndexOp::create(b, l, i));
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, data, coords)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Expand: broadcast to the static result shape.
struct ExpandLowering : OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || !isStatic(op.getInput()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Value result = buildElementwise(
        rewriter, op.getLoc(), ValueRange{op.getInput()}, type, op,
        [](OpBuilder &, Location, ValueRange a, Type, Operation *) -> Value {
          return a[0];
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ConstantOfShape with a static result: a filled tensor.
struct ConstantOfShapeLowering : OpRewritePattern<ConstantOfShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConstantOfShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    TypedAttr fill;
    if (auto value = op.getValue())
      fill = cast<TypedAttr>(
          cast<DenseElementsAttr>(*value).getSplatValue<Attribute>());
    else
      fill = rewriter.getZeroAttr(type.getElementType());
    if (fill.getType() != type.getElementType())
      return rewriter.notifyMatchFailure(op, "value type mismatch");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, fill));
    return success();
  }
};

/// Pad with constant axes: every output element reads the input at its
/// source coordinate, per dim: constant (the pad value outside), edge
/// (clamped), reflect (mirrored without the edge) or wrap. Pads that are
/// not constant (Swin's and SEW's, computed from a run-time length) are
/// read at run time.
struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dataType = dyn_cast<RankedTensorType>(op.getData().getType());
    if (!type || !dataType || dataType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    int64_t rank = type.getRank();
    auto pads = getConstantInts(op.getPads());
    auto padsType = dyn_cast<RankedTensorType>(op.getPads().getType());
    std::optional<SmallVector<int64_t>> axes;
    bool hasAxes = !isa<NoneType>(op.getAxes().getType());
    if (hasAxes)
      axes = getConstantInts(op.getAxes());
    if (hasAxes && !axes)
      return rewriter.notifyMatchFailure(op, "needs constant axes");
    size_t n = hasAxes ? axes->size() : static_cast<size_t>(rank);
    int64_t padCount = pads ? static_cast<int64_t>(pads->size())
                       : padsType && padsType.hasStaticShape()
                           ? padsType.getNumElements()
                           : -1;
    if (padCount != static_cast<int64_t>(2 * n))
      return rewriter.notifyMatchFailure(op, "pads of the wrong length");
    Location loc = op.getLoc();
    // Element k of the pads: a constant, else read at run time.
    auto padAt = [&](size_t k) -> OpFoldResult {
      if (pads)
        return rewriter.getIndexAttr((*pads)[k]);
      Value element = tensor::ExtractOp::create(
          rewriter, loc, op.getPads(),
          ValueRange{arith::ConstantIndexOp::create(rewriter, loc, k)});
      return Value(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(), element));
    };
    SmallVector<OpFoldResult> begin(rank, rewriter.getIndexAttr(0)),
        end(rank, rewriter.getIndexAttr(0));
    SmallVector<int64_t> axisOf;
    for (size_t k = 0; k < n; ++k) {
      int64_t axis = hasAxes ? (*axes)[k] : static_cast<int64_t>(k);
      if (axis < 0)
        axis += rank;
      if (axis < 0 || axis >= rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
      axisOf.push_back(axis);
    }
    StringRef mode = op.getMode();
    if (mode != "constant" && mode != "edge" && mode != "reflect" &&
        mode != "wrap")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    for (int64_t d = 0; d < rank; ++d)
      if (dataType.getDimSize(d) == 0 && type.getDimSize(d) != 0)
        return rewriter.notifyMatchFailure(op, "pads an empty dim");
    for (size_t k = 0; k < n; ++k) {
      begin[axisOf[k]] = padAt(k);
      end[axisOf[k]] = padAt(n + k);
    }
    Type element = type.getElementType();
    Value fill = op.getConstantValue();
    bool hasFill = !isa<NoneType>(fill.getType());
    Value data = op.getData();
    // Dims sized at run time (a dynamic variant; a run-time size of 0 is
    // not checked as the static one above is): the input's plus the pads.
    SmallVector<Value> dataSizes;
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      dataSizes.push_back(dimSize(rewriter, loc, data, d));
      sizes.push_back(type.isDynamicDim(d)
                          ? addFold(rewriter, loc,
                                    dimFold(rewriter, loc, data, d),
                                    addFold(rewriter, loc, begin[d], end[d]))
                          : rewriter.getIndexAttr(type.getDimSize(d)));
    }
    Value result = generateElements(
        rewriter, loc, type,
        [&](OpBuilder &b, Location l) -> Value {
          auto idx = [&](int64_t v) {
            return Value(arith::ConstantIndexOp::create(b, l, v));
          };
          Value inside;
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t staticDim = dataType.getDimSize(d);
            Value dim = dataSizes[d];
            Value c = arith::SubIOp::create(
                b, l, linalg::IndexOp::create(b, l, d),
                getValueOrCreateConstantIndexOp(b, l, begin[d]));
            auto clamp = [&](Value v) {
              return Value(arith::MinSIOp::create(
                  b, l, arith::MaxSIOp::create(b, l, v, idx(0)),
                  arith::SubIOp::create(b, l, dim, idx(1))));
            };
            auto positiveMod = [&](Value v, Value m) {
              Value r = arith::RemSIOp::create(b, l, v, m);
              return Value(arith::RemSIOp::create(
                  b, l, arith::AddIOp::create(b, l, r, m), m));
            };
            if (mode == "constant" || mode == "edge") {
              if (mode == "constant") {
                Value ok = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, c,
                                          idx(0)),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, c,
                                          dim));
                inside = inside ? arith::AndIOp::create(b, l, inside, ok) : ok;
              }
              c = clamp(c);
            } else if (mode == "wrap") {
              c = positiveMod(c, dim);
            } else if (staticDim == 1) {
              c = idx(0);
            } else { // reflect
              // A period of 2 (dim - 1), at least 1: a run-time dim of 1
              // then reads index 0 as the static case does.
              Value period = arith::MaxSIOp::create(
                  b, l,
                  arith::MulIOp::create(
                      b, l, idx(2), arith::SubIOp::create(b, l, dim, idx(1))),
                  idx(1));
              Value m = positiveMod(c, period);
              Value mirrored = arith::SubIOp::create(b, l, period, m);
              c = arith::SelectOp::create(
                  b, l,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, m,
                                        dim),
                  mirrored, m);
            }
            coords.push_back(c);
          }
          Value v = tensor::ExtractOp::create(b, l, data, coords);
          if (inside) {
            Value padValue;
            if (hasFill) {
              auto fillType = cast<RankedTensorType>(fill.getType());
              padValue = tensor::ExtractOp::create(
                  b, l, fill, SmallVector<Value>(fillType.getRank(), idx(0)));
            } else {
              padValue = arith::ConstantOp::create(
                  b, l, cast<TypedAttr>(b.getZeroAttr(element)));
            }
            v = arith::SelectOp::create(b, l, inside, v, padValue);
          }
          return v;
        },
        sizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GridSample (bilinear, nearest; every padding mode): a generic over the
/// result [N, C, Ho, Wo] reading the grid point's x and y, turning them
/// into pixel coordinates (onnxruntime's order: unnormalize, round for
/// nearest, keep inside the border), and reading its taps with
/// tensor.extract: a tap outside X reads 0 (zeros), the nearest pixel
/// (border) or its mirror image (reflection). Computes in f32.
struct GridSampleLowering : OpRewritePattern<GridSampleOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GridSampleOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    if (!type || !type.hasStaticShape() || !xType || !xType.hasStaticShape() ||
        !isStatic(op.getGrid()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    StringRef mode = op.getMode(), padding = op.getPaddingMode();
    if (mode != "bilinear" && mode != "nearest")
      return rewriter.notifyMatchFailure(op, "bicubic is not lowered yet");
    bool align = op.getAlignCorners() != 0;
    int64_t height = xType.getDimSize(2), width = xType.getDimSize(3);
    MLIRContext *ctx = getContext();
    auto dim = [&](unsigned d) { return getAffineDimExpr(d, ctx); };
    auto gridMap = [&](int64_t k) {
      return AffineMap::get(
          4, 0, {dim(0), dim(2), dim(3), getAffineConstantExpr(k, ctx)}, ctx);
    };
    Value x = op.getX();
    Type f32 = rewriter.getF32Type(), element = type.getElementType();
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         element);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type},
        ValueRange{op.getGrid(), op.getGrid()}, ValueRange{init},
        SmallVector<AffineMap>{gridMap(0), gridMap(1),
                               AffineMap::getMultiDimIdentityMap(4, ctx)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          ScalarMath m{b, l, f32};
          // The border of an axis of `size` pixels, and a coordinate
          // reflected into it.
          auto border = [&](int64_t size) -> std::pair<double, double> {
            return align ? std::pair<double, double>{0.0, double(size - 1)}
                         : std::pair<double, double>{-0.5, size - 0.5};
          };
          auto reflect = [&](Value v, int64_t size) -> Value {
            auto [lo, hi] = border(size);
            double range = hi - lo;
            if (range <= 0)
              return m.f(0);
            Value below = m.cmp(arith::CmpFPredicate::OLT, v, m.f(lo));
            Value above = m.cmp(arith::CmpFPredicate::OGT, v, m.f(hi));
            Value dx = m.select(below, m.sub(m.f(lo), v), m.sub(v, m.f(hi)));
            Value n = math::FloorOp::create(
                b, l, arith::DivFOp::create(b, l, dx, m.f(range)));
            Value r = m.sub(dx, m.mul(n, m.f(range)));
            Value half = m.mul(n, m.f(0.5));
            Value even = m.cmp(arith::CmpFPredicate::OEQ,
                               math::FloorOp::create(b, l, half), half);
            Value fromLo = m.add(m.f(lo), r), fromHi = m.sub(m.f(hi), r);
            return m.select(below, m.select(even, fromLo, fromHi),
                            m.select(above, m.select(even, fromHi, fromLo), v));
          };
          auto coordinate = [&](Value g, int64_t size) -> Value {
            Value g1 = m.add(convertFloat(b, l, g, f32), m.f(1));
            Value p = align ? m.mul(m.mul(g1, m.f(0.5)), m.f(double(size - 1)))
                            : m.mul(m.sub(m.mul(g1, m.f(double(size))), m.f(1)),
                                    m.f(0.5));
            if (mode == "nearest")
              p = math::RoundEvenOp::create(b, l, p);
            if (padding == "border") {
              auto [lo, hi] = border(size);
              p = arith::MinimumFOp::create(
                  b, l, arith::MaximumFOp::create(b, l, p, m.f(lo)), m.f(hi));
            } else if (padding == "reflection") {
              p = reflect(p, size);
            }
            return p;
          };
          Type i64 = b.getI64Type();
          auto int64 = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
          };
          // The pixel a tap at integer i (an f32 holding an integer)
          // reads, and whether it reads one (zeros: not outside).
          auto tap = [&](Value i, int64_t size) -> std::pair<Value, Value> {
            if (padding == "reflection")
              i = reflect(i, size);
            Value k = arith::FPToSIOp::create(b, l, i64, i);
            Value inside = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, k,
                                      int64(0)),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k,
                                      int64(size)));
            Value clamped = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, k, int64(0)),
                int64(size - 1));
            Value index =
                arith::IndexCastOp::create(b, l, b.getIndexType(), clamped);
            Value valid =
                padding == "zeros"
                    ? inside
                    : arith::ConstantOp::create(b, l, b.getBoolAttr(true))
                          .getResult();
            return {index, valid};
          };
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          auto read = [&](Value row, Value col) -> Value {
            auto [r, rowValid] = tap(row, height);
            auto [q, colValid] = tap(col, width);
            Value v = convertFloat(
                b, l,
                tensor::ExtractOp::create(b, l, x, ValueRange{n, c, r, q}),
                f32);
            return m.select(arith::AndIOp::create(b, l, rowValid, colValid), v,
                            m.f(0));
          };
          Value px = coordinate(args[0], width);
          Value py = coordinate(args[1], height);
          Value result;
          if (mode == "nearest") {
            result = read(py, px);
          } else {
            Value x0 = math::FloorOp::create(b, l, px);
            Value y0 = math::FloorOp::create(b, l, py);
            Value dx = m.sub(px, x0), dy = m.sub(py, y0);
            Value x1 = m.add(x0, m.f(1)), y1 = m.add(y0, m.f(1));
            Value top = m.add(m.mul(m.sub(m.f(1), dx), read(y0, x0)),
                              m.mul(dx, read(y0, x1)));
            Value bottom = m.add(m.mul(m.sub(m.f(1), dx), read(y1, x0)),
                                 m.mul(dx, read(y1, x1)));
            result = m.add(m.mul(m.sub(m.f(1), dy), top), m.mul(dy, bottom));
          }
          linalg::YieldOp::create(b, l, convertFloat(b, l, result, element));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dsmp::lowering::populateDataMovementPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<TransposeLowering, ConstantLowering, IdentityLowering,
               DropoutLowering, ConcatLowering, SliceLowering, SplitLowering,
               TriluLowering, OneHotLowering, GatherLowering, ExpandLowering,
               ConstantOfShapeLowering, PadLowering, GridSampleLowering>(ctx);
  for (StringRef name :
       {"dsmp.reshape", "dsmp.flatten", "dsmp.squeeze", "dsmp.unsqueeze"})
    patterns.add<StaticReshapeLowering>(name, ctx);
}
