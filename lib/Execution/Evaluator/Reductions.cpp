//===- Reductions.cpp - Evaluator kernels: reductions, norms -- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reduce*, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax, the normalizations
// and the pools. Sums accumulate in double: the evaluator is a reference.
//
//===----------------------------------------------------------------------===//

#include "Array.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using llvm::ArrayRef;
using llvm::Error;
using llvm::MutableArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace mlir::dsmp::eval {
namespace {

/// For each input element, the index of the output element it reduces
/// into (reduced dims marked in `reduced`).
template <typename Body>
void reduceLoop(ArrayRef<int64_t> shape, ArrayRef<bool> reduced, Body body) {
  SmallVector<int64_t, 4> keep(shape);
  for (size_t d = 0; d < keep.size(); ++d)
    if (reduced[d])
      keep[d] = 1;
  SmallVector<int64_t, 4> strides = stridesOf(keep);
  for (size_t d = 0; d < keep.size(); ++d)
    if (reduced[d])
      strides[d] = 0;
  stridedLoop<1>(
      shape, {strides}, {0},
      [&](int64_t i, const std::array<int64_t, 1> &o) { body(i, o[0]); });
}

Error evalReduce(Operation *op, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  StringRef kind = op->getName().stripDialect().drop_front(strlen("reduce_"));
  SmallVector<bool, 4> reduced(x.rank(), false);
  bool anyAxis = in[1] && !in[1]->i.empty();
  if (!anyAxis && intAttr(op, "noop_with_empty_axes", 0)) {
    y.f = x.f;
    y.i = x.i;
    return Error::success();
  }
  if (anyAxis)
    for (int64_t axis : in[1]->i)
      reduced[normalizeAxis(axis, x.rank())] = true;
  else
    reduced.assign(x.rank(), true);
  int64_t outSize = product(y.shape);
  int64_t count = outSize ? x.size() / outSize : 0;

  if (!x.isFloat) {
    bool isMin = kind == "min", isMax = kind == "max", isProd = kind == "prod";
    if (!(isMin || isMax || isProd || kind == "sum" || kind == "mean"))
      return unsupported(op, "integer form");
    int64_t init = isMin    ? std::numeric_limits<int64_t>::max()
                   : isMax  ? std::numeric_limits<int64_t>::min()
                   : isProd ? 1
                            : 0;
    std::vector<int64_t> acc(outSize, init);
    reduceLoop(x.shape, reduced, [&](int64_t i, int64_t o) {
      int64_t v = x.i[i];
      acc[o] = isMin    ? std::min(acc[o], v)
               : isMax  ? std::max(acc[o], v)
               : isProd ? acc[o] * v
                        : acc[o] + v;
    });
    if (kind == "mean" && count)
      for (int64_t &v : acc)
        v /= count;
    y.i = std::move(acc);
    return Error::success();
  }

  bool isMin = kind == "min", isMax = kind == "max";
  double init = isMin            ? INFINITY
                : isMax          ? -INFINITY
                : kind == "prod" ? 1.0
                                 : 0.0;
  std::vector<double> acc(outSize, init);
  std::vector<double> maxima;
  if (kind == "log_sum_exp") {
    maxima.assign(outSize, -INFINITY);
    reduceLoop(x.shape, reduced, [&](int64_t i, int64_t o) {
      maxima[o] = std::max<double>(maxima[o], x.f[i]);
    });
    for (double &m : maxima)
      if (!std::isfinite(m))
        m = 0;
  }
  reduceLoop(x.shape, reduced, [&](int64_t i, int64_t o) {
    double v = x.f[i];
    if (isMin)
      acc[o] = (std::isnan(v) || v < acc[o]) ? v : acc[o];
    else if (isMax)
      acc[o] = (std::isnan(v) || v > acc[o]) ? v : acc[o];
    else if (kind == "prod")
      acc[o] *= v;
    else if (kind == "l1")
      acc[o] += std::fabs(v);
    else if (kind == "l2" || kind == "sum_square")
      acc[o] += v * v;
    else if (kind == "log_sum_exp")
      acc[o] += std::exp(v - maxima[o]);
    else
      acc[o] += v;
  });
  for (int64_t o = 0; o < outSize; ++o) {
    double v = acc[o];
    if (kind == "mean")
      v /= double(count);
    else if (kind == "l2")
      v = std::sqrt(v);
    else if (kind == "log_sum")
      v = std::log(v);
    else if (kind == "log_sum_exp")
      v = std::log(v) + maxima[o];
    y.f[o] = float(v);
  }
  return Error::success();
}

/// [outer, n, inner] around `axis`.
std::array<int64_t, 3> splitAround(ArrayRef<int64_t> shape, int64_t axis) {
  return {product(shape.take_front(axis)), shape[axis],
          product(shape.drop_front(axis + 1))};
}

Error evalArg(Operation *op, ArrayRef<const Array *> in,
              MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  int64_t axis = normalizeAxis(intAttr(op, "axis", 0), x.rank());
  bool isMax = op->getName().stripDialect() == "arg_max";
  bool last = intAttr(op, "select_last_index", 0);
  std::array<int64_t, 3> split = splitAround(x.shape, axis);
  int64_t outer = split[0], n = split[1], inner = split[2];
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        double v = x.at((a * n + k) * inner + c),
               b = x.at((a * n + best) * inner + c);
        if (isMax ? (v > b || (last && v == b)) : (v < b || (last && v == b)))
          best = k;
      }
      out[0].i[a * inner + c] = best;
    }
  return Error::success();
}

