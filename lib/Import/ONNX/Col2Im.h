//===- Col2Im.h - ONNX Col2Im as a grouped ConvTranspose ------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Col2Im (opset 18; torch's F.fold / nn.Fold, which MobileViTV2 and
// token-to-image models export) sums sliding blocks back into an image. It
// is the transposed convolution of the blocks, seen as an image of block
// positions, with a one-hot kernel per block offset: channel c * K + j
// (K = prod(block_shape)) of group c carries offset j. dsmp spells it so,
// and every analysis, lowering and export of ConvTranspose serves it.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_IMPORT_ONNX_COL2IM_H
#define DSMP_LIB_IMPORT_ONNX_COL2IM_H

#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

namespace mlir::dsmp::onnx_import {

/// Col2Im(input [N, C * K, L], image_shape, block_shape) with `node`'s
/// dilations, pads and strides, built with `g`. image_shape and block_shape
/// must be constants. Errors say what is wrong, without the node's name
/// (the caller adds it).
llvm::Expected<Value> importCol2Im(const onnx::NodeProto &node,
                                   llvm::ArrayRef<Value> inputs,
                                   GraphBuilder &g);

} // namespace mlir::dsmp::onnx_import

#endif // DSMP_LIB_IMPORT_ONNX_COL2IM_H
