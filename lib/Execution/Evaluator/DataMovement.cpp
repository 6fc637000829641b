//===- DataMovement.cpp - Evaluator kernels: shapes and copies -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Ops that only move elements. Result shapes come from the (static)
// result types, so Reshape and friends copy, and Slice/Pad/Tile only need
// the source coordinate of each output coordinate, per dim.
//
//===----------------------------------------------------------------------===//

#include "Array.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <cstring>
#include <numeric>

using llvm::ArrayRef;
using llvm::Error;
using llvm::MutableArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace mlir::dsmp::eval {
namespace {

/// dst[coord] = src[sum_d offsets[d][coord_d]], or `fill` where any
/// offsets[d][coord_d] is negative; `shape` is dst's (or a collapsed view of
/// it with the same element count).
void copyPerDim(const Array &src, Array &dst, ArrayRef<int64_t> shape,
                const std::vector<std::vector<int64_t>> &offsets, double fill) {
  int64_t total = dst.size();
  int rank = shape.size();
  if (rank == 0) {
    if (total)
      dst.copyFrom(src, 0, 0);
    return;
  }
  int64_t inner = shape[rank - 1];
  if (total == 0 || inner == 0)
    return;
  // Row by row: the outer dims' offset once, then the innermost dim.
  const std::vector<int64_t> &last = offsets[rank - 1];
  // A row read in order from consecutive elements (Slice with step 1 on the
  // last dim, Pad's interior) is one block copy.
  bool consecutive = last[0] >= 0;
  for (int64_t j = 1; j < inner && consecutive; ++j)
    consecutive = last[j] == last[0] + j;
  auto copyRow = [&](auto *out, const auto *in, int64_t base, bool inside,
                     auto filler) {
    if (!inside) {
      std::fill(out, out + inner, filler);
      return;
    }
    if (consecutive) {
      std::copy(in + base + last[0], in + base + last[0] + inner, out);
      return;
    }
    for (int64_t j = 0; j < inner; ++j)
      out[j] = last[j] >= 0 ? in[base + last[j]] : filler;
  };
  SmallVector<int64_t, 4> counter(rank, 0);
  for (int64_t row = 0; row < total / inner; ++row) {
    int64_t base = 0;
    bool inside = true;
    for (int d = 0; d + 1 < rank; ++d) {
      int64_t off = offsets[d][counter[d]];
      inside &= off >= 0;
      base += off;
    }
    if (dst.isFloat)
      copyRow(dst.f.data() + row * inner, src.f.data(), base, inside,
              float(fill));
    else
      copyRow(dst.i.data() + row * inner, src.i.data(), base, inside,
              int64_t(fill));
    for (int d = rank - 2; d >= 0; --d) {
      if (++counter[d] < shape[d])
        break;
      counter[d] = 0;
    }
  }
}

Error evalCopy(Operation *, ArrayRef<const Array *> in,
               MutableArrayRef<Array> out) {
  out[0].f = in[0]->f;
  out[0].i = in[0]->i;
  return Error::success();
}

Error evalTranspose(Operation *op, ArrayRef<const Array *> in,
                    MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  SmallVector<int64_t, 4> perm;
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("perm"))
    perm.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  else
    for (int64_t d = x.rank() - 1; d >= 0; --d)
      perm.push_back(d);
  // Moving only size-1 dims keeps the element order (the adjoint's
  // transposes of batch-1 tensors): a copy.
  SmallVector<int64_t, 4> moved;
  for (int64_t p : perm)
    if (x.shape[p] != 1)
      moved.push_back(p);
  if (llvm::is_sorted(moved))
    return evalCopy(op, in, out);
  // Trailing dims that stay in place move as contiguous blocks.
  int64_t rank = x.rank(), kept = 0, block = 1;
  while (kept < rank && perm[rank - 1 - kept] == rank - 1 - kept) {
    block *= x.shape[rank - 1 - kept];
    ++kept;
  }
  SmallVector<int64_t, 4> own = stridesOf(x.shape), strides;
  for (int64_t p : perm)
    strides.push_back(own[p]);
  if (x.isFloat && kept > 0 && block > 1) {
    SmallVector<int64_t, 4> outer(out[0].shape.begin(),
                                  out[0].shape.end() - kept);
    strides.resize(rank - kept);
    const float *src = x.f.data();
    float *dst = out[0].f.data();
    int64_t o = 0;
    stridedLoop<1>(outer, {strides}, {0},
                   [&](int64_t, const std::array<int64_t, 1> &idx) {
                     std::memcpy(dst + o, src + idx[0], block * sizeof(float));
                     o += block;
                   });
    return Error::success();
  }
  stridedLoop<1>(out[0].shape, {strides}, {0},
                 [&](int64_t o, const std::array<int64_t, 1> &idx) {
                   out[0].copyFrom(x, idx[0], o);
                 });
  return Error::success();
}

Error evalExpand(Operation *, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  stridedLoop<1>(out[0].shape, {broadcastStrides(x.shape, out[0].shape)}, {0},
                 [&](int64_t o, const std::array<int64_t, 1> &idx) {
                   out[0].copyFrom(x, idx[0], o);
                 });
  return Error::success();
}

Error evalConcat(Operation *op, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  Array &y = out[0];
  int64_t axis = normalizeAxis(intAttr(op, "axis", 0), y.rank());
  int64_t outer = product(ArrayRef<int64_t>(y.shape).take_front(axis));
  int64_t inner = product(ArrayRef<int64_t>(y.shape).drop_front(axis + 1));
  int64_t rowOut = y.shape[axis] * inner, offset = 0;
  for (const Array *x : in) {
    if (!x)
      continue;
    int64_t row = x->rank() ? x->shape[axis] * inner : 0;
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t k = 0; k < row; ++k)
        y.copyFrom(*x, a * row + k, a * rowOut + offset + k);
    offset += row;
  }
  return Error::success();
}

