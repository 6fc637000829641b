//===- Common.cpp - Helpers of the dsmp-to-linalg patterns ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// See Common.h.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/ShapeInference.h"
#include "lib/Conversion/Passes.h"

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

namespace mlir::dsmp::lowering {

bool isStatic(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape();
}

bool isRanked(Value v) { return isa<RankedTensorType>(v.getType()); }

Value dimSize(OpBuilder &b, Location loc, Value v, int64_t i) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(i))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(i));
  return tensor::DimOp::create(b, loc, v, i);
}

OpFoldResult dimFold(OpBuilder &b, Location loc, Value v, int64_t i) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(i))
    return b.getIndexAttr(type.getDimSize(i));
  return Value(tensor::DimOp::create(b, loc, v, i));
}

OpFoldResult addFold(OpBuilder &b, Location loc, OpFoldResult x,
                     OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx + *cy);
  if (cx == 0)
    return y;
  if (cy == 0)
    return x;
  return Value(
      arith::AddIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, x),
                            getValueOrCreateConstantIndexOp(b, loc, y)));
}

Value emptyOfSizes(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamic);
}

Value emptyLike(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                Type element, Value like) {
  SmallVector<Value> dynamic;
  for (auto [i, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size))
      dynamic.push_back(dimSize(b, loc, like, i));
  return tensor::EmptyOp::create(b, loc, shape, element, dynamic);
}

Value emptyForLoops(OpBuilder &b, Location loc, RankedTensorType type,
                    ValueRange operands, ArrayRef<AffineMap> operandMaps,
                    AffineMap resultMap) {
  SmallVector<Value> dynamic;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i))
      continue;
    Value size;
    auto loop = dyn_cast<AffineDimExpr>(resultMap.getResult(i));
    for (auto [operand, map] : llvm::zip(operands, operandMaps)) {
      for (unsigned p = 0; loop && !size && p < map.getNumResults(); ++p)
        if (map.getResult(p) == loop)
          size = dimSize(b, loc, operand, p);
      if (size)
        break;
    }
    dynamic.push_back(size ? size : arith::ConstantIndexOp::create(b, loc, 1));
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamic);
}

Value elementCount(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> dims,
                   Type floatType) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t count = 1;
  bool dynamic = false;
  for (int64_t d : dims) {
    dynamic |= type.isDynamicDim(d);
    count *= type.isDynamicDim(d) ? 1 : type.getDimSize(d);
  }
  if (!dynamic)
    return floatConst(b, loc, floatType, double(count));
  Value n = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d : dims)
    n = arith::MulIOp::create(b, loc, n, dimSize(b, loc, v, d));
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
  return arith::SIToFPOp::create(b, loc, floatType, i64);
}

SmallVector<int64_t> collapsedShape(RankedTensorType type,
                                    ArrayRef<ReassociationIndices> groups) {
  SmallVector<int64_t> shape;
  for (const ReassociationIndices &group : groups) {
    int64_t size = 1;
    for (int64_t d : group)
      size = type.isDynamicDim(d) || ShapedType::isDynamic(size)
                 ? ShapedType::kDynamic
                 : size * type.getDimSize(d);
    shape.push_back(size);
  }
  return shape;
}

