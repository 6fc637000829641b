//===- DsmpVJP.cpp - Vector-Jacobian products of dsmp ops ----- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// VJPOpInterface models, written as dsmp ops so that the adjoint graph is
// compiled and run like any model. Gradients flow to float operands that
// are not constants. MaxPool routes each window's gradient to its maximum
// with dsmp.max_pool_grad (the one op here without an ONNX counterpart: the
// dialect has no scatter); windows of more than 64 elements spread it
// evenly, as AveragePool's adjoint does.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/ConvGradient.h"
#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/Einsum.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::dsmp;

static SmallVector<int64_t> intsOr(Operation *op, StringRef name, size_t n,
                                   int64_t otherwise) {
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    return SmallVector<int64_t>(a.asArrayRef());
  return SmallVector<int64_t>(n, otherwise);
}

/// dW of Conv y = conv(x, W) (group g, W [M, C/g, k...]) as another Conv:
/// per group, the images' C/g channels act as a batch and the gradient's
/// M/g channels as filters over the N images, the window's strides and
/// dilations swapped. Its output is cropped to the kernel and transposed to
/// W's layout.
Value mlir::dsmp::convFilterGradient(GraphBuilder &g, Operation *op, Value G) {
  auto xType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto wType = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto gType = dyn_cast<RankedTensorType>(G.getType());
  if (!xType || !wType || !gType || !xType.hasStaticShape() ||
      !wType.hasStaticShape() || !gType.hasStaticShape())
    return {};
  if (auto pad = op->getAttrOfType<StringAttr>("auto_pad"))
    if (pad.getValue() != "NOTSET" && pad.getValue() != "VALID")
      return {};
  int64_t rank = xType.getRank(), n = rank - 2;
  int64_t group = 1;
  if (auto a = op->getAttrOfType<IntegerAttr>("group"))
    group = a.getInt();
  int64_t batch = xType.getDimSize(0), channels = xType.getDimSize(1);
  int64_t filters = wType.getDimSize(0);
  if (n < 1 || group < 1 || channels % group || filters % group)
    return {};
  int64_t perGroup = channels / group;
  SmallVector<int64_t> strides = intsOr(op, "strides", n, 1),
                       dilations = intsOr(op, "dilations", n, 1),
                       pads = intsOr(op, "pads", 2 * n, 0);
  if (static_cast<int64_t>(strides.size()) != n ||
      static_cast<int64_t>(dilations.size()) != n ||
      static_cast<int64_t>(pads.size()) != 2 * n)
    return {};
  ArrayRef<int64_t> spatial = xType.getShape().drop_front(2);
  ArrayRef<int64_t> out = gType.getShape().drop_front(2);

  // x [N, C, S...] -> [C/g, g * N, S...]: batch c', channel (group, image).
  SmallVector<int64_t> split{batch, group, perGroup};
  split.append(spatial.begin(), spatial.end());
  SmallVector<int64_t> perm{2, 1, 0};
  for (int64_t i = 0; i < n; ++i)
    perm.push_back(3 + i);
  SmallVector<int64_t> images{perGroup, group * batch};
  images.append(spatial.begin(), spatial.end());
  Value x =
      g.reshape(g.transpose(g.reshape(op->getOperand(0), split), perm), images);
  // G [N, M, O...] -> [M, N, O...]: filter m over the N images of its group.
  SmallVector<int64_t> swap{1, 0};
  for (int64_t i = 0; i < n; ++i)
    swap.push_back(2 + i);
  Value w = g.transpose(G, swap);
  // The forward never read the last r = (S + pads - (k - 1) d - 1) mod s
  // padded positions of a strided conv: trimmed from the end pad, the
  // product has exactly the kernel's taps and needs no crop.
  ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
  for (int64_t i = 0; i < n; ++i) {
    if (strides[i] < 1 || dilations[i] < 1)
      return {};
    int64_t span =
        spatial[i] + pads[i] + pads[n + i] - (kernel[i] - 1) * dilations[i] - 1;
    if (span < 0)
      return {};
    int64_t unread = span % strides[i];
    int64_t trim = std::min(unread, pads[n + i]);
    pads[n + i] -= trim;
  }
  Value full = g.value("dsmp.conv", {x, w, g.none()},
                       {g.array("strides", dilations),
                        g.array("dilations", strides), g.array("pads", pads),
                        g.array("kernel_shape", out), g.i64("group", group)});
  if (!full)
    return {};
  // [C/g, M, K'...] -> crop to the kernel -> [M, C/g, k...].
  auto fullType = dyn_cast<RankedTensorType>(full.getType());
  if (!fullType || !fullType.hasStaticShape())
    return {};
  Value cropped = full;
  if (fullType.getShape().drop_front(2) != kernel) {
    SmallVector<int64_t> zeros(n, 0), axes(n);
    std::iota(axes.begin(), axes.end(), 2);
    cropped = g.value("dsmp.slice", {full, g.i64s(zeros), g.i64s(kernel),
                                     g.i64s(axes), g.none()});
  }
  return cropped ? g.transpose(cropped, swap) : Value();
}

namespace {

/// What one VJP model works with.
struct VJP {
  Operation *op;
  GraphBuilder g;
  ValueRange resultGrads;
  SmallVectorImpl<std::pair<Value, Value>> &grads;

