//===- Common.h - Helpers of the dsmp-to-linalg patterns --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shared by the pattern files of dsmp-convert-to-linalg: static-shape
// checks, float constants and conversions, the elementwise builder (with
// ONNX broadcasting and f16/bf16 computed in f32), sums of products in an
// accumulation format, tf32 rounding, named matmuls, reshapes, windows.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_CONVERSION_DSMPTOLINALG_COMMON_H
#define DSMP_LIB_CONVERSION_DSMPTOLINALG_COMMON_H

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace mlir::dsmp::lowering {

/// The scalar body of an elementwise op: (builder, loc, operand scalars,
/// compute type, the dsmp op) -> result scalar.
using BodyFn =
    std::function<Value(OpBuilder &, Location, ValueRange, Type, Operation *)>;

/// A ranked tensor with a static shape.
bool isStatic(Value v);

/// A ranked tensor, its dims static or not: what the patterns that size
/// their results from their operands at run time accept (dynamic dims:
/// docs/dynamic-shapes.md).
bool isRanked(Value v);

/// Whether dim `da` of tensor `a` and dim `db` of `b` have one size because
/// the ops that made them take it from one place (a tensor.empty sized by
/// the same value, the same dim of one tensor): false where unknown.
bool provablySameSize(Value a, int64_t da, Value b, int64_t db);

/// Dim `i` of the ranked tensor `v` as an index: a constant where static.
Value dimSize(OpBuilder &b, Location loc, Value v, int64_t i);

/// Dim `i` of `v` as an OpFoldResult: an attribute where static, so slices
/// of static tensors keep static offsets and sizes.
OpFoldResult dimFold(OpBuilder &b, Location loc, Value v, int64_t i);

/// `x + y`, folded to an attribute where both are.
OpFoldResult addFold(OpBuilder &b, Location loc, OpFoldResult x,
                     OpFoldResult y);

/// tensor.empty of `type`, its dynamic dims from `sizes` (one per dim).
Value emptyOfSizes(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> sizes);

/// tensor.empty of `shape` and `element`; each dynamic dim i is dim i of
/// `like` (a tensor of the same rank).
Value emptyLike(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                Type element, Value like);

/// tensor.empty for the result of a linalg op over `operands` read through
/// `operandMaps`, written through `resultMap`: a dynamic result dim takes
/// the size of an operand dim read by the same loop (1 where only
/// broadcast dims, read through constants, cover it).
Value emptyForLoops(OpBuilder &b, Location loc, RankedTensorType type,
                    ValueRange operands, ArrayRef<AffineMap> operandMaps,
                    AffineMap resultMap);

/// The number of elements in dims `dims` of `v`, as a `floatType` value
/// (a constant where they are static): the divisor of a mean.
Value elementCount(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> dims,
                   Type floatType);

/// The shape of `type` with `groups` collapsed (dynamic where a group has a
/// dynamic dim).
SmallVector<int64_t> collapsedShape(RankedTensorType type,
                                    ArrayRef<ReassociationIndices> groups);

/// A float type, or a shaped type of floats.
bool isFloat(Type t);

/// An arith.constant of float `type` with value `v`.
Value floatConst(OpBuilder &b, Location loc, Type type, double v);

/// Scalar float arithmetic of one `type` in a loop body (GridSample's and
/// RoiAlign's coordinates), each op spelled short.
struct ScalarMath {
  OpBuilder &b;
  Location l;
  Type type;

  Value f(double v) const { return floatConst(b, l, type, v); }
  Value add(Value a, Value c) const {
    return arith::AddFOp::create(b, l, a, c);
  }
  Value sub(Value a, Value c) const {
    return arith::SubFOp::create(b, l, a, c);
  }
  Value mul(Value a, Value c) const {
    return arith::MulFOp::create(b, l, a, c);
  }
  Value div(Value a, Value c) const {
    return arith::DivFOp::create(b, l, a, c);
  }
  Value cmp(arith::CmpFPredicate p, Value a, Value c) const {
    return arith::CmpFOp::create(b, l, p, a, c);
  }
  Value select(Value c, Value t, Value e) const {
    return arith::SelectOp::create(b, l, c, t, e);
  }
};

/// f16 and bf16: the formats elementwise bodies compute in f32.
bool isNarrowFloat(Type t);

/// The type an op accumulates in: its `acc` format (tf32 and the f8
/// formats accumulate in f32, as the hardware does).
Type accumulationType(Operation *op);

/// Converts a float scalar to `to` (extf or truncf), if it differs.
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to);

