//===- Contractions.cpp - Evaluator kernels: MatMul, Gemm, Conv -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Direct f32 loops ordered so that the innermost one runs over contiguous
// output elements (the compiler vectorizes it).
//
//===----------------------------------------------------------------------===//

#include "Array.h"

using llvm::ArrayRef;
using llvm::Error;
using llvm::MutableArrayRef;
using llvm::SmallVector;

namespace mlir::dsmp::eval {
namespace {

/// y[M, N] += a[M, K] * b[K, N], all row-major.
void matmulAdd(const float *a, const float *b, float *y, int64_t m, int64_t k,
               int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    float *row = y + i * n;
    for (int64_t p = 0; p < k; ++p) {
      float s = a[i * k + p];
      const float *brow = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] += s * brow[j];
    }
  }
}

std::vector<float> transposed(const float *x, int64_t rows, int64_t cols) {
  std::vector<float> t(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      t[c * rows + r] = x[r * cols + c];
  return t;
}

Error evalMatMul(Operation *op, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  const Array &a = *in[0], &b = *in[1];
  Array &y = out[0];
  if (!a.isFloat || !b.isFloat)
    return unsupported(op, "integer operands");
  SmallVector<int64_t, 4> as(a.shape), bs(b.shape);
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  if (as.size() < 2 || bs.size() < 2)
    return unsupported(op, "scalar operand");
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  ArrayRef<int64_t> batchA = ArrayRef<int64_t>(as).drop_back(2);
  ArrayRef<int64_t> batchB = ArrayRef<int64_t>(bs).drop_back(2);
  size_t rank = std::max(batchA.size(), batchB.size());
  SmallVector<int64_t, 4> batch(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int64_t da =
        d + batchA.size() >= rank ? batchA[d + batchA.size() - rank] : 1;
    int64_t db =
        d + batchB.size() >= rank ? batchB[d + batchB.size() - rank] : 1;
    batch[d] = std::max(da, db);
  }
  std::array<SmallVector<int64_t, 4>, 2> strides = {
      broadcastStrides(batchA, batch), broadcastStrides(batchB, batch)};
  std::fill(y.f.begin(), y.f.end(), 0.0f);
  stridedLoop<2>(batch, strides, {0, 0},
                 [&](int64_t o, const std::array<int64_t, 2> &idx) {
                   matmulAdd(a.f.data() + idx[0] * m * k,
                             b.f.data() + idx[1] * k * n,
                             y.f.data() + o * m * n, m, k, n);
                 });
  return Error::success();
}

Error evalGemm(Operation *op, ArrayRef<const Array *> in,
               MutableArrayRef<Array> out) {
  const Array &a = *in[0], &b = *in[1];
  Array &y = out[0];
  if (!a.isFloat || !b.isFloat || a.rank() != 2 || b.rank() != 2)
    return unsupported(op, "integer or non-2-D operands");
  bool ta = intAttr(op, "transA", 0), tb = intAttr(op, "transB", 0);
  float alpha = floatAttr(op, "alpha", 1), beta = floatAttr(op, "beta", 1);
  int64_t m = y.shape[0], n = y.shape[1], k = ta ? a.shape[0] : a.shape[1];
  std::vector<float> at, bt;
  const float *ap = a.f.data(), *bp = b.f.data();
  if (ta) {
    at = transposed(ap, k, m);
    ap = at.data();
  }
  if (tb) {
    bt = transposed(bp, n, k);
    bp = bt.data();
  }
  std::fill(y.f.begin(), y.f.end(), 0.0f);
  matmulAdd(ap, bp, y.f.data(), m, k, n);
  for (float &v : y.f)
    v *= alpha;
  if (const Array *c = in.size() > 2 ? in[2] : nullptr)
    stridedLoop<1>(y.shape, {broadcastStrides(c->shape, y.shape)}, {0},
                   [&](int64_t o, const std::array<int64_t, 1> &idx) {
                     y.f[o] += beta * c->f[idx[0]];
                   });
  return Error::success();
}

/// The [lo, hi) of positions p in [0, count) whose p * stride + offset lies
/// in [0, limit).
std::pair<int64_t, int64_t> validRange(int64_t count, int64_t stride,
                                       int64_t offset, int64_t limit) {
  int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  int64_t hi = limit - 1 - offset < 0 ? 0 : (limit - 1 - offset) / stride + 1;
  return {lo, std::min(hi, count)};
}

Error evalConv(Operation *op, ArrayRef<const Array *> in,
               MutableArrayRef<Array> out) {
  const Array &x = *in[0], &w = *in[1];
  const Array *bias = in.size() > 2 ? in[2] : nullptr;
  Array &y = out[0];
  auto window = slidingWindow(op, x.shape, y.shape,
                              ArrayRef<int64_t>(w.shape).drop_front(2));
  if (!window)
    return window.takeError();
  const Window &win = *window;
  int64_t batches = x.shape[0], channels = x.shape[1], maps = y.shape[1];
  int64_t groups = intAttr(op, "group", 1);
  if (groups < 1 || channels % groups || maps % groups)
    return unsupported(op, "group does not divide the channels");
  int64_t cg = channels / groups, mg = maps / groups;
  int64_t inPlane = win.in[0] * win.in[1] * win.in[2];
  int64_t outPlane = win.out[0] * win.out[1] * win.out[2];
  int64_t kSize = win.kernel[0] * win.kernel[1] * win.kernel[2];
  for (int64_t nb = 0; nb < batches; ++nb)
    for (int64_t mo = 0; mo < maps; ++mo) {
      float *yp = y.f.data() + (nb * maps + mo) * outPlane;
      std::fill(yp, yp + outPlane, bias ? bias->f[mo] : 0.0f);
      int64_t g = mo / mg;
      for (int64_t c = 0; c < cg; ++c) {
        const float *xp = x.f.data() + (nb * channels + g * cg + c) * inPlane;
        const float *wp = w.f.data() + (mo * cg + c) * kSize;
        for (int64_t kd = 0; kd < win.kernel[0]; ++kd)
          for (int64_t kh = 0; kh < win.kernel[1]; ++kh)
            for (int64_t kw = 0; kw < win.kernel[2]; ++kw) {
              float wv = wp[(kd * win.kernel[1] + kh) * win.kernel[2] + kw];
              int64_t offW = kw * win.dilation[2] - win.padBegin[2];
              auto [lo, hi] =
                  validRange(win.out[2], win.stride[2], offW, win.in[2]);
              for (int64_t od = 0; od < win.out[0]; ++od) {
                int64_t id =
                    od * win.stride[0] - win.padBegin[0] + kd * win.dilation[0];
                if (id < 0 || id >= win.in[0])
                  continue;
                for (int64_t oh = 0; oh < win.out[1]; ++oh) {
                  int64_t ih = oh * win.stride[1] - win.padBegin[1] +
                               kh * win.dilation[1];
                  if (ih < 0 || ih >= win.in[1])
                    continue;
                  float *yrow = yp + (od * win.out[1] + oh) * win.out[2];
                  const float *xrow = xp + (id * win.in[1] + ih) * win.in[2];
                  int64_t s = win.stride[2];
                  if (s == 1)
                    for (int64_t ow = lo; ow < hi; ++ow)
                      yrow[ow] += wv * xrow[ow + offW];
                  else
                    for (int64_t ow = lo; ow < hi; ++ow)
                      yrow[ow] += wv * xrow[ow * s + offW];
                }
              }
            }
      }
    }
  return Error::success();
}

Error evalConvTranspose(Operation *op, ArrayRef<const Array *> in,
                        MutableArrayRef<Array> out) {
  const Array &x = *in[0], &w = *in[1];
  const Array *bias = in.size() > 2 ? in[2] : nullptr;
  Array &y = out[0];
  int64_t spatial = x.rank() - 2;
  if (spatial < 1 || spatial > 3)
    return unsupported(op, "spatial rank outside 1..3");
  int64_t groups = intAttr(op, "group", 1);
  int64_t batches = x.shape[0], channels = x.shape[1], maps = y.shape[1];
  if (groups < 1 || channels % groups || maps % groups)
    return unsupported(op, "group does not divide the channels");
  int64_t cg = channels / groups, mg = maps / groups;
  // The window from output to input, as for Conv; ConvTranspose's own
  // padding rule when output_shape or SAME auto_pad sets it.
  auto window = slidingWindow(op, x.shape, y.shape,
                              ArrayRef<int64_t>(w.shape).drop_front(2));
  if (!window)
    return window.takeError();
  Window win = *window;
  SmallVector<int64_t, 4> outPad = intsAttr(op, "output_padding", spatial, 0);
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  if (op->hasAttr("output_shape") ||
      (autoPad && autoPad.getValue().starts_with("SAME"))) {
    for (int64_t d = 0, shift = 3 - spatial; d < spatial; ++d) {
      int64_t k = shift + d;
      int64_t total = win.stride[k] * (win.in[k] - 1) + outPad[d] +
                      (win.kernel[k] - 1) * win.dilation[k] + 1 - win.out[k];
      // Floor division, as ONNX's reference: an output_shape one short of
      // the full size gives total -1 and no begin padding.
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      win.padBegin[k] =
          autoPad && autoPad.getValue() == "SAME_UPPER" ? half : total - half;
    }
  }
  int64_t inPlane = win.in[0] * win.in[1] * win.in[2];
  int64_t outPlane = win.out[0] * win.out[1] * win.out[2];
  int64_t kSize = win.kernel[0] * win.kernel[1] * win.kernel[2];
  for (int64_t nb = 0; nb < batches; ++nb)
    for (int64_t mo = 0; mo < maps; ++mo) {
      float *yp = y.f.data() + (nb * maps + mo) * outPlane;
      std::fill(yp, yp + outPlane, bias ? bias->f[mo] : 0.0f);
      int64_t g = mo / mg, m = mo % mg;
      for (int64_t c = 0; c < cg; ++c) {
        int64_t ci = g * cg + c;
        const float *xp = x.f.data() + (nb * channels + ci) * inPlane;
        const float *wp = w.f.data() + (ci * mg + m) * kSize;
        for (int64_t kd = 0; kd < win.kernel[0]; ++kd)
          for (int64_t kh = 0; kh < win.kernel[1]; ++kh)
            for (int64_t kw = 0; kw < win.kernel[2]; ++kw) {
              float wv = wp[(kd * win.kernel[1] + kh) * win.kernel[2] + kw];
              int64_t offW = kw * win.dilation[2] - win.padBegin[2];
              auto [lo, hi] =
                  validRange(win.in[2], win.stride[2], offW, win.out[2]);
              for (int64_t id = 0; id < win.in[0]; ++id) {
                int64_t od =
                    id * win.stride[0] - win.padBegin[0] + kd * win.dilation[0];
                if (od < 0 || od >= win.out[0])
                  continue;
                for (int64_t ih = 0; ih < win.in[1]; ++ih) {
                  int64_t oh = ih * win.stride[1] - win.padBegin[1] +
                               kh * win.dilation[1];
                  if (oh < 0 || oh >= win.out[1])
                    continue;
                  float *yrow = yp + (od * win.out[1] + oh) * win.out[2];
                  const float *xrow = xp + (id * win.in[1] + ih) * win.in[2];
                  for (int64_t iw = lo; iw < hi; ++iw)
                    yrow[iw * win.stride[2] + offW] += wv * xrow[iw];
                }
              }
            }
      }
    }
  return Error::success();
}
} // namespace

void addContractionKernels(KernelTable &table) {
  table["dsmp.matmul"] = evalMatMul;
  table["dsmp.gemm"] = evalGemm;
  table["dsmp.conv"] = evalConv;
  table["dsmp.conv_transpose"] = evalConvTranspose;
}

} // namespace mlir::dsmp::eval
