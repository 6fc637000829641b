//===- Contractions.cpp - Evaluator kernels: MatMul, Gemm, Conv -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Matrix products through sgemm (Sgemm.h): Conv as im2col + GEMM over a
// chunk of images at once, ConvTranspose as GEMM + col2im. Convolutions
// with few products per output (depthwise) stay direct loops whose
// innermost loop runs over contiguous output elements. The bias (and Gemm's
// alpha and C) is applied to the f32 sum, and the evaluator rounds the
// final result once, as the lowering does for a narrow result that
// accumulates in f32.
//
//===----------------------------------------------------------------------===//

#include "Array.h"
#include "DnnlConv.h"
#include "Sgemm.h"

#include "dialects/Dsmp/IR/Einsum.h"

#include "mlir/IR/TypeUtilities.h"

#include <memory>

using llvm::ArrayRef;
using llvm::Error;
using llvm::Expected;
using llvm::MutableArrayRef;
using llvm::SmallVector;

namespace mlir::dsmp::eval {
namespace {

/// y[plane] += bias for each of the `maps` planes of each batch.
void addBias(const Array *bias, Array &y, int64_t maps, int64_t plane) {
  if (!bias)
    return;
  for (int64_t p = 0; p < int64_t(y.f.size()) / plane; ++p) {
    float b = bias->f[p % maps];
    for (float *v = y.f.data() + p * plane, *end = v + plane; v != end; ++v)
      *v += b;
  }
}

/// How many images one im2col/col2im GEMM takes: enough columns to keep
/// the product efficient on small images, few enough that the column
/// matrix stays under 16 Mi floats.
int64_t imagesPerChunk(int64_t batches, int64_t rows, int64_t plane) {
  int64_t wanted = std::max<int64_t>(1, (4096 + plane - 1) / plane);
  int64_t fits = std::max<int64_t>(1, (int64_t(1) << 24) /
                                          std::max<int64_t>(1, rows * plane));
  return std::max<int64_t>(1, std::min({batches, wanted, fits}));
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
  stridedLoop<2>(
      batch, strides, {0, 0},
      [&](int64_t o, const std::array<int64_t, 2> &idx) {
        sgemm(false, false, m, n, k, 1.0f, a.f.data() + idx[0] * m * k, k,
              b.f.data() + idx[1] * k * n, n, 0.0f, y.f.data() + o * m * n, n);
      });
  return Error::success();
}

/// Einsum: a nest over the equation's labels, the result's outer; at each
/// result element the product of the operands summed over the other labels
/// in f32, in the order the lowering's loops take.
Error evalEinsum(Operation *op, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  SmallVector<int64_t> ranks;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (const Array *a : in) {
    if (!a->isFloat)
      return unsupported(op, "integer operands");
    ranks.push_back(a->rank());
    shapes.push_back(a->shape);
  }
  auto eq = EinsumEquation::parse(
      op->getAttrOfType<StringAttr>("equation").getValue(), ranks);
  if (!eq)
    return eq.takeError();
  auto sizes = eq->loopSizes(shapes);
  if (!sizes)
    return sizes.takeError();
  // Per operand, how far one step of each loop moves in it: the sum of
  // the strides of its dims with that label (a diagonal), 0 where it
  // broadcasts.
  size_t loops = eq->loops.size(), kept = eq->numResultLoops();
  std::vector<SmallVector<int64_t, 6>> step(in.size(),
                                            SmallVector<int64_t, 6>(loops, 0));
  for (auto [k, a] : llvm::enumerate(in)) {
    SmallVector<int64_t, 4> strides = stridesOf(a->shape);
    for (auto [d, label] : llvm::enumerate(eq->operands[k]))
      if (a->shape[d] != 1)
        step[k][eq->loopOf(label)] += strides[d];
  }
  ArrayRef<int64_t> all(*sizes);
  int64_t results = product(all.take_front(kept));
  int64_t summed = product(all.drop_front(kept));
  Array &y = out[0];
  SmallVector<int64_t, 6> index(loops, 0);
  for (int64_t o = 0; o < results; ++o) {
    // The result loops' coordinates of element o (row-major).
    for (int64_t r = static_cast<int64_t>(kept) - 1, rest = o; r >= 0; --r) {
      index[r] = rest % all[r];
      rest /= all[r];
    }
    float sum = 0;
    for (int64_t s = 0; s < summed; ++s) {
      for (int64_t r = static_cast<int64_t>(loops) - 1, rest = s;
           r >= static_cast<int64_t>(kept); --r) {
        index[r] = rest % all[r];
        rest /= all[r];
      }
      float term = 1;
      for (size_t k = 0; k < in.size(); ++k) {
        int64_t offset = 0;
        for (size_t l = 0; l < loops; ++l)
          offset += index[l] * step[k][l];
        term *= in[k]->f[offset];
      }
      sum += term;
    }
    y.f[o] = sum;
  }
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
  sgemm(ta, tb, m, n, k, 1.0f, a.f.data(), ta ? m : k, b.f.data(), tb ? k : n,
        0.0f, y.f.data(), n);
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

/// A convolution's sizes: [N, C, in..] x [M, C/g, k..] -> [N, M, out..].
struct ConvShape {
  Window win;
  int64_t batches, channels, maps, groups, cg, mg;
  int64_t inPlane, outPlane, kSize;
};

Expected<ConvShape> convShape(Operation *op, const Array &x, const Array &w,
                              const Array &y, int64_t inChannels,
                              int64_t outChannels) {
  auto window = slidingWindow(op, x.shape, y.shape,
                              ArrayRef<int64_t>(w.shape).drop_front(2));
  if (!window)
    return window.takeError();
  ConvShape c;
  c.win = *window;
  c.batches = x.shape[0];
  c.channels = inChannels;
  c.maps = outChannels;
  c.groups = intAttr(op, "group", 1);
  if (c.groups < 1 || c.channels % c.groups || c.maps % c.groups)
    return unsupported(op, "group does not divide the channels");
  c.cg = c.channels / c.groups;
  c.mg = c.maps / c.groups;
  const Window &v = c.win;
  c.inPlane = v.in[0] * v.in[1] * v.in[2];
  c.outPlane = v.out[0] * v.out[1] * v.out[2];
  c.kSize = v.kernel[0] * v.kernel[1] * v.kernel[2];
  return c;
}

/// Calls body(kd, kh, kw, offW, lo, hi) for each kernel tap, where output
/// (or, transposed, input) column ow in [lo, hi) meets column ow * stride +
/// offW of the other side.
template <typename Body>
void forEachTap(const Window &win, int64_t columns, int64_t limit, Body body) {
  for (int64_t kd = 0; kd < win.kernel[0]; ++kd)
    for (int64_t kh = 0; kh < win.kernel[1]; ++kh)
      for (int64_t kw = 0; kw < win.kernel[2]; ++kw) {
        int64_t offW = kw * win.dilation[2] - win.padBegin[2];
        auto [lo, hi] = validRange(columns, win.stride[2], offW, limit);
        body(kd, kh, kw, offW, lo, hi);
      }
}

/// Calls body(outRow, inRow) for every output row (od, oh) and the input
/// row (id, ih) that kernel tap (kd, kh) reads for it, both as row indices
/// within a plane; rows that read padding are skipped.
template <typename Body>
void forEachRowPair(const Window &win, int64_t kd, int64_t kh, Body body) {
  for (int64_t od = 0; od < win.out[0]; ++od) {
    int64_t id = od * win.stride[0] - win.padBegin[0] + kd * win.dilation[0];
    if (id < 0 || id >= win.in[0])
      continue;
    for (int64_t oh = 0; oh < win.out[1]; ++oh) {
      int64_t ih = oh * win.stride[1] - win.padBegin[1] + kh * win.dilation[1];
      if (ih < 0 || ih >= win.in[1])
        continue;
      body(od * win.out[1] + oh, id * win.in[1] + ih);
    }
  }
}

/// As forEachRowPair for ConvTranspose, whose window maps input row
/// (id, ih) to output row id * stride - pad + tap * dilation.
template <typename Body>
void forEachTransposedRowPair(const Window &win, int64_t kd, int64_t kh,
                              Body body) {
  for (int64_t id = 0; id < win.in[0]; ++id) {
    int64_t od = id * win.stride[0] - win.padBegin[0] + kd * win.dilation[0];
    if (od < 0 || od >= win.out[0])
      continue;
    for (int64_t ih = 0; ih < win.in[1]; ++ih) {
      int64_t oh = ih * win.stride[1] - win.padBegin[1] + kh * win.dilation[1];
      if (oh < 0 || oh >= win.out[1])
        continue;
      body(od * win.out[1] + oh, id * win.in[1] + ih);
    }
  }
}

/// Calls body(yp, xp, wp) for each output map of each image and each input
/// channel of its group: the planes of y, x and w a direct conv combines.
template <typename Body>
void forEachPlanePair(const ConvShape &c, const Array &x, const Array &w,
                      Array &y, Body body) {
  for (int64_t nb = 0; nb < c.batches; ++nb)
    for (int64_t mo = 0; mo < c.maps; ++mo) {
      float *yp = y.f.data() + (nb * c.maps + mo) * c.outPlane;
      int64_t g = mo / c.mg;
      for (int64_t ci = 0; ci < c.cg; ++ci)
        body(yp, x.f.data() + (nb * c.channels + g * c.cg + ci) * c.inPlane,
             w.f.data() + (mo * c.cg + ci) * c.kSize);
    }
}

/// sum_k a[k] * b[k * strideB] over k in [0, n), in eight independent
/// partial sums (they vectorize where strideB is 1; one running sum would
/// wait on each add).
float dotRow(const float *a, const float *b, int64_t n, int64_t strideB) {
  float acc[8] = {};
  int64_t k = 0;
  if (strideB == 1) {
    for (; k + 8 <= n; k += 8)
      for (int j = 0; j < 8; ++j)
        acc[j] += a[k + j] * b[k + j];
  } else {
    for (; k + 8 <= n; k += 8)
      for (int j = 0; j < 8; ++j)
        acc[j] += a[k + j] * b[(k + j) * strideB];
  }
  for (; k < n; ++k)
    acc[0] += a[k] * b[k * strideB];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) +
         ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/// directConv for output rows shorter than kernel rows (the weight
/// gradients of depthwise convs, whose kernel is the forward's output
/// plane): per output position, one dot product along each kernel row.
/// Accumulates into y (zeroed).
void directConvByPosition(const ConvShape &c, const Array &x, const Array &w,
                          Array &y) {
  const Window &win = c.win;
  forEachPlanePair(
      c, x, w, y, [&](float *yp, const float *xp, const float *wp) {
        for (int64_t od = 0; od < win.out[0]; ++od)
          for (int64_t oh = 0; oh < win.out[1]; ++oh)
            for (int64_t ow = 0; ow < win.out[2]; ++ow) {
              int64_t baseW = ow * win.stride[2] - win.padBegin[2];
              auto [lo, hi] =
                  validRange(win.kernel[2], win.dilation[2], baseW, win.in[2]);
              float sum = 0;
              for (int64_t kd = 0; kd < win.kernel[0]; ++kd) {
                int64_t id =
                    od * win.stride[0] - win.padBegin[0] + kd * win.dilation[0];
                if (id < 0 || id >= win.in[0])
                  continue;
                for (int64_t kh = 0; kh < win.kernel[1]; ++kh) {
                  int64_t ih = oh * win.stride[1] - win.padBegin[1] +
                               kh * win.dilation[1];
                  if (ih < 0 || ih >= win.in[1] || lo >= hi)
                    continue;
                  const float *xrow = xp + (id * win.in[1] + ih) * win.in[2] +
                                      baseW + lo * win.dilation[2];
                  const float *wrow =
                      wp + (kd * win.kernel[1] + kh) * win.kernel[2] + lo;
                  sum += dotRow(wrow, xrow, hi - lo, win.dilation[2]);
                }
              }
              yp[(od * win.out[1] + oh) * win.out[2] + ow] += sum;
            }
      });
}

/// Conv with few products per output (depthwise): direct loops, the
/// innermost over a contiguous output row. Accumulates into y (zeroed).
void directConv(const ConvShape &c, const Array &x, const Array &w, Array &y) {
  const Window &win = c.win;
  forEachPlanePair(
      c, x, w, y, [&](float *yp, const float *xp, const float *wp) {
        forEachTap(
            win, win.out[2], win.in[2],
            [&](int64_t kd, int64_t kh, int64_t kw, int64_t offW, int64_t lo,
                int64_t hi) {
              float wv = wp[(kd * win.kernel[1] + kh) * win.kernel[2] + kw];
              int64_t s = win.stride[2];
              forEachRowPair(win, kd, kh, [&](int64_t outRow, int64_t inRow) {
                float *yrow = yp + outRow * win.out[2];
                const float *xrow = xp + inRow * win.in[2];
                if (s == 1)
                  for (int64_t ow = lo; ow < hi; ++ow)
                    yrow[ow] += wv * xrow[ow + offW];
                else
                  for (int64_t ow = lo; ow < hi; ++ow)
                    yrow[ow] += wv * xrow[ow * s + offW];
              });
            });
      });
}

/// Group g's output maps of images [n0, n0 + images) as W_g x col, where
/// col is [C/g * k, images * outPlane] or, `transposed`, its transpose;
/// `product` is scratch.
void multiplyColumns(const ConvShape &c, const Array &w, int64_t g,
                     const float *col, bool transposed, int64_t n0,
                     int64_t images, std::vector<float> &product, Array &y) {
  int64_t rows = c.cg * c.kSize, cols = images * c.outPlane;
  const float *wg = w.f.data() + g * c.mg * rows;
  if (transposed && c.groups == 1) {
    // product^T = colT x W^T: oneDNN runs this form 1.3-2.4x faster than
    // W x colT^T at these shapes (few outputs, long sums). With one group
    // it goes straight into y's rows of these images, [outPlane, maps] per
    // image, each then transposed in place through a copy that stays in
    // cache (a product buffer the size of y cost its page faults and a
    // strided pass over it: resnet18's weight gradients).
    float *dst = y.f.data() + n0 * c.maps * c.outPlane;
    sgemm(false, true, cols, c.mg, rows, 1.0f, col, rows, wg, rows, 0.0f, dst,
          c.mg);
    product.resize(c.outPlane * c.mg);
    for (int64_t b = 0; b < images; ++b) {
      float *image = dst + b * c.outPlane * c.mg;
      std::copy_n(image, c.outPlane * c.mg, product.data());
      for (int64_t m = 0; m < c.mg; ++m)
        for (int64_t p = 0; p < c.outPlane; ++p)
          image[m * c.outPlane + p] = product[p * c.mg + m];
    }
    return;
  }
  if (transposed) {
    product.resize(cols * c.mg);
    sgemm(false, true, cols, c.mg, rows, 1.0f, col, rows, wg, rows, 0.0f,
          product.data(), c.mg);
    for (int64_t b = 0; b < images; ++b)
      for (int64_t m = 0; m < c.mg; ++m) {
        float *dst =
            y.f.data() + ((n0 + b) * c.maps + g * c.mg + m) * c.outPlane;
        for (int64_t p = 0; p < c.outPlane; ++p)
          dst[p] = product[(b * c.outPlane + p) * c.mg + m];
      }
    return;
  }
  int64_t ldCol = cols;
  if (images == 1) { // straight into y: rows of outPlane
    sgemm(false, false, c.mg, cols, rows, 1.0f, wg, rows, col, ldCol, 0.0f,
          y.f.data() + (n0 * c.maps + g * c.mg) * c.outPlane, c.outPlane);
    return;
  }
  product.resize(c.mg * cols);
  sgemm(false, false, c.mg, cols, rows, 1.0f, wg, rows, col, ldCol, 0.0f,
        product.data(), cols);
  for (int64_t m = 0; m < c.mg; ++m)
    for (int64_t b = 0; b < images; ++b)
      std::copy_n(product.data() + m * cols + b * c.outPlane, c.outPlane,
                  y.f.data() + ((n0 + b) * c.maps + g * c.mg + m) * c.outPlane);
}

/// Conv as GEMM: for each chunk of images and each group, the column
/// matrix col[C/g * k, images * outPlane] (row (c, taps) as the weights are
/// laid out, zeros where the window reads padding) times W[M/g, C/g * k].
/// Every element of col is written (the zeros too), so it is never cleared.
void gemmConv(const ConvShape &c, const Array &x, const Array &w, Array &y) {
  const Window &win = c.win;
  int64_t rows = c.cg * c.kSize;
  int64_t chunk = imagesPerChunk(c.batches, rows, c.outPlane);
  std::unique_ptr<float[]> col(new float[rows * chunk * c.outPlane]);
  std::vector<float> product;
  int64_t width = win.out[2];
  for (int64_t n0 = 0; n0 < c.batches; n0 += chunk) {
    int64_t images = std::min(chunk, c.batches - n0);
    int64_t cols = images * c.outPlane;
    for (int64_t g = 0; g < c.groups; ++g) {
      for (int64_t b = 0; b < images; ++b)
        for (int64_t ci = 0; ci < c.cg; ++ci) {
          const float *xp =
              x.f.data() + ((n0 + b) * c.channels + g * c.cg + ci) * c.inPlane;
          forEachTap(
              win, width, win.in[2],
              [&](int64_t kd, int64_t kh, int64_t kw, int64_t offW, int64_t lo,
                  int64_t hi) {
                int64_t row = ci * c.kSize +
                              (kd * win.kernel[1] + kh) * win.kernel[2] + kw;
                float *cp = col.get() + row * cols + b * c.outPlane;
                int64_t s = win.stride[2];
                for (int64_t od = 0; od < win.out[0]; ++od) {
                  int64_t id = od * win.stride[0] - win.padBegin[0] +
                               kd * win.dilation[0];
                  for (int64_t oh = 0; oh < win.out[1]; ++oh) {
                    int64_t ih = oh * win.stride[1] - win.padBegin[1] +
                                 kh * win.dilation[1];
                    float *crow = cp + (od * win.out[1] + oh) * width;
                    if (id < 0 || id >= win.in[0] || ih < 0 ||
                        ih >= win.in[1] || lo >= hi) {
                      std::fill(crow, crow + width, 0.0f);
                      continue;
                    }
                    const float *xrow = xp + (id * win.in[1] + ih) * win.in[2];
                    std::fill(crow, crow + lo, 0.0f);
                    if (s == 1)
                      std::copy(xrow + lo + offW, xrow + hi + offW, crow + lo);
                    else
                      for (int64_t ow = lo; ow < hi; ++ow)
                        crow[ow] = xrow[ow * s + offW];
                    std::fill(crow + hi, crow + width, 0.0f);
                  }
                }
              });
        }
      multiplyColumns(c, w, g, col.get(), /*transposed=*/false, n0, images,
                      product, y);
    }
  }
}

/// Conv as GEMM with the columns transposed: row (image, output position)
/// of colT holds that position's receptive field, (c, taps) as the weights
/// are laid out, so copies run along kernel rows. For few output positions
/// and large kernels (the weight gradient's conv, whose kernel is the
/// forward's output plane), where gemmConv would copy rows of a few
/// elements per tap.
void gemmConvByPosition(const ConvShape &c, const Array &x, const Array &w,
                        Array &y) {
  const Window &win = c.win;
  int64_t rows = c.cg * c.kSize;
  int64_t chunk = imagesPerChunk(c.batches, rows, c.outPlane);
  // Written whole (zeros where a tap reads padding), never cleared.
  std::unique_ptr<float[]> colT(new float[chunk * c.outPlane * rows]);
  std::vector<float> product;
  int64_t kRow = win.kernel[2], kPlane = win.kernel[1] * win.kernel[2];
  for (int64_t n0 = 0; n0 < c.batches; n0 += chunk) {
    int64_t images = std::min(chunk, c.batches - n0);
    for (int64_t g = 0; g < c.groups; ++g) {
      for (int64_t b = 0; b < images; ++b)
        for (int64_t od = 0; od < win.out[0]; ++od)
          for (int64_t oh = 0; oh < win.out[1]; ++oh)
            for (int64_t ow = 0; ow < win.out[2]; ++ow) {
              int64_t position = (od * win.out[1] + oh) * win.out[2] + ow;
              float *field = colT.get() + (b * c.outPlane + position) * rows;
              int64_t offW = ow * win.stride[2] - win.padBegin[2];
              auto [lo, hi] =
                  validRange(win.kernel[2], win.dilation[2], offW, win.in[2]);
              lo = std::min(lo, kRow);
              hi = std::max(lo, std::min(hi, kRow));
              for (int64_t ci = 0; ci < c.cg; ++ci) {
                const float *xp =
                    x.f.data() +
                    ((n0 + b) * c.channels + g * c.cg + ci) * c.inPlane;
                for (int64_t kd = 0; kd < win.kernel[0]; ++kd) {
                  float *plane = field + ci * c.kSize + kd * kPlane;
                  int64_t id = od * win.stride[0] - win.padBegin[0] +
                               kd * win.dilation[0];
                  if (id < 0 || id >= win.in[0]) {
                    std::fill(plane, plane + kPlane, 0.0f);
                    continue;
                  }
                  for (int64_t kh = 0; kh < win.kernel[1]; ++kh) {
                    float *dst = plane + kh * kRow;
                    int64_t ih = oh * win.stride[1] - win.padBegin[1] +
                                 kh * win.dilation[1];
                    if (ih < 0 || ih >= win.in[1]) {
                      std::fill(dst, dst + kRow, 0.0f);
                      continue;
                    }
                    const float *xrow =
                        xp + (id * win.in[1] + ih) * win.in[2] + offW;
                    int64_t step = win.dilation[2];
                    std::fill(dst, dst + lo, 0.0f);
                    for (int64_t kw = lo; kw < hi; ++kw)
                      dst[kw] = xrow[kw * step];
                    std::fill(dst + hi, dst + kRow, 0.0f);
                  }
                }
              }
            }
      multiplyColumns(c, w, g, colT.get(), /*transposed=*/true, n0, images,
                      product, y);
    }
  }
}

Error evalConv(Operation *op, ArrayRef<const Array *> in,
               MutableArrayRef<Array> out) {
  const Array &x = *in[0], &w = *in[1];
  const Array *bias = in.size() > 2 ? in[2] : nullptr;
  Array &y = out[0];
  auto shape = convShape(op, x, w, y, x.shape[1], y.shape[1]);
  if (!shape)
    return shape.takeError();
  // A GEMM pays off once each output sums enough products for enough maps
  // (it writes every output; the direct loops accumulate into zeros).
  // Output rows shorter than kernel rows: gather along the kernel instead.
  if (shape->cg * shape->kSize >= 8 && shape->mg >= 4 &&
      shape->win.out[2] < shape->win.kernel[2]) {
    gemmConvByPosition(*shape, x, w, y);
  } else if (shape->cg * shape->kSize >= 8 && shape->mg >= 4) {
    if (!dnnlConv(x.rank() - 2, shape->batches, shape->channels, shape->maps,
                  shape->groups, shape->win, x.f.data(), w.f.data(),
                  y.f.data()))
      gemmConv(*shape, x, w, y);
  } else {
    std::fill(y.f.begin(), y.f.end(), 0.0f);
    if (shape->win.out[2] < shape->win.kernel[2])
      directConvByPosition(*shape, x, w, y);
    else
      directConv(*shape, x, w, y);
  }
  addBias(bias, y, shape->maps, shape->outPlane);
  return Error::success();
}

/// ConvTranspose's padding: its own rule when output_shape or SAME
/// auto_pad sets it, floor division as ONNX's reference (an output_shape
/// one short of the full size gives total -1 and no begin padding).
void transposedPadding(Operation *op, int64_t spatial, Window &win) {
  SmallVector<int64_t, 4> outPad = intsAttr(op, "output_padding", spatial, 0);
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  if (!op->hasAttr("output_shape") &&
      !(autoPad && autoPad.getValue().starts_with("SAME")))
    return;
  for (int64_t d = 0, shift = 3 - spatial; d < spatial; ++d) {
    int64_t k = shift + d;
    int64_t total = win.stride[k] * (win.in[k] - 1) + outPad[d] +
                    (win.kernel[k] - 1) * win.dilation[k] + 1 - win.out[k];
    int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
    win.padBegin[k] =
        autoPad && autoPad.getValue() == "SAME_UPPER" ? half : total - half;
  }
}

/// Adds column (m, taps) x (image, input position) of `col` to the output
/// positions its taps reach (col2im).
void scatterColumns(const ConvShape &c, const float *col, int64_t cols,
                    int64_t n0, int64_t images, int64_t g, Array &y) {
  const Window &win = c.win;
  for (int64_t b = 0; b < images; ++b)
    for (int64_t m = 0; m < c.mg; ++m) {
      float *yp = y.f.data() + ((n0 + b) * c.maps + g * c.mg + m) * c.outPlane;
      forEachTap(win, win.in[2], win.out[2],
                 [&](int64_t kd, int64_t kh, int64_t kw, int64_t offW,
                     int64_t lo, int64_t hi) {
                   int64_t row = m * c.kSize +
                                 (kd * win.kernel[1] + kh) * win.kernel[2] + kw;
                   const float *cp = col + row * cols + b * c.inPlane;
                   forEachTransposedRowPair(
                       win, kd, kh, [&](int64_t outRow, int64_t inRow) {
                         float *yrow = yp + outRow * win.out[2];
                         const float *crow = cp + inRow * win.in[2];
                         for (int64_t iw = lo; iw < hi; ++iw)
                           yrow[iw * win.stride[2] + offW] += crow[iw];
                       });
                 });
    }
}

/// ConvTranspose as GEMM: col[M/g * k, images * inPlane] = W_g^T x X_g
/// (W is [C, M/g, k..]), then col2im.
void gemmConvTranspose(const ConvShape &c, const Array &x, const Array &w,
                       Array &y) {
  int64_t rows = c.mg * c.kSize;
  int64_t chunk = imagesPerChunk(c.batches, std::max(rows, c.cg), c.inPlane);
  std::vector<float> col, gathered;
  // Small weights go in as W_g^T [M/g * k, C/g], made once: oneDNN's
  // threaded transposed-A product ran 2.4x slower than the plain one at
  // digits_cnn's input gradient (144 x 4096 x 32); at resnet18's sizes it
  // is as fast, and the transpose would cost more than it saves.
  bool transposeW = rows * c.cg <= (int64_t(1) << 16);
  std::vector<float> wt;
  if (transposeW) {
    wt.resize(c.groups * rows * c.cg);
    for (int64_t g = 0; g < c.groups; ++g)
      for (int64_t ci = 0; ci < c.cg; ++ci)
        for (int64_t r = 0; r < rows; ++r)
          wt[(g * rows + r) * c.cg + ci] = w.f[(g * c.cg + ci) * rows + r];
  }
  for (int64_t n0 = 0; n0 < c.batches; n0 += chunk) {
    int64_t images = std::min(chunk, c.batches - n0);
    int64_t cols = images * c.inPlane;
    col.resize(rows * cols);
    for (int64_t g = 0; g < c.groups; ++g) {
      const float *xg = x.f.data() + (n0 * c.channels + g * c.cg) * c.inPlane;
      int64_t ldx = c.inPlane;
      if (images > 1) { // X_g as [C/g, images * inPlane]
        gathered.resize(c.cg * cols);
        for (int64_t ci = 0; ci < c.cg; ++ci)
          for (int64_t b = 0; b < images; ++b)
            std::copy_n(x.f.data() +
                            ((n0 + b) * c.channels + g * c.cg + ci) * c.inPlane,
                        c.inPlane, gathered.data() + ci * cols + b * c.inPlane);
        xg = gathered.data();
        ldx = cols;
      }
      if (transposeW)
        sgemm(false, false, rows, cols, c.cg, 1.0f, wt.data() + g * rows * c.cg,
              c.cg, xg, ldx, 0.0f, col.data(), cols);
      else
        sgemm(true, false, rows, cols, c.cg, 1.0f, w.f.data() + g * c.cg * rows,
              rows, xg, ldx, 0.0f, col.data(), cols);
      scatterColumns(c, col.data(), cols, n0, images, g, y);
    }
  }
}

/// ConvTranspose with few products per input (depthwise): direct loops.
void directConvTranspose(const ConvShape &c, const Array &x, const Array &w,
                         Array &y) {
  const Window &win = c.win;
  for (int64_t nb = 0; nb < c.batches; ++nb)
    for (int64_t mo = 0; mo < c.maps; ++mo) {
      float *yp = y.f.data() + (nb * c.maps + mo) * c.outPlane;
      int64_t g = mo / c.mg, m = mo % c.mg;
      for (int64_t ci0 = 0; ci0 < c.cg; ++ci0) {
        int64_t ci = g * c.cg + ci0;
        const float *xp = x.f.data() + (nb * c.channels + ci) * c.inPlane;
        const float *wp = w.f.data() + (ci * c.mg + m) * c.kSize;
        forEachTap(win, win.in[2], win.out[2],
                   [&](int64_t kd, int64_t kh, int64_t kw, int64_t offW,
                       int64_t lo, int64_t hi) {
                     float wv =
                         wp[(kd * win.kernel[1] + kh) * win.kernel[2] + kw];
                     forEachTransposedRowPair(
                         win, kd, kh, [&](int64_t outRow, int64_t inRow) {
                           float *yrow = yp + outRow * win.out[2];
                           const float *xrow = xp + inRow * win.in[2];
                           for (int64_t iw = lo; iw < hi; ++iw)
                             yrow[iw * win.stride[2] + offW] += wv * xrow[iw];
                         });
                   });
      }
    }
}

Error evalConvTranspose(Operation *op, ArrayRef<const Array *> in,
                        MutableArrayRef<Array> out) {
  const Array &x = *in[0], &w = *in[1];
  const Array *bias = in.size() > 2 ? in[2] : nullptr;
  Array &y = out[0];
  int64_t spatial = x.rank() - 2;
  if (spatial < 1 || spatial > 3)
    return unsupported(op, "spatial rank outside 1..3");
  // The window from output to input, as for Conv.
  auto shape = convShape(op, x, w, y, x.shape[1], y.shape[1]);
  if (!shape)
    return shape.takeError();
  transposedPadding(op, spatial, shape->win);
  if (shape->cg >= 4 && shape->mg * shape->kSize >= 4 &&
      dnnlConvTranspose(spatial, shape->batches, shape->channels, shape->maps,
                        shape->groups, shape->win, x.f.data(), w.f.data(),
                        y.f.data())) {
    // oneDNN wrote every element.
  } else if (shape->cg >= 4 && shape->mg * shape->kSize >= 4) {
    std::fill(y.f.begin(), y.f.end(), 0.0f);
    gemmConvTranspose(*shape, x, w, y);
  } else {
    std::fill(y.f.begin(), y.f.end(), 0.0f);
    directConvTranspose(*shape, x, w, y);
  }
  addBias(bias, y, shape->maps, shape->outPlane);
  return Error::success();
}
} // namespace

void addContractionKernels(KernelTable &table) {
  table["dsmp.matmul"] = evalMatMul;
  table["dsmp.gemm"] = evalGemm;
  table["dsmp.einsum"] = evalEinsum;
  table["dsmp.conv"] = KernelEntry(evalConv, Writes::all);
  table["dsmp.conv_transpose"] = evalConvTranspose;
}

} // namespace mlir::dsmp::eval