  Value grad(unsigned i = 0) const { return resultGrads[i]; }
  Value operand(unsigned i) const { return op->getOperand(i); }
  Value result(unsigned i = 0) const { return op->getResult(i); }
  RankedTensorType typeOf(Value v) const {
    return dyn_cast<RankedTensorType>(v.getType());
  }
  /// Whether operand `i` needs a gradient: a float tensor not made by a
  /// constant.
  bool wants(unsigned i) const {
    Value v = operand(i);
    auto type = typeOf(v);
    if (!type || !isa<FloatType>(type.getElementType()))
      return false;
    Operation *def = v.getDefiningOp();
    return !def || !def->hasTrait<mlir::OpTrait::ConstantLike>();
  }
  LogicalResult set(unsigned i, Value v) {
    if (!v)
      return failure();
    grads.push_back({operand(i), v});
    return success();
  }
  int64_t attrInt(StringRef name, int64_t otherwise) const {
    if (auto a = op->getAttrOfType<IntegerAttr>(name))
      return a.getInt();
    return otherwise;
  }
  float attrFloat(StringRef name, float otherwise) const {
    if (auto a = op->getAttrOfType<FloatAttr>(name))
      return a.getValueAsDouble();
    return otherwise;
  }
  SmallVector<int64_t> attrInts(StringRef name, size_t n,
                                int64_t otherwise) const {
    if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
      return SmallVector<int64_t>(a.asArrayRef());
    return SmallVector<int64_t>(n, otherwise);
  }
  Type element() const {
    return typeOf(result()) ? typeOf(result()).getElementType() : Type();
  }
  Value scalar(double v) { return g.scalar(v, element()); }
};

/// The rank-0 or splat value of a constant operand.
std::optional<double> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

bool isStaticTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult binaryVJP(VJP &v) {
  Value G = v.grad(), A = v.operand(0), B = v.operand(1), Y = v.result();
  StringRef name = v.op->getName().getStringRef();
  GraphBuilder &g = v.g;
  auto give = [&](unsigned i, Value grad) {
    return v.wants(i) ? v.set(i, g.unbroadcast(grad, v.operand(i).getType()))
                      : success();
  };
  if (name == "dsmp.add")
    return success(succeeded(give(0, G)) && succeeded(give(1, G)));
  if (name == "dsmp.sub")
    return success(succeeded(give(0, G)) &&
                   (!v.wants(1) || succeeded(give(1, g.neg(G)))));
  if (name == "dsmp.mul")
    return success((!v.wants(0) || succeeded(give(0, g.mul(G, B)))) &&
                   (!v.wants(1) || succeeded(give(1, g.mul(G, A)))));
  if (name == "dsmp.div")
    return success(
        (!v.wants(0) || succeeded(give(0, g.div(G, B)))) &&
        (!v.wants(1) || succeeded(give(1, g.neg(g.div(g.mul(G, Y), B))))));
  return failure();
}

LogicalResult unaryVJP(VJP &v) {
  Value G = v.grad(), X = v.operand(0), Y = v.result();
  if (!v.wants(0))
    return success();
  GraphBuilder &g = v.g;
  StringRef name = v.op->getName().getStringRef();
  Value dx;
  if (name == "dsmp.relu")
    dx = g.selectOrZero(g.value("dsmp.greater", {Y, v.scalar(0)}), G);
  else if (name == "dsmp.leaky_relu")
    dx = g.value("dsmp.where",
                 {g.value("dsmp.greater", {X, v.scalar(0)}), G,
                  g.mul(G, v.scalar(v.attrFloat("alpha", 0.01f)))});
  else if (name == "dsmp.sigmoid")
    dx = g.mul(G, g.sub(Y, g.mul(Y, Y)));
  else if (name == "dsmp.tanh")
    dx = g.mul(G, g.sub(v.scalar(1), g.mul(Y, Y)));
  else if (name == "dsmp.hard_sigmoid") {
    Value scaled = g.mul(G, v.scalar(v.attrFloat("alpha", 0.2f)));
    dx = g.selectOrZero(
        g.value("dsmp.greater", {Y, v.scalar(0)}),
        g.selectOrZero(g.value("dsmp.less", {Y, v.scalar(1)}), scaled));
  } else if (name == "dsmp.exp")
    dx = g.mul(G, Y);
  else if (name == "dsmp.log")
    dx = g.div(G, X);
  else if (name == "dsmp.sqrt")
    dx = g.div(g.mul(G, v.scalar(0.5)), Y);
  else if (name == "dsmp.reciprocal")
    dx = g.neg(g.mul(G, g.mul(Y, Y)));
  else if (name == "dsmp.neg")
    dx = g.neg(G);
  else if (name == "dsmp.abs")
    dx = g.value("dsmp.where",
                 {g.value("dsmp.less", {X, v.scalar(0)}), g.neg(G), G});
  else if (name == "dsmp.erf")
    dx = g.mul(g.mul(G, v.scalar(2.0 / std::sqrt(M_PI))),
               g.value("dsmp.exp", {g.neg(g.mul(X, X))}));
  else if (name == "dsmp.softplus")
    dx = g.mul(G, g.value("dsmp.sigmoid", {X}));
  else if (name == "dsmp.identity" || name == "dsmp.dropout")
    dx = G;
  return v.set(0, dx);
}

/// The rest of the unary elementwise ops, each by its derivative written as
/// a graph of x and y = f(x), times G. At a kink the derivative of the
/// side ONNX's definition puts the point on.
LogicalResult derivativeVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  GraphBuilder &g = v.g;
  Value X = v.operand(0), Y = v.result(), G = v.grad();
  StringRef name = v.op->getName().getStringRef();
  auto apply = [&](StringRef op, Value a) { return g.value(op, {a}); };
  auto greater = [&](Value a, double c) {
    return g.value("dsmp.greater", {a, v.scalar(c)});
  };
  auto less = [&](Value a, double c) {
    return g.value("dsmp.less", {a, v.scalar(c)});
  };
  auto where = [&](Value cond, Value a, Value b) {
    return g.value("dsmp.where", {cond, a, b});
  };
  Value one = v.scalar(1);
  Value xx = g.mul(X, X);
  Value d;
  if (name == "dsmp.sin")
    d = apply("dsmp.cos", X);
  else if (name == "dsmp.cos")
    d = g.neg(apply("dsmp.sin", X));
  else if (name == "dsmp.tan")
    d = g.add(one, g.mul(Y, Y));
  else if (name == "dsmp.sinh")
    d = apply("dsmp.cosh", X);
  else if (name == "dsmp.cosh")
    d = apply("dsmp.sinh", X);
  else if (name == "dsmp.asin")
    d = g.div(one, apply("dsmp.sqrt", g.sub(one, xx)));
  else if (name == "dsmp.acos")
    d = g.neg(g.div(one, apply("dsmp.sqrt", g.sub(one, xx))));
  else if (name == "dsmp.atan")
    d = g.div(one, g.add(one, xx));
  else if (name == "dsmp.asinh")
    d = g.div(one, apply("dsmp.sqrt", g.add(xx, one)));
  else if (name == "dsmp.acosh")
    d = g.div(one, apply("dsmp.sqrt", g.sub(xx, one)));
  else if (name == "dsmp.atanh")
    d = g.div(one, g.sub(one, xx));
  else if (name == "dsmp.elu") // alpha (exp(x) - 1) below 0
    d = where(less(X, 0), g.add(Y, v.scalar(v.attrFloat("alpha", 1.0f))), one);
  else if (name == "dsmp.celu") // alpha (exp(x / alpha) - 1) below 0
    d = where(
        greater(X, 0), one,
        apply("dsmp.exp", g.div(X, v.scalar(v.attrFloat("alpha", 1.0f)))));
  else if (name == "dsmp.selu") { // gamma alpha (exp(x) - 1) up to 0
    double gamma = v.attrFloat("gamma", 1.05070102214813232421875f);
    double alpha = v.attrFloat("alpha", 1.67326319217681884765625f);
    d = where(greater(X, 0), v.scalar(gamma),
              g.add(Y, v.scalar(gamma * alpha)));
  } else if (name == "dsmp.thresholded_relu")
    return v.set(0, g.selectOrZero(greater(X, v.attrFloat("alpha", 1.0f)), G));
  else if (name == "dsmp.shrink") {
    double lambd = v.attrFloat("lambd", 0.5f);
    return v.set(
        0, where(less(X, -lambd), G, g.selectOrZero(greater(X, lambd), G)));
  } else if (name == "dsmp.softsign") {
    Value denominator = g.add(one, apply("dsmp.abs", X));
    d = g.div(one, g.mul(denominator, denominator));
  } else if (name == "dsmp.hard_swish") // x max(0, min(1, x / 6 + 1/2))
    d = where(less(X, -3), v.scalar(0),
              where(greater(X, 3), one,
                    g.add(g.mul(X, v.scalar(1.0 / 3)), v.scalar(0.5))));
  else if (name == "dsmp.mish") { // x tanh(softplus(x))
    Value t = apply("dsmp.tanh", apply("dsmp.softplus", X));
    d = g.add(
        t, g.mul(g.mul(X, apply("dsmp.sigmoid", X)), g.sub(one, g.mul(t, t))));
  } else if (name == "dsmp.gelu") {
    auto approximate = v.op->getAttrOfType<StringAttr>("approximate");
    if (approximate && approximate.getValue() == "tanh") {
      // x/2 (1 + t), t = tanh(c (x + k x^3)).
      const double c = std::sqrt(2.0 / M_PI), k = 0.044715;
      Value t =
          apply("dsmp.tanh",
                g.mul(v.scalar(c), g.add(X, g.mul(v.scalar(k), g.mul(xx, X)))));
      Value inner = g.mul(v.scalar(c), g.add(one, g.mul(v.scalar(3 * k), xx)));
      d = g.add(g.mul(v.scalar(0.5), g.add(one, t)),
                g.mul(g.mul(g.mul(v.scalar(0.5), X), g.sub(one, g.mul(t, t))),
                      inner));
    } else {
      // x Phi(x): Phi(x) + x phi(x).
      Value cdf =
          g.mul(v.scalar(0.5),
                g.add(one, apply("dsmp.erf", g.mul(X, v.scalar(M_SQRT1_2)))));
      Value pdf = g.mul(v.scalar(0.5 * M_2_SQRTPI * M_SQRT1_2),
                        apply("dsmp.exp", g.mul(xx, v.scalar(-0.5))));
      d = g.add(cdf, g.mul(X, pdf));
    }
  }
  if (!d)
    return failure();
  return v.set(0, g.mul(G, d));
}