namespace {
/// Where a dim's size comes from, as far as the ops that made the tensor
/// say: an index value, or a (tensor, dim) pair no op explains further.
struct DimSource {
  Value value;
  int64_t dim; // -1: `value` is the size itself (an index)
  bool operator==(const DimSource &o) const {
    return value == o.value && dim == o.dim;
  }
};

DimSource traceIndex(Value size);

/// Dim `d` of tensor `v`, followed through ops that keep it: a linalg op's
/// result has its init's dims, tensor.empty and tensor.reshape (of a
/// from_elements shape) name their sizes, an scf.if whose branches agree.
DimSource traceDim(Value v, int64_t d) {
  for (int hops = 0; hops < 64; ++hops) {
    Operation *def = v.getDefiningOp();
    if (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(def)) {
      if (auto result = dyn_cast<OpResult>(v);
          result && dps.hasPureTensorSemantics()) {
        v = dps.getDpsInitOperand(result.getResultNumber())->get();
        continue;
      }
    }
    if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def)) {
      if (!empty.getType().isDynamicDim(d))
        break;
      return traceIndex(empty.getDynamicSize(d));
    }
    if (auto cast = dyn_cast_or_null<tensor::CastOp>(def)) {
      v = cast.getSource();
      continue;
    }
    // Both branches' results of one size (buildElementwise's versions).
    if (auto branches = dyn_cast_or_null<scf::IfOp>(def)) {
      unsigned k = cast<OpResult>(v).getResultNumber();
      if (branches.getElseRegion().empty())
        break;
      DimSource then = traceDim(branches.thenYield().getOperand(k), d);
      if (then == traceDim(branches.elseYield().getOperand(k), d))
        return then;
      break;
    }
    // A loop that inserts each step's slice into its carried tensor (the
    // convolutions' loop over samples): the shape of the tensor it starts
    // from.
    if (auto loop = dyn_cast_or_null<scf::ForOp>(def)) {
      unsigned k = cast<OpResult>(v).getResultNumber();
      auto insert =
          loop.getYieldedValues()[k].getDefiningOp<tensor::InsertSliceOp>();
      if (!insert || insert.getDest() != loop.getRegionIterArgs()[k])
        break;
      v = loop.getInitArgs()[k];
      continue;
    }
    if (auto expandShape = dyn_cast_or_null<tensor::ExpandShapeOp>(def)) {
      if (auto size = dyn_cast<Value>(expandShape.getMixedOutputShape()[d]))
        return traceIndex(size);
      break;
    }
    if (auto reshape = dyn_cast_or_null<tensor::ReshapeOp>(def)) {
      auto shape = reshape.getShape().getDefiningOp<tensor::FromElementsOp>();
      if (!shape)
        break;
      Value element = shape.getElements()[d];
      if (auto toI64 = element.getDefiningOp<arith::IndexCastOp>())
        return traceIndex(toI64.getIn());
      break;
    }
    break;
  }
  return {v, d};
}

DimSource traceIndex(Value size) {
  if (auto dim = size.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> index = dim.getConstantIndex())
      return traceDim(dim.getSource(), *index);
  return {size, -1};
}
} // namespace

bool provablySameSize(Value a, int64_t da, Value b, int64_t db) {
  return traceDim(a, da) == traceDim(b, db);
}

bool isFloat(Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); }

Value floatConst(OpBuilder &b, Location loc, Type type, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
}

/// f16 and bf16: the formats elementwise bodies compute in f32.
bool isNarrowFloat(Type t) { return t.isF16() || t.isBF16(); }

/// The type an op accumulates in: its `acc` format (tf32 and the f8
/// formats accumulate in f32, as the hardware does). An f64 op (ONNX's
/// double) accumulates in f64: `acc` defaults to f32, and the precision
/// passes assign formats to f32 ops only.
Type accumulationType(Operation *op) {
  MLIRContext *ctx = op->getContext();
  switch (mlir::dsmp::detail::accumulationFormat(op)) {
  case Format::f16:
    return Float16Type::get(ctx);
  case Format::bf16:
    return BFloat16Type::get(ctx);
  default:
    if (op->getNumResults() &&
        getElementTypeOrSelf(op->getResult(0).getType()).isF64())
      return Float64Type::get(ctx);
    return Float32Type::get(ctx);
  }
}

/// Converts a float scalar to `to` (extf or truncf), if it differs. Two
/// types of one width (f16 and bf16) convert through f32, which holds
/// both exactly, so the value rounds once.
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  unsigned fromWidth = cast<FloatType>(from).getWidth(),
           toWidth = cast<FloatType>(to).getWidth();
  if (fromWidth == toWidth && fromWidth < 32)
    return arith::TruncFOp::create(
        b, loc, to, arith::ExtFOp::create(b, loc, b.getF32Type(), v));
  if (fromWidth < toWidth)
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value convertTensor(OpBuilder &b, Location loc, Value input, Type element) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getElementType() == element)
    return input;
  auto resultType = RankedTensorType::get(type.getShape(), element);
  Value out = emptyLike(b, loc, type.getShape(), element, input);
  unsigned rank = type.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{out},
             SmallVector<AffineMap>(
                 2, AffineMap::getMultiDimIdentityMap(rank, b.getContext())),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl,
                                       convertFloat(nb, nl, args[0], element));
             })
      .getResult(0);
}