Error evalSplit(Operation *op, ArrayRef<const Array *> in,
                MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  int64_t axis = normalizeAxis(intAttr(op, "axis", 0), x.rank());
  int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(axis));
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  int64_t rowIn = x.shape[axis] * inner, offset = 0;
  for (Array &y : out) {
    int64_t row = y.shape[axis] * inner;
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t k = 0; k < row; ++k)
        y.copyFrom(x, a * rowIn + offset + k, a * row + k);
    offset += row;
  }
  return Error::success();
}

Error evalSlice(Operation *op, ArrayRef<const Array *> in,
                MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  int64_t rank = x.rank();
  SmallVector<int64_t, 4> start(rank, 0), step(rank, 1);
  size_t count = in[1]->i.size();
  for (size_t k = 0; k < count; ++k) {
    int64_t axis = in[3] ? normalizeAxis(in[3]->i[k], rank) : int64_t(k);
    int64_t s = in[4] ? in[4]->i[k] : 1;
    int64_t dim = x.shape[axis], b = in[1]->i[k];
    if (b < 0)
      b += dim;
    b = s > 0 ? std::clamp<int64_t>(b, 0, dim)
              : std::clamp<int64_t>(b, 0, dim - 1);
    start[axis] = b;
    step[axis] = s;
  }
  // Trailing dims taken whole join the last one that is not: their
  // elements are consecutive (the weight gradients' crops of [C, M, 3, 3]
  // went row by row, three floats at a time).
  int64_t whole = 0, block = 1;
  while (whole < rank && start[rank - 1 - whole] == 0 &&
         step[rank - 1 - whole] == 1 &&
         y.shape[rank - 1 - whole] == x.shape[rank - 1 - whole]) {
    block *= x.shape[rank - 1 - whole];
    ++whole;
  }
  if (whole == rank)
    return evalCopy(op, in, out);
  SmallVector<int64_t, 4> own = stridesOf(x.shape);
  int64_t kept = rank - whole; // dims of the view; the last absorbs `block`
  SmallVector<int64_t, 4> view(y.shape.begin(), y.shape.begin() + kept);
  view.back() *= block;
  std::vector<std::vector<int64_t>> offsets(kept);
  for (int64_t d = 0; d < kept; ++d) {
    int64_t inner = d + 1 == kept ? block : 1;
    for (int64_t o = 0; o < view[d]; ++o)
      offsets[d].push_back((start[d] + (o / inner) * step[d]) * own[d] +
                           o % inner);
  }
  copyPerDim(x, y, view, offsets, 0);
  return Error::success();
}

