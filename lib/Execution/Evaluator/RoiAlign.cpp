//===- RoiAlign.cpp - Evaluator kernel: RoiAlign ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each region of interest cut into bins, each bin the mean (or onnxruntime's
// max) of bilinear samples on a regular grid, in f32 arithmetic in the order
// onnxruntime's kernel uses, so that both agree to the last bit; the host
// lowering (lib/Conversion/DsmpToLinalg/RoiAlign.cpp) spells the same steps.
// An adaptive grid (sampling_ratio 0: ceil(bin size) points per side, which
// the data decide) takes at most kMaxGrid points per side.
//
//===----------------------------------------------------------------------===//

#include "Array.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cmath>

using llvm::ArrayRef;
using llvm::Error;
using llvm::MutableArrayRef;

namespace mlir::dsmp::eval {
namespace {

constexpr int64_t kMaxGrid = 256;

/// One region in input pixels: its corner, bin size and sample grid.
struct RoiBox {
  float startH, startW, binH, binW;
  int64_t gridH, gridW;
  int64_t count() const { return std::max<int64_t>(gridH * gridW, 1); }
};

/// A sample's four taps (indices into the plane) and bilinear weights; all
/// zero where the point lies more than a pixel outside the plane.
struct RoiSample {
  int64_t at[4] = {0, 0, 0, 0};
  float weight[4] = {0, 0, 0, 0};
};

struct RoiAlignGeometry {
  float scale;
  int64_t samplingRatio;
  bool halfPixel;
  int64_t outH, outW, height, width;

  static int64_t grid(float extent, int64_t bins) {
    float points = std::ceil(extent / float(bins));
    return points >= float(kMaxGrid) ? kMaxGrid
           : points > 0              ? int64_t(points)
                                     : 0;
  }

  RoiBox box(const float *roi) const {
    float offset = halfPixel ? 0.5f : 0.0f;
    float startW = roi[0] * scale - offset, startH = roi[1] * scale - offset;
    float endW = roi[2] * scale - offset, endH = roi[3] * scale - offset;
    float roiW = endW - startW, roiH = endH - startH;
    if (!halfPixel) {
      roiW = std::max(roiW, 1.0f);
      roiH = std::max(roiH, 1.0f);
    }
    RoiBox b{startH, startW, roiH / float(outH), roiW / float(outW), 0, 0};
    b.gridH = samplingRatio > 0 ? samplingRatio : grid(roiH, outH);
    b.gridW = samplingRatio > 0 ? samplingRatio : grid(roiW, outW);
    return b;
  }

  RoiSample sample(const RoiBox &b, int64_t ph, int64_t pw, int64_t iy,
                   int64_t ix) const {
    float y = b.startH + float(ph) * b.binH +
              float(iy + 0.5f) * b.binH / float(b.gridH);
    float x = b.startW + float(pw) * b.binW +
              float(ix + 0.5f) * b.binW / float(b.gridW);
    RoiSample s;
    // More than a pixel outside (or NaN): no taps.
    if (!(y >= -1.0f && y <= float(height) && x >= -1.0f && x <= float(width)))
      return s;
    y = std::max(y, 0.0f);
    x = std::max(x, 0.0f);
    int64_t yLow = int64_t(y), xLow = int64_t(x), yHigh, xHigh;
    if (yLow >= height - 1) {
      yHigh = yLow = height - 1;
      y = float(yLow);
    } else {
      yHigh = yLow + 1;
    }
    if (xLow >= width - 1) {
      xHigh = xLow = width - 1;
      x = float(xLow);
    } else {
      xHigh = xLow + 1;
    }
    float ly = y - float(yLow), lx = x - float(xLow);
    float hy = 1.0f - ly, hx = 1.0f - lx;
    s.weight[0] = hy * hx;
    s.weight[1] = hy * lx;
    s.weight[2] = ly * hx;
    s.weight[3] = ly * lx;
    s.at[0] = yLow * width + xLow;
    s.at[1] = yLow * width + xHigh;
    s.at[2] = yHigh * width + xLow;
    s.at[3] = yHigh * width + xHigh;
    return s;
  }
};

Error evalRoiAlign(Operation *op, ArrayRef<const Array *> in,
                   MutableArrayRef<Array> out) {
  const Array &x = *in[0], &rois = *in[1], &batch = *in[2];
  Array &y = out[0];
  int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  int64_t regions = rois.shape[0];
  int64_t outH = intAttr(op, "output_height", 1);
  int64_t outW = intAttr(op, "output_width", 1);
  bool halfPixel =
      op->getAttrOfType<StringAttr>("coordinate_transformation_mode")
          .getValue() == "half_pixel";
  bool isMax = op->getAttrOfType<StringAttr>("mode").getValue() == "max";
  RoiAlignGeometry geometry{floatAttr(op, "spatial_scale", 1.0f),
                            intAttr(op, "sampling_ratio", 0),
                            halfPixel,
                            outH,
                            outW,
                            h,
                            w};
  for (int64_t r = 0; r < regions; ++r) {
    int64_t image = batch.isFloat ? int64_t(batch.f[r]) : batch.i[r];
    if (image < 0 || image >= n)
      return unsupported(op, "a batch index out of range");
    RoiBox box = geometry.box(&rois.f[r * 4]);
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *plane = x.f.data() + (image * c + ch) * h * w;
      for (int64_t ph = 0; ph < outH; ++ph)
        for (int64_t pw = 0; pw < outW; ++pw) {
          float acc = 0;
          bool first = true;
          for (int64_t iy = 0; iy < box.gridH; ++iy)
            for (int64_t ix = 0; ix < box.gridW; ++ix) {
              RoiSample s = geometry.sample(box, ph, pw, iy, ix);
              float v[4];
              for (int k = 0; k < 4; ++k)
                v[k] = s.weight[k] * plane[s.at[k]];
              // onnxruntime sums the four taps, then adds them.
              if (isMax) {
                float m = std::max(std::max(std::max(v[0], v[1]), v[2]), v[3]);
                acc = first ? m : std::max(acc, m);
                first = false;
              } else {
                acc += v[0] + v[1] + v[2] + v[3];
              }
            }
          if (!isMax)
            acc /= float(box.count());
          y.f[((r * c + ch) * outH + ph) * outW + pw] = acc;
        }
    }
  }
  return Error::success();
}

} // namespace

void addRoiAlignKernel(KernelTable &table) {
  table["dsmp.roi_align"] = KernelEntry(evalRoiAlign, Writes::all);
}

} // namespace mlir::dsmp::eval