/// sum(lhs * rhs) over the reduction loops, computed in `acc` (operands
/// converted to it, every product and partial sum rounded to it), then
/// converted once to the result's element type.
Value sumOfProducts(OpBuilder &b, Location loc, Value lhs, Value rhs,
                    ArrayRef<AffineMap> maps,
                    ArrayRef<utils::IteratorType> iterators,
                    RankedTensorType resultType, Type acc,
                    ArrayRef<OpFoldResult> sizes) {
  auto accType = RankedTensorType::get(resultType.getShape(), acc);
  Value init = sizes.empty()
                   ? emptyForLoops(b, loc, accType, ValueRange{lhs, rhs},
                                   maps.drop_back(), maps.back())
                   : emptyOfSizes(b, loc, accType, sizes);
  init = linalg::FillOp::create(b, loc, ValueRange{floatConst(b, loc, acc, 0)},
                                ValueRange{init})
             .getResult(0);
  Value sum =
      linalg::GenericOp::create(
          b, loc, TypeRange{accType}, ValueRange{lhs, rhs}, ValueRange{init},
          maps, iterators,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value x = convertFloat(nb, nl, args[0], acc);
            Value y = convertFloat(nb, nl, args[1], acc);
            Value product = arith::MulFOp::create(nb, nl, x, y);
            linalg::YieldOp::create(
                nb, nl, Value(arith::AddFOp::create(nb, nl, args[2], product)));
          })
          .getResult(0);
  return convertTensor(b, loc, sum, resultType.getElementType());
}

/// f32 rounded to tf32 in f32 storage (10-bit mantissa, ties away from
/// zero, as PTX cvt.rna.tf32.f32; inf and NaN unchanged), elementwise.
Value roundToTF32(OpBuilder &b, Location loc, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  auto f32Type = RankedTensorType::get(type.getShape(), b.getF32Type());
  Value out = tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type());
  unsigned rank = type.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{f32Type}, ValueRange{input}, ValueRange{out},
             SmallVector<AffineMap>(
                 2, AffineMap::getMultiDimIdentityMap(rank, b.getContext())),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Type i32 = nb.getI32Type();
               auto c = [&](uint32_t v) -> Value {
                 return arith::ConstantOp::create(
                     nb, nl, nb.getI32IntegerAttr(static_cast<int32_t>(v)));
               };
               Value x = convertFloat(nb, nl, args[0], nb.getF32Type());
               Value bits = arith::BitcastOp::create(nb, nl, i32, x);
               Value exponent =
                   arith::AndIOp::create(nb, nl, bits, c(0x7F800000u));
               Value special = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::eq, exponent, c(0x7F800000u));
               Value rounded = arith::AndIOp::create(
                   nb, nl, arith::AddIOp::create(nb, nl, bits, c(0x1000u)),
                   c(~0x1FFFu));
               Value result =
                   arith::SelectOp::create(nb, nl, special, bits, rounded);
               auto back =
                   arith::BitcastOp::create(nb, nl, nb.getF32Type(), result);
               // A GPU rounds with one instruction instead
               // (dsmp-round-tf32-on-device).
               back->setAttr(kTF32RoundingAttr, nb.getUnitAttr());
               linalg::YieldOp::create(nb, nl, Value(back));
             })
      .getResult(0);
}

/// tf32 has no LLVM type: casts to tf32 become roundToTF32 and every tf32
/// tensor is stored as f32 from here on.
void legalizeTF32(func::FuncOp func) {
  if (func.isExternal())
    return;
  auto isTF32 = [](Type t) {
    return isa<FloatTF32Type>(getElementTypeOrSelf(t));
  };
  SmallVector<CastOp> casts;
  func.walk([&](CastOp cast) {
    if (isTF32(cast.getType()))
      casts.push_back(cast);
  });
  for (CastOp cast : casts) {
    OpBuilder b(cast);
    Value rounded = cast->hasAttr(kInputRoundedAttr)
                        ? cast.getInput()
                        : roundToTF32(b, cast.getLoc(), cast.getInput());
    cast.getResult().replaceAllUsesWith(rounded);
    cast.erase();
  }
  bool changed = !casts.empty();
  auto retype = [&](Value v) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()); t && isTF32(t)) {
      v.setType(t.clone(Float32Type::get(v.getContext())));
      changed = true;
    }
  };
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          retype(arg);
    for (Value result : op->getResults())
      retype(result);
  });
  if (!changed)
    return;
  func.setFunctionType(FunctionType::get(
      func.getContext(), func.getBody().getArgumentTypes(),
      func.getBody().back().getTerminator()->getOperandTypes()));
}