Error evalSoftmax(Operation *op, ArrayRef<const Array *> in,
                  MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  int64_t axis = normalizeAxis(intAttr(op, "axis", -1), x.rank());
  StringRef kind = op->getName().stripDialect();
  std::array<int64_t, 3> split = splitAround(x.shape, axis);
  int64_t outer = split[0], n = split[1], inner = split[2];
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      auto at = [&](int64_t k) { return (a * n + k) * inner + c; };
      float m = -INFINITY;
      int64_t arg = 0;
      for (int64_t k = 0; k < n; ++k)
        if (x.f[at(k)] > m) {
          m = x.f[at(k)];
          arg = k;
        }
      if (kind == "hardmax") {
        for (int64_t k = 0; k < n; ++k)
          y.f[at(k)] = k == arg ? 1.0f : 0.0f;
        continue;
      }
      double sum = 0;
      for (int64_t k = 0; k < n; ++k)
        sum += std::exp(double(x.f[at(k)]) - m);
      for (int64_t k = 0; k < n; ++k)
        y.f[at(k)] = kind == "log_softmax"
                         ? float(x.f[at(k)] - m - std::log(sum))
                         : float(std::exp(double(x.f[at(k)]) - m) / sum);
    }
  return Error::success();
}

/// Mean and 1/sqrt(var + eps) of `x` viewed as [outer, n], per row.
void rowMoments(const float *x, int64_t n, float eps, double &mean,
                double &invStd) {
  double sum = 0, sq = 0;
  for (int64_t k = 0; k < n; ++k)
    sum += x[k];
  mean = n ? sum / n : 0;
  for (int64_t k = 0; k < n; ++k)
    sq += (x[k] - mean) * (x[k] - mean);
  invStd = 1.0 / std::sqrt((n ? sq / n : 0) + eps);
}

/// GroupNormalization: each of num_groups channel groups normalized over
/// its channels and spatial dims, then scale and bias per channel ([C],
/// opset 21) or per group ([G], opset 18).
Error evalGroupNorm(Operation *op, ArrayRef<const Array *> in,
                    MutableArrayRef<Array> out) {
  const Array &x = *in[0], &scale = *in[1], &bias = *in[2];
  float eps = floatAttr(op, "epsilon", 1e-5f);
  int64_t groups = intAttr(op, "num_groups", 1);
  if (x.rank() < 2 || groups < 1 || x.shape[1] % groups)
    return unsupported(op, "channels not a multiple of num_groups");
  int64_t n = x.shape[0], c = x.shape[1], perGroup = c / groups;
  int64_t plane = product(ArrayRef<int64_t>(x.shape).drop_front(2));
  bool perChannel = scale.size() == c;
  if (!perChannel && scale.size() != groups)
    return unsupported(op, "scale is neither [C] nor [num_groups]");
  int64_t span = perGroup * plane;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      int64_t base = (b * c + g * perGroup) * plane;
      double mean, invStd;
      rowMoments(x.f.data() + base, span, eps, mean, invStd);
      for (int64_t k = 0; k < span; ++k) {
        int64_t at = perChannel ? g * perGroup + k / plane : g;
        out[0].f[base + k] =
            float((x.f[base + k] - mean) * invStd) * scale.f[at] + bias.f[at];
      }
    }
  return Error::success();
}

