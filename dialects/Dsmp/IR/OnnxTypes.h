//===- OnnxTypes.h - ONNX data types <-> MLIR element types -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_ONNXTYPES_H
#define DSMP_DIALECTS_DSMP_IR_ONNXTYPES_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"

#include <cstdint>
#include <string>

namespace mlir::dsmp {

/// ONNX's TensorProto.DataType codes (onnx.proto; the f8 codes are from
/// ONNX 1.14, newer than Debian's ONNX 1.12 headers).
enum OnnxDataType : int32_t {
  kOnnxUndefined = 0,
  kOnnxFloat = 1,
  kOnnxUInt8 = 2,
  kOnnxInt8 = 3,
  kOnnxUInt16 = 4,
  kOnnxInt16 = 5,
  kOnnxInt32 = 6,
  kOnnxInt64 = 7,
  kOnnxString = 8,
  kOnnxBool = 9,
  kOnnxFloat16 = 10,
  kOnnxDouble = 11,
  kOnnxUInt32 = 12,
  kOnnxUInt64 = 13,
  kOnnxBFloat16 = 16,
  kOnnxFloat8E4M3FN = 17,
  kOnnxFloat8E4M3FNUZ = 18,
  kOnnxFloat8E5M2 = 19,
  kOnnxFloat8E5M2FNUZ = 20,
};

/// The MLIR element type of an ONNX data type (signed integers are
/// signless), or null when dsmp does not support it.
Type getElementTypeOfOnnx(MLIRContext &ctx, int32_t onnxType);
/// The ONNX data type of an MLIR element type (tf32 is stored as FLOAT), or
/// kOnnxUndefined.
int32_t getOnnxDataType(Type elementType);
/// Bytes per element in ONNX raw_data (bool is one byte), or 0 when
/// unsupported.
unsigned getOnnxElementBytes(int32_t onnxType);
/// A readable name ("FLOAT", "INT64", ...).
std::string getOnnxTypeName(int32_t onnxType);

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_IR_ONNXTYPES_H