/// Contractions in f32 that accumulate in f32 become linalg.matmul: the
/// form a BLAS call replaces (dsmp-linalg-to-blas) or that tiles and
/// vectorizes as one unit.
bool usesNamedMatmul(Operation *op, RankedTensorType resultType) {
  return resultType.getElementType().isF32() && accumulationType(op).isF32();
}

bool computesAsF32Gemm(Operation *op, RankedTensorType resultType, Type lhs,
                       Type rhs, bool widen) {
  if (!accumulationType(op).isF32())
    return false;
  Type result = resultType.getElementType();
  if (result.isF32() && lhs.isF32() && rhs.isF32())
    return true;
  auto widens = [](Type t) { return t.isF32() || t.isF16() || t.isBF16(); };
  return widen && widens(result) && widens(lhs) && widens(rhs);
}

Value f32Gemm(OpBuilder &b, Location loc, Value lhs, Value rhs, Type element,
              bool transposeLhs, bool transposeRhs) {
  Type f32 = b.getF32Type();
  Value product =
      namedMatmul(b, loc, convertTensor(b, loc, lhs, f32),
                  convertTensor(b, loc, rhs, f32), transposeLhs, transposeRhs);
  return convertTensor(b, loc, product, element);
}

/// A [M, K] x [K, N] -> [M, N] f32 product as linalg.matmul; a transposed
/// operand ([K, M] or [N, K]) is read through the op's indexing maps, not
/// copied (BLAS takes the transpose as a flag).
Value namedMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  bool transposeLhs, bool transposeRhs) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type f32 = b.getF32Type();
  SmallVector<int64_t> shape = {lhsType.getDimSize(transposeLhs ? 1 : 0),
                                rhsType.getDimSize(transposeRhs ? 0 : 1)};
  SmallVector<Value> dynamic;
  if (ShapedType::isDynamic(shape[0]))
    dynamic.push_back(tensor::DimOp::create(b, loc, lhs, transposeLhs ? 1 : 0));
  if (ShapedType::isDynamic(shape[1]))
    dynamic.push_back(tensor::DimOp::create(b, loc, rhs, transposeRhs ? 0 : 1));
  Value init = tensor::EmptyOp::create(b, loc, shape, f32, dynamic);
  init = linalg::FillOp::create(b, loc, ValueRange{floatConst(b, loc, f32, 0)},
                                ValueRange{init})
             .getResult(0);
  MLIRContext *ctx = b.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  auto map = [&](AffineExpr i, AffineExpr j) {
    return AffineMapAttr::get(AffineMap::get(3, 0, {i, j}, ctx));
  };
  ArrayAttr maps =
      b.getArrayAttr({transposeLhs ? map(k, m) : map(m, k),
                      transposeRhs ? map(n, k) : map(k, n), map(m, n)});
  return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{init},
                                  {b.getNamedAttr("indexing_maps", maps)})
      .getResult(0);
}

/// Collapses `v` to the shape `shape` with reassociation `groups`.
Value copyThroughMap(OpBuilder &b, Location loc, Value source, AffineMap read,
                     ArrayRef<int64_t> shape, ArrayRef<OpFoldResult> sizes) {
  Type element = cast<RankedTensorType>(source.getType()).getElementType();
  unsigned rank = shape.size();
  Value init =
      emptyOfSizes(b, loc, RankedTensorType::get(shape, element), sizes);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{source},
             ValueRange{init},
             SmallVector<AffineMap>{
                 read, AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

Value generateElements(OpBuilder &b, Location loc, RankedTensorType type,
                       function_ref<Value(OpBuilder &, Location)> element,
                       ArrayRef<OpFoldResult> sizes) {
  int64_t rank = type.getRank();
  Value init = emptyOfSizes(b, loc, type, sizes);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
             SmallVector<AffineMap>{
                 AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange) {
               linalg::YieldOp::create(nb, l, element(nb, l));
             })
      .getResult(0);
}

Value collapse(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape,
               ArrayRef<ReassociationIndices> groups) {
  auto type = cast<RankedTensorType>(v.getType());
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups);
}

Value expand(OpBuilder &b, Location loc, Value v, RankedTensorType type,
             ArrayRef<ReassociationIndices> groups) {
  return tensor::ExpandShapeOp::create(b, loc, type, v, groups);
}