/// LRN: x / (bias + alpha / size * sum of squares over a window of
/// channels)^beta; the window runs floor((size-1)/2) channels back and
/// ceil((size-1)/2) forward, clipped at the ends.
Error evalLRN(Operation *op, ArrayRef<const Array *> in,
              MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  if (x.rank() < 2)
    return unsupported(op, "an input of rank < 2");
  int64_t size = intAttr(op, "size", 1);
  float alpha = floatAttr(op, "alpha", 1e-4f),
        beta = floatAttr(op, "beta", 0.75f);
  float bias = floatAttr(op, "bias", 1.0f);
  int64_t channels = x.shape[1];
  int64_t plane = product(ArrayRef<int64_t>(x.shape).drop_front(2));
  int64_t back = (size - 1) / 2, forward = size - 1 - back;
  for (int64_t n = 0; n < x.shape[0]; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t p = 0; p < plane; ++p) {
        float sum = 0;
        for (int64_t w = std::max<int64_t>(0, c - back);
             w <= std::min(channels - 1, c + forward); ++w) {
          float v = x.f[(n * channels + w) * plane + p];
          sum += v * v;
        }
        int64_t at = (n * channels + c) * plane + p;
        y.f[at] = x.f[at] / std::pow(bias + alpha / size * sum, beta);
      }
  return Error::success();
}

Error evalLayerNorm(Operation *op, ArrayRef<const Array *> in,
                    MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  int64_t axis = normalizeAxis(intAttr(op, "axis", -1), x.rank());
  float eps = floatAttr(op, "epsilon", 1e-5f);
  ArrayRef<int64_t> normShape = ArrayRef<int64_t>(x.shape).drop_front(axis);
  int64_t n = product(normShape),
          outer = product(x.shape) / std::max<int64_t>(n, 1);
  // Scale and B broadcast to the normalized dims.
  auto expand = [&](const Array *p) {
    std::vector<float> v(n, p ? 0.0f : 0.0f);
    if (!p)
      return v;
    stridedLoop<1>(normShape, {broadcastStrides(p->shape, normShape)}, {0},
                   [&](int64_t o, const std::array<int64_t, 1> &idx) {
                     v[o] = p->f[idx[0]];
                   });
    return v;
  };
  std::vector<float> scale = expand(in[1]), bias = expand(in[2]);
  for (int64_t r = 0; r < outer; ++r) {
    const float *row = x.f.data() + r * n;
    double mean, invStd;
    rowMoments(row, n, eps, mean, invStd);
    for (int64_t k = 0; k < n; ++k)
      out[0].f[r * n + k] =
          float((row[k] - mean) * invStd) * scale[k] + bias[k];
    if (out.size() > 1 && !out[1].f.empty())
      out[1].f[r] = float(mean);
    if (out.size() > 2 && !out[2].f.empty())
      out[2].f[r] = float(invStd);
  }
  return Error::success();
}

Error evalBatchNorm(Operation *op, ArrayRef<const Array *> in,
                    MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  float eps = floatAttr(op, "epsilon", 1e-5f);
  int64_t n = x.shape[0], c = x.rank() > 1 ? x.shape[1] : 1;
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(2));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      float scale = in[1]->f[ch] / std::sqrt(in[4]->f[ch] + eps);
      float shift = in[2]->f[ch] - in[3]->f[ch] * scale;
      const float *src = x.f.data() + (b * c + ch) * inner;
      float *dst = out[0].f.data() + (b * c + ch) * inner;
      for (int64_t k = 0; k < inner; ++k)
        dst[k] = src[k] * scale + shift;
    }
  return Error::success();
}

Error evalInstanceNorm(Operation *op, ArrayRef<const Array *> in,
                       MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  float eps = floatAttr(op, "epsilon", 1e-5f);
  int64_t n = x.shape[0], c = x.shape[1];
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(2));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *src = x.f.data() + (b * c + ch) * inner;
      float *dst = out[0].f.data() + (b * c + ch) * inner;
      double mean, invStd;
      rowMoments(src, inner, eps, mean, invStd);
      for (int64_t k = 0; k < inner; ++k)
        dst[k] = float((src[k] - mean) * invStd) * in[1]->f[ch] + in[2]->f[ch];
    }
  return Error::success();
}

