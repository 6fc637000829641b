//===- ShapeInference.cpp - Result types from operand types -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX shape inference loses the rank after data-dependent shapes (a Reshape
// to a shape computed from Shape/Gather/Concat). These rules recover the
// rank, and the dims where the operands tell them, from the dsmp operands.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/ShapeInference.h"
#include "dialects/Dsmp/IR/Einsum.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace mlir::dsmp {

namespace {

RankedTensorType rankedOf(Value value) {
  return dyn_cast_if_present<RankedTensorType>(value ? value.getType()
                                                     : Type());
}

std::optional<int64_t> intAttr(DictionaryAttr attrs, llvm::StringRef name) {
  if (auto attr = attrs ? attrs.getAs<IntegerAttr>(name) : IntegerAttr())
    return attr.getInt();
  return std::nullopt;
}

std::optional<std::vector<int64_t>> intsAttr(DictionaryAttr attrs,
                                             llvm::StringRef name) {
  if (auto attr =
          attrs ? attrs.getAs<DenseI64ArrayAttr>(name) : DenseI64ArrayAttr())
    return std::vector<int64_t>(attr.asArrayRef().begin(),
                                attr.asArrayRef().end());
  return std::nullopt;
}

RankedTensorType dynamicOfRank(int64_t rank, Type elementType) {
  return RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                               elementType);
}

RankedTensorType inferReshape(ArrayRef<Value> operands) {
  auto data = rankedOf(operands[0]);
  auto shapeType = rankedOf(operands[1]);
  if (!data || !shapeType || shapeType.getRank() != 1 ||
      shapeType.isDynamicDim(0))
    return {};
  int64_t rank = shapeType.getDimSize(0);
  auto target = getPartialInts(operands[1]);
  if (!target || static_cast<int64_t>(target->size()) != rank)
    return dynamicOfRank(rank, data.getElementType());
  SmallVector<int64_t> dims;
  int64_t known = 1;
  int inferred = -1;
  for (auto [i, element] : llvm::enumerate(*target)) {
    // An element known only at run time: a dynamic dim that the product of
    // the others cannot infer either.
    int64_t d = element.value_or(ShapedType::kDynamic);
    if (d == 0 && static_cast<int64_t>(i) < data.getRank())
      d = data.getDimSize(i);
    if (d == -1)
      inferred = i;
    dims.push_back(d < 0 ? ShapedType::kDynamic : d);
    if (d >= 0 && !ShapedType::isDynamic(d))
      known *= d;
    else if (d != -1)
      known = -1;
  }
  if (inferred >= 0 && data.hasStaticShape() && known > 0)
    dims[inferred] = data.getNumElements() / known;
  return RankedTensorType::get(dims, data.getElementType());
}

constexpr unsigned kMaxPartialDepth = 16;

