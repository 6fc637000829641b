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
// GRU (gates z, r, h): z, r = sigmoid(X W^T + H R^T + Wb + Rb),
//   h~ = tanh(X Wh^T + (r * H) Rh^T + Rbh + Wbh)  (linear_before_reset = 0)
//   h~ = tanh(X Wh^T + r * (H Rh^T + Rbh) + Wbh)  (linear_before_reset = 1)
//   H' = (1 - z) * h~ + z * H
// RNN: H' = tanh(X W^T + H R^T + Wb + Rb).
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "dsmp-decompose-recurrent"

namespace mlir::dsmp {
#define GEN_PASS_DEF_DECOMPOSERECURRENTPASS
#include "dialects/Dsmp/Transforms/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

RankedTensorType staticType(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

bool isNoneValue(Value v) { return !v || isa<NoneType>(v.getType()); }

enum class Cell { LSTM, GRU, RNN };

/// The operands every recurrence shares (ONNX order: X, W, R, B,
/// sequence_lens, initial_h, then LSTM's initial_c and P).
struct Recurrence {
  Operation *op;
  Cell cell;
  Value x, w, r, b, seqLens, h0, c0, p;
  int64_t gates;

  static std::optional<Recurrence> of(Operation *op) {
    Recurrence rec{op, Cell::RNN, {}, {}, {}, {}, {}, {}, {}, {}, 1};
    if (isa<LSTMOp>(op))
      rec = {op, Cell::LSTM, {}, {}, {}, {}, {}, {}, {}, {}, 4};
    else if (isa<GRUOp>(op))
      rec = {op, Cell::GRU, {}, {}, {}, {}, {}, {}, {}, {}, 3};
    else if (!isa<RNNOp>(op))
      return std::nullopt;
    auto operand = [&](unsigned i) {
      return i < op->getNumOperands() ? op->getOperand(i) : Value();
    };
    rec.x = operand(0);
    rec.w = operand(1);
    rec.r = operand(2);
    rec.b = operand(3);
    rec.seqLens = operand(4);
    rec.h0 = operand(5);
    if (rec.cell == Cell::LSTM) {
      rec.c0 = operand(6);
      rec.p = operand(7);
    }
    return rec;
  }
};

/// Whether this pass unrolls the recurrence: static shapes, the default
/// activations, no clip, no sequence_lens (and for LSTM input_forget = 0).
bool isSupported(const Recurrence &rec) {
  Operation *op = rec.op;
  if (!staticType(rec.x) || !staticType(rec.w) || !staticType(rec.r) ||
      staticType(rec.x).getRank() != 3 || !isNoneValue(rec.seqLens) ||
      op->hasAttr("clip") || op->hasAttr("activation_alpha") ||
      op->hasAttr("activation_beta"))
    return false;
  if (auto forget = op->getAttrOfType<IntegerAttr>("input_forget"))
    if (forget.getInt() != 0)
      return false;
  if (auto acts = op->getAttrOfType<ArrayAttr>("activations")) {
    SmallVector<StringRef> defaults =
        rec.cell == Cell::LSTM
            ? SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"}
        : rec.cell == Cell::GRU ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
                                : SmallVector<StringRef>{"Tanh"};
    for (auto [i, a] : llvm::enumerate(acts.getAsValueRange<StringAttr>()))
      if (a != defaults[i % defaults.size()])
        return false;
  }
  for (Value v : {rec.b, rec.h0, rec.c0, rec.p})
    if (!isNoneValue(v) && !staticType(v))
      return false;
  return true;
}

struct Unroller {
  GraphBuilder &g;

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

LogicalResult decompose(const Recurrence &rec) {
  Operation *op = rec.op;
  OpBuilder b(op);
  GraphBuilder g(b, op->getLoc());
  auto xType = staticType(rec.x);
  auto rType = staticType(rec.r);
  Type element = xType.getElementType();
  Unroller u{g};
  auto layout = op->getAttrOfType<IntegerAttr>("layout");
  bool batchFirst = layout && layout.getInt() == 1;
  Value x = batchFirst ? g.transpose(rec.x, {1, 0, 2}) : rec.x;
  int64_t seq = cast<RankedTensorType>(x.getType()).getDimSize(0);
  int64_t batch = cast<RankedTensorType>(x.getType()).getDimSize(1);
  int64_t input = xType.getDimSize(2);
  int64_t dirs = rType.getDimSize(0), hidden = rType.getDimSize(2);
  int64_t gates = rec.gates, gh = gates * hidden;
  auto directionAttr = op->getAttrOfType<StringAttr>("direction");
  StringRef direction = directionAttr ? directionAttr.getValue() : "forward";
  if ((direction == "bidirectional") != (dirs == 2) || seq < 1)
    return failure();
  auto lbrAttr = op->getAttrOfType<IntegerAttr>("linear_before_reset");
  bool linearBeforeReset = lbrAttr && lbrAttr.getInt() != 0;
  auto zeros = RankedTensorType::get({batch, hidden}, element);
  auto sigmoid = [&](Value v) { return g.value("dsmp.sigmoid", {v}); };
  auto tanh = [&](Value v) { return g.value("dsmp.tanh", {v}); };
  auto zero = [&] {
    return g.floats(zeros, SmallVector<float>(batch * hidden, 0.0f));
  };

  // All steps' inputs times W at once: [seq * batch, input] x [input, G*H].
  Value xs = g.reshape(x, {seq * batch, input});
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    Value wt = g.transpose(u.row(rec.w, d, {gh, input}), {1, 0});
    Value rt = g.transpose(u.row(rec.r, d, {gh, hidden}), {1, 0});
    Value xw = g.value("dsmp.matmul", {xs, wt});
    Value rb; // the recurrence bias [G*H], kept apart where GRU needs it
    if (!isNoneValue(rec.b)) {
      Value bias = u.row(rec.b, d, {2 * gh});
      Value wb = u.slice(bias, 0, 0, gh);
      rb = u.slice(bias, 0, gh, 2 * gh);
      xw = g.add(xw, rec.cell == Cell::GRU ? wb : g.add(wb, rb));
    }
    Value pi, po, pf;
    if (!isNoneValue(rec.p)) {
      Value p = u.row(rec.p, d, {3 * hidden});
      pi = u.slice(p, 0, 0, hidden);
      po = u.slice(p, 0, hidden, 2 * hidden);
      pf = u.slice(p, 0, 2 * hidden, 3 * hidden);
    }
    Value h = isNoneValue(rec.h0) ? zero() : u.row(rec.h0, d, {batch, hidden});
    Value c = rec.cell != Cell::LSTM ? Value()
              : isNoneValue(rec.c0)  ? zero()
                                     : u.row(rec.c0, d, {batch, hidden});
    auto part = [&](Value v, int64_t n) {
      return u.slice(v, 1, n * hidden, (n + 1) * hidden);
    };
    SmallVector<Value> steps(seq);
    for (int64_t k = 0; k < seq; ++k) {
      int64_t t = reverse ? seq - 1 - k : k;
      Value xt = u.slice(xw, 0, t * batch, (t + 1) * batch);
      Value hr = g.value("dsmp.matmul", {h, rt});
      if (rec.cell == Cell::LSTM) { // gates i, o, f, c
        Value gsum = g.add(xt, hr);
        Value gi = part(gsum, 0), go = part(gsum, 1), gf = part(gsum, 2),
              gc = part(gsum, 3);
        if (pi) {
          gi = g.add(gi, g.mul(pi, c));
          gf = g.add(gf, g.mul(pf, c));
        }
        Value i = sigmoid(gi), f = sigmoid(gf), cand = tanh(gc);
        c = g.add(g.mul(f, c), g.mul(i, cand));
        if (po)
          go = g.add(go, g.mul(po, c));
        h = g.mul(sigmoid(go), tanh(c));
      } else if (rec.cell == Cell::GRU) { // gates z, r, h
        if (rb)
          hr = g.add(hr, rb);
        Value z = sigmoid(g.add(part(xt, 0), part(hr, 0)));
        Value r = sigmoid(g.add(part(xt, 1), part(hr, 1)));
        Value cand;
        if (linearBeforeReset) {
          cand = tanh(g.add(part(xt, 2), g.mul(r, part(hr, 2))));
        } else {
          // (r * H) Rh^T + Rbh: the reset gate applies before the product.
          Value rht = g.transpose(
              u.slice(u.row(rec.r, d, {gh, hidden}), 0, 2 * hidden, gh),
              {1, 0});
          Value hh = g.value("dsmp.matmul", {g.mul(r, h), rht});
          if (rb)
            hh = g.add(hh, u.slice(rb, 0, 2 * hidden, gh));
          cand = tanh(g.add(part(xt, 2), hh));
        }
        // H' = (1 - z) * cand + z * H = cand + z * (H - cand).
        h = g.add(cand, g.mul(z, g.sub(h, cand)));
      } else {
        h = tanh(g.add(xt, hr));
      }
      if (!h || (rec.cell == Cell::LSTM && !c))
        return failure();
      steps[t] = g.reshape(h, {1, 1, batch, hidden});
    }
    ys.push_back(u.concat(steps, 0));
    hs.push_back(g.reshape(h, {1, batch, hidden}));
    if (c)
      cs.push_back(g.reshape(c, {1, batch, hidden}));
  }
  Value y = u.concat(ys, 1), yh = u.concat(hs, 0);
  Value yc = cs.empty() ? Value() : u.concat(cs, 0);
  if (batchFirst) {
    y = g.transpose(y, {2, 0, 1, 3});
    yh = g.transpose(yh, {1, 0, 2});
    if (yc)
      yc = g.transpose(yc, {1, 0, 2});
  }
  SmallVector<Value> results = {y, yh, yc};
  for (auto [result, value] : llvm::zip(op->getResults(), results)) {
    if (isa<NoneType>(result.getType()) || result.use_empty())
      continue;
    if (!value || value.getType() != result.getType())
      return failure();
  }
  for (auto [result, value] : llvm::zip(op->getResults(), results))
    if (!isa<NoneType>(result.getType()) && !result.use_empty())
      result.replaceAllUsesWith(value);
  op->erase();
  return success();
}

struct DecomposeRecurrentPass final
    : mlir::dsmp::impl::DecomposeRecurrentPassBase<DecomposeRecurrentPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Recurrence> recurrences;
    getOperation().walk([&](Operation *op) {
      if (auto rec = Recurrence::of(op); rec && isSupported(*rec))
        recurrences.push_back(*rec);
    });
    for (const Recurrence &rec : recurrences) {
      // Build next to the op; on failure drop what was built.
      Operation *op = rec.op;
      Block *block = op->getBlock();
      Operation *before = op->getPrevNode();
      if (succeeded(decompose(rec))) {
        ++numDecomposed;
        continue;
      }
      SmallVector<Operation *> built;
      for (Operation *it = before ? before->getNextNode() : &block->front();
           it && it != op; it = it->getNextNode())
        built.push_back(it);
      for (Operation *dead : llvm::reverse(built))
        if (dead->use_empty())
          dead->erase();
    }
  }
};
} // namespace