/// For each output index along one window dim: the taps [lo, hi) that
/// read inside the input, and how many read inside input + padding
/// (AveragePool's count_include_pad divisor).
struct TapRanges {
  SmallVector<int64_t, 16> lo, hi, padded;
};

TapRanges tapRanges(const Window &w, int d) {
  TapRanges r;
  for (int64_t o = 0; o < w.out[d]; ++o) {
    int64_t base = o * w.stride[d] - w.padBegin[d];
    int64_t lo = w.kernel[d], hi = 0, padded = 0;
    for (int64_t k = 0; k < w.kernel[d]; ++k) {
      int64_t c = base + k * w.dilation[d];
      if (c >= 0 && c < w.in[d]) {
        lo = std::min(lo, k);
        hi = k + 1;
      }
      padded += c >= -w.padBegin[d] && c < w.in[d] + w.padEnd[d];
    }
    r.lo.push_back(std::min(lo, hi));
    r.hi.push_back(hi);
    r.padded.push_back(padded);
  }
  return r;
}

/// One output's window: its in-bounds taps as indices into X's plane.
struct PoolTaps {
  int64_t corner; // may lie in the padding: an index, not a pointer
  int64_t lo[3], hi[3];
  int64_t rowStep, planeStep, dilation;

  /// body(index) for each in-bounds tap, in window order.
  template <typename Body> void each(Body body) const {
    for (int64_t kd = lo[0]; kd < hi[0]; ++kd)
      for (int64_t kh = lo[1]; kh < hi[1]; ++kh) {
        int64_t row = corner + kd * planeStep + kh * rowStep;
        for (int64_t kw = lo[2]; kw < hi[2]; ++kw)
          body(row + kw * dilation);
      }
  }
  int64_t count() const {
    return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  }
};

/// A pool's window over the [N * C] planes of X, with each output's tap
/// ranges per dim computed once.
struct PoolWalk {
  Window w;
  std::array<TapRanges, 3> taps;
  int64_t planes, inPlane, outPlane;

  static llvm::Expected<PoolWalk> of(Operation *op, const Array &x,
                                     const Array &y) {
    auto window = slidingWindow(op, x.shape, y.shape, {});
    if (!window)
      return window.takeError();
    PoolWalk walk{*window, {}, x.shape[0] * x.shape[1], 1, 1};
    for (int d = 0; d < 3; ++d) {
      walk.taps[d] = tapRanges(walk.w, d);
      walk.inPlane *= walk.w.in[d];
      walk.outPlane *= walk.w.out[d];
    }
    return walk;
  }

  /// visit(plane, output index in the plane, out[3] position, PoolTaps).
  template <typename Visit> void forEachOutput(Visit visit) const {
    PoolTaps t;
    t.rowStep = w.dilation[1] * w.in[2];
    t.planeStep = w.dilation[0] * w.in[1] * w.in[2];
    t.dilation = w.dilation[2];
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t od = 0; od < w.out[0]; ++od)
        for (int64_t oh = 0; oh < w.out[1]; ++oh)
          for (int64_t ow = 0; ow < w.out[2]; ++ow) {
            int64_t at[3] = {od, oh, ow};
            for (int d = 0; d < 3; ++d) {
              t.lo[d] = taps[d].lo[at[d]];
              t.hi[d] = taps[d].hi[at[d]];
            }
            t.corner = ((od * w.stride[0] - w.padBegin[0]) * w.in[1] +
                        oh * w.stride[1] - w.padBegin[1]) *
                           w.in[2] +
                       ow * w.stride[2] - w.padBegin[2];
            visit(p, (od * w.out[1] + oh) * w.out[2] + ow, at, t);
          }
  }
};