/// `input` with each element converted to `element` (extf or truncf; the
/// value itself if it is already of that type).
Value convertTensor(OpBuilder &b, Location loc, Value input, Type element);

/// sum(lhs * rhs) over the reduction loops, computed in `acc` (operands
/// converted to it, every product and partial sum rounded to it), then
/// converted once to the result's element type. `sizes` gives the result's
/// dims where a loop reads the operands only through sums (a convolution's
/// output window); without it they come from the operands (emptyForLoops).
Value sumOfProducts(OpBuilder &b, Location loc, Value lhs, Value rhs,
                    ArrayRef<AffineMap> maps,
                    ArrayRef<utils::IteratorType> iterators,
                    RankedTensorType resultType, Type acc,
                    ArrayRef<OpFoldResult> sizes = {});

/// f32 rounded to tf32 in f32 storage (10-bit mantissa, ties away from
/// zero, as PTX cvt.rna.tf32.f32; inf and NaN unchanged), elementwise.
Value roundToTF32(OpBuilder &b, Location loc, Value input);

/// tf32 has no LLVM type: casts to tf32 become roundToTF32 and every tf32
/// tensor is stored as f32 from here on.
void legalizeTF32(func::FuncOp func);

/// Contractions in f32 that accumulate in f32 become linalg.matmul: the
/// form a BLAS call replaces (dsmp-linalg-to-blas) or that tiles and
/// vectorizes as one unit.
bool usesNamedMatmul(Operation *op, RankedTensorType resultType);

/// Whether a contraction of `op` into `resultType` whose operands have
/// element types `lhs` and `rhs` computes as an f32 GEMM (f32Gemm): an f32
/// one that accumulates in f32 always; with `widen` (a CPU with a GEMM
/// library), an f16 or bf16 one that accumulates in f32 too.
bool computesAsF32Gemm(Operation *op, RankedTensorType resultType, Type lhs,
                       Type rhs, bool widen);

/// A [M, K] x [K, N] product as the f32 GEMM (namedMatmul) of the operands
/// widened to f32, rounded once to `element`. The product of two f16 or
/// bf16 values is exact in f32 (at most 22 significant bits), so this
/// differs from sumOfProducts' loops, which accumulate in f32 too, only in
/// the order of the additions.
Value f32Gemm(OpBuilder &b, Location loc, Value lhs, Value rhs, Type element,
              bool transposeLhs = false, bool transposeRhs = false);

/// A [M, K] x [K, N] -> [M, N] f32 product as linalg.matmul; a transposed
/// operand ([K, M] or [N, K]) is read through the op's indexing maps, not
/// copied (BLAS takes the transpose as a flag).
Value namedMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  bool transposeLhs = false, bool transposeRhs = false);

/// A new tensor of `shape` whose element at each index i is `source` at
/// `read`(i) (an affine map from the result's dims to the source's): a
/// transpose, flip, regrouping or im2col gather as one parallel generic.
/// `sizes` gives the dynamic dims of `shape` (none where it is static).
Value copyThroughMap(OpBuilder &b, Location loc, Value source, AffineMap read,
                     ArrayRef<int64_t> shape,
                     ArrayRef<OpFoldResult> sizes = {});

/// A tensor of `type` whose every element is `element` (built in the body
/// of a linalg.generic over the output, reading linalg.index): Slice with
/// negative steps, Pad and a Resize of run-time sizes, which gather by
/// coordinates. `sizes` gives the dynamic dims of `type` (none where it is
/// static).
Value generateElements(OpBuilder &b, Location loc, RankedTensorType type,
                       function_ref<Value(OpBuilder &, Location)> element,
                       ArrayRef<OpFoldResult> sizes = {});

/// Collapses `v` to the shape `shape` with reassociation `groups`.
Value collapse(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape,
               ArrayRef<ReassociationIndices> groups);

Value expand(OpBuilder &b, Location loc, Value v, RankedTensorType type,
             ArrayRef<ReassociationIndices> groups);
/// `expand` to dynamic dims: `sizes` gives every dim of `type`.
Value expand(OpBuilder &b, Location loc, Value v, RankedTensorType type,
             ArrayRef<ReassociationIndices> groups,
             ArrayRef<OpFoldResult> sizes);

