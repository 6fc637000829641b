//===- TensorFile.h - ONNX TensorProto files without protobuf ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads and writes the test_data_set_N/{input,output}_K.pb files that ONNX
// and onnxruntime use, for the runtime's tools. A small decoder of the
// protobuf wire format, so that the runtime (also cross-built for AArch64)
// needs neither protobuf nor ONNX. Every length in the file is checked.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_TENSORFILE_H
#define DSMP_RUNTIME_TENSORFILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace dsmp::runtime {

struct HostTensor {
  std::string name;
  int32_t dtype = 0; // ONNX TensorProto.DataType (dsmp_dtype)
  std::vector<int64_t> dims;
  std::vector<unsigned char> data; // row-major, little-endian
};

/// Bytes per element of an ONNX dtype the runtime handles, 0 otherwise.
size_t dtypeSize(int32_t dtype);

/// Parses a serialized TensorProto. Fails (with a reason) on malformed
/// input, external data, strings, or a payload that does not match dims.
bool parseTensorProto(const unsigned char *bytes, size_t size,
                      HostTensor &tensor, std::string &error);
bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error);
/// Writes dims, data_type, name and raw_data.
bool writeTensorFile(const std::string &path, const HostTensor &tensor,
                     std::string &error);

/// The element at `index` as a double (for comparisons and printing).
double elementAsDouble(const HostTensor &tensor, size_t index);

} // namespace dsmp::runtime

#endif // DSMP_RUNTIME_TENSORFILE_H