/// MaxPool and AveragePool. Each output visits only the taps that read
/// inside the input, in the same order as a full window walk; AveragePool
/// sums in double.
Error evalPool(Operation *op, ArrayRef<const Array *> in,
               MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  if (!x.isFloat)
    return unsupported(op, "integer input");
  bool isMax = op->getName().stripDialect() == "max_pool";
  // MaxPool's optional Indices: each maximum's position in X flattened
  // whole (N and C included), row-major, or with storage_order 1 column-
  // major within the plane; the first of tied maxima in window order.
  int64_t *indices =
      out.size() > 1 && !out[1].i.empty() ? out[1].i.data() : nullptr;
  bool columnMajor = intAttr(op, "storage_order", 0) != 0;
  bool includePad = intAttr(op, "count_include_pad", 0);
  auto walk = PoolWalk::of(op, x, y);
  if (!walk)
    return walk.takeError();
  walk->forEachOutput([&](int64_t p, int64_t o, const int64_t *at,
                          const PoolTaps &t) {
    const float *xp = x.f.data() + p * walk->inPlane;
    float &dst = y.f[p * walk->outPlane + o];
    if (isMax && indices) {
      float best = -INFINITY;
      int64_t at = -1;
      t.each([&](int64_t k) {
        if (at < 0 || xp[k] > best) {
          best = xp[k];
          at = k;
        }
      });
      dst = best;
      const Window &w = walk->w;
      int64_t position = at;
      if (columnMajor && at >= 0) {
        int64_t col = at % w.in[2], row = at / w.in[2] % w.in[1],
                depth = at / (w.in[2] * w.in[1]);
        position = (col * w.in[1] + row) * w.in[0] + depth;
      }
      indices[p * walk->outPlane + o] = p * walk->inPlane + position;
      return;
    }
    if (isMax) {
      float acc = -INFINITY;
      t.each([&](int64_t k) { acc = std::max(acc, xp[k]); });
      dst = acc;
      return;
    }
    double acc = 0;
    t.each([&](int64_t k) { acc += xp[k]; });
    const auto &taps = walk->taps;
    int64_t count = includePad ? taps[0].padded[at[0]] * taps[1].padded[at[1]] *
                                     taps[2].padded[at[2]]
                               : std::max<int64_t>(1, t.count());
    dst = float(acc / double(count));
  });
  return Error::success();
}

/// dsmp.max_pool_grad: each window's dY shared evenly by the window's
/// elements equal to its maximum Y (dY / ties, in f32), added into dX.
Error evalMaxPoolGrad(Operation *op, ArrayRef<const Array *> in,
                      MutableArrayRef<Array> out) {
  const Array &x = *in[0], &y = *in[1], &dy = *in[2];
  Array &dx = out[0];
  auto walk = PoolWalk::of(op, x, y);
  if (!walk)
    return walk.takeError();
  std::fill(dx.f.begin(), dx.f.end(), 0.0f);
  walk->forEachOutput(
      [&](int64_t p, int64_t o, const int64_t *, const PoolTaps &t) {
        const float *xp = x.f.data() + p * walk->inPlane;
        float *gp = dx.f.data() + p * walk->inPlane;
        float top = y.f[p * walk->outPlane + o];
        int64_t ties = 0;
        t.each([&](int64_t k) { ties += xp[k] == top; });
        if (ties == 0)
          return;
        float share = dy.f[p * walk->outPlane + o] / float(ties);
        t.each([&](int64_t k) {
          if (xp[k] == top)
            gp[k] += share;
        });
      });
  return Error::success();
}