/// PRelu: the gradient of x where x > 0, else times the slope.
LogicalResult preluVJP(VJP &v) {
  GraphBuilder &g = v.g;
  Value X = v.operand(0), slope = v.operand(1), G = v.grad();
  Value positive = g.value("dsmp.greater", {X, v.scalar(0)});
  if (v.wants(0) &&
      failed(v.set(0, g.value("dsmp.where", {positive, G, g.mul(G, slope)}))))
    return failure();
  if (v.wants(1) &&
      failed(
          v.set(1, g.unbroadcast(g.selectOrZero(g.value("dsmp.not", {positive}),
                                                g.mul(G, X)),
                                 slope.getType()))))
    return failure();
  return success();
}

/// Mean of n operands: each gets G / n.
LogicalResult meanVJP(VJP &v) {
  Value share = v.g.mul(v.grad(), v.scalar(1.0 / v.op->getNumOperands()));
  for (unsigned i = 0; i < v.op->getNumOperands(); ++i)
    if (v.wants(i) &&
        failed(v.set(i, v.g.unbroadcast(share, v.operand(i).getType()))))
      return failure();
  return success();
}

LogicalResult powVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  std::optional<double> e = splatValue(v.operand(1));
  if (!e)
    return failure();
  GraphBuilder &g = v.g;
  Value X = v.operand(0), G = v.grad();
  Value dx = *e == 2.0 ? g.mul(G, g.mul(X, v.scalar(2.0)))
                       : g.mul(g.mul(G, v.scalar(*e)),
                               g.value("dsmp.pow", {X, v.scalar(*e - 1.0)}));
  return v.set(0, g.unbroadcast(dx, X.getType()));
}

/// Clip, Max, Min: the gradient goes where the operand is the result.
LogicalResult selectVJP(VJP &v) {
  GraphBuilder &g = v.g;
  Value Y = v.result(), G = v.grad();
  unsigned n = v.op->getName().getStringRef() == "dsmp.clip"
                   ? 1
                   : v.op->getNumOperands();
  for (unsigned i = 0; i < n; ++i) {
    if (!v.wants(i))
      continue;
    Value same = g.value("dsmp.equal", {v.operand(i), Y});
    if (failed(v.set(
            i, g.unbroadcast(g.selectOrZero(same, G), v.operand(i).getType()))))
      return failure();
  }
  return success();
}

LogicalResult sumVJP(VJP &v) {
  for (unsigned i = 0; i < v.op->getNumOperands(); ++i)
    if (v.wants(i) &&
        failed(v.set(i, v.g.unbroadcast(v.grad(), v.operand(i).getType()))))
      return failure();
  return success();
}

LogicalResult whereVJP(VJP &v) {
  GraphBuilder &g = v.g;
  Value c = v.operand(0), G = v.grad();
  if (v.wants(1) && failed(v.set(1, g.unbroadcast(g.selectOrZero(c, G),
                                                  v.operand(1).getType()))))
    return failure();
  if (v.wants(2) &&
      failed(v.set(2, g.unbroadcast(g.selectOrZero(g.value("dsmp.not", {c}), G),
                                    v.operand(2).getType()))))
    return failure();
  return success();
}

LogicalResult castVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  auto type = v.typeOf(v.operand(0));
  return v.set(0, v.g.convert(v.grad(), type.getElementType()));
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

FailureOr<Window> windowOf(VJP &v, ArrayRef<int64_t> kernel) {
  if (auto pad = v.op->getAttrOfType<StringAttr>("auto_pad"))
    if (pad.getValue() != "NOTSET" && pad.getValue() != "VALID")
      return failure();
  size_t n = kernel.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = v.attrInts("strides", n, 1);
  w.dilations = v.attrInts("dilations", n, 1);
  w.pads = v.attrInts("pads", 2 * n, 0);
  if (w.strides.size() != n || w.dilations.size() != n ||
      w.pads.size() != 2 * n)
    return failure();
  return w;
}