std::optional<SmallVector<std::optional<int64_t>>> partialInts(Value value,
                                                               unsigned depth) {
  using Partial = SmallVector<std::optional<int64_t>>;
  if (auto values = getConstantInts(value))
    return Partial(values->begin(), values->end());
  auto type = rankedOf(value);
  if (!type || type.getRank() > 1 || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()))
    return std::nullopt;
  Partial unknown(type.getNumElements());
  Operation *def = value.getDefiningOp();
  if (!def || depth >= kMaxPartialDepth)
    return unknown;
  auto of = [&](Value v) { return partialInts(v, depth + 1); };
  std::optional<Partial> result;
  if (auto concat = dyn_cast<ConcatOp>(def)) {
    result.emplace();
    for (Value piece : concat.getInputs()) {
      auto part = of(piece);
      if (!part)
        return unknown;
      result->append(part->begin(), part->end());
    }
  } else if (isa<CastOp, IdentityOp, UnsqueezeOp, SqueezeOp, ReshapeOp>(def)) {
    auto input = rankedOf(def->getOperand(0));
    if (input && isa<IntegerType>(input.getElementType()))
      result = of(def->getOperand(0));
  } else if (auto shape = dyn_cast<ShapeOp>(def)) {
    if (auto data = rankedOf(shape.getData())) {
      int64_t rank = data.getRank();
      auto clampAxis = [&](int64_t a) {
        return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
      };
      int64_t start = clampAxis(shape.getStart());
      int64_t end = clampAxis(shape.getEnd().value_or(rank));
      result.emplace();
      for (int64_t d = start; d < end; ++d)
        result->push_back(data.isDynamicDim(d)
                              ? std::nullopt
                              : std::optional<int64_t>(data.getDimSize(d)));
    }
  } else if (auto gather = dyn_cast<GatherOp>(def)) {
    auto data = of(gather.getData());
    auto indices = getConstantInts(gather.getIndices());
    if (data && indices && gather.getAxis() == 0) {
      int64_t n = data->size();
      result.emplace();
      for (int64_t i : *indices) {
        if (i < -n || i >= n)
          return unknown;
        result->push_back((*data)[i < 0 ? i + n : i]);
      }
    }
  } else if (auto slice = dyn_cast<SliceOp>(def)) {
    auto data = of(slice.getData());
    auto starts = getConstantInts(slice.getStarts());
    auto ends = getConstantInts(slice.getEnds());
    auto axes = getConstantInts(slice.getAxes());
    auto steps = getConstantInts(slice.getSteps());
    bool axisZero =
        isa<NoneType>(slice.getAxes().getType()) ||
        (axes && axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1));
    bool unitStep = isa<NoneType>(slice.getSteps().getType()) ||
                    (steps && steps->size() == 1 && (*steps)[0] == 1);
    if (data && starts && ends && starts->size() == 1 && ends->size() == 1 &&
        axisZero && unitStep) {
      int64_t n = data->size();
      auto clamp = [&](int64_t i) {
        return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n);
      };
      int64_t begin = clamp((*starts)[0]), end = clamp((*ends)[0]);
      result.emplace(data->begin() + begin,
                     data->begin() + std::max(begin, end));
    }
  }
  if (!result || static_cast<int64_t>(result->size()) != type.getNumElements())
    return unknown;
  return result;
}

} // namespace

std::optional<SmallVector<std::optional<int64_t>>> getPartialInts(Value value) {
  return partialInts(value, 0);
}

