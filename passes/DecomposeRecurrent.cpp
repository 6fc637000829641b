//===- DecomposeRecurrent.cpp - Unroll LSTMs into dsmp ops ---- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX LSTM (gates in the order i, o, f, c; W [dirs, 4H, in], R [dirs, 4H,
// H], B [dirs, 8H] = Wb then Rb, P [dirs, 3H] = pi, po, pf):
//   g = X_t W^T + H R^T + Wb + Rb
//   i = sigmoid(g_i + pi * C)   f = sigmoid(g_f + pf * C)   c = tanh(g_c)
//   C' = f * C + i * c          o = sigmoid(g_o + po * C')  H' = o * tanh(C')
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "dsmp-decompose-recurrent"

namespace mlir::dsmp {
#define GEN_PASS_DEF_DECOMPOSERECURRENTPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

RankedTensorType staticType(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

bool isNoneValue(Value v) { return !v || isa<NoneType>(v.getType()); }

/// Whether the LSTM is one this pass unrolls.
bool isSupported(LSTMOp op) {
  if (!staticType(op.getX()) || !staticType(op.getW()) ||
      !staticType(op.getR()) || staticType(op.getX()).getRank() != 3 ||
      !isNoneValue(op.getSequenceLens()) || op.getClip() ||
      op.getInputForget() != 0 || op.getActivationAlpha() ||
      op.getActivationBeta())
    return false;
  if (auto acts = op.getActivations()) {
    static const char *defaults[] = {"Sigmoid", "Tanh", "Tanh"};
    for (auto [i, a] : llvm::enumerate(acts->getAsValueRange<StringAttr>()))
      if (a != defaults[i % 3])
        return false;
  }
  for (Value v : {op.getB(), op.getInitialH(), op.getInitialC(), op.getP()})
    if (!isNoneValue(v) && !staticType(v))
      return false;
  return true;
}

struct Unroller {
  GraphBuilder &g;
  Type element;

  /// x[lo:hi] along `axis`.
  Value slice(Value x, int64_t axis, int64_t lo, int64_t hi) {
    return g.value("dsmp.slice",
                   {x, g.i64s({lo}), g.i64s({hi}), g.i64s({axis}), g.none()});
  }
  /// Row `d` of a [dirs, ...] tensor, reshaped to `shape`.
  Value row(Value x, int64_t d, ArrayRef<int64_t> shape) {
    return g.reshape(slice(x, 0, d, d + 1), shape);
  }
  Value concat(ArrayRef<Value> parts, int64_t axis) {
    if (parts.size() == 1)
      return parts.front();
    return g.value("dsmp.concat", parts, {g.i64("axis", axis)});
  }
};

LogicalResult decompose(LSTMOp op) {
  OpBuilder b(op);
  GraphBuilder g(b, op.getLoc());
  auto xType = staticType(op.getX());
  auto rType = staticType(op.getR());
  Type element = xType.getElementType();
  Unroller u{g, element};
  bool batchFirst = op.getLayout() == 1;
  Value x = batchFirst ? g.transpose(op.getX(), {1, 0, 2}) : op.getX();
  int64_t seq = cast<RankedTensorType>(x.getType()).getDimSize(0);
  int64_t batch = cast<RankedTensorType>(x.getType()).getDimSize(1);
  int64_t input = xType.getDimSize(2);
  int64_t dirs = rType.getDimSize(0), hidden = rType.getDimSize(2);
  StringRef direction = op.getDirection();
  if ((direction == "bidirectional") != (dirs == 2) || seq < 1)
    return failure();
  auto zeros = RankedTensorType::get({batch, hidden}, element);
  auto sigmoid = [&](Value v) { return g.value("dsmp.sigmoid", {v}); };
  auto tanh = [&](Value v) { return g.value("dsmp.tanh", {v}); };

  // All steps' inputs times W at once: [seq * batch, input] x [input, 4H].
  Value xs = g.reshape(x, {seq * batch, input});
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    Value wt = g.transpose(u.row(op.getW(), d, {4 * hidden, input}), {1, 0});
    Value rt = g.transpose(u.row(op.getR(), d, {4 * hidden, hidden}), {1, 0});
    Value xw = g.value("dsmp.matmul", {xs, wt});
    if (!isNoneValue(op.getB())) {
      Value bias = u.row(op.getB(), d, {8 * hidden});
      xw = g.add(xw, g.add(u.slice(bias, 0, 0, 4 * hidden),
                           u.slice(bias, 0, 4 * hidden, 8 * hidden)));
    }
    Value pi, po, pf;
    if (!isNoneValue(op.getP())) {
      Value p = u.row(op.getP(), d, {3 * hidden});
      pi = u.slice(p, 0, 0, hidden);
      po = u.slice(p, 0, hidden, 2 * hidden);
      pf = u.slice(p, 0, 2 * hidden, 3 * hidden);
    }
    Value h = isNoneValue(op.getInitialH())
                  ? g.floats(zeros, SmallVector<float>(batch * hidden, 0.0f))
                  : u.row(op.getInitialH(), d, {batch, hidden});
    Value c = isNoneValue(op.getInitialC())
                  ? g.floats(zeros, SmallVector<float>(batch * hidden, 0.0f))
                  : u.row(op.getInitialC(), d, {batch, hidden});
    SmallVector<Value> steps(seq);
    for (int64_t k = 0; k < seq; ++k) {
      int64_t t = reverse ? seq - 1 - k : k;
      Value gates = g.add(u.slice(xw, 0, t * batch, (t + 1) * batch),
                          g.value("dsmp.matmul", {h, rt}));
      auto gate = [&](int64_t n) {
        return u.slice(gates, 1, n * hidden, (n + 1) * hidden);
      };
      Value gi = gate(0), go = gate(1), gf = gate(2), gc = gate(3);
      if (pi) {
        gi = g.add(gi, g.mul(pi, c));
        gf = g.add(gf, g.mul(pf, c));
      }
      Value i = sigmoid(gi), f = sigmoid(gf), cand = tanh(gc);
      c = g.add(g.mul(f, c), g.mul(i, cand));
      if (po)
        go = g.add(go, g.mul(po, c));
      h = g.mul(sigmoid(go), tanh(c));
      if (!h || !c)
        return failure();
      steps[t] = g.reshape(h, {1, 1, batch, hidden});
    }
    ys.push_back(u.concat(steps, 0));
    hs.push_back(g.reshape(h, {1, batch, hidden}));
    cs.push_back(g.reshape(c, {1, batch, hidden}));
  }
  Value y = u.concat(ys, 1), yh = u.concat(hs, 0), yc = u.concat(cs, 0);
  if (batchFirst) {
    y = g.transpose(y, {2, 0, 1, 3});
    yh = g.transpose(yh, {1, 0, 2});
    yc = g.transpose(yc, {1, 0, 2});
  }
  Value results[] = {y, yh, yc};
  for (auto [result, value] : llvm::zip(op->getResults(), results)) {
    if (isa<NoneType>(result.getType()) || result.use_empty())
      continue;
    if (!value || value.getType() != result.getType())
      return failure();
  }
  for (auto [result, value] : llvm::zip(op->getResults(), results))
    if (!isa<NoneType>(result.getType()))
      result.replaceAllUsesWith(value);
  op->erase();
  return success();
}

struct DecomposeRecurrentPass final
    : mlir::dsmp::impl::DecomposeRecurrentPassBase<DecomposeRecurrentPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<LSTMOp> lstms;
    getOperation().walk([&](LSTMOp op) {
      if (isSupported(op))
        lstms.push_back(op);
    });
    for (LSTMOp op : lstms) {
      // Build next to the op; on failure drop what was built.
      Block *block = op->getBlock();
      Operation *before = op->getPrevNode();
      if (succeeded(decompose(op))) {
        ++numDecomposed;
        continue;
      }
      SmallVector<Operation *> built;
      for (Operation *it = before ? before->getNextNode() : &block->front();
           it && it != op.getOperation(); it = it->getNextNode())
        built.push_back(it);
      for (Operation *dead : llvm::reverse(built))
        if (dead->use_empty())
          dead->erase();
    }
  }
};
} // namespace