/// ceil_mode: the last window of a dim may start inside the end padding
/// and reach past it; pad the end far enough that floor-mode windows over
/// the padded input are exactly the op's windows.
void extendForCeilMode(Window &w, ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  size_t n = w.kernel.size();
  for (size_t i = 0; i < n; ++i) {
    int64_t reach =
        (out[i] - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t have = in[i] + w.pads[i] + w.pads[n + i];
    if (reach > have)
      w.pads[n + i] += reach - have;
  }
}

/// output_padding that makes a transposed window over `in` give `out`.
SmallVector<int64_t> outputPadding(const Window &w, ArrayRef<int64_t> in,
                                   ArrayRef<int64_t> out) {
  size_t n = w.kernel.size();
  SmallVector<int64_t> padding;
  for (size_t i = 0; i < n; ++i)
    padding.push_back(out[i] - ((in[i] - 1) * w.strides[i] +
                                (w.kernel[i] - 1) * w.dilations[i] + 1 -
                                w.pads[i] - w.pads[n + i]));
  return padding;
}

/// A trainable Conv's filter and bias (operands that are not constants:
/// the training step's weights).
LogicalResult convParameterVJP(VJP &v) {
  GraphBuilder &g = v.g;
  if (v.wants(1)) {
    Operation *conv = v.op;
    Value outputGrad = v.grad();
    if (v.op->getName().getStringRef() == "dsmp.conv_transpose") {
      // y = convT(x, W) is the adjoint of x' = conv(y', W) (same window):
      // dW is that conv's filter gradient with G as its input and x as
      // its output's gradient. The conv is built only to carry the window
      // (nothing reads it; the adjoint's dead ops are erased).
      if (auto pad = v.op->getAttrOfType<StringAttr>("auto_pad"))
        if (pad.getValue() != "NOTSET")
          return failure();
      SmallVector<NamedAttribute> window;
      for (StringRef name :
           {"strides", "pads", "dilations", "group", "kernel_shape"})
        if (Attribute a = v.op->getAttr(name))
          window.push_back(g.attr(name, a));
      conv = g.create("dsmp.conv", {v.grad(), v.operand(1), g.none()}, window);
      if (!conv)
        return failure();
      outputGrad = v.operand(0);
    }
    if (failed(v.set(1, convFilterGradient(g, conv, outputGrad))))
      return failure();
  }
  if (v.op->getNumOperands() > 2 && v.wants(2)) {
    auto gType = v.typeOf(v.grad());
    if (!gType)
      return failure();
    SmallVector<int64_t> axes{0};
    for (int64_t i = 2; i < gType.getRank(); ++i)
      axes.push_back(i);
    return v.set(2, g.value("dsmp.reduce_sum", {v.grad(), g.i64s(axes)},
                            {g.i64("keepdims", 0)}));
  }
  return success();
}

LogicalResult convVJP(VJP &v) {
  if (failed(convParameterVJP(v)))
    return failure();
  if (!v.wants(0))
    return success();
  auto xType = v.typeOf(v.operand(0)), wType = v.typeOf(v.operand(1));
  auto gType = v.typeOf(v.grad());
  if (!xType || !wType || !gType || !xType.hasStaticShape() ||
      !wType.hasStaticShape())
    return failure();
  auto w = windowOf(v, wType.getShape().drop_front(2));
  if (failed(w))
    return failure();
  GraphBuilder &g = v.g;
  SmallVector<NamedAttribute> attrs{
      g.array("strides", w->strides), g.array("pads", w->pads),
      g.array("dilations", w->dilations), g.array("kernel_shape", w->kernel),
      g.i64("group", v.attrInt("group", 1))};
  if (v.op->getName().getStringRef() == "dsmp.conv") {
    SmallVector<int64_t> padding = outputPadding(
        *w, gType.getShape().drop_front(2), xType.getShape().drop_front(2));
    if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
      return failure();
    attrs.push_back(g.array("output_padding", padding));
    return v.set(0, g.value("dsmp.conv_transpose",
                            {v.grad(), v.operand(1), g.none()}, attrs));
  }
  // ConvTranspose: its adjoint is the convolution with the same weights.
  return v.set(0,
               g.value("dsmp.conv", {v.grad(), v.operand(1), g.none()}, attrs));
}

LogicalResult gemmVJP(VJP &v) {
  GraphBuilder &g = v.g;
  float alpha = v.attrFloat("alpha", 1.0f);
  int64_t transA = v.attrInt("transA", 0), transB = v.attrInt("transB", 0);
  Value G = v.grad(), A = v.operand(0), B = v.operand(1);
  if (v.wants(0)) {
    // dA' = alpha G op(B)^T, transposed back when A was.
    Value dA = g.value("dsmp.gemm", {G, B, g.none()},
                       {g.f32("alpha", alpha), g.i64("transB", 1 - transB)});
    if (dA && transA)
      dA = g.transpose(dA, {1, 0});
    if (failed(v.set(0, dA)))
      return failure();
  }
  if (v.wants(1)) {
    // dB' = alpha op(A)^T G, transposed back when B was.
    Value dB = g.value("dsmp.gemm", {A, G, g.none()},
                       {g.f32("alpha", alpha), g.i64("transA", 1 - transA)});
    if (dB && transB)
      dB = g.transpose(dB, {1, 0});
    if (failed(v.set(1, dB)))
      return failure();
  }
  if (v.op->getNumOperands() > 2 && v.wants(2))
    return v.set(2, g.unbroadcast(g.mul(G, v.scalar(v.attrFloat("beta", 1.0f))),
                                  v.operand(2).getType()));
  return success();
}

LogicalResult matmulVJP(VJP &v) {
  GraphBuilder &g = v.g;
  Value G = v.grad(), A = v.operand(0), B = v.operand(1);
  auto aType = v.typeOf(A), bType = v.typeOf(B);
  if (!aType || !bType || aType.getRank() < 2 || bType.getRank() < 2)
    return failure();
  auto swapLast = [&](Value x) {
    int64_t rank = v.typeOf(x).getRank();
    SmallVector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[rank - 1], perm[rank - 2]);
    return g.transpose(x, perm);
  };
  // A matrix B (a weight) against A's rows, however many batch dims A
  // has: both gradients are single GEMMs over A's rows flattened, with
  // the transposes as Gemm's flags (no batch of small products summed
  // afterwards, no transposed copies).
  auto gType = v.typeOf(G);
  if (bType.getRank() == 2 && gType && aType.hasStaticShape() &&
      gType.hasStaticShape()) {
    int64_t k = bType.getDimSize(0), n = bType.getDimSize(1);
    int64_t rows = aType.getNumElements() / std::max<int64_t>(k, 1);
    Value rowsOfG = g.reshape(G, {rows, n});
    if (v.wants(0) &&
        failed(v.set(0, g.reshape(g.value("dsmp.gemm", {rowsOfG, B, g.none()},
                                          {g.i64("transB", 1)}),
                                  aType.getShape()))))
      return failure();
    if (v.wants(1) &&
        failed(v.set(1, g.value("dsmp.gemm",
                                {g.reshape(A, {rows, k}), rowsOfG, g.none()},
                                {g.i64("transA", 1)}))))
      return failure();
    return success();
  }
  if (v.wants(0) &&
      failed(v.set(0, g.unbroadcast(g.value("dsmp.matmul", {G, swapLast(B)}),
                                    A.getType()))))
    return failure();
  if (v.wants(1) &&
      failed(v.set(1, g.unbroadcast(g.value("dsmp.matmul", {swapLast(A), G}),
                                    B.getType()))))
    return failure();
  return success();
}

/// Einsum: operand k's gradient is the einsum of the result's gradient with
/// the other operands, written to operand k's labels (the labels renamed
/// to letters). Declined (the forward estimate crosses the op) where operand
/// k takes a diagonal, has a label no other term has, or broadcasts a
/// size-1 dim: its gradient would need a scatter or a sum the equation
/// cannot say.
LogicalResult einsumVJP(VJP &v) {
  auto einsum = cast<EinsumOp>(v.op);
  SmallVector<int64_t> ranks;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value input : einsum.getInputs()) {
    auto type = v.typeOf(input);
    if (!type || !type.hasStaticShape())
      return failure();
    ranks.push_back(type.getRank());
    shapes.push_back(type.getShape());
  }
  auto eq = EinsumEquation::parse(einsum.getEquation(), ranks);
  if (!eq) {
    llvm::consumeError(eq.takeError());
    return failure();
  }
  auto sizes = eq->loopSizes(shapes);
  if (!sizes || eq->loops.size() > 52) {
    if (!sizes)
      llvm::consumeError(sizes.takeError());
    return failure();
  }
  auto term = [&](ArrayRef<int> labels) {
    std::string text;
    for (int label : labels) {
      size_t loop = eq->loopOf(label);
      text += loop < 26 ? char('a' + loop) : char('A' + (loop - 26));
    }
    return text;
  };
  size_t n = einsum.getInputs().size();
  for (size_t k = 0; k < n; ++k) {
    if (!v.wants(k))
      continue;
    ArrayRef<int> labels = eq->operands[k];
    for (auto [d, label] : llvm::enumerate(labels)) {
      bool elsewhere = llvm::is_contained(eq->result, label);
      for (size_t j = 0; j < n && !elsewhere; ++j)
        elsewhere = j != k && llvm::is_contained(eq->operands[j], label);
      if (llvm::count(labels, label) != 1 || !elsewhere ||
          (shapes[k][d] == 1 && (*sizes)[eq->loopOf(label)] != 1))
        return failure();
    }
    std::string equation;
    SmallVector<Value> operands;
    for (size_t j = 0; j < n; ++j) {
      if (j == k)
        continue;
      equation += term(eq->operands[j]) + ",";
      operands.push_back(einsum.getInputs()[j]);
    }
    equation += term(eq->result) + "->" + term(labels);
    operands.push_back(v.grad());
    if (failed(v.set(
            k, v.g.value("dsmp.einsum", operands,
                         {v.g.attr("equation",
                                   v.g.builder().getStringAttr(equation))}))))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization and reductions
//===----------------------------------------------------------------------===//

LogicalResult softmaxVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  GraphBuilder &g = v.g;
  Value G = v.grad(), Y = v.result();
  int64_t rank = v.typeOf(Y).getRank();
  int64_t axis = v.attrInt("axis", -1);
  if (axis < 0)
    axis += rank;
  Value dot = g.value("dsmp.reduce_sum", {g.mul(G, Y), g.i64s({axis})},
                      {g.i64("keepdims", 1)});
  return v.set(0, g.mul(Y, g.sub(G, dot)));
}

LogicalResult logSoftmaxVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  GraphBuilder &g = v.g;
  Value G = v.grad(), Y = v.result();
  int64_t rank = v.typeOf(Y).getRank();
  int64_t axis = v.attrInt("axis", -1);
  if (axis < 0)
    axis += rank;
  // y = x - logsumexp(x): dx = dy - softmax(x) * sum(dy).
  Value sum =
      g.value("dsmp.reduce_sum", {G, g.i64s({axis})}, {g.i64("keepdims", 1)});
  return v.set(0, g.sub(G, g.mul(g.value("dsmp.exp", {Y}), sum)));
}