std::optional<SmallVector<int64_t>> getConstantInts(Value value) {
  DenseIntElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

RankedTensorType inferResultType(MLIRContext &ctx, llvm::StringRef opName,
                                 llvm::StringRef type, unsigned index,
                                 ArrayRef<Value> operands, DictionaryAttr node,
                                 unsigned numResults) {
  auto name = RegisteredOperationName::lookup(opName, &ctx);
  if (!name || operands.empty())
    return {};
  auto first = rankedOf(operands[0]);

  if (name->hasTrait<::mlir::OpTrait::SameOperandsAndResultShape>() ||
      name->hasTrait<::mlir::OpTrait::SameOperandsAndResultType>())
    return first;
  if (name->hasTrait<::mlir::OpTrait::ResultsBroadcastableShape>()) {
    SmallVector<int64_t> shape;
    for (Value operand : operands) {
      auto ranked = rankedOf(operand);
      if (!ranked)
        return {};
      SmallVector<int64_t> next;
      if (!::mlir::OpTrait::util::getBroadcastedShape(shape, ranked.getShape(),
                                                      next))
        return {};
      shape = next;
    }
    // Comparisons give booleans; Where the type of operand 1; the rest
    // the type of operand 0.
    Type element = rankedOf(operands[type == "Where" ? 1 : 0]).getElementType();
    if (llvm::is_contained({"Equal", "Greater", "GreaterOrEqual", "Less",
                            "LessOrEqual", "And", "Or", "Xor"},
                           type))
      element = IntegerType::get(&ctx, 1);
    return RankedTensorType::get(shape, element);
  }
  if (!first)
    return {};
  Type element = first.getElementType();
  int64_t rank = first.getRank();
  ArrayRef<int64_t> dims = first.getShape();
  auto operand = [&](size_t i) {
    return i < operands.size() ? rankedOf(operands[i]) : RankedTensorType();
  };
  auto normalize = [](int64_t axis, int64_t r) {
    return axis < 0 ? axis + r : axis;
  };
  auto axesOf = [&](size_t i) -> std::optional<SmallVector<int64_t>> {
    if (auto values =
            getConstantInts(i < operands.size() ? operands[i] : Value()))
      return values;
    if (auto attr = intsAttr(node, "axes"))
      return SmallVector<int64_t>(attr->begin(), attr->end());
    return std::nullopt;
  };

  if (type == "Reshape")
    return inferReshape(operands);
  if (type == "Trilu" || type == "ScatterND" || type == "ScatterElements")
    return first;
  if (type == "Split") {
    // Sizes from the `split` input (opset 13+) or attribute (older), else
    // equal parts: num_outputs (opset 18) or the node's output count, the
    // last part smaller where the dim does not divide.
    int64_t axis = normalize(intAttr(node, "axis").value_or(0), rank);
    if (axis < 0 || axis >= rank)
      return {};
    SmallVector<int64_t> out(dims);
    std::optional<SmallVector<int64_t>> sizes =
        getConstantInts(operands.size() > 1 ? operands[1] : Value());
    if (!sizes)
      if (auto attr = intsAttr(node, "split"))
        sizes = SmallVector<int64_t>(attr->begin(), attr->end());
    int64_t parts = intAttr(node, "num_outputs").value_or(numResults);
    if (sizes && index < sizes->size())
      out[axis] = (*sizes)[index];
    else if (parts > 0 && !ShapedType::isDynamic(dims[axis])) {
      int64_t chunk = (dims[axis] + parts - 1) / parts;
      out[axis] = static_cast<int64_t>(index) + 1 < parts
                      ? chunk
                      : dims[axis] - chunk * (parts - 1);
      if (out[axis] < 0)
        return {};
    } else
      out[axis] = ShapedType::kDynamic;
    return RankedTensorType::get(out, element);
  }
  if (type == "Transpose") {
    SmallVector<int64_t> out;
    auto perm = intsAttr(node, "perm");
    for (int64_t i = 0; i < rank; ++i)
      out.push_back(dims[perm ? (*perm)[i] : rank - 1 - i]);
    return RankedTensorType::get(out, element);
  }
  if (type == "Shape") {
    int64_t start = normalize(intAttr(node, "start").value_or(0), rank);
    int64_t end = normalize(intAttr(node, "end").value_or(rank), rank);
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    return RankedTensorType::get({end - start}, IntegerType::get(&ctx, 64));
  }
  if (type == "Size")
    return RankedTensorType::get({}, IntegerType::get(&ctx, 64));
  if (type == "Concat") {
    int64_t axis = normalize(intAttr(node, "axis").value_or(0), rank);
    if (axis < 0 || axis >= rank)
      return {};
    SmallVector<int64_t> out(dims);
    int64_t total = 0;
    for (Value v : operands) {
      auto t = rankedOf(v);
      if (!t || t.getRank() != rank)
        return {};
      if (t.isDynamicDim(axis) || ShapedType::isDynamic(total))
        total = ShapedType::kDynamic;
      else
        total += t.getDimSize(axis);
      for (int64_t i = 0; i < rank; ++i)
        if (i != axis && ShapedType::isDynamic(out[i]))
          out[i] = t.getDimSize(i);
    }
    out[axis] = total;
    return RankedTensorType::get(out, element);
  }
  if (type == "Unsqueeze") {
    auto axes = axesOf(1);
    if (!axes)
      return {};
    int64_t outRank = rank + axes->size();
    SmallVector<int64_t> out(outRank, 0);
    for (int64_t a : *axes)
      out[normalize(a, outRank)] = 1;
    for (int64_t i = 0, j = 0; i < outRank; ++i)
      if (out[i] == 0)
        out[i] = dims[j++];
      else
        out[i] = 1;
    return RankedTensorType::get(out, element);
  }
  if (type == "Squeeze") {
    auto axes = axesOf(1);
    SmallVector<int64_t> out;
    for (int64_t i = 0; i < rank; ++i) {
      bool drop =
          axes ? llvm::any_of(
                     *axes, [&](int64_t a) { return normalize(a, rank) == i; })
               : dims[i] == 1;
      if (!axes && ShapedType::isDynamic(dims[i]))
        return {};
      if (!drop)
        out.push_back(dims[i]);
    }
    return RankedTensorType::get(out, element);
  }
  if (type == "Gather") {
    auto indices = operand(1);
    if (!indices)
      return {};
    int64_t axis = normalize(intAttr(node, "axis").value_or(0), rank);
    if (axis < 0 || axis >= rank)
      return {};
    SmallVector<int64_t> out(dims.begin(), dims.begin() + axis);
    llvm::append_range(out, indices.getShape());
    out.append(dims.begin() + axis + 1, dims.end());
    return RankedTensorType::get(out, element);
  }
  if (type == "GatherElements") {
    // The indices' shape, the data's element type.
    auto indices = operand(1);
    if (!indices || indices.getRank() != rank)
      return {};
    return RankedTensorType::get(indices.getShape(), element);
  }
  if (type == "Expand") {
    auto shape = operand(1);
    if (!shape || shape.getRank() != 1 || shape.isDynamicDim(0))
      return {};
    // The elements known at compile time: constants, and Shape of a
    // partly static tensor (torch's dynamo exports zeros_like so).
    SmallVector<int64_t> target(shape.getDimSize(0), ShapedType::kDynamic);
    if (auto values = getPartialInts(operands[1]);
        values && values->size() == target.size())
      for (auto [i, v] : llvm::enumerate(*values))
        if (v)
          target[i] = *v;
    SmallVector<int64_t> out;
    if (!::mlir::OpTrait::util::getBroadcastedShape(dims, target, out))
      return {};
    return RankedTensorType::get(out, element);
  }
  if (type == "GridSample") {
    // [N, C] of X, [Ho, Wo] of the grid.
    auto grid = operand(1);
    if (rank != 4 || !grid || grid.getRank() != 4)
      return {};
    return RankedTensorType::get(
        {dims[0], dims[1], grid.getDimSize(1), grid.getDimSize(2)}, element);
  }
  if (type == "RoiAlign") {
    // [R] of rois, [C] of X, the bins.
    auto rois = operand(1);
    if (rank != 4 || !rois || rois.getRank() != 2)
      return {};
    auto height = intAttr(node, "output_height").value_or(1);
    auto width = intAttr(node, "output_width").value_or(1);
    if (height < 1 || width < 1)
      return {};
    return RankedTensorType::get({rois.getDimSize(0), dims[1], height, width},
                                 element);
  }
  if (type == "GatherND") {
    // indices.shape[:-1] + data.shape[batch_dims + m:] (m: indices' last
    // dim, how many data dims each index tuple names).
    auto indices = operand(1);
    if (!indices || indices.getRank() < 1 ||
        indices.isDynamicDim(indices.getRank() - 1))
      return {};
    int64_t batch = intAttr(node, "batch_dims").value_or(0);
    int64_t m = indices.getDimSize(indices.getRank() - 1);
    if (batch < 0 || batch + m > rank)
      return {};
    SmallVector<int64_t> out(indices.getShape().drop_back());
    out.append(dims.begin() + batch + m, dims.end());
    return RankedTensorType::get(out, element);
  }
  if (type == "TopK") {
    // X's shape with K (a constant) along the axis; values, then int64
    // indices.
    int64_t axis = normalize(intAttr(node, "axis").value_or(-1), rank);
    if (axis < 0 || axis >= rank)
      return {};
    SmallVector<int64_t> out(dims);
    auto k = getConstantInts(operands.size() > 1 ? operands[1] : Value());
    out[axis] = k && k->size() == 1 ? (*k)[0] : ShapedType::kDynamic;
    return RankedTensorType::get(out, index == 0 ? element
                                                 : IntegerType::get(&ctx, 64));
  }
  if (type == "Einsum") {
    // Each result label's size, from the operands its label appears in.
    auto equation = node ? node.getAs<StringAttr>("equation") : StringAttr();
    if (!equation)
      return {};
    SmallVector<int64_t> ranks;
    SmallVector<SmallVector<int64_t>> shapes;
    for (size_t i = 0; i < operands.size(); ++i) {
      auto t = operand(i);
      if (!t)
        return {};
      ranks.push_back(t.getRank());
      SmallVector<int64_t> shape(t.getShape());
      for (int64_t &d : shape)
        if (ShapedType::isDynamic(d))
          d = -1;
      shapes.push_back(std::move(shape));
    }
    auto eq = EinsumEquation::parse(equation.getValue(), ranks);
    if (!eq) {
      llvm::consumeError(eq.takeError());
      return {};
    }
    SmallVector<ArrayRef<int64_t>> views(shapes.begin(), shapes.end());
    auto sizes = eq->loopSizes(views);
    if (!sizes) {
      llvm::consumeError(sizes.takeError());
      return {};
    }
    SmallVector<int64_t> out;
    for (size_t i = 0; i < eq->numResultLoops(); ++i)
      out.push_back((*sizes)[i] < 0 ? ShapedType::kDynamic : (*sizes)[i]);
    return RankedTensorType::get(out, element);
  }
  if (type == "OneHot") {
    // The indices' shape with `depth` (a constant of any numeric type)
    // inserted at `axis`, in the type of `values`.
    auto values = operand(2);
    if (!values || operands.size() < 3)
      return {};
    int64_t axis = -1;
    if (auto a = node ? node.getAs<IntegerAttr>("axis") : IntegerAttr())
      axis = a.getInt();
    axis = normalize(axis, rank + 1);
    if (axis < 0 || axis > rank)
      return {};
    int64_t depth = ShapedType::kDynamic;
    DenseElementsAttr attr;
    if (matchPattern(operands[1], m_Constant(&attr)) &&
        attr.getNumElements() == 1) {
      double d = isa<FloatType>(attr.getElementType())
                     ? (*attr.getValues<APFloat>().begin()).convertToDouble()
                     : static_cast<double>(
                           (*attr.getValues<APInt>().begin()).getSExtValue());
      if (!(d >= 1 && d <= static_cast<double>(1 << 24)))
        return {}; // no one-hot dim of that size
      depth = static_cast<int64_t>(d);
    }
    SmallVector<int64_t> out(dims.begin(), dims.end());
    out.insert(out.begin() + axis, depth);
    return RankedTensorType::get(out, values.getElementType());
  }
  if (type == "ConstantOfShape") {
    if (rank != 1 || first.isDynamicDim(0))
      return {};
    SmallVector<int64_t> out(first.getDimSize(0), ShapedType::kDynamic);
    if (auto values = getConstantInts(operands[0]))
      out.assign(values->begin(), values->end());
    return RankedTensorType::get(out, Float32Type::get(&ctx));
  }
  if (type == "Range") {
    // Length max(ceil((limit - start) / delta), 0) when all are constants.
    auto scalar = [&](size_t i) -> std::optional<double> {
      if (i >= operands.size())
        return std::nullopt;
      DenseElementsAttr attr;
      if (!matchPattern(operands[i], m_Constant(&attr)) ||
          attr.getNumElements() != 1)
        return std::nullopt;
      if (isa<FloatType>(attr.getElementType()))
        return (*attr.getValues<APFloat>().begin()).convertToDouble();
      return static_cast<double>(
          (*attr.getValues<APInt>().begin()).getSExtValue());
    };
    auto start = scalar(0), limit = scalar(1), delta = scalar(2);
    int64_t length = ShapedType::kDynamic;
    if (start && limit && delta && *delta != 0)
      length = std::max<int64_t>(
          0, static_cast<int64_t>(std::ceil((*limit - *start) / *delta)));
    return RankedTensorType::get({length}, element);
  }
  if (type == "MatMul") {
    auto second = operand(1);
    if (!second || rank < 2 || second.getRank() < 2)
      return second ? dynamicOfRank(std::max(rank, second.getRank()), element)
                    : RankedTensorType();
    SmallVector<int64_t> batch;
    if (!::mlir::OpTrait::util::getBroadcastedShape(
            dims.drop_back(2), second.getShape().drop_back(2), batch))
      return {};
    batch.push_back(dims[rank - 2]);
    batch.push_back(second.getDimSize(second.getRank() - 1));
    return RankedTensorType::get(batch, element);
  }
  if (type.starts_with("Reduce")) {
    int64_t keepdims = intAttr(node, "keepdims").value_or(1);
    auto axes = axesOf(1);
    // An absent axes operand reduces every dim (noop_with_empty_axes aside).
    if (!axes && !intsAttr(node, "axes") &&
        (operands.size() < 2 || isa<NoneType>(operands[1].getType())) &&
        !intAttr(node, "noop_with_empty_axes").value_or(0))
      axes = SmallVector<int64_t>();
    if (!axes)
      return keepdims ? dynamicOfRank(rank, element) : RankedTensorType();
    SmallVector<int64_t> out;
    for (int64_t i = 0; i < rank; ++i) {
      bool reduced = axes->empty() || llvm::any_of(*axes, [&](int64_t a) {
                       return normalize(a, rank) == i;
                     });
      if (!reduced)
        out.push_back(dims[i]);
      else if (keepdims)
        out.push_back(1);
    }
    return RankedTensorType::get(out, element);
  }
  if (type == "ArgMax" || type == "ArgMin") {
    int64_t axis = normalize(intAttr(node, "axis").value_or(0), rank);
    if (axis < 0 || axis >= rank)
      return {};
    SmallVector<int64_t> out;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        out.push_back(dims[i]);
      else if (intAttr(node, "keepdims").value_or(1))
        out.push_back(1);
    return RankedTensorType::get(out, IntegerType::get(&ctx, 64));
  }
  if (type == "DepthToSpace" || type == "SpaceToDepth") {
    // [N, C, H, W] -> [N, C / b^2, H * b, W * b] (SpaceToDepth: inverse).
    int64_t block = intAttr(node, "blocksize").value_or(0);
    if (rank != 4 || block <= 0)
      return {};
    bool toSpace = type == "DepthToSpace";
    auto scaled = [&](int64_t dim, bool up) {
      if (ShapedType::isDynamic(dim))
        return dim;
      return up ? dim * block : dim / block;
    };
    int64_t c = dims[1];
    if (!ShapedType::isDynamic(c))
      c = toSpace ? c / (block * block) : c * block * block;
    return RankedTensorType::get(
        {dims[0], c, scaled(dims[2], toSpace), scaled(dims[3], toSpace)},
        element);
  }
  if (type == "Slice") {
    // Exact when starts/ends (and axes/steps, if given) are constants.
    auto starts = getConstantInts(operands.size() > 1 ? operands[1] : Value());
    auto ends = getConstantInts(operands.size() > 2 ? operands[2] : Value());
    std::optional<SmallVector<int64_t>> axes, steps;
    bool hasAxes = operands.size() > 3 && !isa<NoneType>(operands[3].getType());
    bool hasSteps =
        operands.size() > 4 && !isa<NoneType>(operands[4].getType());
    if (hasAxes)
      axes = getConstantInts(operands[3]);
    if (hasSteps)
      steps = getConstantInts(operands[4]);
    SmallVector<int64_t> out(dims);
    if (!starts || !ends || (hasAxes && !axes) || (hasSteps && !steps) ||
        starts->size() != ends->size()) {
      return dynamicOfRank(rank, element);
    }
    for (size_t i = 0; i < starts->size(); ++i) {
      int64_t axis = axes ? normalize((*axes)[i], rank) : i;
      if (axis < 0 || axis >= rank)
        return {};
      int64_t step = steps ? (*steps)[i] : 1;
      int64_t size = dims[axis];
      if (ShapedType::isDynamic(size) || step == 0) {
        out[axis] = ShapedType::kDynamic;
        continue;
      }
      auto clampIndex = [&](int64_t v, bool isStart) {
        if (v < 0)
          v += size;
        if (step > 0)
          return std::clamp<int64_t>(v, 0, size);
        return std::clamp<int64_t>(v, -1, size - 1);
      };
      int64_t begin = clampIndex((*starts)[i], true);
      int64_t end = clampIndex((*ends)[i], false);
      int64_t count = step > 0 ? (end - begin + step - 1) / step
                               : (begin - end + (-step) - 1) / (-step);
      out[axis] = std::max<int64_t>(0, count);
    }
    return RankedTensorType::get(out, element);
  }
  if (type == "Conv" || type == "ConvTranspose" || type == "MaxPool" ||
      type == "AveragePool") {
    if (rank < 3 || (index == 1 && type != "MaxPool"))
      return {};
    auto weight = type.starts_with("Conv") ? operand(1) : RankedTensorType();
    int64_t spatial = rank - 2;
    auto kernel = intsAttr(node, "kernel_shape");
    if (!kernel && weight && weight.getRank() == rank &&
        weight.hasStaticShape())
      kernel = std::vector<int64_t>(weight.getShape().begin() + 2,
                                    weight.getShape().end());
    auto strides = intsAttr(node, "strides");
    auto dilations = intsAttr(node, "dilations");
    auto pads = intsAttr(node, "pads");
    std::string autoPad = "NOTSET";
    if (auto attr = node ? node.getAs<StringAttr>("auto_pad") : StringAttr())
      autoPad = attr.str();
    bool ceilMode = intAttr(node, "ceil_mode").value_or(0) != 0;
    SmallVector<int64_t> out{dims[0]};
    if (type == "Conv")
      out.push_back(weight ? weight.getDimSize(0) : ShapedType::kDynamic);
    else if (type == "ConvTranspose")
      out.push_back(weight && !weight.isDynamicDim(1)
                        ? weight.getDimSize(1) *
                              intAttr(node, "group").value_or(1)
                        : ShapedType::kDynamic);
    else
      out.push_back(dims[1]);
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = dims[2 + i];
      if (ShapedType::isDynamic(in) || !kernel) {
        out.push_back(ShapedType::kDynamic);
        continue;
      }
      int64_t k = (*kernel)[i];
      int64_t s = strides ? (*strides)[i] : 1;
      int64_t d = dilations ? (*dilations)[i] : 1;
      int64_t padTotal = pads ? (*pads)[i] + (*pads)[i + spatial] : 0;
      int64_t size;
      if (type == "ConvTranspose") {
        auto outPad = intsAttr(node, "output_padding");
        size = s * (in - 1) + (outPad ? (*outPad)[i] : 0) + (k - 1) * d + 1 -
               padTotal;
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
          size = in * s;
      } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        size = (in + s - 1) / s;
      } else {
        if (autoPad == "VALID")
          padTotal = 0;
        int64_t span = in + padTotal - d * (k - 1) - 1;
        size = (ceilMode ? (span + s - 1) / s : span / s) + 1;
      }
      out.push_back(size);
    }
    if (type == "ConvTranspose" && intsAttr(node, "output_shape"))
      return dynamicOfRank(rank, element);
    return RankedTensorType::get(out, element);
  }
  if ((type == "LSTM" || type == "GRU" || type == "RNN") && rank == 3) {
    // Y [seq, dirs, batch, hidden]; Y_h, Y_c [dirs, batch, hidden] (layout
    // 0; layout 1 puts batch first). hidden is R's last dim.
    auto recurrence = operand(2);
    if (!recurrence || recurrence.getRank() != 3)
      return {};
    bool batchFirst = intAttr(node, "layout").value_or(0) == 1;
    int64_t seq = dims[batchFirst ? 1 : 0], batch = dims[batchFirst ? 0 : 1];
    int64_t dirs = recurrence.getDimSize(0), hidden = recurrence.getDimSize(2);
    if (index == 0)
      return batchFirst
                 ? RankedTensorType::get({batch, seq, dirs, hidden}, element)
                 : RankedTensorType::get({seq, dirs, batch, hidden}, element);
    return batchFirst ? RankedTensorType::get({batch, dirs, hidden}, element)
                      : RankedTensorType::get({dirs, batch, hidden}, element);
  }
  if (type == "Gemm") {
    auto second = operand(1);
    if (rank != 2 || !second || second.getRank() != 2)
      return {};
    bool transA = intAttr(node, "transA").value_or(0);
    bool transB = intAttr(node, "transB").value_or(0);
    return RankedTensorType::get(
        {dims[transA ? 1 : 0], second.getDimSize(transB ? 0 : 1)}, element);
  }
  if (type == "GlobalAveragePool" || type == "GlobalMaxPool") {
    SmallVector<int64_t> out(rank, 1);
    out[0] = dims[0];
    if (rank > 1)
      out[1] = dims[1];
    return RankedTensorType::get(out, element);
  }
  if (type == "Flatten") {
    int64_t axis = normalize(intAttr(node, "axis").value_or(1), rank);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t &part = i < axis ? outer : inner;
      part = ShapedType::isDynamic(dims[i]) || ShapedType::isDynamic(part)
                 ? ShapedType::kDynamic
                 : part * dims[i];
    }
    return RankedTensorType::get({outer, inner}, element);
  }
  // Ops whose first result has the shape of their first input.
  if (index == 0 &&
      llvm::is_contained({"Clip", "BatchNormalization", "InstanceNormalization",
                          "LayerNormalization", "GroupNormalization", "LRN",
                          "LpNormalization", "MeanVarianceNormalization",
                          "PRelu", "CumSum", "QuantizeLinear",
                          "DequantizeLinear", "Hardmax"},
                         type))
    return first;
  if (type == "Resize" && !node.get("axes") && operands.size() >= 3) {
    // sizes given: the result; scales given: floor(dim * scale).
    if (operands.size() >= 4)
      if (auto sizes = getConstantInts(operands[3]);
          sizes && static_cast<int64_t>(sizes->size()) == rank &&
          (!node.getAs<StringAttr>("keep_aspect_ratio_policy") ||
           node.getAs<StringAttr>("keep_aspect_ratio_policy").getValue() ==
               "stretch"))
        return RankedTensorType::get(*sizes, element);
    DenseFPElementsAttr scales;
    if (matchPattern(operands[2], m_Constant(&scales)) &&
        scales.getNumElements() == rank) {
      SmallVector<int64_t> out;
      for (auto [dim, scale] : llvm::zip(dims, scales.getValues<APFloat>()))
        out.push_back(ShapedType::isDynamic(dim)
                          ? ShapedType::kDynamic
                          : static_cast<int64_t>(
                                std::floor(dim * scale.convertToDouble())));
      return RankedTensorType::get(out, element);
    }
  }
  if (type == "Pad" && operands.size() >= 2) {
    // dims + begin + end pads of each (selected) axis.
    auto pads = getConstantInts(operands[1]);
    std::optional<SmallVector<int64_t>> axes;
    bool hasAxes =
        operands.size() >= 4 && !isa<NoneType>(operands[3].getType());
    if (hasAxes)
      axes = getConstantInts(operands[3]);
    if (pads && (!hasAxes || axes)) {
      size_t n = hasAxes ? axes->size() : static_cast<size_t>(rank);
      if (pads->size() == 2 * n) {
        SmallVector<int64_t> out(dims.begin(), dims.end());
        bool ok = true;
        for (size_t k = 0; k < n; ++k) {
          int64_t axis = hasAxes ? (*axes)[k] : static_cast<int64_t>(k);
          if (axis < 0)
            axis += rank;
          if (axis < 0 || axis >= rank) {
            ok = false;
            break;
          }
          if (!ShapedType::isDynamic(out[axis]))
            out[axis] += (*pads)[k] + (*pads)[n + k];
        }
        if (ok)
          return RankedTensorType::get(out, element);
      }
    }
  }
  if (type == "Tile" && operands.size() >= 2)
    if (auto repeats = getConstantInts(operands[1]);
        repeats && static_cast<int64_t>(repeats->size()) == rank) {
      SmallVector<int64_t> out;
      for (auto [dim, r] : llvm::zip(dims, *repeats))
        out.push_back(ShapedType::isDynamic(dim) ? dim : dim * r);
      return RankedTensorType::get(out, element);
    }
  if (type == "Pad" || type == "Resize" || type == "Tile")
    return dynamicOfRank(rank, element);
  if (type == "Softmax" || type == "LogSoftmax" || type == "Identity" ||
      type == "Dropout")
    return index == 0 ? first : RankedTensorType();
  return {};
}

} // namespace mlir::dsmp