Error evalTrilu(Operation *op, ArrayRef<const Array *> in,
                MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  int64_t k = in.size() > 1 && in[1] && !in[1]->i.empty() ? in[1]->i[0] : 0;
  bool upper = intAttr(op, "upper", 1) != 0;
  int64_t rows = x.shape[x.rank() - 2], cols = x.shape[x.rank() - 1];
  int64_t total = product(x.shape);
  for (int64_t e = 0; e < total; ++e) {
    int64_t j = e % cols, i = (e / cols) % rows;
    bool keep = upper ? j - i >= k : j - i <= k;
    if (keep)
      y.copyFrom(x, e, e);
    else if (y.isFloat)
      y.f[e] = 0;
    else
      y.i[e] = 0;
  }
  return Error::success();
}

/// GatherND: each index tuple (the last dim of `indices`, negative from
/// the back) names a slice of data after the batch dims; the slices in
/// indices' order.
Error evalGatherND(Operation *op, ArrayRef<const Array *> in,
                   MutableArrayRef<Array> out) {
  const Array &data = *in[0], &indices = *in[1];
  Array &y = out[0];
  int64_t batch = intAttr(op, "batch_dims", 0);
  if (indices.rank() < 1)
    return unsupported(op, "indices of rank 0");
  int64_t m = indices.shape.back();
  if (batch < 0 || batch + m > data.rank())
    return unsupported(op, "index tuples longer than data's rank");
  ArrayRef<int64_t> dims(data.shape);
  int64_t slice = product(dims.drop_front(batch + m));
  int64_t perBatch = product(dims.drop_front(batch));
  int64_t batches = product(dims.take_front(batch));
  int64_t tuples = indices.size() / std::max<int64_t>(m, 1);
  int64_t tuplesPerBatch = batches > 0 ? tuples / batches : 0;
  SmallVector<int64_t, 4> strides = stridesOf(dims.drop_front(batch));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = (tuplesPerBatch ? t / tuplesPerBatch : 0) * perBatch;
    for (int64_t k = 0; k < m; ++k) {
      int64_t index = indices.i[t * m + k];
      int64_t size = dims[batch + k];
      if (index < 0)
        index += size;
      if (index < 0 || index >= size)
        return unsupported(op, "an index out of range");
      offset += index * strides[k];
    }
    for (int64_t e = 0; e < slice; ++e)
      y.copyFrom(data, offset + e, t * slice + e);
  }
  return Error::success();
}

/// GridSample's geometry along one axis of `size` pixels: the border
/// ([0, size-1] with align_corners, else [-0.5, size-0.5]), a coordinate
/// reflected into it, and the pixel a tap at integer `i` reads (-1: none,
/// a zero).
struct GridAxis {
  int64_t size;
  bool align;
  StringRef padding;
  double lo() const { return align ? 0 : -0.5; }
  double hi() const { return align ? size - 1 : size - 0.5; }
  double reflect(double x) const {
    double range = hi() - lo();
    if (range <= 0)
      return 0;
    if (x < lo()) {
      double dx = lo() - x;
      int64_t n = static_cast<int64_t>(dx / range);
      double r = dx - n * range;
      return n % 2 == 0 ? lo() + r : hi() - r;
    }
    if (x > hi()) {
      double dx = x - hi();
      int64_t n = static_cast<int64_t>(dx / range);
      double r = dx - n * range;
      return n % 2 == 0 ? hi() - r : lo() + r;
    }
    return x;
  }
  int64_t tap(int64_t i) const {
    if (padding == "zeros")
      return i >= 0 && i < size ? i : -1;
    if (padding == "reflection")
      i = static_cast<int64_t>(reflect(static_cast<double>(i)));
    return std::clamp<int64_t>(i, 0, size - 1);
  }
};