Value expand(OpBuilder &b, Location loc, Value v, RankedTensorType type,
             ArrayRef<ReassociationIndices> groups,
             ArrayRef<OpFoldResult> sizes) {
  if (type.hasStaticShape())
    return expand(b, loc, v, type, groups);
  // Two dynamic dims in one group: dsmp-contiguous-expand-shapes makes the
  // buffer a view (expand-strided-metadata in LLVM 22 crashes on it).
  return tensor::ExpandShapeOp::create(b, loc, type, v, groups, sizes);
}

Value buildElementwise(OpBuilder &b, Location loc, ValueRange inputs,
                       RankedTensorType resultType, Operation *op,
                       const BodyFn &body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  // Dynamic dims: a result dim that two operands size (neither statically
  // 1), one of them at run time, may broadcast either way (ONNX: each is 1
  // or the result's size); the sizes decide at run time.
  auto inputDim = [&](Value input, int64_t d) -> int64_t {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t i = d - (rank - type.getRank());
    return i < 0 ? -1 : i;
  };
  SmallVector<bool> runtimeBroadcast(rank, false);
  for (int64_t d = 0; d < rank; ++d) {
    // A static result dim above 1: an operand's run-time size there may
    // be 1 (broadcast) as well as the result's.
    if (!resultType.isDynamicDim(d)) {
      runtimeBroadcast[d] =
          resultType.getDimSize(d) != 1 &&
          llvm::any_of(inputs, [&](Value input) {
            int64_t i = inputDim(input, d);
            return i >= 0 &&
                   cast<RankedTensorType>(input.getType()).isDynamicDim(i);
          });
      continue;
    }
    // The operands that size it (not statically 1); all of one size when
    // their sizes trace back to one source (a residual connection's x and
    // f(x)).
    SmallVector<std::pair<Value, int64_t>> sizing;
    bool dynamic = false;
    for (Value input : inputs) {
      int64_t i = inputDim(input, d);
      auto type = cast<RankedTensorType>(input.getType());
      if (i < 0 || type.getDimSize(i) == 1)
        continue;
      sizing.emplace_back(input, i);
      dynamic |= type.isDynamicDim(i);
    }
    bool oneSource = llvm::all_of(sizing, [&](auto &operand) {
      return provablySameSize(operand.first, operand.second,
                              sizing.front().first, sizing.front().second);
    });
    runtimeBroadcast[d] = sizing.size() > 1 && dynamic && !oneSource;
  }
  // Each input through an indexing map: a static 1 broadcasts, any other
  // dim is the result's.
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      int64_t dim = rank - type.getRank() + i;
      bool broadcast =
          type.getDimSize(i) == 1 && resultType.getDimSize(dim) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(dim, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  // A 16-bit float op computes in f32 and rounds its result once: exactly
  // the format's correctly rounded result for +, -, *, /, sqrt, and one
  // rounding (as on the target) for compound ops such as Sigmoid.
  Type resultElement = resultType.getElementType();
  bool widen = !isa<CastOp>(op) && isNarrowFloat(resultElement);
  for (Value input : inputs)
    widen |= !isa<CastOp>(op) &&
             isNarrowFloat(getElementTypeOrSelf(input.getType()));
  // arith computes on signless integers: unsigned elements are viewed as
  // signless of the same width (the body picks unsigned ops, see
  // hasUnsignedOperand); the casts vanish when lowering to LLVM.
  auto signless = [&](Type t) -> Type {
    auto i = dyn_cast<IntegerType>(t);
    return i && !i.isSignless() ? IntegerType::get(ctx, i.getWidth()) : t;
  };
  // The generic into `init`; inputs with `readsZero` flags are read with
  // tensor.extract at index 0 where their flag is set, the others through
  // their maps.
  auto emit = [&](OpBuilder &at, Value init,
                  ArrayRef<SmallVector<Value>> readsZero) -> Value {
    SmallVector<Value> mapped;
    SmallVector<AffineMap> mappedMaps;
    for (auto [k, input] : llvm::enumerate(inputs))
      if (readsZero[k].empty()) {
        mapped.push_back(input);
        mappedMaps.push_back(maps[k]);
      }
    mappedMaps.push_back(maps.back());
    auto generic = linalg::GenericOp::create(
        at, loc, TypeRange{resultType}, mapped, ValueRange{init}, mappedMaps,
        iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
          SmallVector<Value> operands;
          size_t next = 0;
          for (auto [k, input] : llvm::enumerate(inputs)) {
            if (readsZero[k].empty()) {
              operands.push_back(args[next++]);
              continue;
            }
            auto type = cast<RankedTensorType>(input.getType());
            Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
            SmallVector<Value> coords;
            for (int64_t i = 0; i < type.getRank(); ++i)
              coords.push_back(arith::SelectOp::create(
                  nb, nl, readsZero[k][i], zero,
                  linalg::IndexOp::create(nb, nl, rank - type.getRank() + i)));
            operands.push_back(
                tensor::ExtractOp::create(nb, nl, input, coords));
          }
          for (Value &v : operands)
            if (signless(v.getType()) != v.getType())
              v = UnrealizedConversionCastOp::create(nb, nl,
                                                     signless(v.getType()), v)
                      .getResult(0);
          Type computeType = signless(resultElement);
          if (widen) {
            Type f32 = nb.getF32Type();
            for (Value &v : operands)
              if (isNarrowFloat(v.getType()))
                v = arith::ExtFOp::create(nb, nl, f32, v);
            if (isNarrowFloat(resultElement))
              computeType = f32;
          }
          Value v = body(nb, nl, operands, computeType, op);
          if (v.getType() != resultElement && isNarrowFloat(resultElement))
            v = arith::TruncFOp::create(nb, nl, resultElement, v);
          if (v.getType() != resultElement &&
              signless(resultElement) == v.getType())
            v = UnrealizedConversionCastOp::create(nb, nl, resultElement, v)
                    .getResult(0);
          linalg::YieldOp::create(nb, nl, v);
        });
    return generic.getResult(0);
  };
  SmallVector<SmallVector<Value>> noExtracts(inputs.size());
  if (llvm::none_of(runtimeBroadcast, [](bool r) { return r; })) {
    Value init = emptyForLoops(b, loc, resultType, inputs,
                               ArrayRef(maps).drop_back(), maps.back());
    return emit(b, init, noExtracts);
  }
  // Each dynamic dim is the largest of the operands' sizes there.
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> sizes(rank), dynamicSizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    Value size = one;
    for (Value input : inputs)
      if (int64_t i = inputDim(input, d); i >= 0)
        size = arith::MaxSIOp::create(b, loc, size, dimSize(b, loc, input, i));
    sizes[d] = size;
    dynamicSizes.push_back(size);
  }
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultElement, dynamicSizes);
  // Inputs with a dynamic dim where the result broadcasts at run time: per
  // dim, whether it reads index 0; and whether every such dim is the full
  // size (then the maps hold: the common case, as fast as static shapes).
  SmallVector<SmallVector<Value>> readsZero(inputs.size());
  Value full = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (auto [k, input] : llvm::enumerate(inputs)) {
    auto type = cast<RankedTensorType>(input.getType());
    bool extract = false;
    for (int64_t i = 0; i < type.getRank(); ++i)
      extract |=
          type.isDynamicDim(i) && runtimeBroadcast[rank - type.getRank() + i];
    if (!extract)
      continue;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      int64_t d = rank - type.getRank() + i;
      if (type.getDimSize(i) == 1) {
        readsZero[k].push_back(arith::ConstantIntOp::create(b, loc, 1, 1));
        continue;
      }
      Value size = dimSize(b, loc, input, i);
      readsZero[k].push_back(
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one));
      Value resultSize =
          resultType.isDynamicDim(d)
              ? sizes[d]
              : arith::ConstantIndexOp::create(b, loc, resultType.getDimSize(d))
                    .getResult();
      if (type.isDynamicDim(i) && runtimeBroadcast[d])
        full = arith::AndIOp::create(
            b, loc, full,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size,
                                  resultSize));
    }
  }
  auto branches = scf::IfOp::create(
      b, loc, full,
      [&](OpBuilder &tb, Location tl) {
        scf::YieldOp::create(tb, tl, emit(tb, init, noExtracts));
      },
      [&](OpBuilder &eb, Location el) {
        scf::YieldOp::create(eb, el, emit(eb, init, readsZero));
      });
  return branches.getResult(0);
}