LogicalResult batchNormVJP(VJP &v) {
  GraphBuilder &g = v.g;
  auto xType = v.typeOf(v.operand(0));
  if (!xType || xType.getRank() < 2)
    return failure();
  // Inference form: y = (x - mean) * scale / sqrt(var + eps) + b (the
  // running statistics stay fixed: no gradient reaches them).
  SmallVector<int64_t> shape(xType.getRank(), 1);
  shape[1] = xType.getDimSize(1);
  Value root =
      g.value("dsmp.sqrt",
              {g.add(v.operand(4), v.scalar(v.attrFloat("epsilon", 1e-5f)))});
  SmallVector<int64_t> perChannel{0};
  for (int64_t i = 2; i < xType.getRank(); ++i)
    perChannel.push_back(i);
  auto sumPerChannel = [&](Value x) {
    return g.value("dsmp.reduce_sum", {x, g.i64s(perChannel)},
                   {g.i64("keepdims", 0)});
  };
  if (v.wants(1)) {
    Value normalized =
        g.div(g.sub(v.operand(0), g.reshape(v.operand(3), shape)),
              g.reshape(root, shape));
    if (failed(v.set(1, sumPerChannel(g.mul(v.grad(), normalized)))))
      return failure();
  }
  if (v.wants(2) && failed(v.set(2, sumPerChannel(v.grad()))))
    return failure();
  if (!v.wants(0))
    return success();
  Value factor = g.div(v.operand(1), root);
  return v.set(0, g.mul(v.grad(), g.reshape(factor, shape)));
}

/// X normalised over `axes` (mean 0, variance 1, epsilon from the op), and
/// the gradient the normalisation passes back to X.
struct Normalization {
  Normalization(VJP &v, Value X, ArrayRef<int64_t> axes) : g(v.g), axes(axes) {
    Value centered = g.sub(X, mean(X));
    Value variance = g.add(mean(g.mul(centered, centered)),
                           v.scalar(v.attrFloat("epsilon", 1e-5f)));
    inv = g.value("dsmp.reciprocal", {g.value("dsmp.sqrt", {variance})});
    normalized = g.mul(centered, inv);
  }
  Value mean(Value x) {
    return g.value("dsmp.reduce_mean", {x, g.i64s(axes)},
                   {g.i64("keepdims", 1)});
  }
  /// For `gn`, the gradient at the normalised values.
  Value inputGrad(Value gn) {
    Value inner = g.sub(g.sub(gn, mean(gn)),
                        g.mul(normalized, mean(g.mul(gn, normalized))));
    return g.mul(inv, inner);
  }
  GraphBuilder &g;
  SmallVector<int64_t> axes;
  Value inv, normalized;
};

LogicalResult layerNormVJP(VJP &v) {
  if (!v.wants(0) || !v.grad(0))
    return success();
  GraphBuilder &g = v.g;
  Value X = v.operand(0), G = v.grad(0);
  int64_t rank = v.typeOf(X).getRank();
  int64_t axis = v.attrInt("axis", -1);
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i)
    axes.push_back(i);
  Normalization norm(v, X, axes);
  Value normalized = norm.normalized;
  // A trainable scale and bias: summed over the leading (normalized) rows.
  if (v.wants(1) && failed(v.set(1, g.unbroadcast(g.mul(G, normalized),
                                                  v.operand(1).getType()))))
    return failure();
  if (v.op->getNumOperands() > 2 && v.wants(2) &&
      failed(v.set(2, g.unbroadcast(G, v.operand(2).getType()))))
    return failure();
  return v.set(0, norm.inputGrad(g.mul(G, v.operand(1))));
}

/// InstanceNormalization: LayerNormalization's gradient over each (n, c)'s
/// spatial dims, with a per-channel scale and bias (timm's GroupNorm1
/// exports as one over C*H*W; the forward estimate had bounded it
/// 100-1000x too high).
LogicalResult instanceNormVJP(VJP &v) {
  GraphBuilder &g = v.g;
  Value X = v.operand(0), G = v.grad(0);
  auto xType = v.typeOf(X);
  if (!G || !xType || !xType.hasStaticShape() || xType.getRank() < 3)
    return failure();
  int64_t rank = xType.getRank(), channels = xType.getDimSize(1);
  SmallVector<int64_t> axes, perChannel(rank - 1, 1);
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  perChannel[0] = channels;
  Normalization norm(v, X, axes);
  Value normalized = norm.normalized;
  Value scale = g.reshape(v.operand(1), perChannel);
  // Per channel: summed over the batch and the spatial dims.
  auto channelSum = [&](Value x, Value like) {
    Value summed = g.unbroadcast(
        x, RankedTensorType::get(perChannel, xType.getElementType()));
    return g.reshape(summed, v.typeOf(like).getShape());
  };
  if (v.wants(1) &&
      failed(v.set(1, channelSum(g.mul(G, normalized), v.operand(1)))))
    return failure();
  if (v.wants(2) && failed(v.set(2, channelSum(G, v.operand(2)))))
    return failure();
  if (!v.wants(0))
    return success();
  return v.set(0, norm.inputGrad(g.mul(G, scale)));
}

/// ReduceSum/Mean/Max over constant (or all) axes.
LogicalResult reduceVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  GraphBuilder &g = v.g;
  Value X = v.operand(0), G = v.grad(), Y = v.result();
  auto xType = v.typeOf(X);
  if (!xType || !xType.hasStaticShape())
    return failure();
  int64_t rank = xType.getRank();
  SmallVector<int64_t> axes;
  if (!isa<NoneType>(v.operand(1).getType())) {
    auto given = getConstantInts(v.operand(1));
    if (!given)
      return failure();
    for (int64_t a : *given)
      axes.push_back(a < 0 ? a + rank : a);
  }
  if (axes.empty()) {
    if (v.attrInt("noop_with_empty_axes", 0))
      return v.set(0, G);
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  SmallVector<int64_t> kept(xType.getShape());
  int64_t count = 1;
  for (int64_t a : axes) {
    count *= kept[a];
    kept[a] = 1;
  }
  Value shapeOfX = g.i64s(xType.getShape());
  Value spread = g.value("dsmp.expand", {g.reshape(G, kept), shapeOfX});
  StringRef name = v.op->getName().getStringRef();
  if (name == "dsmp.reduce_sum")
    return v.set(0, spread);
  if (name == "dsmp.reduce_mean")
    return v.set(0, g.mul(spread, v.scalar(1.0 / count)));
  if (name == "dsmp.reduce_max" || name == "dsmp.reduce_min") {
    Value wide = g.value("dsmp.expand", {g.reshape(Y, kept), shapeOfX});
    return v.set(0, g.selectOrZero(g.value("dsmp.equal", {X, wide}), spread));
  }
  return failure();
}

LogicalResult globalAveragePoolVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  auto xType = v.typeOf(v.operand(0));
  if (!xType || !xType.hasStaticShape())
    return failure();
  int64_t count = 1;
  for (int64_t d : xType.getShape().drop_front(2))
    count *= d;
  GraphBuilder &g = v.g;
  Value spread = g.value("dsmp.expand", {v.grad(), g.i64s(xType.getShape())});
  return v.set(0, g.mul(spread, v.scalar(1.0 / count)));
}

