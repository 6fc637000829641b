//===- Elementwise.cpp - Evaluator kernels: elementwise ops --- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unary, binary (numpy broadcasting), variadic, compare, Where, Clip and
// Cast, computed in f32 (floats) or int64 (integers and bools).
//
//===----------------------------------------------------------------------===//

#include "Array.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using llvm::Error;
using llvm::StringRef;

namespace mlir::dsmp::eval {
namespace {

using FloatFn = std::function<float(float)>;
using IntFn = std::function<int64_t(int64_t)>;

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

/// The f32 function of a unary op, or null.
FloatFn unaryFloat(Operation *op) {
  StringRef name = op->getName().stripDialect();
  float alpha = floatAttr(op, "alpha", 0);
  if (name == "abs")
    return [](float x) { return std::fabs(x); };
  if (name == "acos")
    return [](float x) { return std::acos(x); };
  if (name == "acosh")
    return [](float x) { return std::acosh(x); };
  if (name == "asin")
    return [](float x) { return std::asin(x); };
  if (name == "asinh")
    return [](float x) { return std::asinh(x); };
  if (name == "atan")
    return [](float x) { return std::atan(x); };
  if (name == "atanh")
    return [](float x) { return std::atanh(x); };
  if (name == "ceil")
    return [](float x) { return std::ceil(x); };
  if (name == "celu") {
    alpha = floatAttr(op, "alpha", 1.0f);
    return [alpha](float x) {
      return std::max(0.0f, x) +
             std::min(0.0f, alpha * (std::exp(x / alpha) - 1.0f));
    };
  }
  if (name == "cos")
    return [](float x) { return std::cos(x); };
  if (name == "cosh")
    return [](float x) { return std::cosh(x); };
  if (name == "elu") {
    alpha = floatAttr(op, "alpha", 1.0f);
    return
        [alpha](float x) { return x < 0 ? alpha * (std::exp(x) - 1.0f) : x; };
  }
  if (name == "erf")
    return [](float x) { return std::erf(x); };
  if (name == "exp")
    return [](float x) { return std::exp(x); };
  if (name == "floor")
    return [](float x) { return std::floor(x); };
  if (name == "gelu") {
    auto approximate = op->getAttrOfType<StringAttr>("approximate");
    if (approximate && approximate.getValue() == "tanh")
      return [](float x) {
        return 0.5f * x *
               (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
      };
    return [](float x) {
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118f));
    };
  }
  if (name == "hard_sigmoid") {
    float a = floatAttr(op, "alpha", 0.2f), b = floatAttr(op, "beta", 0.5f);
    return
        [a, b](float x) { return std::max(0.0f, std::min(1.0f, a * x + b)); };
  }
  if (name == "hard_swish")
    return [](float x) {
      return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
    };
  if (name == "leaky_relu") {
    alpha = floatAttr(op, "alpha", 0.01f);
    return [alpha](float x) { return x < 0 ? alpha * x : x; };
  }
  if (name == "log")
    return [](float x) { return std::log(x); };
  if (name == "mish")
    return [](float x) { return x * std::tanh(std::log1p(std::exp(x))); };
  if (name == "neg")
    return [](float x) { return -x; };
  if (name == "reciprocal")
    return [](float x) { return 1.0f / x; };
  if (name == "relu") // evalUnary's loop; kept for the table of forms
    return [](float x) { return x > 0 ? x : (x != x ? x : 0.0f); };
  if (name == "round")
    return [](float x) { return std::nearbyint(x); };
  if (name == "selu") {
    float a = floatAttr(op, "alpha", 1.67326319217681884765625f);
    float g = floatAttr(op, "gamma", 1.05070102214813232421875f);
    return
        [a, g](float x) { return x > 0 ? g * x : g * (a * std::exp(x) - a); };
  }
  if (name == "shrink") {
    float bias = floatAttr(op, "bias", 0), lambd = floatAttr(op, "lambd", 0.5f);
    return [bias, lambd](float x) {
      return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0f;
    };
  }
  if (name == "sigmoid")
    return sigmoid;
  if (name == "sign")
    return [](float x) { return float((x > 0) - (x < 0)); };
  if (name == "sin")
    return [](float x) { return std::sin(x); };
  if (name == "sinh")
    return [](float x) { return std::sinh(x); };
  if (name == "softplus")
    return [](float x) { return x > 20 ? x : std::log1p(std::exp(x)); };
  if (name == "softsign")
    return [](float x) { return x / (1.0f + std::fabs(x)); };
  if (name == "sqrt")
    return [](float x) { return std::sqrt(x); };
  if (name == "tan")
    return [](float x) { return std::tan(x); };
  if (name == "tanh")
    return [](float x) { return std::tanh(x); };
  if (name == "thresholded_relu") {
    alpha = floatAttr(op, "alpha", 1.0f);
    return [alpha](float x) { return x > alpha ? x : 0.0f; };
  }
  if (name == "identity" || name == "dropout")
    return [](float x) { return x; };
  return nullptr;
}

IntFn unaryInt(Operation *op) {
  StringRef name = op->getName().stripDialect();
  if (name == "abs")
    return [](int64_t x) { return x < 0 ? -x : x; };
  if (name == "neg")
    return [](int64_t x) { return -x; };
  if (name == "relu")
    return [](int64_t x) { return std::max<int64_t>(0, x); };
  if (name == "sign")
    return [](int64_t x) { return int64_t((x > 0) - (x < 0)); };
  if (name == "not")
    return [](int64_t x) { return int64_t(!x); };
  if (name == "identity" || name == "dropout")
    return [](int64_t x) { return x; };
  return nullptr;
}

Error evalUnary(Operation *op, llvm::ArrayRef<const Array *> in,
                llvm::MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  if (x.isFloat && y.isFloat) {
    StringRef name = op->getName().stripDialect();
    const float *src = x.f.data();
    float *dst = y.f.data();
    size_t n = x.f.size();
    // The cheap ones without a call per element. Relu as the lowering's
    // arith.maximumf(x, 0): NaN stays NaN, -0 becomes +0.
    if (name == "relu") {
      for (size_t k = 0; k < n; ++k) {
        float v = src[k];
        dst[k] = v > 0 ? v : (v != v ? v : 0.0f);
      }
      return Error::success();
    }
    if (name == "leaky_relu") {
      float alpha = floatAttr(op, "alpha", 0.01f);
      for (size_t k = 0; k < n; ++k)
        dst[k] = src[k] < 0 ? alpha * src[k] : src[k];
      return Error::success();
    }
    FloatFn fn = unaryFloat(op);
    if (!fn)
      return unsupported(op, "no f32 form");
    for (size_t k = 0; k < x.f.size(); ++k)
      y.f[k] = fn(x.f[k]);
    return Error::success();
  }
  if (!x.isFloat && !y.isFloat) {
    IntFn fn = unaryInt(op);
    if (!fn)
      return unsupported(op, "no integer form");
    for (size_t k = 0; k < x.i.size(); ++k)
      y.i[k] = fn(x.i[k]);
    return Error::success();
  }
  return unsupported(op, "mixed element kinds");
}

Error evalPredicate(Operation *op, llvm::ArrayRef<const Array *> in,
                    llvm::MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  if (!x.isFloat)
    return unsupported(op, "integer input");
  bool isNaN = op->getName().stripDialect() == "is_nan";
  bool neg = intAttr(op, "detect_negative", 1),
       pos = intAttr(op, "detect_positive", 1);
  for (size_t k = 0; k < x.f.size(); ++k) {
    float v = x.f[k];
    out[0].i[k] = isNaN ? std::isnan(v)
                        : std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
  }
  return Error::success();
}

/// Applies fa / fi to every pair of a and b broadcast to out's shape.
template <typename FloatOp, typename IntOp>
Error binary(Operation *op, const Array &a, const Array &b, Array &out,
             FloatOp fa, IntOp fi) {
  if (a.isFloat != b.isFloat)
    return unsupported(op, "mixed element kinds");
  std::array<llvm::SmallVector<int64_t, 4>, 2> strides = {
      broadcastStrides(a.shape, out.shape),
      broadcastStrides(b.shape, out.shape)};
  bool same = a.shape == out.shape && b.shape == out.shape;
  // Each operand of the result's shape or a single element (an adjoint's
  // scale by a constant, a comparison with a scalar): one flat loop, where
  // the strided loop would step per element when the last dim is short.
  bool aFlat = a.shape == out.shape || a.size() == 1;
  bool bFlat = b.shape == out.shape || b.size() == 1;
  if (a.isFloat && aFlat && bFlat) {
    size_t n = out.size(), sa = a.size() == 1 ? 0 : 1,
           sb = b.size() == 1 ? 0 : 1;
    const float *pa = a.f.data(), *pb = b.f.data();
    if (out.isFloat)
      for (size_t k = 0; k < n; ++k)
        out.f[k] = fa(pa[k * sa], pb[k * sb]);
    else
      for (size_t k = 0; k < n; ++k)
        out.i[k] = fa(pa[k * sa], pb[k * sb]);
    return Error::success();
  }
  if (a.isFloat) {
    if (same && out.isFloat)
      for (size_t k = 0; k < a.f.size(); ++k)
        out.f[k] = fa(a.f[k], b.f[k]);
    else
      stridedLoop<2>(out.shape, strides, {0, 0},
                     [&](int64_t o, const std::array<int64_t, 2> &idx) {
                       if (out.isFloat)
                         out.f[o] = fa(a.f[idx[0]], b.f[idx[1]]);
                       else
                         out.i[o] = fa(a.f[idx[0]], b.f[idx[1]]);
                     });
    return Error::success();
  }
  if (out.isFloat)
    return unsupported(op, "integer inputs with a float result");
  stridedLoop<2>(out.shape, strides, {0, 0},
                 [&](int64_t o, const std::array<int64_t, 2> &idx) {
                   out.i[o] = fi(a.i[idx[0]], b.i[idx[1]]);
                 });
  return Error::success();
}

int64_t floorMod(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

Error evalBinary(Operation *op, llvm::ArrayRef<const Array *> in,
                 llvm::MutableArrayRef<Array> out) {
  const Array &a = *in[0], &b = *in[1];
  Array &y = out[0];
  StringRef name = op->getName().stripDialect();
  if (name == "add")
    return binary(
        op, a, b, y, [](float p, float q) { return p + q; },
        [](int64_t p, int64_t q) { return p + q; });
  if (name == "sub")
    return binary(
        op, a, b, y, [](float p, float q) { return p - q; },
        [](int64_t p, int64_t q) { return p - q; });
  if (name == "mul")
    return binary(
        op, a, b, y, [](float p, float q) { return p * q; },
        [](int64_t p, int64_t q) { return p * q; });
  if (name == "div")
    return binary(
        op, a, b, y, [](float p, float q) { return p / q; },
        [](int64_t p, int64_t q) { return q ? p / q : 0; });
  if (name == "mod") {
    if (intAttr(op, "fmod", 0))
      return binary(
          op, a, b, y, [](float p, float q) { return std::fmod(p, q); },
          [](int64_t p, int64_t q) { return q ? p % q : 0; });
    return binary(
        op, a, b, y,
        [](float p, float q) {
          float r = std::fmod(p, q);
          return (r != 0 && ((r < 0) != (q < 0))) ? r + q : r;
        },
        floorMod);
  }
  if (name == "pow") {
    if (a.isFloat && !b.isFloat) {
      Array bf;
      bf.shape = b.shape;
      bf.f.assign(b.i.begin(), b.i.end());
      return binary(
          op, a, bf, y, [](float p, float q) { return std::pow(p, q); },
          [](int64_t, int64_t) { return int64_t(0); });
    }
    return binary(
        op, a, b, y, [](float p, float q) { return std::pow(p, q); },
        [](int64_t p, int64_t q) {
          int64_t r = 1;
          for (int64_t k = 0; k < q; ++k)
            r *= p;
          return r;
        });
  }
  if (name == "prelu")
    return binary(
        op, a, b, y, [](float x, float s) { return x < 0 ? s * x : x; },
        [](int64_t x, int64_t s) { return x < 0 ? s * x : x; });
  if (name == "and")
    return binary(
        op, a, b, y, [](float, float) { return 0.0f; },
        [](int64_t p, int64_t q) { return int64_t(p && q); });
  if (name == "or")
    return binary(
        op, a, b, y, [](float, float) { return 0.0f; },
        [](int64_t p, int64_t q) { return int64_t(p || q); });
  if (name == "xor")
    return binary(
        op, a, b, y, [](float, float) { return 0.0f; },
        [](int64_t p, int64_t q) { return int64_t(!p != !q); });
  if (name == "equal")
    return binary(
        op, a, b, y, [](float p, float q) { return float(p == q); },
        [](int64_t p, int64_t q) { return int64_t(p == q); });
  if (name == "greater")
    return binary(
        op, a, b, y, [](float p, float q) { return float(p > q); },
        [](int64_t p, int64_t q) { return int64_t(p > q); });
  if (name == "greater_or_equal")
    return binary(
        op, a, b, y, [](float p, float q) { return float(p >= q); },
        [](int64_t p, int64_t q) { return int64_t(p >= q); });
  if (name == "less")
    return binary(
        op, a, b, y, [](float p, float q) { return float(p < q); },
        [](int64_t p, int64_t q) { return int64_t(p < q); });
  if (name == "less_or_equal")
    return binary(
        op, a, b, y, [](float p, float q) { return float(p <= q); },
        [](int64_t p, int64_t q) { return int64_t(p <= q); });
  return unsupported(op, "unknown binary op");
}

/// Max, Min, Sum, Mean over any number of broadcast operands.
Error evalVariadic(Operation *op, llvm::ArrayRef<const Array *> in,
                   llvm::MutableArrayRef<Array> out) {
  StringRef name = op->getName().stripDialect();
  Array &y = out[0];
  // Two float operands of the result's shape, or one of them a single
  // element (a Max after a Conv, or a clamp at a constant: the common
  // cases): one pass straight into y. A single element has stride 0.
  auto fits = [&](const Array *a) {
    return a->shape == y.shape || a->f.size() == 1;
  };
  if (in.size() == 2 && in[0]->isFloat && in[1]->isFloat && y.isFloat &&
      fits(in[0]) && fits(in[1]) &&
      (in[0]->shape == y.shape || in[1]->shape == y.shape) &&
      (name == "max" || name == "min" || name == "sum")) {
    const float *p = in[0]->f.data(), *q = in[1]->f.data();
    size_t sp = in[0]->f.size() == 1 && y.f.size() != 1 ? 0 : 1;
    size_t sq = in[1]->f.size() == 1 && y.f.size() != 1 ? 0 : 1;
    float *r = y.f.data();
    size_t n = y.f.size();
    if (name == "sum") {
      for (size_t k = 0; k < n; ++k)
        r[k] = p[k * sp] + q[k * sq];
    } else {
      bool isMax = name == "max";
      for (size_t k = 0; k < n; ++k) {
        float a = p[k * sp], b = q[k * sq];
        float m = isMax ? (a > b ? a : b) : (a < b ? a : b);
        r[k] = (a != a || b != b) ? NAN : m; // NaN wins, as below
      }
    }
    return Error::success();
  }
  Array acc = y;
  // Start from the first operand broadcast to the result.
  std::array<llvm::SmallVector<int64_t, 4>, 1> s0 = {
      broadcastStrides(in[0]->shape, y.shape)};
  if (in[0]->isFloat != y.isFloat)
    return unsupported(op, "mixed element kinds");
  stridedLoop<1>(y.shape, s0, {0},
                 [&](int64_t o, const std::array<int64_t, 1> &idx) {
                   acc.copyFrom(*in[0], idx[0], o);
                 });
  for (const Array *next : in.drop_front()) {
    Array result = y;
    Error err = Error::success();
    if (name == "max")
      err = binary(
          op, acc, *next, result,
          [](float p, float q) {
            return std::isnan(p) || std::isnan(q) ? NAN : std::max(p, q);
          },
          [](int64_t p, int64_t q) { return std::max(p, q); });
    else if (name == "min")
      err = binary(
          op, acc, *next, result,
          [](float p, float q) {
            return std::isnan(p) || std::isnan(q) ? NAN : std::min(p, q);
          },
          [](int64_t p, int64_t q) { return std::min(p, q); });
    else
      err = binary(
          op, acc, *next, result, [](float p, float q) { return p + q; },
          [](int64_t p, int64_t q) { return p + q; });
    if (err)
      return err;
    acc = std::move(result);
  }
  if (name == "mean")
    for (float &v : acc.f)
      v /= float(in.size());
  y = std::move(acc);
  return Error::success();
}

/// Dropout at inference: the input, and an all-true mask where asked for.
Error evalDropout(Operation *op, llvm::ArrayRef<const Array *> in,
                  llvm::MutableArrayRef<Array> out) {
  if (in.size() > 2 && in[2] && !in[2]->i.empty() && in[2]->i[0])
    return unsupported(op, "training mode");
  const Array &x = *in[0];
  for (int64_t k = 0; k < x.size(); ++k)
    out[0].copyFrom(x, k, k);
  if (out.size() > 1)
    std::fill(out[1].i.begin(), out[1].i.end(), 1);
  return Error::success();
}

Error evalWhere(Operation *op, llvm::ArrayRef<const Array *> in,
                llvm::MutableArrayRef<Array> out) {
  const Array &c = *in[0], &a = *in[1], &b = *in[2];
  Array &y = out[0];
  if (a.isFloat != y.isFloat || b.isFloat != y.isFloat)
    return unsupported(op, "mixed element kinds");
  // The common case: a full condition picking from full or scalar floats.
  auto fullOrScalar = [&](const Array &v) {
    return v.size() == 1 || v.shape == y.shape;
  };
  if (y.isFloat && c.shape == y.shape && fullOrScalar(a) && fullOrScalar(b)) {
    int64_t sa = a.size() == 1 ? 0 : 1, sb = b.size() == 1 ? 0 : 1;
    for (int64_t o = 0, n = y.size(); o < n; ++o)
      y.f[o] = c.i[o] ? a.f[o * sa] : b.f[o * sb];
    return Error::success();
  }
  std::array<llvm::SmallVector<int64_t, 4>, 3> strides = {
      broadcastStrides(c.shape, y.shape), broadcastStrides(a.shape, y.shape),
      broadcastStrides(b.shape, y.shape)};
  stridedLoop<3>(y.shape, strides, {0, 0, 0},
                 [&](int64_t o, const std::array<int64_t, 3> &idx) {
                   if (c.i[idx[0]])
                     y.copyFrom(a, idx[1], o);
                   else
                     y.copyFrom(b, idx[2], o);
                 });
  return Error::success();
}

Error evalClip(Operation *op, llvm::ArrayRef<const Array *> in,
               llvm::MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  if (x.isFloat) {
    float lo = in[1] ? in[1]->f.at(0) : -INFINITY;
    float hi = in[2] ? in[2]->f.at(0) : INFINITY;
    // Comparisons with NaN are false, so NaN passes through; written as
    // selects so the loop vectorizes.
    const float *src = x.f.data();
    float *dst = y.f.data();
    for (size_t k = 0, n = x.f.size(); k < n; ++k) {
      float v = src[k];
      v = v < lo ? lo : v;
      dst[k] = v > hi ? hi : v;
    }
  } else {
    int64_t lo = in[1] ? in[1]->i.at(0) : INT64_MIN;
    int64_t hi = in[2] ? in[2]->i.at(0) : INT64_MAX;
    for (size_t k = 0; k < x.i.size(); ++k)
      y.i[k] = std::min(std::max(x.i[k], lo), hi);
  }
  return Error::success();
}

Error evalCast(Operation *op, llvm::ArrayRef<const Array *> in,
               llvm::MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  auto element = cast<ShapedType>(op->getResult(0).getType()).getElementType();
  bool toBool = element.isInteger(1);
  for (int64_t k = 0; k < x.size(); ++k) {
    if (y.isFloat)
      y.f[k] = x.isFloat ? x.f[k] : float(x.i[k]);
    else if (x.isFloat)
      y.i[k] = toBool                  ? int64_t(x.f[k] != 0)
               : std::isfinite(x.f[k]) ? int64_t(x.f[k])
                                       : 0;
    else
      y.i[k] = toBool ? int64_t(x.i[k] != 0) : x.i[k];
  }
  return Error::success();
}
} // namespace

void addElementwiseKernels(KernelTable &table) {
  for (StringRef name : {"abs",
                         "acos",
                         "acosh",
                         "asin",
                         "asinh",
                         "atan",
                         "atanh",
                         "ceil",
                         "celu",
                         "cos",
                         "cosh",
                         "elu",
                         "erf",
                         "exp",
                         "floor",
                         "gelu",
                         "hard_sigmoid",
                         "hard_swish",
                         "leaky_relu",
                         "log",
                         "mish",
                         "neg",
                         "reciprocal",
                         "relu",
                         "round",
                         "selu",
                         "shrink",
                         "sigmoid",
                         "sign",
                         "sin",
                         "sinh",
                         "softplus",
                         "softsign",
                         "sqrt",
                         "tan",
                         "tanh",
                         "thresholded_relu",
                         "identity",
                         "not"})
    table[("dsmp." + name).str()] = KernelEntry(evalUnary, Writes::all);
  for (StringRef name :
       {"add", "sub", "mul", "div", "mod", "pow", "prelu", "and", "or", "xor",
        "equal", "greater", "greater_or_equal", "less", "less_or_equal"})
    table[("dsmp." + name).str()] = KernelEntry(evalBinary, Writes::all);
  for (StringRef name : {"max", "min", "sum", "mean"})
    table[("dsmp." + name).str()] = KernelEntry(evalVariadic, Writes::all);
  table["dsmp.is_nan"] = evalPredicate;
  table["dsmp.is_inf"] = evalPredicate;
  table["dsmp.where"] = KernelEntry(evalWhere, Writes::all);
  table["dsmp.dropout"] = KernelEntry(evalDropout, Writes::all);
  table["dsmp.clip"] = KernelEntry(evalClip, Writes::all);
  table["dsmp.cast"] = KernelEntry(evalCast, Writes::all);
}

} // namespace mlir::dsmp::eval