bool hasUnsignedOperand(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type t) {
    return getElementTypeOrSelf(t).isUnsignedInteger();
  });
}

double floatAttr(Operation *op, StringRef name, double fallback) {
  if (auto attr = op->getAttrOfType<FloatAttr>(name))
    return attr.getValueAsDouble();
  return fallback;
}

/// Pads the spatial dims of an NC... tensor with `value` (ONNX pads are
/// [begin..., end...] over the spatial dims).
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> pads, double value) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t spatial = type.getRank() - 2;
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  SmallVector<OpFoldResult> low(2, b.getIndexAttr(0)),
      high(2, b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t i = 0; i < spatial; ++i) {
    low.push_back(b.getIndexAttr(pads[i]));
    high.push_back(b.getIndexAttr(pads[i + spatial]));
    if (!type.isDynamicDim(2 + i))
      shape[2 + i] += pads[i] + pads[i + spatial];
  }
  auto padded = RankedTensorType::get(shape, type.getElementType());
  Value padValue = floatConst(b, loc, type.getElementType(), value);
  return tensor::PadOp::create(b, loc, padded, input, low, high, padValue)
      .getResult();
}

SmallVector<OpFoldResult>
windowResultSizes(OpBuilder &b, Location loc, Value padded,
                  RankedTensorType resultType, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  SmallVector<OpFoldResult> sizes;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    if (!resultType.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(resultType.getDimSize(d)));
    } else if (d < 2) {
      sizes.push_back(dimFold(b, loc, padded, d));
    } else {
      int64_t i = d - 2;
      Value span =
          arith::SubIOp::create(b, loc, dimSize(b, loc, padded, d),
                                index(dilations[i] * (kernel[i] - 1) + 1));
      // Signed, and at least 0: an input shorter than the window gives an
      // empty result, not a huge unsigned size.
      Value windows = arith::AddIOp::create(
          b, loc, arith::FloorDivSIOp::create(b, loc, span, index(strides[i])),
          index(1));
      sizes.push_back(Value(arith::MaxSIOp::create(b, loc, windows, index(0))));
    }
  }
  return sizes;
}