/// size / (the window's elements inside the input) per output position,
/// as a constant [1, 1, out...]; null where every window lies inside.
Value validCountScale(GraphBuilder &g, const Window &w, RankedTensorType xType,
                      RankedTensorType gType, int64_t size) {
  ArrayRef<int64_t> in = xType.getShape().drop_front(2);
  ArrayRef<int64_t> out = gType.getShape().drop_front(2);
  size_t n = in.size();
  if (w.kernel.size() != n || out.size() != n)
    return {};
  // Per dim, each output position's count of taps inside the input.
  SmallVector<SmallVector<int64_t>> counts(n);
  bool partial = false;
  for (size_t d = 0; d < n; ++d)
    for (int64_t o = 0; o < out[d]; ++o) {
      int64_t count = 0;
      for (int64_t k = 0; k < w.kernel[d]; ++k) {
        int64_t at = o * w.strides[d] - w.pads[d] + k * w.dilations[d];
        count += at >= 0 && at < in[d];
      }
      partial |= count < w.kernel[d];
      counts[d].push_back(count);
    }
  if (!partial)
    return {};
  SmallVector<int64_t> shape{1, 1};
  shape.append(out.begin(), out.end());
  auto type = RankedTensorType::get(shape, xType.getElementType());
  std::vector<float> scale(type.getNumElements());
  for (size_t flat = 0; flat < scale.size(); ++flat) {
    int64_t rest = static_cast<int64_t>(flat), covered = 1;
    for (size_t d = n; d-- > 0;) {
      covered *= counts[d][rest % out[d]];
      rest /= out[d];
    }
    scale[flat] = covered > 0 ? static_cast<float>(size) / covered : 0.0f;
  }
  return g.floats(type, scale);
}

/// AveragePool exactly, and large MaxPool windows as its even spread: a
/// depthwise ConvTranspose of the gradient with a constant window.
LogicalResult poolVJP(VJP &v) {
  if (!v.wants(0) || !v.grad(0))
    return success();
  auto xType = v.typeOf(v.operand(0));
  auto gType = v.typeOf(v.grad());
  if (!xType || !gType || !xType.hasStaticShape() || !gType.hasStaticShape())
    return failure();
  auto kernel = v.op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
  if (!kernel)
    return failure();
  auto w = windowOf(v, kernel.asArrayRef());
  if (failed(w))
    return failure();
  if (v.attrInt("ceil_mode", 0))
    extendForCeilMode(*w, xType.getShape().drop_front(2),
                      gType.getShape().drop_front(2));
  int64_t channels = xType.getDimSize(1), size = 1;
  SmallVector<int64_t> wShape{channels, 1};
  for (int64_t k : w->kernel) {
    wShape.push_back(k);
    size *= k;
  }
  GraphBuilder &g = v.g;
  auto weightType = RankedTensorType::get(wShape, xType.getElementType());
  Value weights = ConstantOp::create(
      g.builder(), g.location(), weightType,
      DenseElementsAttr::get(
          weightType,
          g.builder().getFloatAttr(xType.getElementType(), 1.0 / size)));
  SmallVector<int64_t> padding = outputPadding(
      *w, gType.getShape().drop_front(2), xType.getShape().drop_front(2));
  if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return failure();
  Value grad = v.grad();
  // AveragePool without count_include_pad (ONNX's default) divides each
  // window by the elements it covers inside the input, fewer than `size`
  // at the borders: the gradient spreads g * size / count with the 1/size
  // window (PoolFormer's 3x3 token mixer on a 7x7 map: a quarter of the
  // outputs are corners or edges; their gradient was 1.5-2.25x too small).
  if (isa<AveragePoolOp>(v.op) && !v.attrInt("count_include_pad", 0))
    if (Value scale = validCountScale(g, *w, xType, gType, size))
      grad = g.mul(grad, scale);
  return v.set(
      0,
      g.value("dsmp.conv_transpose", {grad, weights, g.none()},
              {g.array("strides", w->strides), g.array("pads", w->pads),
               g.array("dilations", w->dilations),
               g.array("kernel_shape", w->kernel),
               g.array("output_padding", padding), g.i64("group", channels)}));
}

/// MaxPool: each window's gradient goes to its maximum, shared evenly where
/// several elements tie: dsmp.max_pool_grad, one kernel in the evaluator
/// (the host lowering expands it, dsmp-expand-max-pool-grad). Windows of
/// more than 64 elements keep the even spread.
LogicalResult maxPoolVJP(VJP &v) {
  if (!v.wants(0) || !v.grad(0))
    return success();
  auto xType = v.typeOf(v.operand(0));
  auto gType = v.typeOf(v.grad());
  auto kernel = v.op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
  if (!xType || !gType || !xType.hasStaticShape() || !gType.hasStaticShape() ||
      !kernel)
    return failure();
  auto w = windowOf(v, kernel.asArrayRef());
  if (failed(w))
    return failure();
  if (v.attrInt("ceil_mode", 0))
    extendForCeilMode(*w, xType.getShape().drop_front(2),
                      gType.getShape().drop_front(2));
  size_t n = w->kernel.size();
  int64_t offsets = 1;
  for (int64_t k : w->kernel)
    offsets *= k;
  if (offsets > 64 || xType.getRank() != static_cast<int64_t>(n) + 2)
    return poolVJP(v);
  SmallVector<int64_t> padding = outputPadding(
      *w, gType.getShape().drop_front(2), xType.getShape().drop_front(2));
  if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return failure();
  GraphBuilder &g = v.g;
  return v.set(
      0,
      g.typed("dsmp.max_pool_grad", {v.operand(0), v.result(), v.grad()}, xType,
              {g.array("kernel_shape", w->kernel),
               g.array("strides", w->strides), g.array("pads", w->pads),
               g.array("dilations", w->dilations)}));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Gather with constant indices: the gradient of each taken slice goes
/// back to its source, summed where an index repeats, as a contraction of
/// the gradient with the one-hot matrix of the indices ([K, n], K indices
/// into an axis of n). Indices computed at run time stop the gradient
/// (the data then is an embedding table, a constant, in the models seen).
/// Gather with indices known only at run time (token ids): the gradient of
/// the table adds each index's row of G into a zero table (ScatterND with
/// reduction add; axis 0 only).
LogicalResult gatherRuntimeIndicesVJP(VJP &v) {
  auto dType = v.typeOf(v.operand(0));
  auto iType = v.typeOf(v.operand(1));
  if (!iType || !iType.hasStaticShape() || v.attrInt("axis", 0) != 0 ||
      !isa<IntegerType>(iType.getElementType()))
    return failure();
  int64_t n = dType.getDimSize(0), k = iType.getNumElements();
  if (k == 0 || n == 0)
    return failure();
  int64_t post = dType.getNumElements() / n;
  GraphBuilder &g = v.g;
  Value indices = v.operand(1);
  if (!iType.getElementType().isInteger(64))
    indices = g.convert(indices, g.builder().getI64Type());
  auto tableType = RankedTensorType::get({n, post}, dType.getElementType());
  Value zeros = ConstantOp::create(
      g.builder(), g.location(), tableType,
      DenseElementsAttr::get(
          tableType, g.builder().getFloatAttr(dType.getElementType(), 0)));
  Value table = g.value(
      "dsmp.scatter_nd",
      {zeros, g.reshape(indices, {k, 1}), g.reshape(v.grad(), {k, post})},
      {g.attr("reduction", g.builder().getStringAttr("add"))});
  return v.set(0, table ? g.reshape(table, dType.getShape()) : Value());
}

LogicalResult gatherVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  auto dType = v.typeOf(v.operand(0));
  auto gType = v.typeOf(v.grad());
  DenseIntElementsAttr indices;
  if (!dType || !gType || !dType.hasStaticShape() || !gType.hasStaticShape())
    return failure();
  if (!matchPattern(v.operand(1), m_Constant(&indices)))
    return gatherRuntimeIndicesVJP(v);
  int64_t rank = dType.getRank(), axis = v.attrInt("axis", 0);
  if (axis < 0)
    axis += rank;
  int64_t n = dType.getDimSize(axis), k = indices.getNumElements();
  constexpr int64_t kMaxOneHot = int64_t(1) << 22;
  if (k == 0 || n * k > kMaxOneHot)
    return failure();
  int64_t pre = 1, post = 1;
  for (int64_t i = 0; i < axis; ++i)
    pre *= dType.getDimSize(i);
  for (int64_t i = axis + 1; i < rank; ++i)
    post *= dType.getDimSize(i);
  SmallVector<float> oneHot(k * n, 0.0f);
  int64_t row = 0;
  for (const APInt &index : indices.getValues<APInt>()) {
    int64_t at = index.getSExtValue();
    if (at < 0)
      at += n;
    if (at < 0 || at >= n)
      return failure();
    oneHot[row++ * n + at] = 1.0f;
  }
  GraphBuilder &g = v.g;
  Value matrix =
      g.floats(RankedTensorType::get({k, n}, dType.getElementType()), oneHot);
  Value rows = g.transpose(g.reshape(v.grad(), {pre, k, post}), {0, 2, 1});
  Value spread = g.value("dsmp.matmul", {rows, matrix}); // [pre, post, n]
  return v.set(0, g.reshape(g.transpose(spread, {0, 2, 1}), dType.getShape()));
}