/// GridSample (bilinear, nearest): X [N, C, H, W] read at each grid point
/// of [N, Ho, Wo, 2] (x then y), as onnxruntime computes it.
Error evalGridSample(Operation *op, ArrayRef<const Array *> in,
                     MutableArrayRef<Array> out) {
  const Array &x = *in[0], &grid = *in[1];
  Array &y = out[0];
  StringRef mode = op->getAttrOfType<StringAttr>("mode").getValue();
  if (mode != "bilinear" && mode != "nearest")
    return unsupported(op, "mode " + mode);
  bool align = intAttr(op, "align_corners", 0) != 0;
  StringRef padding = op->getAttrOfType<StringAttr>("padding_mode").getValue();
  int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  int64_t ho = grid.shape[1], wo = grid.shape[2];
  GridAxis ax{w, align, padding}, ay{h, align, padding};
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < ho; ++i)
      for (int64_t j = 0; j < wo; ++j) {
        const float *g = grid.f.data() + ((b * ho + i) * wo + j) * 2;
        double px =
            align ? (g[0] + 1.0) / 2 * (w - 1) : ((g[0] + 1.0) * w - 1) / 2;
        double py =
            align ? (g[1] + 1.0) / 2 * (h - 1) : ((g[1] + 1.0) * h - 1) / 2;
        if (mode == "nearest") {
          px = std::nearbyint(px);
          py = std::nearbyint(py);
        }
        if (padding != "zeros") {
          px = padding == "border" ? std::clamp(px, ax.lo(), ax.hi())
                                   : ax.reflect(px);
          py = padding == "border" ? std::clamp(py, ay.lo(), ay.hi())
                                   : ay.reflect(py);
        }
        for (int64_t ch = 0; ch < c; ++ch) {
          const float *plane = x.f.data() + (b * c + ch) * h * w;
          auto at = [&](int64_t r, int64_t q) -> double {
            int64_t tr = ay.tap(r), tq = ax.tap(q);
            return tr < 0 || tq < 0 ? 0.0 : plane[tr * w + tq];
          };
          double v;
          if (mode == "nearest") {
            v = at(static_cast<int64_t>(py), static_cast<int64_t>(px));
          } else {
            int64_t x0 = static_cast<int64_t>(std::floor(px));
            int64_t y0 = static_cast<int64_t>(std::floor(py));
            double dx = px - x0, dy = py - y0;
            v = (1 - dy) * ((1 - dx) * at(y0, x0) + dx * at(y0, x0 + 1)) +
                dy * ((1 - dx) * at(y0 + 1, x0) + dx * at(y0 + 1, x0 + 1));
          }
          y.f[((b * c + ch) * ho + i) * wo + j] = static_cast<float>(v);
        }
      }
  return Error::success();
}

/// TopK: per slice along the axis, the k largest (smallest) values, sorted,
/// equal values in index order, with their indices.
Error evalTopK(Operation *op, ArrayRef<const Array *> in,
               MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &values = out[0], &indices = out[1];
  int64_t axis = normalizeAxis(intAttr(op, "axis", -1), x.rank());
  bool largest = intAttr(op, "largest", 1) != 0;
  int64_t n = x.shape[axis], k = values.shape[axis];
  if (k > n)
    return unsupported(op, "k larger than the axis");
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(axis));
  std::vector<int64_t> order(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return x.at((o * n + j) * inner + i); };
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return largest ? at(a) > at(b) : at(a) < at(b);
      });
      for (int64_t j = 0; j < k; ++j) {
        int64_t to = (o * k + j) * inner + i;
        values.copyFrom(x, (o * n + order[j]) * inner + i, to);
        indices.i[to] = order[j];
      }
    }
  return Error::success();
}