FailureOr<Window> windowOf(Operation *op, int64_t spatial,
                           ArrayRef<int64_t> weightKernel,
                           ArrayRef<int64_t> inSpatial,
                           ArrayRef<int64_t> outSpatial) {
  Window w;
  auto ints = [&](StringRef name, int64_t size,
                  int64_t fallback) -> SmallVector<int64_t> {
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name))
      return SmallVector<int64_t>(attr.asArrayRef());
    return SmallVector<int64_t>(size, fallback);
  };
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  bool same = autoPad && (autoPad.getValue() == "SAME_UPPER" ||
                          autoPad.getValue() == "SAME_LOWER");
  if (autoPad && !same && autoPad.getValue() != "NOTSET" &&
      autoPad.getValue() != "VALID")
    return failure();
  if (same && (static_cast<int64_t>(inSpatial.size()) != spatial ||
               static_cast<int64_t>(outSpatial.size()) != spatial))
    return failure();
  w.kernel = weightKernel.empty() ? ints("kernel_shape", spatial, 1)
                                  : SmallVector<int64_t>(weightKernel);
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape"))
    w.kernel.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  w.strides = ints("strides", spatial, 1);
  w.dilations = ints("dilations", spatial, 1);
  w.pads = ints("pads", 2 * spatial, 0);
  if (autoPad && autoPad.getValue() == "VALID")
    w.pads.assign(2 * spatial, 0);
  if (same) {
    // Enough padding for the output dims; the odd one goes last (UPPER) or
    // first (LOWER). At stride 1 the output has the input's size and the
    // total is the window's span less one, whatever the size (a dim sized
    // at run time); at other strides a run-time size is not lowered.
    w.pads.assign(2 * spatial, 0);
    for (int64_t i = 0; i < spatial; ++i) {
      bool sized = !ShapedType::isDynamic(inSpatial[i]) &&
                   !ShapedType::isDynamic(outSpatial[i]);
      if (!sized && w.strides[i] != 1)
        return failure();
      int64_t total =
          sized ? std::max<int64_t>(0, (outSpatial[i] - 1) * w.strides[i] +
                                           (w.kernel[i] - 1) * w.dilations[i] +
                                           1 - inSpatial[i])
                : (w.kernel[i] - 1) * w.dilations[i];
      int64_t begin =
          autoPad.getValue() == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pads[i] = begin;
      w.pads[spatial + i] = total - begin;
    }
  }
  return w;
}