/// GlobalMaxPool: each channel's gradient goes to where the maximum is
/// (to every tied position).
LogicalResult globalMaxPoolVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  auto xType = v.typeOf(v.operand(0));
  if (!xType || !xType.hasStaticShape())
    return failure();
  GraphBuilder &g = v.g;
  Value shape = g.i64s(xType.getShape());
  Value atMax =
      g.value("dsmp.equal",
              {v.operand(0), g.value("dsmp.expand", {v.result(), shape})});
  return v.set(
      0, g.selectOrZero(atMax, g.value("dsmp.expand", {v.grad(), shape})));
}

LogicalResult reshapeLikeVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  auto xType = v.typeOf(v.operand(0));
  if (!xType || !xType.hasStaticShape())
    return failure();
  return v.set(0, v.g.reshape(v.grad(), xType.getShape()));
}

LogicalResult transposeVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  int64_t rank = v.typeOf(v.operand(0)).getRank();
  SmallVector<int64_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (auto attr = v.op->getAttrOfType<DenseI64ArrayAttr>("perm"))
    perm.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  return v.set(0, v.g.transpose(v.grad(), inverse));
}

LogicalResult concatVJP(VJP &v) {
  GraphBuilder &g = v.g;
  int64_t rank = v.typeOf(v.result()).getRank();
  int64_t axis = v.attrInt("axis", 0);
  if (axis < 0)
    axis += rank;
  int64_t offset = 0;
  for (unsigned i = 0; i < v.op->getNumOperands(); ++i) {
    auto type = v.typeOf(v.operand(i));
    if (!type || type.isDynamicDim(axis))
      return failure();
    int64_t size = type.getDimSize(axis);
    if (v.wants(i) &&
        failed(v.set(i, g.value("dsmp.slice", {v.grad(), g.i64s({offset}),
                                               g.i64s({offset + size}),
                                               g.i64s({axis}), g.none()}))))
      return failure();
    offset += size;
  }
  return success();
}

/// Trilu zeroes a fixed set of positions: the gradient is the same mask.
LogicalResult triluVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  return v.set(0, v.g.value("dsmp.trilu", {v.grad(), v.operand(1)},
                            {v.g.i64("upper", v.attrInt("upper", 1))}));
}

/// Split's parts are slices: the gradient concatenates theirs (zeros for
/// a part nothing reads).
LogicalResult splitVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  GraphBuilder &g = v.g;
  int64_t rank = v.typeOf(v.operand(0)).getRank();
  int64_t axis = v.attrInt("axis", 0);
  if (axis < 0)
    axis += rank;
  SmallVector<Value> parts;
  for (unsigned i = 0; i < v.op->getNumResults(); ++i) {
    Value part = i < v.resultGrads.size() ? v.grad(i) : Value();
    if (!part) {
      auto type = v.typeOf(v.result(i));
      if (!type || !type.hasStaticShape())
        return failure();
      part = g.typed("dsmp.constant_of_shape", {g.i64s(type.getShape())}, type);
    }
    parts.push_back(part);
  }
  return v.set(0, g.value("dsmp.concat", parts, {g.i64("axis", axis)}));
}

LogicalResult sliceVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  auto xType = v.typeOf(v.operand(0));
  if (!xType || !xType.hasStaticShape())
    return failure();
  auto starts = getConstantInts(v.operand(1));
  auto ends = getConstantInts(v.operand(2));
  if (!starts || !ends)
    return failure();
  int64_t rank = xType.getRank();
  SmallVector<int64_t> axes;
  if (isa<NoneType>(v.operand(3).getType())) {
    for (int64_t i = 0; i < static_cast<int64_t>(starts->size()); ++i)
      axes.push_back(i);
  } else if (auto given = getConstantInts(v.operand(3))) {
    axes.assign(given->begin(), given->end());
  } else {
    return failure();
  }
  SmallVector<int64_t> steps(axes.size(), 1);
  if (!isa<NoneType>(v.operand(4).getType())) {
    auto given = getConstantInts(v.operand(4));
    if (!given || given->size() != axes.size() ||
        llvm::any_of(*given, [](int64_t s) { return s < 1; }))
      return failure();
    steps.assign(given->begin(), given->end());
  }
  // Zeros around the gradient along each sliced axis (a Concat: the
  // lowering has no Pad); a step s > 1 first interleaves s - 1 zeros after
  // each element (Concat on a new axis, then Reshape), PatchMerging's
  // x[:, 0::2, 1::2].
  GraphBuilder &g = v.g;
  Value grad = v.grad();
  auto zerosLike = [&](RankedTensorType like, int64_t axis, int64_t size) {
    SmallVector<int64_t> shape(like.getShape());
    shape[axis] = size;
    auto type = RankedTensorType::get(shape, like.getElementType());
    return ConstantOp::create(
        g.builder(), g.location(), type,
        DenseElementsAttr::get(
            type, g.builder().getFloatAttr(like.getElementType(), 0.0)));
  };
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    int64_t dim = xType.getDimSize(axis);
    auto clampIndex = [&](int64_t i) {
      if (i < 0)
        i += dim;
      return std::clamp<int64_t>(i, 0, dim);
    };
    int64_t begin = clampIndex((*starts)[k]), end = clampIndex((*ends)[k]);
    auto gradType = cast<RankedTensorType>(grad.getType());
    if (int64_t step = steps[k]; step > 1) {
      int64_t n = gradType.getDimSize(axis);
      SmallVector<int64_t> split(gradType.getShape());
      split.insert(split.begin() + axis + 1, 1);
      Value column = g.reshape(grad, split);
      Value spread =
          g.value("dsmp.concat",
                  {column, zerosLike(cast<RankedTensorType>(column.getType()),
                                     axis + 1, step - 1)},
                  {g.i64("axis", axis + 1)});
      SmallVector<int64_t> joined(gradType.getShape());
      joined[axis] = n * step;
      grad = g.reshape(spread, joined);
      int64_t kept = std::min(n * step, dim - begin);
      if (kept < n * step)
        grad = g.value("dsmp.slice", {grad, g.i64s({0}), g.i64s({kept}),
                                      g.i64s({axis}), g.none()});
      end = begin + kept;
      if (!grad)
        return failure();
      gradType = cast<RankedTensorType>(grad.getType());
    }
    SmallVector<Value> pieces;
    auto zeros = [&](int64_t size) { return zerosLike(gradType, axis, size); };
    if (begin > 0)
      pieces.push_back(zeros(begin));
    pieces.push_back(grad);
    if (dim - std::max(begin, end) > 0)
      pieces.push_back(zeros(dim - std::max(begin, end)));
    if (pieces.size() > 1)
      grad = g.value("dsmp.concat", pieces, {g.i64("axis", axis)});
    if (!grad)
      return failure();
  }
  return v.set(0, grad);
}

