//===- ReplaceInitializers.cpp - An ONNX model with new weights -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Export/ReplaceInitializers.h"

#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/io/coded_stream.h>
#include <limits>
#include <onnx/onnx_pb.h>
#include <set>

using namespace mlir;

llvm::Expected<std::string> mlir::dsmp::replaceInitializers(
    llvm::StringRef onnxPath,
    const std::map<std::string, std::vector<float>> &weights) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(onnxPath + ": " + why);
  };
  auto buffer = llvm::MemoryBuffer::getFile(onnxPath);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() >= static_cast<size_t>(std::numeric_limits<int>::max()))
    return fail("larger than the 2 GiB protobuf limit");
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(std::numeric_limits<int>::max());
  onnx::ModelProto model;
  if (!model.ParseFromCodedStream(&stream) || !model.has_graph())
    return fail("not a valid ONNX model");
  std::set<std::string> replaced;
  for (onnx::TensorProto &init :
       *model.mutable_graph()->mutable_initializer()) {
    auto it = weights.find(init.name());
    if (it == weights.end())
      continue;
    if (init.data_type() != onnx::TensorProto::FLOAT)
      return fail("initializer '" + init.name() + "' is not float");
    size_t count = 1;
    for (int64_t d : init.dims())
      count *= static_cast<size_t>(d);
    if (count != it->second.size())
      return fail("initializer '" + init.name() + "' has " +
                  llvm::Twine(count) + " elements, the trained weight " +
                  llvm::Twine(it->second.size()));
    init.clear_float_data();
    init.clear_external_data();
    init.clear_data_location();
    init.set_raw_data(it->second.data(), count * sizeof(float));
    replaced.insert(init.name());
  }
  for (const auto &entry : weights)
    if (!replaced.count(entry.first))
      return fail("has no float initializer '" + entry.first + "'");
  std::string out;
  if (!model.SerializeToString(&out))
    return fail("the model does not serialize (over 2 GiB?)");
  return out;
}
