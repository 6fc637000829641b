//===- OnnxTypes.cpp - ONNX data types <-> MLIR element types ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/OnnxTypes.h"

#include "mlir/IR/BuiltinTypes.h"

#include <iterator>

namespace mlir::dsmp {

Type getElementTypeOfOnnx(MLIRContext &ctx, int32_t onnxType) {
  switch (onnxType) {
  case kOnnxFloat:
    return Float32Type::get(&ctx);
  case kOnnxUInt8:
    return IntegerType::get(&ctx, 8, IntegerType::Unsigned);
  case kOnnxInt8:
    return IntegerType::get(&ctx, 8);
  case kOnnxUInt16:
    return IntegerType::get(&ctx, 16, IntegerType::Unsigned);
  case kOnnxInt16:
    return IntegerType::get(&ctx, 16);
  case kOnnxInt32:
    return IntegerType::get(&ctx, 32);
  case kOnnxInt64:
    return IntegerType::get(&ctx, 64);
  case kOnnxBool:
    return IntegerType::get(&ctx, 1);
  case kOnnxFloat16:
    return Float16Type::get(&ctx);
  case kOnnxDouble:
    return Float64Type::get(&ctx);
  case kOnnxUInt32:
    return IntegerType::get(&ctx, 32, IntegerType::Unsigned);
  case kOnnxUInt64:
    return IntegerType::get(&ctx, 64, IntegerType::Unsigned);
  case kOnnxBFloat16:
    return BFloat16Type::get(&ctx);
  case kOnnxFloat8E4M3FN:
    return Float8E4M3FNType::get(&ctx);
  case kOnnxFloat8E4M3FNUZ:
    return Float8E4M3FNUZType::get(&ctx);
  case kOnnxFloat8E5M2:
    return Float8E5M2Type::get(&ctx);
  case kOnnxFloat8E5M2FNUZ:
    return Float8E5M2FNUZType::get(&ctx);
  default:
    return {};
  }
}

int32_t getOnnxDataType(Type type) {
  if (isa<Float32Type, FloatTF32Type>(type))
    return kOnnxFloat;
  if (isa<Float16Type>(type))
    return kOnnxFloat16;
  if (isa<BFloat16Type>(type))
    return kOnnxBFloat16;
  if (isa<Float64Type>(type))
    return kOnnxDouble;
  if (isa<Float8E4M3FNType>(type))
    return kOnnxFloat8E4M3FN;
  if (isa<Float8E4M3FNUZType>(type))
    return kOnnxFloat8E4M3FNUZ;
  if (isa<Float8E5M2Type>(type))
    return kOnnxFloat8E5M2;
  if (isa<Float8E5M2FNUZType>(type))
    return kOnnxFloat8E5M2FNUZ;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 1:
      return kOnnxBool;
    case 8:
      return isUnsigned ? kOnnxUInt8 : kOnnxInt8;
    case 16:
      return isUnsigned ? kOnnxUInt16 : kOnnxInt16;
    case 32:
      return isUnsigned ? kOnnxUInt32 : kOnnxInt32;
    case 64:
      return isUnsigned ? kOnnxUInt64 : kOnnxInt64;
    default:
      return kOnnxUndefined;
    }
  }
  return kOnnxUndefined;
}

unsigned getOnnxElementBytes(int32_t onnxType) {
  switch (onnxType) {
  case kOnnxUInt8:
  case kOnnxInt8:
  case kOnnxBool:
  case kOnnxFloat8E4M3FN:
  case kOnnxFloat8E4M3FNUZ:
  case kOnnxFloat8E5M2:
  case kOnnxFloat8E5M2FNUZ:
    return 1;
  case kOnnxUInt16:
  case kOnnxInt16:
  case kOnnxFloat16:
  case kOnnxBFloat16:
    return 2;
  case kOnnxFloat:
  case kOnnxInt32:
  case kOnnxUInt32:
    return 4;
  case kOnnxInt64:
  case kOnnxDouble:
  case kOnnxUInt64:
    return 8;
  default:
    return 0;
  }
}

std::string getOnnxTypeName(int32_t onnxType) {
  static const char *names[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",
      "INT8",           "UINT16",     "INT16",
      "INT32",          "INT64",      "STRING",
      "BOOL",           "FLOAT16",    "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",
      "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",          "INT4"};
  if (onnxType >= 0 && onnxType < static_cast<int32_t>(std::size(names)))
    return names[onnxType];
  return "data type " + std::to_string(onnxType);
}

} // namespace mlir::dsmp
