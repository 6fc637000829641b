//===- Spectral.cpp - ONNX's signal ops as products by tables -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Spectral.h"

#include "dialects/Dsmp/IR/DftTable.h"
#include "dialects/Dsmp/IR/OnnxTypes.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace mlir;
using llvm::Expected;

namespace mlir::dsmp::onnx_import {
namespace {

/// The INT attribute `name` of `node`, or `fallback`.
int64_t intAttr(const onnx::NodeProto &node, llvm::StringRef name,
                int64_t fallback) {
  for (const auto &attr : node.attribute())
    if (attr.name() == name && attr.type() == onnx::AttributeProto::INT)
      return attr.i();
  return fallback;
}

/// The one integer a scalar (or one-element) constant input holds.
Expected<int64_t> scalarInt(Value value, const llvm::Twine &what) {
  auto ints = getConstantInts(value);
  if (!ints)
    return llvm::createStringError(
        what + " must be a constant (an initializer or a Constant "
               "node)");
  if (ints->size() != 1)
    return llvm::createStringError(what + " must hold one value; it holds " +
                                   llvm::Twine(ints->size()));
  return ints->front();
}

/// The one number (integer or float) a scalar constant input holds.
Expected<double> scalarNumber(Value value, const llvm::Twine &what) {
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return llvm::createStringError(
        what + " must be a constant (an initializer or a Constant "
               "node)");
  if (attr.getNumElements() != 1)
    return llvm::createStringError(what + " must hold one value; it holds " +
                                   llvm::Twine(attr.getNumElements()));
  if (auto floats = dyn_cast<DenseFPElementsAttr>(attr))
    return (*floats.getValues<APFloat>().begin()).convertToDouble();
  return static_cast<double>((*attr.getValues<APInt>().begin()).getSExtValue());
}

/// A positive length no larger than kMaxDftLength.
Expected<int64_t> checkedLength(Expected<int64_t> length,
                                const llvm::Twine &what) {
  if (!length)
    return length.takeError();
  if (*length <= 0 || *length > kMaxDftLength)
    return llvm::createStringError(what + " is " + llvm::Twine(*length) +
                                   "; it must lie in [1, 2^20]");
  return *length;
}

/// The float element type `output_datatype` names (float by default).
Expected<Type> outputType(const onnx::NodeProto &node, MLIRContext &ctx) {
  int64_t onnxType = intAttr(node, "output_datatype", 1);
  Type type = onnxType > 0 && onnxType < (int64_t(1) << 30)
                  ? getElementTypeOfOnnx(ctx, static_cast<int32_t>(onnxType))
                  : Type();
  if (!type || !isa<FloatType>(type))
    return llvm::createStringError(
        node.op_type() + "'s output_datatype " + llvm::Twine(onnxType) +
        " is not a float type; dsmp builds float windows and "
        "filters");
  return type;
}

/// The window functions' cosine sums (ONNX's reference: the periodic form
/// divides by size, the symmetric one by size - 1).
Expected<Value> importWindow(const onnx::NodeProto &node,
                             ArrayRef<Value> inputs, GraphBuilder &g) {
  if (inputs.size() != 1 || !inputs[0])
    return llvm::createStringError(node.op_type() +
                                   " takes one input, its size");
  auto size = checkedLength(scalarInt(inputs[0], node.op_type() + "'s size"),
                            node.op_type() + "'s size");
  if (!size)
    return size.takeError();
  auto element = outputType(node, *g.builder().getContext());
  if (!element)
    return element.takeError();
  int64_t periodic = intAttr(node, "periodic", 1);
  if (periodic != 0 && periodic != 1)
    return llvm::createStringError(node.op_type() +
                                   "'s periodic must be 0 or 1");
  double a0 = 0.5, a1 = 0.5, a2 = 0.0;
  if (node.op_type() == "HammingWindow") {
    a0 = 25.0 / 46.0;
    a1 = 1.0 - a0;
  } else if (node.op_type() == "BlackmanWindow") {
    a0 = 0.42;
    a2 = 0.08;
  }
  int64_t period = periodic ? *size : *size - 1;
  std::vector<float> window;
  for (int64_t n = 0; n < *size; ++n) {
    // A symmetric window of one sample is that sample (torch's too).
    if (period == 0) {
      window.push_back(1.0f);
      continue;
    }
    double x = 2.0 * llvm::numbers::pi * static_cast<double>(n) /
               static_cast<double>(period);
    window.push_back(
        static_cast<float>(a0 - a1 * std::cos(x) + a2 * std::cos(2.0 * x)));
  }
  return g.floats(RankedTensorType::get({*size}, *element), window);
}

/// ONNX's MelWeightMatrix: triangular filters between mel-spaced bins,
/// [dft_length / 2 + 1, num_mel_bins], as its reference computes them.
Expected<Value> importMelWeightMatrix(const onnx::NodeProto &node,
                                      ArrayRef<Value> inputs, GraphBuilder &g) {
  if (inputs.size() != 5 || llvm::any_of(inputs, [](Value v) { return !v; }))
    return llvm::createStringError(
        "MelWeightMatrix takes num_mel_bins, dft_length, "
        "sample_rate, lower_edge_hertz and upper_edge_hertz");
  auto bins =
      checkedLength(scalarInt(inputs[0], "num_mel_bins"), "num_mel_bins");
  if (!bins)
    return bins.takeError();
  auto length = checkedLength(scalarInt(inputs[1], "dft_length"), "dft_length");
  if (!length)
    return length.takeError();
  auto rate = scalarNumber(inputs[2], "sample_rate");
  if (!rate)
    return rate.takeError();
  auto lower = scalarNumber(inputs[3], "lower_edge_hertz");
  if (!lower)
    return lower.takeError();
  auto upper = scalarNumber(inputs[4], "upper_edge_hertz");
  if (!upper)
    return upper.takeError();
  if (!(*rate > 0) || !(*lower >= 0) || !(*upper > *lower) ||
      !std::isfinite(*rate) || !std::isfinite(*upper))
    return llvm::createStringError(
        "MelWeightMatrix needs sample_rate > 0 and 0 <= "
        "lower_edge_hertz < upper_edge_hertz, all finite");
  auto element = outputType(node, *g.builder().getContext());
  if (!element)
    return element.takeError();
  int64_t spectrumBins = *length / 2 + 1;
  if (spectrumBins * *bins > kMaxDftTableElements)
    return llvm::createStringError(
        "MelWeightMatrix's [" + llvm::Twine(spectrumBins) + ", " +
        llvm::Twine(*bins) + "] table is beyond 2^24 elements");
  auto toMel = [](double hz) {
    return 2595.0 * std::log1p(hz / 700.0) / std::log(10.0);
  };
  double low = toMel(*lower), high = toMel(*upper);
  // The reference divides the mel range by num_mel_bins + 2 steps and
  // floors each edge to a DFT bin.
  double step = (high - low) / static_cast<double>(*bins + 2);
  std::vector<int64_t> edges;
  for (int64_t i = 0; i < *bins + 2; ++i) {
    double hz = 700.0 * std::expm1((static_cast<double>(i) * step + low) /
                                   2595.0 * std::log(10.0));
    double bin = std::floor(static_cast<double>(*length + 1) * hz / *rate);
    edges.push_back(static_cast<int64_t>(
        std::clamp(bin, 0.0, static_cast<double>(spectrumBins - 1))));
  }
  std::vector<float> table(static_cast<size_t>(spectrumBins * *bins), 0.0f);
  auto at = [&](int64_t row, int64_t column) -> float & {
    return table[static_cast<size_t>(row * *bins + column)];
  };
  for (int64_t i = 0; i < *bins; ++i) {
    int64_t left = edges[i], center = edges[i + 1], right = edges[i + 2];
    if (center == left)
      at(center, i) = 1.0f;
    else
      for (int64_t j = left; j <= center; ++j)
        at(j, i) =
            static_cast<float>(j - left) / static_cast<float>(center - left);
    for (int64_t j = center; j < right; ++j)
      at(j, i) =
          static_cast<float>(right - j) / static_cast<float>(right - center);
  }
  return g.floats(RankedTensorType::get({spectrumBins, *bins}, *element),
                  table);
}

/// DFT along `axis` as one MatMul: the signal moved to [..., n, 1 | 2],
/// cut or zero-padded to dft_length N, flattened to [..., N * c] and
/// multiplied by a [N * c, K * 2] table whose column 2k + p gives part p of
/// bin k (K = N, or N / 2 + 1 when onesided), then moved back. Inverse and
/// onesided is irfft (torch.fft.irfft through dynamo): the spectrum's bins
/// cut or padded to N / 2 + 1, times a [bins * c, N] table, N real samples.
Expected<Value> importDFT(const onnx::NodeProto &node, ArrayRef<Value> inputs,
                          int64_t opset, GraphBuilder &g) {
  if (inputs.empty() || !inputs[0] || inputs.size() > 3 ||
      (opset < 20 && inputs.size() > 2))
    return llvm::createStringError(
        "DFT takes input, an optional dft_length and (from opset "
        "20) an optional axis");
  auto type = dyn_cast<RankedTensorType>(inputs[0].getType());
  if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return llvm::createStringError(
        "DFT's input must be a float tensor of rank >= 2 whose last "
        "dim holds the real (1) or real and imaginary (2) parts");
  int64_t rank = type.getRank();
  int64_t parts = type.getDimSize(rank - 1);
  if (parts != 1 && parts != 2)
    return llvm::createStringError(
        "DFT's input's last dim must be 1 (real) or 2 (complex); "
        "it is " +
        (ShapedType::isDynamic(parts) ? std::string("dynamic")
                                      : std::to_string(parts)));
  int64_t axis = opset >= 20 ? -2 : intAttr(node, "axis", 1);
  if (opset >= 20 && inputs.size() > 2 && inputs[2]) {
    auto fromInput = scalarInt(inputs[2], "DFT's axis");
    if (!fromInput)
      return fromInput.takeError();
    axis = *fromInput;
  }
  if (axis < -rank || axis > rank - 2 || axis == -1)
    return llvm::createStringError(
        "DFT's axis " + llvm::Twine(axis) + " is out of range for " + "rank " +
        llvm::Twine(rank) + " (the last dim holds the parts)");
  if (axis < 0)
    axis += rank;
  int64_t inverse = intAttr(node, "inverse", 0);
  int64_t onesided = intAttr(node, "onesided", 0);
  if ((inverse != 0 && inverse != 1) || (onesided != 0 && onesided != 1))
    return llvm::createStringError("DFT's inverse and onesided must be 0 or 1");
  if (onesided && !inverse && parts == 2)
    return llvm::createStringError(
        "DFT's onesided output needs a real input (or, with "
        "inverse, gives a real output)");
  // inverse with onesided is irfft: bins 0..N/2 in, N real samples out.
  bool realOutput = inverse && onesided;
  Type element = type.getElementType();
  int64_t given = type.getDimSize(axis);
  Value lengthInput = inputs.size() > 1 ? inputs[1] : Value();
  if (ShapedType::isDynamic(given) && (lengthInput || realOutput))
    return llvm::createStringError(
        "DFT's axis " + llvm::Twine(axis) + " is dynamic and " +
        (lengthInput ? "dft_length is given" : "onesided inverse") +
        "; dsmp cuts or pads the signal only at a static length");
  // The transform's length, and how many samples (bins for irfft) of the
  // input along the axis the table reads.
  std::optional<int64_t> length, rows;
  if (!ShapedType::isDynamic(given)) {
    auto checked = checkedLength(
        lengthInput ? scalarInt(lengthInput, "DFT's dft_length")
                    : Expected<int64_t>(realOutput ? 2 * (given - 1) : given),
        lengthInput ? "DFT's dft_length" : "DFT's signal length");
    if (!checked)
      return checked.takeError();
    length = *checked;
    rows = realOutput ? dftBins(*length, true) : *length;
    if (!dftTableFits(*length, parts, onesided))
      return llvm::createStringError("DFT's table for length " +
                                     llvm::Twine(*length) +
                                     " is beyond 2^24 elements");
  }
  // The result along the axis: bins of two parts, or irfft's real samples.
  int64_t outCount = !length      ? -1
                     : realOutput ? *length
                                  : dftBins(*length, onesided);
  int64_t outParts = realOutput ? 1 : 2;

  // Move the axis next to the parts.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  bool moved = axis != rank - 2;
  Value x = moved ? g.transpose(inputs[0], perm) : inputs[0];
  if (!x)
    return llvm::createStringError("DFT's input could not be transposed");
  if (rows && given > *rows) {
    x = g.value("dsmp.slice", {x, g.i64s({0}), g.i64s({*rows}),
                               g.i64s({rank - 2}), g.none()});
  } else if (rows && given < *rows) {
    SmallVector<int64_t> pads(2 * rank, 0);
    pads[rank + rank - 2] = *rows - given;
    x = g.value("dsmp.pad", {x, g.i64s(pads), g.none(), g.none()});
  }
  if (!x)
    return llvm::createStringError(
        "DFT's input could not be cut or padded to dft_length");
  // [..., rows, c] -> [..., rows * c] -> MatMul -> [..., out * p] ->
  // [..., out, p].
  SmallVector<int64_t> flat(rank - 2, 0), split(rank - 2, 0);
  flat.push_back(rows ? *rows * parts : -1);
  split.append({outCount, outParts});
  x = g.reshape(x, flat);
  Value table;
  if (length) {
    auto tableType =
        RankedTensorType::get({*rows * parts, outCount * outParts}, element);
    table =
        g.floats(tableType,
                 realOutput ? buildInverseRealDftTable(*length, parts)
                            : buildDftTable(*length, parts, inverse, onesided));
  } else {
    // A run-time length (a dynamic sequence): the table for the length
    // the shapes give, a constant once they are specialized.
    MLIRContext *ctx = g.builder().getContext();
    Value n = g.value("dsmp.shape", {inputs[0]},
                      {g.i64("start", axis), g.i64("end", axis + 1)});
    table = g.typed(
        "dsmp.dft_table", {n},
        RankedTensorType::get({ShapedType::kDynamic, ShapedType::kDynamic},
                              element),
        {g.i64("parts", parts), g.attr("inverse", BoolAttr::get(ctx, inverse)),
         g.attr("onesided", BoolAttr::get(ctx, onesided))});
  }
  Value y = g.value("dsmp.matmul", {x, table});
  y = y ? g.reshape(y, split) : Value();
  if (y && moved) {
    SmallVector<int64_t> back(rank);
    for (auto [i, d] : llvm::enumerate(perm))
      back[d] = static_cast<int64_t>(i);
    y = g.transpose(y, back);
  }
  if (!y)
    return llvm::createStringError("DFT's result type could not be inferred");
  return y;
}

/// STFT as a Conv: the signal [B, L, c] as c channels of length L, kernels
/// [K * 2, c, W] (window times the DFT table, channel 2k + p for part p of
/// bin k), stride frame_step; [B, K * 2, frames] is then reshaped and moved
/// to ONNX's [B, frames, K, 2].
Expected<Value> importSTFT(const onnx::NodeProto &node, ArrayRef<Value> inputs,
                           GraphBuilder &g) {
  if (inputs.size() < 2 || inputs.size() > 4 || !inputs[0] || !inputs[1])
    return llvm::createStringError(
        "STFT takes signal, frame_step and optional window and "
        "frame_length");
  auto type = dyn_cast<RankedTensorType>(inputs[0].getType());
  if (!type || type.getRank() != 3 || !isa<FloatType>(type.getElementType()))
    return llvm::createStringError(
        "STFT's signal must be a float tensor [batch, length, 1 | 2]");
  int64_t parts = type.getDimSize(2);
  if (parts != 1 && parts != 2)
    return llvm::createStringError(
        "STFT's signal's last dim must be 1 (real) or 2 (complex)");
  auto step = checkedLength(scalarInt(inputs[1], "STFT's frame_step"),
                            "STFT's frame_step");
  if (!step)
    return step.takeError();
  Value window = inputs.size() > 2 ? inputs[2] : Value();
  std::optional<int64_t> frame;
  if (window) {
    auto windowType = dyn_cast<RankedTensorType>(window.getType());
    if (!windowType || windowType.getRank() != 1 ||
        windowType.isDynamicDim(0) ||
        !isa<FloatType>(windowType.getElementType()))
      return llvm::createStringError(
          "STFT's window must be a float vector of static length");
    frame = windowType.getDimSize(0);
  }
  if (inputs.size() > 3 && inputs[3]) {
    auto length = scalarInt(inputs[3], "STFT's frame_length");
    if (!length)
      return length.takeError();
    if (frame && *frame != *length)
      return llvm::createStringError(
          "STFT's frame_length " + llvm::Twine(*length) +
          " differs from its window's length " + llvm::Twine(*frame));
    frame = *length;
  }
  if (!frame)
    return llvm::createStringError("STFT needs a window or a frame_length");
  auto checkedFrame = checkedLength(*frame, "STFT's frame length");
  if (!checkedFrame)
    return checkedFrame.takeError();
  int64_t onesided = intAttr(node, "onesided", 1);
  if (onesided != 0 && onesided != 1)
    return llvm::createStringError("STFT's onesided must be 0 or 1");
  if (onesided && parts == 2)
    return llvm::createStringError(
        "STFT's onesided output needs a real signal; set onesided "
        "to 0 for a complex one");
  int64_t signalLength = type.getDimSize(1);
  if (!ShapedType::isDynamic(signalLength) && signalLength < *frame)
    return llvm::createStringError(
        "STFT's signal has " + llvm::Twine(signalLength) +
        " samples, fewer than one frame of " + llvm::Twine(*frame));
  int64_t bins = dftBins(*frame, onesided);
  if (!dftTableFits(*frame, parts, onesided))
    return llvm::createStringError(
        "STFT's [" + llvm::Twine(bins * 2) + ", " + llvm::Twine(parts) + ", " +
        llvm::Twine(*frame) + "] kernels are beyond 2^24 elements");

  Type element = type.getElementType();
  // A constant window goes into the kernels; another multiplies them.
  std::optional<SmallVector<double>> windowValues;
  if (!window) {
    windowValues.emplace(*frame, 1.0);
  } else if (DenseFPElementsAttr attr;
             matchPattern(window, m_Constant(&attr))) {
    windowValues.emplace();
    for (const APFloat &v : attr.getValues<APFloat>())
      windowValues->push_back(v.convertToDouble());
  }
  // Kernel [2k + p][q][n] is the DFT table's [n * parts + q][2k + p],
  // times the window's sample n.
  std::vector<float> table = buildDftTable(*frame, parts, false, onesided);
  std::vector<float> kernels(table.size());
  for (int64_t n = 0; n < *frame; ++n)
    for (int64_t q = 0; q < parts; ++q)
      for (int64_t column = 0; column < bins * 2; ++column) {
        double w = windowValues ? (*windowValues)[n] : 1.0;
        kernels[static_cast<size_t>((column * parts + q) * *frame + n)] =
            static_cast<float>(table[static_cast<size_t>(
                                   (n * parts + q) * bins * 2 + column)] *
                               w);
      }
  Value weights = g.floats(
      RankedTensorType::get({bins * 2, parts, *frame}, element), kernels);
  if (!windowValues)
    weights =
        g.mul(weights, g.reshape(g.convert(window, element), {1, 1, *frame}));
  Value channels = g.transpose(inputs[0], {0, 2, 1});
  Value frames =
      g.value("dsmp.conv", {channels, weights, g.none()},
              {g.array("dilations", {1}), g.i64("group", 1),
               g.array("kernel_shape", {*frame}), g.array("pads", {0, 0}),
               g.array("strides", {*step})});
  if (!frames)
    return llvm::createStringError("STFT's frames could not be inferred");
  auto framesType = cast<RankedTensorType>(frames.getType());
  int64_t count = framesType.getDimSize(2);
  Value split = g.reshape(
      frames, {0, bins, 2, ShapedType::isDynamic(count) ? -1 : count});
  Value y = split ? g.transpose(split, {0, 3, 1, 2}) : Value();
  if (!y)
    return llvm::createStringError("STFT's result type could not be inferred");
  return y;
}

} // namespace

bool isSpectralOp(const onnx::NodeProto &node) {
  return (node.domain().empty() || node.domain() == "ai.onnx") &&
         llvm::is_contained({"DFT", "STFT", "HannWindow", "HammingWindow",
                             "BlackmanWindow", "MelWeightMatrix"},
                            node.op_type());
}

Expected<Value> importSpectralOp(const onnx::NodeProto &node,
                                 ArrayRef<Value> inputs, int64_t opset,
                                 GraphBuilder &g) {
  if (node.output_size() != 1)
    return llvm::createStringError(node.op_type() + " gives one output");
  if (node.op_type() == "DFT")
    return importDFT(node, inputs, opset, g);
  if (node.op_type() == "STFT")
    return importSTFT(node, inputs, g);
  if (node.op_type() == "MelWeightMatrix")
    return importMelWeightMatrix(node, inputs, g);
  return importWindow(node, inputs, g);
}

} // namespace mlir::dsmp::onnx_import