/// Sums (or maxes) over `axes` of `input` into a keepdims-shaped tensor.
Value reduceKeepDims(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, Combine combine) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(axes, i);
    if (reduced)
      shape[i] = 1;
    outExprs.push_back(reduced ? getAffineConstantExpr(0, ctx)
                               : getAffineDimExpr(i, ctx));
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
  }
  Type element = type.getElementType();
  auto outType = RankedTensorType::get(shape, element);
  // Integers (ReduceSum/Max/Min/Prod of index arithmetic: BEiT's relative
  // position index) combine as signed integers from their identity.
  auto integer = dyn_cast<IntegerType>(element);
  Value identity;
  if (integer) {
    unsigned width = integer.getWidth();
    APInt start = combine == Combine::Max   ? APInt::getSignedMinValue(width)
                  : combine == Combine::Min ? APInt::getSignedMaxValue(width)
                  : combine == Combine::Mul ? APInt(width, 1)
                                            : APInt(width, 0);
    identity =
        arith::ConstantOp::create(b, loc, IntegerAttr::get(integer, start));
  } else {
    double inf = std::numeric_limits<double>::infinity();
    identity = floatConst(b, loc, element,
                          combine == Combine::Max   ? -inf
                          : combine == Combine::Min ? inf
                          : combine == Combine::Mul ? 1.0
                                                    : 0.0);
  }
  Value init = emptyLike(b, loc, shape, element, input);
  init = linalg::FillOp::create(b, loc, ValueRange{identity}, ValueRange{init})
             .getResult(0);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  bool isInteger = static_cast<bool>(integer);
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{input}, ValueRange{init},
             maps, iterators,
             [combine, isInteger](OpBuilder &nb, Location l, ValueRange args) {
               Value acc = args[1], x = args[0], v;
               switch (combine) {
               case Combine::Add:
                 v = isInteger
                         ? arith::AddIOp::create(nb, l, acc, x).getResult()
                         : arith::AddFOp::create(nb, l, acc, x).getResult();
                 break;
               case Combine::Max:
                 v = isInteger
                         ? arith::MaxSIOp::create(nb, l, acc, x).getResult()
                         : arith::MaximumFOp::create(nb, l, acc, x).getResult();
                 break;
               case Combine::Min:
                 v = isInteger
                         ? arith::MinSIOp::create(nb, l, acc, x).getResult()
                         : arith::MinimumFOp::create(nb, l, acc, x).getResult();
                 break;
               case Combine::Mul:
                 v = isInteger
                         ? arith::MulIOp::create(nb, l, acc, x).getResult()
                         : arith::MulFOp::create(nb, l, acc, x).getResult();
                 break;
               }
               linalg::YieldOp::create(nb, l, v);
             })
      .getResult(0);
}

/// `value` reshaped to `type` (same element count); with dynamic dims, only
/// unit dims may be dropped or added (null otherwise).
Value reshapeTo(OpBuilder &b, Location loc, Value value,
                RankedTensorType type) {
  if (value.getType() == type)
    return value;
  auto from = cast<RankedTensorType>(value.getType());
  if (!type.hasStaticShape() || !from.hasStaticShape()) {
    // Dynamic dims: only unit dims dropped or added, as collapse_shape or
    // expand_shape (a dynamic dim sized from the source dim of its group).
    if (auto groups = getReassociationIndicesForCollapse(from.getShape(),
                                                         type.getShape()))
      return tensor::CollapseShapeOp::create(b, loc, type, value, *groups);
    if (auto groups = getReassociationIndicesForCollapse(type.getShape(),
                                                         from.getShape())) {
      SmallVector<OpFoldResult> sizes;
      for (auto [source, group] : llvm::enumerate(*groups))
        for (int64_t d : group)
          sizes.push_back(type.isDynamicDim(d)
                              ? tensor::getMixedSize(b, loc, value, source)
                              : b.getIndexAttr(type.getDimSize(d)));
      return tensor::ExpandShapeOp::create(b, loc, type, value, *groups, sizes);
    }
    return {};
  }
  auto shapeType = RankedTensorType::get({type.getRank()}, b.getI64Type());
  Value shape = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(shapeType, type.getShape()));
  return tensor::ReshapeOp::create(b, loc, type, value, shape);
}

} // namespace mlir::dsmp::lowering