/// OneHot: values[1] where the index (negative: from depth; float:
/// truncated) names the position along `axis`, else values[0].
Error evalOneHot(Operation *op, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  const Array &indices = *in[0], &values = *in[2];
  Array &y = out[0];
  if (values.size() != 2)
    return unsupported(op, "values with other than two elements");
  int64_t axis = normalizeAxis(intAttr(op, "axis", -1), y.rank());
  if (axis < 0 || axis >= y.rank())
    return unsupported(op, "an axis outside the result's rank");
  int64_t depth = y.shape[axis];
  int64_t outer = product(ArrayRef<int64_t>(y.shape).take_front(axis));
  int64_t inner = product(ArrayRef<int64_t>(y.shape).drop_front(axis + 1));
  if (indices.size() != outer * inner)
    return unsupported(op, "indices that do not match the result's shape");
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      int64_t at = o * inner + j;
      int64_t index = indices.isFloat
                          ? static_cast<int64_t>(std::trunc(indices.f[at]))
                          : indices.i[at];
      if (index < 0)
        index += depth;
      for (int64_t k = 0; k < depth; ++k)
        y.copyFrom(values, k == index ? 1 : 0, (o * depth + k) * inner + j);
    }
  return Error::success();
}

/// DepthToSpace (DCR, CRD) and SpaceToDepth on [N, C, H, W], element by
/// element from the output's position.
Error evalDepthToSpace(Operation *op, ArrayRef<const Array *> in,
                       MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  if (x.rank() != 4)
    return unsupported(op, "input of rank other than 4");
  int64_t b = intAttr(op, "blocksize", 1);
  bool toSpace = op->getName().stripDialect() == "depth_to_space";
  auto mode = op->getAttrOfType<StringAttr>("mode");
  bool crd = mode && mode.getValue() == "CRD";
  int64_t n = y.shape[0], c = y.shape[1], h = y.shape[2], w = y.shape[3];
  int64_t xc = x.shape[1], xh = x.shape[2], xw = x.shape[3];
  for (int64_t in0 = 0; in0 < n; ++in0)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw) {
          int64_t sc, sh, sw;
          if (toSpace) { // y [N, C/b^2, H*b, W*b]
            int64_t i = ih % b, j = iw % b;
            sc = crd ? ic * b * b + i * b + j : (i * b + j) * c + ic;
            sh = ih / b;
            sw = iw / b;
          } else { // y [N, C*b^2, H/b, W/b]
            int64_t block = ic / xc, i = block / b, j = block % b;
            sc = ic % xc;
            sh = ih * b + i;
            sw = iw * b + j;
          }
          y.copyFrom(x, ((in0 * xc + sc) * xh + sh) * xw + sw,
                     ((in0 * c + ic) * h + ih) * w + iw);
        }
  return Error::success();
}

Error evalTile(Operation *, ArrayRef<const Array *> in,
               MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  SmallVector<int64_t, 4> own = stridesOf(x.shape);
  std::vector<std::vector<int64_t>> offsets(y.rank());
  for (int64_t d = 0; d < y.rank(); ++d)
    for (int64_t o = 0; o < y.shape[d]; ++o)
      offsets[d].push_back((o % x.shape[d]) * own[d]);
  copyPerDim(x, y, y.shape, offsets, 0);
  return Error::success();
}

