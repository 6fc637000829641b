//===- IntegerOps.h - Quantized integer ops as dsmp ops ------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// onnxruntime's dynamic quantization (quantize_dynamic) writes
// DynamicQuantizeLinear -> MatMulInteger / ConvInteger -> Cast -> Mul by
// the scales; its static quantization in the operator format (QOperator)
// writes QLinearMatMul / QLinearConv. dsmp spells them with ops it has: the
// quantization with ReduceMin/ReduceMax and QuantizeLinear, the integer
// products as f32 MatMul/Conv of the zero-point-centred operands (cast to
// int32, or scaled by a_scale * b_scale / y_scale and quantized with scale 1
// onto y's zero point). The f32 products are the integers themselves while
// every partial sum stays below 2^24 (uint8 operands: 255^2 per term),
// within an ulp of them beyond.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_IMPORT_ONNX_INTEGEROPS_H
#define DSMP_LIB_IMPORT_ONNX_INTEGEROPS_H

#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

namespace mlir::dsmp::onnx_import {

/// Whether `node` is DynamicQuantizeLinear, MatMulInteger, ConvInteger,
/// QLinearMatMul or QLinearConv (default domain), which dsmp spells with
/// other ops.
bool isSpelledIntegerOp(const onnx::NodeProto &node);

/// Builds the float op `opType` ("MatMul", "Conv") of `operands` with
/// `node`'s attributes, as the importer builds that op.
using FloatOpBuilder =
    llvm::function_ref<llvm::Expected<Value>(llvm::StringRef, ValueRange)>;

/// Builds `node`'s outputs from `inputs` (null for an absent optional
/// input) with `g`, one value per output. Errors say what is wrong with the
/// node, without its name (the caller adds it).
llvm::Expected<llvm::SmallVector<Value>>
importIntegerOp(const onnx::NodeProto &node, llvm::ArrayRef<Value> inputs,
                GraphBuilder &g, FloatOpBuilder floatOp);

} // namespace mlir::dsmp::onnx_import

#endif // DSMP_LIB_IMPORT_ONNX_INTEGEROPS_H
