//===- ExpandMaxPoolGrad.cpp - MaxPool's VJP as lowerable ops -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// dsmp.max_pool_grad for the host lowering, which has no scatter: for each
// offset k in the window, the input at k of every window (a strided slice
// of the input padded with the lowest float) is compared with the window's
// maximum; the matches take dY / ties, put back in place by a depthwise
// ConvTranspose with a one-hot kernel, and the offsets' parts are summed.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "dialects/Dsmp/Transforms/Passes.h"

#include <limits>

#define DEBUG_TYPE "dsmp-expand-max-pool-grad"

namespace mlir::dsmp {
#define GEN_PASS_DEF_EXPANDMAXPOOLGRADPASS
#include "dialects/Dsmp/Transforms/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

SmallVector<int64_t> orDefault(std::optional<ArrayRef<int64_t>> values,
                               size_t n, int64_t otherwise) {
  return values ? SmallVector<int64_t>(*values)
                : SmallVector<int64_t>(n, otherwise);
}

/// dX as slices, comparisons and one-hot ConvTransposes; null where the
/// shapes are not static or do not fit a window.
Value expand(MaxPoolGradOp op) {
  auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
  auto gType = dyn_cast<RankedTensorType>(op.getDY().getType());
  if (!xType || !gType || !xType.hasStaticShape() || !gType.hasStaticShape())
    return {};
  ArrayRef<int64_t> kernel = op.getKernelShape();
  size_t n = kernel.size();
  if (xType.getRank() != static_cast<int64_t>(n) + 2)
    return {};
  SmallVector<int64_t> strides = orDefault(op.getStrides(), n, 1);
  SmallVector<int64_t> dilations = orDefault(op.getDilations(), n, 1);
  SmallVector<int64_t> pads = orDefault(op.getPads(), 2 * n, 0);
  // output_padding that makes the transposed window over dY give X's dims.
  SmallVector<int64_t> padding;
  for (size_t i = 0; i < n; ++i) {
    int64_t in = gType.getDimSize(2 + i), out = xType.getDimSize(2 + i);
    padding.push_back(out -
                      ((in - 1) * strides[i] + (kernel[i] - 1) * dilations[i] +
                       1 - pads[i] - pads[n + i]));
    if (padding.back() < 0)
      return {};
  }

  OpBuilder b(op);
  GraphBuilder g(b, op.getLoc());
  Type element = xType.getElementType();
  Value padded = op.getX();
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
    SmallVector<int64_t> full(2 * (n + 2), 0);
    for (size_t i = 0; i < n; ++i) {
      full[2 + i] = pads[i];
      full[n + 4 + i] = pads[n + i];
    }
    padded = g.value("dsmp.pad",
                     {padded, g.i64s(full),
                      g.scalar(std::numeric_limits<float>::lowest(), element),
                      g.none()});
  }
  int64_t offsets = 1;
  for (int64_t k : kernel)
    offsets *= k;
  SmallVector<int64_t> axes;
  for (size_t i = 0; i < n; ++i)
    axes.push_back(2 + i);
  SmallVector<Value> matches;
  Value ties;
  SmallVector<int64_t> at(n, 0); // the offset, kernel dims row-major
  for (int64_t k = 0; k < offsets; ++k) {
    SmallVector<int64_t> starts, ends;
    for (size_t i = 0; i < n; ++i) {
      starts.push_back(at[i] * dilations[i]);
      ends.push_back(starts.back() +
                     strides[i] * (gType.getDimSize(2 + i) - 1) + 1);
    }
    Value window = g.value("dsmp.slice", {padded, g.i64s(starts), g.i64s(ends),
                                          g.i64s(axes), g.i64s(strides)});
    Value match = g.value("dsmp.equal", {window, op.getY()});
    Value one = g.value(
        "dsmp.where", {match, g.scalar(1.0, element), g.scalar(0.0, element)});
    if (!match || !one)
      return {};
    matches.push_back(match);
    ties = ties ? g.add(ties, one) : one;
    for (size_t i = n; i-- > 0;) { // next offset
      if (++at[i] < kernel[i])
        break;
      at[i] = 0;
    }
  }
  Value share = g.div(op.getDY(), ties);
  int64_t channels = xType.getDimSize(1);
  SmallVector<int64_t> wShape{channels, 1};
  wShape.append(kernel.begin(), kernel.end());
  auto weightType = RankedTensorType::get(wShape, element);
  Value sum;
  for (int64_t k = 0; k < offsets; ++k) {
    std::vector<float> hot(weightType.getNumElements(), 0.0f);
    for (int64_t c = 0; c < channels; ++c)
      hot[c * offsets + k] = 1.0f;
    Value placed = g.value(
        "dsmp.conv_transpose",
        {g.selectOrZero(matches[k], share), g.floats(weightType, hot),
         g.none()},
        {g.array("strides", strides), g.array("pads", pads),
         g.array("dilations", dilations), g.array("kernel_shape", kernel),
         g.array("output_padding", padding), g.i64("group", channels)});
    if (!placed)
      return {};
    sum = sum ? g.add(sum, placed) : placed;
  }
  return sum && sum.getType() == op.getType() ? sum : Value();
}

struct ExpandMaxPoolGradPass final
    : mlir::dsmp::impl::ExpandMaxPoolGradPassBase<ExpandMaxPoolGradPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<MaxPoolGradOp> grads;
    getOperation().walk([&](MaxPoolGradOp op) { grads.push_back(op); });
    for (MaxPoolGradOp op : grads) {
      Value dx = expand(op);
      if (!dx) {
        op.emitOpError("cannot be expanded: it needs static shapes and a "
                       "window that fits X");
        return signalPassFailure();
      }
      op.getResult().replaceAllUsesWith(dx);
      op->erase();
      ++numExpanded;
    }
  }
};
} // namespace