Error evalPad(Operation *op, ArrayRef<const Array *> in,
              MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  Array &y = out[0];
  int64_t rank = x.rank();
  auto modeAttr = op->getAttrOfType<StringAttr>("mode");
  StringRef mode = modeAttr ? modeAttr.getValue() : "constant";
  SmallVector<int64_t, 4> begin(rank, 0);
  const std::vector<int64_t> &pads = in[1]->i;
  size_t n = pads.size() / 2;
  for (size_t k = 0; k < n; ++k) {
    int64_t axis =
        in.size() > 3 && in[3] ? normalizeAxis(in[3]->i[k], rank) : int64_t(k);
    begin[axis] = pads[k];
  }
  double fill = in.size() > 2 && in[2] && in[2]->size() ? in[2]->at(0) : 0.0;
  SmallVector<int64_t, 4> own = stridesOf(x.shape);
  std::vector<std::vector<int64_t>> offsets(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = x.shape[d];
    for (int64_t o = 0; o < y.shape[d]; ++o) {
      int64_t c = o - begin[d];
      if (c < 0 || c >= dim) {
        if (mode == "constant" || dim == 0)
          c = -1;
        else if (mode == "edge")
          c = std::clamp<int64_t>(c, 0, dim - 1);
        else if (mode == "wrap")
          c = ((c % dim) + dim) % dim;
        else if (mode == "reflect") {
          if (dim == 1)
            c = 0;
          else {
            int64_t period = 2 * (dim - 1);
            c = ((c % period) + period) % period;
            if (c >= dim)
              c = period - c;
          }
        } else
          return unsupported(op, "pad mode " + mode);
      }
      offsets[d].push_back(c < 0 ? -1 : c * own[d]);
    }
  }
  copyPerDim(x, y, y.shape, offsets, fill);
  return Error::success();
}

Error evalGather(Operation *op, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  const Array &x = *in[0], &indices = *in[1];
  int64_t axis = normalizeAxis(intAttr(op, "axis", 0), x.rank());
  int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(axis));
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  int64_t dim = x.shape[axis], count = indices.size();
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t k = 0; k < count; ++k) {
      int64_t index = indices.i[k] < 0 ? indices.i[k] + dim : indices.i[k];
      if (index < 0 || index >= dim)
        return llvm::createStringError(
            "gather index " + llvm::Twine(indices.i[k]) +
            " is outside a dim of " + llvm::Twine(dim));
      for (int64_t c = 0; c < inner; ++c)
        out[0].copyFrom(x, (a * dim + index) * inner + c,
                        (a * count + k) * inner + c);
    }
  return Error::success();
}

/// GatherElements: each output element reads the data at its own position
/// with the axis coordinate replaced by its index (negative from the end).
Error evalGatherElements(Operation *op, ArrayRef<const Array *> in,
                         MutableArrayRef<Array> out) {
  const Array &x = *in[0], &indices = *in[1];
  int64_t rank = x.rank();
  if (indices.rank() != rank)
    return unsupported(op, "indices of another rank");
  int64_t axis = normalizeAxis(intAttr(op, "axis", 0), rank);
  auto xStrides = stridesOf(x.shape);
  auto iStrides = stridesOf(indices.shape);
  for (int64_t e = 0; e < indices.size(); ++e) {
    int64_t source = 0, rest = e;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t coord = rest / iStrides[d];
      rest %= iStrides[d];
      if (d == axis)
        coord = indices.i[e] < 0 ? indices.i[e] + x.shape[d] : indices.i[e];
      if (coord < 0 || coord >= x.shape[d])
        return llvm::createStringError(
            "gather_elements index " + llvm::Twine(indices.i[e]) +
            " is outside a dim of " + llvm::Twine(x.shape[d]));
      source += coord * xStrides[d];
    }
    out[0].copyFrom(x, source, e);
  }
  return Error::success();
}

Error evalShape(Operation *op, ArrayRef<const Array *> in,
                MutableArrayRef<Array> out) {
  const Array &x = *in[0];
  int64_t rank = x.rank();
  int64_t start = std::clamp<int64_t>(
      normalizeAxis(intAttr(op, "start", 0), rank), 0, rank);
  int64_t end = std::clamp<int64_t>(
      normalizeAxis(intAttr(op, "end", rank), rank), 0, rank);
  for (int64_t d = start; d < end; ++d)
    out[0].i[d - start] = x.shape[d];
  return Error::success();
}

Error evalSize(Operation *, ArrayRef<const Array *> in,
               MutableArrayRef<Array> out) {
  out[0].i[0] = in[0]->size();
  return Error::success();
}