/// linalg.generic computing `body` elementwise over `inputs` broadcast (ONNX
/// multidirectional, right-aligned) to `resultType`.
Value buildElementwise(OpBuilder &b, Location loc, ValueRange inputs,
                       RankedTensorType resultType, Operation *op,
                       const BodyFn &body);

double floatAttr(Operation *op, StringRef name, double fallback);

/// Pads the spatial dims of an NC... tensor with `value` (ONNX pads are
/// [begin..., end...] over the spatial dims).
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> pads, double value);

/// The window attributes with ONNX defaults; fails on auto_pad other than
/// NOTSET/VALID (SAME_* needs the output-size-dependent split).
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

/// The dims of a windowed op's result (a convolution, a pooling) over the
/// padded N, C, spatial... input `padded`: each dim `resultType` has static
/// as it is, a dynamic batch or channel dim the input's, a dynamic window
/// dim (padded - dilation * (kernel - 1) - 1) / stride + 1 (floor mode; 0
/// where the input is shorter than the window).
SmallVector<OpFoldResult>
windowResultSizes(OpBuilder &b, Location loc, Value padded,
                  RankedTensorType resultType, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations);

/// The window of a Conv/pool. SAME_UPPER/SAME_LOWER auto_pad resolves
/// against `inSpatial`/`outSpatial` (fails without them).
FailureOr<Window> windowOf(Operation *op, int64_t spatial,
                           ArrayRef<int64_t> weightKernel = {},
                           ArrayRef<int64_t> inSpatial = {},
                           ArrayRef<int64_t> outSpatial = {});

/// Whether an operand has unsigned integer elements (the body then uses
/// DivUI, MaxUI, unsigned compares, UIToFP, ...).
bool hasUnsignedOperand(Operation *op);

/// How a reduction combines elements.
enum class Combine { Add, Max, Min, Mul };

/// `input` reduced over `axes` (kept as size-1 dims) with `combine`,
/// starting from its identity (0, -inf, +inf, 1).
Value reduceKeepDims(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, Combine combine);
inline Value reduceKeepDims(OpBuilder &b, Location loc, Value input,
                            ArrayRef<int64_t> axes, bool isMax) {
  return reduceKeepDims(b, loc, input, axes,
                        isMax ? Combine::Max : Combine::Add);
}

/// `value` reshaped to the static `type` (same element count).
Value reshapeTo(OpBuilder &b, Location loc, Value value, RankedTensorType type);

/// Gemms whose A and B both dequantize f8 codes with one constant scale
/// each (the precision passes' f8 contractions) read the codes instead,
/// the scales folded into alpha: an f8 GEMM (the GPU path; Contraction.cpp).
void foldF8OperandsIntoGemms(func::FuncOp func);

// The patterns, one file per op family.
void populateElementwisePatterns(RewritePatternSet &patterns);
void populateActivationPatterns(RewritePatternSet &patterns);
void populateIndexingPatterns(RewritePatternSet &patterns);
void populateScatterPatterns(RewritePatternSet &patterns);
void populateRoiAlignPatterns(RewritePatternSet &patterns);
/// `convAsGemm`: every one-group convolution as im2col GEMMs, whatever its
/// format (the GPU path), not only f32 ones.
/// `convAsGemm`: every one-group convolution and 2-D-able MatMul as a GEMM
/// in its own format (the GPU path); `widen16BitGemm`: f16 and bf16 ones
/// as f32 GEMMs on widened operands (computesAsF32Gemm; a CPU with a GEMM
/// library).
void populateContractionPatterns(RewritePatternSet &patterns,
                                 bool convAsGemm = false,
                                 bool widen16BitGemm = false);
void populateWindowPatterns(RewritePatternSet &patterns);
void populateNormalizationPatterns(RewritePatternSet &patterns);
void populateDataMovementPatterns(RewritePatternSet &patterns);
void populateControlFlowPatterns(RewritePatternSet &patterns);
void populateQuantizationPatterns(RewritePatternSet &patterns);
void populateDynamicShapePatterns(RewritePatternSet &patterns);
/// `interleaved`: lanes read elements p, p + L, ... (a GPU's threads),
/// else one contiguous chunk each (a CPU's).
void populateGradientScanPatterns(RewritePatternSet &patterns,
                                  bool interleaved);

} // namespace mlir::dsmp::lowering

#endif // DSMP_LIB_CONVERSION_DSMPTOLINALG_COMMON_H
