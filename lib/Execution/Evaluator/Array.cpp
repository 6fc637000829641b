//===- Array.cpp - The evaluator's host tensors --------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Array.h"

#include "mlir/IR/BuiltinAttributes.h"

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace mlir::dsmp::eval {

void Array::allocate() {
  int64_t n = product(shape);
  if (isFloat)
    f.assign(n, 0.0f);
  else
    i.assign(n, 0);
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

SmallVector<int64_t, 4> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

SmallVector<int64_t, 4> broadcastStrides(ArrayRef<int64_t> in,
                                         ArrayRef<int64_t> out) {
  SmallVector<int64_t, 4> own = stridesOf(in);
  SmallVector<int64_t, 4> strides(out.size(), 0);
  int64_t lead = int64_t(out.size()) - int64_t(in.size());
  for (int64_t d = 0; d < int64_t(in.size()); ++d)
    if (lead + d >= 0 && in[d] != 1)
      strides[lead + d] = own[d];
  return strides;
}

int64_t intAttr(Operation *op, StringRef name, int64_t fallback) {
  auto attr = op->getAttrOfType<IntegerAttr>(name);
  return attr ? attr.getInt() : fallback;
}

float floatAttr(Operation *op, StringRef name, float fallback) {
  auto attr = op->getAttrOfType<FloatAttr>(name);
  return attr ? float(attr.getValueAsDouble()) : fallback;
}

SmallVector<int64_t, 4> intsAttr(Operation *op, StringRef name, size_t count,
                                 int64_t fallback) {
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name))
    return SmallVector<int64_t, 4>(attr.asArrayRef());
  return SmallVector<int64_t, 4>(count, fallback);
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

llvm::Error unsupported(Operation *op, const llvm::Twine &why) {
  return llvm::createStringError("the evaluator has no kernel for '" +
                                 op->getName().getStringRef() + "' (" + why +
                                 ")");
}

llvm::Expected<Window> slidingWindow(Operation *op, ArrayRef<int64_t> inShape,
                                     ArrayRef<int64_t> outShape,
                                     ArrayRef<int64_t> kernelDims) {
  int64_t spatial = int64_t(inShape.size()) - 2;
  if (spatial < 1 || spatial > 3 || outShape.size() != inShape.size())
    return unsupported(op, "spatial rank outside 1..3");
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  StringRef mode = autoPad ? autoPad.getValue() : "NOTSET";
  SmallVector<int64_t, 4> kernel =
      op->hasAttr("kernel_shape") || kernelDims.empty()
          ? intsAttr(op, "kernel_shape", spatial, 1)
          : SmallVector<int64_t, 4>(kernelDims);
  SmallVector<int64_t, 4> strides = intsAttr(op, "strides", spatial, 1);
  SmallVector<int64_t, 4> dilations = intsAttr(op, "dilations", spatial, 1);
  SmallVector<int64_t, 4> pads = intsAttr(op, "pads", 2 * spatial, 0);
  if (int64_t(kernel.size()) != spatial || int64_t(strides.size()) != spatial ||
      int64_t(dilations.size()) != spatial ||
      int64_t(pads.size()) != 2 * spatial)
    return unsupported(op, "window attributes of the wrong length");
  Window w;
  int shift = 3 - int(spatial);
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t in = inShape[2 + d], out = outShape[2 + d];
    int64_t begin = pads[d], end = pads[spatial + d];
    if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      int64_t total = std::max<int64_t>(
          0, (out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - in);
      begin = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (mode == "VALID") {
      begin = end = 0;
    }
    w.in[shift + d] = in;
    w.out[shift + d] = out;
    w.kernel[shift + d] = kernel[d];
    w.stride[shift + d] = strides[d];
    w.dilation[shift + d] = dilations[d];
    w.padBegin[shift + d] = begin;
    w.padEnd[shift + d] = end;
  }
  return w;
}

} // namespace mlir::dsmp::eval