Error evalConstantOfShape(Operation *op, ArrayRef<const Array *>,
                          MutableArrayRef<Array> out) {
  double value = 0;
  if (auto attr = op->getAttrOfType<DenseElementsAttr>("value")) {
    Type element = attr.getElementType();
    if (isa<FloatType>(element))
      value = (*attr.value_begin<APFloat>()).convertToDouble();
    else
      value = double((*attr.value_begin<APInt>()).getSExtValue());
  }
  if (out[0].isFloat)
    std::fill(out[0].f.begin(), out[0].f.end(), float(value));
  else
    std::fill(out[0].i.begin(), out[0].i.end(), int64_t(value));
  return Error::success();
}

Error evalRange(Operation *, ArrayRef<const Array *> in,
                MutableArrayRef<Array> out) {
  Array &y = out[0];
  for (int64_t k = 0; k < y.size(); ++k) {
    if (y.isFloat)
      y.f[k] = in[0]->f[0] + float(k) * in[2]->f[0];
    else
      y.i[k] = in[0]->i[0] + k * in[2]->i[0];
  }
  return Error::success();
}

/// Resize, nearest, (n-)linear or cubic, one dim at a time (the
/// interpolation is separable). Cubic takes its 4 taps and weights as
/// ONNX's reference and dsmp's lowering do: edges repeated, an integral
/// coordinate read as the pixel on its left with ratio 1, exclude_outside
/// dropping taps outside the input and renormalizing.
Error evalResize(Operation *op, ArrayRef<const Array *> in,
                 MutableArrayRef<Array> out) {
  auto str = [&](StringRef name, StringRef fallback) {
    auto attr = op->getAttrOfType<StringAttr>(name);
    return attr ? attr.getValue() : fallback;
  };
  StringRef mode = str("mode", "nearest");
  StringRef transform = str("coordinate_transformation_mode", "half_pixel");
  StringRef nearest = str("nearest_mode", "round_prefer_floor");
  if ((mode != "nearest" && mode != "linear" && mode != "cubic") ||
      intAttr(op, "antialias", 0) || op->hasAttr("axes") ||
      !(transform == "half_pixel" || transform == "pytorch_half_pixel" ||
        transform == "align_corners" || transform == "asymmetric" ||
        transform == "tf_half_pixel_for_nn"))
    return unsupported(op, "mode " + mode + ", " + transform);
  auto coeffAttr = op->getAttrOfType<FloatAttr>("cubic_coeff_a");
  double a = coeffAttr ? coeffAttr.getValueAsDouble() : -0.75;
  bool excludeOutside = intAttr(op, "exclude_outside", 0) != 0;
  const Array &x = *in[0];
  Array &y = out[0];
  if (!x.isFloat)
    return unsupported(op, "integer input");
  const Array *scales = in[2] && in[2]->size() ? in[2] : nullptr;
  Array current = x;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t inDim = x.shape[d], outDim = y.shape[d];
    double scale = scales ? scales->f[d] : double(outDim) / double(inDim);
    if (inDim == outDim && scale == 1.0)
      continue;
    Array next;
    next.shape = current.shape;
    next.shape[d] = outDim;
    next.allocate();
    int64_t outer = product(ArrayRef<int64_t>(current.shape).take_front(d));
    int64_t inner = product(ArrayRef<int64_t>(current.shape).drop_front(d + 1));
    for (int64_t o = 0; o < outDim; ++o) {
      double c;
      // ONNX's length_resized is in * scale when scales are given, before
      // the output dim is floored.
      double resized = scales ? double(inDim) * scale : double(outDim);
      if (transform == "align_corners")
        c = resized <= 1 ? 0 : double(o) * (inDim - 1) / (resized - 1);
      else if (transform == "asymmetric")
        c = o / scale;
      else if (transform == "tf_half_pixel_for_nn")
        c = (o + 0.5) / scale;
      else if (transform == "pytorch_half_pixel")
        c = resized > 1 ? (o + 0.5) / scale - 0.5 : 0;
      else
        c = (o + 0.5) / scale - 0.5;
      // The taps this output reads along d, and their weights.
      SmallVector<std::pair<int64_t, double>, 4> taps;
      if (mode == "nearest") {
        double r = nearest == "floor"               ? std::floor(c)
                   : nearest == "ceil"              ? std::ceil(c)
                   : nearest == "round_prefer_ceil" ? std::floor(c + 0.5)
                                                    : std::ceil(c - 0.5);
        taps.push_back({std::clamp<int64_t>(int64_t(r), 0, inDim - 1), 1.0});
      } else if (mode == "linear") {
        c = std::clamp<double>(c, 0, double(inDim - 1));
        int64_t i0 = int64_t(std::floor(c));
        double w = c - double(i0);
        taps.push_back({i0, 1.0 - w});
        taps.push_back({std::min(i0 + 1, inDim - 1), w});
      } else {
        double f = std::floor(c), r = c - f;
        if (r == 0) {
          f -= 1;
          r = 1;
        }
        auto farCoeff = [a](double t) { // |t| in [1, 2)
          return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
        };
        auto nearCoeff = [a](double t) { // |t| in [0, 1]
          return ((a + 2) * t - (a + 3)) * t * t + 1;
        };
        double w[4] = {farCoeff(r + 1), nearCoeff(r), nearCoeff(1 - r),
                       farCoeff(2 - r)};
        double kept = 0;
        for (int t = 0; t < 4; ++t) {
          double k = f - 1 + t;
          if (excludeOutside && (k < 0 || k > double(inDim - 1)))
            w[t] = 0;
          kept += w[t];
          taps.push_back(
              {int64_t(std::clamp<double>(k, 0, double(inDim - 1))), w[t]});
        }
        if (excludeOutside)
          for (auto &tap : taps)
            tap.second /= kept;
      }
      for (int64_t b = 0; b < outer; ++b) {
        float *dst = next.f.data() + (b * outDim + o) * inner;
        for (int64_t k = 0; k < inner; ++k) {
          double sum = 0;
          for (auto [index, weight] : taps)
            sum += current.f[(b * inDim + index) * inner + k] * weight;
          dst[k] = float(sum);
        }
      }
    }
    current = std::move(next);
  }
  y.f = std::move(current.f);
  return Error::success();
}
} // namespace

