//===- IndexedForms.cpp - ONNX ops spelled as gathers and scatters --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "IndexedForms.h"

#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>
#include <string>

using namespace mlir;
using llvm::createStringError;
using llvm::Expected;

namespace mlir::dsmp::onnx_import {
namespace {

// Sizes come from the model: bound them before multiplying.
constexpr int64_t kLimit = int64_t(1) << 31;

RankedTensorType tensorOf(ArrayRef<int64_t> dims, Type element) {
  return RankedTensorType::get(dims, element);
}

Expected<Value> importMaxUnpool(const onnx::NodeProto &node,
                                ArrayRef<Value> inputs, GraphBuilder &g) {
  if (inputs.size() < 2 || inputs.size() > 3 || !inputs[0] || !inputs[1] ||
      node.output_size() != 1)
    return createStringError("MaxUnpool takes X, I and an optional "
                             "output_shape and gives one output");
  auto xType = dyn_cast<RankedTensorType>(inputs[0].getType());
  auto iType = dyn_cast<RankedTensorType>(inputs[1].getType());
  if (!xType || xType.getRank() < 3 || !isa<FloatType>(xType.getElementType()))
    return createStringError(
        "MaxUnpool's X must be a float tensor [N, C, spatial...]");
  if (!iType || !iType.getElementType().isInteger(64) ||
      iType.getRank() != xType.getRank())
    return createStringError(
        "MaxUnpool's I must be an int64 tensor of X's rank");
  for (int64_t d = 0; d < xType.getRank(); ++d)
    if (!xType.isDynamicDim(d) && !iType.isDynamicDim(d) &&
        xType.getDimSize(d) != iType.getDimSize(d))
      return createStringError("MaxUnpool's I must have X's shape");
  int64_t rank = xType.getRank(), spatial = rank - 2;
  SmallVector<int64_t> kernel, strides(spatial, 1), pads(2 * spatial, 0);
  for (const auto &attr : node.attribute()) {
    SmallVector<int64_t> *target = attr.name() == "kernel_shape" ? &kernel
                                   : attr.name() == "strides"    ? &strides
                                   : attr.name() == "pads"       ? &pads
                                                                 : nullptr;
    if (!target || attr.type() != onnx::AttributeProto::INTS)
      return createStringError("attribute '" + attr.name() +
                               "' is not an ONNX attribute of MaxUnpool "
                               "(kernel_shape, pads and strides are, INTS)");
    size_t want = target == &kernel ? spatial : target->size();
    if (static_cast<size_t>(attr.ints_size()) != want)
      return createStringError("MaxUnpool's " + attr.name() + " has " +
                               std::to_string(attr.ints_size()) + " values; " +
                               std::to_string(spatial) + " spatial dims need " +
                               std::to_string(want));
    target->assign(attr.ints().begin(), attr.ints().end());
  }
  if (kernel.empty())
    return createStringError("MaxUnpool needs kernel_shape");
  auto outOfRange = [](int64_t v, int64_t lo) { return v < lo || v > kLimit; };
  if (llvm::any_of(kernel, [&](int64_t v) { return outOfRange(v, 1); }) ||
      llvm::any_of(strides, [&](int64_t v) { return outOfRange(v, 1); }) ||
      llvm::any_of(pads, [&](int64_t v) { return outOfRange(v, 0); }))
    return createStringError("MaxUnpool's kernel_shape and strides must be "
                             "positive, its pads not negative (and all "
                             "below 2^31)");
  // Without output_shape, the shape a MaxPool with these attributes reads
  // (X's spatial dims unpooled), from X's shape at run time where X's dims
  // are not static: (shape - 1) * stride + kernel - pads, N and C kept.
  Type element = xType.getElementType();
  Type i64 = iType.getElementType();
  SmallVector<int64_t> outDims(xType.getShape().begin(),
                               xType.getShape().begin() + 2);
  SmallVector<int64_t> stride{1, 1}, extent{1, 1}, padding{0, 0};
  for (int64_t i = 0; i < spatial; ++i) {
    stride.push_back(strides[i]);
    extent.push_back(kernel[i]);
    padding.push_back(pads[i] + pads[spatial + i]);
    int64_t in = xType.getDimSize(2 + i);
    if (ShapedType::isDynamic(in)) {
      outDims.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t out =
        in > kLimit ? -1 : (in - 1) * strides[i] + kernel[i] - padding.back();
    if (out < 1 || out > kLimit)
      return createStringError("MaxUnpool's output size along spatial dim " +
                               std::to_string(i) + " is " +
                               std::to_string(out));
    outDims.push_back(out);
  }
  Value shape;
  if (inputs.size() == 3 && inputs[2]) {
    // I holds positions in the output_shape tensor (a MaxPool's input of
    // that shape gave them), as onnxruntime reads them. ONNX's reference
    // places them in the shape above and pads it to output_shape instead.
    auto shapeType = dyn_cast<RankedTensorType>(inputs[2].getType());
    if (!shapeType || shapeType.getRank() != 1 ||
        !shapeType.getElementType().isInteger(64) ||
        (!shapeType.isDynamicDim(0) && shapeType.getDimSize(0) != rank))
      return createStringError("MaxUnpool's output_shape must be an int64 "
                               "tensor of " +
                               std::to_string(rank) + " values");
    shape = inputs[2];
    outDims.assign(rank, ShapedType::kDynamic);
    if (auto values = getConstantInts(shape)) {
      if (static_cast<int64_t>(values->size()) != rank ||
          llvm::any_of(*values, [&](int64_t v) { return outOfRange(v, 1); }))
        return createStringError("MaxUnpool's output_shape must hold " +
                                 std::to_string(rank) +
                                 " sizes from 1 to 2^31");
      outDims.assign(values->begin(), values->end());
    }
  } else if (llvm::none_of(outDims, ShapedType::isDynamic)) {
    shape = g.i64s(outDims);
  } else {
    auto vector = tensorOf({rank}, i64);
    Value dims = g.typed("dsmp.shape", {inputs[0]}, vector);
    Value scaled = g.typed(
        "dsmp.mul",
        {g.typed("dsmp.sub", {dims, g.i64s({1})}, vector), g.i64s(stride)},
        vector);
    shape = g.typed("dsmp.sub",
                    {g.typed("dsmp.add", {scaled, g.i64s(extent)}, vector),
                     g.i64s(padding)},
                    vector);
  }
  int64_t total = 1;
  for (int64_t v : outDims)
    if (ShapedType::isDynamic(v))
      total = ShapedType::kDynamic;
    else if (!ShapedType::isDynamic(total) && (total *= v) > kLimit)
      return createStringError("MaxUnpool's output is beyond 2^31 elements");
  auto outType = tensorOf(outDims, element);
  auto zero = DenseElementsAttr::get(
      tensorOf({1}, element),
      llvm::APFloat::getZero(cast<FloatType>(element).getFloatSemantics()));
  Value zeros = g.typed("dsmp.constant_of_shape", {shape}, outType,
                        {g.attr("value", zero)});
  int64_t count =
      xType.hasStaticShape() ? xType.getNumElements() : ShapedType::kDynamic;
  Value flatZeros = g.typed("dsmp.reshape", {zeros, g.i64s({-1})},
                            tensorOf({total}, element));
  Value flatX = g.typed("dsmp.reshape", {inputs[0], g.i64s({-1})},
                        tensorOf({count}, element));
  Value flatI = g.typed("dsmp.reshape", {inputs[1], g.i64s({-1})},
                        tensorOf({count}, i64));
  Value scattered = g.typed("dsmp.scatter_elements", {flatZeros, flatI, flatX},
                            flatZeros.getType(), {g.i64("axis", 0)});
  return g.typed("dsmp.reshape", {scattered, shape}, outType);
}

Expected<Value> importReverseSequence(const onnx::NodeProto &node,
                                      ArrayRef<Value> inputs, GraphBuilder &g) {
  if (inputs.size() != 2 || !inputs[0] || !inputs[1] || node.output_size() != 1)
    return createStringError("ReverseSequence takes input and sequence_lens "
                             "and gives one output");
  int64_t batchAxis = 1, timeAxis = 0;
  for (const auto &attr : node.attribute()) {
    int64_t *target = attr.name() == "batch_axis"  ? &batchAxis
                      : attr.name() == "time_axis" ? &timeAxis
                                                   : nullptr;
    if (!target || attr.type() != onnx::AttributeProto::INT)
      return createStringError("attribute '" + attr.name() +
                               "' is not an ONNX attribute of "
                               "ReverseSequence (batch_axis and time_axis "
                               "are, INT)");
    *target = attr.i();
  }
  if (!llvm::is_contained({0, 1}, batchAxis) ||
      !llvm::is_contained({0, 1}, timeAxis) || batchAxis == timeAxis)
    return createStringError("ReverseSequence's batch_axis and time_axis "
                             "must be 0 and 1, one each");
  auto type = dyn_cast<RankedTensorType>(inputs[0].getType());
  auto lensType = dyn_cast<RankedTensorType>(inputs[1].getType());
  if (!type || type.getRank() < 2)
    return createStringError("ReverseSequence's input must be a ranked "
                             "tensor of rank 2 or more");
  int64_t steps = type.getDimSize(timeAxis);
  int64_t batch = type.getDimSize(batchAxis);
  if (!lensType || lensType.getRank() != 1 ||
      !lensType.getElementType().isInteger(64) ||
      (!lensType.isDynamicDim(0) && !ShapedType::isDynamic(batch) &&
       lensType.getDimSize(0) != batch))
    return createStringError(
        "ReverseSequence's sequence_lens must be an int64 tensor of the "
        "batch's " +
        (ShapedType::isDynamic(batch) ? std::string("size")
                                      : std::to_string(batch)) +
        " values");
  if (steps > kLimit)
    return createStringError("ReverseSequence's time dim is beyond 2^31");
  int64_t rank = type.getRank();
  Type i64 = lensType.getElementType();
  // t along the time axis, each length along the batch axis, 1 elsewhere.
  SmallVector<int64_t> timeDims(rank, 1), batchDims(rank, 1), bothDims(rank, 1);
  timeDims[timeAxis] = bothDims[timeAxis] = steps;
  batchDims[batchAxis] = bothDims[batchAxis] = batch;
  SmallVector<int64_t> timeShape(rank, 1), batchShape(rank, 1);
  timeShape[timeAxis] = batchShape[batchAxis] = -1;
  // The steps 0 .. T - 1: a constant, or a Range to the time dim read at
  // run time (it folds where specialization knows the dim).
  Value length, steps1D;
  if (ShapedType::isDynamic(steps)) {
    length = g.typed("dsmp.shape", {inputs[0]}, tensorOf({1}, i64),
                     {g.i64("start", timeAxis), g.i64("end", timeAxis + 1)});
    auto scalar = tensorOf({}, i64);
    auto constant = [&](int64_t v) {
      return g.typed("dsmp.reshape", {g.i64s({v}), g.i64s({})}, scalar);
    };
    Value limit = g.typed("dsmp.reshape", {length, g.i64s({})}, scalar);
    steps1D = g.typed("dsmp.range", {constant(0), limit, constant(1)},
                      tensorOf({ShapedType::kDynamic}, i64));
  } else {
    SmallVector<int64_t> range(steps);
    std::iota(range.begin(), range.end(), int64_t(0));
    length = g.i64s({steps});
    steps1D = g.i64s(range);
  }
  Value t = g.typed("dsmp.reshape", {steps1D, g.i64s(timeShape)},
                    tensorOf(timeDims, i64));
  Value lens = g.typed("dsmp.reshape", {inputs[1], g.i64s(batchShape)},
                       tensorOf(batchDims, i64));
  // A length beyond the time dim reverses the whole of it.
  lens = g.typed("dsmp.min", {lens, length}, lens.getType());
  auto both = tensorOf(bothDims, i64);
  Value last = g.typed("dsmp.sub", {lens, g.i64s({1})}, lens.getType());
  Value reversed = g.typed("dsmp.sub", {last, t}, both);
  Value inside =
      g.typed("dsmp.less", {t, lens},
              tensorOf(bothDims, IntegerType::get(t.getContext(), 1)));
  Value index = g.typed("dsmp.where", {inside, reversed, t}, both);
  Value shape = g.typed("dsmp.shape", {inputs[0]}, tensorOf({rank}, i64));
  Value full =
      g.typed("dsmp.expand", {index, shape}, tensorOf(type.getShape(), i64));
  return g.typed("dsmp.gather_elements", {inputs[0], full}, type,
                 {g.i64("axis", timeAxis)});
}

} // namespace

bool isIndexedFormOp(const onnx::NodeProto &node) {
  return (node.domain().empty() || node.domain() == "ai.onnx") &&
         llvm::is_contained({"MaxUnpool", "ReverseSequence"}, node.op_type());
}

Expected<Value> importIndexedForm(const onnx::NodeProto &node,
                                  ArrayRef<Value> inputs, GraphBuilder &g) {
  if (node.op_type() == "MaxUnpool")
    return importMaxUnpool(node, inputs, g);
  return importReverseSequence(node, inputs, g);
}

} // namespace mlir::dsmp::onnx_import
