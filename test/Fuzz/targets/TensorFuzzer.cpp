//===- TensorFuzzer.cpp - libFuzzer target for .pb tensors ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Arbitrary bytes as a serialized ONNX TensorProto (input_K.pb). The
// runtime's reader must accept or refuse with a reason; what it accepts
// holds exactly dims' product of elements, each of which reads back.
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/TensorFile.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ::dsmp::runtime::HostTensor tensor;
  std::string error;
  if (!::dsmp::runtime::parseTensorProto(data, size, tensor, error)) {
    if (error.empty())
      std::abort();
    return 0;
  }
  size_t elementSize = ::dsmp::runtime::dtypeSize(tensor.dtype);
  if (elementSize == 0)
    std::abort();
  size_t count = 1;
  for (int64_t d : tensor.dims) {
    if (d < 0)
      std::abort();
    count *= static_cast<size_t>(d);
  }
  if (tensor.data.size() != count * elementSize)
    std::abort();
  volatile double sum = 0;
  for (size_t i = 0; i < count; ++i)
    sum = sum + ::dsmp::runtime::elementAsDouble(tensor, i);
  return 0;
}