/// Pad: the data's gradient is the gradient's window over the data
/// (exact for constant mode; reflect/edge/wrap also send the gradient of
/// the border copies back, which this leaves out: a lower bound).
/// Negative pads (crops) are not handled.
LogicalResult padVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  auto xType = v.typeOf(v.operand(0));
  auto pads = getConstantInts(v.operand(1));
  if (!xType || !xType.hasStaticShape() || !pads)
    return failure();
  int64_t rank = xType.getRank();
  SmallVector<int64_t> axes;
  if (v.op->getNumOperands() > 3 && !isa<NoneType>(v.operand(3).getType())) {
    auto given = getConstantInts(v.operand(3));
    if (!given)
      return failure();
    for (int64_t a : *given)
      axes.push_back(a < 0 ? a + rank : a);
  } else {
    for (int64_t a = 0; a < rank; ++a)
      axes.push_back(a);
  }
  if (pads->size() != 2 * axes.size() ||
      llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return failure();
  SmallVector<int64_t> starts, ends;
  for (size_t k = 0; k < axes.size(); ++k) {
    starts.push_back((*pads)[k]);
    ends.push_back((*pads)[k] + xType.getDimSize(axes[k]));
  }
  GraphBuilder &g = v.g;
  return v.set(0, g.value("dsmp.slice", {v.grad(), g.i64s(starts), g.i64s(ends),
                                         g.i64s(axes), g.none()}));
}

LogicalResult expandVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  return v.set(0, v.g.unbroadcast(v.grad(), v.operand(0).getType()));
}

/// Nearest/linear Resize by whole factors: each input element's gradient
/// is the sum over its block (exact for nearest, the smoothed sum for
/// linear).
LogicalResult resizeVJP(VJP &v) {
  if (!v.wants(0))
    return success();
  auto xType = v.typeOf(v.operand(0));
  auto yType = v.typeOf(v.result());
  if (!xType || !yType || !xType.hasStaticShape() || !yType.hasStaticShape() ||
      xType.getRank() < 3)
    return failure();
  SmallVector<int64_t> factors;
  int64_t area = 1;
  for (int64_t i = 2; i < xType.getRank(); ++i) {
    if (yType.getDimSize(i) % xType.getDimSize(i))
      return failure();
    factors.push_back(yType.getDimSize(i) / xType.getDimSize(i));
    area *= factors.back();
  }
  for (int64_t i = 0; i < 2; ++i)
    if (xType.getDimSize(i) != yType.getDimSize(i))
      return failure();
  GraphBuilder &g = v.g;
  Value pooled =
      g.value("dsmp.average_pool", {v.grad()},
              {g.array("kernel_shape", factors), g.array("strides", factors)});
  return v.set(0, g.mul(pooled, v.scalar(area)));
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// If: a branch that yields an outer value (through Identity ops) passes
/// the result's gradient to it where the condition selects that branch.
/// Values computed inside a branch get none (the ops there are not
/// top-level ops, so the precision passes give them no format anyway).
LogicalResult ifVJP(VJP &v) {
  GraphBuilder &g = v.g;
  Value cond = v.operand(0);
  auto condType = v.typeOf(cond);
  if (!condType || condType.getNumElements() != 1)
    return failure();
  Value flag = g.reshape(cond, {});
  for (unsigned r = 0; r < v.op->getNumResults(); ++r) {
    Value G = v.grad(r);
    if (!G)
      continue;
    for (unsigned branch = 0; branch < v.op->getNumRegions(); ++branch) {
      Region &region = v.op->getRegion(branch);
      if (region.empty())
        continue;
      Value yielded = region.front().getTerminator()->getOperand(r);
      while (auto identity = yielded.getDefiningOp<IdentityOp>())
        yielded = identity.getInput();
      if (region.isAncestor(yielded.getParentRegion()))
        continue; // computed inside the branch
      auto type = v.typeOf(yielded);
      if (!type || type != v.typeOf(G))
        continue;
      Value taken = branch == 0 ? flag : g.value("dsmp.not", {flag});
      v.grads.push_back({yielded, g.selectOrZero(taken, G)});
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Attachment
//===----------------------------------------------------------------------===//

using VJPFn = LogicalResult (*)(VJP &);

template <typename OpT, VJPFn Fn>
struct VJPModel : VJPOpInterface::ExternalModel<VJPModel<OpT, Fn>, OpT> {
  LogicalResult
  buildVJP(Operation *op, OpBuilder &builder, ValueRange resultGrads,
           SmallVectorImpl<std::pair<Value, Value>> &grads) const {
    if (resultGrads.empty() || llvm::none_of(resultGrads, [](Value g) {
          return static_cast<bool>(g);
        }))
      return success();
    for (Value result : op->getResults())
      if (!isa<NoneType>(result.getType()) && !isStaticTensor(result))
        return failure();
    VJP v{op, GraphBuilder(builder, op->getLoc()), resultGrads, grads};
    return Fn(v);
  }
};

template <VJPFn Fn, typename... Ops> void attach(MLIRContext &ctx) {
  (Ops::template attachInterface<VJPModel<Ops, Fn>>(ctx), ...);
}

} // namespace

void mlir::dsmp::attachVJPInterfaces(MLIRContext &ctx) {
  attach<binaryVJP, AddOp, SubOp, MulOp, DivOp>(ctx);
  attach<unaryVJP, ReluOp, LeakyReluOp, SigmoidOp, TanhOp, HardSigmoidOp, ExpOp,
         LogOp, SqrtOp, ReciprocalOp, NegOp, AbsOp, ErfOp, SoftplusOp,
         IdentityOp, DropoutOp>(ctx);
  attach<derivativeVJP, AcosOp, AcoshOp, AsinOp, AsinhOp, AtanOp, AtanhOp,
         CeluOp, CosOp, CoshOp, EluOp, GeluOp, HardSwishOp, MishOp, SeluOp,
         ShrinkOp, SinOp, SinhOp, SoftsignOp, TanOp, ThresholdedReluOp>(ctx);
  attach<preluVJP, PReluOp>(ctx);
  attach<meanVJP, MeanOp>(ctx);
  attach<gatherVJP, GatherOp>(ctx);
  attach<globalMaxPoolVJP, GlobalMaxPoolOp>(ctx);
  attach<powVJP, PowOp>(ctx);
  attach<selectVJP, ClipOp, MaxOp, MinOp>(ctx);
  attach<sumVJP, SumOp>(ctx);
  attach<whereVJP, WhereOp>(ctx);
  attach<castVJP, CastOp>(ctx);
  attach<convVJP, ConvOp, ConvTransposeOp>(ctx);
  attach<gemmVJP, GemmOp>(ctx);
  attach<matmulVJP, MatMulOp>(ctx);
  attach<einsumVJP, EinsumOp>(ctx);
  attach<softmaxVJP, SoftmaxOp>(ctx);
  attach<logSoftmaxVJP, LogSoftmaxOp>(ctx);
  attach<triluVJP, TriluOp>(ctx);
  attach<splitVJP, SplitOp>(ctx);
  attach<batchNormVJP, BatchNormalizationOp>(ctx);
  attach<layerNormVJP, LayerNormalizationOp>(ctx);
  attach<instanceNormVJP, InstanceNormalizationOp>(ctx);
  attach<reduceVJP, ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp>(ctx);
  attach<globalAveragePoolVJP, GlobalAveragePoolOp>(ctx);
  attach<poolVJP, AveragePoolOp>(ctx);
  attach<maxPoolVJP, MaxPoolOp>(ctx);
  attach<reshapeLikeVJP, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(ctx);
  attach<transposeVJP, TransposeOp>(ctx);
  attach<concatVJP, ConcatOp>(ctx);
  attach<sliceVJP, SliceOp>(ctx);
  attach<padVJP, PadOp>(ctx);
  attach<expandVJP, ExpandOp>(ctx);
  attach<resizeVJP, ResizeOp>(ctx);
  attach<ifVJP, IfOp>(ctx);
}
