//===- Col2Im.cpp - ONNX Col2Im as a grouped ConvTranspose ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Col2Im.h"

#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <string>

using namespace mlir;
using llvm::Expected;

namespace mlir::dsmp::onnx_import {
namespace {

std::string list(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

} // namespace

Expected<Value> importCol2Im(const onnx::NodeProto &node,
                             ArrayRef<Value> inputs, GraphBuilder &g) {
  if (inputs.size() != 3 || node.output_size() != 1 ||
      llvm::any_of(inputs, [](Value v) { return !v; }))
    return llvm::createStringError(
        "Col2Im takes input, image_shape and block_shape and gives "
        "one output");
  auto type = dyn_cast<RankedTensorType>(inputs[0].getType());
  if (!type || type.getRank() != 3 || !isa<FloatType>(type.getElementType()))
    return llvm::createStringError(
        "Col2Im's input must be a float tensor [N, C * "
        "prod(block_shape), L]");
  auto image = getConstantInts(inputs[1]);
  auto block = getConstantInts(inputs[2]);
  if (!image || !block)
    return llvm::createStringError(
        "Col2Im's image_shape and block_shape must be constants "
        "(initializers or Constant nodes)");
  size_t rank = block->size();
  if (rank == 0 || image->size() != rank)
    return llvm::createStringError("Col2Im's image_shape " + list(*image) +
                                   " and block_shape " + list(*block) +
                                   " must have the same, non-zero length");
  if (llvm::any_of(*image, [](int64_t v) { return v <= 0; }) ||
      llvm::any_of(*block, [](int64_t v) { return v <= 0; }))
    return llvm::createStringError("Col2Im's image_shape " + list(*image) +
                                   " and block_shape " + list(*block) +
                                   " must be positive");
  SmallVector<int64_t> dilations(rank, 1), strides(rank, 1), pads(2 * rank, 0);
  for (const auto &attr : node.attribute()) {
    SmallVector<int64_t> *target = attr.name() == "dilations" ? &dilations
                                   : attr.name() == "strides" ? &strides
                                   : attr.name() == "pads"    ? &pads
                                                              : nullptr;
    if (!target || attr.type() != onnx::AttributeProto::INTS)
      return llvm::createStringError(
          "attribute '" + attr.name() +
          "' is not an ONNX attribute of Col2Im (dilations, pads "
          "and strides are, INTS)");
    if (static_cast<size_t>(attr.ints_size()) != target->size())
      return llvm::createStringError("Col2Im's " + attr.name() + " has " +
                                     std::to_string(attr.ints_size()) +
                                     " values; " + std::to_string(rank) +
                                     " spatial dims need " +
                                     std::to_string(target->size()));
    target->assign(attr.ints().begin(), attr.ints().end());
  }
  if (llvm::any_of(dilations, [](int64_t v) { return v <= 0; }) ||
      llvm::any_of(strides, [](int64_t v) { return v <= 0; }) ||
      llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return llvm::createStringError(
        "Col2Im's dilations and strides must be positive, its pads "
        "not negative");
  // Sizes come from the model: bound them before multiplying.
  constexpr int64_t kLimit = int64_t(1) << 31;
  int64_t kernel = 1, positions = 1;
  SmallVector<int64_t> counts, outputPadding;
  for (size_t i = 0; i < rank; ++i) {
    int64_t k = (*block)[i], d = dilations[i], s = strides[i];
    int64_t size = (*image)[i], lo = pads[i], hi = pads[i + rank];
    if (k > kLimit || d > kLimit || s > kLimit || size > kLimit ||
        lo > kLimit || hi > kLimit)
      return llvm::createStringError("Col2Im's sizes are beyond 2^31");
    int64_t span = d * (k - 1) + 1;
    if (size + lo + hi < span)
      return llvm::createStringError("Col2Im's block " + list(*block) +
                                     " (dilated) does not " +
                                     "fit in the padded image " + list(*image));
    int64_t count = (size + lo + hi - span) / s + 1;
    counts.push_back(count);
    // What the stride leaves over at the far end: ConvTranspose's
    // output_padding, so that its output is the image's size.
    outputPadding.push_back(size - ((count - 1) * s - lo - hi + span));
    kernel *= k;
    positions *= count;
    if (kernel > kLimit || positions > kLimit)
      return llvm::createStringError(
          "Col2Im's block or block count is beyond 2^31");
  }
  int64_t channels = type.getDimSize(1);
  if (ShapedType::isDynamic(channels) || channels % kernel != 0)
    return llvm::createStringError(
        "Col2Im's input has " +
        (ShapedType::isDynamic(channels)
             ? std::string("a dynamic channel dim")
             : std::to_string(channels) + " channels") +
        "; it needs a static multiple of prod(block_shape) = " +
        std::to_string(kernel));
  int64_t length = type.getDimSize(2);
  if (!ShapedType::isDynamic(length) && length != positions)
    return llvm::createStringError(
        "Col2Im's input has " + std::to_string(length) +
        " blocks; image_shape " + list(*image) + ", block_shape " +
        list(*block) + ", dilations, pads and strides give " +
        std::to_string(positions));
  if (channels > kLimit / kernel)
    return llvm::createStringError(
        "Col2Im's one-hot kernel is beyond 2^31 elements");

  Type element = type.getElementType();
  int64_t batch = type.getDimSize(0);
  // The blocks as an image of block positions: [N, C * K, counts...].
  SmallVector<int64_t> blockShape{0, channels};
  blockShape.append(counts);
  SmallVector<int64_t> blockDims{batch, channels};
  blockDims.append(counts);
  Value blocks = g.typed("dsmp.reshape", {inputs[0], g.i64s(blockShape)},
                         RankedTensorType::get(blockDims, element));
  // Kernel [C * K, 1, block...]: channel c * K + j is one at offset j.
  SmallVector<int64_t> weightDims{channels, 1};
  weightDims.append(block->begin(), block->end());
  std::vector<float> oneHot(static_cast<size_t>(channels * kernel), 0.0f);
  for (int64_t ch = 0; ch < channels; ++ch)
    oneHot[static_cast<size_t>(ch * kernel + ch % kernel)] = 1.0f;
  Value weight = g.floats(RankedTensorType::get(weightDims, element), oneHot);
  SmallVector<int64_t> outDims{batch, channels / kernel};
  outDims.append(image->begin(), image->end());
  return g.typed(
      "dsmp.conv_transpose", {blocks, weight, g.none()},
      RankedTensorType::get(outDims, element),
      {g.array("dilations", dilations), g.i64("group", channels / kernel),
       g.array("kernel_shape", *block), g.array("pads", pads),
       g.array("strides", strides), g.array("output_padding", outputPadding)});
}

} // namespace mlir::dsmp::onnx_import