Error evalGlobalPool(Operation *op, ArrayRef<const Array *> in,
                     MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  bool isMax = op->getName().stripDialect() == "global_max_pool";
  int64_t planes = x.shape[0] * x.shape[1];
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(2));
  for (int64_t p = 0; p < planes; ++p) {
    double acc = isMax ? -INFINITY : 0;
    for (int64_t k = 0; k < inner; ++k)
      acc = isMax ? std::max<double>(acc, x.f[p * inner + k])
                  : acc + x.f[p * inner + k];
    out[0].f[p] = float(isMax ? acc : acc / double(inner));
  }
  return Error::success();
}
/// CumSum: y[.., k, ..] sums x[.., j, ..] over j <= k (j < k exclusive;
/// j >= k, j > k reversed), each in ascending j as the lowering sums, so
/// f32 results round alike (HuggingFace position ids: CumSum of the mask).
Error evalCumSum(Operation *op, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  const Array &x = *in[0], &axisValue = *in[1];
  Array &y = out[0];
  if (axisValue.size() != 1 || axisValue.isFloat)
    return unsupported(op, "an axis that is not one integer");
  int64_t rank = x.rank();
  int64_t axis = axisValue.i[0] < 0 ? axisValue.i[0] + rank : axisValue.i[0];
  if (axis < 0 || axis >= rank)
    return unsupported(op, "axis out of range");
  bool exclusive = intAttr(op, "exclusive", 0) != 0;
  bool reverse = intAttr(op, "reverse", 0) != 0;
  int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(axis));
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  int64_t n = x.shape[axis];
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c)
      for (int64_t k = 0; k < n; ++k) {
        int64_t first = reverse ? (exclusive ? k + 1 : k) : 0;
        int64_t last = reverse ? n : (exclusive ? k : k + 1);
        int64_t to = (a * n + k) * inner + c;
        float fsum = 0;
        int64_t isum = 0;
        for (int64_t j = first; j < last; ++j) {
          int64_t from = (a * n + j) * inner + c;
          if (x.isFloat)
            fsum += x.f[from];
          else
            isum += x.i[from];
        }
        if (x.isFloat)
          y.f[to] = fsum;
        else
          y.i[to] = isum;
      }
  return Error::success();
}

/// dsmp.scan_gradients: each gradient times the inverse scale, and its
/// row of statistics (amax, underflows below the format's smallest normal,
/// infs, NaNs, sum of squares of the unscaled values; sums in double).
Error evalScanGradients(Operation *op, ArrayRef<const Array *> in,
                        MutableArrayRef<Array> out) {
  float inverse = in[0]->f.at(0);
  auto format =
      cast<FloatType>(cast<mlir::TypeAttr>(op->getAttr("format")).getValue());
  double smallestNormal =
      llvm::APFloat::getSmallestNormalized(format.getFloatSemantics())
          .convertToDouble();
  size_t count = in.size() - 1;
  Array &stats = out[count];
  for (size_t g = 0; g < count; ++g) {
    const Array &grad = *in[1 + g];
    Array &unscaled = out[g];
    double amax = 0, underflows = 0, infs = 0, nans = 0, squares = 0;
    for (size_t k = 0; k < grad.f.size(); ++k) {
      float x = grad.f[k];
      float u = x * inverse;
      unscaled.f[k] = u;
      double magnitude = std::fabs(double(x));
      if (std::isnan(x)) {
        ++nans;
      } else {
        amax = std::max(amax, magnitude);
        infs += std::isinf(x);
      }
      underflows += magnitude > 0 && magnitude < smallestNormal;
      squares += double(u) * double(u);
    }
    float *row = &stats.f[g * 5];
    row[0] = float(amax);
    row[1] = float(underflows);
    row[2] = float(infs);
    row[3] = float(nans);
    row[4] = float(squares);
  }
  return Error::success();
}

} // namespace

void addReductionKernels(KernelTable &table) {
  for (StringRef name :
       {"reduce_l1", "reduce_l2", "reduce_log_sum", "reduce_log_sum_exp",
        "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum",
        "reduce_sum_square"})
    table[("dsmp." + name).str()] = evalReduce;
  table["dsmp.arg_max"] = evalArg;
  table["dsmp.arg_min"] = evalArg;
  table["dsmp.softmax"] = evalSoftmax;
  table["dsmp.log_softmax"] = evalSoftmax;
  table["dsmp.hardmax"] = evalSoftmax;
  table["dsmp.layer_normalization"] = evalLayerNorm;
  table["dsmp.lrn"] = KernelEntry(evalLRN, Writes::all);
  table["dsmp.group_normalization"] = KernelEntry(evalGroupNorm, Writes::all);
  table["dsmp.batch_normalization"] = evalBatchNorm;
  table["dsmp.cum_sum"] = KernelEntry(evalCumSum, Writes::all);
  table["dsmp.instance_normalization"] = evalInstanceNorm;
  table["dsmp.average_pool"] = evalPool;
  table["dsmp.max_pool"] = evalPool;
  table["dsmp.max_pool_grad"] = evalMaxPoolGrad;
  table["dsmp.scan_gradients"] = KernelEntry(evalScanGradients, Writes::all);
  table["dsmp.global_average_pool"] = evalGlobalPool;
  table["dsmp.global_max_pool"] = evalGlobalPool;
}

} // namespace mlir::dsmp::eval