void addDataMovementKernels(KernelTable &table) {
  for (StringRef name : {"reshape", "flatten", "squeeze", "unsqueeze"})
    table[("dsmp." + name).str()] = KernelEntry(evalCopy, Writes::all);
  table["dsmp.transpose"] = KernelEntry(evalTranspose, Writes::all);
  table["dsmp.expand"] = evalExpand;
  table["dsmp.concat"] = evalConcat;
  table["dsmp.split"] = evalSplit;
  table["dsmp.slice"] = KernelEntry(evalSlice, Writes::all);
  table["dsmp.tile"] = evalTile;
  table["dsmp.depth_to_space"] = KernelEntry(evalDepthToSpace, Writes::all);
  table["dsmp.space_to_depth"] = KernelEntry(evalDepthToSpace, Writes::all);
  table["dsmp.trilu"] = KernelEntry(evalTrilu, Writes::all);
  table["dsmp.one_hot"] = KernelEntry(evalOneHot, Writes::all);
  table["dsmp.gather_nd"] = KernelEntry(evalGatherND, Writes::all);
  table["dsmp.top_k"] = KernelEntry(evalTopK, Writes::all);
  table["dsmp.grid_sample"] = KernelEntry(evalGridSample, Writes::all);
  table["dsmp.pad"] = evalPad;
  table["dsmp.gather"] = evalGather;
  table["dsmp.gather_elements"] = evalGatherElements;
  table["dsmp.shape"] = evalShape;
  table["dsmp.size"] = evalSize;
  table["dsmp.constant_of_shape"] = evalConstantOfShape;
  table["dsmp.range"] = evalRange;
  table["dsmp.resize"] = evalResize;
}

} // namespace mlir::dsmp::eval
