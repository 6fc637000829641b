//===- Spectral.h - ONNX's signal ops as products by tables --- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX's signal-processing ops (opset 17), which torch's exporter writes for
// torch.fft.* (DFT; HF FNet mixes tokens so) and torch.stft (STFT; audio
// front ends), and the window and mel-filter ops that go with them.
//
// A DFT of length N is a product by an [N, N] matrix of cosines and sines:
// dsmp spells it as one MatMul by a constant table (real and imaginary parts
// interleaved, as ONNX stores complex values), and an STFT as one Conv of
// stride frame_step whose kernels are the window times those tables. Every
// analysis, format choice, lowering and export of MatMul and Conv then
// serves them; the cost is N^2 products per transform instead of an FFT's
// N log N, which is small beside the layers around them. The window ops and
// MelWeightMatrix, whose sizes must be constants, are constants.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_IMPORT_ONNX_SPECTRAL_H
#define DSMP_LIB_IMPORT_ONNX_SPECTRAL_H

#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

namespace mlir::dsmp::onnx_import {

/// Whether `node` is one of the signal ops this file spells: DFT, STFT,
/// HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix.
bool isSpectralOp(const onnx::NodeProto &node);

/// The value of spectral op `node` (at `opset`, which decides where DFT's
/// axis comes from) on `inputs` (null where an optional one is absent),
/// built with `g`. Errors say what is wrong, without the node's name (the
/// caller adds it).
llvm::Expected<Value> importSpectralOp(const onnx::NodeProto &node,
                                       llvm::ArrayRef<Value> inputs,
                                       int64_t opset, GraphBuilder &g);

} // namespace mlir::dsmp::onnx_import

#endif // DSMP_LIB_IMPORT_ONNX_SPECTRAL_H
